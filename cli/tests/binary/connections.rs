//! The real coordinator under a lowered descriptor limit: idle sockets, handshakes that never
//! complete and whole HTTP/2 prefaces with no request after them do not lock out a fresh
//! client, and the accept loop does not spin.

use crate::common;

use common::Process;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Descriptors the coordinator may open.
const DESCRIPTORS: u32 = 256;

/// A coordinator with at most [`DESCRIPTORS`] open files (`ulimit -n`), WARN logs on its
/// standard error; returns it and its URL once it serves.
fn start(dir: &std::path::Path) -> (Process, String) {
    let token = dir.join("token");
    std::fs::write(&token, "connections-token\n").unwrap();
    let db = dir.join("db");
    let script = format!(
        "ulimit -n {DESCRIPTORS} && exec \"$0\" coordinator --listen 127.0.0.1:0 --db \"$1\" --token-file \"$2\""
    );
    let mut child = Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_pentagrid")])
        .arg(&db)
        .arg(&token)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "no address printed"
        );
        if let Some(address) = line.trim().strip_prefix("coordinator listening on ") {
            break format!("http://{address}");
        }
    };
    std::thread::spawn(move || stdout.lines().for_each(drop));
    (Process(child), url)
}

/// CPU seconds (user + system) `pid` has used, from /proc.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // The kernel's USER_HZ is 100 on every Linux the project supports.
    ticks / 100.0
}

/// `pentagrid status` from a fresh process; returns how long it took.
fn timed_status(url: &str, dir: &std::path::Path) -> Duration {
    let token = dir.join("token");
    let started = Instant::now();
    let out = common::pentagrid(&[
        "status",
        "--coordinator",
        url,
        "--token-file",
        token.to_str().unwrap(),
    ]);
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "status failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// Opens `n` connections to `url`'s port, each sending `first` (maybe nothing) and then
/// nothing more.
fn open_idle(url: &str, n: usize, first: &[u8]) -> Vec<TcpStream> {
    let address = url.trim_start_matches("http://");
    (0..n)
        .filter_map(|_| {
            let mut stream = TcpStream::connect(address).ok()?;
            let _ = stream.write_all(first);
            Some(stream)
        })
        .collect()
}

/// The flood, then a fresh client, then the coordinator's CPU over a quiet window.
fn flood_then_call(first: &[u8]) -> (Duration, f64, String) {
    let dir = tempfile::tempdir().unwrap();
    let (mut process, url) = start(dir.path());
    let pid = process.0.id();
    let idle = open_idle(&url, 1_100, first);
    assert!(
        idle.len() > DESCRIPTORS as usize,
        "only {} connected",
        idle.len()
    );
    // Let the coordinator meet the flood.
    std::thread::sleep(Duration::from_millis(500));
    let took = timed_status(&url, dir.path());
    let (cpu_before, window) = (cpu_seconds(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(2));
    let cpu = (cpu_seconds(pid) - cpu_before) / window.elapsed().as_secs_f64();
    drop(idle);
    let _ = process.0.kill();
    let _ = process.0.wait();
    let mut stderr = String::new();
    process
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (took, cpu, stderr)
}

fn check(first: &[u8]) {
    let (took, cpu, stderr) = flood_then_call(first);
    eprintln!(
        "status after the flood: {took:?}; coordinator CPU over 2 s: {:.1}%",
        cpu * 100.0
    );
    // The issue asks for 1 s; a loaded 2-core machine gets room for process start-up.
    assert!(took < Duration::from_secs(5), "status took {took:?}");
    assert!(
        cpu < 0.3,
        "the coordinator used {:.0}% of a core while idle",
        cpu * 100.0
    );
    let warnings = stderr.matches("out of file descriptors").count();
    assert!(warnings <= 1, "logged {warnings} times:\n{stderr}");
}

#[test]
fn idle_sockets_past_the_descriptor_limit_do_not_lock_out_a_fresh_client() {
    check(b"");
}

#[test]
fn handshakes_that_never_complete_do_not_lock_out_a_fresh_client() {
    check(b"PRI * HTTP/2.0\r\n");
}

#[test]
fn whole_http2_prefaces_past_the_descriptor_limit_do_not_lock_out_a_fresh_client() {
    // The preface is not a request: these connections stay the first to be closed.
    check(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
}

/// Runs `pentagrid coordinator` with `args` on free ports; it must fail. Returns its
/// standard output and error.
fn failed_start(args: &[&str]) -> (String, String) {
    let mut all = vec!["coordinator", "--listen", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let out = common::pentagrid(&all);
    assert!(!out.status.success(), "{args:?} started");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_over_long_token_is_refused_at_start_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "t".repeat(133_000)).unwrap();
    let db = dir.path().join("db");
    let (stdout, stderr) = failed_start(&[
        "--db",
        db.to_str().unwrap(),
        "--token-file",
        token.to_str().unwrap(),
    ]);
    assert!(
        stderr.contains("133000 bytes long; at most 1024"),
        "{stderr}"
    );
    assert!(!stdout.contains("listening"), "{stdout}");
}

#[test]
fn listening_is_printed_only_once_tls_and_the_database_are_ready() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "start-token\n").unwrap();
    let bad = dir.path().join("bad.pem");
    std::fs::write(&bad, "not a certificate").unwrap();
    let db = dir.path().join("db");
    let (stdout, stderr) = failed_start(&[
        "--db",
        db.to_str().unwrap(),
        "--token-file",
        token.to_str().unwrap(),
        "--tls-cert",
        bad.to_str().unwrap(),
        "--tls-key",
        bad.to_str().unwrap(),
    ]);
    assert!(!stdout.contains("listening"), "{stdout}\n{stderr}");
    assert!(!stderr.is_empty());
    // A second coordinator on a database in use fails on its lock, silently as to listening.
    let (_first, _url) = start(dir.path());
    let (stdout, stderr) = failed_start(&[
        "--db",
        db.to_str().unwrap(),
        "--token-file",
        token.to_str().unwrap(),
    ]);
    assert!(!stdout.contains("listening"), "{stdout}\n{stderr}");
}

#[test]
fn connection_limits_out_of_range_are_refused_at_start() {
    let (_, stderr) = failed_start(&["--idle-timeout", "10", "--token-file", "/nonexistent"]);
    assert!(stderr.contains("idle timeout"), "{stderr}");
    let (_, stderr) = failed_start(&["--max-connections", "0", "--token-file", "/nonexistent"]);
    assert!(
        stderr.contains("max connections must be from 1"),
        "{stderr}"
    );
}
