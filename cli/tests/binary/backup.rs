//! Backups through the real binary: `pentagrid backup` from a running coordinator process,
//! `pentagrid verify-backup`, `pentagrid restore`, and a coordinator process on the restored
//! database; damaged files and occupied targets refused with one clear error.

use crate::common;

use std::path::Path;

use common::{coordinator, ok, pentagrid};

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap()
}

/// Runs a command that must fail; returns its standard error.
fn refused(args: &[&str]) -> String {
    let out = pentagrid(args);
    assert_eq!(out.status.code(), Some(1), "{args:?} did not fail with 1");
    assert!(out.stdout.is_empty(), "{args:?} printed {:?}", out.stdout);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    stderr
}

#[test]
fn backup_verify_restore_and_serve_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "backup-token\n").unwrap();
    let token = token.to_str().unwrap();
    let (source, url) = coordinator(&dir.path().join("source"), Path::new(token));
    let connection = ["--coordinator", url.as_str(), "--token-file", token];
    let submit = [
        &["submit", "selfplay", "--games", "7", "--config", "random"][..],
        &connection[..],
    ];
    ok(&submit.concat());
    let file = dir.path().join("nightly.pgbak");
    let file = file.to_str().unwrap();
    let taken = json(&ok(&[
        &["backup", "--out", file, "--json"][..],
        &connection[..],
    ]
    .concat()));
    assert_eq!(taken["trees"]["jobs"], 7);
    let text = ok(&["verify-backup", file]);
    assert!(text.contains("the backup checks out"), "{text}");
    assert!(
        text.lines()
            .any(|line| line.split_whitespace().eq(["jobs", "7"])),
        "{text}"
    );
    let verified = json(&ok(&["verify-backup", file, "--json"]));
    assert_eq!(verified, taken);
    let status_of = |url: &str| {
        let args = [
            "status",
            "--json",
            "--coordinator",
            url,
            "--token-file",
            token,
        ];
        let mut status = json(&ok(&args));
        status.as_object_mut().unwrap().remove("workers");
        status
    };
    let source_status = status_of(&url);
    drop(source);

    let restored_db = dir.path().join("restored");
    let restored = json(&ok(&[
        "restore",
        file,
        "--db",
        restored_db.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(restored, taken);
    let (_restored, restored_url) = coordinator(&restored_db, Path::new(token));
    assert_eq!(status_of(&restored_url), source_status);
    assert_eq!(source_status["queued"], 7, "{source_status}");

    // A second restore into the now full directory is refused and changes nothing.
    let before = std::fs::read_dir(&restored_db).unwrap().count();
    let error = refused(&["restore", file, "--db", restored_db.to_str().unwrap()]);
    assert!(error.contains("not an empty directory"), "{error}");
    assert_eq!(std::fs::read_dir(&restored_db).unwrap().count(), before);

    // A damaged copy is refused by both, and the restore leaves nothing behind.
    let mut bytes = std::fs::read(file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    let damaged = dir.path().join("damaged.pgbak");
    std::fs::write(&damaged, &bytes).unwrap();
    let damaged = damaged.to_str().unwrap();
    let error = refused(&["verify-backup", damaged]);
    assert!(error.contains("damaged"), "{error}");
    let target = dir.path().join("from-damaged");
    let error = refused(&["restore", damaged, "--db", target.to_str().unwrap()]);
    assert!(error.contains("damaged"), "{error}");
    std::fs::write(dir.path().join("cut.pgbak"), &bytes[..middle]).unwrap();
    let cut = dir.path().join("cut.pgbak");
    let error = refused(&[
        "restore",
        cut.to_str().unwrap(),
        "--db",
        target.to_str().unwrap(),
    ]);
    assert!(error.contains("truncated"), "{error}");
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("from-damaged"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
