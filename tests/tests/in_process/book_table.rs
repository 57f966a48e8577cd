//! Irving's tablebase in the book, on an in-process cluster: a build's roots the table covers
//! show their table values (equal to the shipped tablebase's own answers) beside their
//! statistics, and nothing below a proven root is analysed; positions the table covers below
//! an analysed root get their values without a job, and the values propagate to the root; a
//! book stored without the table gets its values once a coordinator with the table runs on it.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pentago::{MoveGroups, Position, Value};
use pentagrid_client::book::{BookTables, tables};
use pentagrid_coordinator::{CoordinatorSettings, JobSettings, TableValues};
use pentagrid_proto::{ExactSource, v2};
use pentagrid_tablebase::Tablebase;
use pentagrid_tests::TestCluster;

const PLAYOUTS: u64 = 300;

fn settings(table: TableValues) -> CoordinatorSettings {
    CoordinatorSettings {
        jobs: JobSettings {
            lease_duration: Duration::from_secs(2),
            ..JobSettings::default()
        },
        table,
        ..CoordinatorSettings::default()
    }
}

fn shipped() -> Tablebase {
    Tablebase::shipped().expect("the shipped slices open")
}

/// A tablebase holding only the slice of `stones` stones (from the shipped files).
fn only_slice(stones: u32) -> TableValues {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tablebase/data/irving")
        .join(format!("slice-{stones}.pentago"));
    let mut tablebase = Tablebase::empty();
    assert_eq!(tablebase.add_slice_file(&path).unwrap(), stones);
    TableValues::new(Arc::new(tablebase))
}

fn build_request(roots: &[Position], depth: u32) -> v2::StartBuildRequest {
    v2::StartBuildRequest {
        roots: roots.iter().map(ToString::to_string).collect(),
        depth,
        max_positions: 1_000,
        budget: 1_000_000,
        playouts_per_position: PLAYOUTS,
        config: "uct".into(),
        solve_stones: 0,
        deep_from: 0,
        deep_window: 0,
        deep_leaf_stones: 0,
    }
}

/// Starts a build and waits for it to finish (a worker runs while it does).
async fn build(cluster: &TestCluster, request: v2::StartBuildRequest) -> v2::BuildStatusResponse {
    let mut client = cluster.client();
    let build_id = client
        .start_build(request)
        .await
        .unwrap()
        .into_inner()
        .build_id;
    let (stop, worker) = cluster.worker("w", 1);
    let started = Instant::now();
    let done = loop {
        let status = client
            .build_status(v2::BuildStatusRequest { build_id })
            .await
            .unwrap()
            .into_inner();
        if status.state() == v2::BuildState::Done {
            break status;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{status:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let _ = stop.send(true);
    worker.await.unwrap();
    done
}

/// The exact value of `mv` from `position` for the mover, as the shipped tablebase says.
fn table_move_value(table: &Tablebase, position: &Position, mv: pentago::Move) -> Value {
    table
        .value(&position.play(mv).unwrap())
        .unwrap()
        .expect("covered")
        .negate()
}

/// Checks that every valued row of `book` has the shipped tablebase's value and `source`;
/// returns how many rows are valued.
fn rows_agree(table: &Tablebase, book: &BookTables, source: ExactSource) -> usize {
    let mut valued = 0;
    for row in book.playouts.iter().chain(&book.games) {
        let Some(value) = row.proven else {
            continue;
        };
        valued += 1;
        let mv = row.mv;
        let want = table_move_value(table, &book.position, mv);
        assert_eq!(value, want, "{} {mv}", book.position);
        assert_eq!(row.proven_by, Some(source), "{} {mv}", book.position);
    }
    valued
}

/// Positions of 0 to 3 stones from a fixed line, in no frame in particular.
fn top_positions() -> Vec<Position> {
    let mut positions = vec![Position::START];
    let mut at = Position::START;
    for pick in [7, 40, 100] {
        at = at.play(at.legal_moves()[pick]).unwrap();
        positions.push(at);
    }
    positions
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_build_over_the_table_shows_its_values_beside_its_statistics_and_goes_no_deeper() {
    let table = shipped();
    let cluster = TestCluster::start(settings(TableValues::new(Arc::new(shipped())))).await;
    let roots = top_positions();
    let done = build(&cluster, build_request(&roots, 3)).await;
    // Every root is analysed once (its statistics were asked for); each is proven by the
    // table, so nothing below it is: no other position analysed, no other job queued.
    let analysed = roots.len() as u64;
    assert_eq!(done.positions, analysed, "{done:?}");
    assert_eq!(done.playouts, analysed * PLAYOUTS, "{done:?}");
    let status = cluster.status().await;
    assert_eq!(
        (status.queued, status.leased, status.done),
        (0, 0, analysed)
    );
    for root in &roots {
        let book = tables(&cluster.client(), root).await.unwrap();
        assert!(book.playouts.iter().any(|row| row.games > 0), "{book:?}");
        // One row per group of moves, each with the table's value, beside the counts.
        let groups = MoveGroups::of(root, true).iter().count();
        assert_eq!(
            rows_agree(&table, &book, ExactSource::Table),
            groups,
            "{root}"
        );
        let value = table.value(root).unwrap();
        assert_eq!(book.proven, value, "{root}");
        assert_eq!(book.proven_by, Some(ExactSource::Table), "{root}");
        // The line's first move keeps the value.
        let first = book.proven_line[0];
        assert_eq!(Some(table_move_value(&table, root, first)), value, "{root}");
        // No child was analysed (but a child that is a root itself).
        let is_root = |p: &Position| roots.iter().any(|r| r.canonical_key() == p.canonical_key());
        for row in book.playouts.iter().filter(|row| row.games > 0) {
            let child = root.play(row.mv).unwrap();
            if is_root(&child) {
                continue;
            }
            let below = tables(&cluster.client(), &child).await.unwrap();
            assert!(below.playouts.iter().all(|r| r.games == 0), "{child}");
        }
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn table_values_propagate_to_an_analysed_parent() {
    let table = shipped();
    // Only slice 2: the positions of one stone are covered (their moves reach two stones), the
    // start is not, so it is analysed and its values can only come up from its children.
    let cluster = TestCluster::start(settings(only_slice(2))).await;
    let done = build(&cluster, build_request(&[Position::START], 1)).await;
    assert_eq!(done.positions, 1, "only the start is analysed: {done:?}");
    assert_eq!(
        cluster.status().await.done,
        1,
        "one job: the start's analysis"
    );
    let start = tables(&cluster.client(), &Position::START).await.unwrap();
    let analysed: Vec<_> = start.playouts.iter().filter(|r| r.games > 0).collect();
    assert!(!analysed.is_empty(), "{start:?}");
    // Every analysed move led the build to a covered child, which got its table values and
    // passed its value up: the start's row for the move carries it, propagated.
    for row in &analysed {
        let child = Position::START.play(row.mv).unwrap();
        let child_book = tables(&cluster.client(), &child).await.unwrap();
        let groups = MoveGroups::of(&child, true).iter().count();
        assert_eq!(rows_agree(&table, &child_book, ExactSource::Table), groups);
        assert_eq!(child_book.proven, table.value(&child).unwrap(), "{child}");
        assert!(row.proven.is_some(), "{}: {start:?}", row.mv);
    }
    let valued = rows_agree(&table, &start, ExactSource::Propagated);
    assert_eq!(valued, analysed.len());
    // A winning move proves the start won (Irving: the first player wins) where the analysis
    // reached one.
    if start.playouts.iter().any(|r| r.proven == Some(Value::Win)) {
        assert_eq!(start.proven, Some(Value::Win));
        assert_eq!(start.proven_by, Some(ExactSource::Propagated));
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_book_stored_without_the_table_gets_its_values_from_a_coordinator_with_it() {
    let table = shipped();
    let cluster = TestCluster::start(settings(TableValues::none())).await;
    let root = top_positions()[2];
    build(&cluster, build_request(&[root], 0)).await;
    let before = tables(&cluster.client(), &root).await.unwrap();
    assert!(before.playouts.iter().any(|r| r.games > 0), "{before:?}");
    assert_eq!(before.proven, None);
    // The same database, now with the table: its ticks walk the stored book.
    let cluster = cluster
        .restart(settings(TableValues::new(Arc::new(shipped()))))
        .await;
    let started = Instant::now();
    let after = loop {
        let book = tables(&cluster.client(), &root).await.unwrap();
        if book.proven.is_some() {
            break book;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{book:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let groups = MoveGroups::of(&root, true).iter().count();
    assert_eq!(rows_agree(&table, &after, ExactSource::Table), groups);
    assert_eq!(after.proven, table.value(&root).unwrap());
    // The statistics stay beside the values.
    let counted = |book: &BookTables| -> u64 { book.playouts.iter().map(|r| r.games).sum() };
    assert_eq!(counted(&after), counted(&before));
    cluster.stop().await;
}
