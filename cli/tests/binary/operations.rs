//! Operating the real binary: `pentagrid health` for scripts, `--metrics-listen` serving
//! Prometheus text, and logs on a pipe without terminal escapes, as JSON on request.

use crate::common;

use common::Process;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

fn pentagrid(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pentagrid"));
    command.args(args).stdin(Stdio::null());
    command
}

/// A coordinator on free ports with a fresh database; returns it, its URL and its metrics address.
fn start_coordinator(dir: &std::path::Path, log_format: &str) -> (Process, String, String) {
    std::fs::write(dir.join("token"), "operations-token\n").unwrap();
    let db = dir.join("db");
    let token = dir.join("token");
    let mut child = pentagrid(&[
        "coordinator",
        "--listen",
        "127.0.0.1:0",
        "--db",
        db.to_str().unwrap(),
        "--token-file",
        token.to_str().unwrap(),
        "--metrics-listen",
        "127.0.0.1:0",
        "--log-format",
        log_format,
    ])
    .env("RUST_LOG", "info")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (mut url, mut metrics) = (None, None);
    while url.is_none() || metrics.is_none() {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "no address printed"
        );
        if let Some(address) = line.trim().strip_prefix("coordinator listening on ") {
            url = Some(format!("http://{address}"));
        }
        if let Some(address) = line.trim().strip_prefix("metrics at http://") {
            metrics = Some(address.trim_end_matches("/metrics").to_owned());
        }
    }
    (Process(child), url.unwrap(), metrics.unwrap())
}

/// `GET /metrics` over plain HTTP/1.1; returns the status line and the body.
fn scrape(address: &str) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_owned(), body.to_owned())
}

/// Stops the child and returns everything it wrote to standard error.
fn stderr_of(mut process: Process) -> Vec<u8> {
    let _ = process.0.kill();
    let mut stderr = Vec::new();
    process
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    stderr
}

#[test]
fn health_answers_for_scripts_and_metrics_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let (coordinator, url, metrics) = start_coordinator(dir.path(), "text");
    common::wait_healthy(&url);
    let out = pentagrid(&["health", "--coordinator", &url])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "serving");

    let (status_line, body) = scrape(&metrics);
    assert!(status_line.contains(" 200 "), "{status_line}");
    assert!(
        body.contains("# TYPE pentagrid_rpc_seconds histogram"),
        "{body}"
    );
    assert!(body.contains("pentagrid_up 1\n"), "{body}");
    assert!(body.contains("pentagrid_rpc_seconds_bucket{le=\"+Inf\",method=\"Check\"}"));
    assert!(body.ends_with("# EOF\n"));

    // Gone: exit 1 with a clear message, not a panic.
    drop(coordinator);
    let out = pentagrid(&["health", "--coordinator", &url, "--timeout", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unreachable"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_health_arguments_are_refused_clearly() {
    let out = pentagrid(&["health", "--coordinator", "not a url"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad coordinator address"));
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "operations-token\n").unwrap();
    let db = dir.path().join("db");
    let out = pentagrid(&[
        "coordinator",
        "--listen",
        "127.0.0.1:0",
        "--db",
        db.to_str().unwrap(),
        "--token-file",
        token.to_str().unwrap(),
        "--metrics-listen",
        "nowhere",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("listening for metrics on nowhere"),
        "{stderr}"
    );
}

/// `pentagrid coordinator … 2>&1 | head -1`: once the reader of its output is gone, every log
/// line fails to be written, and the coordinator keeps serving all the same.
#[test]
fn a_coordinator_whose_log_reader_went_away_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let (db, token) = (dir.path().join("db"), dir.path().join("token"));
    std::fs::write(&token, "operations-token\n").unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    let mut command = pentagrid(&["coordinator", "--listen", "127.0.0.1:0", "--db"]);
    command
        .arg(&db)
        .arg("--token-file")
        .arg(&token)
        // Every call logs (the transport's own events): each is a write to the closed pipe.
        .env("RUST_LOG", "trace")
        .stdout(writer.try_clone().unwrap())
        .stderr(writer);
    let mut coordinator = Process(command.spawn().unwrap());
    drop(command);
    let mut lines = BufReader::new(reader);
    let url = loop {
        let mut line = String::new();
        assert!(
            lines.read_line(&mut line).unwrap() > 0,
            "no address printed"
        );
        if let Some(address) = line.trim().strip_prefix("coordinator listening on ") {
            break format!("http://{address}");
        }
    };
    drop(lines);
    common::wait_healthy(&url);
    let token = token.to_str().unwrap();
    for _ in 0..3 {
        let out = pentagrid(&["status", "--coordinator", &url, "--token-file", token])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        coordinator.0.try_wait().unwrap().is_none(),
        "the coordinator still runs"
    );
}

#[test]
fn text_logs_on_a_pipe_have_no_terminal_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let (coordinator, url, _) = start_coordinator(dir.path(), "text");
    common::wait_healthy(&url);
    let stderr = stderr_of(coordinator);
    let text = String::from_utf8(stderr).unwrap();
    assert!(text.contains("coordinator listening"), "{text}");
    assert!(!text.contains('\x1b'), "escape bytes in {text:?}");
}

#[test]
fn json_logs_are_one_object_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let (coordinator, url, _) = start_coordinator(dir.path(), "json");
    common::wait_healthy(&url);
    let stderr = stderr_of(coordinator);
    assert!(!stderr.contains(&0x1b));
    let text = String::from_utf8(stderr).unwrap();
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:?}")))
        .collect();
    let opened = events
        .iter()
        .find(|e| e["fields"]["message"] == "coordinator opened")
        .unwrap_or_else(|| panic!("no open event in {text}"));
    assert_eq!(opened["level"], "INFO");
    assert_eq!(
        opened["fields"]["queued"], 0,
        "fields stay structured: {opened}"
    );
}

/// A peer that takes connections and drops them at once (a coordinator dying mid-start, as
/// one on a damaged database does): `health` must fail, never pass for a quiet end of a
/// pipeline, whichever way the dropped connection surfaces (a reset, a broken pipe).
#[test]
fn health_fails_against_a_peer_that_hangs_up() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        // Half a read, then gone: the client is mid-handshake when the socket closes.
        for mut stream in listener.incoming().flatten() {
            let _ = stream.read(&mut [0; 16]);
        }
    });
    for _ in 0..20 {
        let out = pentagrid(&["health", "--coordinator", &url, "--timeout", "2"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "stdout {:?}, stderr {:?}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stderr.is_empty());
    }
}

/// `status` with more workers than one page lists: the true count, in text (which says the
/// list is cut) and in `--json` (`worker_count`).
#[test]
fn status_counts_every_worker_and_says_when_the_list_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let (db, token) = (dir.path().join("db"), dir.path().join("token"));
    std::fs::write(&token, "operations-token\n").unwrap();
    let (_coordinator, url) = common::coordinator(&db, &token);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = pentagrid_proto::connect(&url, "operations-token", None).unwrap();
        for chunk in (0..1_005).collect::<Vec<u32>>().chunks(8) {
            let mut calls = tokio::task::JoinSet::new();
            for &i in chunk {
                let mut client = client.clone();
                calls.spawn(async move {
                    client
                        .hello(pentagrid_proto::v2::HelloRequest {
                            worker_id: format!("w-{i}"),
                            name: format!("worker {i}"),
                            threads: 1,
                            engines: Vec::new(),
                            worker_key: String::new(),
                            speed: 0,
                        })
                        .await
                });
            }
            while let Some(answer) = calls.join_next().await {
                answer.unwrap().expect("hello");
            }
        }
    });
    let token = token.to_str().unwrap();
    let text = common::ok(&["status", "--coordinator", &url, "--token-file", token]);
    assert!(
        text.contains("workers   1005 (the first 1000 listed)\n"),
        "{text}"
    );
    let json = common::ok(&[
        "status",
        "--coordinator",
        &url,
        "--token-file",
        token,
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["worker_count"], 1005);
    assert_eq!(json["workers"].as_array().unwrap().len(), 1000);
}
