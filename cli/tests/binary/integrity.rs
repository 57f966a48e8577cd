//! The integrity check through the real binary: a coordinator on a database that lost
//! acknowledged results exits non-zero with one clear line and never reports serving;
//! `--accept-data-loss` goes on with what is left and says so; the next plain start is clean.

use crate::common;

use common::Process;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const JOBS: u64 = 12;

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pentagrid"));
        command
            .args(args)
            .env("RUST_LOG", "warn")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        command
    }

    fn client(&self, url: &str, args: &[&str]) -> Output {
        let token = self.path("token");
        let mut all = args.to_vec();
        all.extend([
            "--coordinator",
            url,
            "--token-file",
            token.to_str().unwrap(),
        ]);
        self.command(&all).output().unwrap()
    }

    /// Starts a coordinator on a free port; returns it, its URL and its stdout's lines.
    fn coordinator(&self, extra: &[&str]) -> (Process, String, mpsc::Receiver<String>) {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let listen = format!("127.0.0.1:{port}");
        let db = self.path("db");
        let token = self.path("token");
        let mut args = vec![
            "coordinator",
            "--listen",
            &listen,
            "--db",
            db.to_str().unwrap(),
            "--token-file",
            token.to_str().unwrap(),
        ];
        args.extend(extra);
        let mut child = self
            .command(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (send, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        (Process(child), format!("http://{listen}"), lines)
    }

    fn status(&self, url: &str) -> Option<serde_json::Value> {
        let out = self.client(url, &["status", "--json"]);
        out.status
            .success()
            .then(|| serde_json::from_slice(&out.stdout).unwrap())
    }

    fn wait_status(&self, url: &str, ready: impl Fn(&serde_json::Value) -> bool) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.status(url)
                && ready(&status)
            {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(120), "timed out");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn terminate(process: &mut Process) -> String {
    let child = &mut process.0;
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert!(status.success(), "stopped with {status}");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    stderr
}

/// A database of `JOBS` finished analyses, made by a real coordinator and worker.
fn finished_database() -> Setup {
    let setup = Setup {
        dir: tempfile::tempdir().unwrap(),
    };
    std::fs::write(setup.path("token"), "integrity-test-token\n").unwrap();
    let (mut coordinator, url, _lines) = setup.coordinator(&[]);
    setup.wait_status(&url, |_| true);
    let token = setup.path("token");
    let mut submit = setup
        .command(&[
            "submit",
            "analyse",
            "-",
            "--playouts",
            "300",
            "--config",
            "uct:policy=uniform",
            "--coordinator",
            &url,
            "--token-file",
            token.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let input = "start\n".repeat(JOBS as usize);
    submit
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    assert!(submit.wait().unwrap().success());
    let state = setup.path("worker-state");
    let mut worker = Process(
        setup
            .command(&[
                "worker",
                "--coordinator",
                &url,
                "--token-file",
                token.to_str().unwrap(),
                "--threads",
                "1",
                "--state-dir",
                state.to_str().unwrap(),
            ])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    setup.wait_status(&url, |s| s["done"] == JOBS);
    terminate(&mut worker);
    terminate(&mut coordinator);
    setup
}

/// Empties sled's log and drops its snapshot: sled then recovers an empty database, silently.
fn empty_the_log(db: &Path) {
    std::fs::File::create(db.join("db")).unwrap();
    for entry in std::fs::read_dir(db).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("snap.")
        {
            std::fs::remove_file(path).unwrap();
        }
    }
}

#[test]
fn a_coordinator_on_a_database_that_lost_results_refuses_then_accepts_when_told() {
    let setup = finished_database();
    empty_the_log(&setup.path("db"));

    // Refused: non-zero exit, one clear line, never serving.
    let (mut refused, url, lines) = setup.coordinator(&[]);
    let started = Instant::now();
    let mut polls = 0;
    let exit = loop {
        if let Some(exit) = refused.0.try_wait().unwrap() {
            break exit;
        }
        let health = setup
            .command(&["health", "--coordinator", &url])
            .output()
            .unwrap();
        assert!(
            !health.status.success(),
            "health said serving after {:?}: {}{}",
            started.elapsed(),
            String::from_utf8_lossy(&health.stdout),
            String::from_utf8_lossy(&health.stderr)
        );
        polls += 1;
        assert!(started.elapsed() < Duration::from_secs(30), "still running");
    };
    assert!(!exit.success());
    let mut stderr = String::new();
    refused
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let stdout: Vec<String> = lines.iter().collect();
    assert!(stdout.iter().all(|l| !l.contains("serving")), "{stdout:?}");
    assert!(!stderr.contains("serving"), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "one error line: {stderr}");
    let expected = format!(
        "the manifest records {JOBS} applied results, the database holds 0 applied results"
    );
    assert!(errors[0].contains(&expected), "{stderr}");
    assert!(errors[0].contains("--accept-data-loss"), "{stderr}");
    eprintln!("refused after {polls} health polls: {}", errors[0]);

    // Accepted when told, and logged.
    let (mut accepted, url, lines) = setup.coordinator(&["--accept-data-loss"]);
    setup.wait_status(&url, |s| s["done"] == 0);
    let announced = lines.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(announced, format!("coordinator listening on {}", &url[7..]));
    let stderr = terminate(&mut accepted);
    assert!(
        stderr.contains("accept-data-loss") && stderr.contains(&expected),
        "the loss is logged: {stderr}"
    );

    // The smaller state is the new normal: a plain start serves.
    let (mut plain, url, _lines) = setup.coordinator(&[]);
    setup.wait_status(&url, |s| s["done"] == 0);
    terminate(&mut plain);
}
