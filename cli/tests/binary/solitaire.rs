//! Runs the real `pentagrid solitaire` binary: bench and play output, agreement with the engine,
//! and bad arguments.

use crate::common;

use std::process::{Command, Output};

use pentagrid_calculation::{Move, Observation, Player, Table, Variant, bench};

fn pentagrid(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pentagrid"))
        .arg("solitaire")
        .args(args)
        .output()
        .expect("run pentagrid")
}

fn ok(args: &[&str]) -> String {
    let out = pentagrid(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).expect("one JSON object")
}

fn fails(args: &[&str]) -> String {
    let out = pentagrid(args);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(
        out.stdout.is_empty(),
        "{args:?}: nothing printed before the error"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn play_shows_the_deal_move_by_move_and_the_moves_replay() {
    let text = ok(&["play", "--deal", "1", "--player", "strategy"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "deal 1 · standard · strategy");
    // Deal 1's first card is a K (the pinned shuffle); the strategy puts it on the king pile.
    assert_eq!(lines[1], "   1. s>w4   f=A,2,3,4 w=-,-,-,- t=K s=47");
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("won · 52 of 52") || last.starts_with("lost · "),
        "{last}"
    );

    let record = json(&["play", "--deal", "1", "--player", "strategy", "--json"]);
    let moves = record["moves"].as_array().unwrap();
    assert_eq!(
        moves.len() + 3,
        lines.len(),
        "one line per move in both forms"
    );
    let mut table = Table::deal(Variant::Standard, 1);
    for step in moves {
        let seen: Observation = step["table"].as_str().unwrap().parse().unwrap();
        assert_eq!(&seen, table.observation());
        let mv: Move = step["move"].as_str().unwrap().parse().unwrap();
        table.play(mv).expect("a legal move");
    }
    assert!(table.legal_moves().is_empty(), "the game was played out");
    assert_eq!(record["end"], table.observation().to_string());
    assert_eq!(record["won"], table.outcome().won);
    assert_eq!(record["foundation_cards"], table.outcome().foundation_cards);
}

#[test]
fn play_deals_each_variant_as_documented() {
    let first = |variant: &str| {
        let record = json(&[
            "play",
            "--deal",
            "1",
            "--player",
            "random",
            "--variant",
            variant,
            "--json",
        ]);
        record["moves"][0]["table"].as_str().unwrap().to_owned()
    };
    assert_eq!(first("standard"), "f=A,2,3,4 w=-,-,-,- t=K s=47");
    assert_eq!(first("superman"), "f=A,2,3,4 w=-,-,- t=K s=47");
    assert_eq!(first("computer"), "f=-,-,-,- w=-,-,-,- t=Q s=51");
}

#[test]
fn a_search_plays_a_deal_reproducibly() {
    let args = [
        "play",
        "--deal",
        "5",
        "--player",
        "uct:playouts=50",
        "--threads",
        "1",
        "--json",
    ];
    let a = json(&args);
    assert_eq!(a, json(&args));
    assert_eq!(a["player"], "uct:playouts=50,k=0.45");
    assert!(a["playouts"].as_u64().unwrap() > 0);
}

#[test]
fn bench_prints_the_engines_figures_with_intervals() {
    let out = json(&[
        "bench", "--player", "random", "--deals", "1..41", "--seed", "3", "--json",
    ]);
    let expected = bench(Variant::Standard, &Player::Random, 1..41, 3).unwrap();
    assert_eq!(out["deals"]["count"], 40);
    assert_eq!(out["wins"], expected.wins);
    let mean = out["foundation_cards"]["mean"].as_f64().unwrap();
    assert!((mean - expected.foundation_cards.mean).abs() < 1e-9);
    let (low, high) = (
        out["foundation_cards"]["low"].as_f64().unwrap(),
        out["foundation_cards"]["high"].as_f64().unwrap(),
    );
    assert!(4.0 <= low && low <= mean && mean <= high && high <= 52.0);
    let rate = &out["success"];
    assert!(rate["low"].as_f64() <= rate["rate"].as_f64());
    assert!(rate["rate"].as_f64() <= rate["high"].as_f64());
    // The thread count does not change the figures; the inclusive form names the same deals.
    let again = json(&[
        "bench",
        "--player",
        "random",
        "--deals",
        "1..=40",
        "--seed",
        "3",
        "--threads",
        "1",
        "--json",
    ]);
    assert_eq!(again["foundation_cards"], out["foundation_cards"]);

    let text = ok(&[
        "bench",
        "--player",
        "strategy",
        "--deals",
        "0..20",
        "--variant",
        "superman",
    ]);
    assert!(text.contains("variant           superman"), "{text}");
    assert!(text.contains("success rate      "), "{text}");
    assert!(text.contains("foundation cards  "), "{text}");
}

#[test]
fn bad_arguments_are_refused_clearly() {
    let cases: [(&[&str], &str); 9] = [
        (
            &["bench", "--player", "random", "--deals", "5..5"],
            "holds no deal",
        ),
        (&["bench", "--player", "random", "--deals", "a..b"], "A..B"),
        (
            &[
                "bench",
                "--player",
                "random",
                "--deals",
                "0..=18446744073709551615",
            ],
            "ends at deal 18446744073709551614 at most",
        ),
        (
            &["bench", "--player", "random", "--deals", "0..2000000000"],
            "more than",
        ),
        (
            &["bench", "--player", "uct:playouts=0", "--deals", "1..2"],
            "playouts=N",
        ),
        (
            &["bench", "--player", "wizard", "--deals", "1..2"],
            "unknown solitaire player",
        ),
        (
            &[
                "bench",
                "--player",
                "random",
                "--deals",
                "1..2",
                "--variant",
                "hyper",
            ],
            "unknown variant",
        ),
        (&["play", "--deal", "-1", "--player", "random"], "--deal"),
        (
            &[
                "play",
                "--deal",
                "1",
                "--player",
                "random",
                "--threads",
                "0",
            ],
            "--threads must be from 1 to 1024",
        ),
    ];
    for (args, expected) in cases {
        let stderr = fails(args);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let long = format!("uct:playouts={}", "9".repeat(100_000));
    let stderr = fails(&["play", "--deal", "1", "--player", &long]);
    assert!(stderr.len() < 1_000, "the bad text is not echoed whole");
}

/// `campaign --local`: an embedded cluster in the process plays the deals; the database keeps
/// each deal once, so a second, overlapping campaign adds only its new deals, and the totals
/// agree with `bench` over the same deals. A bad range is refused before any database exists.
#[test]
fn local_campaigns_keep_each_deal_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let campaign = |deals: &str| {
        json(&[
            "campaign",
            "--player",
            "random",
            "--variant",
            "computer",
            "--deals",
            deals,
            "--local",
            "--db",
            db,
            "--json",
        ])
    };
    let first = campaign("0..30");
    assert_eq!(first["jobs"]["done"], 1);
    assert_eq!(first["totals"]["deals"], 30);
    let second = campaign("20..=44");
    let expected = bench(Variant::Computer, &Player::Random, 0..45, 1).unwrap();
    assert_eq!(second["totals"]["deals"], 45, "{second}");
    assert_eq!(second["totals"]["wins"], expected.wins);
    let mean = second["totals"]["foundation_cards"]["mean"]
        .as_f64()
        .unwrap();
    assert!(
        (mean - expected.foundation_cards.mean).abs() < 1e-9,
        "{second}"
    );

    let text = ok(&[
        "campaign",
        "--player",
        "random",
        "--variant",
        "computer",
        "--deals",
        "0..5",
        "--local",
        "--db",
        db,
    ]);
    assert!(text.contains("1 jobs done, 0 failed"), "{text}");
    assert!(text.contains("45 deals"), "{text}");

    let fresh = dir.path().join("never");
    let stderr = fails(&[
        "campaign",
        "--player",
        "random",
        "--deals",
        "0..2000000",
        "--local",
        "--db",
        fresh.to_str().unwrap(),
    ]);
    assert!(stderr.contains("1000000 deals"), "{stderr}");
    assert!(!fresh.exists(), "nothing was opened");
}

/// A campaign against a coordinator: real coordinator and worker processes play the deals,
/// and `pentagrid status` shows the (variant, player) totals as text and JSON.
#[test]
fn a_campaign_against_a_coordinator_shows_in_status() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "solitaire-campaign-token\n").unwrap();
    let (_coordinator, url) = common::coordinator(&dir.path().join("db"), &token);
    let _worker = common::worker(&url, &token, &dir.path().join("worker-state"), &[]);
    let token = token.to_str().unwrap();
    let remote = ["--coordinator", url.as_str(), "--token-file", token];
    let mut campaign = vec![
        "campaign",
        "--player",
        "strategy",
        "--variant",
        "superman",
        "--deals",
        "1..=40",
        "--json",
    ];
    campaign.extend(remote);
    let played = json(&campaign);
    let expected = bench(Variant::Superman, &Player::Strategy, 1..41, 1).unwrap();
    assert_eq!(played["totals"]["deals"], 40, "{played}");
    assert_eq!(played["totals"]["wins"], expected.wins, "{played}");

    let mut status = vec!["status"];
    status.extend(remote);
    let text = common::ok(&status);
    assert!(
        text.contains("solitaire 1 (variant, player) pairs"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("superman") && l.contains("strategy"))
        .unwrap_or_else(|| panic!("no totals line: {text}"));
    assert!(line.contains("40 deals"), "{line}");
    status.push("--json");
    let status: serde_json::Value = serde_json::from_str(&common::ok(&status)).unwrap();
    assert_eq!(status["solitaire"][0]["deals"], 40, "{status}");
}
