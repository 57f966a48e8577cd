//! The coordinator's state and the meaning of each call; the gRPC service only translates.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pentago::splitmix64;
use pentagrid_proto::{Outcome, Task, v1};
use tonic::Status;

use crate::flusher::Flusher;
use crate::metrics::{LeaseEvent, Metrics, RefusedReason};
use crate::scheduler::{Scheduler, WorkerInfo};
use crate::store::{Applied, JobState, Store, StoreError, StoredJob};
use crate::validate::result_effect;

/// Tunables of a coordinator.
#[derive(Clone, Debug)]
pub struct Settings {
    /// How long a lease lasts without a heartbeat.
    pub lease_duration: Duration,
    /// How often workers should heartbeat.
    pub heartbeat_interval: Duration,
    /// Leases a job may use up before it is marked failed.
    pub max_attempts: u32,
    /// Most jobs one lease call may take.
    pub max_jobs_per_lease: u32,
    /// Where the coordinator counts what it does.
    pub metrics: Metrics,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            lease_duration: Duration::from_secs(60),
            heartbeat_interval: Duration::from_secs(10),
            max_attempts: 5,
            max_jobs_per_lease: 64,
            metrics: Metrics::new(),
        }
    }
}

/// The seed a job runs with: fixed by its id, so a retried job repeats the same computation.
#[must_use]
pub fn job_seed(job_id: u64) -> u64 {
    splitmix64(job_id ^ 0x5EED)
}

/// The coordinator: durable store, in-memory scheduler, group commit.
pub struct Coordinator {
    pub(crate) store: Arc<Store>,
    scheduler: Mutex<Scheduler>,
    flusher: Flusher,
    settings: Settings,
    draining: AtomicBool,
    /// Held while a book build picks and queues positions: two rounds at once would pick the
    /// same positions before either is queued.
    pub(crate) build_round: tokio::sync::Mutex<()>,
}

pub(crate) fn internal(error: StoreError) -> Status {
    tracing::error!(%error, "storage failure");
    Status::internal(format!("storage failure: {error}"))
}

fn worker_id(id: &str) -> Result<&str, Status> {
    if id.is_empty() || id.len() > 200 {
        return Err(Status::invalid_argument("worker_id must be 1 to 200 bytes"));
    }
    Ok(id)
}

impl Coordinator {
    /// Opens the database at `path`, restores queued and leased jobs, and starts the group
    /// commit task (needs a tokio runtime).
    pub fn open(path: &Path, settings: Settings) -> Result<Arc<Coordinator>, StoreError> {
        let store = Arc::new(Store::open(path)?);
        let mut scheduler = Scheduler::new(settings.lease_duration, settings.max_attempts);
        let now = Instant::now();
        for entry in store.jobs() {
            let (id, record) = entry?;
            let Some(task) = record
                .spec
                .as_ref()
                .and_then(|spec| Task::try_from(spec).ok())
            else {
                tracing::warn!(job = id, "stored job has an unreadable spec; skipped");
                continue;
            };
            scheduler.restore(id, record, task, now);
        }
        crate::matches::cancel_decided_pairs(&store, &mut scheduler)?;
        let (queued, leased) = scheduler.pending();
        tracing::info!(queued, leased, path = %path.display(), "coordinator opened");
        Ok(Arc::new(Coordinator {
            flusher: Flusher::start(store.clone()),
            store,
            scheduler: Mutex::new(scheduler),
            settings,
            draining: AtomicBool::new(false),
            build_round: tokio::sync::Mutex::new(()),
        }))
    }

    pub(crate) fn scheduler(&self) -> MutexGuard<'_, Scheduler> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.scheduler
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The coordinator's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.settings.metrics
    }

    /// How long a lease lasts without a heartbeat.
    pub fn lease_duration(&self) -> Duration {
        self.settings.lease_duration
    }

    /// Stops handing out jobs (graceful shutdown).
    pub fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Makes everything durable (shutdown).
    pub async fn flush(&self) -> Result<(), StoreError> {
        self.store.flush().await
    }

    /// A worker introduces itself.
    pub fn hello(&self, request: &v1::HelloRequest) -> Result<v1::HelloResponse, Status> {
        let id = worker_id(&request.worker_id)?;
        let mut scheduler = self.scheduler();
        scheduler.workers.insert(
            id.to_owned(),
            WorkerInfo {
                name: request.name.chars().take(100).collect(),
                threads: request.threads,
                last_seen: Instant::now(),
                results: 0,
            },
        );
        tracing::info!(worker = id, name = %request.name, threads = request.threads, "worker joined");
        Ok(v1::HelloResponse {
            lease_seconds: self.settings.lease_duration.as_secs().max(1) as u32,
            heartbeat_seconds: self.settings.heartbeat_interval.as_secs().max(1) as u32,
        })
    }

    /// Grants queued jobs.
    pub fn lease(&self, request: &v1::LeaseRequest) -> Result<v1::LeaseResponse, Status> {
        let id = worker_id(&request.worker_id)?;
        if self.draining.load(Ordering::Relaxed) {
            return Ok(v1::LeaseResponse { jobs: Vec::new() });
        }
        let max = request.max_jobs.clamp(1, self.settings.max_jobs_per_lease) as usize;
        let now = Instant::now();
        let mut scheduler = self.scheduler();
        if !scheduler.workers.contains_key(id) {
            return Err(Status::failed_precondition(format!(
                "unknown worker {id}: say hello first"
            )));
        }
        scheduler.seen(id, now);
        let store = &self.store;
        let mut id_error = None;
        let granted = scheduler.lease(id, max, now, || {
            store.generate_id().unwrap_or_else(|e| {
                id_error = Some(e);
                0
            })
        });
        if let Some(error) = id_error {
            for (job_id, active) in granted {
                scheduler.put_back(job_id, active);
            }
            return Err(internal(error));
        }
        let mut jobs = Vec::with_capacity(granted.len());
        for (job_id, active) in granted {
            self.store
                .put_job(job_id, &active.record)
                .map_err(internal)?;
            jobs.push(v1::Job {
                job_id,
                lease_id: active.record.lease_id,
                attempt: active.record.attempts,
                seed: active.record.seed,
                spec: active.record.spec.clone(),
            });
        }
        self.metrics().leases(LeaseEvent::Granted, jobs.len());
        Ok(v1::LeaseResponse { jobs })
    }

    /// Renews leases.
    pub fn heartbeat(
        &self,
        request: &v1::HeartbeatRequest,
    ) -> Result<v1::HeartbeatResponse, Status> {
        let id = worker_id(&request.worker_id)?;
        let now = Instant::now();
        let mut scheduler = self.scheduler();
        scheduler.seen(id, now);
        let lost_lease_ids = scheduler.heartbeat(id, &request.lease_ids, now);
        Ok(v1::HeartbeatResponse { lost_lease_ids })
    }

    /// Validates and applies a result; answers only once it is durable.
    pub async fn submit(&self, request: &v1::SubmitRequest) -> Result<v1::SubmitResponse, Status> {
        let (worker, outcome) = parse_submission(request).inspect_err(|_| {
            self.metrics().result_refused(RefusedReason::Malformed);
        })?;
        if let Some(job) = self
            .store
            .result_job(&request.result_id)
            .map_err(internal)?
        {
            if job != request.job_id {
                self.metrics().result_refused(RefusedReason::Malformed);
                return Err(Status::invalid_argument(format!(
                    "result id {} was used for job {job}",
                    request.result_id
                )));
            }
            self.flusher.durable().await.map_err(Status::internal)?;
            self.metrics().result_duplicate();
            return Ok(duplicate());
        }
        let refused = |e: crate::scheduler::NotLeased| {
            tracing::warn!(worker, job = request.job_id, reason = %e.0, "result refused");
            self.metrics().result_refused(RefusedReason::NotLeased);
            Status::failed_precondition(e.0)
        };
        let task = {
            let mut scheduler = self.scheduler();
            scheduler.seen(worker, Instant::now());
            scheduler
                .check_lease(worker, request.job_id, request.lease_id)
                .map_err(refused)?
        };
        // Validate outside the lock; an invalid result changes nothing, not even the lease.
        let effect = match result_effect(&task, request.job_id, &outcome) {
            Ok(effect) => effect,
            Err(why) => {
                tracing::warn!(worker, job = request.job_id, %why, "invalid result refused");
                self.metrics().result_refused(RefusedReason::Invalid);
                return Err(Status::invalid_argument(format!("invalid result: {why}")));
            }
        };
        let active = self
            .scheduler()
            .take_for_submit(worker, request.job_id, request.lease_id)
            .map_err(refused)?;
        let mut done = active.record.clone();
        done.state = JobState::Done as u32;
        done.result_id = request.result_id.clone();
        let applied = self
            .store
            .apply(request.job_id, &done, &request.result_id, &effect);
        let applied = match applied {
            Ok(applied) => applied,
            Err(error) => {
                self.scheduler().put_back(request.job_id, active);
                return Err(internal(error));
            }
        };
        if applied == Applied::Applied {
            self.scheduler().mark_done(worker);
            let rows = effect.playouts.values().chain(effect.games.values());
            self.metrics()
                .result_applied(rows.map(|table| table.len()).sum());
        }
        self.flusher.durable().await.map_err(Status::internal)?;
        if let Task::Pair { match_id, .. } = task {
            self.stop_decided_match(match_id).await?;
        }
        match applied {
            Applied::Applied => Ok(v1::SubmitResponse {
                outcome: v1::SubmitOutcome::Applied as i32,
            }),
            Applied::Duplicate | Applied::JobAlreadyDone => {
                self.metrics().result_duplicate();
                Ok(duplicate())
            }
        }
    }

    /// Takes back leases a worker gives up.
    pub fn return_leases(
        &self,
        request: &v1::ReturnLeasesRequest,
    ) -> Result<v1::ReturnLeasesResponse, Status> {
        let id = worker_id(&request.worker_id)?;
        let changed = self.scheduler().return_leases(id, &request.lease_ids);
        self.metrics().leases(LeaseEvent::Returned, changed.len());
        for (job_id, record) in &changed {
            self.store.put_job(*job_id, record).map_err(internal)?;
        }
        Ok(v1::ReturnLeasesResponse {
            returned: changed.len() as u32,
        })
    }

    /// Queues jobs; answers once they are durable.
    pub async fn submit_jobs(
        &self,
        request: &v1::SubmitJobsRequest,
    ) -> Result<v1::SubmitJobsResponse, Status> {
        if request.jobs.len() > 100_000 {
            return Err(Status::invalid_argument("at most 100000 jobs per call"));
        }
        let tasks: Vec<Task> = request
            .jobs
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                Task::try_from(spec)
                    .map_err(|e| Status::invalid_argument(format!("job {}: {}", i + 1, e.0)))
            })
            .collect::<Result<_, _>>()?;
        if tasks.iter().any(|task| matches!(task, Task::Pair { .. })) {
            return Err(Status::invalid_argument(
                "game pairs belong to matches: create a match instead",
            ));
        }
        let job_ids = self.queue_tasks(tasks).await?;
        Ok(v1::SubmitJobsResponse { job_ids })
    }

    /// Stores `tasks` as queued jobs and queues them once durable; returns their ids.
    pub(crate) async fn queue_tasks(&self, tasks: Vec<Task>) -> Result<Vec<u64>, Status> {
        let mut ids = Vec::with_capacity(tasks.len());
        let mut records = Vec::with_capacity(tasks.len());
        for task in tasks {
            self.metrics().job_queued(task.kind());
            let id = self.store.generate_id().map_err(internal)?;
            let record = StoredJob {
                spec: Some(v1::JobSpec::from(&task)),
                state: JobState::Queued as u32,
                seed: job_seed(id),
                ..StoredJob::default()
            };
            self.store.put_job(id, &record).map_err(internal)?;
            ids.push(id);
            records.push((id, record, task));
        }
        self.flusher.durable().await.map_err(Status::internal)?;
        let now = Instant::now();
        let mut scheduler = self.scheduler();
        for (id, record, task) in records {
            scheduler.restore(id, record, task, now);
        }
        Ok(ids)
    }

    /// Cancels jobs that are not finished.
    pub async fn cancel_jobs(
        &self,
        request: &v1::CancelJobsRequest,
    ) -> Result<v1::CancelJobsResponse, Status> {
        let changed = self.scheduler().cancel(&request.job_ids);
        for (job_id, record) in &changed {
            self.store.put_job(*job_id, record).map_err(internal)?;
        }
        self.flusher.durable().await.map_err(Status::internal)?;
        Ok(v1::CancelJobsResponse {
            cancelled: changed.len() as u32,
        })
    }

    /// Requeues expired leases; call periodically.
    pub fn expire_leases(&self) -> Result<usize, StoreError> {
        let changed = self.scheduler().expire(Instant::now());
        self.metrics().leases(LeaseEvent::Expired, changed.len());
        for (job_id, record) in &changed {
            tracing::info!(job = job_id, state = ?JobState::from_stored(record.state), "lease expired");
            self.store.put_job(*job_id, record)?;
        }
        Ok(changed.len())
    }

    /// Job counts, workers and totals.
    pub fn status(&self) -> Result<v1::StatusResponse, Status> {
        let totals = self.store.totals().map_err(internal)?;
        let scheduler = self.scheduler();
        let (queued, leased) = scheduler.pending();
        let now = Instant::now();
        let mut workers: Vec<v1::WorkerStatus> = scheduler
            .workers
            .iter()
            .map(|(id, info)| v1::WorkerStatus {
                worker_id: id.clone(),
                name: info.name.clone(),
                threads: info.threads,
                leases: scheduler.leases_of(id),
                results: info.results,
                seconds_since_seen: now.duration_since(info.last_seen).as_secs_f64(),
            })
            .collect();
        workers.sort_by(|a, b| a.name.cmp(&b.name).then(a.worker_id.cmp(&b.worker_id)));
        Ok(v1::StatusResponse {
            queued,
            leased,
            done: scheduler.finished[0],
            failed: scheduler.finished[1],
            cancelled: scheduler.finished[2],
            workers,
            playout_positions: totals.playout_positions,
            game_positions: totals.game_positions,
            games: totals.games,
            playouts: totals.playouts,
        })
    }
}

/// The worker and the outcome of a submission whose fields are well-formed.
fn parse_submission(request: &v1::SubmitRequest) -> Result<(&str, Outcome), Status> {
    let worker = worker_id(&request.worker_id)?;
    if request.result_id.is_empty() || request.result_id.len() > 200 {
        return Err(Status::invalid_argument("result_id must be 1 to 200 bytes"));
    }
    let wire = request
        .result
        .as_ref()
        .ok_or_else(|| Status::invalid_argument("the submission has no result"))?;
    Ok((worker, Outcome::try_from(wire)?))
}

fn duplicate() -> v1::SubmitResponse {
    v1::SubmitResponse {
        outcome: v1::SubmitOutcome::Duplicate as i32,
    }
}
