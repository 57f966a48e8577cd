//! External engines as players on the cluster: workers that run the morat-dialect test engine
//! (`fake_morat`) play matches against built-in players under the referee; engines that play
//! an illegal move, hang, crash or answer garbage lose each game with the reason stored, while
//! other matches go on; a pair goes only to a worker that runs its engines, and a match whose
//! engines no worker runs says so; accuracy is judged for engines as for built-in players.

use std::time::{Duration, Instant};

use pentago::{OpeningSource, TimeLimit};
use pentagrid_client::matches::{self, MatchGame, MatchPlan, MatchRecord, MatchState, MatchWait};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_embedded::EmbeddedCluster;
use pentagrid_proto::{LossReason, v2};
use pentagrid_tests::{TestCluster, hello};
use pentagrid_worker::EngineSettings;
use pentagrid_worker::engines::{Dialect, EngineCommand, EngineSpec};

/// The test engine as `NAME`, with these arguments.
fn fake(name: &str, args: &[&str]) -> EngineSpec {
    EngineSpec {
        name: name.into(),
        dialect: Dialect::Morat,
        command: EngineCommand {
            program: env!("CARGO_BIN_EXE_fake_morat").into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
        },
    }
}

/// The engines, with a margin no loaded machine's scheduling overruns: an engine that plays as
/// it should never loses on time (one that hangs is still found out within seconds).
fn engines(specs: Vec<EngineSpec>) -> EngineSettings {
    EngineSettings {
        specs,
        margin: Duration::from_secs(3),
        restart: false,
        ..EngineSettings::default()
    }
}

fn plan(a: &str, b: &str, pairs: u64) -> MatchPlan {
    MatchPlan {
        a: a.parse().unwrap(),
        b: b.parse().unwrap(),
        pairs,
        sprt: None,
        openings: OpeningSource::Random { plies: 4 },
        seed: 3,
        accuracy: None,
        time: Some(TimeLimit::PerMove(0.2)),
        weight: 1,
        adjudicate: None,
    }
}

async fn report(cluster: &TestCluster, match_id: u64) -> MatchRecord {
    matches::status(&cluster.client(), match_id, true)
        .await
        .unwrap()
}

async fn wait_finished(cluster: &TestCluster, match_id: u64) -> MatchRecord {
    let started = Instant::now();
    loop {
        let report = report(cluster, match_id).await;
        if report.state != MatchState::Running {
            return report;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "{report:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Replays a stored game with the engine crate's rules: legal throughout, and ending as
/// recorded (a forfeited game still ongoing, won by the other side).
fn check_game(game: &MatchGame) {
    let mut position = game.opening;
    for &mv in &game.moves {
        position = position.play(mv).expect("a legal move");
    }
    let result = game.result;
    match &game.forfeit {
        None => assert_eq!(position.status(), result),
        Some(forfeit) => {
            assert!(!position.is_over());
            let winner = forfeit.loser.opponent();
            assert_eq!(result, pentago::Status::Won(winner));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_morat_dialect_engine_plays_a_match_on_the_cluster() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let (stop, worker) = cluster.worker_with_engines("w", 1, engines(vec![fake("fm", &[])]));
    let client = cluster.client();
    let id = matches::create(&client, &plan("engine:fm", "random", 3))
        .await
        .unwrap();
    let done = wait_finished(&cluster, id).await;
    assert_eq!(done.state, MatchState::Complete);
    assert_eq!((done.pairs_done, done.games.len()), (3, 6));
    assert_eq!(done.time_limit, "move:0.2");
    assert_eq!(done.waiting, None);
    for game in &done.games {
        assert_eq!(game.forfeit, None, "{game:?}");
        check_game(game);
    }
    // The engine plays A's side: black in each pair's first game.
    assert_eq!(done.games[0].black, "engine:fm");
    assert_eq!(done.games[1].white, "engine:fm");
    // The worker announced the engine with the version it reported.
    let status = cluster.status().await;
    let engines = &status.workers[0].engines;
    assert_eq!(engines.len(), 1);
    assert_eq!(
        (engines[0].name.as_str(), engines[0].version.as_str()),
        ("fm", "fake-morat 1.0")
    );
    let _ = stop.send(true);
    worker.await.unwrap();
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn misbehaving_engines_lose_with_the_reason_stored_and_disturb_nothing_else() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let cases = [
        ("illegal", LossReason::Illegal),
        ("hang", LossReason::Hang),
        ("crash", LossReason::Crash),
        ("garbage", LossReason::Malformed),
    ];
    let specs = cases
        .iter()
        .map(|(kind, _)| fake(kind, &["--misbehave", kind, "--chatter", "20"]))
        .collect();
    let (stop, worker) = cluster.worker_with_engines("w", 1, engines(specs));
    let client = cluster.client();
    let mut ids = Vec::new();
    for (kind, _) in &cases {
        let plan = plan("random", &format!("engine:{kind}"), 1);
        ids.push(matches::create(&client, &plan).await.unwrap());
    }
    // A match of built-in players alongside, on the same worker.
    let plain = MatchPlan {
        time: None,
        adjudicate: None,
        ..plan("random", "flat:playouts=50", 2)
    };
    let plain_id = matches::create(&client, &plain).await.unwrap();
    for (id, (kind, reason)) in ids.into_iter().zip(cases) {
        let done = wait_finished(&cluster, id).await;
        assert_eq!(done.state, MatchState::Complete, "{kind}");
        // A (random) won both games: the engine forfeited each.
        let score = done.score.games;
        assert_eq!((score.wins, score.draws, score.losses), (2, 0, 0), "{kind}");
        for (game, engine_colour) in done.games.iter().zip(["white", "black"]) {
            let forfeit = game
                .forfeit
                .as_ref()
                .unwrap_or_else(|| panic!("{kind}: {game:?}"));
            assert_eq!(forfeit.loser.name(), engine_colour, "{kind}");
            assert_eq!(forfeit.reason, reason, "{kind}");
            assert!(!forfeit.detail.is_empty());
            check_game(game);
            let stderr = if engine_colour == "white" {
                &game.stderr_white
            } else {
                &game.stderr_black
            };
            // A crashed engine's last words may still be in the pipe when it is reaped.
            if reason != LossReason::Crash {
                assert!(stderr.contains(".........."), "{kind}: {stderr:?}");
            }
        }
        let record = matches::record(&client, id).await.unwrap();
        assert_eq!(record.forfeits.len(), 2);
        assert_eq!(record.forfeits[0].2.reason, reason);
    }
    let plain_done = wait_finished(&cluster, plain_id).await;
    assert_eq!(plain_done.state, MatchState::Complete);
    assert!(plain_done.games.iter().all(|g| g.forfeit.is_none()));
    let _ = stop.send(true);
    let report = worker.await.unwrap();
    assert_eq!((report.acknowledged, report.panicked), (6, 0), "{report:?}");
    assert_eq!(cluster.status().await.failed, 0);
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn only_a_worker_with_the_engines_gets_their_pairs() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let id = matches::create(&client, &plan("engine:fm", "engine:fm", 3))
        .await
        .unwrap();
    // No worker yet: the match says which engine it waits for.
    let waiting = matches::record(&client, id).await.unwrap().waiting;
    assert_eq!(
        waiting,
        Some(MatchWait::NoWorkerHasEngines(vec!["fm".into()]))
    );
    // A worker without the engine: nothing to lease, and the match still waits.
    let mut raw = client.clone();
    let session = hello(&mut raw, "bare").await;
    let leased = raw
        .lease(v2::LeaseRequest {
            worker_id: "bare".into(),
            max_jobs: 8,
            session: session.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .jobs;
    assert!(leased.is_empty(), "{leased:?}");
    assert!(report(&cluster, id).await.waiting.is_some());
    // A real worker without it alongside one with it: every pair goes to the one with it.
    let (stop_without, without) = cluster.worker("without", 1);
    let (stop_with, with) = cluster.worker_with_engines("with", 1, engines(vec![fake("fm", &[])]));
    let done = wait_finished(&cluster, id).await;
    assert_eq!((done.state, done.waiting), (MatchState::Complete, None));
    assert!(done.games.iter().all(|g| g.forfeit.is_none()));
    let _ = stop_with.send(true);
    let _ = stop_without.send(true);
    assert_eq!(with.await.unwrap().acknowledged, 3);
    assert_eq!(without.await.unwrap().acknowledged, 0);
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn engines_are_judged_against_perfect_play_too() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let (stop, worker) = cluster.worker_with_engines("w", 1, engines(vec![fake("fm", &[])]));
    let plan = MatchPlan {
        openings: OpeningSource::Random { plies: 20 },
        accuracy: Some(22),
        ..plan("engine:fm", "random", 2)
    };
    let id = matches::create(&cluster.client(), &plan).await.unwrap();
    let done = wait_finished(&cluster, id).await;
    assert_eq!(done.state, MatchState::Complete);
    // The coordinator checked each pair's judged move counts against its games.
    let accuracy = done.accuracy.expect("measured");
    let [a, b] = accuracy.sides;
    assert!(a.moves > 0, "the engine's moves were judged: {a:?}");
    assert!(a.drops <= a.moves && b.drops <= b.moves);
    let _ = stop.send(true);
    worker.await.unwrap();
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn engine_matches_need_a_time_limit_and_a_broken_engine_stops_its_worker() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let untimed = MatchPlan {
        time: None,
        adjudicate: None,
        ..plan("engine:fm", "random", 1)
    };
    assert!(matches::create(&client, &untimed).await.is_err());
    // On the wire too, without the client's check.
    let refused = client
        .clone()
        .create_match(v2::CreateMatchRequest {
            a: "engine:fm".into(),
            b: "random".into(),
            pairs: 1,
            ..v2::CreateMatchRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(refused.message().contains("time limit"), "{refused:?}");
    // Self-play never runs an engine.
    let selfplay = v2::JobSpec {
        kind: Some(v2::job_spec::Kind::Selfplay(v2::SelfplaySpec {
            start: "start".into(),
            black: "engine:fm".into(),
            white: "random".into(),
        })),
    };
    let refused = client
        .clone()
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: vec![selfplay],
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert_eq!(cluster.status().await.queued, 0);
    // A worker whose engine does not start stops at once, naming it.
    let missing = EngineSpec {
        command: EngineCommand {
            program: "/nonexistent/engine".into(),
            args: Vec::new(),
        },
        ..fake("gone", &[])
    };
    let (_stop, task) =
        EmbeddedCluster::worker_with_engines(&cluster, "broken", 1, engines(vec![missing]));
    let error = task.await.unwrap().unwrap_err();
    assert!(error.to_string().contains("\"gone\""), "{error}");
    assert!(cluster.status().await.workers.is_empty());
    cluster.stop().await;
}
