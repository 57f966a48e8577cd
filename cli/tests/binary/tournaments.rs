//! `pentagrid tournament` and `pentagrid ratings` on an embedded cluster through the real
//! binary: a three-player round robin is played, stored and rated; `status`, `list` and
//! `ratings` reprint it from the database; bad input is refused with a clear error.

use crate::common;

use std::path::Path;

use common::{ok, pentagrid};

fn last_json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.lines().last().expect("output")).expect("JSON")
}

#[test]
fn a_local_round_robin_is_rated_and_reprinted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let local = ["--local", "--db", db];
    let mut start = vec![
        "tournament",
        "start",
        "--player",
        "flat:playouts=40",
        "--player",
        "flat:playouts=10",
        "--player",
        "random",
        "--pairs",
        "2",
        "--anchor",
        "random",
        "--json",
    ];
    start.extend(local);
    let out = ok(&start);
    let id = serde_json::from_str::<serde_json::Value>(out.lines().next().unwrap()).unwrap()
        ["tournament_id"]
        .as_u64()
        .expect("the tournament id");
    let played = last_json(&out);
    assert_eq!(played["tournament_id"], id, "{out}");
    assert_eq!(played["finished"], true);
    assert_eq!(played["pairs_done"], 6);
    assert_eq!(played["matches"].as_array().unwrap().len(), 3);
    let ratings = &played["ratings"];
    assert_eq!(ratings["anchor"], "random");
    let players = ratings["players"].as_array().unwrap();
    assert_eq!(players.len(), 3);
    assert!(players.iter().all(|p| p["games"] == 8), "{ratings}");

    let id = id.to_string();
    let mut status = vec!["tournament", "status", &id, "--anchor", "random", "--json"];
    status.extend(local);
    assert_eq!(last_json(&ok(&status)), played);
    let mut rated = vec!["ratings", "--anchor", "random", "--json"];
    rated.extend(local);
    assert_eq!(&last_json(&ok(&rated)), ratings);
    let mut listed = vec!["tournament", "list"];
    listed.extend(local);
    let text = ok(&listed);
    assert!(
        text.starts_with(&format!("tournament {id}  round-robin  6 of 6 pairs")),
        "{text}"
    );
    status.retain(|a| *a != "--json");
    let text = ok(&status);
    assert!(text.contains("rank  player"), "{text}");
    assert!(text.contains("(anchor)"), "{text}");

    // A match between two players who never met the others: a second group, ranked apart.
    let mut apart = vec![
        "match",
        "--a",
        "f20=flat:playouts=20",
        "--b",
        "f5=flat:playouts=5",
        "--pairs",
        "1",
    ];
    apart.extend(local);
    ok(&apart);
    let mut rated = vec!["ratings", "--anchor", "random"];
    rated.extend(local);
    let text = ok(&rated);
    assert!(
        text.contains("2 groups of players never linked by games"),
        "{text}"
    );
    let group_two = text
        .split("group 2\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let ranks: Vec<&str> = group_two
        .lines()
        .skip(1)
        .take(2)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ranks, ["1", "2"], "{text}");
    assert!(group_two.contains("(group anchor)"), "{text}");
    rated.push("--json");
    let list = last_json(&ok(&rated));
    assert_eq!(
        list["component_anchors"],
        serde_json::json!(["random", "f20=flat:playouts=20"]),
        "{list}"
    );

    for (args, needle) in [
        (
            vec!["ratings", "--anchor", "nobody"],
            "the anchor \"nobody\"",
        ),
        (
            vec!["tournament", "status", "987654"],
            "no tournament 987654",
        ),
    ] {
        let mut args = args;
        args.extend(local);
        let out = pentagrid(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    for args in [
        vec!["tournament", "start", "--player", "random"],
        vec![
            "tournament",
            "start",
            "--player",
            "random",
            "--player",
            "random",
        ],
        vec!["ratings", "--prior-draws", "0"],
        vec![
            "tournament",
            "start",
            "--kind",
            "swiss",
            "--player",
            "random",
        ],
    ] {
        let mut args = args;
        args.extend(local);
        let out = pentagrid(&args);
        assert!(!out.status.success(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

/// An external engine on a cluster of real processes: a coordinator, and a worker process
/// that alone may run `pentagrid gtp` as `engine:pg` (named on its own command line). A
/// tournament mixes it with built-in players; every pair is played, the engine's games are
/// stored with it, and the rating list names all three.
#[test]
fn a_worker_process_plays_its_engine_in_a_mixed_tournament() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "engine-tournament-token\n").unwrap();
    let token = token.to_str().unwrap();
    let (_coordinator, url) = common::coordinator(&dir.path().join("db"), Path::new(token));
    let engine = format!(
        "pg={} gtp --threads 1 --quiet",
        env!("CARGO_BIN_EXE_pentagrid")
    );
    let state = dir.path().join("worker-state");
    let _worker = common::worker(&url, Path::new(token), &state, &["--engine", &engine]);
    let remote = ["--coordinator", url.as_str(), "--token-file", token];
    let mut start = vec![
        "tournament",
        "start",
        "--player",
        "engine:pg",
        "--player",
        "flat:playouts=20",
        "--player",
        "random",
        "--pairs",
        "1",
        "--time",
        "move:0.05",
        "--anchor",
        "random",
        "--json",
    ];
    start.extend(remote);
    let played = last_json(&ok(&start));
    assert_eq!(played["finished"], true, "{played}");
    assert_eq!(played["pairs_done"], 3, "{played}");
    let players: Vec<&str> = played["ratings"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap_or_default())
        .collect();
    assert!(players.contains(&"engine:pg"), "{players:?}");
    assert_eq!(players.len(), 3, "{players:?}");

    // The worker announced its engine with the version the program reported.
    let mut status = vec!["status", "--json"];
    status.extend(remote);
    let status: serde_json::Value = serde_json::from_str(&ok(&status)).unwrap();
    let engines = &status["workers"][0]["engines"];
    assert_eq!(engines[0][0], "pg", "{status}");
    assert!(
        engines[0][1].as_str().unwrap().starts_with("pentagrid"),
        "{status}"
    );
}
