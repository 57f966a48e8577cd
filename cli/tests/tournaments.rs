//! `pentagrid tournament` and `pentagrid ratings` on an embedded cluster through the real
//! binary: a three-player round robin is played, stored and rated; `status`, `list` and
//! `ratings` reprint it from the database; bad input is refused with a clear error.

mod common;

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
