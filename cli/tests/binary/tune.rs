//! `pentagrid tune --detach`, `tune list`, `tune show` and `tune stop` through the real binary
//! against a real coordinator process (no workers, so a run stays in its first iteration), and
//! bad runs refused with a clear error before anything is stored.

use crate::common;

use common::{Remote, json};

#[test]
fn runs_are_started_listed_shown_and_stopped_and_bad_ones_refused() {
    let remote = Remote::start("tune-token");
    let run = |args: &[&str]| remote.ok(args);
    let fail = |args: &[&str]| remote.fails(args);
    let tune = [
        "tune",
        "--base",
        "uct:k=0.4,playouts=50",
        "--param",
        "k=0.1..1.0",
        "--param",
        "playouts=10..200",
        "--iterations",
        "20",
        "--pairs-per-iteration",
        "3",
    ];
    let started = run(&[&tune[..], &["--detach", "--json"]].concat());
    let id = json(&started)["tune_id"].as_u64().expect("a run id");

    let list = run(&["tune", "list"]);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 2, "{list}");
    let fields: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        fields,
        [
            id.to_string().as_str(),
            "iterating",
            "0",
            "of",
            "20",
            "1",
            "k=0.4",
            "playouts=50"
        ],
        "{list}"
    );
    let shown = json(&run(&["tune", "show", &id.to_string(), "--json"]));
    assert_eq!(shown["state"], "iterating");
    assert_eq!(shown["param_names"], serde_json::json!(["k", "playouts"]));
    assert_eq!(shown["values"], serde_json::json!([0.4, 50.0]));
    assert_eq!(shown["steps"], serde_json::json!([]));
    assert_eq!(shown["sprt"], "elo0=0,elo1=10,alpha=0.05,beta=0.05");
    assert!(shown["sprt_match"].is_null());
    let text = run(&["tune", "show", &id.to_string()]);
    assert!(
        text.contains(&format!("tuning run {id}: iterating")),
        "{text}"
    );
    assert!(
        text.contains("after 0 of 20 iterations: k=0.4 playouts=50"),
        "{text}"
    );
    // The iteration's match is the run's: `match list` leaves it out.
    assert_eq!(run(&["match", "list"]).trim(), "no matches");

    let stopped = run(&["tune", "stop", &id.to_string()]);
    assert_eq!(
        stopped.trim(),
        format!("tuning run {id} stopped after 0 of 20 iterations: 3 unplayed pairs cancelled")
    );
    let again = fail(&["tune", "stop", &id.to_string()]);
    assert!(again.contains("is stopped, not running"), "{again}");
    let missing = fail(&["tune", "show", "999999"]);
    assert!(missing.contains("no tuning run 999999"), "{missing}");

    for (args, says) in [
        (
            vec!["--param", "colour=1..2"],
            "unknown parameter \"colour\"",
        ),
        (vec!["--param", "k=1..1"], "empty range 1..1 for k"),
        (vec!["--param", "k=0.9..0.2"], "empty range 0.9..0.2 for k"),
        (
            vec!["--param", "playouts=1..1e99"],
            "is outside 1..1000000000000",
        ),
        (
            vec!["--param", "k=0.5..1"],
            "k=0.3, outside the range 0.5..1",
        ),
        (
            vec!["--param", "k=0..1", "--iterations", "0"],
            "iterations must be from 1 to 10000, not 0",
        ),
        (
            vec!["--param", "k=0..1", "--iterations", "99999999999999999999"],
            "--iterations",
        ),
        (
            vec!["--param", "k=0..1", "--c-end", "7"],
            "c_end must be more than 0 and at most 0.5",
        ),
        (
            vec!["--param", "k=0..1", "--pairs-per-iteration", "0"],
            "--pairs-per-iteration must be from 1 to 1000, not 0",
        ),
        (
            vec!["--param", "k=0..1", "--sprt-pairs", "0"],
            "--sprt-pairs must be from 1",
        ),
        (
            vec!["--param", "k=0..1", "--openings", "file:x.txt"],
            "not file:x.txt",
        ),
    ] {
        let mut full = vec!["tune", "--detach"];
        full.extend(args.iter().copied());
        let error = fail(&full);
        assert!(error.contains(says), "{args:?}: {error}");
    }
    // Nothing of the refused runs was stored.
    let listed = json(&run(&["tune", "list", "--json"]));
    assert_eq!(listed["tunes"].as_array().unwrap().len(), 1, "{listed}");
}
