//! Tournaments on the embedded cluster: a three-player round robin is queued as three matches,
//! survives a coordinator restart, is played to the end and rated; a gauntlet pairs its first
//! player with each other one; a match cannot join a tournament that does not exist.

use std::time::Duration;

use pentago::{NamedPlayer, OpeningSource, Player, TournamentKind};
use pentagrid_client::tournaments::{self, TournamentPlan};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::v2;
use pentagrid_rating::RatingOptions;
use pentagrid_tests::TestCluster;

fn players(texts: &[&str]) -> Vec<NamedPlayer> {
    texts.iter().map(|t| t.parse().unwrap()).collect()
}

fn plan(kind: TournamentKind, texts: &[&str], pairs: u64) -> TournamentPlan {
    TournamentPlan {
        kind,
        players: players(texts),
        pairs,
        openings: OpeningSource::default(),
        seed: 9,
        time: None,
        adjudicate: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_three_player_round_robin_is_played_stored_and_rated() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let texts = ["uct:playouts=200", "flat:playouts=50", "random"];
    let plan = plan(TournamentKind::RoundRobin, &texts, 4);
    let id = tournaments::start(&cluster.client(), &plan).await.unwrap();
    // Nothing played yet: the tournament is its queued matches, and they survive a restart.
    let cluster = cluster.restart(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let queued = tournaments::status(&client, id).await.unwrap();
    assert_eq!(queued.matches.len(), 3);
    assert_eq!(queued.progress(), (0, 12));
    assert!(!queued.finished());
    let (stop, worker) = cluster.worker("w", 1);
    let mut updates = Vec::new();
    let played = tokio::time::timeout(
        Duration::from_secs(600),
        tournaments::follow(&client, id, &mut |progress| {
            updates.push(progress);
            Ok(())
        }),
    )
    .await
    .expect("the tournament ends")
    .unwrap();
    let _ = stop.send(true);
    worker.await.unwrap();
    assert_eq!(updates.last(), Some(&(12, 12)));
    assert!(played.finished());
    let names: Vec<String> = plan.players.iter().map(NamedPlayer::to_string).collect();
    assert_eq!(played.players(), names);
    assert_eq!(played.kind, "round-robin");
    let pairings: Vec<(&str, &str)> = played
        .matches
        .iter()
        .map(|m| (m.a.as_str(), m.b.as_str()))
        .collect();
    assert_eq!(
        pairings,
        [
            (names[0].as_str(), names[1].as_str()),
            (names[0].as_str(), names[2].as_str()),
            (names[1].as_str(), names[2].as_str())
        ]
    );
    assert_eq!(played.id, played.matches[0].id);
    for m in &played.matches {
        assert_eq!((m.tournament_id, m.pairs_done), (id, 4));
        assert_eq!(m.state, pentagrid_client::matches::MatchState::Complete);
        assert_eq!(m.score.games.games(), 8);
    }
    let list = played.ratings(&RatingOptions::default()).unwrap();
    assert_eq!(list.anchor, names[0]);
    assert_eq!(list.players.len(), 3);
    assert_eq!(list.pairs.len(), 3);
    assert!(list.players.iter().all(|p| p.games == 16));
    let total: f64 = list.players.iter().map(|p| p.points).sum();
    assert_eq!(total, 24.0);
    // The random player loses to both searchers by far: it is last, below the anchor.
    let random = list.player("random").unwrap();
    assert_eq!(random.rank, 3, "{list:?}");
    assert!(random.rating.high < 0.0, "{list:?}");
    // Only this tournament is stored, so the list of all stored matches is the same.
    let all = tournaments::ratings(&client, &[], &RatingOptions::default())
        .await
        .unwrap();
    assert_eq!(all, list);
    let listed = tournaments::all(&client).await.unwrap();
    assert_eq!(listed, [played]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gauntlet_pairs_its_first_player_with_each_other_one() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let client = cluster.client();
    let texts = [
        "flat:playouts=30",
        "random",
        "flat:playouts=10",
        "flat:playouts=20",
    ];
    let id = tournaments::start(&client, &plan(TournamentKind::Gauntlet, &texts, 1))
        .await
        .unwrap();
    let gauntlet = tournaments::status(&client, id).await.unwrap();
    assert_eq!(gauntlet.kind, "gauntlet");
    let pairings: Vec<(&str, &str)> = gauntlet
        .matches
        .iter()
        .map(|m| (m.a.as_str(), m.b.as_str()))
        .collect();
    assert_eq!(
        pairings,
        [
            ("flat:playouts=30", "random"),
            ("flat:playouts=30", "flat:playouts=10"),
            ("flat:playouts=30", "flat:playouts=20")
        ]
    );
    // A second tournament is listed first, and neither mixes with a plain match.
    let plain = pentagrid_client::matches::create(
        &client,
        &pentagrid_client::matches::MatchPlan {
            a: Player::Random.into(),
            b: Player::Random.into(),
            pairs: 1,
            sprt: None,
            openings: OpeningSource::default(),
            seed: 1,
            accuracy: None,
            time: None,
            weight: 1,
            adjudicate: None,
        },
    )
    .await
    .unwrap();
    let second = tournaments::start(
        &client,
        &plan(
            TournamentKind::RoundRobin,
            &["random", "flat:playouts=10"],
            1,
        ),
    )
    .await
    .unwrap();
    let ids: Vec<u64> = tournaments::all(&client)
        .await
        .unwrap()
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, [second, id]);
    assert!(plain < second && plain > id);
    // Bad player lists are refused before anything is queued.
    for bad in [vec!["random"], vec!["random", "random"]] {
        let error = tournaments::start(&client, &plan(TournamentKind::RoundRobin, &bad, 1))
            .await
            .unwrap_err();
        assert!(
            matches!(error, pentagrid_client::ClientError::Invalid(_)),
            "{error}"
        );
    }
    assert!(matches!(
        tournaments::status(&client, plain).await,
        Err(pentagrid_client::ClientError::NoTournament(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_joins_only_a_tournament_that_exists() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let mut client = cluster.client();
    let request = |kind: &str, tournament_id: u64| v2::CreateMatchRequest {
        a: "random".into(),
        b: "flat:playouts=10".into(),
        pairs: 1,
        tournament_kind: kind.into(),
        tournament_id,
        ..v2::CreateMatchRequest::default()
    };
    let first = client
        .create_match(request("gauntlet", 0))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let plain = client
        .create_match(request("", 0))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let refusals = [
        (request("gauntlet", 987_654), tonic::Code::NotFound),
        (request("round-robin", first), tonic::Code::NotFound),
        (request("gauntlet", plain), tonic::Code::NotFound),
        (request("", first), tonic::Code::InvalidArgument),
        (request("swiss", 0), tonic::Code::InvalidArgument),
    ];
    let before = pentagrid_client::matches::list(&client)
        .await
        .unwrap()
        .len();
    for (bad, code) in refusals {
        let status = client.create_match(bad.clone()).await.unwrap_err();
        assert_eq!(status.code(), code, "{bad:?}: {}", status.message());
    }
    assert_eq!(
        pentagrid_client::matches::list(&client)
            .await
            .unwrap()
            .len(),
        before
    );
    let joined = client
        .create_match(request("gauntlet", first))
        .await
        .unwrap()
        .into_inner()
        .match_id;
    let tournament = tournaments::status(&client, first).await.unwrap();
    let ids: Vec<u64> = tournament.matches.iter().map(|m| m.id).collect();
    assert_eq!(ids, [first, joined]);
}
