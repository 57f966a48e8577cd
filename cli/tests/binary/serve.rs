//! `pentagrid serve` as a real process beside a real coordinator process with one token per
//! role: it refuses to start when the coordinator is unreachable or refuses the token (a wrong
//! one, or a worker's), and with the read token it serves every route of the explorer.

use crate::common;

use common::Process;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn pentagrid(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pentagrid"));
    command
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null());
    command
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Writes one token file per role into `dir`.
fn role_tokens(dir: &Path) {
    for role in ["worker", "admin", "read"] {
        std::fs::write(
            dir.join(format!("{role}.token")),
            format!("serve-test-{role}\n"),
        )
        .unwrap();
    }
}

/// Starts a coordinator with the per-role token files of `dir` on a free port; returns it and
/// its URL.
fn coordinator(dir: &Path) -> (Process, String) {
    let port = free_port();
    let token = |role: &str| {
        dir.join(format!("{role}.token"))
            .to_str()
            .unwrap()
            .to_owned()
    };
    let child = pentagrid(&[
        "coordinator",
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--db",
        dir.join("db").to_str().unwrap(),
        "--worker-token-file",
        &token("worker"),
        "--admin-token-file",
        &token("admin"),
        "--read-token-file",
        &token("read"),
    ])
    .stdout(Stdio::piped())
    .spawn()
    .expect("start the coordinator");
    let mut process = Process(child);
    let mut line = String::new();
    BufReader::new(process.0.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .expect("the coordinator's first line");
    assert!(line.contains("listening"), "{line}");
    let url = format!("http://127.0.0.1:{port}");
    common::wait_healthy(&url);
    (process, url)
}

fn serve_fails(url: &str, token_file: &Path) -> String {
    let out = pentagrid(&[
        "serve",
        "--coordinator",
        url,
        "--token-file",
        token_file.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ])
    .output()
    .expect("run serve");
    assert!(!out.status.success(), "serve started against {url}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `GET path` over HTTP/1.1 with std alone: (status line, body).
fn http_get(address: &str, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(address).expect("connect to the explorer");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP answer");
    (
        head.lines().next().unwrap_or_default().to_owned(),
        body.to_owned(),
    )
}

#[test]
fn serve_refuses_an_unreachable_coordinator_and_a_refused_token_then_serves_with_the_read_token() {
    let dir = tempfile::tempdir().unwrap();
    role_tokens(dir.path());
    let token = dir.path().join("read.token");
    let wrong = dir.path().join("wrong-token");
    std::fs::write(&wrong, "not-the-token\n").unwrap();

    let nobody = format!("http://127.0.0.1:{}", free_port());
    let message = serve_fails(&nobody, &token);
    assert!(
        message.contains("cannot start") && message.contains("unreachable"),
        "{message}"
    );

    let (_coordinator, url) = coordinator(dir.path());
    let message = serve_fails(&url, &wrong);
    assert!(
        message.contains("cannot start") && message.contains("refused"),
        "{message}"
    );
    // A worker's token may not read: the explorer says which role it needs.
    let message = serve_fails(&url, &dir.path().join("worker.token"));
    assert!(
        message.contains("cannot start") && message.contains("read"),
        "{message}"
    );

    // A tablebase folder that is not there: a clear error naming it, before anything is served.
    let missing = dir.path().join("no-such-slices");
    let out = pentagrid(&[
        "serve",
        "--coordinator",
        &url,
        "--token-file",
        token.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--tablebase",
        missing.to_str().unwrap(),
    ])
    .output()
    .expect("run serve");
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(message.contains("no-such-slices"), "{message}");

    let mut serve = pentagrid(&[
        "serve",
        "--coordinator",
        &url,
        "--token-file",
        token.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ])
    .stdout(Stdio::piped())
    .spawn()
    .map(Process)
    .expect("start serve");
    let mut line = String::new();
    let started = Instant::now();
    BufReader::new(serve.0.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .expect("the explorer's first line");
    assert!(started.elapsed() < Duration::from_secs(30));
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    let (status, body) = http_get(&address, "/api/v1/cluster");
    assert!(status.contains("200"), "{status}");
    let cluster: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(cluster["jobs"]["done"], 0);
    // Every read route answers with the read token alone.
    for path in [
        "/api/v1/book?position=start",
        "/api/v1/book/line?position=start&moves=b5-1R",
        "/api/v1/puzzles",
        "/api/v1/matches",
        "/api/v1/openapi.json",
        "/api/v1/exact?position=start",
        "/api/v1/exact/solver",
    ] {
        let (status, body) = http_get(&address, path);
        assert!(status.contains("200"), "{path}: {status} {body}");
        serde_json::from_str::<serde_json::Value>(&body)
            .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}"));
    }
    let (status, body) = http_get(&address, "/api/v1/book?position=nonsense");
    assert!(status.contains("400"), "{status}");
    assert!(body.contains("bad position"), "{body}");
    // The analysis board knows the start from the shipped tablebase: black wins.
    let (_, body) = http_get(&address, "/api/v1/exact?position=start");
    let exact: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        (&exact["value"], &exact["source"]),
        (&"win".into(), &"table".into())
    );
    let (status, page) = http_get(&address, "/");
    assert!(status.contains("200") && page.contains("<svg id=\"board\">"));
}

#[test]
fn run_serve_keeps_the_embedded_cluster_up_and_prints_the_explorer_url() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let mut run = pentagrid(&[
        "run",
        "--db",
        db.to_str().unwrap(),
        "--games",
        "1",
        "--selfplay",
        "random",
        "--playouts",
        "200",
        "--depth",
        "0",
        "--no-studies",
        "--puzzles",
        "0",
        "--serve",
        "--serve-listen",
        "127.0.0.1:0",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .map(Process)
    .expect("start run --serve");
    let stdout = BufReader::new(run.0.stdout.take().unwrap());
    let line = stdout
        .lines()
        .map_while(Result::ok)
        .find(|line| line.starts_with("explorer on http://"))
        .expect("run --serve prints the explorer's URL after its summary");
    let address = line["explorer on http://".len()..]
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let (status, body) = http_get(&address, "/api/v1/cluster");
    assert!(status.contains("200"), "{status}");
    let cluster: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        cluster["jobs"]["done"], 2,
        "the campaign's self-play game and analysis"
    );
    assert_eq!(cluster["stored"]["games"], 1);
}
