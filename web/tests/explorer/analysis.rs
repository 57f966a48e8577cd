//! The analysis board: `/exact` against Irving's tablebase and the reference solutions, a flood
//! of late positions against the solver pool's budget, and the board in a real browser (every
//! move's colour of a 3-stone position equals the tablebase's value, the move list, the last
//! move's marks, a finished game's five).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use fantoccini::Client;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use pentago::{ExactOracle, Move, Position, SolveLimits, Value, random_opening};
use pentagrid_client::book::{ExportRow, TableSource};
use pentagrid_coordinator::CoordinatorSettings;
use pentagrid_proto::ExactSource;
use pentagrid_tablebase::Tablebase;
use pentagrid_tests::TestCluster;
use pentagrid_web::{ExactBoard, ExactSettings, SolverSettings, SolverStats};
use serde_json::Value as Json;

use crate::browser::{
    click, connect, find_program, play, screenshot, skip_without_browser, start_driver, text_of,
    wait_for,
};
use crate::support::{Answer, get, start_explorer_exact};

/// A 3-stone position, white to move, where white loses after all but one of its 264 moves
/// (issue 39): the board shows both colours.
const THREE_STONES: &str = "...o../....x./....../....../.x..../......";

/// A cluster (an empty book) and an explorer over it with `exact`; the cluster must live as
/// long as the explorer is asked.
async fn explorer(exact: ExactBoard) -> (TestCluster, String) {
    let cluster = TestCluster::start(CoordinatorSettings::default()).await;
    let base = start_explorer_exact(&cluster, exact).await;
    (cluster, base)
}

fn shipped() -> ExactBoard {
    ExactBoard::shipped().expect("the shipped tablebase")
}

async fn exact(base: &str, position: &Position) -> Answer {
    get(&format!("{base}/api/v1/exact?position={position}")).await
}

/// The move values of an `/exact` answer by move text.
fn moves_of(answer: &Json) -> HashMap<String, (Json, Json)> {
    answer["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            let text = m["move"].as_str().expect("move").to_owned();
            (text, (m["value"].clone(), m["source"].clone()))
        })
        .collect()
}

/// The tablebase's value of every move of `position`, by move text.
fn table_moves(position: &Position) -> HashMap<String, Value> {
    let tablebase = Tablebase::shipped().expect("the shipped tablebase");
    tablebase
        .probe_moves(position)
        .expect("readable")
        .expect("covered")
        .into_iter()
        .map(|(mv, value): (Move, Value)| (mv.to_string(), value))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exact_values_of_early_positions_come_from_the_tablebase() {
    let (_cluster, base) = explorer(shipped()).await;
    let tablebase = Tablebase::shipped().expect("the shipped tablebase");
    for text in [
        THREE_STONES,
        "start",
        "x...../....../....o./....../....../......",
    ] {
        let position: Position = text.parse().expect("a position");
        let answer = exact(&base, &position).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let json = answer.json();
        let expected = table_moves(&position);
        let moves = moves_of(&json);
        assert_eq!(moves.len(), position.legal_moves().len());
        assert_eq!(moves.len(), expected.len());
        for (mv, value) in &expected {
            assert_eq!(moves[mv].0, value.name(), "{text} {mv}");
            assert_eq!(moves[mv].1, "table", "{text} {mv}");
        }
        let value = tablebase
            .value(&position)
            .expect("readable")
            .expect("covered");
        assert_eq!(json["value"], value.name(), "{text}");
        assert_eq!(json["source"], "table");
        assert_eq!(json["unknown_moves"], 0);
        assert!(json["unknown"].is_null());
        assert_eq!(json["book"], "not_needed", "the table knew everything");
        assert!(json["solver"].is_null());
    }
    // Six stones: the position's slice is shipped, its moves' (7 stones) is not.
    let six = random_opening(5, 6);
    assert_eq!(six.stone_count(), 6);
    let json = exact(&base, &six).await.json();
    let value = tablebase.value(&six).expect("readable").expect("covered");
    assert_eq!(json["value"], value.name());
    assert_eq!(json["source"], "table");
    assert_eq!(json["unknown"]["code"], "not_covered", "{json}");
    assert_eq!(json["book"], "read");
    assert!(
        moves_of(&json)
            .values()
            .all(|(v, s)| v.is_null() && s.is_null())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proofs_stored_in_the_book_are_shown_with_the_book_as_their_source() {
    // The book is read again at every request, so the import shows at once.
    let settings = ExactSettings {
        book_max_age: Duration::ZERO,
        ..ExactSettings::default()
    };
    let tablebase = Tablebase::shipped().expect("the shipped tablebase");
    let (cluster, base) = explorer(ExactBoard::new(tablebase, settings).expect("solver")).await;
    // Ten stones: beyond the shipped slices and below the solver's stones, so only the book
    // can know a value here.
    let position = random_opening(11, 10).canonical().position;
    assert!(!position.is_over() && position.stone_count() == 10);
    let before = exact(&base, &position).await.json();
    assert!(
        moves_of(&before)
            .values()
            .all(|(v, s)| v.is_null() && s.is_null()),
        "nothing is known before the import: {before}"
    );
    let proven = position.legal_moves()[0];
    let row = ExportRow {
        position,
        mv: proven,
        source: TableSource::Playouts,
        games: 0,
        wins: 0,
        draws: 0,
        proven: Some(Value::Draw),
        proven_by: Some(ExactSource::Solver),
    };
    pentagrid_client::book::import(&cluster.client(), &[row])
        .await
        .expect("a proven-only import");
    let json = exact(&base, &position).await.json();
    let moves = moves_of(&json);
    assert_eq!(
        moves[&proven.to_string()],
        ("draw".into(), "book".into()),
        "{json}"
    );
    assert!(
        moves
            .values()
            .all(|(v, s)| (v.is_null() && s.is_null()) || (*v == "draw" && *s == "book")),
        "only the imported proof (and moves reaching the same position) is known: {json}"
    );
    assert!(
        json["unknown_moves"].as_u64().expect("a count") > 0,
        "{json}"
    );
    assert!(
        json["value"].is_null(),
        "one drawing move does not decide the position: {json}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn late_positions_are_solved_and_agree_with_the_reference() {
    let (_cluster, base) = explorer(shipped()).await;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/solved-positions.txt"
    );
    let reference: Vec<(Position, i8)> = std::fs::read_to_string(path)
        .expect("reference positions")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (p, v) = l.split_once(' ')?;
            Some((p.parse::<Position>().ok()?, v.trim().parse().ok()?))
        })
        .filter(|(p, _)| p.stone_count() >= 22 && !p.is_over())
        .take(3)
        .collect();
    assert_eq!(
        reference.len(),
        3,
        "reference positions of 22 stones and more"
    );
    for (position, value) in reference {
        let answer = exact(&base, &position).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        let json = answer.json();
        let expected = match value {
            1 => "win",
            0 => "draw",
            _ => "loss",
        };
        assert_eq!(json["value"], expected, "{position}");
        assert_eq!(json["solver"]["method"], "midsolver", "{json}");
        assert_eq!(json["unknown_moves"], 0);
        let moves = moves_of(&json);
        assert!(
            moves.values().any(|(v, _)| *v == expected),
            "a move keeps it"
        );
        assert!(
            moves.values().all(|(_, s)| *s == "solver" || *s == "rules"),
            "{json}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_and_finished_positions() {
    let (_cluster, base) = explorer(shipped()).await;
    for bad in [
        "xx/oo",
        "xxxxxx/....../....../....../....../......",
        "nonsense",
    ] {
        let answer = get(&format!("{base}/api/v1/exact?position={bad}")).await;
        crate::support::assert_bad(&answer, "position");
    }
    let won: Position = "....../....../....../....../oooo../xxxxx."
        .parse()
        .expect("a position");
    let json = exact(&base, &won).await.json();
    assert_eq!(json["status"], "black");
    assert_eq!(json["value"], "loss", "white would move, and black has won");
    assert_eq!(json["source"], "rules");
    assert_eq!(json["moves"].as_array().map(Vec::len), Some(0));
    let stats = get(&format!("{base}/api/v1/exact/solver")).await.json();
    assert_eq!(stats["accepted"], 0, "nothing went to the solver: {stats}");
    assert_eq!(stats["threads"], SolverSettings::default().threads);
}

/// A pool of two threads and three places, with a budget small enough for a test.
fn small_pool() -> ExactBoard {
    let settings = ExactSettings {
        solver: SolverSettings {
            threads: 2,
            queue: 3,
            limits: SolveLimits {
                max_nodes: 50_000,
                max_time: None,
            },
            table_bits: 16,
        },
        ..ExactSettings::default()
    };
    let tablebase = Tablebase::shipped().expect("the shipped tablebase");
    ExactBoard::new(tablebase, settings).expect("solver threads")
}

/// Waits until `done` holds of the pool's counters (the pool answers within seconds; the
/// deadline only turns a hang into a failure).
async fn wait_for_stats(exact: &ExactBoard, done: impl Fn(&SolverStats) -> bool) -> SolverStats {
    let started = Instant::now();
    loop {
        let stats = exact.solver_stats();
        if done(&stats) {
            return stats;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the pool never got there: {stats:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Distinct ongoing 17-stone positions that no source but the solver knows.
fn late_positions(count: usize) -> Vec<Position> {
    let mut positions: Vec<Position> = Vec::new();
    for seed in 0.. {
        let position = random_opening(seed, 17);
        if position.stone_count() == 17 && !positions.contains(&position) {
            positions.push(position);
        }
        if positions.len() == count {
            break;
        }
    }
    positions
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_late_positions_stays_within_the_solver_budget() {
    const FLOOD: usize = 40;
    let pool = small_pool();
    let settings = pool.settings().solver;
    let capacity = settings.threads + settings.queue;
    let (_cluster, base) = explorer(pool.clone()).await;
    let positions = late_positions(FLOOD);
    // The threads are held, so none finishes while the flood arrives: what the pool takes
    // and refuses then depends on its budget only, never on its speed.
    let hold = pool.hold_solver();
    let requests: Vec<_> = positions
        .iter()
        .map(|position| {
            let url = format!("{base}/api/v1/exact?position={position}");
            tokio::spawn(async move { get(&url).await })
        })
        .collect();
    // Held threads still take their first jobs off the queue: wait for that too (under load
    // it can come after the last request is answered).
    let stats = wait_for_stats(&pool, |s| {
        s.accepted + s.refused == FLOOD as u64 && s.running == settings.threads
    })
    .await;
    assert_eq!(stats.accepted, capacity as u64, "{stats:?}");
    assert_eq!(stats.refused, (FLOOD - capacity) as u64, "{stats:?}");
    assert_eq!(stats.running, settings.threads, "{stats:?}");
    assert_eq!(stats.queued, settings.queue, "{stats:?}");
    drop(hold);
    let mut answered = Vec::new();
    let mut refused = Vec::new();
    for (position, request) in positions.iter().zip(requests) {
        let answer = request.await.expect("the request ran");
        match answer.status {
            200 => answered.push((*position, answer.json())),
            503 => {
                assert_eq!(
                    answer.json()["error"]["code"],
                    "solver_busy",
                    "{}",
                    answer.body
                );
                assert_eq!(answer.retry_after, "5");
                refused.push(*position);
            }
            other => panic!("status {other}: {}", answer.body),
        }
    }
    assert_eq!(answered.len(), capacity);
    assert_eq!(refused.len(), FLOOD - capacity);
    for (position, json) in &answered {
        assert_eq!(json["position"], position.to_string());
        assert_eq!(json["solver"]["method"], "alpha-beta");
        let unknown = json["unknown_moves"].as_u64().expect("a count");
        if unknown > 0 {
            assert_eq!(json["unknown"]["code"], "budget", "{json}");
        }
    }
    let stats = pool.solver_stats();
    assert_eq!(stats.finished, capacity as u64, "{stats:?}");
    assert!(stats.peak_running <= settings.threads, "{stats:?}");
    assert_eq!((stats.running, stats.queued), (0, 0));
    // Answers are kept: asking again costs no solve; a refused position is taken now.
    for (position, _) in &answered {
        assert_eq!(exact(&base, position).await.status, 200);
    }
    assert_eq!(pool.solver_stats().accepted, capacity as u64);
    assert_eq!(exact(&base, &refused[0]).await.status, 200);
    let stats = pool.solver_stats();
    assert_eq!(stats.accepted, capacity as u64 + 1, "{stats:?}");
    assert!(stats.peak_running <= settings.threads, "{stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_position_asked_by_many_at_once_is_solved_once() {
    let pool = small_pool();
    let (_cluster, base) = explorer(pool.clone()).await;
    let position = late_positions(1)[0];
    let hold = pool.hold_solver();
    let requests: Vec<_> = (0..12)
        .map(|_| {
            let url = format!("{base}/api/v1/exact?position={position}");
            tokio::spawn(async move { get(&url).await })
        })
        .collect();
    wait_for_stats(&pool, |s| s.accepted == 1).await;
    drop(hold);
    let mut bodies = Vec::new();
    for request in requests {
        let answer = request.await.expect("the request ran");
        assert_eq!(answer.status, 200, "{}", answer.body);
        bodies.push(answer.body);
    }
    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "one answer for all"
    );
    let stats = pool.solver_stats();
    assert_eq!((stats.accepted, stats.refused, stats.finished), (1, 0, 1));
}

/// The colour a board element shows, as the `--win`, `--draw`, `--loss` name its fill has.
const COLOUR_OF: &str = "(function (node) {
    const fill = getComputedStyle(node).fill;
    const root = getComputedStyle(document.documentElement);
    for (const name of ['win', 'draw', 'loss']) {
        const probe = document.createElement('span');
        probe.style.color = root.getPropertyValue('--' + name).trim();
        document.body.append(probe);
        const colour = getComputedStyle(probe).color;
        probe.remove();
        if (colour === fill) return name;
    }
    return 'none';
})";

/// What the board shows for `element` (a CSS selector): its `data-value`, its colour, its title.
async fn shown(browser: &Client, element: &str, colour_of: &str) -> (String, String, String) {
    let node = format!("document.querySelector(\"{element}\")");
    let value = text_of(browser, &format!("{node}.dataset.value || ''")).await;
    let colour = text_of(browser, &format!("{COLOUR_OF}({node}{colour_of})")).await;
    let title = text_of(
        browser,
        &format!("{node}.querySelector('title').textContent"),
    )
    .await;
    (value, colour, title)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_board_in_headless_chromium() {
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let chromedriver = find_program(&["chromedriver"]);
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        skip_without_browser(
            "analysis_board_in_headless_chromium",
            "chromium and chromedriver are not both on the PATH",
        );
        return;
    };
    let (_cluster, base) = explorer(shipped()).await;
    let driver = start_driver(&chromedriver);
    let browser = connect(&driver, &chromium).await;
    let position: Position = THREE_STONES.parse().expect("a position");
    browser
        .goto(&format!("{base}/?position={position}"))
        .await
        .expect("open the board");
    wait_for(&browser, "document.querySelector('#exact .badge')").await;
    screenshot(&browser, "analysis-board").await;
    let side = "white";
    let expected = table_moves(&position);
    let squares: Vec<String> = {
        let mut names: Vec<String> = expected
            .keys()
            .map(|mv| mv.split('-').next().expect("square").to_owned())
            .collect();
        names.sort();
        names.dedup();
        names
    };
    assert_eq!(squares.len(), 33);
    let mut checked = 0;
    for square in &squares {
        let best = expected
            .iter()
            .filter(|(mv, _)| mv.starts_with(&format!("{square}-")))
            .map(|(_, v)| *v)
            .max()
            .expect("moves");
        let (value, colour, title) = shown(
            &browser,
            &format!("g.square[data-square='{square}']"),
            ".querySelector('.hole')",
        )
        .await;
        assert_eq!(
            (value.as_str(), colour.as_str()),
            (best.name(), best.name()),
            "{square}"
        );
        assert!(title.contains(square.as_str()), "{title}");
        click(&browser, &format!("g.square[data-square='{square}']")).await;
        for (mv, value) in expected
            .iter()
            .filter(|(mv, _)| mv.starts_with(&format!("{square}-")))
        {
            let twist = &mv[square.len() + 1..];
            let (shown_value, colour, title) = shown(
                &browser,
                &format!("g.twist[data-twist='{twist}']"),
                ".querySelector('circle')",
            )
            .await;
            assert_eq!(shown_value, value.name(), "{mv}");
            assert_eq!(colour, value.name(), "{mv}: the arrow's colour");
            let words = match value {
                Value::Win => format!("{side} wins"),
                Value::Draw => "a draw".to_owned(),
                Value::Loss => format!("{side} loses"),
            };
            assert!(title.contains(&format!("{mv}: {words} (table)")), "{title}");
            checked += 1;
        }
        // Escape takes the square back: the arrows go, and the next square is clear to click.
        let escape = KeyActions::new("keyboard".into())
            .then(KeyAction::Down {
                value: Key::Escape.into(),
            })
            .then(KeyAction::Up {
                value: Key::Escape.into(),
            });
        browser.perform_actions(escape).await.expect("press Escape");
        wait_for(&browser, "!document.querySelector('g.twist')").await;
    }
    assert_eq!(
        checked,
        position.legal_moves().len(),
        "every move was checked"
    );

    // The drawing move: play it, and the move list and the last move's marks follow.
    let (keep, _) = expected
        .iter()
        .find(|(_, v)| **v == Value::Draw)
        .expect("a move that holds the draw");
    play(&browser, keep).await;
    wait_for(
        &browser,
        "document.querySelector('#movelist button[data-ply=\"1\"]')",
    )
    .await;
    let entry = text_of(
        &browser,
        "document.querySelector('#movelist button.current').textContent",
    )
    .await;
    assert_eq!(entry, format!("1. {keep}"));
    let quadrant = &keep[keep.len() - 2..keep.len() - 1];
    wait_for(
        &browser,
        &format!(
            "document.querySelector('rect.quadrant.last-twist[data-quadrant=\"{quadrant}\"]')"
        ),
    )
    .await;
    let placed = text_of(
        &browser,
        "document.querySelector('circle.last-placed').closest('g.square').dataset.square",
    )
    .await;
    let after = position
        .play(
            position
                .resolve(keep.parse().expect("a move"))
                .expect("legal"),
        )
        .expect("legal");
    let (col, rank) = (placed.as_bytes()[0] - b'a', placed.as_bytes()[1] - b'0');
    let row = usize::from(6 - rank);
    let stone = after
        .to_string()
        .split('/')
        .nth(row)
        .expect("a rank")
        .as_bytes()[usize::from(col)];
    assert_eq!(stone, b'o', "the marked square holds white's new stone");
    // Back to the start of the line from the move list.
    click(&browser, "#movelist button[data-ply='0']").await;
    wait_for(
        &browser,
        "document.querySelectorAll('circle.stone').length === 3",
    )
    .await;
    wait_for(&browser, "!document.querySelector('circle.last-placed')").await;

    // A finished game: its five is marked, and it has one value, by the rules.
    let won = "....../....../....../....../oooo../xxxxx.";
    browser
        .goto(&format!("{base}/?position={won}"))
        .await
        .expect("open a finished game");
    wait_for(
        &browser,
        "document.querySelectorAll('circle.five').length === 5",
    )
    .await;
    wait_for(&browser, "document.querySelector('#exact .badge')").await;
    let summary = text_of(&browser, "document.getElementById('exact').textContent").await;
    assert!(summary.contains("the rules"), "{summary}");
    screenshot(&browser, "analysis-board-five").await;
    browser.close().await.expect("close the browser");
}
