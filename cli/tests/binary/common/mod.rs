//! Shared by the CLI's integration tests that run the real binary.
// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

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

/// Waits until the coordinator at `url` answers health checks with SERVING (it answers
/// UNAVAILABLE while it opens its database, after it printed that it listens).
pub fn wait_healthy(url: &str) {
    let started = Instant::now();
    while !pentagrid(&["health", "--coordinator", url])
        .status
        .success()
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{url} never became healthy"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A child process that is killed when the test ends, however it ends.
pub struct Process(pub Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A coordinator process on a fresh database, and the binary's calls to it: every call gets
/// `--coordinator URL --token-file FILE` appended.
pub struct Remote {
    _coordinator: Process,
    url: String,
    token: String,
    _dir: tempfile::TempDir,
}

impl Remote {
    /// Starts a coordinator whose token is `token`.
    pub fn start(token: &str) -> Remote {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, format!("{token}\n")).unwrap();
        let (coordinator, url) = coordinator(&dir.path().join("db"), &file);
        Remote {
            _coordinator: coordinator,
            url,
            token: file.to_str().unwrap().to_owned(),
            _dir: dir,
        }
    }

    fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let target = ["--coordinator", &self.url, "--token-file", &self.token];
        args.iter().copied().chain(target).collect()
    }

    /// Runs `args` against the coordinator; its standard output, which must be a success.
    pub fn ok(&self, args: &[&str]) -> String {
        ok(&self.args(args))
    }

    /// Runs `args` against the coordinator; its standard error, which must be a failure.
    pub fn fails(&self, args: &[&str]) -> String {
        let args = self.args(args);
        let out = pentagrid(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8(out.stderr).unwrap()
    }
}

/// Standard output read as one JSON value.
pub fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).expect("JSON")
}

/// A coordinator process on `db` with the token file `token`; returns it and its URL.
pub fn coordinator(db: &Path, token: &Path) -> (Process, String) {
    coordinator_with(db, token, &[])
}

/// [`coordinator`] with `extra` arguments (such as `--reference-speed N`).
pub fn coordinator_with(db: &Path, token: &Path, extra: &[&str]) -> (Process, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pentagrid"))
        .args(["coordinator", "--listen", "127.0.0.1:0", "--db"])
        .arg(db)
        .arg("--token-file")
        .arg(token)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let process = Process(child);
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "no address printed"
        );
        if let Some(address) = line.trim().strip_prefix("coordinator listening on ") {
            let url = format!("http://{address}");
            wait_healthy(&url);
            return (process, url);
        }
    }
}

/// A one-thread worker process of the coordinator at `url`, keeping its id in `state`, with
/// `extra` arguments (such as `--engine NAME=COMMAND`).
pub fn worker(url: &str, token: &Path, state: &Path, extra: &[&str]) -> Process {
    Process(
        Command::new(env!("CARGO_BIN_EXE_pentagrid"))
            .args(["worker", "--coordinator", url, "--token-file"])
            .arg(token)
            .arg("--state-dir")
            .arg(state)
            .args(["--threads", "1"])
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .spawn()
            .expect("start a worker"),
    )
}
