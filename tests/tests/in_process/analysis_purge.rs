//! A worker that inflates its analyses, over a real server: test workers speak the worker
//! protocol with the worker token against a coordinator on 127.0.0.1. The per-worker sign
//! test catches the liar, and its purge takes every row it had added back out of the book —
//! on positions an honest worker analysed too, and on positions only it analysed — while the
//! honest worker's rows stay exactly. Its self-play games leave the game tables the same way,
//! and the match pairs it played leave their match and are played again by others.
//! The sign test's tallies survive a coordinator restart.

use std::collections::BTreeMap;

use pentago::{Position, SearchControl};
use pentagrid_coordinator::{CoordinatorSettings, CrossCheckSettings};
use pentagrid_edge::{Credentials, Grant, Role};
use pentagrid_proto::{Client, Outcome, Task, v2};
use pentagrid_tests::ServedCoordinator;

const WORKER: &str = "worker-token";
pub(super) const ADMIN: &str = "admin-token";

/// Every analysis result is repeated by the coordinator and tallied.
fn every_analysis() -> CrossCheckSettings {
    CrossCheckSettings {
        analysis_sample: 1.0,
        ..CrossCheckSettings::default()
    }
}

/// A coordinator on a temporary database, served on a loopback port with role tokens.
pub(super) struct Server {
    pub(super) served: ServedCoordinator,
    dir: tempfile::TempDir,
}

impl Server {
    pub(super) async fn start_in(dir: tempfile::TempDir) -> Server {
        let settings = CoordinatorSettings {
            crosscheck: every_analysis(),
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

    /// Stops the server (it flushes) and starts another on the same database.
    async fn restart(self) -> Server {
        self.served.stop().await;
        Server::start_in(self.dir).await
    }

    pub(super) async fn worker(&self, id: &str) -> TestWorker {
        let mut client = self.served.client(WORKER);
        let session = pentagrid_tests::hello(&mut client, id).await;
        TestWorker {
            client,
            id: id.into(),
            session,
            admin: self.served.client(ADMIN),
        }
    }
}

/// A worker driven by the test, with an admin client to queue its own jobs.
pub(super) struct TestWorker {
    pub(super) client: Client,
    pub(super) id: String,
    pub(super) session: String,
    admin: Client,
}

impl TestWorker {
    /// Queues `task` with the admin client.
    async fn queue(&mut self, task: &Task) {
        let request = v2::SubmitJobsRequest {
            jobs: vec![v2::JobSpec::from(task)],
        };
        self.admin.submit_jobs(request).await.unwrap();
    }

    /// Leases the next queued job and plays it honestly: the job, its task and the outcome.
    /// `None` when nothing could be leased (a quarantined worker gets no jobs).
    pub(super) async fn lease_and_play(&mut self) -> Option<(v2::Job, Task, Outcome)> {
        let lease = v2::LeaseRequest {
            worker_id: self.id.clone(),
            max_jobs: 1,
            session: self.session.clone(),
        };
        let job = self
            .client
            .lease(lease)
            .await
            .ok()?
            .into_inner()
            .jobs
            .pop()?;
        let task = Task::try_from(job.spec.as_ref().unwrap()).unwrap();
        let outcome = pentagrid_worker::execute(&task, job.seed, 1, &SearchControl::new())
            .expect("a played job");
        Some((job, task, outcome))
    }

    /// Hands in `outcome` for `job`; whether it was acknowledged.
    pub(super) async fn hand_in(&mut self, job: &v2::Job, outcome: &Outcome) -> bool {
        let request = v2::SubmitRequest {
            worker_id: self.id.clone(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: format!("{}-{}", self.id, job.job_id),
            result: Some(outcome.into()),
            session: self.session.clone(),
        };
        self.client.submit(request).await.is_ok()
    }

    /// Queues an analysis of `position`, leases it and hands in what it computed honestly,
    /// inflated when `inflate` (every playout reported won: the score can only come out above
    /// the coordinator's own, or equal where that one won every playout too). Returns
    /// the playouts it reported when the result was acknowledged, `None` when it was refused
    /// (a quarantined worker's).
    pub(super) async fn analyse(&mut self, position: Position, inflate: bool) -> Option<u64> {
        let task = Task::Analyse {
            position,
            config: "uct".parse().unwrap(),
            playouts: 1_000,
        };
        self.queue(&task).await;
        let (job, _, mut outcome) = self.lease_and_play().await?;
        let Outcome::Analyse { rows, .. } = &mut outcome else {
            panic!("an analysis outcome");
        };
        if inflate {
            for row in rows.iter_mut() {
                (row.wins, row.draws) = (row.games, 0);
            }
        }
        let reported = rows.iter().map(|row| row.games).sum();
        self.hand_in(&job, &outcome).await.then_some(reported)
    }

    /// Queues a game between two random players from `start`, leases it and hands in the game
    /// it played; whether it was acknowledged.
    async fn selfplay(&mut self, start: Position) -> bool {
        let task = Task::Selfplay {
            start,
            black: "random".parse().unwrap(),
            white: "random".parse().unwrap(),
        };
        self.queue(&task).await;
        match self.lease_and_play().await {
            Some((job, _, outcome)) => self.hand_in(&job, &outcome).await,
            None => false,
        }
    }

    /// Leases the next queued job, plays it honestly and hands it in; the match pair it was,
    /// if it was one. `None` when nothing could be leased.
    pub(super) async fn play_next(&mut self) -> Option<Option<u64>> {
        let (job, task, outcome) = self.lease_and_play().await?;
        assert!(
            self.hand_in(&job, &outcome).await,
            "job {} refused",
            job.job_id
        );
        Some(match task {
            Task::Pair { pair, .. } => Some(pair),
            _ => None,
        })
    }
}

async fn match_status(admin: &mut Client, match_id: u64) -> v2::MatchStatusResponse {
    let request = v2::MatchStatusRequest {
        match_id,
        ..v2::MatchStatusRequest::default()
    };
    admin.match_status(request).await.unwrap().into_inner()
}

/// The book's answer for `position`: its playout rows and its game rows, as the explorer shows
/// them.
async fn book_show(admin: &mut Client, position: Position) -> v2::BookShowResponse {
    let request = v2::BookShowRequest {
        position: position.to_string(),
    };
    admin.book_show(request).await.unwrap().into_inner()
}

/// The book's playout rows of `position`.
async fn rows(admin: &mut Client, position: Position) -> Vec<v2::BookRow> {
    book_show(admin, position).await.playouts
}

/// The book's game rows of `position`.
async fn game_rows(admin: &mut Client, position: Position) -> Vec<v2::BookRow> {
    book_show(admin, position).await.games
}

pub(super) async fn status(admin: &mut Client) -> v2::StatusResponse {
    let request = v2::StatusRequest::default();
    admin.status(request).await.unwrap().into_inner()
}

/// Distinct early positions: six random plies from a seed of each round's own.
pub(super) fn opening(round: u64) -> Position {
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

/// Playouts in a list of rows.
fn games(rows: &[v2::BookRow]) -> u64 {
    rows.iter().map(|row| row.games).sum()
}

/// The liar analyses each position right after the honest worker, plus a few positions of
/// its own. Caught by the sign test at its 30th result, it is quarantined and purged: each
/// shared position holds exactly the honest rows again, its own positions hold nothing, and
/// the status says what was purged.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_caught_workers_analyses_leave_the_book_and_an_honest_workers_stay_exactly() {
    let server = Server::start_in(tempfile::tempdir().unwrap()).await;
    let mut admin = server.served.client(ADMIN);
    let mut honest = server.worker("honest").await;
    let mut liar = server.worker("inflater").await;
    let mut honest_rows = BTreeMap::new();
    let own: Vec<Position> = (1..=4).map(|i| opening(1_000 + i)).collect();
    let mut liar_results = 0;
    // What the liar reported in results that were applied with their rows.
    let mut stored = 0;
    let mut last = 0;
    for &position in &own {
        stored += liar.analyse(position, true).await.unwrap();
        liar_results += 1;
    }
    for round in 1..=40u64 {
        let position = opening(round);
        honest.analyse(position, false).await.unwrap();
        honest_rows.insert(round, rows(&mut admin, position).await);
        last = liar
            .analyse(position, true)
            .await
            .expect("applied till caught");
        stored += last;
        liar_results += 1;
        if !status(&mut admin).await.flagged_workers.is_empty() {
            break;
        }
    }
    assert_eq!(liar_results, 30, "caught at its 30th lean, no sooner");
    // Shared positions: exactly the honest rows. The liar's own: nothing at all.
    for (round, expected) in &honest_rows {
        let now = rows(&mut admin, opening(*round)).await;
        assert_eq!(&now, expected, "round {round}");
    }
    for position in &own {
        assert!(rows(&mut admin, *position).await.is_empty(), "{position}");
    }
    let status = status(&mut admin).await;
    let honest_playouts: u64 = honest_rows.values().map(|r| games(r)).sum();
    assert_eq!(
        status.playouts, honest_playouts,
        "the status counts what stays"
    );
    assert_eq!(status.playout_positions, honest_rows.len() as u64);
    assert_eq!(
        status.flagged_workers.len(),
        1,
        "{:?}",
        status.flagged_workers
    );
    let caught = &status.flagged_workers[0];
    assert_eq!(
        (caught.worker_id.as_str(), caught.quarantined),
        ("inflater", true)
    );
    // Its 29 results applied with their rows: 4 positions of its own and 25 shared.
    assert_eq!(caught.purged_analysis_positions, 29);
    // The result that got it caught added no rows.
    assert_eq!(caught.purged_playouts, stored - last);
    assert!(
        liar.analyse(opening(99), true).await.is_none(),
        "refused once caught"
    );
}

/// The liar also plays self-play games, from the honest worker's starts and from starts of its
/// own. Once caught (by its leaning analyses), the shared starts' game tables hold exactly the
/// honest games again, its own starts hold none, and the status counts the purged games.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_caught_workers_self_play_games_leave_the_game_tables() {
    let server = Server::start_in(tempfile::tempdir().unwrap()).await;
    let mut admin = server.served.client(ADMIN);
    let mut honest = server.worker("honest").await;
    let mut liar = server.worker("inflater").await;
    let shared: Vec<Position> = (1..=3).map(|i| opening(2_000 + i)).collect();
    let own: Vec<Position> = (1..=2).map(|i| opening(3_000 + i)).collect();
    let mut honest_rows = Vec::new();
    for &start in &shared {
        assert!(honest.selfplay(start).await);
        honest_rows.push(game_rows(&mut admin, start).await);
        assert!(liar.selfplay(start).await);
        assert!(games(&game_rows(&mut admin, start).await) == 2);
    }
    for &start in &own {
        assert!(liar.selfplay(start).await);
    }
    let before = status(&mut admin).await;
    for round in 1..=40u64 {
        liar.analyse(opening(round), true).await;
        if !status(&mut admin).await.flagged_workers.is_empty() {
            break;
        }
    }
    for (start, expected) in shared.iter().zip(&honest_rows) {
        assert_eq!(&game_rows(&mut admin, *start).await, expected, "{start}");
    }
    for start in &own {
        assert!(game_rows(&mut admin, *start).await.is_empty(), "{start}");
    }
    let after = status(&mut admin).await;
    let caught = &after.flagged_workers[0];
    assert_eq!(caught.worker_id, "inflater");
    // Each of its five games went through its start and every position after it.
    assert!(caught.purged_game_positions >= 5, "{caught:?}");
    assert!(
        caught.purged_games >= caught.purged_game_positions,
        "{caught:?}"
    );
    assert!(
        after.game_positions < before.game_positions,
        "the liar's own lines are gone: {} then {}",
        before.game_positions,
        after.game_positions
    );
    assert!(!liar.selfplay(opening(4_000)).await, "refused once caught");
}

/// The liar plays two of a match's four pairs, the honest worker the other two. Once the liar
/// is caught, its pairs leave the match (the score counts the honest pairs alone) and are
/// queued again for other workers: the honest worker plays them and the match completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_caught_workers_match_pairs_are_taken_out_and_played_again_by_others() {
    let server = Server::start_in(tempfile::tempdir().unwrap()).await;
    let mut admin = server.served.client(ADMIN);
    let mut honest = server.worker("honest").await;
    let mut liar = server.worker("inflater").await;
    let request = v2::CreateMatchRequest {
        a: "random".into(),
        b: "uct:playouts=20".into(),
        pairs: 4,
        seed: 5,
        ..v2::CreateMatchRequest::default()
    };
    let match_id = admin
        .create_match(request)
        .await
        .unwrap()
        .into_inner()
        .match_id;
    assert_eq!(liar.play_next().await, Some(Some(0)));
    assert_eq!(liar.play_next().await, Some(Some(1)));
    assert_eq!(honest.play_next().await, Some(Some(2)));
    assert_eq!(honest.play_next().await, Some(Some(3)));
    let full = match_status(&mut admin, match_id).await;
    assert_eq!(full.pairs_done, 4);
    let honest_games = |m: &v2::MatchStatusResponse| m.wins + m.draws + m.losses;
    assert_eq!(honest_games(&full), 8);

    for round in 1..=40u64 {
        liar.analyse(opening(round), true).await;
        if !status(&mut admin).await.flagged_workers.is_empty() {
            break;
        }
    }
    let caught = status(&mut admin).await.flagged_workers.remove(0);
    assert_eq!(
        (caught.worker_id.as_str(), caught.purged_pairs),
        ("inflater", 2)
    );
    let purged = match_status(&mut admin, match_id).await;
    assert_eq!(purged.pairs_done, 2, "the honest pairs alone");
    assert_eq!(honest_games(&purged), 4);

    // The two pairs are queued again, for anyone but the liar.
    assert_eq!(liar.play_next().await, None);
    let mut replayed = vec![
        honest.play_next().await.unwrap().unwrap(),
        honest.play_next().await.unwrap().unwrap(),
    ];
    replayed.sort_unstable();
    assert_eq!(replayed, [0, 1]);
    let done = match_status(&mut admin, match_id).await;
    assert_eq!((done.pairs_done, honest_games(&done)), (4, 8));
}

/// A liar cannot start its tally again by waiting for a restart: 20 leaning results before
/// it and 10 after are the 30 that get it caught.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sign_tallies_survive_a_coordinator_restart() {
    let server = Server::start_in(tempfile::tempdir().unwrap()).await;
    let mut liar = server.worker("inflater").await;
    for round in 1..=20u64 {
        liar.analyse(opening(round), true).await.unwrap();
    }
    let server = server.restart().await;
    let mut admin = server.served.client(ADMIN);
    assert!(status(&mut admin).await.flagged_workers.is_empty());
    let mut liar = server.worker("inflater").await;
    let mut after_restart = 0;
    for round in 21..=40u64 {
        liar.analyse(opening(round), true).await.unwrap();
        after_restart += 1;
        if !status(&mut admin).await.flagged_workers.is_empty() {
            break;
        }
    }
    assert_eq!(after_restart, 10, "the 20 tosses before the restart count");
    let status = status(&mut admin).await;
    assert_eq!(status.flagged_workers[0].purged_analysis_positions, 29);
    assert_eq!(status.playouts, 0, "nothing of the liar stays");
    server.served.stop().await;
}
