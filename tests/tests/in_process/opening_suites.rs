//! Opening suites and exact adjudication on an in-process cluster with a real worker: a suite
//! read from a file plays each opening as a pair with colours swapped (a bad file sends
//! nothing), an exact suite's openings have the value asked for in the tablebase, and
//! adjudication ends a won 20-stone game at once with the exact value's result when its budget
//! pays for the midsolver there, and later when it does not.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pentago::{Adjudication, Color, OpeningSource, Position, SolveMethod, Status, Value};
use pentagrid_client::ClientError;
use pentagrid_client::matches::{self, MatchPlan, MatchRecord, MatchState};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_coordinator::table_values::TableValues;
use pentagrid_proto::v2;
use pentagrid_tablebase::Tablebase;
use pentagrid_tests::TestCluster;

/// 20 stones, black to move, and black wins (from the shared solved positions).
const WON_20: &str = "o...oo/.o..xo/.x.xo./.ox.../x.xx.x/oxoo.x";

fn plan(openings: OpeningSource, pairs: u64) -> MatchPlan {
    MatchPlan {
        a: "a=random".parse().unwrap(),
        b: "b=flat:playouts=20".parse().unwrap(),
        pairs,
        sprt: None,
        openings,
        seed: 11,
        accuracy: None,
        time: None,
        weight: 1,
        adjudicate: None,
    }
}

/// Plays `plan` on `cluster` with one worker and returns the finished match with its games.
async fn play(cluster: &TestCluster, plan: &MatchPlan) -> MatchRecord {
    let id = matches::create(&cluster.client(), plan).await.unwrap();
    let (stop, worker) = cluster.worker("w", 1);
    let started = Instant::now();
    let record = loop {
        let record = matches::status(&cluster.client(), id, true).await.unwrap();
        if record.state != MatchState::Running {
            break record;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "{record:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let _ = stop.send(true);
    worker.await.unwrap();
    assert_eq!(record.state, MatchState::Complete, "{record:?}");
    assert_eq!(record.games.len() as u64, 2 * plan.pairs);
    record
}

fn suite_file(dir: &tempfile::TempDir, text: &str) -> OpeningSource {
    let path = dir.path().join("suite.txt");
    std::fs::write(&path, text).unwrap();
    OpeningSource::File {
        path: path.display().to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_suite_plays_each_opening_twice_with_colours_swapped() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let text = "# three openings\nc4-1R d3-2L\n\nb5-1R  # one move\n\
                ....../....../..x.../...o../....../......\n";
    let suite: Vec<Position> = pentago::parse_suite(text).unwrap();
    let record = play(&cluster, &plan(suite_file(&dir, text), 6)).await;
    assert_eq!(record.suite_openings, 3);
    let mut played: Vec<Position> = Vec::new();
    for pair in record.games.chunks(2) {
        let [first, second] = pair else {
            unreachable!()
        };
        assert_eq!(first.pair, second.pair);
        assert_eq!(first.opening, second.opening, "one opening per pair");
        // A black first, then B black: the colours swap.
        assert_eq!(
            (first.black.as_str(), first.white.as_str()),
            ("random", "flat:playouts=20")
        );
        assert_eq!(
            (second.black.as_str(), second.white.as_str()),
            ("flat:playouts=20", "random")
        );
        played.push(first.opening);
    }
    // Six pairs from three openings: each in the first three pairs, and again in the next three.
    for round in played.chunks(3) {
        for opening in &suite {
            assert_eq!(
                round.iter().filter(|p| *p == opening).count(),
                1,
                "{played:?}"
            );
        }
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bad_suite_file_names_its_line_and_sends_nothing() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let bad = suite_file(&dir, "start\n# fine so far\nc4-2R c4-2L\n");
    let error = matches::create(&cluster.client(), &plan(bad, 2))
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::Suite { .. }), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("suite.txt") && text.contains("line 3") && text.contains("illegal"),
        "{text}"
    );
    assert!(matches::list(&cluster.client()).await.unwrap().is_empty());
    // Positions without a file source, or a file source without positions, are refused too.
    let mut request = v2::CreateMatchRequest {
        a: "random".into(),
        b: "random".into(),
        pairs: 1,
        openings: "random:plies=2".into(),
        opening_positions: vec![Position::START.to_string()],
        ..v2::CreateMatchRequest::default()
    };
    let refused = cluster
        .client()
        .create_match(request.clone())
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
    request.openings = "file:x.txt".into();
    request.opening_positions.clear();
    let refused = cluster.client().create_match(request).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
    assert!(matches::list(&cluster.client()).await.unwrap().is_empty());
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn exact_suites_hold_positions_of_the_asked_value() {
    let table = Arc::new(Tablebase::shipped().unwrap());
    let settings = CoordinatorSettings {
        table: TableValues::new(table.clone()),
        ..CoordinatorSettings::default()
    };
    let cluster = TestCluster::start(settings).await;
    for (value, name) in [(Value::Win, "win"), (Value::Draw, "draw")] {
        let source: OpeningSource = format!("exact:stones=5,value={name}").parse().unwrap();
        let record = play(&cluster, &plan(source, 4)).await;
        for game in &record.games {
            assert_eq!(game.opening.stone_count(), 5);
            assert_eq!(
                table.value(&game.opening).unwrap(),
                Some(value),
                "{}",
                game.opening
            );
        }
    }
    // Past the table's slices, and on a coordinator without a table: refused.
    let deep = plan("exact:stones=12,value=draw".parse().unwrap(), 1);
    let refused = matches::create(&cluster.client(), &deep).await.unwrap_err();
    assert!(refused.to_string().contains("12 stones"), "{refused}");
    cluster.stop().await;
    let bare = TestCluster::start(CoordinatorSettings::default()).await;
    let refused = matches::create(
        &bare.client(),
        &plan("exact:stones=5,value=win".parse().unwrap(), 1),
    )
    .await
    .unwrap_err();
    assert!(refused.to_string().contains("tablebase"), "{refused}");
    bare.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn adjudication_ends_a_won_20_stone_game_at_once() {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let won: Position = WON_20.parse().unwrap();
    assert_eq!((won.stone_count(), won.side_to_move()), (20, Color::Black));
    let mut adjudicated = plan(suite_file(&dir, &format!("{WON_20}\n")), 1);
    // A second a position pays for the midsolver at 20 stones (0.6 s).
    adjudicated.adjudicate = Some("exact:stones=20,budget=1".parse().unwrap());
    let record = play(&cluster, &adjudicated).await;
    assert_eq!(record.adjudicate, "exact:stones=20,budget=1");
    for game in &record.games {
        assert_eq!(game.opening, won);
        assert!(game.moves.is_empty(), "ended before any move: {game:?}");
        assert_eq!(game.result, Status::Won(Color::Black));
        assert_eq!(game.adjudicated, Some(SolveMethod::Midsolver));
    }
    // A is black in the first game (won) and white in the second (lost).
    assert_eq!(
        (
            record.score.games.wins,
            record.score.games.draws,
            record.score.games.losses
        ),
        (1, 0, 1)
    );
    // Under the default budget (0.1 s) the midsolver waits for 22 stones and a short
    // alpha-beta search does not prove this win: the game goes on (and may end adjudicated
    // later).
    let mut budgeted = plan(suite_file(&dir, &format!("{WON_20}\n")), 1);
    budgeted.adjudicate = Some(Adjudication::default());
    let later = play(&cluster, &budgeted).await;
    assert_eq!(later.adjudicate, "exact:stones=20,budget=0.1");
    for game in &later.games {
        assert!(!game.moves.is_empty(), "{game:?}");
    }
    // Without adjudication the same opening is played out.
    let played = play(&cluster, &plan(suite_file(&dir, &format!("{WON_20}\n")), 1)).await;
    for game in &played.games {
        assert!(
            !game.moves.is_empty() && game.adjudicated.is_none(),
            "{game:?}"
        );
    }
    cluster.stop().await;
}
