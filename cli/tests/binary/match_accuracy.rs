//! `pentagrid match --accuracy N` on an embedded cluster through the real binary: the workers
//! judge the pairs, the match keeps the counts, and `match show` reprints them from the
//! database; a match without it shows none.

use crate::common;

use common::{ok, pentagrid};

fn last_json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.lines().last().expect("output")).expect("JSON")
}

/// The id a `match --json` run printed first.
fn match_id(out: &str) -> String {
    out.lines()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?["match_id"].as_u64())
        .expect("the match id")
        .to_string()
}

#[test]
fn a_local_match_keeps_accuracy_and_match_show_reprints_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let local = ["--local", "--db", db];
    let mut args = vec![
        "match",
        "--a",
        "perfect:uct:playouts=50",
        "--b",
        "random",
        "--pairs",
        "2",
        "--openings",
        "random:plies=20",
        "--accuracy",
        "22",
        "--json",
    ];
    args.extend(local);
    let out = ok(&args);
    let id = match_id(&out);
    let played = last_json(&out)["accuracy"].clone();
    assert_eq!(played["min_stones"], 22, "{out}");
    assert_eq!(
        played["a"]["drops"], 0,
        "perfect play keeps the value: {out}"
    );
    let judged = played["a"]["moves"].as_u64().unwrap() + played["b"]["moves"].as_u64().unwrap();
    assert!(judged > 0, "{out}");

    let mut show = vec!["match", "show", &id, "--json"];
    show.extend(local);
    assert_eq!(last_json(&ok(&show))["accuracy"], played);
    show.retain(|a| *a != "--json");
    let text = ok(&show);
    let a_line = format!(
        "accuracy  A 100.0% of {} moves from 22+ stones kept the exact value (0 drops)",
        played["a"]["moves"]
    );
    assert!(text.contains(&a_line), "{text}");
    assert!(text.contains("accuracy  B "), "{text}");

    // A match without it shows none.
    let plain = ok(&[
        "match", "--a", "random", "--b", "random", "--pairs", "1", "--json", "--local", "--db", db,
    ]);
    assert!(!plain.contains("accuracy"), "{plain}");
    let id = match_id(&plain);
    let mut show = vec!["match", "show", &id, "--json"];
    show.extend(local);
    let shown = last_json(&ok(&show));
    assert_eq!(shown["a"], "random", "{shown}");
    assert!(shown["accuracy"].is_null(), "{shown}");
}

#[test]
fn accuracy_outside_the_stone_range_is_refused() {
    for stones in ["36", "99", "x"] {
        let out = pentagrid(&[
            "match",
            "--a",
            "random",
            "--b",
            "random",
            "--accuracy",
            stones,
            "--local",
            "--db",
            "/nonexistent/never",
        ]);
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("0 to 35"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn one_even_pair_without_judged_moves_shows_an_open_interval_and_no_share() {
    // Seed 1: the pair is a win each (an even score) and no move is made from 35 stones on.
    let args = [
        "match",
        "--in-process",
        "--a",
        "random",
        "--b",
        "random",
        "--pairs",
        "1",
        "--threads",
        "1",
        "--openings",
        "random:plies=8",
        "--seed",
        "1",
        "--accuracy",
        "35",
    ];
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let out = ok(&json_args);
    // A negative zero serializes as `-0.0`, then a comma or a brace.
    assert!(
        !out.contains("-0.0,") && !out.contains("-0.0}"),
        "no negative zero: {out}"
    );
    let accuracy = last_json(&out)["accuracy"].clone();
    for side in ["a", "b"] {
        assert_eq!(accuracy[side]["moves"], 0, "{out}");
        assert!(
            accuracy[side]["accuracy"].is_null(),
            "nothing judged: {out}"
        );
    }
    let score = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|j| j["pairs"] == 1 && j["elo"].is_object())
        .expect("the score after the pair");
    assert_eq!(score["pentanomial"], serde_json::json!([0, 0, 1, 0, 0]));
    let elo = &score["elo"];
    assert_eq!(elo["elo"], 0.0, "{elo}");
    assert!(elo["low"].as_f64().unwrap() < -100.0, "{elo}");
    assert!(elo["high"].as_f64().unwrap() > 100.0, "{elo}");

    let text = ok(&args);
    assert!(text.contains("elo +0 [-561, +561]"), "{text}");
    assert!(
        text.contains("accuracy  A n/a (no move from 35+ stones judged)"),
        "{text}"
    );
    assert!(!text.contains("% of 0 moves"), "{text}");
}

#[test]
fn accuracy_alone_judges_from_the_first_move_with_the_table() {
    // Random play from openings of two stones: the moves from 2 to 5 stones are judged by
    // the shipped tablebase (four per game, two games), so some are always judged.
    let out = ok(&[
        "match",
        "--in-process",
        "--a",
        "random",
        "--b",
        "random",
        "--pairs",
        "1",
        "--threads",
        "1",
        "--seed",
        "3",
        "--accuracy",
        "--json",
    ]);
    let accuracy = last_json(&out)["accuracy"].clone();
    assert_eq!(accuracy["min_stones"], 0, "{out}");
    let moves = |side: &str| accuracy[side]["moves"].as_u64().unwrap();
    assert!(moves("a") + moves("b") >= 8, "{out}");
}
