//! One worker's session with its coordinator, as named steps: start (connect, thread pool,
//! id, acknowledgement log), then until shutdown: say hello, lease a job, run it (see
//! `job.rs`), and again.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pentago::splitmix64;
use pentagrid_proto::{Client, TimeScale, v2};
use tokio::sync::watch;

use crate::retry::{Backoff, Reaction, reaction, sleep_or_shutdown};
use crate::standing::Standing;
use crate::{WorkerError, WorkerMetrics, WorkerOptions, WorkerReport};

/// What the loop does after a step.
pub(crate) enum Next<T> {
    /// Go on with what the step gave.
    Go(T),
    /// Start the loop over (after waiting where the step asked for it).
    Again,
    /// Shutdown came while waiting: stop.
    Done,
}

/// A running worker and everything its steps share.
pub(crate) struct Session {
    /// How the worker was asked to run.
    pub(crate) options: WorkerOptions,
    /// The coordinator.
    pub(crate) client: Client,
    /// The pool jobs run on.
    pub(crate) pool: Arc<rayon::ThreadPool>,
    /// Its hello and current session, shared with heartbeats and submissions.
    pub(crate) standing: Arc<Standing>,
    /// Where acknowledged results are appended, if anywhere.
    pub(crate) ack_log: Option<File>,
    /// What the worker counts for its metrics.
    pub(crate) metrics: WorkerMetrics,
    /// What the worker did so far.
    pub(crate) report: WorkerReport,
    /// How often to beat for a lease (the coordinator says so in its hello).
    pub(crate) heartbeat_every: Duration,
    /// The factor refereed time limits are multiplied by: the coordinator's reference speed
    /// (from its hello) over this worker's.
    pub(crate) time_scale: TimeScale,
    /// This worker's speed (simulations per second; 0: unknown; `None`: not measured yet).
    speed: Option<u64>,
    backoff: Backoff,
    said_hello: bool,
    /// Test hook: every job panics with this message instead of running.
    #[cfg(test)]
    pub(crate) panic_message: Option<String>,
}

impl Session {
    /// Connects (lazily), starts the thread pool, asks each external engine its name and
    /// version (a broken one stops the start), picks the worker's id and opens the
    /// acknowledgement log.
    pub(crate) fn start(
        options: WorkerOptions,
        metrics: WorkerMetrics,
    ) -> Result<Session, WorkerError> {
        let client = pentagrid_proto::connect(
            &options.coordinator,
            &options.token,
            options.tls_ca.as_deref(),
        )?;
        let pool = Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(options.threads.max(1))
                .build()
                .map_err(|e| WorkerError::Pool(e.to_string()))?,
        );
        let (worker_id, worker_key) = options
            .identity
            .credentials(&options.name, u64::from(std::process::id()) ^ now_nanos());
        let ack_log = options.ack_log.as_deref().map(open_ack_log).transpose()?;
        // Measured when a coordinator first asks for scaling (see `greet`), not at every start:
        // without a reference speed the figure would go unused.
        let speed = options.speed;
        let engines = options
            .engines
            .identify()?
            .into_iter()
            .map(|(name, version)| v2::EngineInfo { name, version })
            .collect();
        let standing = Arc::new(Standing::new(
            client.clone(),
            v2::HelloRequest {
                worker_id,
                name: options.name.clone(),
                threads: u32::try_from(options.threads).unwrap_or(u32::MAX),
                engines,
                worker_key,
                speed: speed.unwrap_or(0),
            },
        ));
        Ok(Session {
            standing,
            options,
            client,
            pool,
            ack_log,
            metrics,
            report: WorkerReport::default(),
            heartbeat_every: Duration::from_secs(10),
            time_scale: TimeScale::ONE,
            speed,
            backoff: Backoff::new(now_nanos()),
            said_hello: false,
            #[cfg(test)]
            panic_message: None,
        })
    }

    /// Runs until `shutdown` turns true (or `max_results` are acknowledged).
    pub(crate) async fn run(
        mut self,
        mut shutdown: watch::Receiver<bool>,
    ) -> Result<WorkerReport, WorkerError> {
        loop {
            if self.finished(&shutdown) {
                return Ok(self.report);
            }
            if !self.said_hello {
                match self.greet(&mut shutdown).await? {
                    Next::Go(()) => {}
                    Next::Again => continue,
                    Next::Done => return Ok(self.report),
                }
            }
            let jobs = match self.lease(&mut shutdown).await? {
                Next::Go(jobs) => jobs,
                Next::Again => continue,
                Next::Done => return Ok(self.report),
            };
            for job in jobs {
                self.run_job(job, &shutdown).await?;
            }
        }
    }

    fn finished(&self, shutdown: &watch::Receiver<bool>) -> bool {
        *shutdown.borrow()
            || self
                .options
                .max_results
                .is_some_and(|most| self.report.acknowledged >= most)
    }

    /// Measures this worker's speed once, off the async threads, and keeps it.
    async fn measure_speed(&mut self) -> u64 {
        let pool = Arc::clone(&self.pool);
        let speed = tokio::task::spawn_blocking(move || pool.install(crate::measure_speed))
            .await
            .unwrap_or(0);
        tracing::info!(
            speed,
            "measured this worker's speed (simulations per second)"
        );
        self.speed = Some(speed);
        speed
    }

    /// Introduces the worker to the coordinator and learns how often to beat for a lease;
    /// waits and starts over while the coordinator is away.
    async fn greet(
        &mut self,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<Next<()>, WorkerError> {
        match self.standing.hello().await {
            Ok(reply) => {
                let seconds = reply.heartbeat_seconds.max(1);
                self.heartbeat_every = Duration::from_secs(u64::from(seconds));
                let speed = match self.speed {
                    Some(speed) => speed,
                    None if reply.reference_speed > 0 => self.measure_speed().await,
                    None => 0,
                };
                self.time_scale = TimeScale::from_speeds(reply.reference_speed, speed);
                self.said_hello = true;
                self.backoff.reset();
                tracing::info!(worker = %self.standing.worker_id(), coordinator = %self.options.coordinator, time_scale = %self.time_scale, "connected");
                Ok(Next::Go(()))
            }
            Err(status) if reaction(&status) == Reaction::Stop => {
                Err(WorkerError::Refused(status.message().to_owned()))
            }
            Err(status) => {
                let wait = self.backoff.next();
                tracing::warn!(error = %status.message(), ?wait, "coordinator unavailable; retrying");
                Ok(wait_then_again(wait, shutdown).await)
            }
        }
    }

    /// Leases one job; idles a moment when there is none, and says hello again when the
    /// coordinator forgot this worker or could not be reached.
    async fn lease(
        &mut self,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<Next<Vec<v2::Job>>, WorkerError> {
        let leased = self
            .client
            .clone()
            .lease(v2::LeaseRequest {
                worker_id: self.standing.worker_id().to_owned(),
                max_jobs: 1,
                session: self.standing.session(),
            })
            .await;
        match leased {
            Ok(reply) => {
                self.backoff.reset();
                let jobs = reply.into_inner().jobs;
                if jobs.is_empty() {
                    let idle = Duration::from_millis(100 + splitmix64(now_nanos()) % 200);
                    return Ok(wait_then_again(idle, shutdown).await);
                }
                Ok(Next::Go(jobs))
            }
            Err(status) => match reaction(&status) {
                Reaction::HelloAgain => {
                    // The coordinator restarted and forgot us.
                    self.said_hello = false;
                    Ok(Next::Again)
                }
                Reaction::Stop => Err(WorkerError::Refused(status.message().to_owned())),
                Reaction::Retry | Reaction::Drop => {
                    let wait = self.backoff.next();
                    tracing::warn!(error = %status.message(), ?wait, "lease failed; retrying");
                    self.said_hello = false;
                    Ok(wait_then_again(wait, shutdown).await)
                }
            },
        }
    }
}

#[cfg(test)]
impl Session {
    /// Test hook: every job panics with `message` instead of running (how the tests check
    /// that a panicking job is reported failed and retried).
    pub(crate) fn panicking(mut self, message: &str) -> Session {
        self.panic_message = Some(message.to_owned());
        self
    }
}

/// Waits `wait` (unless shutdown comes first), then has the loop start over.
async fn wait_then_again<T>(wait: Duration, shutdown: &mut watch::Receiver<bool>) -> Next<T> {
    if sleep_or_shutdown(wait, shutdown).await {
        Next::Done
    } else {
        Next::Again
    }
}

fn open_ack_log(path: &Path) -> Result<File, WorkerError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(WorkerError::AckLog)
}

pub(crate) fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
