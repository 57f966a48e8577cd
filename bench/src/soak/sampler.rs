//! What the soak watches besides its workers: every second, the coordinator's resident set
//! and CPU time (`/proc/PID/status`, `/proc/PID/stat`), the machine's load average, and the
//! coordinator's Prometheus metrics (database size, stored positions, ingested
//! rows, expired leases, build selection time); and a heartbeat probe on a thread and runtime
//! of its own, so that a busy load generator does not delay its measurements.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use pentagrid_proto::v2;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::process::{CoordinatorProcess, cpu_seconds, load_average, rss_bytes};
use super::stats::Timed;

/// How often the probe sends a heartbeat.
const PROBE_EVERY: Duration = Duration::from_millis(20);

/// The coordinator's counters and gauges at one moment (zero when missing).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// `pentagrid_database_bytes`.
    pub database_bytes: f64,
    /// `pentagrid_stored_positions{source="playouts"}`: the book's size.
    pub positions: f64,
    /// `pentagrid_rows_ingested_total`.
    pub rows: f64,
    /// `pentagrid_results_total{outcome="applied"}`.
    pub applied: f64,
    /// `pentagrid_leases_total{event="expired"}`.
    pub expired: f64,
    /// `pentagrid_build_selection_seconds_sum`.
    pub selection_seconds: f64,
    /// `pentagrid_build_selection_cpu_seconds_sum`: the same in CPU time of the round's thread.
    pub selection_cpu_seconds: f64,
    /// `pentagrid_build_selection_seconds_count`: build rounds.
    pub rounds: f64,
    /// `pentagrid_build_jobs_queued_total`.
    pub build_jobs: f64,
    /// `pentagrid_build_choosing_cpu_seconds_total`: the part of the selection CPU time spent
    /// popping the frontier.
    pub choosing_cpu_seconds: f64,
    /// `pentagrid_build_walked_positions_total`: stored positions the frontier walked through.
    pub walked: f64,
    /// `pentagrid_jobs{state="queued"}`.
    pub queued: f64,
    /// `pentagrid_jobs{state="leased"}`.
    pub leased: f64,
}

impl Snapshot {
    /// The values of Prometheus text.
    #[must_use]
    pub fn parse(text: &str) -> Snapshot {
        let values: HashMap<&str, f64> = text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| {
                let (series, value) = line.rsplit_once(' ')?;
                Some((series, value.parse().ok()?))
            })
            .collect();
        let get = |series: &str| values.get(series).copied().unwrap_or(0.0);
        Snapshot {
            database_bytes: get("pentagrid_database_bytes"),
            positions: get("pentagrid_stored_positions{source=\"playouts\"}"),
            rows: get("pentagrid_rows_ingested_total"),
            applied: get("pentagrid_results_total{outcome=\"applied\"}"),
            expired: get("pentagrid_leases_total{event=\"expired\"}"),
            selection_seconds: get("pentagrid_build_selection_seconds_sum"),
            selection_cpu_seconds: get("pentagrid_build_selection_cpu_seconds_sum"),
            rounds: get("pentagrid_build_selection_seconds_count"),
            build_jobs: get("pentagrid_build_jobs_queued_total"),
            choosing_cpu_seconds: get("pentagrid_build_choosing_cpu_seconds_total"),
            walked: get("pentagrid_build_walked_positions_total"),
            queued: get("pentagrid_jobs{state=\"queued\"}"),
            leased: get("pentagrid_jobs{state=\"leased\"}"),
        }
    }
}

/// One second's look at the coordinator.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Sample {
    /// Seconds since the soak began.
    pub at: f64,
    /// Its resident set in bytes (0 if it could not be read).
    pub rss: u64,
    /// CPU seconds it has used so far.
    pub cpu: f64,
    /// The machine's one-minute load average.
    pub load: f64,
    /// Its metrics (the last ones read, if a scrape failed).
    pub metrics: Snapshot,
}

/// Samples the coordinator every second until `stop`, and once more after it; prints a
/// progress line every ten samples.
pub fn spawn(
    coordinator: &CoordinatorProcess,
    origin: Instant,
    mut stop: watch::Receiver<bool>,
) -> JoinHandle<Vec<Sample>> {
    let (pid, address) = (coordinator.pid(), coordinator.metrics.clone());
    tokio::spawn(async move {
        let mut samples = Vec::new();
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let mut last = Snapshot::default();
        loop {
            let stopping = tokio::select! {
                _ = tick.tick() => false,
                _ = stop.wait_for(|stopped| *stopped) => true,
            };
            if let Ok(text) = scrape(&address).await {
                last = Snapshot::parse(&text);
            }
            let sample = Sample {
                at: origin.elapsed().as_secs_f64(),
                rss: rss_bytes(pid).unwrap_or(0),
                cpu: cpu_seconds(pid).unwrap_or(0.0),
                load: load_average().unwrap_or(0.0),
                metrics: last,
            };
            if samples.len() % 10 == 9 {
                progress(&sample);
            }
            samples.push(sample);
            if stopping {
                return samples;
            }
        }
    })
}

fn progress(sample: &Sample) {
    let m = &sample.metrics;
    println!(
        "[{:4.0} s] load {:.1}, book {:.0} positions, rss {:.0} MB, database {:.0} MB, {:.0} results, {:.0} queued, {:.0} leased, {:.0} build jobs",
        sample.at,
        sample.load,
        m.positions,
        sample.rss as f64 / 1e6,
        m.database_bytes / 1e6,
        m.applied,
        m.queued,
        m.leased,
        m.build_jobs
    );
}

/// `GET /metrics` from `address` over plain HTTP/1.1.
async fn scrape(address: &str) -> std::io::Result<String> {
    let mut stream = tokio::net::TcpStream::connect(address).await?;
    let request = format!("GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await?;
    let text = String::from_utf8_lossy(&response);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    Ok(body.to_owned())
}

/// Heartbeats (with no leases) every [`PROBE_EVERY`] until `stop`, from a thread and runtime
/// of their own, with the worker `token`; returns their latencies.
pub fn probe(
    url: &str,
    token: &str,
    origin: Instant,
    stop: watch::Receiver<bool>,
) -> std::thread::JoinHandle<Vec<Timed>> {
    let (url, token) = (url.to_owned(), token.to_owned());
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return Vec::new();
        };
        runtime.block_on(async move {
            let Ok(mut client) = pentagrid_proto::connect(&url, &token, None) else {
                return Vec::new();
            };
            let hello = v2::HelloRequest {
                worker_id: "soak-probe".into(),
                name: "soak-probe".into(),
                threads: 1,
                engines: Vec::new(),
                worker_key: String::new(),
                speed: 0,
            };
            let Ok(reply) = client.hello(hello).await else {
                return Vec::new();
            };
            let session = reply.into_inner().session;
            let mut latencies = Vec::new();
            while !*stop.borrow() {
                let sent = Instant::now();
                let beat = v2::HeartbeatRequest {
                    worker_id: "soak-probe".into(),
                    lease_ids: Vec::new(),
                    session: session.clone(),
                };
                if client.heartbeat(beat).await.is_ok() {
                    latencies.push(Timed {
                        at: (sent - origin).as_secs_f64(),
                        ms: sent.elapsed().as_secs_f64() * 1e3,
                    });
                }
                tokio::time::sleep_until((sent + PROBE_EVERY).into()).await;
            }
            latencies
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_read_the_series_they_name() {
        let text = "# TYPE pentagrid_database_bytes gauge\n\
                    pentagrid_database_bytes 12345\n\
                    pentagrid_stored_positions{source=\"playouts\"} 1000001\n\
                    pentagrid_stored_positions{source=\"games\"} 7\n\
                    pentagrid_leases_total{event=\"expired\"} 2\n\
                    pentagrid_build_selection_seconds_sum 0.5\n\
                    pentagrid_build_selection_seconds_count 10\n\
                    pentagrid_build_jobs_queued_total 100\n\
                    pentagrid_build_choosing_cpu_seconds_total 0.25\n\
                    pentagrid_build_walked_positions_total 6500\n\
                    # EOF\n";
        let snapshot = Snapshot::parse(text);
        assert_eq!(snapshot.database_bytes, 12345.0);
        assert_eq!(snapshot.positions, 1_000_001.0);
        assert_eq!(snapshot.expired, 2.0);
        assert_eq!(
            (
                snapshot.selection_seconds,
                snapshot.rounds,
                snapshot.build_jobs
            ),
            (0.5, 10.0, 100.0)
        );
        assert_eq!(
            (snapshot.choosing_cpu_seconds, snapshot.walked),
            (0.25, 6500.0)
        );
        assert_eq!(snapshot.rows, 0.0);
    }
}
