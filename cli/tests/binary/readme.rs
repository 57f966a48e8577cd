//! The README's commands run as written: every `pentagrid` command in its ```` ```sh ````
//! blocks is run by the real binary through `sh`, block by block, each block in a fresh
//! directory (so `--local` commands start on a fresh embedded database there), and must
//! succeed.
//!
//! What is not run, by these rules only:
//! - lines that are not `pentagrid` commands (`cargo`, `curl`, `docker`, `kubectl`, shell
//!   set-up, and the output lines of transcripts; a `$ ` prompt before a command is dropped);
//! - commands that reach a networked coordinator (they name `--token-file`, a `--*-token-file`
//!   or `--coordinator`): other tests run such calls against a real coordinator process;
//! - the services `coordinator`, `worker` and `serve`, which run until stopped;
//! - blocks right after a `<!-- readme-test: skip: REASON -->` line, for what takes minutes
//!   or needs what a test machine lacks.
//!
//! Each block's directory holds `positions.txt` (the start and a 3-stone position, for the
//! examples that read "your" positions from it) and a link `bench` to the source tree's
//! `bench/` (for the data files the examples name).

use std::path::{Path, PathBuf};
use std::process::Command;

/// One command of the README, with the line it starts on.
#[derive(Debug, PartialEq)]
struct Example {
    line: usize,
    command: String,
}

/// A ```` ```sh ```` block: its commands and, if marked, why it is not run.
#[derive(Debug, PartialEq)]
struct Block {
    line: usize,
    skip: Option<String>,
    commands: Vec<Example>,
}

const SKIP_MARK: &str = "<!-- readme-test: skip: ";

/// The `sh` blocks of `text` with their `pentagrid` commands (continuation lines joined).
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    let mut last_text = "";
    while let Some((index, line)) = lines.next() {
        let fence = line.trim_start();
        if !fence.starts_with("```") {
            if !line.trim().is_empty() {
                last_text = line;
            }
            continue;
        }
        let is_sh = fence.trim_start_matches('`').trim() == "sh";
        let skip = last_text
            .trim()
            .strip_prefix(SKIP_MARK)
            .and_then(|rest| rest.strip_suffix("-->"))
            .map(|reason| reason.trim().to_owned());
        let mut block = Block {
            line: index + 1,
            skip,
            commands: Vec::new(),
        };
        let mut pending: Option<Example> = None;
        for (index, line) in lines.by_ref() {
            if line.trim_start().starts_with("```") {
                break;
            }
            let (start, text) = match pending.take() {
                Some(example) => (example.line, format!("{} {}", example.command, line.trim())),
                None => (index + 1, line.trim().to_owned()),
            };
            if let Some(head) = text.strip_suffix('\\') {
                pending = Some(Example {
                    line: start,
                    command: head.trim_end().to_owned(),
                });
                continue;
            }
            let command = text.strip_prefix("$ ").unwrap_or(&text);
            if command.starts_with("pentagrid ") {
                block.commands.push(Example {
                    line: start,
                    command: command.to_owned(),
                });
            }
        }
        if is_sh {
            out.push(block);
        }
        last_text = "";
    }
    out
}

/// Why a command is not run, by the rules in the module notes.
fn skipped(command: &str) -> Option<&'static str> {
    let words: Vec<&str> = command.split_whitespace().collect();
    if words
        .iter()
        .any(|w| *w == "--coordinator" || w.ends_with("token-file"))
    {
        return Some("reaches a networked coordinator");
    }
    if matches!(words.get(1), Some(&("coordinator" | "worker" | "serve"))) {
        return Some("a service that runs until stopped");
    }
    None
}

/// A fresh directory for one block, with the fixtures the module notes list.
fn fresh_directory() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("positions.txt"),
        "start\n....../....../..x.../...o../....x./......\n",
    )
    .unwrap();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench");
    std::os::unix::fs::symlink(bench.canonicalize().unwrap(), dir.path().join("bench")).unwrap();
    dir
}

/// `PATH` with the binary under test first.
fn path_with_binary() -> std::ffi::OsString {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_pentagrid"));
    let mut paths = vec![binary.parent().unwrap().to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

#[test]
fn readme_commands_run_as_written() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    let path = path_with_binary();
    let (mut ran, mut not_run) = (0, Vec::new());
    for block in blocks(&text) {
        if let Some(reason) = &block.skip {
            for example in &block.commands {
                not_run.push(format!("line {}: {reason}", example.line));
            }
            continue;
        }
        let dir = fresh_directory();
        for example in &block.commands {
            if let Some(reason) = skipped(&example.command) {
                not_run.push(format!("line {}: {reason}", example.line));
                continue;
            }
            let out = Command::new("sh")
                .arg("-c")
                .arg(&example.command)
                .current_dir(dir.path())
                .env("PATH", &path)
                .env_remove("PENTAGRID_COORDINATOR")
                .env_remove("PENTAGRID_TOKEN_FILE")
                .env_remove("PENTAGRID_TABLEBASE")
                .env_remove("RUST_LOG")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "README.md line {}: `{}` failed ({}):\n{}\n{}",
                example.line,
                example.command,
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    eprintln!(
        "README: {ran} commands run, {} not run:\n{}",
        not_run.len(),
        not_run.join("\n")
    );
    // The README has dozens of runnable examples: finding few means the reading broke.
    assert!(ran >= 40, "only {ran} README commands were run");
}

#[test]
fn blocks_are_read_with_their_marks_continuations_and_prompts() {
    let text = "intro\n\
                ```sh\n\
                pentagrid show start   # a comment\n\
                cargo test\n\
                pentagrid match --a x \\\n    --b y\n\
                ```\n\
                \n\
                <!-- readme-test: skip: takes an hour -->\n\
                \n\
                ```sh\n\
                $ pentagrid solve start\n\
                start win\n\
                ```\n\
                ```\n\
                pentagrid not-sh\n\
                ```\n";
    let found = blocks(text);
    assert_eq!(
        found,
        [
            Block {
                line: 2,
                skip: None,
                commands: vec![
                    Example {
                        line: 3,
                        command: "pentagrid show start   # a comment".into()
                    },
                    Example {
                        line: 5,
                        command: "pentagrid match --a x --b y".into()
                    },
                ],
            },
            Block {
                line: 11,
                skip: Some("takes an hour".into()),
                commands: vec![Example {
                    line: 12,
                    command: "pentagrid solve start".into()
                }],
            },
        ]
    );
    assert_eq!(
        skipped("pentagrid status --token-file token"),
        Some("reaches a networked coordinator")
    );
    assert_eq!(
        skipped("pentagrid coordinator --admin-token-file a"),
        Some("reaches a networked coordinator")
    );
    assert_eq!(
        skipped("pentagrid worker --name w"),
        Some("a service that runs until stopped")
    );
    assert_eq!(skipped("pentagrid match --local --a x --b y"), None);
}
