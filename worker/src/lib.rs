//! `pentagrid-worker`: connects to a coordinator, leases jobs, runs them on all cores with
//! rayon, heartbeats its leases, and submits results with retries (the same result id every
//! time, so a retry is harmless). It reconnects with jittered exponential backoff when the
//! coordinator is away, and on shutdown finishes its job and leaves.

mod accuracy;
pub mod engines;
mod execute;
mod identity;
mod job;
mod metrics;
mod retry;
mod session;
mod shipped;
mod speed;
mod standing;
mod timed_watch;

use std::path::PathBuf;

use tokio::sync::watch;

use session::Session;

pub use engines::EngineSettings;
pub use execute::{execute, execute_with_engines};
pub use identity::WorkerIdentity;
pub use metrics::{JobEnd, WorkerMetrics};
pub use speed::{SPEED_SIMULATIONS, measure_speed};

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// Coordinator URL, e.g. `http://127.0.0.1:7878`.
    pub coordinator: String,
    /// The shared token.
    pub token: String,
    /// PEM certificate authority for `https://` coordinators.
    pub tls_ca: Option<Vec<u8>>,
    /// Display name.
    pub name: String,
    /// Threads (search trees) per job.
    pub threads: usize,
    /// Append `result_id job_id applied|duplicate` here for every result the coordinator
    /// acknowledged.
    pub ack_log: Option<PathBuf>,
    /// Stop after this many results (for tests and benchmarks); `None` runs until shutdown.
    pub max_results: Option<u64>,
    /// How the worker picks its id: fresh per process, or kept across restarts.
    pub identity: WorkerIdentity,
    /// The external engine programs it may run (from its own configuration only) and how it
    /// referees them.
    pub engines: EngineSettings,
    /// The worker's speed in simulations per second of one thread of the default player, told
    /// to the coordinator, whose reference speed over it scales refereed time limits. `None`:
    /// measured ([`measure_speed`]) at the first hello whose coordinator has a reference speed
    /// (the hello itself says 0); `Some(0)`: unknown (time limits are never
    /// scaled); `Some(n)`: pinned by the operator (or a test).
    pub speed: Option<u64>,
}

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerReport {
    /// Results the coordinator acknowledged.
    pub acknowledged: u64,
    /// Results refused (invalid, or the lease was gone).
    pub refused: u64,
    /// Jobs abandoned because the lease was lost while running.
    pub abandoned: u64,
    /// Jobs that panicked, reported to the coordinator as failed.
    pub panicked: u64,
}

/// A failure that stops the worker.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The coordinator address or token is unusable.
    #[error(transparent)]
    Connect(#[from] pentagrid_proto::ConnectError),
    /// The coordinator refused us for good (wrong token, other protocol).
    #[error("the coordinator refused this worker: {0}")]
    Refused(String),
    /// The thread pool could not start.
    #[error("thread pool: {0}")]
    Pool(String),
    /// The acknowledgement log could not be written.
    #[error("acknowledgement log: {0}")]
    AckLog(std::io::Error),
    /// An external engine could not be set up.
    #[error(transparent)]
    Engine(#[from] engines::EngineStartError),
}

/// Runs the worker until `shutdown` turns true (or `max_results` are acknowledged).
pub async fn run(
    options: WorkerOptions,
    shutdown: watch::Receiver<bool>,
) -> Result<WorkerReport, WorkerError> {
    run_with_metrics(options, shutdown, WorkerMetrics::new()).await
}

/// [`run`], counting what the worker does into `metrics`.
pub async fn run_with_metrics(
    options: WorkerOptions,
    shutdown: watch::Receiver<bool>,
    metrics: WorkerMetrics,
) -> Result<WorkerReport, WorkerError> {
    Session::start(options, metrics)?.run(shutdown).await
}
