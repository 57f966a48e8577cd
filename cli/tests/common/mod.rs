//! Shared by the CLI's integration tests that run the real binary with arguments only.

use std::process::{Command, Output};

/// Runs `pentagrid` with `args` and waits for it.
pub fn pentagrid(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pentagrid"))
        .args(args)
        .output()
        .expect("start pentagrid")
}

/// Runs `pentagrid` with `args`, which must succeed; returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = pentagrid(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
