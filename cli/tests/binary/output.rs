//! Output the reader does not take: every printing command, with and without `--json`, run
//! with its standard output a pipe whose reader is gone ends quietly (exit 0 or 141, nothing on
//! standard error), and run with its standard output on a full disk (`/dev/full`) ends with exit
//! 1 and one line saying why. The cluster commands run against a real coordinator started here.

use crate::common;

use std::process::{Command, Output, Stdio};

const LATE: &str = "ox.oxx/x.o.oo/oxo.ox/.xxxoo/xooxxx/.xooox";
const MATE: &str = "oo.x.o/xo.ox./x..o.x/...xxo/..x.xo/o..o.x";

/// Runs `pentagrid` with `stdout` as its standard output and `input` on its standard input.
fn run(args: &[&str], stdout: Stdio, input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pentagrid"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pentagrid");
    // The command may end before it reads everything: a failed write here is its business.
    let mut stdin = child.stdin.take().unwrap();
    let _ = std::io::Write::write_all(&mut stdin, input.as_bytes());
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// A pipe whose reading end is closed before the command starts, so its first write fails.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer.into()
}

fn dev_full() -> Stdio {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
        .into()
}

/// Every form checked both ways (and again with `--json` when `json_too`); `input` feeds the
/// `-` forms.
fn check(forms: &[(Vec<&str>, &str)], json_too: bool) {
    for (args, input) in forms {
        for json in [false, json_too]
            .into_iter()
            .take(1 + usize::from(json_too))
        {
            let mut args = args.clone();
            if json {
                args.push("--json");
            }
            let out = run(&args, closed_pipe(), input);
            let code = out.status.code();
            assert!(
                matches!(code, Some(0 | 141)),
                "{args:?} on a closed pipe: {:?}, {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                out.stderr.is_empty(),
                "{args:?} on a closed pipe wrote to stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let out = run(&args, dev_full(), input);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?} > /dev/full: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{args:?} > /dev/full: {stderr}");
            assert!(
                stderr.starts_with("error: ") && stderr.contains("writ"),
                "{args:?} > /dev/full: {stderr}"
            );
        }
    }
}

#[test]
fn help_and_version_end_quietly_on_a_closed_pipe_and_say_why_on_a_full_disk() {
    check(
        &[
            (vec!["--help"], ""),
            (vec!["-h"], ""),
            (vec!["--version"], ""),
            (vec!["status", "--help"], ""),
        ],
        false,
    );
}

#[test]
fn local_commands_end_quietly_on_a_closed_pipe_and_say_why_on_a_full_disk() {
    let many_positions = "start\n".repeat(2000);
    let late_lines = format!("{LATE}\n").repeat(200);
    check(
        &[
            (vec!["show", "start"], ""),
            (vec!["show", "-"], &many_positions),
            (vec!["canonical", "-"], &many_positions),
            (vec!["play", "a1-1R", "b2-2L", "c3-3R"], ""),
            (vec!["perft", "1", "--divide", "--threads", "1"], ""),
            (vec!["playouts", "--games", "20", "--threads", "1"], ""),
            (
                vec!["analyze", "start", "--playouts", "200", "--threads", "1"],
                "",
            ),
            (
                vec![
                    "selfplay", "--games", "2", "--black", "random", "--white", "random",
                ],
                "",
            ),
            (vec!["solve", "-"], &late_lines),
            (vec!["mate", MATE, "--max-moves", "3", "--all"], ""),
            (
                vec!["solitaire", "play", "--deal", "1", "--player", "random"],
                "",
            ),
            (
                vec![
                    "solitaire",
                    "bench",
                    "--deals",
                    "1..=2",
                    "--player",
                    "random",
                ],
                "",
            ),
            (
                vec![
                    "match",
                    "--in-process",
                    "--a",
                    "random",
                    "--b",
                    "random",
                    "--pairs",
                    "2",
                    "--threads",
                    "1",
                ],
                "",
            ),
        ],
        true,
    );
}

#[test]
fn check_proof_ends_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let proof = dir.path().join("proof.txt");
    let proof = proof.to_str().unwrap();
    common::ok(&["solve", LATE, "--proof", proof]);
    check(&[(vec!["check-proof", proof], "")], false);
}

#[test]
fn cluster_commands_end_quietly_on_a_closed_pipe_and_say_why_on_a_full_disk() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), "output-token\n").unwrap();
    let db = dir.path().join("db");
    let token = dir.path().join("token");
    let (coordinator, url) = common::coordinator(&db, &token);
    let token = token.to_str().unwrap();
    let target = ["--coordinator", url.as_str(), "--token-file", token];
    let with = |args: &[&'static str]| -> Vec<&str> {
        args.iter().copied().chain(target.iter().copied()).collect()
    };
    check(
        &[
            (with(&["status"]), ""),
            (with(&["book", "show", "start"]), ""),
        ],
        true,
    );
    check(
        &[(vec!["health", "--coordinator", url.as_str()], "")],
        false,
    );
    drop(coordinator);
}

#[test]
fn bad_input_is_quoted_by_a_bounded_prefix_and_thread_counts_are_bounded() {
    let huge = format!("{}\n", "x".repeat(10 << 20));
    let out = run(&["show", "-"], Stdio::null(), &huge);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.len() < 400, "{} bytes of stderr", stderr.len());
    assert!(stderr.contains("(10485760 bytes)"), "{stderr}");
    // Under the 4 KiB argument limit (longer arguments are refused before parsing), so the
    // move parser's own error is what is bounded here.
    let long_move = format!("a1-{}", "9".repeat(4_000));
    let out = run(&["play", &long_move], Stdio::null(), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.len() < 600, "{} bytes of stderr", stderr.len());
    let out = run(
        &["playouts", "--games", "5", "--threads", "2000"],
        Stdio::null(),
        "",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("from 1 to 1024"), "{stderr}");
}
