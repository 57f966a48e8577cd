//! The job queue service: workers say hello, lease jobs, heartbeat and give leases back;
//! clients and the other services queue and cancel jobs. Queued and leased jobs live in the
//! in-memory [`scheduler`] and, durably, in the store; time comes from the injected clock.

mod cancel;
pub mod engines;
mod failure;
pub mod fair;
pub mod registry;
mod scheduler;
mod settings;
mod status;
pub mod watch;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use pentago::Position;
use pentagrid_model::Task;
use thiserror::Error;
use tokio::sync::broadcast;

use crate::clock::Clock;
use crate::flags::WorkerFlags;
use crate::flusher::Flusher;
use crate::identity::{LabelError, Session, WorkerId, WorkerKey, worker_name};
use crate::metrics::{LeaseEvent, Metrics};
use crate::offload::blocking;
use crate::seed::job_seed;
use engines::{BadEngines, WorkerEngines};
pub use failure::FailureError;
use pentagrid_store::job::{Job, JobState};
use pentagrid_store::{Store, StoreError};
use registry::RegistryFull;
pub(crate) use scheduler::Active;
pub use scheduler::NotLeased;
use scheduler::{JoinError, Scheduler, SessionCheck, WorkerEntry};
pub use settings::{JobSettings, JobSettingsError, MAX_LEASE, MAX_PRUNE_AFTER_LEASES, MAX_WORKERS};
pub use status::{DEFAULT_WORKERS_PAGE, QueueStatus, WorkerPage};
pub use watch::{FinishedJob, JobWatch, JobsUpdate, MAX_WATCHED_JOBS, WatchError};

pub use pentagrid_model::limits::MAX_JOBS_PER_SUBMISSION;

/// Why a job-queue call was refused.
#[derive(Debug, Error)]
pub enum JobError {
    /// The worker name is too long or unprintable.
    #[error("bad worker name: it {0}")]
    BadWorkerName(LabelError),
    /// The registry is full of workers holding leases.
    #[error(transparent)]
    RegistryFull(#[from] RegistryFull),
    /// The worker has not said hello to this coordinator process (it may have restarted, or
    /// forgotten the worker after a long silence).
    #[error("unknown worker {0:?}: say hello first")]
    UnknownWorker(String),
    /// Too many jobs in one submission.
    #[error("at most {MAX_JOBS_PER_SUBMISSION} jobs per call, not {0}: submit in batches")]
    TooManyJobs(usize),
    /// Game pairs are queued by matches, not directly.
    #[error("game pairs belong to matches: create a match instead")]
    PairsBelongToMatches,
    /// Too many jobs to watch in one call.
    #[error("at most {MAX_WATCHED_JOBS} jobs per watch")]
    TooManyWatched,
    /// A watched job does not exist.
    #[error("no job {0}")]
    UnknownJob(u64),
    /// The worker is quarantined.
    #[error("worker {0} is quarantined: a cross-check caught it with a wrong exact claim")]
    Quarantined(String),
    /// A worker call carried a session that is not the worker's current one.
    #[error("the session is not worker {0:?}'s current session: say hello again with your own key")]
    WrongSession(String),
    /// A live session with another key holds the worker id.
    #[error(
        "worker id {0:?} is held by a live session with another key: wait until it has been silent for a lease period, or use another id"
    )]
    WorkerIdInUse(String),
    /// The engines a worker announced cannot be taken.
    #[error(transparent)]
    BadEngines(#[from] BadEngines),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How long leases last, how often to heartbeat and the reference speed time limits are
/// scaled to, as told to a worker.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LeaseTerms {
    /// A lease's life without a heartbeat.
    pub lease: Duration,
    /// How often to heartbeat.
    pub heartbeat: Duration,
    /// The speed the time controls are meant for (0: no scaling; see
    /// [`JobSettings::reference_speed`]).
    pub reference_speed: u64,
}

/// A lease id nobody can guess: 64 bits from the operating system's randomness (never 0, which
/// stored job records read as "no lease"). Sequential ids let one worker name another's lease.
fn fresh_lease_id() -> u64 {
    use rand::RngExt;
    let mut rng = rand::rng();
    loop {
        let id: u64 = rng.random();
        if id != 0 {
            return id;
        }
    }
}

/// A job granted to a worker.
#[derive(Clone, Debug)]
pub struct LeasedJob {
    /// The job.
    pub job_id: u64,
    /// The lease.
    pub lease_id: u64,
    /// Leases granted for this job so far (this one included).
    pub attempt: u32,
    /// The job's seed.
    pub seed: u64,
    /// What to do.
    pub task: Task,
}

/// A job's state changed (sent once the new state is written to the store).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct JobEvent {
    /// The job.
    pub job_id: u64,
    /// Its new state.
    pub state: JobState,
}

/// Job events a slow watcher may fall behind by before it has to read its jobs again.
const EVENT_BACKLOG: usize = 16_384;

/// The job queue with its leases and workers.
pub struct JobQueue {
    store: Arc<Store>,
    scheduler: Mutex<Scheduler>,
    /// Held from a change of the scheduler until the job records it returned are written, so
    /// the store sees the changes in the scheduler's order, while the scheduler's own lock
    /// (which heartbeats and status calls take) is never held across a store write. Taken
    /// before the scheduler's lock, never while holding it.
    writes: Mutex<()>,
    flusher: Flusher,
    settings: JobSettings,
    metrics: Metrics,
    clock: Arc<dyn Clock>,
    draining: AtomicBool,
    flags: Arc<WorkerFlags>,
    /// A full registry is logged once, not once per refused hello.
    warn_full: std::sync::Once,
    events: broadcast::Sender<JobEvent>,
    /// Turns true on shutdown: open watches end then, so they do not hold the server up.
    stopping: tokio::sync::watch::Sender<bool>,
}

impl JobQueue {
    /// Restores queued and leased jobs from the store (a lease from before a restart is
    /// honoured for one more lease period) and starts group commit (needs a tokio runtime).
    /// Leases go to workers `flags` does not quarantine; what happens is counted in `metrics`.
    pub(crate) fn open(
        store: Arc<Store>,
        settings: JobSettings,
        metrics: Metrics,
        flags: Arc<WorkerFlags>,
        clock: Arc<dyn Clock>,
    ) -> Result<JobQueue, StoreError> {
        let mut scheduler = Scheduler::new(
            settings.lease_duration,
            settings.max_attempts,
            settings.max_workers,
        );
        let now = clock.now();
        for (id, job) in store.load_jobs()? {
            scheduler.restore(id, job, now);
        }
        // Sessions did not survive the restart; their ids stay with their keys a while, and
        // the ids of keyless workers holding restored leases with nobody.
        for (id, digest) in store.worker_key_digests()? {
            scheduler.reserve_worker(&id, Some(digest), now);
        }
        let keyless = scheduler.reserve_keyless_leaseholders(now);
        if keyless > 0 {
            tracing::info!(
                workers = keyless,
                "ids of keyless workers holding leases kept from every caller for a lease period"
            );
        }
        Ok(JobQueue {
            flags,
            flusher: Flusher::start(store.clone()),
            store,
            scheduler: Mutex::new(scheduler),
            writes: Mutex::new(()),
            settings,
            metrics,
            clock,
            draining: AtomicBool::new(false),
            warn_full: std::sync::Once::new(),
            events: broadcast::Sender::new(EVENT_BACKLOG),
            stopping: tokio::sync::watch::Sender::new(false),
        })
    }

    /// A queue over `store` with its stored flags and metrics of its own (tests).
    #[cfg(test)]
    pub(crate) fn open_alone(
        store: Arc<Store>,
        settings: JobSettings,
        clock: Arc<dyn Clock>,
    ) -> Result<JobQueue, StoreError> {
        let flags = Arc::new(WorkerFlags::load(&store)?);
        JobQueue::open(store, settings, Metrics::new(), flags, clock)
    }

    fn scheduler(&self) -> MutexGuard<'_, Scheduler> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.scheduler
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The order of store writes (see [`JobQueue::writes`]); take it before the scheduler.
    fn writes(&self) -> MutexGuard<'_, ()> {
        self.writes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Stores jobs the scheduler changed, gives back what those that ended without a result
    /// held ([`crate::abandoned`]), and tells the watchers.
    fn record_changes(&self, changed: &[(u64, Job)]) -> Result<(), StoreError> {
        for (job_id, record) in changed {
            self.store.put_job(*job_id, record)?;
            crate::abandoned::release(&self.store, *job_id, record)?;
        }
        self.publish(changed.iter().map(|(id, record)| (*id, record)));
        Ok(())
    }

    /// Tells watchers that jobs changed state (nobody listening is fine).
    fn publish<'a>(&self, changed: impl IntoIterator<Item = (u64, &'a Job)>) {
        if self.events.receiver_count() == 0 {
            return;
        }
        for (job_id, record) in changed {
            let state = record.state;
            let _ = self.events.send(JobEvent { job_id, state });
        }
    }

    /// How long a lease lasts without a heartbeat.
    pub fn lease_duration(&self) -> Duration {
        self.settings.lease_duration
    }

    /// Stops handing out jobs (graceful shutdown).
    pub fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
        self.stopping.send_replace(true);
    }

    /// Waits until everything written so far is durable (shared flushes).
    pub async fn durable(&self) -> Result<(), StoreError> {
        self.flusher.durable().await.map_err(StoreError::Durability)
    }

    /// A worker introduces itself (again, after a coordinator restart). Its id and name must
    /// be printable and bounded ([`identity`]); a new id in a full registry evicts the
    /// longest-silent worker without leases ([`registry`]).
    pub fn hello(
        &self,
        worker_id: &WorkerId,
        name: &str,
        threads: u32,
    ) -> Result<LeaseTerms, JobError> {
        let (terms, _session) = self.hello_with_engines(
            worker_id,
            name,
            threads,
            WorkerEngines::new(),
            WorkerKey::NONE,
        )?;
        Ok(terms)
    }

    /// [`JobQueue::hello`] from a worker that runs these external engines (checked with
    /// [`engines::check_engines`]): it may then take game pairs between them. The answer's
    /// session secret must come with every later call of this worker
    /// ([`JobQueue::authenticate`]); a live session under the same id is replaced only by a
    /// hello with its `key`.
    pub fn hello_with_engines(
        &self,
        worker_id: &WorkerId,
        name: &str,
        threads: u32,
        engines: WorkerEngines,
        key: WorkerKey,
    ) -> Result<(LeaseTerms, Session), JobError> {
        let id = worker_id.as_str();
        let name = worker_name(name).map_err(JobError::BadWorkerName)?;
        let engine_count = engines.len();
        let session = Session::fresh();
        let digest = key.digest(id);
        let info = WorkerEntry {
            name: name.to_owned(),
            threads,
            last_seen: self.clock.now(),
            results: 0,
            engines,
            key,
            session: session.clone(),
        };
        // The key digests reach the store in the order the registry changed.
        let _writes = self.writes();
        let evicted = self.scheduler().join_worker(id, info);
        let evicted = match evicted {
            Ok(evicted) => evicted,
            Err(JoinError::Full(full)) => {
                self.warn_full.call_once(|| {
                    tracing::warn!(worker = %id, "worker registry full of leaseholders: hello refused");
                });
                return Err(full.into());
            }
            Err(JoinError::IdInUse) => {
                tracing::warn!(worker = %id, "hello refused: a live session with another key holds this id");
                return Err(JobError::WorkerIdInUse(id.to_owned()));
            }
        };
        if digest.is_none() {
            tracing::warn!(
                worker = %id,
                "worker said hello without a key: once its session goes silent or the \
                 coordinator restarts (and it holds no lease), another caller may take its id"
            );
        }
        // Durable with the next flush: a restart keeps the id for this key a while.
        self.store.set_worker_key_digest(id, digest.as_ref())?;
        if let Some(evicted) = evicted {
            tracing::debug!(worker = %evicted, "registry full: the longest-silent worker evicted");
            self.store.set_worker_key_digest(&evicted, None)?;
        }
        // Peer text is logged escaped (`?`), so a name cannot forge a log line.
        tracing::info!(worker = %id, name = ?name, threads, engines = engine_count, "worker joined");
        let terms = LeaseTerms {
            lease: self.settings.lease_duration,
            heartbeat: self.settings.heartbeat_interval,
            reference_speed: self.settings.reference_speed,
        };
        Ok((terms, session))
    }

    /// Checks that a worker call comes from `worker_id`'s current session: a call in another
    /// worker's name is refused before it can touch anything.
    pub fn authenticate(&self, worker_id: &WorkerId, session: &Session) -> Result<(), JobError> {
        let id = worker_id.as_str();
        match self.scheduler().session_of(id, session) {
            SessionCheck::Current => Ok(()),
            SessionCheck::UnknownWorker => Err(JobError::UnknownWorker(id.to_owned())),
            SessionCheck::Wrong => {
                tracing::warn!(worker = %id, "a worker call with a session that is not the worker's: refused");
                Err(JobError::WrongSession(id.to_owned()))
            }
        }
    }

    /// Grants up to `max_jobs` queued jobs (none while draining). The lease ids are drawn
    /// from the store and the granted records written back outside the scheduler's lock.
    pub fn lease(&self, worker_id: &WorkerId, max_jobs: u32) -> Result<Vec<LeasedJob>, JobError> {
        let id = worker_id.as_str();
        if self.draining.load(Ordering::Relaxed) {
            return Ok(Vec::new());
        }
        // Zero asks for nothing and gets nothing (proto3's default is not "one").
        let max = max_jobs.min(self.settings.max_jobs_per_lease) as usize;
        let now = self.clock.now();
        if self.flags.quarantined(id) {
            return Err(JobError::Quarantined(id.to_owned()));
        }
        let _writes = self.writes();
        let queued = {
            let mut scheduler = self.scheduler();
            if !scheduler.workers().contains_key(id) {
                return Err(JobError::UnknownWorker(id.to_owned()));
            }
            scheduler.seen(id, now);
            scheduler.pending().0
        };
        // Only this call takes jobs from the queue while `writes` is held, so there are at
        // least as many queued now as when counted (less any this worker may not take).
        let wanted = max.min(usize::try_from(queued).unwrap_or(usize::MAX));
        let granted = self
            .scheduler()
            .lease(id, wanted, now, || Some(fresh_lease_id()));
        let mut jobs = Vec::with_capacity(granted.len());
        for (job_id, active) in granted {
            self.store.put_job(job_id, &active.record)?;
            self.publish([(job_id, &active.record)]);
            jobs.push(LeasedJob {
                job_id,
                lease_id: active.record.lease_id,
                attempt: active.record.attempts,
                seed: active.record.seed,
                task: active.task,
            });
        }
        self.metrics.leases(LeaseEvent::Granted, jobs.len());
        Ok(jobs)
    }

    /// Renews leases; returns those the worker no longer holds.
    pub fn heartbeat(&self, worker_id: &WorkerId, lease_ids: &[u64]) -> Result<Vec<u64>, JobError> {
        let id = worker_id.as_str();
        let now = self.clock.now();
        let mut scheduler = self.scheduler();
        scheduler.seen(id, now);
        Ok(scheduler.heartbeat(id, lease_ids, now))
    }

    /// Takes back leases a worker gives up; returns how many it held.
    pub fn return_leases(
        &self,
        worker_id: &WorkerId,
        lease_ids: &[u64],
    ) -> Result<usize, JobError> {
        let id = worker_id.as_str();
        let _writes = self.writes();
        let changed = self.scheduler().return_leases(id, lease_ids);
        self.metrics.leases(LeaseEvent::Returned, changed.len());
        for (job_id, record) in &changed {
            self.store.put_job(*job_id, record)?;
        }
        self.publish(changed.iter().map(|(id, record)| (*id, record)));
        Ok(changed.len())
    }

    /// Queues a client's jobs (not game pairs); answers once they are durable.
    pub async fn submit(&self, tasks: Vec<Task>) -> Result<Vec<u64>, JobError> {
        if tasks.len() > MAX_JOBS_PER_SUBMISSION {
            return Err(JobError::TooManyJobs(tasks.len()));
        }
        if tasks.iter().any(|task| matches!(task, Task::Pair { .. })) {
            return Err(JobError::PairsBelongToMatches);
        }
        Ok(self.queue(tasks).await?)
    }

    /// Stores `tasks` as queued jobs and queues them once durable; returns their ids.
    pub(crate) async fn queue(&self, tasks: Vec<Task>) -> Result<Vec<u64>, StoreError> {
        self.queue_excluding(tasks, Vec::new()).await
    }

    /// [`JobQueue::queue`] for jobs the `excluded` workers may not lease.
    pub(crate) async fn queue_excluding(
        &self,
        tasks: Vec<Task>,
        excluded: Vec<String>,
    ) -> Result<Vec<u64>, StoreError> {
        // A submission may hold 10^5 jobs: their records are written on the blocking pool.
        let (store, metrics) = (self.store.clone(), self.metrics.clone());
        let records = blocking(move || {
            let mut records = Vec::with_capacity(tasks.len());
            for task in tasks {
                metrics.job_queued(task.kind());
                let id = store.generate_id()?;
                let record = Job {
                    excluded_workers: excluded.clone(),
                    ..Job::queued(task, job_seed(id))
                };
                store.put_job(id, &record)?;
                records.push((id, record));
            }
            Ok::<_, StoreError>(records)
        })
        .await?;
        let ids = records.iter().map(|(id, _)| *id).collect();
        self.durable().await?;
        let now = self.clock.now();
        let mut scheduler = self.scheduler();
        for (id, record) in records {
            scheduler.restore(id, record, now);
        }
        Ok(ids)
    }

    /// Cancels jobs that are not finished; answers once durable. Returns how many it cancelled.
    pub async fn cancel(&self, job_ids: &[u64]) -> Result<usize, StoreError> {
        let cancelled = self.cancel_unflushed(job_ids)?;
        self.durable().await?;
        Ok(cancelled)
    }

    /// [`JobQueue::cancel`] without waiting for durability (start-up clean-up).
    pub(crate) fn cancel_unflushed(&self, job_ids: &[u64]) -> Result<usize, StoreError> {
        let _writes = self.writes();
        let changed = self.scheduler().cancel(job_ids);
        self.record_changes(&changed)?;
        Ok(changed.len())
    }

    /// Requeues the jobs of expired leases (or fails them after too many attempts) and
    /// forgets workers silent for longer than `prune_after_leases` lease durations; called
    /// periodically. Returns how many jobs changed.
    pub fn expire_leases(&self) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let silence = self.settings.lease_duration * self.settings.prune_after_leases;
        let _writes = self.writes();
        let (changed, pruned) = {
            let mut scheduler = self.scheduler();
            let changed = scheduler.expire(now);
            let mut pruned = match now.checked_sub(silence) {
                Some(cutoff) => scheduler.prune_workers(cutoff),
                None => Vec::new(),
            };
            let lapsed = scheduler.lapse_reservations(now);
            pruned.extend(lapsed);
            (changed, pruned)
        };
        for worker in pruned {
            tracing::info!(worker = %worker, "silent worker forgotten");
            self.store.set_worker_key_digest(&worker, None)?;
        }
        self.metrics.leases(LeaseEvent::Expired, changed.len());
        for (job_id, record) in &changed {
            tracing::info!(job = job_id, state = ?record.state, "lease expired");
        }
        self.record_changes(&changed)?;
        Ok(changed.len())
    }

    /// The tasks of queued or leased jobs that satisfy `wanted`, with their ids, by id.
    pub(crate) fn active_tasks(&self, wanted: impl Fn(&Task) -> bool) -> Vec<(u64, Task)> {
        let scheduler = self.scheduler();
        scheduler
            .active_where(wanted)
            .into_iter()
            .filter_map(|id| scheduler.task(id).map(|task| (id, task.clone())))
            .collect()
    }

    /// Sets a match's owner (empty: no user) and its weight among that user's running
    /// matches (1 to [`fair::MAX_MATCH_WEIGHT`]; see [`fair`]).
    pub(crate) fn set_match_share(&self, match_id: u64, owner: &str, weight: u32) {
        self.scheduler().set_match_share(match_id, owner, weight);
    }

    /// Pairs of match `match_id` queued and leased.
    pub(crate) fn match_pairs(&self, match_id: u64) -> (u64, u64) {
        self.scheduler().match_pairs(match_id)
    }

    /// Whether some known worker runs each of the external engines `names` (true for none).
    pub(crate) fn someone_runs(&self, names: &[&str]) -> bool {
        engines::someone_runs(names, self.scheduler().workers().engines())
    }

    /// Those of `job_ids` that are no longer queued or leased, found under one lock of the
    /// scheduler (which heartbeats take too).
    pub(crate) fn inactive(&self, job_ids: impl IntoIterator<Item = u64>) -> HashSet<u64> {
        let scheduler = self.scheduler();
        job_ids
            .into_iter()
            .filter(|&job_id| scheduler.task(job_id).is_none())
            .collect()
    }

    /// Workers known (silent ones are forgotten after a while): each runs one job at a time.
    pub(crate) fn worker_count(&self) -> usize {
        self.scheduler().workers().len()
    }

    /// The canonical positions of queued or leased analyse and solve jobs, each with the id of
    /// its oldest job. Read from the queue's index: no copy of the queue, no canonicalization.
    pub(crate) fn book_positions(&self) -> Vec<(u64, Position)> {
        self.scheduler().book_positions()
    }

    /// A queued or leased job analysing or solving the position of canonical key `key`.
    pub(crate) fn book_job(&self, key: u64) -> Option<u64> {
        self.scheduler().book_job(key)
    }

    /// The job of a lease the worker holds, and the threads (search trees) the worker said
    /// it runs (notes the call from the worker).
    pub(crate) fn leased_job(
        &self,
        worker_id: &WorkerId,
        job_id: u64,
        lease_id: u64,
    ) -> Result<(Active, u32), NotLeased> {
        let worker_id = worker_id.as_str();
        let mut scheduler = self.scheduler();
        scheduler.seen(worker_id, self.clock.now());
        let job = scheduler
            .check_lease(worker_id, job_id, lease_id)
            .cloned()?;
        let threads = scheduler.workers().get(worker_id).map_or(1, |w| w.threads);
        Ok((job, threads))
    }

    /// Queues jobs a result stored with itself (cross-checks), once that result is applied.
    pub(crate) fn adopt(&self, jobs: &[(u64, Job)]) {
        let now = self.clock.now();
        let mut scheduler = self.scheduler();
        for (id, record) in jobs {
            if let Some(task) = &record.task {
                self.metrics.job_queued(task.kind());
            }
            scheduler.restore(*id, record.clone(), now);
        }
    }

    /// Takes a leased job out of the queue to complete it; [`JobQueue::put_back`] undoes it.
    pub(crate) fn take_for_submit(
        &self,
        worker_id: &WorkerId,
        job_id: u64,
        lease_id: u64,
    ) -> Result<Active, NotLeased> {
        self.scheduler()
            .take_for_submit(worker_id.as_str(), job_id, lease_id)
    }

    /// Puts a job taken for completion back at the front of the queue.
    pub(crate) fn put_back(&self, job_id: u64, active: Active) {
        let record = self.scheduler().put_back(job_id, active);
        self.publish([(job_id, &record)]);
    }

    /// Counts a finished job for its worker (its done record is stored).
    pub(crate) fn mark_done(&self, worker_id: &WorkerId, job_id: u64) {
        self.scheduler().mark_done(worker_id.as_str());
        self.publish([(job_id, &Job::in_state(JobState::Done))]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    fn id(text: &str) -> WorkerId {
        WorkerId::parse(text).unwrap()
    }

    fn queue_with_clock(dir: &std::path::Path, clock: Arc<ManualClock>) -> JobQueue {
        let store = Arc::new(Store::open(dir).unwrap());
        let settings = JobSettings {
            lease_duration: Duration::from_secs(30),
            max_attempts: 2,
            ..JobSettings::default()
        };
        JobQueue::open_alone(store, settings, clock).unwrap()
    }

    #[tokio::test]
    async fn an_expired_lease_goes_back_to_the_queue_on_the_injected_clock() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::default());
        let queue = queue_with_clock(dir.path(), clock.clone());
        let task = Task::Solve {
            position: Position::START,
        };
        let ids = queue.submit(vec![task.clone()]).await.unwrap();
        assert!(matches!(
            queue.lease(&id("w1"), 1),
            Err(JobError::UnknownWorker(_))
        ));
        queue.hello(&id("w1"), "one", 1).unwrap();
        let first = queue.lease(&id("w1"), 1).unwrap();
        assert_eq!(
            (first.len(), first[0].job_id, first[0].attempt),
            (1, ids[0], 1)
        );
        // Heartbeats keep it; 29 s after the last one it is still held.
        clock.advance(Duration::from_secs(20));
        assert!(
            queue
                .heartbeat(&id("w1"), &[first[0].lease_id])
                .unwrap()
                .is_empty()
        );
        clock.advance(Duration::from_secs(29));
        assert_eq!(queue.expire_leases().unwrap(), 0);
        assert_eq!((queue.status().queued, queue.status().leased), (0, 1));
        // Past 30 s of silence it expires and is queued again for another worker.
        clock.advance(Duration::from_secs(2));
        assert_eq!(queue.expire_leases().unwrap(), 1);
        assert_eq!((queue.status().queued, queue.status().leased), (1, 0));
        assert_eq!(
            queue.heartbeat(&id("w1"), &[first[0].lease_id]).unwrap(),
            vec![first[0].lease_id],
            "the old lease is lost"
        );
        queue.hello(&id("w2"), "two", 1).unwrap();
        let second = queue.lease(&id("w2"), 1).unwrap();
        assert_eq!((second[0].job_id, second[0].attempt), (ids[0], 2));
        assert_eq!(second[0].task, task);
        // The second expiry uses up the attempts: the job fails.
        clock.advance(Duration::from_secs(31));
        assert_eq!(queue.expire_leases().unwrap(), 1);
        let status = queue.status();
        assert_eq!((status.queued, status.leased, status.failed), (0, 0, 1));
    }

    #[tokio::test]
    async fn workers_silent_for_longer_than_the_pruning_horizon_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::default());
        // Leases of 30 s, pruned after 10 of them: 300 s of silence.
        let queue = queue_with_clock(dir.path(), clock.clone());
        queue.hello(&id("gone"), "gone", 1).unwrap();
        queue.hello(&id("alive"), "alive", 1).unwrap();
        clock.advance(Duration::from_secs(200));
        queue.heartbeat(&id("alive"), &[]).unwrap();
        clock.advance(Duration::from_secs(100));
        queue.expire_leases().unwrap();
        assert_eq!(
            queue.status().workers.len(),
            2,
            "300 s is not longer than 300 s"
        );
        clock.advance(Duration::from_secs(1));
        queue.expire_leases().unwrap();
        let names: Vec<String> = queue.status().workers.into_iter().map(|w| w.name).collect();
        assert_eq!(names, ["alive"]);
        // A forgotten worker is told to say hello again, and then it is back.
        assert!(matches!(
            queue.lease(&id("gone"), 1),
            Err(JobError::UnknownWorker(_))
        ));
        queue.hello(&id("gone"), "gone", 1).unwrap();
        assert_eq!(queue.status().workers.len(), 2);
    }

    #[tokio::test]
    async fn an_unreadable_queued_job_is_quarantined_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            // (The store's own tests cover a record whose task does not read back.)
            store.put_raw_job(7, &[0xff, 0xff, 0xff]).unwrap();
            store.flush_blocking().unwrap();
        }
        let queue = queue_with_clock(dir.path(), Arc::new(ManualClock::default()));
        let status = queue.status();
        assert_eq!((status.queued, status.quarantined), (0, 1));
    }

    #[tokio::test]
    async fn pairs_and_bad_worker_ids_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let queue = queue_with_clock(dir.path(), Arc::new(ManualClock::default()));
        let pair = Task::Pair {
            match_id: 1,
            pair: 0,
            opening: Position::START,
            a: pentago::Player::Random,
            b: pentago::Player::Random,
            accuracy_stones: None,
            time: None,
            adjudicate: None,
        };
        assert!(matches!(
            queue.submit(vec![pair]).await,
            Err(JobError::PairsBelongToMatches)
        ));
        assert!(matches!(
            queue.hello(&id("w"), "a\u{1b}", 1),
            Err(JobError::BadWorkerName(LabelError::Unprintable { .. }))
        ));
    }
}
