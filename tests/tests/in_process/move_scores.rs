//! Per-move search scores end to end, over real gRPC: a worker plays a match of two built-in
//! UCT players; every stored move carries its mover's score from 0 to 1, and the export's
//! records carry `score=` on every move, read back and replay. A result whose scores are not
//! one per move, or out of range, is refused naming the field and changes nothing; a result
//! without scores (an older worker) stores its games unscored.

use pentagrid_client::game_records::export_match;
use pentagrid_client::matches::{self, MatchState};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::v2;
use pentagrid_tests::TestCluster;

use super::move_times::{
    assert_refused_unchanged, count_moves, plan, played_pair, submission, wait_finished, with_note,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_uct_move_is_scored_stored_and_exported() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let (stop, worker) = cluster.worker("w", 1);
    let client = cluster.client();
    let id = matches::create(&client, &plan("uct:playouts=300", "uct:playouts=200", None))
        .await
        .unwrap();
    let done = wait_finished(&cluster, id).await;
    assert_eq!(done.state, MatchState::Complete, "{done:?}");
    assert_eq!(done.games.len(), 2);
    for game in &done.games {
        let points = game.move_scores.all_points();
        assert_eq!(points.len(), game.moves.len(), "{game:?}");
        assert!(
            points
                .iter()
                .all(|p| p.is_some_and(|s| (0.0..=1.0).contains(&s))),
            "{points:?}"
        );
    }

    // The export carries every move's score, as stored; it reads back and replays.
    let records = export_match(&client, id).await.unwrap();
    assert_eq!(records.len(), 2);
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    let read = pentago::parse_records(&text).unwrap();
    assert_eq!(read, records);
    for (record, game) in read.iter().zip(&done.games) {
        record.replay().unwrap();
        let scores: Vec<Option<f64>> = record.moves.iter().map(|m| m.note.score).collect();
        assert_eq!(scores, game.move_scores.all_points(), "{record}");
    }
    assert_eq!(text.matches("score=").count(), count_moves(&done));
    let _ = stop.send(true);
    worker.await.unwrap();
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn move_scores_not_one_per_move_or_out_of_range_are_refused_and_change_nothing() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    // A UCT player (A, black in the first game) against a random one: half the moves scored.
    let id = matches::create(&client, &plan("uct:playouts=100", "random", None))
        .await
        .unwrap();
    let (job, honest, session) = played_pair(&mut client).await;
    let v2::submit_request::Result::Pair(pair) = &honest else {
        panic!("a pair result");
    };
    let scores = pair.notes[0].move_score_milli.clone();
    let moves = pair.games[0].moves.len();
    assert_eq!(scores.len(), moves, "{pair:?}");
    for (index, &milli) in scores.iter().enumerate() {
        if index % 2 == 0 {
            assert!(milli <= 1000, "{index}: {milli}");
        } else {
            assert_eq!(milli, pentagrid_proto::UNKNOWN_SCORE, "{index}: random");
        }
    }
    let first_is = |milli: u32| [&[milli][..], &scores[1..]].concat();
    let bad = [
        ("one-short", scores[..moves - 1].to_vec()),
        ("one-over", [&scores[..], &[500]].concat()),
        ("over-a-point", first_is(1001)),
        ("near-the-sentinel", first_is(u32::MAX - 1)),
    ]
    .into_iter()
    .map(|(name, scores)| (name, with_note(&honest, 0, |n| n.move_score_milli = scores)))
    .collect();
    let lease = (&job, session.as_str());
    assert_refused_unchanged(&mut client, id, lease, bad, "game 1: move_score_milli").await;
    // Without scores (as from an older worker) the result is accepted: the first game reads as
    // unscored, the second keeps the scores it came with.
    client
        .submit(submission(
            &job,
            &session,
            with_note(&honest, 0, |n| n.move_score_milli.clear()),
            "older",
        ))
        .await
        .unwrap();
    let done = matches::status(&client, id, true).await.unwrap();
    assert_eq!(done.pairs_done, 1);
    assert!(!done.games[0].move_scores.is_known());
    assert_eq!(
        done.games[1].move_scores.milli(),
        pair.notes[1].move_score_milli
    );
    assert!(done.games[1].move_scores.is_known());
    cluster.stop().await;
}
