//! `pentagrid gtp` as an external engine on an embedded cluster, through the real binary:
//! `pentagrid match --local --engine pg=…` plays it against a built-in configuration under the
//! referee, stores the match, and `match show` reprints it; a broken engine is a clear error
//! at start-up, and an engine match without a time limit is refused before anything runs.

use crate::common;

use common::{ok, pentagrid};

fn engine_flag() -> String {
    format!(
        "pg={} gtp --config uct:playouts=300 --threads 1",
        env!("CARGO_BIN_EXE_pentagrid")
    )
}

#[test]
fn pentagrid_gtp_plays_a_match_on_the_embedded_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let engine = engine_flag();
    let out = ok(&[
        "match",
        "--a",
        "engine:pg",
        "--b",
        "uct:playouts=300",
        "--pairs",
        "2",
        "--time",
        "move:0.2",
        "--json",
        "--local",
        "--db",
        db,
        "--engine",
        &engine,
    ]);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let games = ["wins", "draws", "losses"]
        .iter()
        .map(|k| last[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(games, 4, "{out}");
    let id = out
        .lines()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?["match_id"].as_u64())
        .unwrap()
        .to_string();
    // Reprinted from the database (no engine needed to read it).
    let shown: serde_json::Value = serde_json::from_str(
        ok(&[
            "match", "show", &id, "--games", "--json", "--local", "--db", db,
        ])
        .lines()
        .last()
        .unwrap(),
    )
    .unwrap();
    assert_eq!(shown["a"], "engine:pg");
    assert_eq!(shown["time_limit"], "move:0.2");
    let games = shown["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    for game in games {
        assert!(game["forfeit"].is_null(), "{game}");
        assert!(!game["moves"].as_array().unwrap().is_empty());
    }
    assert_eq!(games[0]["black"], "engine:pg");
    let text = ok(&["match", "show", &id, "--local", "--db", db]);
    assert!(text.contains("time      move:0.2"), "{text}");
}

#[test]
fn broken_engines_and_untimed_engine_matches_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "match",
            "--a",
            "engine:pg",
            "--b",
            "random",
            "--pairs",
            "1",
            "--local",
            "--db",
            db,
        ];
        args.extend(extra);
        let out = pentagrid(&args);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let engine = engine_flag();
    let (success, stderr) = run(&["--engine", &engine]);
    assert!(!success);
    assert!(stderr.contains("time limit"), "{stderr}");
    // A nanosecond per move would only be a forfeit: refused, with the shortest limit taken.
    let (success, stderr) = run(&["--time", "move:1e-9", "--engine", &engine]);
    assert!(!success);
    assert!(
        stderr.contains("move:1e-9") && stderr.contains("0.001"),
        "{stderr}"
    );
    let (success, stderr) = run(&["--time", "move:0.1", "--engine", "pg=/nonexistent/engine"]);
    assert!(!success);
    assert!(stderr.contains("engine \"pg\" does not work"), "{stderr}");
    let (success, stderr) = run(&["--time", "move:0.1", "--engine", "pg"]);
    assert!(!success);
    assert!(stderr.contains("NAME=COMMAND"), "{stderr}");
    let in_process = pentagrid(&[
        "match",
        "--a",
        "engine:pg",
        "--b",
        "random",
        "--time",
        "move:0.1",
        "--in-process",
    ]);
    assert!(!in_process.status.success());
    let stderr = String::from_utf8_lossy(&in_process.stderr);
    assert!(stderr.contains("only on a cluster"), "{stderr}");
    let file = dir.path().join("engines");
    std::fs::write(&file, "# engines\nbroken line\n").unwrap();
    let (success, stderr) = run(&[
        "--time",
        "move:0.1",
        "--engines-file",
        file.to_str().unwrap(),
    ]);
    assert!(!success);
    assert!(stderr.contains("line 2"), "{stderr}");
}
