//! Named players and game records through the real binary: a match on an embedded cluster
//! between named players writes its games with `--games-out`; `games show`, `replay`, `import`,
//! `export` and `ratings` read them back; self-play and in-process matches write records too; bad record
//! files are refused with the line and reason (or the game and move) and change nothing.

use crate::common;

use std::path::Path;

use common::{ok, pentagrid};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The final positions `games replay --json` prints for `file`.
fn finals(file: &Path) -> Vec<String> {
    ok(&["games", "replay", file.to_str().unwrap(), "--json"])
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["final"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_cluster_match_writes_records_that_read_replay_and_export_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let games = dir.path().join("games.pgr");
    let out = ok(&[
        "match",
        "--local",
        "--db",
        db,
        "--a",
        "fast=uct:playouts=40",
        "--b",
        "rnd=random",
        "--pairs",
        "2",
        "--games-out",
        games.to_str().unwrap(),
    ]);
    assert!(out.contains("A = fast\nB = rnd\n"), "{out}");
    let text = read(&games);
    assert_eq!(text.matches("[Event \"match ").count(), 4, "{text}");
    assert!(
        text.contains("[Black \"fast\"]\n[BlackSpec \"uct:k="),
        "{text}"
    );

    // Listed by name, replayed to finished positions.
    let shown = ok(&["games", "show", games.to_str().unwrap()]);
    assert_eq!(shown.lines().count(), 5, "{shown}");
    assert!(shown.lines().nth(1).unwrap().contains("fast"), "{shown}");
    assert!(shown.lines().all(|l| l.chars().count() <= 80), "{shown}");
    let replayed = ok(&["games", "replay", games.to_str().unwrap()]);
    assert_eq!(replayed.lines().count(), 4, "{replayed}");
    let written = finals(&games);
    assert_eq!(written.len(), 4);

    // The store's export holds the same games (moves, players, results).
    let exported = dir.path().join("exported.pgr");
    let id = out
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("match "))
        .and_then(|l| l.split(':').next())
        .unwrap();
    ok(&[
        "games",
        "export",
        id,
        "--local",
        "--db",
        db,
        "--out",
        exported.to_str().unwrap(),
    ]);
    let mut from_store = finals(&exported);
    let mut streamed = written.clone();
    from_store.sort();
    streamed.sort();
    assert_eq!(from_store, streamed);
    let shown_match = ok(&["match", "show", id, "--local", "--db", db, "--long"]);
    assert!(
        shown_match.contains("A = fast\n    uct:k="),
        "{shown_match}"
    );

    // Imported into another file: checked, appended in pentagrid's layout.
    let collection = dir.path().join("all.pgr");
    let imported = ok(&[
        "games",
        "import",
        games.to_str().unwrap(),
        exported.to_str().unwrap(),
        "--out",
        collection.to_str().unwrap(),
    ]);
    assert!(
        imported.starts_with("imported 8 games from 2 files"),
        "{imported}"
    );
    assert_eq!(finals(&collection).len(), 8);

    // Rated from the records as `ratings` rates the stored match: the same difference.
    let stored: serde_json::Value =
        serde_json::from_str(&ok(&["ratings", "--local", "--db", db, "--json"])).unwrap();
    let rated: serde_json::Value = serde_json::from_str(&ok(&[
        "games",
        "ratings",
        games.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(rated["games_rated"], 4, "{rated}");
    assert_eq!(rated["specs"]["rnd"], "random", "{rated}");
    let difference = |list: &serde_json::Value| list["pairs"][0]["difference"]["elo"].as_f64();
    let (a, b) = (difference(&stored).unwrap(), difference(&rated).unwrap());
    assert!((a - b).abs() < 1e-6, "stored {stored} records {rated}");
    let table = ok(&["games", "ratings", games.to_str().unwrap(), "--long"]);
    assert!(
        table.starts_with("4 games rated from 1 file(s)\n"),
        "{table}"
    );
    assert!(table.contains("  rnd = random"), "{table}");
}

#[test]
fn self_play_and_in_process_matches_write_records() {
    let dir = tempfile::tempdir().unwrap();
    let selfplay = dir.path().join("selfplay.pgr");
    ok(&[
        "selfplay",
        "--games",
        "2",
        "--black",
        "p1=flat:playouts=30",
        "--white",
        "random",
        "--alternate",
        "--threads",
        "1",
        "--games-out",
        selfplay.to_str().unwrap(),
    ]);
    let text = read(&selfplay);
    assert!(text.contains("[Round \"game 2\"]\n"), "{text}");
    assert!(
        text.contains("[White \"p1\"]\n[WhiteSpec \"flat:playouts=30\"]"),
        "{text}"
    );
    assert_eq!(finals(&selfplay).len(), 2);

    let matched = dir.path().join("match.pgr");
    let out = ok(&[
        "match",
        "--in-process",
        "--a",
        "p1=flat:playouts=30",
        "--b",
        "random",
        "--pairs",
        "2",
        "--threads",
        "1",
        "--games-out",
        matched.to_str().unwrap(),
    ]);
    assert!(out.contains("A = p1\nB = random\n"), "{out}");
    assert_eq!(finals(&matched).len(), 4);
}

/// A record whose third move is played on an occupied square.
const ILLEGAL: &str = "[Black \"a\"]\n[White \"b\"]\n[Result \"ongoing\"]\n\n\
                       1. a1-1R b1-1R 2. a1-2L ongoing\n";

#[test]
fn bad_records_are_refused_with_the_line_and_reason_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.pgr");
    let collection = dir.path().join("all.pgr");
    let file = bad.to_str().unwrap();

    std::fs::write(&bad, ILLEGAL).unwrap();
    let out = pentagrid(&["games", "replay", file]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("game 1 (line 1) does not replay"),
        "{stderr}"
    );
    assert!(
        stderr.contains("move 3 (a1-2L) cannot be played"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    let out = pentagrid(&[
        "games",
        "import",
        file,
        "--out",
        collection.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(!collection.exists(), "a refused import writes nothing");
    let out = pentagrid(&["games", "ratings", file]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());

    // Only unfinished games: nothing to rate, said so.
    let unfinished = dir.path().join("unfinished.pgr");
    std::fs::write(&unfinished, ILLEGAL.replace(" 2. a1-2L", "")).unwrap();
    let out = pentagrid(&["games", "ratings", unfinished.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no finished games"), "{stderr}");

    std::fs::write(&bad, ILLEGAL.replace("b1-1R", "b9-1R")).unwrap();
    let out = pentagrid(&["games", "show", file]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 5: bad move \"b9-1R\""), "{stderr}");

    std::fs::write(
        &bad,
        ILLEGAL.replace("[Result \"ongoing\"]", "[Result \"maybe\"]"),
    )
    .unwrap();
    let stderr = String::from_utf8_lossy(&pentagrid(&["games", "show", file]).stderr).into_owned();
    assert!(
        stderr.contains("line 3: bad Result tag \"maybe\""),
        "{stderr}"
    );

    let missing = pentagrid(&["games", "show", "/nonexistent/games.pgr"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot open"));
}
