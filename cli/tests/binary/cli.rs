//! Runs the real `pentagrid` binary: output formats, batch input and bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn pentagrid(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pentagrid"))
        .args(args)
        .env_remove("PENTAGRID_TOKEN_FILE")
        .env_remove("PENTAGRID_TABLEBASE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pentagrid");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("run pentagrid")
}

fn ok(args: &[&str]) -> String {
    let out = pentagrid(args, "");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn fails(args: &[&str], stdin: &str) -> String {
    let out = pentagrid(args, stdin);
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(out.stdout.is_empty(), "nothing printed before the error");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn show_draws_quadrants_and_status() {
    let out = ok(&["show", "x...../....../....../....../....../.....o"]);
    assert!(out.contains("6 | x . . | . . . | 6"), "{out}");
    assert!(out.contains("+-------+-------+"));
    assert!(out.contains("black to move · ongoing · 2 stones"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&ok(&["show", "start", "--json"])).unwrap();
    assert_eq!(json["to_move"], "black");
    assert_eq!(json["status"], "ongoing");
}

#[test]
fn play_prints_one_line_per_move() {
    let out = ok(&["play", "c4-1R", "d3-2l"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "1 c4-1R ....../....../x...../....../....../...... ongoing",
            "2 d3-2L ....../....../x...../...o../....../...... ongoing",
        ]
    );
    let win = ok(&[
        "play",
        "--from",
        "....../....../....../....../oooo../xxxx..",
        "e1",
    ]);
    assert_eq!(
        win.trim(),
        "9 e1-1R ....../....../....../....../oooo../xxxxx. black"
    );
}

#[test]
fn illegal_move_names_the_move_and_why() {
    let out = pentagrid(&["play", "b5-1R", "b5-2R"], "");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("b5-2R") && stderr.contains("occupied"),
        "{stderr}"
    );
    let stderr = fails(&["play", "c4-9R"], "");
    assert!(stderr.contains("9R"), "{stderr}");
}

#[test]
fn canonical_reads_standard_input() {
    let out = pentagrid(
        &["canonical", "-"],
        "x...../....../....../....../....../......\n\n.....x/....../....../....../....../......\n",
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0], lines[1], "corner images share a canonical form");
}

#[test]
fn bad_positions_fail_cleanly() {
    let stderr = fails(&["show", "xx/../"], "");
    assert!(stderr.contains("ranks"), "{stderr}");
    let stderr = fails(
        &["canonical", "-"],
        "start\noo..../....../....../....../....../......\n",
    );
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(stderr.contains("impossible stone counts"), "{stderr}");
    fails(&["playouts", "--games", "0"], "");
    fails(&["playouts", "--games", "10", "--policy", "greedy"], "");
    fails(&["perft", "two"], "");
}

#[test]
fn huge_arguments_are_refused_without_being_echoed() {
    // Linux takes at most 128 KiB in one argument.
    let huge = "x".repeat(100_000);
    for args in [
        vec!["show", huge.as_str()],
        vec!["playouts", "--games", huge.as_str()],
    ] {
        let stderr = fails(&args, "");
        assert!(stderr.contains("100000 bytes long"), "{stderr}");
        assert!(
            stderr.len() < 400,
            "the error stays short: {} bytes",
            stderr.len()
        );
    }
}

#[test]
fn perft_counts_match_the_rules() {
    let out = ok(&["perft", "2", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["sequences"], 288 * 280);
}

#[test]
fn playouts_report_statistics() {
    let out = ok(&["playouts", "--games", "20000", "--seed", "3", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let total = json["black_wins"].as_u64().unwrap()
        + json["white_wins"].as_u64().unwrap()
        + json["draws"].as_u64().unwrap();
    assert_eq!(total, 20_000);
    let again = ok(&[
        "playouts",
        "--games",
        "20000",
        "--seed",
        "3",
        "--json",
        "--threads",
        "1",
    ]);
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(
        json["black_wins"], again["black_wins"],
        "same seed, same games"
    );
}

#[test]
fn analyze_prints_table_best_move_and_pv() {
    let out = ok(&[
        "analyze",
        "start",
        "--playouts",
        "20000",
        "--threads",
        "1",
        "--top",
        "3",
        "--no-tablebase",
    ]);
    assert!(out.contains("move") && out.contains("win%"), "{out}");
    assert!(out.contains("best      "), "{out}");
    assert!(out.contains("pv        "), "{out}");
    assert!(out.contains("sims/s"), "{out}");
    // With the tablebase (the default) the start is decided without a playout, by a move that
    // keeps the first player's win.
    let exact = ok(&["analyze", "start", "--playouts", "20000", "--json"]);
    let exact: serde_json::Value = serde_json::from_str(exact.trim()).unwrap();
    assert_eq!(exact["simulations"], 0, "{exact}");
    assert_eq!(exact["value"], 1, "{exact}");
    let table = ok(&["tablebase", "probe", "start", "--json"]);
    let table: serde_json::Value = serde_json::from_str(table.trim()).unwrap();
    let best = &exact["best"];
    let kept = table["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| &m["move"] == best);
    assert_eq!(kept.unwrap()["value"], 1, "{best} keeps the win");
    let stderr = fails(&["analyze", "-", "--playouts", "5000", "--json"], "");
    assert!(stderr.contains("no positions"), "{stderr}");
}

#[test]
fn analyze_json_reads_batches() {
    let out = pentagrid(
        &[
            "analyze",
            "-",
            "--playouts",
            "3000",
            "--json",
            "--seed",
            "4",
        ],
        "start\n....../....../....../....../oooo../xxxx..\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let results: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["moves"].as_array().unwrap().len(), 6);
    assert_eq!(results[1]["value"], 1, "black wins at once");
    assert!(results[1]["best"].as_str().unwrap().starts_with("e1-"));
}

#[test]
fn analyze_refuses_bad_configs_and_finished_games() {
    let stderr = fails(&["analyze", "start", "--config", "uct:k=banana"], "");
    assert!(stderr.contains("banana"), "{stderr}");
    let stderr = fails(
        &["analyze", "....../....../....../....../oooo../xxxxx."],
        "",
    );
    assert!(stderr.contains("over"), "{stderr}");
    fails(&["analyze", "start", "--playouts", "0"], "");
}

#[test]
fn selfplay_prints_games_and_a_score() {
    let out = ok(&[
        "selfplay",
        "--games",
        "2",
        "--black",
        "uct:playouts=500",
        "--white",
        "random",
        "--alternate",
        "--threads",
        "1",
    ]);
    assert!(out.contains("game 1: "), "{out}");
    assert!(out.contains("game 2: "), "{out}");
    assert!(out.contains("A scored"), "{out}");
    fails(&["selfplay", "--black", "minimax"], "");
}

#[test]
fn solve_prints_value_and_best_move() {
    let out = ok(&["solve", "....../....../....../....../oooo../xxxx.."]);
    assert!(out.contains(" win best e1-"), "{out}");
    let out = pentagrid(
        &["solve", "-", "--json"],
        "x....x/x...../x...../....../....../.oooo.\n....../....../....../....../oooo../xxxx..\n",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let values: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["solution"]["value"].clone())
        .collect();
    assert_eq!(values, [-1, 1]);
    // Seven stones: beyond the shipped tablebase (0–6), so the search decides, within 500 nodes.
    let out = ok(&[
        "solve",
        "x..o../....../..x.../...o../....x./.o..x.",
        "--max-nodes",
        "500",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        json["solution"]["value"],
        serde_json::Value::Null,
        "unknown, not a guess"
    );
    fails(&["solve", "start", "--max-nodes", "0"], "");
    fails(&["solve", "start", "--table-bits", "60"], "");
}

#[test]
fn mate_prints_the_proof_tree() {
    let position = "oo.x.o/xo.ox./x..o.x/...xxo/..x.xo/o..o.x";
    let out = ok(&["mate", position, "--max-moves", "3", "--all"]);
    assert!(out.contains("black mates in 2: e1-1R"), "{out}");
    assert!(out.contains("mating moves: "), "{out}");
    let out = ok(&["mate", position, "--max-moves", "3", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["proof"]["mate_in"], 2);
    assert_eq!(json["proof"]["tree"]["move"], "e1-1R");
    let out = ok(&["mate", "start", "--max-moves", "2"]);
    assert!(out.contains("no mate within 2"), "{out}");
    fails(&["mate", "start", "--max-moves", "0"], "");
    fails(&["mate", "start", "--max-moves", "99"], "");
}

#[test]
fn run_plays_a_campaign_and_keeps_its_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data");
    let args = [
        "run",
        "--db",
        db.to_str().unwrap(),
        "--games",
        "2",
        "--selfplay",
        "uct:playouts=200",
        "--playouts",
        "2000",
        "--depth",
        "1",
        "--puzzles",
        "1",
    ];
    let out = ok(&args);
    assert!(out.contains("  puzzles "), "{out}");
    assert!(
        out.contains("Monica's five study") && out.contains("Triple power study"),
        "{out}"
    );
    let page = std::fs::read_to_string(db.join("puzzles.html")).unwrap();
    assert!(page.contains("<svg"), "at least one puzzle on the page");
    assert!(out.contains("summary"), "{out}");
    // Two self-play games, and two from each study.
    assert!(out.contains("games stored  6 (total 6)"), "{out}");
    assert!(out.contains("playouts (UCT analyses):"), "{out}");
    // Every listed defence is followed by black's plan from the book.
    let defences: Vec<&str> = out.lines().filter(|l| l.contains("white scores")).collect();
    assert!(!defences.is_empty(), "{out}");
    for line in defences {
        assert!(
            line.contains("; then "),
            "a defence without a book line: {line}"
        );
    }
    assert!(!out.contains("no book line"), "{out}");
    // A second run adds to the same database; --json gives the summary as one object. It
    // mines no puzzles: finding one more that is new gets slower as the collection grows.
    let mut json_args = args.to_vec();
    *json_args.last_mut().expect("--puzzles 1") = "0";
    json_args.push("--json");
    let again: serde_json::Value = serde_json::from_str(&ok(&json_args)).unwrap();
    assert_eq!(
        (
            again["games_stored"].as_u64(),
            again["games_total"].as_u64()
        ),
        (Some(6), Some(12)),
        "{again}"
    );
    assert_eq!(
        again["studies"].as_array().map(Vec::len),
        Some(2),
        "{again}"
    );
    assert!(
        again["start"].is_object() && again["steps"].is_array(),
        "{again}"
    );
    fails(&["run", "--games", "0"], "");
}

#[test]
fn cluster_commands_refuse_bad_addresses_and_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "t0ken\n").unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "").unwrap();
    let token = token.to_str().unwrap();
    let stderr = fails(
        &["worker", "--coordinator", "ftp://x", "--token-file", token],
        "",
    );
    assert!(stderr.contains("bad coordinator address"), "{stderr}");
    let stderr = fails(
        &[
            "status",
            "--coordinator",
            "https://x:1",
            "--token-file",
            token,
        ],
        "",
    );
    assert!(stderr.contains("--tls-ca"), "{stderr}");
    let stderr = fails(&["status", "--token-file", empty.to_str().unwrap()], "");
    assert!(stderr.contains("must hold a token"), "{stderr}");
    fails(&["status", "--token-file", "/nonexistent/token"], "");
    let stderr = fails(&["match", "--a", "random", "--b", "random"], "");
    assert!(stderr.contains("--token-file"), "{stderr}");
    // Nobody listens on port 1: a clear error, not a hang or a panic.
    let stderr = fails(
        &[
            "status",
            "--coordinator",
            "http://127.0.0.1:1",
            "--token-file",
            token,
        ],
        "",
    );
    assert!(stderr.contains("unreachable"), "{stderr}");
}

#[test]
fn the_coordinator_refuses_to_start_without_a_token_or_with_a_token_for_two_roles() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let file = |name: &str, token: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("{token}\n")).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (worker, admin, same) = (file("w", "w0rker"), file("a", "adm1n"), file("s", "w0rker"));
    let coordinator = |tokens: &[&str]| {
        let mut args = vec!["coordinator", "--listen", "127.0.0.1:0", "--db"];
        args.push(db.to_str().unwrap());
        args.extend(tokens);
        fails(&args, "")
    };
    let stderr = coordinator(&[]);
    assert!(stderr.contains("needs a token"), "{stderr}");
    assert!(stderr.contains("--worker-token-file"), "{stderr}");
    let stderr = coordinator(&["--worker-token-file", &worker, "--read-token-file", &same]);
    assert!(
        stderr.contains("the same token is given for the worker role and for the read role"),
        "{stderr}"
    );
    let stderr = coordinator(&["--token-file", &same, "--admin-token-file", &worker]);
    assert!(
        stderr.contains("all roles and for the admin role"),
        "{stderr}"
    );
    let stderr = coordinator(&[
        "--admin-token-file",
        &admin,
        "--read-token-file",
        "/nonexistent",
    ]);
    assert!(stderr.contains("/nonexistent"), "{stderr}");
    assert!(!db.exists(), "nothing was created");
}

#[test]
fn a_local_match_stops_when_the_sprt_accepts_the_stronger_engine() {
    let out = ok(&[
        "match",
        "--in-process",
        "--a",
        "uct:playouts=1000",
        "--b",
        "random",
        "--sprt",
        "elo0=0,elo1=50",
        "--pairs",
        "60",
        "--threads",
        "1",
    ]);
    assert!(out.contains("SPRT accepts H1"), "{out}");
    let pairs_played = out.lines().filter(|l| l.starts_with("pairs ")).count();
    assert!(
        pairs_played < 60,
        "stopped early after {pairs_played} pairs"
    );
    let weak = ok(&[
        "match",
        "--in-process",
        "--a",
        "random",
        "--b",
        "uct:playouts=1000",
        "--sprt",
        "elo0=0,elo1=50",
        "--pairs",
        "60",
        "--threads",
        "1",
    ]);
    assert!(weak.contains("SPRT accepts H0"), "{weak}");
    let stderr = fails(
        &[
            "match",
            "--in-process",
            "--a",
            "random",
            "--b",
            "random",
            "--openings",
            "book:plies=2",
        ],
        "",
    );
    assert!(stderr.contains("book and exact openings"), "{stderr}");
    fails(
        &[
            "match",
            "--in-process",
            "--a",
            "random",
            "--b",
            "random",
            "--sprt",
            "elo0=5,elo1=1",
        ],
        "",
    );
}

#[test]
fn a_study_grows_the_book_and_the_book_travels_between_databases() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let report = ok(&[
        "study",
        "monicas-five",
        "--local",
        "--db",
        db,
        "--budget",
        "30000",
        "--positions",
        "6",
        "--playouts",
        "5000",
        "--games",
        "2",
        "--player",
        "uct:playouts=300",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(report.lines().last().unwrap()).unwrap();
    assert_eq!(report["opening"], "monicas-five");
    assert_eq!(report["positions"], 6);
    assert_eq!(report["playouts"], 30000);
    assert_eq!(report["games"], 2);
    assert!(!report["key_positions"].as_array().unwrap().is_empty());

    let steps = ok(&[
        "book", "line", "--local", "--db", db, "b5-1R", "c3-1R", "--json",
    ]);
    assert_eq!(steps.lines().count(), 3);

    // Export, import into a new database, export again: the same rows, in both formats.
    for (format, name) in [("csv", "book.csv"), ("jsonl", "book.jsonl")] {
        let first = dir.path().join(name);
        ok(&[
            "book",
            "export",
            "--local",
            "--db",
            db,
            "--format",
            format,
            "--out",
            first.to_str().unwrap(),
        ]);
        let other = dir.path().join(format!("other-{format}"));
        let other = other.to_str().unwrap();
        ok(&[
            "book",
            "import",
            first.to_str().unwrap(),
            "--local",
            "--db",
            other,
        ]);
        let again = ok(&[
            "book", "export", "--local", "--db", other, "--format", format,
        ]);
        let original = std::fs::read_to_string(&first).unwrap();
        assert!(original.lines().count() > 6, "{original}");
        assert_eq!(again, original, "{format} export/import is lossless");
    }

    // Bad rows change nothing.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "start,b5-1R,playouts,10,11,0,\n").unwrap();
    let before = ok(&["book", "export", "--local", "--db", db]);
    let stderr = fails(
        &[
            "book",
            "import",
            bad.to_str().unwrap(),
            "--local",
            "--db",
            db,
        ],
        "",
    );
    assert!(stderr.contains("row 1"), "{stderr}");
    assert_eq!(ok(&["book", "export", "--local", "--db", db]), before);
    let stderr = fails(&["study", "queens-gambit", "--local", "--db", db], "");
    assert!(stderr.contains("unknown opening"), "{stderr}");
}

#[test]
fn solve_moves_values_are_the_negated_values_of_the_positions_after() {
    let position = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox";
    let out = ok(&["solve", position, "--moves", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["solution"]["value"], 1);
    let root: pentago::Position = position.parse().unwrap();
    let groups = json["moves"].as_array().unwrap();
    let listed: usize = groups
        .iter()
        .map(|g| g["moves"].as_array().unwrap().len())
        .sum();
    assert_eq!(listed, root.legal_moves().len(), "every move, each once");
    let mut children = String::new();
    let mut expected = Vec::new();
    for group in groups {
        let mv: pentago::Move = group["moves"][0].as_str().unwrap().parse().unwrap();
        let after = root.play(mv).unwrap();
        let value = group["value"].as_i64().unwrap();
        match pentago::Value::of_status(after.status(), root.side_to_move()) {
            Some(v) => assert_eq!(i64::from(v.as_i8()), value, "{mv} ends the game"),
            None => {
                children.push_str(&format!("{after}\n"));
                expected.push(-value);
            }
        }
    }
    let out = pentagrid(&["solve", "-", "--json"], &children);
    let values: Vec<i64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["solution"]["value"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(values, expected);
    let text = ok(&["solve", position, "--moves"]);
    assert!(text.contains(" by "), "{text}");
    assert!(
        text.lines().nth(1).unwrap().trim_start().starts_with("win"),
        "{text}"
    );
}

#[test]
fn proofs_are_written_checked_and_tampering_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("proof.txt");
    let path = file.to_str().unwrap();
    ok(&[
        "solve",
        "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox",
        "--proof",
        path,
    ]);
    let out = ok(&["check-proof", path]);
    assert!(out.starts_with("valid: "), "{out}");
    let checked: serde_json::Value =
        serde_json::from_str(&ok(&["check-proof", path, "--json", "--leaves", "all"])).unwrap();
    assert_eq!(
        (
            &checked["valid"],
            &checked["value"],
            &checked["leaves_resolved"]
        ),
        (
            &serde_json::json!(true),
            &serde_json::json!("win"),
            &checked["leaves"]
        ),
        "{checked}"
    );
    // Drop the last win node: some defender reply is no longer answered.
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let last_win = lines.iter().rposition(|l| l.starts_with("win ")).unwrap();
    lines.remove(last_win);
    std::fs::write(&file, lines.join("\n")).unwrap();
    let err = fails(&["check-proof", path], "");
    assert!(err.contains("escapes"), "{err}");
    // A drawn position has no proof, and nothing is written.
    let drawn = dir.path().join("none.txt");
    fails(
        &[
            "solve",
            "xoxoxo/xoxoxo/oxoxox/oxoxox/xoxoxo/xoxox.",
            "--proof",
            drawn.to_str().unwrap(),
        ],
        "",
    );
    assert!(!drawn.exists());
    fails(
        &["solve", "start", "--proof", path, "--max-proof-nodes", "0"],
        "",
    );
    fails(
        &["check-proof", dir.path().join("missing").to_str().unwrap()],
        "",
    );
}

#[test]
fn in_process_match_reports_accuracy_against_perfect_play() {
    let out = ok(&[
        "match",
        "--in-process",
        "--a",
        "perfect:uct:playouts=100",
        "--b",
        "random",
        "--pairs",
        "1",
        "--threads",
        "1",
        "--openings",
        "random:plies=8",
        "--accuracy",
        "24",
        "--json",
    ]);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let accuracy = &last["accuracy"];
    assert_eq!(accuracy["min_stones"], 24);
    assert_eq!(
        accuracy["a"]["drops"], 0,
        "perfect play never drops the value: {out}"
    );
    fails(
        &[
            "match",
            "--in-process",
            "--a",
            "random",
            "--b",
            "random",
            "--accuracy",
            "36",
        ],
        "",
    );
}
