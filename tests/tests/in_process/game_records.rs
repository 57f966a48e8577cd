//! Game records of real cluster games: a match between named players on an in-process cluster
//! hands its games over as records as its pairs are stored; written, read back and replayed
//! they give the stored games' final positions; the store's export gives the same games; the
//! players' names survive a coordinator restart.

use std::collections::BTreeSet;

use pentago::{OpeningSource, Record, Termination, parse_records};
use pentagrid_client::game_records::{export_match, follow_match};
use pentagrid_client::matches::{self, MatchPlan};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_tests::TestCluster;

fn plan(pairs: u64) -> MatchPlan {
    MatchPlan {
        a: "fast=uct:playouts=60".parse().unwrap(),
        b: "rnd=random".parse().unwrap(),
        pairs,
        sprt: None,
        openings: OpeningSource::Random { plies: 2 },
        seed: 11,
        accuracy: None,
        time: None,
        weight: 1,
        adjudicate: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn records_of_a_cluster_match_round_trip_and_replay_to_the_stored_games() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let match_id = matches::create(&client, &plan(4)).await.unwrap();
    let (stop, worker) = cluster.worker("w", 1);
    let mut streamed: Vec<Record> = Vec::new();
    let mut reports = 0;
    let outcome = follow_match(
        &client,
        match_id,
        &mut |_| {
            reports += 1;
            Ok(())
        },
        "2026.11.27",
        &mut |records| {
            streamed.extend_from_slice(records);
            Ok(())
        },
    )
    .await
    .unwrap();
    let _ = stop.send(true);
    worker.await.unwrap();
    assert!(reports >= 1);
    assert_eq!(outcome.score.pairs.pairs(), 4);

    // Every pair's two games, each once, whatever order the pairs were stored in.
    assert_eq!(streamed.len(), 8);
    let rounds: BTreeSet<&str> = streamed.iter().map(|r| r.round.as_str()).collect();
    assert_eq!(rounds.len(), 8, "{rounds:?}");
    for record in &streamed {
        let first = record.round.ends_with("game 1");
        let (black, white) = if first {
            ("fast", "rnd")
        } else {
            ("rnd", "fast")
        };
        assert_eq!(
            (record.black.name.as_str(), record.white.name.as_str()),
            (black, white)
        );
        assert!(
            record
                .black
                .spec
                .starts_with(if first { "uct:" } else { "random" })
        );
        assert_eq!(record.event, format!("match {match_id}"));
        assert_eq!(record.date, "2026.11.27");
        assert_eq!(record.termination, Termination::Normal);
    }

    // Written and read back: the same records, replaying to the stored games' final positions.
    let text: String = streamed.iter().map(|r| format!("{r}\n")).collect();
    let read = parse_records(&text).unwrap();
    assert_eq!(read, streamed);
    let stored = matches::record(&client, match_id).await.unwrap();
    for record in &read {
        let pair: u64 = record.round["pair ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let index = usize::from(!record.round.ends_with("game 1"));
        let game = stored
            .games
            .iter()
            .filter(|g| g.pair == pair)
            .nth(index)
            .unwrap();
        let mut position = game.opening;
        for &mv in &game.moves {
            position = position.play(mv).unwrap();
        }
        let replayed = record.replay().unwrap();
        assert_eq!(replayed, position);
        assert_eq!(replayed.status(), game.result);
        assert!(replayed.status().is_over());
    }

    // The store's export: the same games (its day is not stored).
    let mut exported = export_match(&client, match_id).await.unwrap();
    exported.sort_by(|x, y| x.round.cmp(&y.round));
    let mut by_round = streamed.clone();
    by_round.sort_by(|x, y| x.round.cmp(&y.round));
    for (out, streamed) in exported.iter().zip(&by_round) {
        assert_eq!(out.date, pentago::UNKNOWN_DATE);
        assert_eq!(out.moves, streamed.moves);
        assert_eq!((&out.black, &out.white), (&streamed.black, &streamed.white));
        assert_eq!(out.result, streamed.result);
    }
    assert_eq!(exported.len(), 8);

    // The names are stored with the match and survive a restart.
    let cluster = cluster.restart(CoordinatorSettings::default()).await;
    let again = matches::status(&cluster.client(), match_id, false)
        .await
        .unwrap();
    assert_eq!(pentago::player_label(&again.a), "fast");
    assert_eq!(pentago::player_label(&again.b), "rnd");
    assert!(again.a.starts_with("fast=uct:"), "{}", again.a);
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bad_player_name_is_refused_by_the_coordinator() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let request = pentagrid_proto::v2::CreateMatchRequest {
        a: "bad name=random".into(),
        b: "random".into(),
        pairs: 1,
        ..Default::default()
    };
    let refused = cluster.client().create_match(request).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(
        refused.message().contains("player name"),
        "{}",
        refused.message()
    );
    assert!(matches::list(&cluster.client()).await.unwrap().is_empty());
    cluster.stop().await;
}
