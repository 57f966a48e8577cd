//! The client library's workflows, each run through its API against an embedded cluster on a
//! temporary database with one real worker: a study, a puzzle round, a match to an SPRT stop
//! (on the cluster and in process, by the same rule), a campaign, and the book's export →
//! import round trip in both row formats.

use pentago::{Opening, Player};
use pentagrid_client::book::{self, RowFormat};
use pentagrid_client::campaign::{CampaignPlan, campaign};
use pentagrid_client::jobs;
use pentagrid_client::matches::{self, MatchPlan};
use pentagrid_client::puzzles::{self, Goal};
use pentagrid_client::study::{StudyPlan, study};
use pentagrid_client::{ClientError, Parameter, ParameterError};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_embedded::EmbeddedCluster;
use pentagrid_rating::SprtDecision;
use pentagrid_tablebase::Tablebase;
use tokio::sync::watch;

const TOKEN: &str = "workflow-token";

async fn cluster_with_worker() -> (EmbeddedCluster, watch::Sender<bool>) {
    let cluster = EmbeddedCluster::temporary(CoordinatorSettings::default(), TOKEN)
        .await
        .unwrap();
    let (stop, _task) = cluster.worker("w", 1);
    (cluster, stop)
}

fn player(text: &str) -> Player {
    text.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_grows_the_book_and_plays_its_games() {
    let (cluster, _worker) = cluster_with_worker().await;
    let plan = StudyPlan {
        budget: 6 * 300,
        depth: 1,
        positions: 6,
        playouts: 300,
        solve_stones: 0,
        deep_from: 0,
        games: 2,
        player: player("uct:playouts=200"),
        config: "uct".parse().unwrap(),
    };
    let mut builds = 0;
    let report = study(
        &cluster.client(),
        Opening::MonicasFive,
        &plan,
        &Tablebase::empty(),
        &mut |_| {
            builds += 1;
        },
    )
    .await
    .unwrap();
    assert!(builds > 0, "progress was reported");
    assert!(!report.build.roots.is_empty(), "{:?}", report.build);
    assert!(
        (1..=6).contains(&report.build.positions),
        "{:?}",
        report.build
    );
    assert_eq!(report.games, 2);
    assert_eq!(report.black_wins + report.white_wins + report.draws, 2);
    assert!(report.aim_completed <= report.black_wins);
    let main = &report.key_positions[0];
    assert!(
        !main.playouts.is_empty(),
        "the main start position was analysed"
    );
    let bad = StudyPlan {
        playouts: 0,
        ..plan
    };
    let refused = study(
        &cluster.client(),
        Opening::MonicasFive,
        &bad,
        &Tablebase::empty(),
        &mut |_| {},
    )
    .await;
    assert!(
        matches!(
            refused,
            Err(ClientError::Parameter(ParameterError {
                parameter: Parameter::Playouts,
                ..
            }))
        ),
        "{refused:?}"
    );
    cluster.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_puzzle_round_stores_new_verified_puzzles() {
    let (cluster, _worker) = cluster_with_worker().await;
    let client = cluster.client();
    let goal = Goal {
        count: 1,
        max_moves: 3,
        min_moves: 0,
        min_stones: 20,
        stored_only: false,
        seed: 3,
        rounds: 5,
    };
    let round = puzzles::generate(&client, &goal, &mut |_| {})
        .await
        .unwrap();
    assert!(round.found >= 1, "{round}");
    assert_eq!(round.stored, round.found, "a fresh database");
    assert!(round.checked >= round.found);
    let stored = puzzles::list(&client, &puzzles::PuzzleFilter::default())
        .await
        .unwrap();
    assert_eq!(stored.len() as u64, round.stored);
    assert!(stored.iter().all(|p| (1..=3).contains(&p.mate_in)));
    cluster.stop().await.unwrap();
}

fn lopsided(pairs: u64) -> MatchPlan {
    MatchPlan {
        a: player("uct:playouts=1000").into(),
        b: Player::Random.into(),
        pairs,
        sprt: Some("elo0=0,elo1=50".parse().unwrap()),
        openings: "random:plies=2".parse().unwrap(),
        seed: 1,
        accuracy: None,
        time: None,
        weight: 1,
        adjudicate: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_stops_at_the_sprt_on_the_cluster_and_in_process() {
    let (cluster, _worker) = cluster_with_worker().await;
    let client = cluster.client();
    let plan = lopsided(60);
    let match_id = matches::create(&client, &plan).await.unwrap();
    let mut updates = 0;
    let outcome = matches::follow(&client, match_id, &mut |_| {
        updates += 1;
        Ok(())
    })
    .await
    .unwrap();
    assert_eq!(outcome.decision, SprtDecision::AcceptH1);
    assert!(!outcome.stopped);
    assert!(updates >= 1);
    let stored = matches::status(&client, match_id, false).await.unwrap();
    assert_eq!(stored.state, matches::MatchState::AcceptedH1);
    assert!(stored.pairs_done < 60, "stopped early: {stored:?}");
    assert_eq!(outcome.score, stored.score);
    cluster.stop().await.unwrap();

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut pairs = 0;
    let here = matches::play_in_process(&plan, &pool, &mut |_, _| {
        pairs += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(here.decision, SprtDecision::AcceptH1);
    assert_eq!(here.score.pairs.pairs(), pairs);
    assert!(pairs < 60);
    let book_openings = MatchPlan {
        openings: "book:plies=2".parse().unwrap(),
        ..plan
    };
    assert!(matches::play_in_process(&book_openings, &pool, &mut |_, _| Ok(())).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_campaign_fills_the_book_which_travels_by_export_and_import() {
    let (cluster, _worker) = cluster_with_worker().await;
    let client = cluster.client();
    let plan = CampaignPlan {
        games: 2,
        selfplay: player("uct:playouts=100"),
        playouts: 500,
        config: "uct".parse().unwrap(),
        depth: 1,
        studies: false,
        puzzles: 0,
    };
    let report = campaign(&client, &plan, &Tablebase::shipped().unwrap(), &mut |_| {})
        .await
        .unwrap();
    assert!(report.studies.is_empty() && report.puzzles.is_none());
    let status = jobs::status(&client).await.unwrap();
    assert_eq!(status.stored.games, 2);
    assert!(
        status.stored.playout_positions >= 2,
        "the start and its children: {status:?}"
    );
    assert_eq!(
        status.jobs.done,
        status.stored.games + status.stored.playout_positions
    );

    for format in [RowFormat::Csv, RowFormat::Jsonl] {
        let mut exported = Vec::new();
        let rows = book::export(&client, 0, format, &mut exported)
            .await
            .unwrap();
        assert!(rows > 0);
        let parsed = book::parse_rows(exported.as_slice(), format).unwrap();
        assert_eq!(parsed.len() as u64, rows);
        let fresh = EmbeddedCluster::temporary(CoordinatorSettings::default(), TOKEN)
            .await
            .unwrap();
        book::import(&fresh.client(), &parsed).await.unwrap();
        let mut again = Vec::new();
        book::export(&fresh.client(), 0, format, &mut again)
            .await
            .unwrap();
        assert_eq!(
            String::from_utf8(again).unwrap(),
            String::from_utf8(exported).unwrap(),
            "{format:?} round trip"
        );
        fresh.stop().await.unwrap();
    }
    cluster.stop().await.unwrap();
}
