//! Cross-checked truth over a real server: test workers speak the worker protocol with the
//! worker token against a coordinator on 127.0.0.1. A puzzle is listed only once a second
//! party confirms its uniqueness; a worker that lies about a puzzle's uniqueness or a solve's
//! values gets nothing of its lie published and is quarantined at its first caught lie, and
//! what it had stored on its word alone before it was caught is purged. Which results are
//! checked cannot be told in advance.

use pentago::{MateSearch, Position, Puzzle, SearchControl, Value};
use pentagrid_coordinator::{CoordinatorSettings, CrossCheckSettings};
use pentagrid_edge::{Credentials, Grant, Role};
use pentagrid_proto::v2::ErrorReason;
use pentagrid_proto::{Client, Outcome, RejectionKind, Task, Verdict, reason_of, v2};
use pentagrid_store::Store;
use pentagrid_store::claim::ClaimState;
use pentagrid_tests::ServedCoordinator;
use tonic::Code;

const WORKER: &str = "worker-token";
const ADMIN: &str = "admin-token";

/// A coordinator on a temporary database, served on a loopback port with role tokens.
struct Server {
    served: ServedCoordinator,
    dir: tempfile::TempDir,
}

impl Server {
    async fn start(crosscheck: CrossCheckSettings) -> Server {
        Server::start_in(tempfile::tempdir().unwrap(), crosscheck).await
    }

    /// Stops the server and starts another on the same database.
    async fn restart(self, crosscheck: CrossCheckSettings) -> Server {
        let (store, dir) = self.stop().await;
        drop(store);
        Server::start_in(dir, crosscheck).await
    }

    async fn start_in(dir: tempfile::TempDir, crosscheck: CrossCheckSettings) -> Server {
        let settings = CoordinatorSettings {
            crosscheck,
            ..CoordinatorSettings::default()
        };
        let credentials = Credentials::new(vec![
            (Grant::Role(Role::Worker), WORKER.into()),
            (Grant::Role(Role::Admin), ADMIN.into()),
        ])
        .unwrap();
        let served = ServedCoordinator::start(dir.path(), settings, credentials).await;
        Server { served, dir }
    }

    fn admin(&self) -> Client {
        self.served.client(ADMIN)
    }

    async fn worker(&self, id: &str) -> TestWorker {
        let mut client = self.served.client(WORKER);
        let session = pentagrid_tests::hello(&mut client, id).await;
        TestWorker {
            client,
            id: id.into(),
            session,
        }
    }

    /// Stops the server and opens its database directly (once the stopped coordinator's
    /// last tasks let go of its lock).
    async fn stop(self) -> (Store, tempfile::TempDir) {
        self.served.stop().await;
        for _ in 0..200 {
            if let Ok(store) = Store::open(self.dir.path()) {
                return (store, self.dir);
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        panic!("the stopped coordinator kept its database locked");
    }
}

/// A worker driven by the test: it leases, computes honestly with the real engine, and hands
/// in whatever the test tells it to.
struct TestWorker {
    client: Client,
    id: String,
    session: String,
}

impl TestWorker {
    async fn lease(&mut self) -> Result<Vec<v2::Job>, tonic::Status> {
        let request = v2::LeaseRequest {
            worker_id: self.id.clone(),
            max_jobs: 64,
            session: self.session.clone(),
        };
        Ok(self.client.lease(request).await?.into_inner().jobs)
    }

    async fn submit(&mut self, job: &v2::Job, outcome: &Outcome) -> Result<(), tonic::Status> {
        let request = v2::SubmitRequest {
            worker_id: self.id.clone(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: format!("{}-{}", self.id, job.job_id),
            result: Some(outcome.into()),
            session: self.session.clone(),
        };
        self.client.submit(request).await.map(|_| ())
    }

    /// Leases everything it may and answers it honestly; returns how many jobs it did.
    async fn work_honestly(&mut self) -> usize {
        let jobs = self.lease().await.unwrap();
        for job in &jobs {
            let outcome = honest(job);
            self.submit(job, &outcome).await.unwrap();
        }
        jobs.len()
    }
}

fn task(job: &v2::Job) -> Task {
    Task::try_from(job.spec.as_ref().unwrap()).unwrap()
}

fn honest(job: &v2::Job) -> Outcome {
    pentagrid_worker::execute(&task(job), job.seed, 1, &SearchControl::new()).unwrap()
}

/// A forged puzzle for a candidate whose mate is real but not the only win: the proof tree
/// holds, the uniqueness is the lie.
fn forged_puzzle(position: &Position, max_moves: u32) -> Option<Puzzle> {
    let proof = MateSearch::new().find(position, max_moves)?;
    Some(Puzzle {
        themes: Vec::new(),
        ..Puzzle::from_proof(proof)
    })
}

/// Queues puzzle candidates (late positions of random games).
async fn queue_candidates(admin: &mut Client, candidates: u64) {
    let queued = admin
        .generate_puzzles(v2::GeneratePuzzlesRequest {
            candidates,
            max_moves: 3,
            min_stones: 22,
            random_games: true,
            seed: 9,
            min_moves: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(queued.queued, candidates);
}

/// The liar's verify results: honest, except that the first candidate with a mate that is not
/// the only win is claimed as a puzzle, in the result it hands in last (it may be quarantined
/// at once). Returns that candidate's position.
async fn lie_about_uniqueness(liar: &mut TestWorker) -> Position {
    let mut lie = None;
    let mut lying_result = None;
    for job in liar.lease().await.unwrap() {
        let Outcome::Verify { mut verdicts } = honest(&job) else {
            panic!("verify jobs only");
        };
        let Task::Verify {
            candidates,
            max_moves,
        } = task(&job)
        else {
            panic!("verify jobs only");
        };
        if lie.is_none() {
            for (index, verdict) in verdicts.iter_mut().enumerate() {
                let position = candidates[index].0;
                if *verdict == Verdict::Rejected(RejectionKind::NotUnique)
                    && let Some(puzzle) = forged_puzzle(&position, max_moves)
                {
                    *verdict = Verdict::Puzzle(Box::new(puzzle));
                    lie = Some(position);
                    break;
                }
            }
            if lie.is_some() {
                lying_result = Some((job, verdicts));
                continue;
            }
        }
        liar.submit(&job, &Outcome::Verify { verdicts })
            .await
            .unwrap();
    }
    let (job, verdicts) = lying_result.expect("a candidate with a mate that is not the only win");
    liar.submit(&job, &Outcome::Verify { verdicts })
        .await
        .unwrap();
    lie.unwrap()
}

/// A late position of a random game (24 stones, not over).
fn late_position(seed: u64) -> Position {
    (seed..)
        .find_map(|seed| {
            let game = pentago::play_game(
                &Position::START,
                &pentago::Player::Random,
                &pentago::Player::Random,
                seed,
                1,
            );
            let mut position = game.start;
            for mv in game.moves {
                if position.stone_count() == 24 {
                    return Some(position);
                }
                position = position.play(mv).ok()?;
            }
            None
        })
        .unwrap()
}

/// The liar solves `position` and reports every value turned around (consistently, so the
/// result passes validation).
async fn lie_about_values(admin: &mut Client, liar: &mut TestWorker, position: Position) {
    let spec = v2::JobSpec::from(&Task::Solve { position });
    admin
        .submit_jobs(v2::SubmitJobsRequest { jobs: vec![spec] })
        .await
        .unwrap();
    let job = liar.lease().await.unwrap().pop().expect("the solve job");
    let Outcome::Solve { moves } = honest(&job) else {
        panic!("a solve");
    };
    assert!(!moves.is_empty());
    let turned = moves
        .into_iter()
        .map(|(mv, value)| {
            let lie = match value {
                Value::Win => Value::Loss,
                Value::Loss | Value::Draw => Value::Win,
            };
            (mv, lie)
        })
        .collect();
    liar.submit(&job, &Outcome::Solve { moves: turned })
        .await
        .unwrap();
}

async fn listing(admin: &mut Client) -> v2::ListPuzzlesResponse {
    admin
        .list_puzzles(v2::ListPuzzlesRequest::default())
        .await
        .unwrap()
        .into_inner()
}

async fn status(admin: &mut Client) -> v2::StatusResponse {
    admin
        .status(v2::StatusRequest::default())
        .await
        .unwrap()
        .into_inner()
}

/// Only other workers check (the coordinator never judges).
fn by_workers() -> CrossCheckSettings {
    CrossCheckSettings {
        puzzle_sample: 1.0,
        solve_sample: 1.0,
        analysis_sample: 0.0,
        judge_stones: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_puzzle_is_listed_only_once_a_second_worker_confirms_it() {
    let server = Server::start(by_workers()).await;
    let mut admin = server.admin();
    queue_candidates(&mut admin, 24).await;
    let mut finder = server.worker("finder").await;
    assert!(finder.work_honestly().await > 0);
    let found = listing(&mut admin).await;
    assert!(
        found.unconfirmed > 0,
        "the candidates hold puzzles: {found:?}"
    );
    assert_eq!((found.found, found.total), (0, 0), "nothing listed yet");
    // The finder may not check its own claims, not even after a restart.
    let server = server.restart(by_workers()).await;
    let mut finder = server.worker("finder").await;
    assert!(finder.lease().await.unwrap().is_empty());
    let mut admin = server.admin();
    assert_eq!(listing(&mut admin).await.unconfirmed, found.unconfirmed);
    let mut checker = server.worker("checker").await;
    assert_eq!(checker.work_honestly().await as u64, found.unconfirmed);
    let confirmed = listing(&mut admin).await;
    assert_eq!(confirmed.unconfirmed, 0);
    assert_eq!(confirmed.found, found.unconfirmed);
    assert_eq!(confirmed.puzzles_json.len() as u64, found.unconfirmed);
    let status = status(&mut admin).await;
    assert!(status.flagged_workers.is_empty());
    let (store, _dir) = server.stop().await;
    assert!(
        store
            .claims()
            .unwrap()
            .iter()
            .all(|(_, c)| c.state == ClaimState::Confirmed && c.checker == "checker")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lying_worker_publishes_nothing_is_flagged_and_quarantined_by_a_third_worker() {
    let server = Server::start(by_workers()).await;
    let mut admin = server.admin();
    queue_candidates(&mut admin, 48).await;
    let mut liar = server.worker("liar").await;
    let lie = lie_about_uniqueness(&mut liar).await;
    let mut first = server.worker("honest-1").await;
    let mut second = server.worker("honest-2").await;
    // The first honest worker checks every claim, the liar's among them: one is disputed, and
    // neither it nor the liar may decide the dispute.
    assert!(first.work_honestly().await > 0);
    assert_eq!(listing(&mut admin).await.disputed, 1);
    assert!(liar.lease().await.unwrap().is_empty());
    assert!(first.lease().await.unwrap().is_empty());
    assert_eq!(second.work_honestly().await, 1);
    let settled = listing(&mut admin).await;
    assert_eq!((settled.disputed, settled.unconfirmed), (0, 0));
    let key = lie.canonical_key().bits();
    let not_found = admin
        .get_puzzle(v2::GetPuzzleRequest {
            key: lie.key().bits(),
        })
        .await
        .unwrap_err();
    assert_eq!(not_found.code(), Code::NotFound);
    let flagged = status(&mut admin).await.flagged_workers;
    assert_eq!(flagged.len(), 1);
    assert_eq!(
        (flagged[0].worker_id.as_str(), flagged[0].flags),
        ("liar", 1)
    );
    assert!(flagged[0].quarantined, "one caught lie is enough");
    // Its results are refused, and it gets no jobs.
    let refused = liar.lease().await.unwrap_err();
    assert_eq!(
        (refused.code(), reason_of(&refused)),
        (Code::PermissionDenied, ErrorReason::Quarantined)
    );

    // Another liar: turned-around exact values of a solve.
    let mut liar = server.worker("liar-2").await;
    let position = late_position(3);
    lie_about_values(&mut admin, &mut liar, position).await;
    assert_eq!(first.work_honestly().await, 1, "the check");
    assert_eq!(second.work_honestly().await, 1, "the dispute");
    let status = status(&mut admin).await;
    let shown = status
        .workers
        .iter()
        .find(|w| w.worker_id == "liar-2")
        .unwrap();
    assert!(shown.quarantined && shown.flags == 1, "{shown:?}");
    // The quarantine is stored: it outlives a restart.
    let server = server.restart(by_workers()).await;
    for id in ["liar", "liar-2"] {
        let mut liar = server.worker(id).await;
        let refused = liar.lease().await.unwrap_err();
        assert_eq!(reason_of(&refused), ErrorReason::Quarantined);
    }
    let (store, _dir) = server.stop().await;
    assert_eq!(store.puzzle(key).unwrap(), None, "the lie is not published");
    // Only the values both honest workers gave are stored: none of the liar's.
    let canonical = position.canonical();
    let stored = store.proven_table(canonical.position.key().bits()).unwrap();
    assert!(!stored.is_empty());
    let truth = pentago::midsolve(&canonical.position).unwrap();
    for (mv, value) in stored {
        let real = truth.moves.iter().find(|(m, _)| *m == mv).unwrap().1;
        assert_eq!(value, real, "{mv}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_coordinator_judges_late_positions_itself_and_refuses_a_quarantined_worker() {
    let server = Server::start(CrossCheckSettings {
        solve_sample: 1.0,
        ..CrossCheckSettings::default()
    })
    .await;
    let mut admin = server.admin();
    queue_candidates(&mut admin, 48).await;
    let mut liar = server.worker("liar").await;
    let lie = lie_about_uniqueness(&mut liar).await;
    // Settled at once by the coordinator's own solver: the liar's honest puzzles are listed,
    // its lie is not, and it is flagged.
    let settled = listing(&mut admin).await;
    assert_eq!((settled.unconfirmed, settled.disputed), (0, 0));
    assert!(settled.not_unique > 0);
    assert!(!settled.puzzles_json.is_empty());
    let lie_text = format!("\"position\":\"{lie}\"");
    assert!(
        settled
            .puzzles_json
            .iter()
            .all(|json| !json.contains(&lie_text))
    );
    let flagged = status(&mut admin).await.flagged_workers;
    assert_eq!((flagged[0].flags, flagged[0].quarantined), (1, true));
    let mut liar = server.worker("liar-2").await;
    let position = late_position(5);
    lie_about_values(&mut admin, &mut liar, position).await;
    let status = status(&mut admin).await;
    assert!(status.flagged_workers.iter().all(|w| w.quarantined));
    // A result handed in after the quarantine is refused and changes nothing.
    let spec = v2::JobSpec::from(&Task::Solve { position });
    admin
        .submit_jobs(v2::SubmitJobsRequest { jobs: vec![spec] })
        .await
        .unwrap();
    let mut honest_worker = server.worker("honest").await;
    let job = honest_worker.lease().await.unwrap().pop().unwrap();
    let refused = liar.submit(&job, &honest(&job)).await.unwrap_err();
    assert_eq!(reason_of(&refused), ErrorReason::Quarantined);
    let (store, _dir) = server.stop().await;
    assert_eq!(store.puzzle(lie.canonical_key().bits()).unwrap(), None);
    // The coordinator stored its own values, none of the liar's.
    let canonical = position.canonical();
    let stored = store.proven_table(canonical.position.key().bits()).unwrap();
    let truth = pentago::midsolve(&canonical.position).unwrap();
    assert!(!stored.is_empty());
    for (mv, value) in stored {
        assert_eq!(
            Some(value),
            truth.moves.iter().find(|(m, _)| *m == mv).map(|p| p.1)
        );
    }
}

/// The old rule for which results were checked: a fixed hash of the job id. A worker that
/// knows it answers honestly exactly where it would be looked at.
fn checked_by_the_old_rule(job_id: u64, rate: f64) -> bool {
    rate >= 1.0 || (pentago::splitmix64(job_id ^ 0xC4EC_4ED0) as f64) < rate * u64::MAX as f64
}

/// The probe's liar against a coordinator that judges late positions itself: it lies on every
/// solve the old rule would not have checked. Now the checks are drawn afresh, so it is caught;
/// then everything it had stored on its word alone is purged and solved again by an honest
/// worker, and no false value is left in the store.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_liar_that_knows_the_old_sampling_rule_is_caught_and_its_values_purged() {
    let rate = 0.5;
    let server = Server::start(CrossCheckSettings {
        solve_sample: rate,
        ..CrossCheckSettings::default()
    })
    .await;
    let mut admin = server.admin();
    let positions: Vec<Position> = (0..24).map(|seed| late_position(100 + 17 * seed)).collect();
    let specs = positions
        .iter()
        .map(|&position| v2::JobSpec::from(&Task::Solve { position }))
        .collect();
    admin
        .submit_jobs(v2::SubmitJobsRequest { jobs: specs })
        .await
        .unwrap();
    let mut liar = server.worker("probe-liar").await;
    let (mut lies, mut caught) = (0, false);
    for job in liar.lease().await.unwrap() {
        let outcome = honest(&job);
        let outcome = match outcome {
            Outcome::Solve { moves } if !checked_by_the_old_rule(job.job_id, rate) => {
                lies += 1;
                let turned = moves
                    .into_iter()
                    .map(|(mv, value)| {
                        (
                            mv,
                            if value == Value::Win {
                                Value::Loss
                            } else {
                                Value::Win
                            },
                        )
                    })
                    .collect();
                Outcome::Solve { moves: turned }
            }
            honest => honest,
        };
        match liar.submit(&job, &outcome).await {
            Ok(()) => {}
            Err(refused) => {
                assert_eq!(reason_of(&refused), ErrorReason::Quarantined);
                caught = true;
            }
        }
    }
    assert!(
        lies >= 6,
        "the old rule leaves about half unchecked: {lies}"
    );
    // Each lie was checked with probability one half: all of them slipping through has odds
    // below 2^-6.
    let flagged = status(&mut admin).await.flagged_workers;
    assert!(
        caught || flagged.iter().any(|w| w.quarantined),
        "{flagged:?}"
    );
    let shown = flagged
        .iter()
        .find(|w| w.worker_id == "probe-liar")
        .unwrap();
    assert!(shown.quarantined);
    // The purge sent its unchecked solves out again; an honest worker does them.
    let mut honest_worker = server.worker("honest").await;
    while honest_worker.work_honestly().await > 0 {}
    let (store, _dir) = server.stop().await;
    assert!(
        store.words_of("probe-liar") == 0,
        "nothing of the liar's word is kept"
    );
    let mut checked = 0;
    for position in &positions {
        let canonical = position.canonical();
        let stored = store.proven_table(canonical.position.key().bits()).unwrap();
        let truth = pentago::midsolve(&canonical.position).unwrap();
        for (mv, value) in stored {
            let real = truth.moves.iter().find(|(m, _)| *m == mv).unwrap().1;
            assert_eq!(
                value, real,
                "{} {mv}: a false value survived",
                canonical.position
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "values are stored again");
}

/// The probe's fabricated analysis — every playout on one move, every one won — repeated on
/// every job a worker gets: the coordinator repeats each sampled analysis itself, and once the
/// fabricator's scores came out above its own too often for an honest worker (a sign test),
/// the fabricator is quarantined and its result kept out of the book, while an honest worker
/// analysing the same positions beside it is not flagged.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn analyses_that_lean_improbably_get_their_worker_quarantined() {
    let server = Server::start(CrossCheckSettings {
        analysis_sample: 1.0,
        ..CrossCheckSettings::default()
    })
    .await;
    let mut admin = server.admin();
    let mut honest_worker = server.worker("honest").await;
    let mut liar = server.worker("fabricator").await;
    // 30 tosses all one way are the fewest the sign test calls improbable.
    let mut caught_after = None;
    for round in 1..=40u64 {
        let analyse = Task::Analyse {
            position: opening(round),
            config: "uct".parse().unwrap(),
            playouts: 1_000,
        };
        for worker in [&mut honest_worker, &mut liar] {
            admin
                .submit_jobs(v2::SubmitJobsRequest {
                    jobs: vec![v2::JobSpec::from(&analyse)],
                })
                .await
                .unwrap();
            let job = worker.lease().await.unwrap().remove(0);
            let outcome = if worker.id == "honest" {
                honest(&job)
            } else {
                let Task::Analyse { position, .. } = task(&job) else {
                    panic!("an analysis job");
                };
                let mv = position.legal_moves()[0];
                Outcome::Analyse {
                    rows: vec![pentagrid_proto::Row {
                        mv,
                        games: 1_000,
                        wins: 1_000,
                        draws: 0,
                    }],
                    simulations: 1_000,
                    seconds: 1.0,
                }
            };
            let submitted = worker.submit(&job, &outcome).await;
            if worker.id == "fabricator" && caught_after.is_none() {
                submitted.unwrap();
                let flagged = status(&mut admin).await.flagged_workers;
                if !flagged.is_empty() {
                    caught_after = Some(round);
                }
            }
        }
        if caught_after.is_some() {
            break;
        }
    }
    assert_eq!(caught_after, Some(30), "caught at the 30th lean, no sooner");
    let flagged = status(&mut admin).await.flagged_workers;
    assert_eq!(flagged.len(), 1, "only the fabricator: {flagged:?}");
    assert_eq!(flagged[0].worker_id, "fabricator");
    assert!(flagged[0].quarantined);
    assert!(
        flagged[0].last_reason.contains("30 scored above"),
        "{flagged:?}"
    );
    // The result that tipped the tally is not in the book: its position has only the honest
    // worker's playouts.
    let book = admin
        .book_show(v2::BookShowRequest {
            position: opening(30).to_string(),
        })
        .await
        .unwrap()
        .into_inner();
    let total: u64 = book.playouts.iter().map(|row| row.games).sum();
    assert_eq!(total, 1_000, "only the honest analysis is stored");
}

/// Distinct early positions: six random plies from a seed of each round's own.
fn opening(round: u64) -> Position {
    let game = pentago::play_game(
        &Position::START,
        &pentago::Player::Random,
        &pentago::Player::Random,
        round,
        1,
    );
    game.moves
        .iter()
        .take(6)
        .fold(game.start, |position, mv| position.play(*mv).unwrap())
}
