//! SPSA tuning runs on an in-process cluster over real gRPC, real workers and a real database:
//! a run tuning the playout budget of a real UCT player (more playouts play better, so the top
//! of the range is the optimum) moves it up, the same seed gives the same trajectory, the
//! follow-up SPRT match is stored with the run; a run survives a restart; a stop keeps the
//! steps; bad input is refused with a clear error and changes nothing.

use std::time::Duration;

use pentago::{OpeningSource, SpsaSchedule};
use pentagrid_client::RefusalReason;
use pentagrid_client::tunes::{self, TunePlan, TuneRun, TuneState};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{reason_of, v2};
use pentagrid_rating::Sprt;
use pentagrid_tests::TestCluster;

/// Tunes `playouts` over 10..300 from 20 with UCT players that know no exact values (so every
/// game is fixed by its seed): 12 iterations of 2 pairs.
fn plan(seed: u64) -> TunePlan {
    TunePlan {
        base: "uct:playouts=20,exact=off".parse().unwrap(),
        params: vec!["playouts=10..300".parse().unwrap()],
        schedule: SpsaSchedule {
            c_end: 0.15,
            r_end: 0.5,
            ..SpsaSchedule::standard(12)
        },
        pairs_per_iteration: 2,
        seed,
        openings: OpeningSource::Random { plies: 2 },
        weight: 1,
        sprt: Some((
            "elo0=0,elo1=100,alpha=0.05,beta=0.05"
                .parse::<Sprt>()
                .unwrap(),
            8,
        )),
    }
}

/// Runs `plan` to the end on a fresh cluster with one single-threaded worker (its games are
/// reproducible), and returns the run with every step.
async fn tune_to_the_end(plan: &TunePlan) -> TuneRun {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let (stop, worker) = cluster.worker("w", 1);
    let id = tunes::create(&client, plan).await.expect("create");
    let run = tokio::time::timeout(
        Duration::from_secs(900),
        tunes::follow(&client, id, &mut |_| Ok(())),
    )
    .await
    .expect("the run ends")
    .expect("follow");
    let _ = stop.send(true);
    worker.await.unwrap();
    cluster.stop().await;
    run
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_run_moves_playouts_toward_the_top_and_repeats_under_its_seed() {
    let plan = plan(5);
    let run = tune_to_the_end(&plan).await;
    assert_eq!(run.state, TuneState::Done);
    assert_eq!(run.iterations_done, 12);
    assert_eq!(run.steps.len(), 12);
    let trajectory: Vec<f64> = run.steps.iter().map(|s| s.values[0]).collect();
    // From 20 playouts (3% of the way up the range) to well past the middle.
    assert!(
        run.values[0] >= 155.0,
        "ended at {}: {trajectory:?}",
        run.values[0]
    );
    assert_eq!(run.tuned.parse::<pentago::UctConfig>().unwrap().budget, {
        pentago::Budget::Playouts(run.values[0] as u64)
    });
    for step in &run.steps {
        assert_eq!(
            step.wins + step.draws + step.losses,
            4,
            "two pairs an iteration"
        );
        let (plus, minus) = (step.plus[0], step.minus[0]);
        assert_eq!(plus > minus, step.delta[0] > 0, "A plays θ + cΔ: {step:?}");
    }
    // The follow-up SPRT: tuned against the base, stored with the run.
    let sprt = run.sprt_match.as_ref().expect("the SPRT match");
    assert!(
        sprt.a.starts_with(&format!("tuned-{}=", run.id)),
        "{}",
        sprt.a
    );
    assert!(
        sprt.b.starts_with(&format!("base-{}=uct:", run.id)),
        "{}",
        sprt.b
    );
    assert!(sprt.state.finished());
    assert!(sprt.pairs_done >= 1);

    // Same seed, fresh cluster: the same trajectory, step by step.
    let again = tune_to_the_end(&plan).await;
    // Every step: the values played, the score, the values after it, the match's id.
    assert_eq!(again.steps, run.steps);
    assert_eq!(again.tuned, run.tuned);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_run_survives_a_restart_and_a_stop_keeps_what_was_played() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let small = TunePlan {
        schedule: SpsaSchedule::standard(2),
        pairs_per_iteration: 1,
        sprt: None,
        ..plan(3)
    };
    let id = tunes::create(&cluster.client(), &small).await.unwrap();
    let other = tunes::create(&cluster.client(), &plan(4)).await.unwrap();
    // Nothing played yet (no workers): both are stored and survive a restart.
    let cluster = cluster.restart(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let listed: Vec<(u64, TuneState)> = tunes::list(&client)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.id, r.state))
        .collect();
    assert_eq!(
        listed,
        [(other, TuneState::Iterating), (id, TuneState::Iterating)]
    );
    // The iterations' matches are the runs': `match list` leaves them out.
    let matches = pentagrid_client::matches::list(&client).await.unwrap();
    assert!(matches.is_empty(), "{matches:?}");

    let stopped = tunes::stop(&client, other).await.unwrap();
    assert_eq!(stopped.run.state, TuneState::Stopped);
    assert_eq!(
        stopped.cancelled_pairs, 2,
        "its first iteration's queued pairs"
    );
    let again = tunes::stop(&client, other).await.unwrap_err();
    assert_eq!(again.reason(), RefusalReason::Finished, "{again}");
    assert!(
        again.to_string().contains("stopped, not running"),
        "{again}"
    );

    let (stop, worker) = cluster.worker("w", 1);
    let done = tokio::time::timeout(
        Duration::from_secs(600),
        tunes::follow(&client, id, &mut |_| Ok(())),
    )
    .await
    .expect("the run ends")
    .unwrap();
    let _ = stop.send(true);
    worker.await.unwrap();
    assert_eq!((done.state, done.iterations_done), (TuneState::Done, 2));
    assert!(done.sprt_match.is_none());
    let stopped = tunes::status(&client, other, true).await.unwrap();
    assert_eq!(
        (stopped.state, stopped.iterations_done),
        (TuneState::Stopped, 0)
    );
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_runs_are_refused_naming_what_is_wrong_and_change_nothing() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let good = v2::CreateTuneRequest {
        base: "uct:playouts=50".into(),
        params: vec!["playouts=10..200".into()],
        iterations: 5,
        pairs_per_iteration: 2,
        ..v2::CreateTuneRequest::default()
    };
    let cases: Vec<(v2::CreateTuneRequest, &str)> = vec![
        (
            v2::CreateTuneRequest {
                params: vec!["colour=1..2".into()],
                ..good.clone()
            },
            "unknown parameter \"colour\"",
        ),
        (
            v2::CreateTuneRequest {
                params: vec!["k=0.5..0.5".into()],
                ..good.clone()
            },
            "empty range",
        ),
        (
            v2::CreateTuneRequest {
                params: vec!["k=1..0.1".into()],
                ..good.clone()
            },
            "empty range 1..0.1 for k",
        ),
        (
            v2::CreateTuneRequest {
                iterations: 0,
                ..good.clone()
            },
            "iterations must be from 1 to 10000, not 0",
        ),
        (
            v2::CreateTuneRequest {
                iterations: u64::MAX,
                ..good.clone()
            },
            "iterations must be from 1 to 10000",
        ),
        (
            v2::CreateTuneRequest {
                params: vec!["playouts=10..1e40".into()],
                ..good.clone()
            },
            "outside 1..1000000000000",
        ),
        (
            v2::CreateTuneRequest {
                pairs_per_iteration: 1 << 40,
                ..good.clone()
            },
            "pairs per iteration must be from 1 to 1000",
        ),
        (
            v2::CreateTuneRequest {
                c_end: Some(f64::INFINITY),
                ..good.clone()
            },
            "c_end must be more than 0",
        ),
        (
            v2::CreateTuneRequest {
                params: vec![],
                ..good.clone()
            },
            "1 to 8 parameters, not 0",
        ),
        (
            v2::CreateTuneRequest {
                params: vec!["k=0.5..1".into()],
                ..good.clone()
            },
            "k=0.3, outside the range 0.5..1",
        ),
        (
            v2::CreateTuneRequest {
                base: "random".into(),
                ..good.clone()
            },
            "must be a uct: configuration",
        ),
        (
            v2::CreateTuneRequest {
                sprt: "elo0=0,elo1=10".into(),
                sprt_pairs: 0,
                ..good.clone()
            },
            "the SPRT's pairs must be from 1",
        ),
    ];
    for (request, expected) in cases {
        let status = client.create_tune(request.clone()).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{request:?}");
        assert_eq!(reason_of(&status), v2::ErrorReason::InvalidArgument);
        assert!(
            status.message().contains(expected),
            "{request:?}: {:?} lacks {expected:?}",
            status.message()
        );
    }
    let tunes = client
        .list_tunes(v2::ListTunesRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(tunes.tunes.is_empty(), "nothing stored");
    assert_eq!(cluster.status().await.queued, 0, "nothing queued");
    let unknown = client
        .tune_status(v2::TuneStatusRequest {
            tune_id: 99,
            ..v2::TuneStatusRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    // The good request is accepted.
    client.create_tune(good).await.unwrap();
    cluster.stop().await;
}
