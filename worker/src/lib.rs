//! `pentagrid-worker`: connects to a coordinator, leases jobs, runs them on all cores with
//! rayon, heartbeats its leases, and submits results with retries (the same result id every
//! time, so a retry is harmless). It reconnects with jittered exponential backoff when the
//! coordinator is away, and on shutdown finishes its job and leaves.

pub mod engines;
mod execute;
mod identity;
mod metrics;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pentago::{SearchControl, splitmix64};
use pentagrid_proto::v2::ErrorReason;
use pentagrid_proto::{Client, Outcome, Task, reason_of, v2};
use tokio::sync::watch;
use tonic::Code;

pub use execute::execute;
pub use identity::WorkerIdentity;
pub use metrics::{JobEnd, WorkerMetrics};

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
    /// Test-only fault injection, not reachable from the command line: when set, every job
    /// panics with this message instead of running (how the tests check that a panicking job
    /// is reported failed and retried).
    pub panic_message: Option<String>,
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
}

/// Backoff between retries: doubling from 100 ms to 10 s, with ±50% jitter.
struct Backoff {
    attempt: u32,
    state: u64,
}

impl Backoff {
    fn new(seed: u64) -> Backoff {
        Backoff {
            attempt: 0,
            state: seed,
        }
    }

    fn next(&mut self) -> Duration {
        let base = 100u64.saturating_mul(1 << self.attempt.min(7)).min(10_000);
        self.attempt += 1;
        self.state = splitmix64(self.state);
        let jitter = 0.5 + (self.state >> 11) as f64 / (1u64 << 53) as f64;
        Duration::from_millis((base as f64 * jitter) as u64)
    }

    fn reset(&mut self) {
        self.attempt = 0;
    }
}

/// What the worker does about a refused call, decided by the status code and the typed reason
/// in its details, never by the wording of its message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Reaction {
    /// The coordinator does not know this worker (it restarted): say hello again.
    HelloAgain,
    /// Refused for good (wrong token, a token without the worker role, other protocol, a
    /// quarantined worker): stop.
    Stop,
    /// The coordinator is away or overloaded: back off and retry.
    Retry,
    /// This call's request is unwanted (a lost lease, an invalid result): drop it.
    Drop,
}

fn reaction(status: &tonic::Status) -> Reaction {
    match reason_of(status) {
        ErrorReason::UnknownWorker => return Reaction::HelloAgain,
        ErrorReason::ProtocolMismatch
        | ErrorReason::Unauthenticated
        | ErrorReason::Forbidden
        | ErrorReason::Quarantined => {
            return Reaction::Stop;
        }
        _ => {}
    }
    match status.code() {
        Code::Unauthenticated | Code::PermissionDenied => Reaction::Stop,
        Code::Unavailable
        | Code::Unknown
        | Code::DeadlineExceeded
        | Code::Internal
        | Code::Cancelled
        | Code::Aborted => Reaction::Retry,
        _ => Reaction::Drop,
    }
}

/// Whether a refused result is an expected outcome rather than a fault: the lease is no longer
/// held because the job was cancelled (or the lease expired), which the coordinator logs with
/// the detail the worker lacks. Decided by the typed reason, never by the message.
fn expected_refusal(status: &tonic::Status) -> bool {
    reason_of(status) == ErrorReason::LeaseNotHeld
}

/// Sleeps `duration` unless shutdown comes first; true if shutting down.
async fn sleep_or_shutdown(duration: Duration, shutdown: &mut watch::Receiver<bool>) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(duration) => *shutdown.borrow(),
        _ = shutdown.changed() => true,
    }
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
    mut shutdown: watch::Receiver<bool>,
    metrics: WorkerMetrics,
) -> Result<WorkerReport, WorkerError> {
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
    let worker_id = options
        .identity
        .worker_id(&options.name, std::process::id() as u64 ^ now_nanos());
    let mut ack_log = options
        .ack_log
        .as_ref()
        .map(|path| {
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path);
            log.map_err(WorkerError::AckLog)
        })
        .transpose()?;
    let mut report = WorkerReport::default();
    let mut backoff = Backoff::new(now_nanos());
    let mut heartbeat_every = Duration::from_secs(10);
    let mut said_hello = false;
    loop {
        if *shutdown.borrow()
            || options
                .max_results
                .is_some_and(|m| report.acknowledged >= m)
        {
            return Ok(report);
        }
        let mut api = client.clone();
        if !said_hello {
            match hello(&mut api, &worker_id, &options).await {
                Ok(every) => {
                    heartbeat_every = every;
                    said_hello = true;
                    backoff.reset();
                    tracing::info!(worker = %worker_id, coordinator = %options.coordinator, "connected");
                }
                Err(status) if reaction(&status) == Reaction::Stop => {
                    return Err(WorkerError::Refused(status.message().to_owned()));
                }
                Err(status) => {
                    let wait = backoff.next();
                    tracing::warn!(error = %status.message(), ?wait, "coordinator unavailable; retrying");
                    if sleep_or_shutdown(wait, &mut shutdown).await {
                        return Ok(report);
                    }
                    continue;
                }
            }
        }
        let leased = api
            .lease(v2::LeaseRequest {
                worker_id: worker_id.clone(),
                max_jobs: 1,
            })
            .await;
        let jobs = match leased {
            Ok(reply) => {
                backoff.reset();
                reply.into_inner().jobs
            }
            Err(status) => match reaction(&status) {
                Reaction::HelloAgain => {
                    // The coordinator restarted and forgot us.
                    said_hello = false;
                    continue;
                }
                Reaction::Stop => return Err(WorkerError::Refused(status.message().to_owned())),
                Reaction::Retry | Reaction::Drop => {
                    let wait = backoff.next();
                    tracing::warn!(error = %status.message(), ?wait, "lease failed; retrying");
                    said_hello = false;
                    if sleep_or_shutdown(wait, &mut shutdown).await {
                        return Ok(report);
                    }
                    continue;
                }
            },
        };
        if jobs.is_empty() {
            let idle = Duration::from_millis(100 + splitmix64(now_nanos()) % 200);
            if sleep_or_shutdown(idle, &mut shutdown).await {
                return Ok(report);
            }
            continue;
        }
        for job in jobs {
            run_job(
                &api,
                &worker_id,
                job,
                &pool,
                options.threads,
                heartbeat_every,
                &mut report,
                ack_log.as_mut(),
                &shutdown,
                &metrics,
                options.panic_message.as_deref(),
            )
            .await?;
        }
    }
}

/// Introduces the worker to the coordinator; answers how often to beat for a lease.
async fn hello(
    api: &mut Client,
    worker_id: &str,
    options: &WorkerOptions,
) -> Result<Duration, tonic::Status> {
    let reply = api
        .hello(v2::HelloRequest {
            worker_id: worker_id.to_owned(),
            name: options.name.clone(),
            threads: options.threads as u32,
        })
        .await?
        .into_inner();
    Ok(Duration::from_secs(u64::from(
        reply.heartbeat_seconds.max(1),
    )))
}

#[allow(clippy::too_many_arguments)]
async fn run_job(
    api: &Client,
    worker_id: &str,
    job: v2::Job,
    pool: &Arc<rayon::ThreadPool>,
    threads: usize,
    heartbeat_every: Duration,
    report: &mut WorkerReport,
    ack_log: Option<&mut std::fs::File>,
    shutdown: &watch::Receiver<bool>,
    metrics: &WorkerMetrics,
    panic_message: Option<&str>,
) -> Result<(), WorkerError> {
    let Some(task) = job.spec.as_ref().and_then(|spec| Task::try_from(spec).ok()) else {
        tracing::error!(
            job = job.job_id,
            "the coordinator sent a job this worker cannot read"
        );
        report.refused += 1;
        return Ok(());
    };
    tracing::info!(
        job = job.job_id,
        lease = job.lease_id,
        attempt = job.attempt,
        "running job"
    );
    let control = Arc::new(SearchControl::new());
    let heartbeat = spawn_heartbeat(api, worker_id, job.lease_id, heartbeat_every, &control);
    let kind = task.kind();
    let started = std::time::Instant::now();
    let ran = compute(pool, task, job.seed, threads, control, panic_message).await;
    heartbeat.abort();
    let outcome = ran.as_ref().ok().and_then(Option::as_ref);
    metrics.computed(kind, started.elapsed().as_secs_f64(), outcome);
    tracing::debug!(
        job = job.job_id,
        kind,
        seconds = started.elapsed().as_secs_f64(),
        "job computed"
    );
    let result = match ran {
        Ok(Some(outcome)) => v2::submit_request::Result::from(&outcome),
        Ok(None) => {
            report.abandoned += 1;
            metrics.ended(kind, JobEnd::Abandoned);
            return Ok(());
        }
        Err(message) => {
            tracing::error!(job = job.job_id, %message, "job panicked; reporting it failed");
            v2::submit_request::Result::Failure(v2::JobFailure { message })
        }
    };
    let request = v2::SubmitRequest {
        worker_id: worker_id.to_owned(),
        job_id: job.job_id,
        lease_id: job.lease_id,
        result_id: format!("{worker_id}-{}-{}", job.job_id, job.lease_id),
        result: Some(result),
    };
    submit(api, &request, kind, report, ack_log, shutdown, metrics).await
}

/// Beats for `lease_id` every `every` until aborted; stops the job through `control` when the
/// coordinator says the lease is lost.
fn spawn_heartbeat(
    api: &Client,
    worker_id: &str,
    lease_id: u64,
    every: Duration,
    control: &Arc<SearchControl>,
) -> tokio::task::JoinHandle<()> {
    let (mut api, worker_id, control) = (api.clone(), worker_id.to_owned(), control.clone());
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let beat = api
                .heartbeat(v2::HeartbeatRequest {
                    worker_id: worker_id.clone(),
                    lease_ids: vec![lease_id],
                })
                .await;
            if let Ok(reply) = beat
                && reply.into_inner().lost_lease_ids.contains(&lease_id)
            {
                tracing::warn!(lease = lease_id, "lease lost; stopping the job");
                control.stop();
                return;
            }
        }
    })
}

/// Runs `task` on the pool off the runtime: its outcome (`None` when stopped), or the
/// message of a panic in it.
async fn compute(
    pool: &Arc<rayon::ThreadPool>,
    task: Task,
    seed: u64,
    threads: usize,
    control: Arc<SearchControl>,
    panic_message: Option<&str>,
) -> Result<Option<Outcome>, String> {
    let pool = pool.clone();
    let panic_message = panic_message.map(str::to_owned);
    tokio::task::spawn_blocking(move || {
        // A panic in the job (or in the engine under it) is a failure to report, not a
        // reason to lose the job silently or to bring the worker down.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(message) = panic_message {
                panic!("{message}");
            }
            pool.install(|| execute(&task, seed, threads, &control))
        }))
        .map_err(|payload| panic_text(payload.as_ref()))
    })
    .await
    .unwrap_or(Ok(None))
}

/// Submits a job's result until the coordinator settles it: retries while it is away, gives
/// up when told the result is unwanted, or long after a shutdown was asked for.
async fn submit(
    api: &Client,
    request: &v2::SubmitRequest,
    kind: &'static str,
    report: &mut WorkerReport,
    ack_log: Option<&mut std::fs::File>,
    shutdown: &watch::Receiver<bool>,
    metrics: &WorkerMetrics,
) -> Result<(), WorkerError> {
    let mut backoff = Backoff::new(request.lease_id);
    let give_up_after = Duration::from_secs(30);
    let mut shutting_down_since: Option<std::time::Instant> = None;
    loop {
        match api.clone().submit(request.clone()).await {
            Ok(reply) => {
                let how = match reply.into_inner().outcome() {
                    v2::SubmitOutcome::Applied => "applied",
                    v2::SubmitOutcome::FailureRecorded => {
                        report.panicked += 1;
                        metrics.ended(kind, JobEnd::Panicked);
                        return Ok(());
                    }
                    _ => "duplicate",
                };
                report.acknowledged += 1;
                metrics.ended(kind, JobEnd::Acknowledged);
                if let Some(log) = ack_log {
                    writeln!(log, "{} {} {how}", request.result_id, request.job_id)
                        .and_then(|()| log.flush())
                        .map_err(WorkerError::AckLog)?;
                }
                return Ok(());
            }
            Err(status) if reaction(&status) == Reaction::Retry => {
                if *shutdown.borrow() {
                    let since = *shutting_down_since.get_or_insert_with(std::time::Instant::now);
                    if since.elapsed() > give_up_after {
                        tracing::error!(
                            job = request.job_id,
                            "coordinator unreachable at shutdown; result dropped"
                        );
                        return Ok(());
                    }
                }
                let wait = backoff.next();
                tracing::warn!(job = request.job_id, error = %status.message(), ?wait, "submit failed; retrying");
                tokio::time::sleep(wait).await;
            }
            Err(status) if reaction(&status) == Reaction::Stop => {
                return Err(WorkerError::Refused(status.message().to_owned()));
            }
            Err(status) => {
                if expected_refusal(&status) {
                    tracing::info!(job = request.job_id, error = %status.message(), "result refused");
                } else {
                    tracing::warn!(job = request.job_id, error = %status.message(), "result refused");
                }
                report.refused += 1;
                metrics.ended(kind, JobEnd::Refused);
                return Ok(());
            }
        }
    }
}

/// The message of a panic payload (`panic!` gives a `&str` or a `String`).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "the job panicked (no message)".to_owned()
    }
}

fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_proto::error_status;

    #[test]
    fn reactions_follow_the_typed_reason_whatever_the_message_says() {
        for message in ["", "banana", "say hello first", "incompatible protocol"] {
            let unknown = error_status(
                Code::FailedPrecondition,
                ErrorReason::UnknownWorker,
                message,
            );
            assert_eq!(reaction(&unknown), Reaction::HelloAgain, "{message:?}");
            let protocol = error_status(
                Code::FailedPrecondition,
                ErrorReason::ProtocolMismatch,
                message,
            );
            assert_eq!(reaction(&protocol), Reaction::Stop, "{message:?}");
            // Even under a code that alone would mean "drop this call".
            let forbidden = error_status(Code::FailedPrecondition, ErrorReason::Forbidden, message);
            assert_eq!(reaction(&forbidden), Reaction::Stop, "{message:?}");
            let lost = error_status(Code::FailedPrecondition, ErrorReason::LeaseNotHeld, message);
            assert_eq!(reaction(&lost), Reaction::Drop, "{message:?}");
            // Without a reason, words in the message change nothing.
            let bare = tonic::Status::failed_precondition(message);
            assert_eq!(reaction(&bare), Reaction::Drop, "{message:?}");
        }
        assert_eq!(
            reaction(&tonic::Status::unavailable("connection refused")),
            Reaction::Retry
        );
        assert_eq!(
            reaction(&tonic::Status::unauthenticated("x")),
            Reaction::Stop
        );
    }

    #[test]
    fn only_a_lease_no_longer_held_is_an_expected_refusal_whatever_the_message_says() {
        for message in ["", "lease 40 is not held", "banana"] {
            let lost = error_status(Code::FailedPrecondition, ErrorReason::LeaseNotHeld, message);
            assert!(expected_refusal(&lost), "{message:?}");
            let bare = tonic::Status::failed_precondition(message);
            assert!(!expected_refusal(&bare), "{message:?}");
            let invalid = error_status(Code::InvalidArgument, ErrorReason::InvalidResult, message);
            assert!(!expected_refusal(&invalid), "{message:?}");
        }
    }

    #[test]
    fn backoff_grows_with_jitter_and_caps() {
        let mut b = Backoff::new(1);
        let first = b.next();
        assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(150));
        let later: Vec<Duration> = (0..20).map(|_| b.next()).collect();
        assert!(later.iter().all(|d| *d <= Duration::from_millis(15_000)));
        assert!(later.last().unwrap() >= &Duration::from_millis(5_000));
        b.reset();
        assert!(b.next() <= Duration::from_millis(150));
    }
}
