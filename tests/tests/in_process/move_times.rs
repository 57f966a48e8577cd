//! Per-move clock times end to end, over real gRPC: a worker referees a match under a per-move
//! time limit between the morat-dialect test engine and a built-in UCT player; every stored
//! move carries the time it took, within the limit and the referee's margin; the export's
//! records carry `time=` on every move, read back and replay. An untimed pair of built-in
//! players is timed too. A result whose times are not one per move, or absurd, is refused
//! naming the field and changes nothing.

use std::time::{Duration, Instant};

use pentago::{OpeningSource, SearchControl, TimeLimit};
use pentagrid_client::game_records::export_match;
use pentagrid_client::matches::{self, MatchPlan, MatchRecord, MatchState};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::{MAX_MOVE_MILLIS, Task, v2};
use pentagrid_tests::{TestCluster, hello, lease_one};
use pentagrid_worker::EngineSettings;
use pentagrid_worker::engines::{Dialect, EngineCommand, EngineSpec};

/// The match's time per move.
const SECONDS: f64 = 0.05;

/// How far past its time the referee lets the engine answer: more than any loaded machine's
/// scheduling takes, so the engine never loses on time.
const MARGIN: Duration = Duration::from_secs(3);

/// The test engine as `fm`.
fn engines() -> EngineSettings {
    EngineSettings {
        specs: vec![EngineSpec {
            name: "fm".into(),
            dialect: Dialect::Morat,
            command: EngineCommand {
                program: env!("CARGO_BIN_EXE_fake_morat").into(),
                args: Vec::new(),
            },
        }],
        margin: MARGIN,
        ..EngineSettings::default()
    }
}

/// A one-pair match of `a` and `b` from a random opening.
pub(super) fn plan(a: &str, b: &str, time: Option<TimeLimit>) -> MatchPlan {
    MatchPlan {
        a: a.parse().unwrap(),
        b: b.parse().unwrap(),
        pairs: 1,
        sprt: None,
        openings: OpeningSource::Random { plies: 4 },
        seed: 11,
        accuracy: None,
        time,
        weight: 1,
        adjudicate: None,
    }
}

/// The match once it no longer runs (with its games).
pub(super) async fn wait_finished(cluster: &TestCluster, match_id: u64) -> MatchRecord {
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
async fn every_refereed_move_is_timed_stored_and_exported() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let (stop, worker) = cluster.worker_with_engines("w", 1, engines());
    let client = cluster.client();
    let time = Some(TimeLimit::PerMove(SECONDS));
    let id = matches::create(&client, &plan("engine:fm", "uct", time))
        .await
        .unwrap();
    let done = wait_finished(&cluster, id).await;
    assert_eq!(done.state, MatchState::Complete, "{done:?}");
    assert_eq!(done.games.len(), 2);
    let most = (SECONDS + MARGIN.as_secs_f64()) * 1000.0;
    for game in &done.games {
        assert_eq!(game.forfeit, None, "{game:?}");
        let millis = game.move_times.millis();
        assert_eq!(millis.len(), game.moves.len(), "{game:?}");
        assert!(millis.iter().all(|&ms| f64::from(ms) <= most), "{millis:?}");
        // The built-in player searched for the time its clock gave it: measured, not zero.
        let uct = usize::from(game.black.starts_with("engine:"));
        let [black, white] = game.side_seconds().unwrap();
        assert!([black, white][uct] > 0.0, "{millis:?}");
        // Its moves carry its score; the engine's none.
        let first = game.opening.side_to_move() as usize;
        for index in 0..game.moves.len() {
            let score = game.move_scores.points(index);
            if (first + index) % 2 == uct {
                assert!(score.is_some_and(|s| (0.0..=1.0).contains(&s)), "{index}");
            } else {
                assert_eq!(score, None, "{index}: the engine gives no score");
            }
        }
    }

    // The export carries every move's time (no clock under a per-move limit), reads back and
    // replays.
    let records = export_match(&client, id).await.unwrap();
    assert_eq!(records.len(), 2);
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    let read = pentago::parse_records(&text).unwrap();
    assert_eq!(read, records);
    for (record, game) in read.iter().zip(&done.games) {
        record.replay().unwrap();
        let times: Vec<Option<f64>> = record.moves.iter().map(|m| m.note.time).collect();
        let stored: Vec<Option<f64>> = (0..game.moves.len())
            .map(|i| game.move_times.seconds(i))
            .collect();
        assert_eq!(times, stored);
        assert!(times.iter().all(Option::is_some), "{record}");
        assert!(record.moves.iter().all(|m| m.note.clock.is_none()));
    }
    assert_eq!(text.matches("time=").count(), count_moves(&done));
    let _ = stop.send(true);
    worker.await.unwrap();
    cluster.stop().await;
}

/// Moves of all a match's stored games.
pub(super) fn count_moves(record: &MatchRecord) -> usize {
    record.games.iter().map(|g| g.moves.len()).sum()
}

/// Leases the one queued pair and plays it as a worker does; returns the job, its result on
/// the wire and the session.
pub(super) async fn played_pair(
    client: &mut pentagrid_proto::Client,
) -> (v2::Job, v2::submit_request::Result, String) {
    let session = hello(client, "w").await;
    let job = lease_one(client, "w", &session).await;
    let task = Task::try_from(job.spec.as_ref().unwrap()).unwrap();
    let outcome = pentagrid_worker::execute_with_engines(
        &task,
        job.seed,
        1,
        &SearchControl::new(),
        &EngineSettings::default(),
    )
    .unwrap()
    .unwrap();
    (job, (&outcome).into(), session)
}

/// `result` with game `game`'s note (0 or 1) changed by `edit`.
pub(super) fn with_note(
    result: &v2::submit_request::Result,
    game: usize,
    edit: impl FnOnce(&mut v2::GameNote),
) -> v2::submit_request::Result {
    let mut result = result.clone();
    let v2::submit_request::Result::Pair(pair) = &mut result else {
        panic!("a pair result: {result:?}");
    };
    edit(&mut pair.notes[game]);
    result
}

/// The submission of `result` for the leased `job` of worker `w` under `result_id`.
pub(super) fn submission(
    job: &v2::Job,
    session: &str,
    result: v2::submit_request::Result,
    result_id: &str,
) -> v2::SubmitRequest {
    v2::SubmitRequest {
        worker_id: "w".into(),
        job_id: job.job_id,
        lease_id: job.lease_id,
        result_id: result_id.into(),
        result: Some(result),
        session: session.into(),
    }
}

/// Hands in each of `bad` for the leased pair: each is refused INVALID_ARGUMENT with a message
/// naming `field` (`game 2: move_millis`) and leaves match `id` as it was.
pub(super) async fn assert_refused_unchanged(
    client: &mut pentagrid_proto::Client,
    id: u64,
    (job, session): (&v2::Job, &str),
    bad: Vec<(&str, v2::submit_request::Result)>,
    field: &str,
) {
    let before = matches::status(client, id, true).await.unwrap();
    for (name, result) in bad {
        let error = client
            .submit(submission(job, session, result, name))
            .await
            .unwrap_err();
        assert_eq!(
            error.code(),
            tonic::Code::InvalidArgument,
            "{name}: {error:?}"
        );
        assert!(
            error.message().contains(field),
            "{name}: {}",
            error.message()
        );
        let now = matches::status(client, id, true).await.unwrap();
        assert_eq!(now, before, "{name}: a refused result changed the match");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn move_times_not_one_per_move_or_absurd_are_refused_and_change_nothing() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    // Untimed built-in players: the worker times their moves all the same.
    let id = matches::create(&client, &plan("random", "random", None))
        .await
        .unwrap();
    let (job, honest, session) = played_pair(&mut client).await;
    let v2::submit_request::Result::Pair(pair) = &honest else {
        panic!("a pair result");
    };
    assert_eq!(pair.notes.len(), 2, "{pair:?}");
    for (note, game) in pair.notes.iter().zip(&pair.games) {
        assert_eq!(note.move_millis.len(), game.moves.len(), "{note:?}");
    }
    let times = pair.notes[1].move_millis.clone();
    let first_is = |millis: u32| [&[millis][..], &times[1..]].concat();
    let bad = [
        ("one-short", times[..times.len() - 1].to_vec()),
        ("one-over", [&times[..], &[1]].concat()),
        ("a-day-and-more", first_is(MAX_MOVE_MILLIS + 1)),
        ("absurd", first_is(u32::MAX)),
    ]
    .into_iter()
    .map(|(name, times)| (name, with_note(&honest, 1, |n| n.move_millis = times)))
    .collect();
    let lease = (&job, session.as_str());
    assert_refused_unchanged(&mut client, id, lease, bad, "game 2: move_millis").await;
    // The honest result is then accepted, and its games keep their times.
    client
        .submit(submission(&job, &session, honest.clone(), "honest"))
        .await
        .unwrap();
    let done = matches::status(&client, id, true).await.unwrap();
    assert_eq!(done.pairs_done, 1);
    for (game, note) in done.games.iter().zip(&pair.notes) {
        assert_eq!(game.move_times.millis(), note.move_millis);
        assert!(game.move_times.is_known() || game.moves.is_empty());
    }
    cluster.stop().await;
}
