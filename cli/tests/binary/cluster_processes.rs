//! The cluster as real processes of the `pentagrid` binary: a worker killed mid-job, a
//! coordinator killed while results stream in, and the guarantees that must survive both.

use crate::common;

use common::Process;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Cluster {
    dir: tempfile::TempDir,
    port: u16,
}

impl Cluster {
    fn new() -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("token"), "process-test-token\n").unwrap();
        // A free port, reused when the coordinator restarts.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Cluster { dir, port }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pentagrid"));
        command
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null());
        command
    }

    fn client(&self, args: &[&str]) -> std::process::Output {
        let url = self.url();
        let token = self.path("token");
        let mut all: Vec<&str> = args.to_vec();
        all.extend([
            "--coordinator",
            &url,
            "--token-file",
            token.to_str().unwrap(),
        ]);
        self.command(&all).output().unwrap()
    }

    fn start_coordinator(&self, lease_seconds: u32) -> Process {
        let listen = format!("127.0.0.1:{}", self.port);
        let lease = lease_seconds.to_string();
        let db = self.path("db");
        let token = self.path("token");
        let child = self
            .command(&[
                "coordinator",
                "--listen",
                &listen,
                "--db",
                db.to_str().unwrap(),
                "--token-file",
                token.to_str().unwrap(),
                "--lease-seconds",
                &lease,
            ])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let child = Process(child);
        let started = Instant::now();
        while !self.client(&["status", "--json"]).status.success() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "coordinator did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        child
    }

    fn start_worker(&self, name: &str, ack_log: Option<&Path>) -> Process {
        let url = self.url();
        let token = self.path("token");
        // Worker ids are kept here, not in the user's data directory.
        let state = self.path("worker-state");
        let mut args = vec![
            "worker",
            "--coordinator",
            &url,
            "--token-file",
            token.to_str().unwrap(),
            "--threads",
            "1",
            "--name",
            name,
            "--state-dir",
            state.to_str().unwrap(),
        ];
        let log = ack_log.map(|p| p.to_str().unwrap().to_owned());
        if let Some(log) = &log {
            args.extend(["--ack-log", log]);
        }
        Process(self.command(&args).spawn().unwrap())
    }

    fn status(&self) -> serde_json::Value {
        let out = self.client(&["status", "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        ready: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let started = Instant::now();
        loop {
            let status = self.status();
            if ready(&status) {
                return status;
            }
            assert!(
                started.elapsed() < timeout,
                "timed out waiting for {what}: {status}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn submit_analyses(&self, jobs: usize, playouts: u64) {
        let input: String = "start\n".repeat(jobs);
        let url = self.url();
        let token = self.path("token");
        let playouts = playouts.to_string();
        let mut child = self
            .command(&[
                "submit",
                "analyse",
                "-",
                "--playouts",
                &playouts,
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
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
    }
}

fn terminate(process: &mut Process) {
    let child = &mut process.0;
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_killed_workers_lease_expires_and_the_job_completes_elsewhere() {
    let cluster = Cluster::new();
    let mut coordinator = cluster.start_coordinator(2);
    cluster.submit_analyses(1, 3_000_000);
    let mut doomed = cluster.start_worker("doomed", None);
    cluster.wait_for("the job to be leased", Duration::from_secs(20), |s| {
        s["leased"] == 1
    });
    std::thread::sleep(Duration::from_millis(300));
    doomed.0.kill().unwrap(); // SIGKILL: no goodbye, no lease returned
    doomed.0.wait().unwrap();
    let mut rescuer = cluster.start_worker("rescuer", None);
    let status = cluster.wait_for("the job to finish", Duration::from_secs(120), |s| {
        s["done"] == 1
    });
    assert_eq!(status["failed"], 0);
    assert_eq!(status["playouts"], 3_000_000);
    let workers = status["workers"].as_array().unwrap();
    let rescuer_results: u64 = workers
        .iter()
        .filter(|w| w["name"] == "rescuer")
        .map(|w| w["results"].as_u64().unwrap())
        .sum();
    assert_eq!(rescuer_results, 1);
    terminate(&mut rescuer);
    terminate(&mut coordinator);
}

#[test]
fn a_killed_coordinator_keeps_every_acknowledged_result_exactly_once() {
    const JOBS: usize = 40;
    const PLAYOUTS: u64 = 60_000;
    let cluster = Cluster::new();
    let mut coordinator = cluster.start_coordinator(5);
    cluster.submit_analyses(JOBS, PLAYOUTS);
    let logs = [cluster.path("acks-1"), cluster.path("acks-2")];
    let mut workers = [
        cluster.start_worker("w1", Some(&logs[0])),
        cluster.start_worker("w2", Some(&logs[1])),
    ];
    cluster.wait_for("results to stream in", Duration::from_secs(60), |s| {
        s["done"].as_u64().unwrap() >= 6
    });
    coordinator.0.kill().unwrap(); // SIGKILL while workers keep submitting
    coordinator.0.wait().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // The integrity manifest written before the kill never claims more than sled made
    // durable: the restart passes the open check (start_coordinator waits for it to serve).
    assert!(cluster.path("db").join("pentagrid.manifest").exists());
    let mut coordinator = cluster.start_coordinator(5);
    let status = cluster.wait_for("every job to finish", Duration::from_secs(120), |s| {
        s["done"] == JOBS as u64
    });
    for worker in &mut workers {
        terminate(worker);
    }
    terminate(&mut coordinator);

    // Nothing lost, nothing twice: the stored playouts are exactly one result per job.
    assert_eq!(status["playouts"], JOBS as u64 * PLAYOUTS, "{status}");
    // Every job's result was acknowledged to some worker, and applied only once.
    let mut applied: HashMap<String, usize> = HashMap::new();
    let mut acknowledged = HashSet::new();
    for log in &logs {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        for line in text.lines() {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields.len(), 3, "{line}");
            acknowledged.insert(fields[1].to_owned());
            if fields[2] == "applied" {
                *applied.entry(fields[1].to_owned()).or_default() += 1;
            }
        }
    }
    assert_eq!(acknowledged.len(), JOBS, "every job acknowledged");
    assert!(
        applied.values().all(|&n| n == 1),
        "a job applied twice: {applied:?}"
    );
    // After the restart the database still answers with the same totals.
    let mut coordinator = cluster.start_coordinator(5);
    assert_eq!(cluster.status()["playouts"], JOBS as u64 * PLAYOUTS);
    terminate(&mut coordinator);
}

#[test]
fn a_match_survives_a_worker_killed_mid_pair() {
    const PAIRS: u64 = 4;
    let cluster = Cluster::new();
    let mut coordinator = cluster.start_coordinator(2);
    let url = cluster.url();
    let token = cluster.path("token");
    let pairs = PAIRS.to_string();
    let runner = cluster
        .command(&[
            "match",
            "--a",
            "uct:playouts=4000",
            "--b",
            "uct:playouts=400",
            "--pairs",
            &pairs,
            "--json",
            "--coordinator",
            &url,
            "--token-file",
            token.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut doomed = cluster.start_worker("doomed", None);
    cluster.wait_for("a pair to be leased", Duration::from_secs(20), |s| {
        s["leased"] == 1 && s["done"] == 0
    });
    std::thread::sleep(Duration::from_millis(300));
    doomed.0.kill().unwrap(); // mid-pair, without returning the lease
    doomed.0.wait().unwrap();
    let mut rescuer = cluster.start_worker("rescuer", None);
    let output = runner.wait_with_output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let first: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    let id = first["match_id"].to_string();
    let shown = cluster.client(&["match", "show", &id, "--games", "--json"]);
    assert!(shown.status.success());
    let report: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    terminate(&mut rescuer);
    terminate(&mut coordinator);

    // Every pair exactly once: counts, pentanomial and stored games all agree.
    assert_eq!(report["state"], "complete", "{report}");
    assert_eq!(report["pairs_done"], PAIRS);
    let games = ["wins", "draws", "losses"].map(|k| report[k].as_u64().unwrap());
    assert_eq!(games.iter().sum::<u64>(), 2 * PAIRS);
    let pentanomial: u64 = report["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(pentanomial, PAIRS);
    let mut per_pair: HashMap<u64, usize> = HashMap::new();
    for game in report["games"].as_array().unwrap() {
        *per_pair.entry(game["pair"].as_u64().unwrap()).or_default() += 1;
    }
    assert_eq!(per_pair, (0..PAIRS).map(|p| (p, 2)).collect());
    // The client's last live line saw the same totals.
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["pentanomial"], report["pentanomial"]);
}
