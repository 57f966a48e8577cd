//! The book builder on an in-process cluster: a build grows the book best-first, survives a
//! coordinator restart mid-way and finishes without analysing any position twice; export and
//! import are lossless; proven values agree with the exact solver.

use std::time::{Duration, Instant};

use pentago::{Opening, Position, SolveLimits, Solver, Value};
use pentagrid_coordinator::{CoordinatorSettings, JobSettings};
use pentagrid_proto::{Client, v2};
use pentagrid_tests::TestCluster;

const PLAYOUTS: u64 = 300;

fn settings() -> CoordinatorSettings {
    CoordinatorSettings {
        jobs: JobSettings {
            lease_duration: Duration::from_secs(2),
            ..JobSettings::default()
        },
        ..CoordinatorSettings::default()
    }
}

async fn start_build(cluster: &TestCluster, request: v2::StartBuildRequest) -> u64 {
    cluster
        .client()
        .start_build(request)
        .await
        .unwrap()
        .into_inner()
        .build_id
}

async fn build_status(client: &mut Client, build_id: u64) -> v2::BuildStatusResponse {
    client
        .build_status(v2::BuildStatusRequest { build_id })
        .await
        .unwrap()
        .into_inner()
}

async fn wait_build(
    cluster: &TestCluster,
    build_id: u64,
    ready: impl Fn(&v2::BuildStatusResponse) -> bool,
) -> v2::BuildStatusResponse {
    let started = Instant::now();
    let mut client = cluster.client();
    loop {
        let status = build_status(&mut client, build_id).await;
        if ready(&status) {
            return status;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{status:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn export_all(client: &mut Client) -> Vec<v2::BookExportRow> {
    let mut rows = Vec::new();
    let mut from_key = 0;
    loop {
        let page = client
            .book_export(v2::BookExportRequest {
                from_key,
                limit: 7,
                min_games: 0,
            })
            .await
            .unwrap()
            .into_inner();
        rows.extend(page.rows);
        if page.next_key == 0 {
            return rows;
        }
        from_key = page.next_key;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_build_resumes_after_a_restart_without_recounting_and_exports_losslessly() {
    let cluster = TestCluster::start(settings()).await;
    let roots = Opening::MonicasFive.start_positions();
    let request = v2::StartBuildRequest {
        roots: roots.iter().map(ToString::to_string).collect(),
        depth: 1,
        max_positions: 40,
        budget: 1_000_000,
        playouts_per_position: PLAYOUTS,
        config: "uct".into(),
        solve_stones: 0,
        deep_from: 0,
        deep_window: 0,
        deep_leaf_stones: 0,
    };
    let build_id = start_build(&cluster, request).await;
    let (stop, worker) = cluster.worker("first", 1);
    wait_build(&cluster, build_id, |s| s.positions >= 12).await;
    let _ = stop.send(true);
    worker.await.unwrap();

    let cluster = cluster.restart(settings()).await;
    let (stop, worker) = cluster.worker("second", 1);
    let done = wait_build(&cluster, build_id, |s| s.state() == v2::BuildState::Done).await;
    let _ = stop.send(true);
    worker.await.unwrap();
    assert_eq!(done.positions, 40, "{done:?}");
    assert_eq!(done.pending, 0);

    // Every root was analysed, and every analysed position exactly once.
    let mut client = cluster.client();
    for root in &roots {
        let book = client
            .book_show(v2::BookShowRequest {
                position: root.to_string(),
            })
            .await
            .unwrap()
            .into_inner();
        let games: u64 = book.playouts.iter().map(|r| r.games).sum();
        assert_eq!(games, PLAYOUTS, "{root}");
    }
    let status = cluster.status().await;
    assert_eq!(status.playout_positions, 40);
    assert_eq!(status.playouts, 40 * PLAYOUTS);
    assert_eq!(done.playouts, 40 * PLAYOUTS);
    // Children of the roots were analysed too: the build went below its roots.
    let exported = export_all(&mut client).await;
    let positions: std::collections::HashSet<&str> =
        exported.iter().map(|r| r.position.as_str()).collect();
    assert_eq!(positions.len(), 40);
    assert!(
        positions
            .iter()
            .any(|p| p.parse::<Position>().unwrap().stone_count() == 4)
    );

    // Export, import into an empty database, export again: the same rows.
    let rows = exported.clone();
    let fresh = TestCluster::start(settings()).await;
    let mut fresh_client = fresh.client();
    fresh_client
        .book_import(v2::BookImportRequest {
            rows: rows.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(export_all(&mut fresh_client).await, exported);
    assert_eq!(fresh.status().await.playouts, 40 * PLAYOUTS);
    // A bad row refuses the whole import.
    let mut bad = rows[..3].to_vec();
    bad[2].wins = bad[2].games + 1;
    assert!(
        fresh_client
            .book_import(v2::BookImportRequest {
                rows: bad,
                ..Default::default()
            })
            .await
            .is_err()
    );
    assert_eq!(fresh.status().await.playouts, 40 * PLAYOUTS);
    cluster.stop().await;
    fresh.stop().await;
}

/// The reference positions with their exact values (`../shared/data/solved-positions.txt`).
fn reference_positions() -> Vec<(Position, i8)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (p, v) = l.split_once(' ').unwrap();
            (p.parse().unwrap(), v.trim().parse().unwrap())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn proven_values_in_the_book_agree_with_the_solver() {
    let reference: Vec<(Position, i8)> = reference_positions()
        .into_iter()
        .filter(|(p, _)| p.stone_count() >= 28)
        .take(3)
        .collect();
    assert_eq!(reference.len(), 3);
    let cluster = TestCluster::start(settings()).await;
    let request = v2::StartBuildRequest {
        roots: reference.iter().map(|(p, _)| p.to_string()).collect(),
        depth: 0,
        max_positions: 10,
        budget: 1,
        playouts_per_position: 1,
        config: "uct".into(),
        solve_stones: 28,
        deep_from: 0,
        deep_window: 0,
        deep_leaf_stones: 0,
    };
    let build_id = start_build(&cluster, request).await;
    let (stop, worker) = cluster.worker("w", 2);
    let done = wait_build(&cluster, build_id, |s| s.state() == v2::BuildState::Done).await;
    let _ = stop.send(true);
    worker.await.unwrap();
    assert_eq!((done.positions, done.solved), (3, 3));
    let mut solver = Solver::new(20);
    for (position, value) in reference {
        let book = cluster
            .client()
            .book_show(v2::BookShowRequest {
                position: position.to_string(),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(!book.playouts.is_empty(), "{position} was solved");
        let mut best = -1;
        for row in &book.playouts {
            let proven: Value = pentagrid_proto::value_of_wire(row.proven).unwrap().unwrap();
            let child = position.play(row.r#move.parse().unwrap()).unwrap();
            let solved = solver.solve(&child, SolveLimits::default()).value;
            let mover = match child.status() {
                s if s.is_over() => Value::of_status(s, position.side_to_move()),
                _ => solved.map(Value::negate),
            };
            assert_eq!(Some(proven), mover, "{position} {}", row.r#move);
            best = best.max(proven.as_i8());
        }
        assert_eq!(
            best, value,
            "{position}: the book's value is the reference value"
        );
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_empty_board_whose_key_is_zero_is_exported_first() {
    let cluster = TestCluster::start(settings()).await;
    let request = v2::StartBuildRequest {
        roots: vec![Position::START.to_string()],
        depth: 0,
        max_positions: 1,
        budget: 1_000_000,
        playouts_per_position: PLAYOUTS,
        config: "uct".into(),
        solve_stones: 0,
        deep_from: 0,
        deep_window: 0,
        deep_leaf_stones: 0,
    };
    let build_id = start_build(&cluster, request).await;
    let (stop, worker) = cluster.worker("w", 1);
    wait_build(&cluster, build_id, |s| s.state() == v2::BuildState::Done).await;
    let _ = stop.send(true);
    worker.await.unwrap();
    assert_eq!(Position::START.key().bits(), 0);
    let rows = export_all(&mut cluster.client()).await;
    assert!(!rows.is_empty(), "the start position's table is exported");
    assert!(
        rows.iter()
            .all(|row| row.position == Position::START.to_string()),
        "{rows:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn exact_values_stand_beside_the_game_statistics_in_the_book_and_its_export() {
    // A late position (white to move, white wins), solved by a solve job and played from by
    // self-play games.
    let position: Position = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox".parse().unwrap();
    let cluster = TestCluster::start(settings()).await;
    let mut client = cluster.client();
    let mut tasks = vec![pentagrid_proto::Task::Solve { position }];
    tasks.extend((0..6).map(|_| pentagrid_proto::Task::Selfplay {
        start: position,
        black: pentago::Player::Random,
        white: pentago::Player::Random,
    }));
    client
        .submit_jobs(v2::SubmitJobsRequest {
            jobs: tasks.iter().map(v2::JobSpec::from).collect(),
        })
        .await
        .unwrap();
    let (stop, worker) = cluster.worker("w", 1);
    cluster.wait_done(7, Duration::from_secs(120)).await;
    let _ = stop.send(true);
    worker.await.unwrap();

    let book = pentagrid_client::book::tables(&client, &position)
        .await
        .unwrap();
    assert!(!book.games.is_empty(), "the games were counted");
    for row in &book.games {
        let beside = book.playouts.iter().find(|r| r.mv == row.mv);
        assert!(
            row.proven.is_some(),
            "game row {} has no exact value",
            row.mv
        );
        assert_eq!(row.proven, beside.and_then(|r| r.proven));
    }

    let mut csv = Vec::new();
    let format = pentagrid_client::book::RowFormat::Csv;
    pentagrid_client::book::export(&client, 1, format, &mut csv)
        .await
        .unwrap();
    let csv = String::from_utf8(csv).unwrap();
    // The solved position's game rows (positions later in the games were not solved).
    let solved = format!("{},", position.canonical().position);
    let game_rows: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with(&solved) && l.contains(",games,"))
        .collect();
    assert_eq!(game_rows.len(), book.games.len(), "{csv}");
    for line in game_rows {
        let fields: Vec<&str> = line.split(',').collect();
        assert!(["win", "draw", "loss"].contains(&fields[6]), "{line}");
        // The value's source: the solve job.
        assert_eq!(fields[7], "solver", "{line}");
    }
    cluster.stop().await;
}

/// A playout row of `position` (canonical) for the first move of its `group`-th move group.
fn row(position: Position, group: usize, games: u64, wins: u64) -> v2::BookExportRow {
    let mv = pentago::MoveGroups::of(&position, true)
        .iter()
        .nth(group)
        .unwrap()[0];
    v2::BookExportRow {
        position: position.to_string(),
        r#move: mv.to_string(),
        source: v2::TableSource::Playouts.into(),
        games,
        wins,
        draws: 0,
        proven: 0,
        proven_by: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn imports_that_would_overflow_a_stored_count_are_refused_whole_and_store_nothing() {
    let cluster = TestCluster::start(settings()).await;
    let mut client = cluster.client();
    let start = Position::START;
    let other = start.play(pentago::MoveGroups::of(&start, true).iter().next().unwrap()[0]);
    let other = other.unwrap().canonical().position;
    let import = |rows: Vec<v2::BookExportRow>| {
        let mut client = cluster.client();
        async move {
            client
                .book_import(v2::BookImportRequest {
                    rows,
                    ..Default::default()
                })
                .await
        }
    };
    import(vec![row(start, 0, 10, 4), row(start, 1, 7, 7)])
        .await
        .unwrap();
    let before = export_all(&mut client).await;
    let totals = cluster.status().await;
    assert_eq!(totals.playouts, 17);

    let refused: Vec<(&str, Vec<v2::BookExportRow>, tonic::Code)> = vec![
        // The probe of issue 28: added to the stored 10 games and 4 wins, both wrap.
        (
            "merge into a stored row",
            vec![row(start, 0, u64::MAX, u64::MAX)],
            tonic::Code::OutOfRange,
        ),
        // A new position whose games fit its own row but not the running playout total; the
        // good row before it in the same request is not stored either.
        (
            "running total",
            vec![row(other, 0, 5, 1), row(other, 1, u64::MAX - 3, 0)],
            tonic::Code::OutOfRange,
        ),
        // Two rows of one move in one request that only overflow together.
        (
            "rows of one request",
            vec![row(other, 2, u64::MAX, 0), row(other, 2, 1, 0)],
            tonic::Code::InvalidArgument,
        ),
        // Inconsistent counts, with and without overflow in the check itself.
        (
            "wins above games",
            vec![row(other, 0, 3, 4)],
            tonic::Code::InvalidArgument,
        ),
        (
            "wins + draws overflow",
            vec![v2::BookExportRow {
                draws: u64::MAX,
                ..row(other, 0, u64::MAX, u64::MAX)
            }],
            tonic::Code::InvalidArgument,
        ),
    ];
    for (case, rows, code) in refused {
        let status = import(rows).await.expect_err(case);
        assert_eq!(status.code(), code, "{case}: {status:?}");
        assert!(
            status.message().contains("2^64")
                || status.message().contains("exceed")
                || status.message().contains("overflow"),
            "{case}: {status:?}"
        );
        assert_eq!(export_all(&mut client).await, before, "{case}");
        let after = cluster.status().await;
        assert_eq!(
            (after.playouts, after.playout_positions),
            (totals.playouts, totals.playout_positions),
            "{case}"
        );
    }

    // The coordinator's own export still imports: counts add up exactly.
    import(before.clone()).await.unwrap();
    let doubled = export_all(&mut client).await;
    assert_eq!(doubled.len(), before.len());
    for (once, twice) in before.iter().zip(&doubled) {
        assert_eq!((twice.games, twice.wins), (2 * once.games, 2 * once.wins));
    }
    assert_eq!(cluster.status().await.playouts, 34);
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn solved_children_prove_an_analysed_root_through_the_book() {
    // Two reference positions of 29 stones: one the side to move wins, one it does not.
    let reference: Vec<(Position, i8)> = reference_positions()
        .into_iter()
        .filter(|(p, _)| p.stone_count() == 29 && !p.is_over())
        .collect();
    let won = *reference.iter().find(|(_, v)| *v == 1).unwrap();
    let lost = *reference.iter().find(|(_, v)| *v == -1).unwrap();
    let cluster = TestCluster::start(settings()).await;
    // The roots are analysed (29 stones), their children solved (30 stones): the roots'
    // values can only come from propagation.
    let request = v2::StartBuildRequest {
        roots: vec![won.0.to_string(), lost.0.to_string()],
        depth: 1,
        max_positions: 1_000,
        budget: 2 * PLAYOUTS,
        playouts_per_position: PLAYOUTS,
        config: "uct".into(),
        solve_stones: 30,
        deep_from: 0,
        deep_window: 0,
        deep_leaf_stones: 0,
    };
    let build_id = start_build(&cluster, request).await;
    let (stop, worker) = cluster.worker("w", 2);
    let done = wait_build(&cluster, build_id, |s| s.state() == v2::BuildState::Done).await;
    let _ = stop.send(true);
    worker.await.unwrap();
    assert!(done.solved > 2, "{done:?}");
    for (position, expected) in [won, lost] {
        let book = pentagrid_client::book::tables(&cluster.client(), &position)
            .await
            .unwrap();
        let proven = book.proven;
        // One solved child lost for its mover proves the won root; the lost one needs every
        // move proven (the analysis plays them all, so the build solves every child).
        let want = if expected == 1 {
            Value::Win
        } else {
            Value::Loss
        };
        assert_eq!(proven, Some(want), "{position}: {book:?}");
        // Whatever it proves agrees with the reference, and its line starts with a move whose
        // row says the same.
        if let Some(proven) = proven {
            assert_eq!(proven.as_i8(), expected, "{position}");
            let first = *book
                .proven_line
                .first()
                .expect("a proven position has a line");
            let child = position.play(first).unwrap();
            if child.is_over() {
                // Decided by the rules, without a stored row.
                let by_rules = Value::of_status(child.status(), position.side_to_move());
                assert_eq!(by_rules, Some(proven), "{position} {first}");
                continue;
            }
            let row = book
                .playouts
                .iter()
                .find(|r| {
                    r.mv == first
                        || r.also.contains(&first)
                        || position.play(r.mv).unwrap().canonical_key() == child.canonical_key()
                })
                .expect("the line's first move has a row");
            assert_eq!(row.proven, Some(proven), "{position} {first}");
        } else {
            assert!(book.proven_line.is_empty());
        }
    }
    cluster.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_book_imported_twice_is_refused_unless_asked_for_again() {
    let cluster = TestCluster::start(settings()).await;
    let mut client = cluster.client();
    let start = Position::START;
    // More rows than one call carries, so that the book takes several calls.
    let book_row =
        |position: Position, group: usize, games: u64| pentagrid_client::book::ExportRow {
            position,
            mv: pentago::MoveGroups::of(&position, true)
                .iter()
                .nth(group)
                .unwrap()[0],
            source: pentagrid_client::book::TableSource::Playouts,
            games,
            wins: games / 2,
            draws: 0,
            proven: None,
            proven_by: None,
        };
    let mut rows: Vec<_> = (0..3).map(|group| book_row(start, group, 10)).collect();
    // A row of every move of the positions two moves from the start.
    let mut seen = std::collections::HashSet::new();
    'filling: for first in pentago::MoveGroups::of(&start, true).iter() {
        let child = start.play(first[0]).unwrap().canonical().position;
        for second in pentago::MoveGroups::of(&child, true).iter() {
            let grandchild = child.play(second[0]).unwrap().canonical().position;
            if !seen.insert(grandchild) {
                continue;
            }
            let groups = pentago::MoveGroups::of(&grandchild, true).iter().count();
            rows.extend((0..groups).map(|group| book_row(grandchild, group, 1)));
            if rows.len() > pentagrid_coordinator::book::MAX_IMPORT_ROWS {
                break 'filling;
            }
        }
    }
    assert!(rows.len() > pentagrid_coordinator::book::MAX_IMPORT_ROWS);
    pentagrid_client::book::import(&client, &rows)
        .await
        .unwrap();
    let once = cluster.status().await.playouts;
    let exported = export_all(&mut client).await;
    // The same book again: refused whole, nothing added, the way out named.
    let error = pentagrid_client::book::import(&client, &rows)
        .await
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("imported before"), "{text}");
    assert!(text.contains("--again"), "{text}");
    assert_eq!(cluster.status().await.playouts, once);
    assert_eq!(export_all(&mut client).await, exported);
    // Other rows are another book.
    pentagrid_client::book::import(&client, &rows[..3])
        .await
        .unwrap();
    let more = cluster.status().await.playouts;
    assert_eq!(more, once + 30);
    // Asked for again explicitly, it is imported again.
    pentagrid_client::book::import_again(&client, &rows)
        .await
        .unwrap();
    let twice = cluster.status().await.playouts;
    assert_eq!(twice, more + once);

    // An import that stopped after its first call (a dropped connection), run again whole:
    // the part already in is skipped, and every count is added once.
    let other: Vec<_> = rows
        .iter()
        .map(|row| pentagrid_client::book::ExportRow {
            games: 2 * row.games,
            wins: row.games,
            ..row.clone()
        })
        .collect();
    let wire: Vec<v2::BookExportRow> = other
        .iter()
        .map(pentagrid_client::book::import_row_to_wire)
        .collect();
    let digest = pentagrid_client::book::book_digest(&wire);
    let first = v2::BookImportRequest {
        rows: wire[..pentagrid_coordinator::book::MAX_IMPORT_ROWS].to_vec(),
        book_digest: digest.to_vec(),
        part: 0,
        parts: 2,
        again: false,
    };
    client.book_import(first.clone()).await.unwrap();
    let half = cluster.status().await.playouts;
    assert!(half > twice);
    // A part past the one expected next is refused, and adds nothing.
    let gap = v2::BookImportRequest {
        part: 1,
        parts: 3,
        ..first
    };
    let refused = client.book_import(gap).await.unwrap_err();
    assert_eq!(
        refused.code(),
        tonic::Code::FailedPrecondition,
        "{refused:?}"
    );
    assert!(refused.message().contains("expects part 1"), "{refused:?}");
    pentagrid_client::book::import(&client, &other)
        .await
        .unwrap();
    assert_eq!(cluster.status().await.playouts, twice + 2 * once);
    cluster.stop().await;
}
