//! The soak benchmark: one real `pentagrid coordinator` process on a real sled database in a
//! temporary directory, and at the same time, over loopback gRPC:
//! - simulated workers speaking the real worker protocol with the worker credential (hello,
//!   lease, heartbeat every `heartbeat_seconds` while a job runs, submit, return leases when
//!   stopped), each job sleeping 0.5–2 s and answering with a result the coordinator accepts
//!   ([`outcome`]);
//! - with the admin credential: a book build from the start through a pre-filled tree book
//!   (imported before the coordinator starts; the build's one walk through it is done before
//!   the soak's clock starts and reported apart), a match, puzzle mining rounds, and an analysis
//!   campaign that keeps the queue topped up as another user's `pentagrid run` would ([`admin`]);
//! - a heartbeat probe on its own thread and runtime, and a sampler that reads the
//!   coordinator's RSS (`/proc/PID/status`) and its Prometheus metrics every second
//!   ([`sampler`]).
//!
//! [`run`] returns a [`SoakReport`]: latencies, lost leases, ingest, selection cost, RSS and
//! database size over time, with a summary table and an SVG plot ([`report`], [`svg`]).

pub mod admin;
pub mod outcome;
pub mod process;
pub mod report;
pub mod sampler;
pub mod stats;
pub mod svg;
pub mod worker;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use thiserror::Error;
use tokio::sync::watch;

use crate::{fill_tables, tree_book};
use admin::Admin;
use process::CoordinatorProcess;
pub use report::SoakReport;
use worker::{Fleet, WorkerLog};

/// What to run, and how big.
#[derive(Clone, Debug)]
pub struct SoakOptions {
    /// The `pentagrid` binary to run as the coordinator.
    pub coordinator_bin: PathBuf,
    /// Simulated workers.
    pub workers: usize,
    /// Positions of the tree book imported before the coordinator starts.
    pub book: usize,
    /// How long the load runs once every part has started.
    pub duration: Duration,
    /// Shortest and longest simulated job.
    pub job_time: (Duration, Duration),
    /// The coordinator's `--lease-seconds` (workers heartbeat every quarter of it).
    pub lease_seconds: u64,
    /// Game pairs of the match.
    pub match_pairs: u64,
    /// Time between the starts of puzzle mining rounds.
    pub mine_every: Duration,
    /// Candidates each mining round asks for.
    pub mine_candidates: u64,
    /// Queued jobs the analysis campaign keeps the queue at (0: no campaign).
    pub campaign_queue: u64,
    /// Playouts of each analysis (build and campaign).
    pub playouts: u64,
}

impl SoakOptions {
    /// The scale: 1,000 workers, a book of 10^6 positions, a 2,000-pair match, jobs of
    /// 0.5–2 s, for `duration`.
    #[must_use]
    pub fn full(coordinator_bin: PathBuf, duration: Duration) -> SoakOptions {
        SoakOptions {
            coordinator_bin,
            workers: 1_000,
            book: 1_000_000,
            duration,
            job_time: (Duration::from_millis(500), Duration::from_millis(2_000)),
            lease_seconds: 4,
            match_pairs: 2_000,
            mine_every: Duration::from_secs(30),
            mine_candidates: 5_000,
            campaign_queue: 1_000,
            playouts: 1_000,
        }
    }
}

/// Why the soak could not run (what it measured is in the report, not here).
#[derive(Debug, Error)]
pub enum SoakError {
    /// Files, the temporary directory or the coordinator process.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The error.
        source: std::io::Error,
    },
    /// Filling the book.
    #[error("filling the book: {0}")]
    Store(#[from] pentagrid_store::StoreError),
    /// The coordinator process did not come up or misbehaved.
    #[error("coordinator: {0}")]
    Coordinator(String),
    /// An admin call that the soak cannot go on without was refused.
    #[error("{what}: {status}")]
    Rpc {
        /// The call.
        what: &'static str,
        /// Its status.
        status: tonic::Status,
    },
}

impl SoakError {
    fn io(what: &'static str) -> impl FnOnce(std::io::Error) -> SoakError {
        move |source| SoakError::Io { what, source }
    }
}

/// Tokens of the three roles, written to files for the coordinator.
#[derive(Clone, Debug)]
pub struct Tokens {
    /// The worker credential.
    pub worker: String,
    /// The admin credential.
    pub admin: String,
    /// The read credential.
    pub read: String,
}

/// Fills the book, starts the coordinator and every part of the load, lets them run for
/// `options.duration`, stops them and reports. Blocks; runs its own tokio runtime.
pub fn run(options: &SoakOptions) -> Result<SoakReport, SoakError> {
    let dir = tempfile::tempdir().map_err(SoakError::io("a temporary directory"))?;
    let db = dir.path().join("db");
    let started = Instant::now();
    fill_tables(&db, tree_book(options.book))?;
    let fill_seconds = started.elapsed().as_secs_f64();
    println!(
        "book of {} positions imported in {fill_seconds:.1} s",
        options.book
    );
    let tokens = Tokens {
        worker: "soak-worker-token".into(),
        admin: "soak-admin-token".into(),
        read: "soak-read-token".into(),
    };
    let runtime = tokio::runtime::Runtime::new().map_err(SoakError::io("a tokio runtime"))?;
    let mut coordinator = CoordinatorProcess::start(options, dir.path(), &db, &tokens)?;
    let measured = runtime.block_on(soak(options, &coordinator, &tokens));
    let log_tail = coordinator.stop();
    let mut report = measured?;
    report.fill_seconds = fill_seconds;
    report.coordinator_warnings = log_tail;
    Ok(report)
}

/// The load, from the first hello to the last returned lease.
async fn soak(
    options: &SoakOptions,
    coordinator: &CoordinatorProcess,
    tokens: &Tokens,
) -> Result<SoakReport, SoakError> {
    let admin = Admin::connect(&coordinator.url, &tokens.admin)?;
    admin.wait_until_open(Duration::from_secs(600)).await?;
    let (build_id, warmup_seconds) = admin.start_build(options, Duration::from_secs(600)).await?;
    println!("the build's frontier walked the stored book in {warmup_seconds:.1} s");
    let origin = Instant::now();
    let (stop, stopped) = watch::channel(false);
    let sampler = sampler::spawn(coordinator, origin, stopped.clone());
    let probe = sampler::probe(&coordinator.url, &tokens.worker, origin, stopped.clone());
    let fleet = Fleet::new(options, &coordinator.url, &tokens.worker, origin)?;
    let workers = fleet.spawn(stopped.clone());
    let work = admin
        .start(options, build_id, origin, stopped.clone())
        .await?;
    tokio::time::sleep(options.duration).await;
    let build = admin.build_status(work.build_id).await;
    let _ = stop.send(true);
    let mut logs: Vec<WorkerLog> = Vec::with_capacity(options.workers);
    for worker in workers {
        logs.push(worker.await.unwrap_or_else(WorkerLog::panicked));
    }
    let admin_log = work.finish().await;
    let samples = sampler.await.unwrap_or_default();
    let probe = probe.join().unwrap_or_default();
    let mut report = SoakReport::new(
        options,
        origin.elapsed(),
        &logs,
        probe,
        samples,
        admin_log,
        build,
    );
    report.warmup_seconds = warmup_seconds;
    Ok(report)
}
