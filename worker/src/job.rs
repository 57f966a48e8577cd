//! Running one leased job, as named steps: read its task, compute it on the pool while a
//! heartbeat keeps the lease, then submit the result until the coordinator settles it.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pentago::SearchControl;
use pentagrid_proto::{Client, Outcome, Task, v2};
use tokio::sync::watch;

use crate::retry::{Backoff, Reaction, expected_refusal, reaction};
use crate::session::Session;
use crate::standing::Standing;
use crate::{EngineSettings, JobEnd, WorkerError, execute_with_engines};

/// How long a result is retried once shutdown was asked for, before it is dropped.
const GIVE_UP_AT_SHUTDOWN: Duration = Duration::from_secs(30);

impl Session {
    /// Runs `job` and submits its result (or its panic, as a failure).
    pub(crate) async fn run_job(
        &mut self,
        job: v2::Job,
        shutdown: &watch::Receiver<bool>,
    ) -> Result<(), WorkerError> {
        let Some(task) = job.spec.as_ref().and_then(|spec| Task::try_from(spec).ok()) else {
            tracing::error!(
                job = job.job_id,
                "the coordinator sent a job this worker cannot read"
            );
            self.report.refused += 1;
            return Ok(());
        };
        tracing::info!(
            job = job.job_id,
            lease = job.lease_id,
            attempt = job.attempt,
            "running job"
        );
        let kind = task.kind();
        let Some(result) = self.compute(&job, task).await else {
            self.report.abandoned += 1;
            self.metrics.ended(kind, JobEnd::Abandoned);
            return Ok(());
        };
        let request = v2::SubmitRequest {
            worker_id: self.standing.worker_id().to_owned(),
            job_id: job.job_id,
            lease_id: job.lease_id,
            result_id: format!(
                "{}-{}-{}",
                self.standing.worker_id(),
                job.job_id,
                job.lease_id
            ),
            result: Some(result),
            session: String::new(),
        };
        self.submit(request, kind, shutdown).await
    }

    /// Computes `task` under a heartbeat for the job's lease: the result to submit (a failure
    /// when it panicked), or `None` when it was stopped because the lease was lost.
    async fn compute(&self, job: &v2::Job, task: Task) -> Option<v2::submit_request::Result> {
        let control = Arc::new(SearchControl::new());
        let heartbeat = spawn_heartbeat(
            &self.client,
            &self.standing,
            job.lease_id,
            self.heartbeat_every,
            &control,
        );
        let kind = task.kind();
        let started = Instant::now();
        let ran = off_the_runtime(self.work(task, job.seed, control)).await;
        heartbeat.abort();
        let seconds = started.elapsed().as_secs_f64();
        self.metrics
            .computed(kind, seconds, ran.as_ref().ok().and_then(Option::as_ref));
        tracing::debug!(job = job.job_id, kind, seconds, "job computed");
        match ran {
            Ok(Some(outcome)) => Some(v2::submit_request::Result::from(&outcome)),
            Ok(None) => None,
            Err(message) => {
                tracing::error!(job = job.job_id, %message, "job failed or panicked; reporting it failed");
                Some(v2::submit_request::Result::Failure(v2::JobFailure {
                    message,
                }))
            }
        }
    }

    /// The job's work, to run on the blocking pool: `task` on this worker's rayon pool.
    /// A job that cannot be played here (a pair naming an engine this worker does not run)
    /// is an error, reported as the job's failure.
    fn work(
        &self,
        task: Task,
        seed: u64,
        control: Arc<SearchControl>,
    ) -> impl FnOnce() -> Result<Option<Outcome>, String> + Send + 'static {
        let (pool, threads) = (self.pool.clone(), self.options.threads);
        let engines = EngineSettings {
            time_scale: self.time_scale,
            ..self.options.engines.clone()
        };
        #[cfg(test)]
        let fault = self.panic_message.clone();
        move || {
            #[cfg(test)]
            if let Some(message) = fault {
                panic!("{message}");
            }
            pool.install(|| execute_with_engines(&task, seed, threads, &control, &engines))
                .map_err(|error| error.to_string())
        }
    }

    /// Submits a job's result until the coordinator settles it: retries while it is away,
    /// gives up when told the result is unwanted, or long after a shutdown was asked for.
    async fn submit(
        &mut self,
        mut request: v2::SubmitRequest,
        kind: &'static str,
        shutdown: &watch::Receiver<bool>,
    ) -> Result<(), WorkerError> {
        let mut backoff = Backoff::new(request.lease_id);
        let mut shutting_down_since: Option<Instant> = None;
        // A coordinator that restarted has forgotten this worker but honours its leases: say
        // hello again (same key, same id) and submit once more, a few times at most.
        let mut hellos_left = 3;
        loop {
            request.session = self.standing.session();
            let status = match self.client.clone().submit(request.clone()).await {
                Ok(reply) => return self.settled(&request, kind, reply.into_inner().outcome()),
                Err(status) => status,
            };
            let reaction = reaction(&status);
            if reaction == Reaction::HelloAgain && hellos_left > 0 {
                hellos_left -= 1;
                if let Err(error) = self.standing.hello().await {
                    tracing::warn!(error = %error.message(), "hello again before a submission failed");
                }
                continue;
            }
            match reaction {
                Reaction::Retry => {
                    if *shutdown.borrow() {
                        let since = *shutting_down_since.get_or_insert_with(Instant::now);
                        if since.elapsed() > GIVE_UP_AT_SHUTDOWN {
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
                Reaction::Stop => return Err(WorkerError::Refused(status.message().to_owned())),
                Reaction::HelloAgain | Reaction::Drop => {
                    if expected_refusal(&status) {
                        tracing::info!(job = request.job_id, error = %status.message(), "result refused");
                    } else {
                        tracing::warn!(job = request.job_id, error = %status.message(), "result refused");
                    }
                    self.report.refused += 1;
                    self.metrics.ended(kind, JobEnd::Refused);
                    return Ok(());
                }
            }
        }
    }

    /// Counts a result the coordinator took, and logs its acknowledgement.
    fn settled(
        &mut self,
        request: &v2::SubmitRequest,
        kind: &'static str,
        outcome: v2::SubmitOutcome,
    ) -> Result<(), WorkerError> {
        let how = match outcome {
            v2::SubmitOutcome::Applied => "applied",
            v2::SubmitOutcome::FailureRecorded => {
                self.report.panicked += 1;
                self.metrics.ended(kind, JobEnd::Panicked);
                return Ok(());
            }
            _ => "duplicate",
        };
        self.report.acknowledged += 1;
        self.metrics.ended(kind, JobEnd::Acknowledged);
        if let Some(log) = self.ack_log.as_mut() {
            writeln!(log, "{} {} {how}", request.result_id, request.job_id)
                .and_then(|()| log.flush())
                .map_err(WorkerError::AckLog)?;
        }
        Ok(())
    }
}

/// Beats for `lease_id` every `every` until aborted; stops the job through `control` when the
/// coordinator says the lease is lost.
fn spawn_heartbeat(
    api: &Client,
    standing: &Arc<Standing>,
    lease_id: u64,
    every: Duration,
    control: &Arc<SearchControl>,
) -> tokio::task::JoinHandle<()> {
    let (mut api, standing, control) = (api.clone(), standing.clone(), control.clone());
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let beat = api
                .heartbeat(v2::HeartbeatRequest {
                    worker_id: standing.worker_id().to_owned(),
                    lease_ids: vec![lease_id],
                    session: standing.session(),
                })
                .await;
            match beat {
                Ok(reply) if reply.get_ref().lost_lease_ids.contains(&lease_id) => {
                    tracing::warn!(lease = lease_id, "lease lost; stopping the job");
                    control.stop();
                    return;
                }
                Ok(_) => {}
                // The coordinator restarted (it honours the lease for a while): say hello
                // again so that the next beat renews it.
                Err(status) if reaction(&status) == Reaction::HelloAgain => {
                    if let Err(error) = standing.hello().await {
                        tracing::warn!(error = %error.message(), "hello again from a heartbeat failed");
                    }
                }
                Err(_) => {}
            }
        }
    })
}

/// Runs `work` on the blocking pool, off the runtime: its outcome (`None` when stopped), or
/// the message of its error or of a panic in it.
async fn off_the_runtime(
    work: impl FnOnce() -> Result<Option<Outcome>, String> + Send + 'static,
) -> Result<Option<Outcome>, String> {
    tokio::task::spawn_blocking(move || {
        // A panic in the job (or in the engine under it) is a failure to report, not a
        // reason to lose the job silently or to bring the worker down.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
            .map_err(|payload| panic_text(payload.as_ref()))
            .and_then(|ran| ran)
    })
    .await
    .unwrap_or(Ok(None))
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

#[cfg(test)]
mod tests {
    use pentago::Position;
    use pentagrid_client::jobs::run_jobs;
    use pentagrid_coordinator::{Coordinator, CoordinatorSettings, JobSettings};
    use pentagrid_edge::{Credentials, serve};

    use super::*;
    use crate::{EngineSettings, WorkerIdentity, WorkerMetrics, WorkerOptions};

    const TOKEN: &str = "fault-token";

    #[test]
    fn panic_messages_are_read_from_either_payload() {
        let text: Box<dyn std::any::Any + Send> = Box::new("plain");
        assert_eq!(panic_text(text.as_ref()), "plain");
        let owned: Box<dyn std::any::Any + Send> = Box::new(String::from("owned"));
        assert_eq!(panic_text(owned.as_ref()), "owned");
        let other: Box<dyn std::any::Any + Send> = Box::new(7_u32);
        assert_eq!(panic_text(other.as_ref()), "the job panicked (no message)");
    }

    /// A real coordinator on a loopback port and a temporary database; a real worker whose
    /// every job panics, through the test hook.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_job_is_reported_failed_with_its_message_and_retried() {
        let dir = tempfile::tempdir().unwrap();
        let settings = CoordinatorSettings {
            jobs: JobSettings {
                max_attempts: 2,
                ..JobSettings::default()
            },
            ..CoordinatorSettings::default()
        };
        let coordinator = Coordinator::open(dir.path(), settings).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let credentials = Credentials::all_roles(TOKEN).unwrap();
        let (stop_server, mut server_stopped) = watch::channel(false);
        let server = tokio::spawn(serve(
            listener,
            coordinator,
            credentials,
            None,
            async move {
                let _ = server_stopped.wait_for(|stop| *stop).await;
            },
        ));
        let options = WorkerOptions {
            coordinator: url.clone(),
            token: TOKEN.into(),
            tls_ca: None,
            name: "faulty".into(),
            threads: 1,
            ack_log: None,
            max_results: None,
            identity: WorkerIdentity::Fresh,
            engines: EngineSettings::default(),
            speed: Some(0),
        };
        let session = Session::start(options, WorkerMetrics::new())
            .unwrap()
            .panicking("injected fault");
        let (stop, stopped) = watch::channel(false);
        let run = tokio::spawn(session.run(stopped));

        let client = pentagrid_client::connect(&url, TOKEN, None).unwrap();
        let task = Task::Solve {
            position: Position::START,
        };
        let outcome = run_jobs(&client, &[task], &mut |_| {}).await.unwrap();
        assert_eq!(outcome.done, 0);
        assert_eq!(outcome.failed.len(), 1);
        let (job, message) = &outcome.failed[0];
        assert_eq!(*job, outcome.job_ids[0]);
        assert!(message.contains("injected fault"), "{message}");
        stop.send(true).unwrap();
        let report = run.await.unwrap().unwrap();
        assert_eq!(report.panicked, 2, "tried once, retried once: {report:?}");
        assert_eq!(report.abandoned, 0);
        let status = client
            .clone()
            .status(v2::StatusRequest::default())
            .await
            .unwrap()
            .into_inner();
        assert_eq!((status.failed, status.queued, status.leased), (1, 0, 0));
        stop_server.send(true).unwrap();
        server.await.unwrap().unwrap();
    }
}
