//! Accuracy against perfect play in cluster matches, over real gRPC: the workers judge each
//! pair, the match keeps per-player totals equal to what the exact solver gives for its stored
//! games, and a false report from a worker is refused without changing anything.

use std::time::Duration;

use pentago::{
    Accuracy, GameRecord, MatchAccuracy, OpeningSource, PairResult, Player, SearchControl,
    pair_accuracy,
};
use pentagrid_client::matches::{self, MatchPlan};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{Outcome, Task, v2};
use pentagrid_tablebase::Tablebase;
use pentagrid_tests::{TestCluster, hello, lease_one};

/// Moves are judged from this many stones on (the midsolver is quick from there).
const STONES: u32 = 22;

/// The perfect player (exact from 18 stones on) against random play, from openings of 20
/// stones: the games are judged from 22 stones on.
fn plan(pairs: u64) -> MatchPlan {
    MatchPlan {
        a: "perfect:uct:playouts=50".parse().unwrap(),
        b: Player::Random.into(),
        pairs,
        sprt: None,
        openings: OpeningSource::Random { plies: 20 },
        seed: 11,
        accuracy: Some(STONES),
        time: None,
        weight: 1,
        adjudicate: None,
    }
}

/// A stored pair's two games (A black first) as the engine's pair record.
fn stored_pair(games: &[matches::MatchGame]) -> PairResult {
    let record = |game: &matches::MatchGame| GameRecord {
        start: game.opening,
        moves: game.moves.clone(),
        result: game.result,
    };
    PairResult {
        opening: games[0].opening,
        games: [record(&games[0]), record(&games[1])],
        a_points: 0.0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cluster_match_keeps_the_accuracy_its_stored_games_give() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let plan = plan(4);
    let id = matches::create(&client, &plan).await.unwrap();
    let (stop, worker) = cluster.worker("w", 2);
    let outcome = tokio::time::timeout(
        Duration::from_secs(300),
        matches::follow(&client, id, &mut |_| Ok(())),
    )
    .await
    .expect("the match ends")
    .unwrap();
    let _ = stop.send(true);
    worker.await.unwrap();

    let report = matches::status(&client, id, true).await.unwrap();
    assert_eq!(report.state, matches::MatchState::Complete);
    assert_eq!(report.games.len(), 8);
    // Recomputed here from the stored games with the exact solver.
    let table = Tablebase::shipped().unwrap();
    let mut expected = [Accuracy::default(); 2];
    for pair in report.games.chunks(2) {
        assert_eq!(pair[0].pair, pair[1].pair);
        let sides = pair_accuracy(&stored_pair(pair), STONES, &table).unwrap();
        expected[0] += sides[0];
        expected[1] += sides[1];
    }
    let expected = MatchAccuracy {
        min_stones: STONES,
        sides: expected,
    };
    assert_eq!(report.accuracy, Some(expected));
    assert_eq!(outcome.accuracy, Some(expected));
    // Perfect play never drops the value; the random player's moves were judged too.
    let [perfect, random] = expected.sides;
    assert_eq!(perfect.drops, 0, "{expected:?}");
    assert!(random.moves > 0, "{expected:?}");
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_match_judged_from_0_stones_counts_the_tables_moves_too() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let plan = MatchPlan {
        a: "uct:playouts=200".parse().unwrap(),
        b: Player::Random.into(),
        pairs: 2,
        openings: OpeningSource::Random { plies: 1 },
        accuracy: Some(0),
        ..plan(2)
    };
    let id = matches::create(&client, &plan).await.unwrap();
    let (stop, worker) = cluster.worker("w", 2);
    let outcome = tokio::time::timeout(
        Duration::from_secs(300),
        matches::follow(&client, id, &mut |_| Ok(())),
    )
    .await
    .expect("the match ends")
    .unwrap();
    let _ = stop.send(true);
    worker.await.unwrap();
    let report = matches::status(&client, id, true).await.unwrap();
    let table = Tablebase::shipped().unwrap();
    let mut expected = [Accuracy::default(); 2];
    let mut from_the_table = 0;
    for pair in report.games.chunks(2) {
        let sides = pair_accuracy(&stored_pair(pair), 0, &table).unwrap();
        let later = pair_accuracy(&stored_pair(pair), 6, &table).unwrap();
        expected[0] += sides[0];
        expected[1] += sides[1];
        from_the_table += sides[0].moves + sides[1].moves - later[0].moves - later[1].moves;
    }
    let expected = MatchAccuracy {
        min_stones: 0,
        sides: expected,
    };
    assert_eq!(report.accuracy, Some(expected));
    assert_eq!(outcome.accuracy, Some(expected));
    // Openings of one stone: the moves from 1 to 5 stones, five per game, by the table.
    assert_eq!(from_the_table, 5 * 4, "{expected:?}");
    cluster.stop().await;
}

/// Leases the match's one pair job and plays and judges it as a worker does (with the
/// worker's session).
async fn played_pair(client: &mut pentagrid_proto::Client) -> (v2::Job, Outcome, String) {
    let session = hello(client, "w").await;
    let job = lease_one(client, "w", &session).await;
    let task = Task::try_from(job.spec.as_ref().unwrap()).unwrap();
    assert!(matches!(
        task,
        Task::Pair {
            accuracy_stones: Some(STONES),
            ..
        }
    ));
    let outcome = pentagrid_worker::execute(&task, job.seed, 1, &SearchControl::new()).unwrap();
    (job, outcome, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_false_accuracy_report_is_refused_and_changes_nothing() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    for stones in [36, 1000] {
        let bad = v2::CreateMatchRequest {
            a: "random".into(),
            b: "random".into(),
            pairs: 1,
            accuracy_stones: Some(stones),
            ..v2::CreateMatchRequest::default()
        };
        let status = client.create_match(bad).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(status.message().contains("accuracy stones"), "{status:?}");
    }
    assert_eq!(cluster.status().await.queued, 0, "nothing was queued");

    let cheap = MatchPlan {
        a: Player::Random.into(),
        ..plan(1)
    };
    let id = matches::create(&client, &cheap).await.unwrap();
    let (job, outcome, session) = played_pair(&mut client).await;
    let Outcome::Pair {
        games,
        accuracy: Some(true_accuracy),
        ..
    } = outcome
    else {
        panic!("the pair was judged: {outcome:?}");
    };
    let with = |accuracy: Option<MatchAccuracy>| Outcome::Pair {
        games: games.clone(),
        accuracy,
        notes: Default::default(),
    };
    let changed = |change: &dyn Fn(&mut MatchAccuracy)| {
        let mut accuracy = true_accuracy;
        change(&mut accuracy);
        with(Some(accuracy))
    };
    let submit = |result: &Outcome, result_id: &str| v2::SubmitRequest {
        worker_id: "w".into(),
        job_id: job.job_id,
        lease_id: job.lease_id,
        result_id: result_id.into(),
        result: Some(result.into()),
        session: session.clone(),
    };
    let lies = [
        (
            changed(&|a| a.sides[0].drops = a.sides[0].moves + 1),
            "drops exceed",
        ),
        (changed(&|a| a.sides[1].moves += 1), "moves judged"),
        (changed(&|a| a.min_stones = STONES + 1), "not the job's"),
        (with(None), "has none"),
    ];
    let before = matches::status(&client, id, false).await.unwrap();
    for (index, (lie, needle)) in lies.iter().enumerate() {
        let error = client
            .submit(submit(lie, &format!("lie-{index}")))
            .await
            .unwrap_err();
        assert_eq!(error.code(), tonic::Code::InvalidArgument, "{error:?}");
        assert!(error.message().contains(needle), "{}", error.message());
        let now = matches::status(&client, id, false).await.unwrap();
        assert_eq!(now, before, "a refused result changed the match");
    }
    assert_eq!(before.pairs_done, 0);
    assert_eq!(
        before.accuracy.map(|a| a.sides),
        Some([Accuracy::default(); 2])
    );

    // The true report is then accepted and counted.
    client
        .submit(submit(&with(Some(true_accuracy)), "true"))
        .await
        .unwrap();
    let done = matches::status(&client, id, false).await.unwrap();
    assert_eq!(done.pairs_done, 1);
    assert_eq!(done.accuracy, Some(true_accuracy));
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_match_without_accuracy_reports_none_and_refuses_a_report() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let plain = MatchPlan {
        a: Player::Random.into(),
        accuracy: None,
        ..plan(1)
    };
    let id = matches::create(&client, &plain).await.unwrap();
    let session = hello(&mut client, "w").await;
    let job = lease_one(&mut client, "w", &session).await;
    let task = Task::try_from(job.spec.as_ref().unwrap()).unwrap();
    let Some(Outcome::Pair {
        games,
        accuracy: None,
        ..
    }) = pentagrid_worker::execute(&task, job.seed, 1, &SearchControl::new())
    else {
        panic!("an unjudged pair");
    };
    let unasked = Outcome::Pair {
        games,
        accuracy: Some(MatchAccuracy {
            min_stones: STONES,
            sides: [Accuracy::default(); 2],
        }),
        notes: Default::default(),
    };
    let error = client
        .submit(v2::SubmitRequest {
            worker_id: "w".into(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: "unasked".into(),
            result: Some((&unasked).into()),
            session: session.clone(),
        })
        .await
        .unwrap_err();
    assert!(error.message().contains("not asked"), "{}", error.message());
    let report = matches::status(&client, id, false).await.unwrap();
    assert_eq!((report.pairs_done, report.accuracy), (0, None));
    cluster.stop().await;
}
