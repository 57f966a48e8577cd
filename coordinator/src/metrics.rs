//! The coordinator's Prometheus metrics: counters bumped where jobs are queued, leases change
//! hands and results are applied or refused; RPC latency histograms from a tower layer; and
//! gauges set at scrape time from a [`MetricsSnapshot`] of the coordinator's status, so they
//! never drift from it. A leaf: it knows no service, only the plain data they hand it.
//! Metric names are documented in the README ("Metrics") and are stable.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

/// One label: a fixed name and a value from a small, closed set.
type Label = [(&'static str, &'static str); 1];

/// RPC latency buckets, in seconds: from a fast status call to a submit waiting on a group commit.
const RPC_BUCKETS: [f64; 12] = [
    0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0,
];

/// Book build round buckets, in seconds: from a round that only checks its flights to one that
/// pops its whole bound of heap entries through a big book.
const BUILD_ROUND_BUCKETS: [f64; 10] = [
    0.000_1, 0.000_25, 0.001, 0.002_5, 0.01, 0.025, 0.1, 0.25, 1.0, 5.0,
];

/// What happened to a lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseEvent {
    /// Handed to a worker.
    Granted,
    /// Ran out without a heartbeat; the job went back to the queue (or failed).
    Expired,
    /// Given back by a worker that stops.
    Returned,
}

/// Why a submitted result was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusedReason {
    /// The submitter does not hold the job's lease (expired, re-leased, or finished elsewhere).
    NotLeased,
    /// The result failed validation (illegal moves, impossible counts, wrong budget).
    Invalid,
    /// The submission was malformed (bad worker or result id, a result id reused).
    Malformed,
    /// The worker is quarantined (cross-checks caught it with wrong claims).
    Quarantined,
}

/// How a submitted result was answered (a failure of the coordinator itself is not counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultAnswer {
    /// Validated, stored, durable.
    Applied,
    /// Applied before; nothing changed.
    Duplicate,
    /// Refused, for this reason.
    Refused(RefusedReason),
}

/// What the gauges show: the coordinator's status, read at scrape time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetricsSnapshot {
    /// Jobs queued, leased, done, failed, cancelled and quarantined, in that order.
    pub jobs: [u64; 6],
    /// Workers seen within one lease duration.
    pub workers_connected: u64,
    /// Playouts in the stored move tables.
    pub playouts: u64,
    /// Self-play games in the stored move tables.
    pub games: u64,
    /// Positions with a stored move table from playouts.
    pub playout_positions: u64,
    /// Positions with a stored move table from games.
    pub game_positions: u64,
    /// The database's sizes, where they could be read (the gauges keep their last value else).
    pub sizes: Option<SizeGauges>,
}

/// The database's size and contents, for the gauges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SizeGauges {
    /// Bytes on disk.
    pub bytes_on_disk: u64,
    /// Published puzzles.
    pub puzzles: u64,
    /// Engine matches.
    pub matches: u64,
}

/// The job states of [`MetricsSnapshot::jobs`], as labelled.
const JOB_STATES: [&str; 6] = [
    "queued",
    "leased",
    "done",
    "failed",
    "cancelled",
    "quarantined",
];

impl LeaseEvent {
    fn label(self) -> Label {
        [(
            "event",
            match self {
                LeaseEvent::Granted => "granted",
                LeaseEvent::Expired => "expired",
                LeaseEvent::Returned => "returned",
            },
        )]
    }
}

impl RefusedReason {
    fn label(self) -> Label {
        [(
            "reason",
            match self {
                RefusedReason::NotLeased => "not_leased",
                RefusedReason::Invalid => "invalid",
                RefusedReason::Malformed => "malformed",
                RefusedReason::Quarantined => "quarantined",
            },
        )]
    }
}

/// The coordinator's metrics; cheap to clone (one shared registry).
#[derive(Clone, Debug)]
pub struct Metrics(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    /// The registry, locked while gauges are set and the text is written.
    registry: Mutex<Registry>,
    rpc_seconds: Family<Label, Histogram>,
    jobs_queued: Family<Label, Counter>,
    leases: Family<Label, Counter>,
    results: Family<Label, Counter>,
    refused: Family<Label, Counter>,
    rows_ingested: Counter,
    build_selection_seconds: Histogram,
    build_selection_cpu_seconds: Histogram,
    build_jobs_queued: Counter,
    build_choosing_cpu_seconds: Counter<f64, AtomicU64>,
    build_walked_positions: Counter,
    up: Gauge,
    jobs: Family<Label, Gauge>,
    workers: Gauge,
    playouts: Gauge,
    games: Gauge,
    positions: Family<Label, Gauge>,
    database_bytes: Gauge,
    puzzles: Gauge,
    matches: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A fresh set of metrics with its own registry.
    #[must_use]
    pub fn new() -> Metrics {
        let inner = Inner {
            registry: Mutex::new(Registry::with_prefix("pentagrid")),
            rpc_seconds: Family::new_with_constructor(|| Histogram::new(RPC_BUCKETS)),
            jobs_queued: Family::default(),
            leases: Family::default(),
            results: Family::default(),
            refused: Family::default(),
            rows_ingested: Counter::default(),
            build_selection_seconds: Histogram::new(BUILD_ROUND_BUCKETS),
            build_selection_cpu_seconds: Histogram::new(BUILD_ROUND_BUCKETS),
            build_jobs_queued: Counter::default(),
            build_choosing_cpu_seconds: Counter::default(),
            build_walked_positions: Counter::default(),
            up: Gauge::default(),
            jobs: Family::default(),
            workers: Gauge::default(),
            playouts: Gauge::default(),
            games: Gauge::default(),
            positions: Family::default(),
            database_bytes: Gauge::default(),
            puzzles: Gauge::default(),
            matches: Gauge::default(),
        };
        {
            let mut registry = inner.registry.lock().expect("a fresh lock");
            registry.register_with_unit(
                "rpc",
                "gRPC calls by method, time to the response headers",
                Unit::Seconds,
                inner.rpc_seconds.clone(),
            );
            registry.register(
                "jobs_queued",
                "Jobs queued, by kind",
                inner.jobs_queued.clone(),
            );
            registry.register(
                "leases",
                "Lease events: granted, expired, returned",
                inner.leases.clone(),
            );
            registry.register(
                "results",
                "Results submitted, by outcome: applied, duplicate, refused",
                inner.results.clone(),
            );
            registry.register(
                "results_refused",
                "Refused results, by reason",
                inner.refused.clone(),
            );
            registry.register(
                "rows_ingested",
                "Move-table rows of applied results",
                inner.rows_ingested.clone(),
            );
            registry.register_with_unit(
                "build_selection",
                "Time each book build round spends choosing positions (taking in finished jobs \
                 and popping the frontier, on a blocking thread)",
                Unit::Seconds,
                inner.build_selection_seconds.clone(),
            );
            registry.register_with_unit(
                "build_selection_cpu",
                "CPU time of the blocking thread in each book build round (the round's cost, \
                 without time spent waiting for a CPU)",
                Unit::Seconds,
                inner.build_selection_cpu_seconds.clone(),
            );
            registry.register(
                "build_jobs_queued",
                "Jobs queued by book build rounds",
                inner.build_jobs_queued.clone(),
            );
            registry.register_with_unit(
                "build_choosing_cpu",
                "The part of the book build rounds' CPU time spent popping the frontier (the \
                 rest takes in finished jobs)",
                Unit::Seconds,
                inner.build_choosing_cpu_seconds.clone(),
            );
            registry.register(
                "build_walked_positions",
                "Positions the book build frontier popped that already had a stored table or \
                 value (the walk through the stored book that its picks waited on)",
                inner.build_walked_positions.clone(),
            );
            registry.register(
                "up",
                "1 when the database is open and the coordinator serves, else 0",
                inner.up.clone(),
            );
            registry.register(
                "jobs",
                "Jobs by state (queued, leased, done, failed, cancelled, quarantined) at scrape time",
                inner.jobs.clone(),
            );
            registry.register(
                "workers_connected",
                "Workers seen within one lease duration",
                inner.workers.clone(),
            );
            registry.register(
                "stored_playouts",
                "Playouts in the stored move tables",
                inner.playouts.clone(),
            );
            registry.register(
                "stored_games",
                "Self-play games in the stored move tables",
                inner.games.clone(),
            );
            registry.register(
                "stored_positions",
                "Positions with a stored move table, by source (playouts, games)",
                inner.positions.clone(),
            );
            registry.register_with_unit(
                "database",
                "Size of the database on disk",
                Unit::Bytes,
                inner.database_bytes.clone(),
            );
            registry.register(
                "stored_puzzles",
                "Published puzzles in the database",
                inner.puzzles.clone(),
            );
            registry.register(
                "stored_matches",
                "Engine matches in the database",
                inner.matches.clone(),
            );
        }
        Metrics(Arc::new(inner))
    }

    /// Counts a queued job of `kind` (`analyse`, `selfplay`, `pair`, …).
    pub fn job_queued(&self, kind: &'static str) {
        self.0.jobs_queued.get_or_create(&[("kind", kind)]).inc();
    }

    /// Counts `n` lease events.
    pub fn leases(&self, event: LeaseEvent, n: usize) {
        self.0.leases.get_or_create(&event.label()).inc_by(n as u64);
    }

    /// Counts a submitted result by how it was answered.
    pub fn result(&self, answer: ResultAnswer) {
        let outcome = match answer {
            ResultAnswer::Applied => "applied",
            ResultAnswer::Duplicate => "duplicate",
            ResultAnswer::Refused(reason) => {
                self.0.refused.get_or_create(&reason.label()).inc();
                "refused"
            }
        };
        self.0.results.get_or_create(&[("outcome", outcome)]).inc();
    }

    /// Counts the move-table rows of an applied result.
    pub fn rows_ingested(&self, rows: usize) {
        self.0.rows_ingested.inc_by(rows as u64);
    }

    /// Records the choosing part of a book build round: its CPU time (where measured) and the
    /// stored positions it walked through.
    pub fn build_choosing(&self, cpu: Option<Duration>, walked: u64) {
        if let Some(cpu) = cpu {
            self.0.build_choosing_cpu_seconds.inc_by(cpu.as_secs_f64());
        }
        self.0.build_walked_positions.inc_by(walked);
    }

    /// Records one book build round: the wall and CPU time it spent choosing (CPU time where
    /// the platform measures it), and the jobs it queued.
    pub fn build_round(&self, wall: Duration, cpu: Option<Duration>, jobs: usize) {
        self.0.build_selection_seconds.observe(wall.as_secs_f64());
        if let Some(cpu) = cpu {
            self.0
                .build_selection_cpu_seconds
                .observe(cpu.as_secs_f64());
        }
        self.0.build_jobs_queued.inc_by(jobs as u64);
    }

    /// Records one RPC's latency.
    pub fn rpc(&self, method: &str, seconds: f64) {
        // Only the last path segment: the set of methods is small and fixed.
        let method = rpc_method(method);
        self.0
            .rpc_seconds
            .get_or_create(&[("method", method)])
            .observe(seconds);
    }

    /// The metrics as Prometheus text (OpenMetrics), with the gauges set from `snapshot`
    /// (`None` while the database is still opening, or when its status could not be read:
    /// `up` is then 0).
    #[must_use]
    pub fn render(&self, snapshot: Option<&MetricsSnapshot>) -> String {
        let registry = self
            .0
            .registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.0.up.set(i64::from(snapshot.is_some()));
        if let Some(snapshot) = snapshot {
            self.set_gauges(snapshot);
        }
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
        text
    }
}

impl Metrics {
    fn set_gauges(&self, snapshot: &MetricsSnapshot) {
        for (state, n) in JOB_STATES.into_iter().zip(snapshot.jobs) {
            self.0.jobs.get_or_create(&[("state", state)]).set(gauge(n));
        }
        self.0.workers.set(gauge(snapshot.workers_connected));
        self.0.playouts.set(gauge(snapshot.playouts));
        self.0.games.set(gauge(snapshot.games));
        for (source, n) in [
            ("playouts", snapshot.playout_positions),
            ("games", snapshot.game_positions),
        ] {
            self.0
                .positions
                .get_or_create(&[("source", source)])
                .set(gauge(n));
        }
        if let Some(sizes) = snapshot.sizes {
            self.0.database_bytes.set(gauge(sizes.bytes_on_disk));
            self.0.puzzles.set(gauge(sizes.puzzles));
            self.0.matches.set(gauge(sizes.matches));
        }
    }
}

fn gauge(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The interned method name of a gRPC path `/package.Service/Method`.
fn rpc_method(path: &str) -> &'static str {
    const METHODS: [&str; 20] = [
        "Hello",
        "Lease",
        "Heartbeat",
        "Submit",
        "ReturnLeases",
        "SubmitJobs",
        "CancelJobs",
        "Status",
        "BookShow",
        "CreateMatch",
        "GeneratePuzzles",
        "ListPuzzles",
        "StartBuild",
        "BuildStatus",
        "BookExport",
        "BookImport",
        "GetGames",
        "MatchStatus",
        "Check",
        "Watch",
    ];
    let name = path.rsplit('/').next().unwrap_or("");
    METHODS
        .iter()
        .find(|m| **m == name)
        .copied()
        .unwrap_or("other")
}

/// A tower layer that times every gRPC call into [`Metrics`].
#[derive(Clone, Debug)]
pub struct RpcLatencyLayer(pub Metrics);

impl<S> tower_layer::Layer<S> for RpcLatencyLayer {
    type Service = RpcLatency<S>;

    fn layer(&self, inner: S) -> RpcLatency<S> {
        RpcLatency {
            inner,
            metrics: self.0.clone(),
        }
    }
}

/// The service [`RpcLatencyLayer`] wraps around the router.
#[derive(Clone, Debug)]
pub struct RpcLatency<S> {
    inner: S,
    metrics: Metrics,
}

impl<S, B> tower_service::Service<http::Request<B>> for RpcLatency<S>
where
    S: tower_service::Service<http::Request<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let method = rpc_method(request.uri().path());
        let metrics = self.metrics.clone();
        let started = Instant::now();
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await;
            metrics.rpc(method, started.elapsed().as_secs_f64());
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_appear_with_their_labels_and_histograms_with_buckets() {
        let metrics = Metrics::new();
        metrics.leases(LeaseEvent::Granted, 3);
        metrics.result(ResultAnswer::Refused(RefusedReason::Invalid));
        metrics.rpc("/pentagrid.v1.Coordinator/Submit", 0.003);
        metrics.build_round(Duration::from_millis(2), Some(Duration::from_millis(1)), 7);
        metrics.build_choosing(Some(Duration::from_micros(500)), 40);
        let text = metrics.render(None);
        assert!(
            text.contains("pentagrid_leases_total{event=\"granted\"} 3\n"),
            "{text}"
        );
        assert!(text.contains("pentagrid_results_refused_total{reason=\"invalid\"} 1\n"));
        assert!(text.contains("pentagrid_results_total{outcome=\"refused\"} 1\n"));
        assert!(text.contains("pentagrid_rpc_seconds_bucket{le=\"0.005\",method=\"Submit\"} 1\n"));
        assert!(text.contains("pentagrid_rpc_seconds_bucket{le=\"0.0025\",method=\"Submit\"} 0\n"));
        assert!(text.contains("pentagrid_up 0\n"));
        assert!(
            text.contains("pentagrid_build_selection_seconds_count 1\n"),
            "{text}"
        );
        assert!(
            text.contains("pentagrid_build_selection_cpu_seconds_sum 0.001\n"),
            "{text}"
        );
        assert!(text.contains("pentagrid_build_jobs_queued_total 7\n"));
        assert!(
            text.contains("pentagrid_build_choosing_cpu_seconds_total 0.0005\n"),
            "{text}"
        );
        assert!(text.contains("pentagrid_build_walked_positions_total 40\n"));
    }

    #[test]
    fn gauges_show_the_snapshot_and_keep_sizes_that_could_not_be_read() {
        let metrics = Metrics::new();
        let mut snapshot = MetricsSnapshot {
            jobs: [1, 2, 3, 4, 5, 6],
            workers_connected: 7,
            playouts: 8,
            games: 9,
            playout_positions: 10,
            game_positions: 11,
            sizes: Some(SizeGauges {
                bytes_on_disk: 12,
                puzzles: 13,
                matches: 14,
            }),
        };
        let text = metrics.render(Some(&snapshot));
        for line in [
            "pentagrid_up 1\n",
            "pentagrid_jobs{state=\"queued\"} 1\n",
            "pentagrid_jobs{state=\"quarantined\"} 6\n",
            "pentagrid_workers_connected 7\n",
            "pentagrid_stored_playouts 8\n",
            "pentagrid_stored_positions{source=\"games\"} 11\n",
            "pentagrid_database_bytes 12\n",
            "pentagrid_stored_matches 14\n",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
        snapshot.sizes = None;
        snapshot.games = 90;
        let text = metrics.render(Some(&snapshot));
        assert!(text.contains("pentagrid_stored_games 90\n"), "{text}");
        assert!(text.contains("pentagrid_database_bytes 12\n"), "{text}");
        assert!(metrics.render(None).contains("pentagrid_up 0\n"));
    }

    #[test]
    fn unknown_methods_share_one_label() {
        assert_eq!(rpc_method("/grpc.health.v1.Health/Check"), "Check");
        assert_eq!(rpc_method("/x.Y/SomethingElse"), "other");
        assert_eq!(rpc_method(""), "other");
    }
}
