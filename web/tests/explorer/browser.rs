//! The pages in a real headless Chromium driven over WebDriver: the explorer (click a square and
//! a twist, see the table and the URL change, go back), solving a puzzle by clicks, a match's
//! chart, a tuning run's trajectory, the cluster page and the solitaire page. Screenshots go to `target/screenshots/`. Skipped, with the reason
//! printed, only where Chromium or its driver is not installed.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use pentago::Position;
use serde_json::{Value, json};

use crate::support::{FIRST_MOVE, api, fixture};
use crate::viewer::{assert_round, label_value, tick_labels};

/// The first program of `names` found on the PATH.
pub(crate) fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// A chromedriver process, killed on drop.
pub(crate) struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn start_driver(program: &Path) -> Driver {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new(program)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    }
}

pub(crate) async fn connect(driver: &Driver, chromium: &Path) -> Client {
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--window-size=1280,1000",
            ],
        }),
    );
    let started = Instant::now();
    loop {
        match ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities.clone())
            .connect(&driver.url)
            .await
        {
            Ok(client) => return client,
            Err(error) if started.elapsed() < Duration::from_secs(20) => {
                let _ = error;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("no WebDriver session: {error}"),
        }
    }
}

/// Waits until the JavaScript expression `condition` is true in the page.
pub(crate) async fn wait_for(browser: &Client, condition: &str) {
    let started = Instant::now();
    loop {
        let value = browser
            .execute(&format!("return Boolean({condition});"), vec![])
            .await
            .expect("script");
        if value == Value::Bool(true) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "timed out waiting for {condition}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub(crate) async fn text_of(browser: &Client, expression: &str) -> String {
    browser
        .execute(&format!("return String({expression});"), vec![])
        .await
        .expect("script")
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

pub(crate) async fn click(browser: &Client, css: &str) {
    browser
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

/// Clicks the square and the twist of `mv` (such as `c4-1R`) on the board.
pub(crate) async fn play(browser: &Client, mv: &str) {
    let (square, twist) = mv.split_once('-').expect("full move form");
    click(browser, &format!("g.square[data-square='{square}']")).await;
    click(browser, &format!("g.twist[data-twist='{twist}']")).await;
}

pub(crate) async fn screenshot(browser: &Client, name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot directory");
    let png = browser.screenshot().await.expect("screenshot");
    std::fs::write(dir.join(format!("{name}.png")), png).expect("write screenshot");
}

/// A browser test that cannot run here: under CI (`CI` set, other than `false` or `0`) that is
/// a failure, never a silent pass; elsewhere it says on standard error that it skipped.
pub(crate) fn skip_without_browser(test: &str, why: &str) {
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    assert!(!ci, "{test} cannot run under CI: {why}");
    eprintln!("SKIPPED {test}: {why}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_work_in_headless_chromium() {
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let chromedriver = find_program(&["chromedriver"]);
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        skip_without_browser(
            "pages_work_in_headless_chromium",
            "chromium and chromedriver are not both on the PATH (apt-get install chromium \
             chromium-driver; .ci/run installs them)",
        );
        return;
    };
    let base = &fixture().base;
    let driver = start_driver(&chromedriver);
    let browser = connect(&driver, &chromium).await;
    explorer(&browser, base).await;
    puzzle(&browser, base).await;
    matches(&browser, base).await;
    tune(&browser, base).await;
    ratings(&browser, base).await;
    cluster(&browser, base).await;
    solitaire(&browser, base).await;
    browser.close().await.expect("close the browser");
}

async fn explorer(browser: &Client, base: &str) {
    browser.goto(base).await.expect("open the explorer");
    wait_for(
        browser,
        "document.querySelector('#playouts-table tr[data-move]')",
    )
    .await;
    let rows = "[...document.querySelectorAll('#playouts-table tr[data-move]')].map(r => r.dataset.move).join(' ')";
    let start_rows = text_of(browser, rows).await;
    assert_eq!(
        text_of(browser, "document.getElementById('title').textContent").await,
        "Start position"
    );
    screenshot(browser, "explorer-start").await;

    play(browser, FIRST_MOVE).await;
    let after = Position::START
        .play(
            Position::START
                .resolve(FIRST_MOVE.parse().unwrap())
                .unwrap(),
        )
        .unwrap();
    wait_for(
        browser,
        "document.getElementById('title').textContent === 'After 1 stones'",
    )
    .await;
    wait_for(
        browser,
        "document.querySelector('#playouts-table tr[data-move]')",
    )
    .await;
    let url = browser.current_url().await.expect("URL");
    assert_eq!(
        url.query(),
        Some(format!("position={after}&line={FIRST_MOVE}").as_str())
    );
    assert_ne!(
        text_of(browser, rows).await,
        start_rows,
        "the moves table changed"
    );
    assert_eq!(
        text_of(
            browser,
            "document.querySelectorAll('circle.stone.black').length"
        )
        .await,
        "1"
    );
    screenshot(browser, "explorer-after-move").await;

    click(browser, "#back").await;
    wait_for(browser, "location.search === '' && document.getElementById('title').textContent === 'Start position'").await;
    wait_for(
        browser,
        "document.querySelectorAll('circle.stone').length === 0",
    )
    .await;
    assert_eq!(text_of(browser, rows).await, start_rows);
    // A bad pasted position says what is wrong and stays put.
    let input = browser
        .find(Locator::Id("paste-text"))
        .await
        .expect("paste box");
    input.clear().await.expect("clear");
    input.send_keys("xx/oo").await.expect("type");
    click(browser, "#paste button").await;
    wait_for(
        browser,
        "document.getElementById('message').textContent.includes('bad position')",
    )
    .await;
    assert_eq!(browser.current_url().await.unwrap().query(), None);
}

/// The defence the page answers with: the reply needing the longest answer (the first of equals).
fn hardest_reply(replies: &[Value]) -> &Value {
    let depth = |reply: &Value| reply["then"]["depth"].as_u64().unwrap_or(0);
    replies.iter().fold(&replies[0], |best, reply| {
        if depth(reply) > depth(best) {
            reply
        } else {
            best
        }
    })
}

async fn puzzle(browser: &Client, base: &str) {
    let puzzle = fixture().longest_puzzle();
    assert!(puzzle.mate_in >= 2, "a puzzle where the defender answers");
    let id = format!("{:016x}", puzzle.position.key().bits());
    let detail = api(&format!("puzzles/{id}")).await.json();
    browser
        .goto(&format!("{base}/puzzles?id={id}"))
        .await
        .expect("open the puzzle");
    wait_for(
        browser,
        "document.getElementById('message').textContent.includes('mate in')",
    )
    .await;
    // A wrong first move is refused.
    let root = &detail["solution"];
    let right: Vec<&str> = std::iter::once(root["move"].as_str().unwrap())
        .chain(
            root["same"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str),
        )
        .chain(
            root["symmetric"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str),
        )
        .collect();
    let wrong = puzzle
        .position
        .legal_moves()
        .iter()
        .map(ToString::to_string)
        .find(|mv| !right.contains(&mv.as_str()))
        .expect("a losing move");
    play(browser, &wrong).await;
    wait_for(
        browser,
        "document.getElementById('message').textContent.includes('not the solution')",
    )
    .await;
    // The solution, answered by the defender from the proof tree.
    let mut node = root.clone();
    loop {
        play(browser, node["move"].as_str().unwrap()).await;
        let replies = node["replies"].as_array().unwrap().clone();
        if replies.is_empty() {
            break;
        }
        let reply = hardest_reply(&replies).clone();
        if reply["then"].is_null() {
            break;
        }
        let after = reply["after"].as_str().unwrap();
        wait_for(
            browser,
            "document.getElementById('message').textContent.includes('Your move')",
        )
        .await;
        assert_eq!(
            text_of(browser, "board.position").await,
            after,
            "the defender answered from the proof"
        );
        node = reply["then"].clone();
    }
    wait_for(
        browser,
        "document.getElementById('message').dataset.solved === 'true'",
    )
    .await;
    assert!(
        text_of(browser, "document.getElementById('message').textContent")
            .await
            .starts_with("Solved")
    );
    click(browser, "#show-solution").await;
    wait_for(browser, "!document.getElementById('solution').hidden").await;
    assert_eq!(
        text_of(browser, "document.getElementById('main-line').textContent").await,
        detail["main_line"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    );
    screenshot(browser, "puzzle-solved").await;
}

async fn matches(browser: &Client, base: &str) {
    let id = fixture().match_id;
    browser
        .goto(&format!("{base}/matches?id={id}"))
        .await
        .expect("open the match");
    wait_for(
        browser,
        "document.querySelector('#elo-chart polyline[data-series=elo]')",
    )
    .await;
    let points = text_of(
        browser,
        "document.querySelector('#elo-chart polyline[data-series=elo]').getAttribute('points')",
    )
    .await;
    let detail = api(&format!("matches/{id}")).await.json();
    let with_elo = detail["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| !h["elo"]["elo"].is_null())
        .count();
    assert_eq!(
        points.split_whitespace().count(),
        with_elo,
        "one chart point per pair"
    );
    wait_for(
        browser,
        "document.querySelector('#llr-chart polyline[data-series=llr]')",
    )
    .await;
    assert!(
        text_of(
            browser,
            "document.getElementById('match-title').textContent"
        )
        .await
        .contains(&format!("Match {id}"))
    );
    let pentanomial = text_of(
        browser,
        "[...document.querySelectorAll('#pentanomial td')].map(t => t.textContent).join(',')",
    )
    .await;
    let expected: Vec<String> = detail["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(pentanomial, expected.join(","));
    // Each player's accuracy against perfect play, as the API gives it.
    let shown = text_of(
        browser,
        concat!(
            "[...document.querySelectorAll('#accuracy [data-side] span')]",
            ".map(s => s.textContent).join('; ')"
        ),
    )
    .await;
    let side = |name: &str, key: &str| {
        let side = &detail["accuracy"][key];
        let (moves, drops) = (
            side["moves"].as_u64().unwrap(),
            side["drops"].as_u64().unwrap(),
        );
        format!(
            "{name}: {} of {moves} moves kept the value ({drops} drops)",
            moves - drops
        )
    };
    assert_eq!(shown, format!("{}; {}", side("A", "a"), side("B", "b")));
    screenshot(browser, "match").await;
}

/// The fixture's tuning run: the list links to it, and its page charts each parameter's value
/// after every iteration, as the API gives them.
async fn tune(browser: &Client, base: &str) {
    let id = fixture().tune_id;
    browser
        .goto(&format!("{base}/tunes"))
        .await
        .expect("open the tuning runs");
    wait_for(
        browser,
        &format!("document.querySelector('#tune-list tr[data-id=\"{id}\"]')"),
    )
    .await;
    click(browser, &format!("#tune-list tr[data-id=\"{id}\"] a")).await;
    wait_for(
        browser,
        "document.querySelector('svg[data-param=playouts] polyline[data-series=playouts]')",
    )
    .await;
    let detail = api(&format!("tunes/{id}")).await.json();
    let points = text_of(
        browser,
        "document.querySelector('svg[data-param=playouts] polyline').getAttribute('points')",
    )
    .await;
    assert_eq!(
        points.split_whitespace().count(),
        detail["steps"].as_array().unwrap().len() + 1,
        "the start and one chart point per iteration"
    );
    let title = text_of(browser, "document.getElementById('tune-title').textContent").await;
    assert_eq!(title, format!("Tuning run {id}: playouts"));
    let tuned = text_of(browser, "document.getElementById('tuned').textContent").await;
    assert_eq!(tuned, detail["tuned"].as_str().unwrap());
    screenshot(browser, "tune").await;
}

/// The overall rating list and the fixture's tournament, as the API gives them.
async fn ratings(browser: &Client, base: &str) {
    let id = fixture().match_id;
    browser
        .goto(&format!("{base}/ratings"))
        .await
        .expect("open the ratings");
    wait_for(
        browser,
        "document.querySelector('#tournament-list tbody tr')",
    )
    .await;
    let listed = text_of(
        browser,
        "document.querySelector('#tournament-list tbody tr').dataset.id",
    )
    .await;
    assert_eq!(listed, id.to_string());
    browser
        .goto(&format!("{base}/ratings?tournament={id}"))
        .await
        .expect("open the tournament");
    wait_for(
        browser,
        "document.querySelector('#tournament-ratings tbody tr')",
    )
    .await;
    let players = text_of(
        browser,
        "[...document.querySelectorAll('#tournament-ratings tbody tr')].map(r => r.dataset.player).join(',')",
    )
    .await;
    let detail = api(&format!("tournaments/{id}")).await.json();
    let expected: Vec<&str> = detail["ratings"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(players, expected.join(","));
    assert!(
        text_of(
            browser,
            "document.getElementById('tournament-title').textContent"
        )
        .await
        .contains(&format!("Tournament {id}"))
    );
    screenshot(browser, "ratings").await;
}

async fn cluster(browser: &Client, base: &str) {
    browser
        .goto(&format!("{base}/cluster"))
        .await
        .expect("open the cluster page");
    wait_for(
        browser,
        "document.querySelector('#workers tr[data-worker]')",
    )
    .await;
    wait_for(
        browser,
        "document.querySelector('#throughput-chart text, #throughput-chart polyline')",
    )
    .await;
    let done = text_of(
        browser,
        "document.querySelector('[data-stat=done] b').textContent",
    )
    .await;
    assert_ne!(done, "0");
    // The fixture's match is over: the running matches' table says there is none.
    assert_eq!(
        text_of(
            browser,
            "document.querySelector('#matches tbody').textContent"
        )
        .await,
        "no running matches"
    );
    // The throughput chart, once it has a rate (the server samples every 5 seconds): two
    // units on two titled axes, playouts/s on the left and jobs/min on the right, each with
    // round ticks from 0 (a rate is never negative); the x-axis says how long ago, each label
    // once.
    wait_for(
        browser,
        "document.querySelector('#throughput-chart [data-axis=x]')",
    )
    .await;
    let x = tick_labels(browser, "throughput-chart", "x").await;
    let distinct: std::collections::BTreeSet<&String> = x.iter().collect();
    assert_eq!(distinct.len(), x.len(), "x labels {x:?}");
    assert!(x.iter().all(|l| l.parse::<u32>().is_ok()), "x labels {x:?}");
    for axis in ["y", "y2"] {
        let labels = tick_labels(browser, "throughput-chart", axis).await;
        assert_round(&format!("throughput {axis}"), &labels);
        assert_eq!(
            label_value(&labels[0]),
            Some(0.0),
            "{axis} starts at 0: {labels:?}"
        );
    }
    let title = |axis: &str| {
        format!("document.querySelector('#throughput-chart [data-axis-label={axis}]').textContent")
    };
    assert_eq!(text_of(browser, &title("y")).await, "playouts / s");
    assert_eq!(text_of(browser, &title("y2")).await, "jobs / min");
    let ago = text_of(browser, &title("x")).await;
    assert!(
        ["seconds ago", "minutes ago"].contains(&ago.as_str()),
        "{ago}"
    );
    screenshot(browser, "cluster").await;
}

/// The fixture's solitaire job (30 deals of the random player) as the page's one row.
async fn solitaire(browser: &Client, base: &str) {
    browser
        .goto(&format!("{base}/solitaire"))
        .await
        .expect("open the solitaire page");
    let row =
        "document.querySelector('#solitaire-totals tr[data-player=random][data-variant=standard]')";
    wait_for(browser, row).await;
    let cells = text_of(
        browser,
        &format!("Array.from({row}.cells, (c) => c.textContent).join('|')"),
    )
    .await;
    let cells: Vec<&str> = cells.split('|').collect();
    assert_eq!(cells[..3], ["standard", "random", "30"], "{cells:?}");
    // The success rate with its interval: `R% (L% to H%)`.
    assert!(
        cells[4].contains("% (") && cells[4].ends_with("%)"),
        "{cells:?}"
    );
    screenshot(browser, "solitaire").await;
}
