//! Time controls that mean the same on every worker (fishtest's speed scaling), over real
//! gRPC: a coordinator with a reference speed and two workers pinned at other speeds play
//! refereed matches; each stored game carries the scale of the worker that played it, the
//! engine was given the match's time times that scale, and the exported record names it. A
//! submitted result whose scale is not a finite number in range, or that scales an untimed
//! pair, is refused and changes nothing.

use std::time::{Duration, Instant};

use pentago::{OpeningSource, Player, SearchControl, TimeLimit};
use pentagrid_client::TimeScale;
use pentagrid_client::game_records::match_game_record;
use pentagrid_client::matches::{self, MatchPlan, MatchRecord, MatchState};
use pentagrid_coordinator::{CoordinatorSettings, JobSettings};
use pentagrid_proto::{Task, v2};
use pentagrid_tests::{TOKEN, TestCluster, hello, lease_one};
use pentagrid_worker::engines::{Dialect, EngineCommand, EngineSpec};
use pentagrid_worker::{EngineSettings, WorkerIdentity, WorkerOptions, WorkerReport};
use tokio::sync::watch;

/// The coordinator's reference speed (simulations per second).
const REFERENCE: u64 = 100_000;

/// The match's time per move.
const SECONDS: f64 = 0.2;

/// A coordinator whose time controls are meant for a machine of [`REFERENCE`].
fn settings() -> CoordinatorSettings {
    CoordinatorSettings {
        jobs: JobSettings {
            reference_speed: REFERENCE,
            ..JobSettings::default()
        },
        ..CoordinatorSettings::default()
    }
}

/// The test engine (morat's dialect, which is told each move's seconds) as `name`, telling
/// on its standard error the seconds it was given.
fn telling(name: &str) -> EngineSettings {
    EngineSettings {
        specs: vec![EngineSpec {
            name: name.into(),
            dialect: Dialect::Morat,
            command: EngineCommand {
                program: env!("CARGO_BIN_EXE_fake_morat").into(),
                args: vec!["--tell-time".into()],
            },
        }],
        // No loaded machine's scheduling overruns it: the engine never loses on time.
        margin: Duration::from_secs(3),
        ..EngineSettings::default()
    }
}

/// A worker pinned at `speed` (as `pentagrid worker --speed`; `None`: measured) that runs
/// `engines`.
fn worker(
    cluster: &TestCluster,
    name: &str,
    speed: Option<u64>,
    engines: EngineSettings,
) -> (watch::Sender<bool>, tokio::task::JoinHandle<WorkerReport>) {
    let options = WorkerOptions {
        coordinator: cluster.url.clone(),
        token: TOKEN.into(),
        tls_ca: None,
        name: name.into(),
        threads: 1,
        ack_log: None,
        max_results: None,
        identity: WorkerIdentity::Fresh,
        engines,
        speed,
    };
    let (stop, stopped) = watch::channel(false);
    let run = tokio::spawn(async move {
        pentagrid_worker::run(options, stopped)
            .await
            .expect("worker")
    });
    (stop, run)
}

fn plan(a: &str, pairs: u64, time: Option<TimeLimit>) -> MatchPlan {
    MatchPlan {
        a: a.parse().unwrap(),
        b: Player::Random.into(),
        pairs,
        sprt: None,
        openings: OpeningSource::Random { plies: 4 },
        seed: 5,
        accuracy: None,
        time,
        weight: 1,
        adjudicate: None,
    }
}

async fn wait_finished(cluster: &TestCluster, match_id: u64) -> MatchRecord {
    let started = Instant::now();
    loop {
        let report = matches::status(&cluster.client(), match_id, true)
            .await
            .unwrap();
        if report.state != MatchState::Running {
            return report;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "{report:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_game_is_played_and_stored_under_its_workers_time_scale() {
    let cluster = TestCluster::start(settings()).await;
    // Each worker alone runs its engine, so each match's pairs go to that worker only.
    let workers = [
        ("slow", 50_000, "slow_engine"),
        ("fast", 200_000, "fast_engine"),
    ];
    let mut running = Vec::new();
    let mut ids = Vec::new();
    let client = cluster.client();
    for (name, speed, engine) in workers {
        running.push(worker(&cluster, name, Some(speed), telling(engine)));
        let time = Some(TimeLimit::PerMove(SECONDS));
        let id = matches::create(&client, &plan(&format!("engine:{engine}"), 2, time))
            .await
            .unwrap();
        ids.push((id, speed));
    }
    for (id, speed) in ids {
        let done = wait_finished(&cluster, id).await;
        assert_eq!(done.state, MatchState::Complete, "{done:?}");
        assert_eq!(done.games.len(), 4);
        let expected = TimeScale::from_speeds(REFERENCE, speed);
        assert_eq!(expected.get(), REFERENCE as f64 / speed as f64);
        for (index, game) in done.games.iter().enumerate() {
            assert_eq!(game.forfeit, None, "{game:?}");
            assert_eq!(game.time_scale, expected, "match {id}: {game:?}");
            // The engine was given the match's time times the scale on every move.
            let stderr = if game.black.starts_with("engine:") {
                &game.stderr_black
            } else {
                &game.stderr_white
            };
            let given = format!("given {:.3}", SECONDS * expected.get());
            assert!(!stderr.is_empty(), "{game:?}");
            assert!(stderr.lines().all(|line| line == given), "{stderr:?}");
            // The exported record names the scale.
            let record = match_game_record(&done, game, index % 2 == 0, pentago::UNKNOWN_DATE);
            let text = record.to_string();
            let tag = format!("[TimeScale \"{expected}\"]");
            assert!(text.contains(&tag), "{text}");
        }
    }
    for (stop, run) in running {
        let _ = stop.send(true);
        run.await.unwrap();
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_not_pinned_measures_its_speed_when_its_coordinator_asks_for_scaling() {
    // A reference far above any machine's speed: whatever this machine measures, the scale is
    // the largest there is.
    let cluster = TestCluster::start(CoordinatorSettings {
        jobs: JobSettings {
            reference_speed: u64::MAX,
            ..JobSettings::default()
        },
        ..CoordinatorSettings::default()
    })
    .await;
    let (stop, run) = worker(&cluster, "unpinned", None, telling("engine"));
    let time = Some(TimeLimit::PerMove(0.01));
    let id = matches::create(&cluster.client(), &plan("engine:engine", 1, time))
        .await
        .unwrap();
    let done = wait_finished(&cluster, id).await;
    assert_eq!(done.state, MatchState::Complete, "{done:?}");
    let largest = TimeScale::from_speeds(u64::MAX, 1);
    assert!(largest.get() > 1.0);
    for game in &done.games {
        assert_eq!(game.time_scale, largest, "{game:?}");
    }
    let _ = stop.send(true);
    run.await.unwrap();
    cluster.stop().await;
}

/// Leases the one queued pair, plays it as a worker of time scale `scale` does, and returns
/// the job, its result on the wire and the session.
async fn played_pair(
    client: &mut pentagrid_proto::Client,
    scale: TimeScale,
) -> (v2::Job, v2::submit_request::Result, String) {
    let session = hello(client, "w").await;
    let job = lease_one(client, "w", &session).await;
    let task = Task::try_from(job.spec.as_ref().unwrap()).unwrap();
    let engines = EngineSettings {
        time_scale: scale,
        ..EngineSettings::default()
    };
    let outcome =
        pentagrid_worker::execute_with_engines(&task, job.seed, 1, &SearchControl::new(), &engines)
            .unwrap()
            .unwrap();
    (job, (&outcome).into(), session)
}

fn with_scale(result: &v2::submit_request::Result, scale: f64) -> v2::submit_request::Result {
    let mut result = result.clone();
    let v2::submit_request::Result::Pair(pair) = &mut result else {
        panic!("a pair result: {result:?}");
    };
    if pair.notes.is_empty() {
        pair.notes = vec![v2::GameNote::default(); 2];
    }
    pair.notes[0].time_scale = scale;
    result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bad_time_scale_in_a_result_is_refused_and_changes_nothing() {
    let cluster = TestCluster::start(settings()).await;
    let mut client = cluster.client();
    let timed = Some(TimeLimit::PerMove(0.05));
    let id = matches::create(&client, &plan("random", 1, timed))
        .await
        .unwrap();
    let scale = TimeScale::from_speeds(REFERENCE, 40_000);
    let (job, honest, session) = played_pair(&mut client, scale).await;
    let submit = |result: v2::submit_request::Result, result_id: &str| v2::SubmitRequest {
        worker_id: "w".into(),
        job_id: job.job_id,
        lease_id: job.lease_id,
        result_id: result_id.into(),
        result: Some(result),
        session: session.clone(),
    };
    let before = matches::status(&client, id, true).await.unwrap();
    for (index, bad) in [f64::NAN, f64::INFINITY, -2.0, 0.05, 10.5, 1e300]
        .into_iter()
        .enumerate()
    {
        let error = client
            .submit(submit(with_scale(&honest, bad), &format!("bad-{index}")))
            .await
            .unwrap_err();
        assert_eq!(
            error.code(),
            tonic::Code::InvalidArgument,
            "{bad}: {error:?}"
        );
        assert!(
            error.message().contains("time scale"),
            "{}",
            error.message()
        );
        let now = matches::status(&client, id, true).await.unwrap();
        assert_eq!(now, before, "a refused result changed the match");
    }
    // The honest result is then accepted and its games keep the scale.
    client.submit(submit(honest, "honest")).await.unwrap();
    let done = matches::status(&client, id, true).await.unwrap();
    assert_eq!(done.pairs_done, 1);
    assert!(
        done.games.iter().all(|g| g.time_scale.get() == 2.5),
        "{done:?}"
    );

    // A pair without a time limit is never scaled: a scale on it is refused.
    let id = matches::create(&client, &plan("random", 1, None))
        .await
        .unwrap();
    let (job, honest, session) = played_pair(&mut client, scale).await;
    let v2::submit_request::Result::Pair(pair) = &honest else {
        panic!("a pair result");
    };
    assert!(
        pair.notes
            .iter()
            .all(|n| n.time_scale == 1.0 && n.forfeit.is_none() && n.stderr_white.is_empty()),
        "an untimed pair's notes carry only its move times: {pair:?}"
    );
    let error = client
        .submit(v2::SubmitRequest {
            worker_id: "w".into(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: "scaled-untimed".into(),
            result: Some(with_scale(&honest, 2.0)),
            session,
        })
        .await
        .unwrap_err();
    assert_eq!(error.code(), tonic::Code::InvalidArgument, "{error:?}");
    assert!(
        error.message().contains("without a time limit"),
        "{}",
        error.message()
    );
    let report = matches::status(&client, id, false).await.unwrap();
    assert_eq!(report.pairs_done, 0);
    cluster.stop().await;
}
