//! The game viewer and the match page's charts in a real headless Chromium: the Elo and LLR
//! charts' ticks are round numbers with labelled axes; a game of the fixture's match, opened
//! from the match page's games, steps by buttons and arrow keys through every position to the
//! end, which is the game's final position as the engine replays it here, showing the time
//! each move took and both clocks. Skipped, with the
//! reason printed, only where Chromium or its driver is not installed.

use fantoccini::Client;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use pentago::Position;

use crate::browser::{
    click, connect, find_program, screenshot, skip_without_browser, start_driver, text_of, wait_for,
};
use crate::support::{FIXTURE_TIME_LIMIT, api, fixture};

/// The number a tick label stands for (`−1,500`, `130k`, `2.5M`), `None` when it does not read.
pub(crate) fn label_value(label: &str) -> Option<f64> {
    let (digits, scale) = match label.chars().last()? {
        'k' => (&label[..label.len() - 1], 1e3),
        'M' => (&label[..label.len() - 1], 1e6),
        _ => (label, 1.0),
    };
    let plain = digits.replace(',', "").replace('−', "-");
    plain.parse::<f64>().ok().map(|v| v * scale)
}

/// The labels of `axis` (`x`, `y` or `y2`) of the chart with id `chart`, in order.
pub(crate) async fn tick_labels(browser: &Client, chart: &str, axis: &str) -> Vec<String> {
    let joined = text_of(
        browser,
        &format!(
            "Array.from(document.querySelectorAll('#{chart} [data-axis={axis}]'), \
             (t) => t.textContent).join('|')"
        ),
    )
    .await;
    joined.split('|').map(str::to_owned).collect()
}

/// Asserts that `labels` are round: evenly spaced by 1, 2 or 5 times a power of ten, each
/// written with no more decimals than that step needs, distinct, and no negative zero.
pub(crate) fn assert_round(what: &str, labels: &[String]) {
    assert!(labels.len() >= 2, "{what}: labels {labels:?}");
    let values: Vec<f64> = labels
        .iter()
        .map(|l| label_value(l).unwrap_or_else(|| panic!("{what}: label {l:?} is not a number")))
        .collect();
    let step = values[1] - values[0];
    assert!(step > 0.0, "{what}: labels {labels:?}");
    let power = 10f64.powi(step.log10().floor() as i32);
    let multiple = step / power;
    assert!(
        [1.0, 2.0, 5.0].iter().any(|m| (multiple - m).abs() < 1e-6),
        "{what}: step {step} is not 1, 2 or 5 × 10^k: {labels:?}"
    );
    for pair in values.windows(2) {
        assert!(
            ((pair[1] - pair[0]) - step).abs() < step * 1e-6,
            "{what}: uneven labels {labels:?}"
        );
    }
    let needed = (-(step.log10().floor() as i32)).max(0) as usize;
    for label in labels {
        let decimals = label.split_once('.').map_or(0, |(_, fraction)| {
            fraction.trim_end_matches(['k', 'M']).len()
        });
        assert!(
            decimals <= needed,
            "{what}: {label:?} has more digits than step {step} needs: {labels:?}"
        );
        assert!(
            !label.starts_with('−') || label_value(label) != Some(0.0),
            "{what}: negative zero in {labels:?}"
        );
    }
    let distinct: std::collections::BTreeSet<&String> = labels.iter().collect();
    assert_eq!(distinct.len(), labels.len(), "{what}: {labels:?}");
}

#[test]
fn round_labels_pass_and_unrounded_ones_fail() {
    let labels = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_round("elo", &labels(&["−300", "−200", "−100", "0", "100"]));
    assert_round("rate", &labels(&["0", "50k", "100k", "150k"]));
    assert_round("llr", &labels(&["−1.0", "−0.5", "0.0", "0.5"]));
    for bad in [
        &["−255", "−72", "111"][..],
        &["0.00", "1.71", "3.42"],
        &["0", "1.0", "2.0"],
        &["0", "3", "6"],
        &["−0", "1"],
    ] {
        let caught = std::panic::catch_unwind(|| assert_round("bad", &labels(bad)));
        assert!(caught.is_err(), "{bad:?} passed");
    }
}

/// Presses `key` (a real key press through WebDriver's actions).
async fn press(browser: &Client, key: Key) {
    let value: char = key.into();
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value })
        .then(KeyAction::Up { value });
    browser.perform_actions(keys).await.expect("press a key");
}

/// Waits until the viewer's board shows `position`.
async fn wait_for_position(browser: &Client, position: &Position) {
    wait_for(browser, &format!("board.position === '{position}'")).await;
}

/// The match page's charts: round ticks on both axes of each, and each axis titled.
async fn charts(browser: &Client, base: &str, id: u64) {
    browser
        .goto(&format!("{base}/matches?id={id}"))
        .await
        .expect("open the match");
    wait_for(
        browser,
        "document.querySelector('#llr-chart polyline[data-series=llr]')",
    )
    .await;
    for chart in ["elo-chart", "llr-chart"] {
        for axis in ["x", "y"] {
            let labels = tick_labels(browser, chart, axis).await;
            assert_round(&format!("{chart} {axis}"), &labels);
        }
    }
    let title = |chart: &str, axis: &str| {
        format!("document.querySelector('#{chart} [data-axis-label={axis}]').textContent")
    };
    assert_eq!(
        text_of(browser, &title("elo-chart", "y")).await,
        "Elo of A over B"
    );
    assert_eq!(
        text_of(browser, &title("elo-chart", "x")).await,
        "pairs played"
    );
    assert_eq!(
        text_of(browser, &title("llr-chart", "y")).await,
        "LLR (natural log)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_viewer_in_headless_chromium() {
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let chromedriver = find_program(&["chromedriver"]);
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        skip_without_browser(
            "game_viewer_in_headless_chromium",
            "chromium and chromedriver are not both on the PATH (apt-get install chromium \
             chromium-driver; .ci/run installs them)",
        );
        return;
    };
    let fixture = fixture();
    let (base, id) = (&fixture.base, fixture.match_id);
    let driver = start_driver(&chromedriver);
    let browser = connect(&driver, &chromium).await;
    charts(&browser, base, id).await;

    // The longest game of the match, opened from the match page's list of games.
    let (index, game) = fixture
        .match_games
        .iter()
        .enumerate()
        .max_by_key(|(_, g)| g.moves.len())
        .expect("stored games");
    let number = index % 2 + 1;
    let row = format!("#games tr[data-pair='{}'][data-game='{number}']", game.pair);
    wait_for(
        &browser,
        &format!("document.querySelector(\"{row} a.view-game\")"),
    )
    .await;
    click(&browser, &format!("{row} a.view-game")).await;
    wait_for(&browser, "typeof board !== 'undefined' && board.position && document.querySelector('#movelist button[data-ply]')").await;
    let url = browser.current_url().await.expect("URL");
    assert_eq!(url.path(), "/game");
    let mut positions = vec![game.opening];
    for mv in &game.moves {
        let next = positions
            .last()
            .unwrap()
            .play(*mv)
            .expect("a stored move plays");
        positions.push(next);
    }
    let last = *positions.last().unwrap();
    let clocks = game
        .clocks(FIXTURE_TIME_LIMIT)
        .expect("a game control's clocks");
    wait_for_position(&browser, &game.opening).await;
    let clock = text_of(&browser, "document.getElementById('clock').textContent").await;
    let start = clocks.start;
    assert!(
        clock.contains(&format!("clocks: black {start} s, white {start} s")),
        "{clock:?}"
    );

    // The opening's exact values (2 stones: the shipped tablebase) colour the board, and the
    // first move played gets its value, the one /exact gives.
    wait_for(
        &browser,
        "document.querySelector('#movelist button[data-ply=\"1\"][data-value]')",
    )
    .await;
    let exact = api(&format!("exact?position={}", game.opening))
        .await
        .json();
    let first = game.moves[0].to_string();
    let value = exact["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == first.as_str())
        .map(|m| m["value"].as_str().unwrap().to_owned())
        .expect("the first move's value");
    assert_eq!(
        text_of(
            &browser,
            "document.querySelector('#movelist button[data-ply=\"1\"]').dataset.value"
        )
        .await,
        value
    );
    assert_ne!(
        text_of(
            &browser,
            "document.querySelectorAll('g.square[data-value]').length"
        )
        .await,
        "0",
        "the empty squares show their values"
    );
    screenshot(&browser, "game-viewer-opening").await;

    // Step to the end with the Next button, one position at a time.
    for (ply, position) in positions.iter().enumerate().skip(1) {
        click(&browser, "#next").await;
        wait_for_position(&browser, position).await;
        assert_eq!(
            text_of(&browser, "document.getElementById('ply-info').textContent").await,
            format!("move {ply} of {}", game.moves.len())
        );
        // The time the move took shows, as stored, and both clocks after it under the
        // fixture match's game control.
        let took = game
            .move_times
            .seconds(ply - 1)
            .expect("the fixture's games are timed");
        let mover = positions[ply - 1].side_to_move().name();
        let [black, white] = clocks.after[ply - 1];
        let clock = text_of(&browser, "document.getElementById('clock').textContent").await;
        assert!(
            clock.contains(&format!(
                "{mover} took {took} s · clocks: black {black} s, white {white} s"
            )),
            "move {ply}: {clock:?}"
        );
        // The last placement is marked, and the twisted quadrant unless the placement won.
        assert_eq!(
            text_of(
                &browser,
                "document.querySelectorAll('circle.last-placed').length"
            )
            .await,
            "1"
        );
    }
    assert_eq!(
        last.status(),
        game.result,
        "the stored result is the final position's"
    );
    assert_eq!(
        text_of(&browser, "document.getElementById('next').disabled").await,
        "true"
    );
    assert!(
        text_of(&browser, "document.getElementById('standing').textContent")
            .await
            .starts_with("End of the game"),
    );
    screenshot(&browser, "game-viewer-end").await;

    // Keys: Home to the opening, → one on, End to the end, ← one back; First and Last too.
    press(&browser, Key::Home).await;
    wait_for_position(&browser, &game.opening).await;
    press(&browser, Key::Right).await;
    wait_for_position(&browser, &positions[1]).await;
    press(&browser, Key::End).await;
    wait_for_position(&browser, &last).await;
    press(&browser, Key::Left).await;
    wait_for_position(&browser, &positions[positions.len() - 2]).await;
    click(&browser, "#first").await;
    wait_for_position(&browser, &game.opening).await;
    click(&browser, "#last").await;
    wait_for_position(&browser, &last).await;
    assert!(
        browser
            .current_url()
            .await
            .unwrap()
            .query()
            .unwrap_or_default()
            .contains(&format!("ply={}", game.moves.len())),
        "the URL keeps the move shown"
    );

    // A game that does not exist says why.
    let pairs = fixture.match_pairs;
    browser
        .goto(&format!("{base}/game?match={id}&pair={pairs}&game=1"))
        .await
        .expect("open a missing game");
    wait_for(
        &browser,
        &format!("document.getElementById('message').textContent.includes('no pair {pairs}')"),
    )
    .await;
    browser.close().await.expect("close the browser");
}
