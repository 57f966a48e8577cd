//! Runs the real `pentagrid` binary on the tablebase: `tablebase info`, `verify` and `probe`,
//! and `solve` answering from the table.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn pentagrid(args: &[&str], stdin: &str, folder: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pentagrid"));
    command
        .args(args)
        .env_remove("PENTAGRID_TABLEBASE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(folder) = folder {
        command.env("PENTAGRID_TABLEBASE", folder);
    }
    let mut child = command.spawn().expect("start pentagrid");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("run pentagrid")
}

fn ok(args: &[&str]) -> String {
    let out = pentagrid(args, "", None);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tablebase/data/irving");

#[test]
fn info_lists_the_shipped_slices_and_the_cache() {
    let out = ok(&["tablebase", "info"]);
    assert!(out.contains("embedded slice-0.pentago"), "{out}");
    assert!(
        out.contains("    6        59    1198      410859  embedded slice-6.pentago"),
        "{out}"
    );
    assert!(
        out.contains("7 slices, 548016 bytes; block cache budget 64 MiB"),
        "{out}"
    );
    let out = ok(&["tablebase", "info", "--json", "--tablebase-cache-mb", "8"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["slices"].as_array().unwrap().len(), 7);
    assert_eq!(json["cache_budget_bytes"], 8 << 20);
    assert_eq!(json["slices"][5]["sections"], 31);
}

#[test]
fn verify_recounts_every_shipped_slice() {
    let out = ok(&["tablebase", "verify"]);
    assert_eq!(out.lines().count(), 7, "{out}");
    assert!(
        out.lines().all(|l| l.ends_with("counts match, sha1 match")),
        "{out}"
    );
    assert!(
        out.contains("slice 1: 1 sections, 9 positions (6 black wins, 0 white wins)"),
        "{out}"
    );
}

#[test]
fn verify_fails_on_a_damaged_slice_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(Path::new(SHIPPED).join("slice-5.pentago")).unwrap();
    bytes[50_000] ^= 0x40; // inside the compressed blocks
    let path = dir.path().join("slice-5.pentago");
    std::fs::write(&path, &bytes).unwrap();
    let out = pentagrid(&["tablebase", "verify"], "", Some(dir.path()));
    assert!(!out.status.success());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(!text.contains("panicked"), "{text}");

    let missing = dir.path().join("nothing-here");
    let out = pentagrid(
        &[
            "tablebase",
            "info",
            "--tablebase",
            missing.to_str().unwrap(),
        ],
        "",
        None,
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing-here"));
}

#[test]
fn a_folder_adds_its_slices() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["slice-3.pentago", "counts-3.npy"] {
        std::fs::copy(Path::new(SHIPPED).join(name), dir.path().join(name)).unwrap();
    }
    let out = pentagrid(&["tablebase", "info"], "", Some(dir.path()));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&dir.path().join("slice-3.pentago").display().to_string()),
        "{text}"
    );
    let out = pentagrid(&["tablebase", "verify", "--json"], "", Some(dir.path()));
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[3]["counts"], "match");
    assert_eq!(lines[3]["sha1"], "match");
}

#[test]
fn probe_values_positions_and_their_moves() {
    let out = ok(&["tablebase", "probe", "start"]);
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("....../....../....../....../....../...... win")
    );
    assert!(out.contains("  draw    a1-"), "edge corners draw: {out}");
    assert!(!out.contains("loss"), "{out}");

    let out = ok(&["tablebase", "probe", "start", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["value"], 1);
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 288);
    assert_eq!(moves.iter().filter(|m| m["value"] == 1).count(), 192);

    let input = "# a comment\n....../....../..x.../...o../....x./......\nx..o../....../..x.../...o../....x./.o..x.\n";
    let out = pentagrid(&["tablebase", "probe", "-"], input, None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("....../....../..x.../...o../....x./...... draw\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "x..o../....../..x.../...o../....x./.o..x. not covered (no slice of 7 stones loaded)"
        ),
        "{text}"
    );

    let out = pentagrid(&["tablebase", "probe", "xxxxxx/......"], "", None);
    assert!(!out.status.success() && out.stdout.is_empty());
}

#[test]
fn solve_answers_from_the_table() {
    let out = ok(&["solve", "....../....../..x.../...o../....x./......"]);
    assert!(
        out.starts_with("....../....../..x.../...o../....x./...... draw best "),
        "{out}"
    );
    assert!(out.contains(" by table nodes 0 "), "{out}");
    let out = ok(&["solve", "start", "--moves", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["solution"]["method"], "table");
    assert_eq!(json["solution"]["value"], 1);
    let groups = json["moves"].as_array().unwrap();
    let listed: usize = groups
        .iter()
        .map(|g| g["moves"].as_array().unwrap().len())
        .sum();
    assert_eq!(listed, 288);
    // Six stones: the value from the table; its moves (7 stones) are not covered, so no best
    // move is claimed.
    let out = ok(&[
        "solve",
        "x..o../....../..x.../...o../....x./.o....",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["solution"]["method"], "table");
    assert!(json["solution"]["value"].is_i64());
}
