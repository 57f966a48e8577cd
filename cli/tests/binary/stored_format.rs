//! Stored formats across builds: a database and a backup written by an earlier build
//! (`tests/fixtures/stored-format/`; its README says how they were made) open and restore
//! under this one, and everything stored in them reads back exactly as that build printed
//! it (`expected/`). A change to any stored format, or to how it is read, fails here.

use crate::common;

use std::path::{Path, PathBuf};

use common::{coordinator, json, ok};

/// The fixture's directory.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/stored-format")
}

/// The position whose table was imported from a CSV file (the imports tree).
const IMPORTED: &str = ".....o/....../....../....../....../x.....";

/// Each read of the stored contents, with the file under `expected/` holding what the
/// writing build printed for it.
const READS: &[(&str, &[&str])] = &[
    ("status.json", &["status", "--json"]),
    ("status.txt", &["status"]),
    ("match-list.json", &["match", "list", "--json"]),
    (
        "match-10.json",
        &["match", "show", "10", "--games", "--json"],
    ),
    (
        "match-53.json",
        &["match", "show", "53", "--games", "--json"],
    ),
    ("match-53.txt", &["match", "show", "53"]),
    ("games-10.txt", &["games", "export", "10"]),
    ("ratings.json", &["ratings", "--json"]),
    ("tune-list.json", &["tune", "list", "--json"]),
    ("tune-13.json", &["tune", "show", "13", "--all", "--json"]),
    (
        "book-start.json",
        &[
            "book",
            "show",
            "....../....../....../....../....../......",
            "--json",
        ],
    ),
    ("book-imported.json", &["book", "show", IMPORTED, "--json"]),
    ("book.csv", &["book", "export", "--format", "csv"]),
    ("puzzles.jsonl", &["puzzles", "export", "--format", "jsonl"]),
];

/// The expected output `name`.
fn expected(name: &str) -> String {
    let path = fixture().join("expected").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Copies the fixture database into `to`: opening a database writes to it, so the fixture
/// itself is never opened.
fn copy_database(to: &Path) {
    std::fs::create_dir(to).unwrap();
    for entry in std::fs::read_dir(fixture().join("db")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Every read of the coordinator at `url` prints what the writing build printed.
fn assert_reads_as_written(url: &str, token: &Path) {
    let token = token.to_str().unwrap();
    for (name, args) in READS {
        let args = [*args, &["--coordinator", url, "--token-file", token]].concat();
        let got = ok(&args);
        let want = expected(name);
        if got != want {
            let (line, (got_line, want_line)) = got
                .lines()
                .chain(std::iter::repeat("<end>"))
                .zip(want.lines().chain(std::iter::repeat("<end>")))
                .enumerate()
                .find(|(_, (got, want))| got != want)
                .expect("outputs that differ differ in a line");
            panic!(
                "`pentagrid {}` differs from expected/{name} at line {}:\n  got:      {got_line}\n  expected: {want_line}",
                args.join(" "),
                line + 1
            );
        }
    }
}

/// The contents that matter, spelled out (the reads above compare everything): job states,
/// stored totals, a match, a tuning run, a deep solve, solitaire totals, book rows, puzzles.
fn assert_contents(url: &str, token: &Path) {
    let read = |args: &[&str]| {
        let token = token.to_str().unwrap();
        ok(&[args, &["--coordinator", url, "--token-file", token]].concat())
    };
    let status = json(&read(&["status", "--json"]));
    for (field, value) in [
        ("queued", 1),
        ("leased", 0),
        ("done", 42),
        ("failed", 0),
        ("cancelled", 17),
        ("games", 6),
        ("playouts", 21_000),
        ("playout_positions", 10),
        ("game_positions", 165),
        ("quarantined", 0),
    ] {
        assert_eq!(status[field], value, "{field} in {status}");
    }
    let deep = &status["deep_solves"][0];
    assert_eq!(
        (&deep["solve_id"], &deep["value"], &deep["best"]),
        (&38.into(), &"loss".into(), &"d1-1R".into()),
        "{deep}"
    );
    let solitaire = &status["solitaire"][0];
    assert_eq!(
        (&solitaire["deals"], &solitaire["wins"]),
        (&30.into(), &2.into())
    );

    let played = json(&read(&["match", "show", "10", "--games", "--json"]));
    assert_eq!(played["state"], "complete");
    assert_eq!(played["pentanomial"], serde_json::json!([0, 0, 0, 0, 2]));
    assert_eq!(played["games"].as_array().unwrap().len(), 4);
    let stopped = json(&read(&["match", "show", "53", "--json"]));
    assert_eq!(
        (&stopped["state"], &stopped["pairs_done"]),
        (&"stopped".into(), &7.into())
    );

    let tune = json(&read(&["tune", "show", "13", "--json"]));
    assert_eq!(
        (&tune["state"], &tune["iterations_done"]),
        (&"done".into(), &2.into())
    );

    // A playout row of the start position, and the row imported from CSV.
    let book = read(&["book", "export", "--format", "csv"]);
    assert!(
        book.lines().any(|line| line
            == "....../....../....../....../....../......,a1-1R,playouts,248,71,116,draw,table"),
        "the start position's a1-1R row"
    );
    let imported = json(&read(&["book", "show", IMPORTED, "--json"]));
    let row = &imported["games"][0];
    assert_eq!(
        (&row["move"], &row["games"], &row["wins"], &row["draws"]),
        (&"c3-1R".into(), &10.into(), &6.into(), &1.into()),
        "{imported}"
    );

    let puzzles = read(&["puzzles", "export", "--format", "jsonl"]);
    assert_eq!(puzzles.lines().count(), 3);
}

/// The token file every coordinator here is started with.
fn token(dir: &Path) -> PathBuf {
    let token = dir.join("token");
    std::fs::write(&token, "fixture-token\n").unwrap();
    token
}

#[test]
fn a_database_written_by_an_earlier_build_opens_with_everything_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let token = token(dir.path());
    let db = dir.path().join("db");
    copy_database(&db);
    let (_coordinator, url) = coordinator(&db, &token);
    assert_contents(&url, &token);
    assert_reads_as_written(&url, &token);
}

#[test]
fn a_backup_written_by_an_earlier_build_verifies_and_restores_everything_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let token = token(dir.path());
    let backup = fixture().join("backup.pgbak");
    let backup = backup.to_str().unwrap();
    let summary = json(&expected("backup-summary.json"));
    assert_eq!(json(&ok(&["verify-backup", backup, "--json"])), summary);
    let db = dir.path().join("restored");
    let restored = ok(&["restore", backup, "--db", db.to_str().unwrap(), "--json"]);
    assert_eq!(json(&restored), summary);
    assert_eq!(summary["trees"]["jobs"], 60, "{summary}");
    let (_coordinator, url) = coordinator(&db, &token);
    assert_contents(&url, &token);
    assert_reads_as_written(&url, &token);
}
