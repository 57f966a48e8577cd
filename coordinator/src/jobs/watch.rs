//! Following a set of jobs until they are all finished: a [`JobWatch`] reads its jobs once,
//! then keeps their counts up to date from the queue's job events (woken by changes, never by
//! a timer). A watcher that falls behind the events reads its unfinished jobs again.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use thiserror::Error;
use tokio::sync::broadcast::{self, error::RecvError};

use super::{JobError, JobEvent, JobQueue};
use pentagrid_store::StoreError;
use pentagrid_store::job::{Job, JobState};

/// Most jobs one watch may follow.
pub const MAX_WATCHED_JOBS: usize = 100_000;

/// Most finished jobs one update lists (the rest follow in the next updates), so that an
/// update stays far below the message size cap.
pub const MAX_FINISHED_PER_UPDATE: usize = 1_000;

/// Most bytes of a failure message kept (1,000 of them fit an update many times over).
pub const MAX_ERROR_BYTES: usize = 500;

/// Why a watch ended before its jobs finished.
#[derive(Debug, Error)]
pub enum WatchError {
    /// The coordinator is shutting down (watch again once it is back).
    #[error("the coordinator is shutting down; watch again when it is back")]
    ShuttingDown,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A watched job that finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedJob {
    /// The job.
    pub job_id: u64,
    /// Done, failed or cancelled.
    pub state: JobState,
    /// For failed jobs, the last failure a worker reported (empty if none was).
    pub error: String,
}

/// Where the watched jobs stand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobsUpdate {
    /// Distinct jobs watched.
    pub total: u64,
    /// Of them, queued.
    pub queued: u64,
    /// Leased.
    pub leased: u64,
    /// Done.
    pub done: u64,
    /// Failed.
    pub failed: u64,
    /// Cancelled.
    pub cancelled: u64,
    /// Jobs that finished since the previous update (at most [`MAX_FINISHED_PER_UPDATE`]).
    pub finished: Vec<FinishedJob>,
    /// Playouts merged into tables by the done jobs.
    pub playouts: u64,
    /// Games stored by the done jobs.
    pub games: u64,
}

impl JobQueue {
    /// Job state changes from now on, for watchers.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<JobEvent> {
        self.events.subscribe()
    }

    /// Where a job stands: from the scheduler while queued or leased, else from the store.
    /// A job taken for its result but not yet stored reads as leased. `None`: no such job.
    pub(crate) fn job_record(&self, job_id: u64) -> Result<Option<Job>, StoreError> {
        if let Some(state) = self.scheduler().state(job_id) {
            return Ok(Some(Job::in_state(state)));
        }
        let Some(mut record) = self.store.job(job_id)? else {
            return Ok(None);
        };
        if record.state == JobState::Queued {
            // Taken for submission (the scheduler let go of it) and not yet written as done.
            record.state = JobState::Leased;
        }
        Ok(Some(record))
    }

    /// Follows `job_ids` until they are all finished (see [`JobWatch`]).
    pub fn watch(self: &Arc<Self>, job_ids: &[u64]) -> Result<JobWatch, JobError> {
        JobWatch::start(self.clone(), job_ids)
    }
}

/// A running watch over some jobs; [`JobWatch::next`] gives the updates.
pub struct JobWatch {
    queue: Arc<JobQueue>,
    events: broadcast::Receiver<JobEvent>,
    stopping: tokio::sync::watch::Receiver<bool>,
    /// The unfinished jobs and their last known state (queued or leased).
    unfinished: HashMap<u64, JobState>,
    counts: JobsUpdate,
    /// Finished jobs not yet told.
    backlog: VecDeque<FinishedJob>,
    started: bool,
    ended: bool,
}

impl JobWatch {
    /// Reads the jobs' states; refuses unknown ids and too many of them.
    pub(crate) fn start(queue: Arc<JobQueue>, job_ids: &[u64]) -> Result<JobWatch, JobError> {
        if job_ids.len() > MAX_WATCHED_JOBS {
            return Err(JobError::TooManyWatched);
        }
        // Subscribe first: a change after the read below is then never missed.
        let events = queue.subscribe();
        let stopping = queue.stopping.subscribe();
        let mut watch = JobWatch {
            queue,
            events,
            stopping,
            unfinished: HashMap::with_capacity(job_ids.len()),
            counts: JobsUpdate::default(),
            backlog: VecDeque::new(),
            started: false,
            ended: false,
        };
        let mut ids = job_ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        watch.counts.total = ids.len() as u64;
        for id in ids {
            let record = watch
                .queue
                .job_record(id)?
                .ok_or(JobError::UnknownJob(id))?;
            watch.note(id, &record);
        }
        Ok(watch)
    }

    /// The next update: the first at once, then one per batch of changes to the watched jobs.
    /// `None` after the update in which the last job finished was given.
    pub async fn next(&mut self) -> Option<Result<JobsUpdate, WatchError>> {
        if self.ended {
            return None;
        }
        if self.started
            && self.backlog.is_empty()
            && let Err(error) = self.wait_for_change().await
        {
            return Some(Err(error));
        }
        self.started = true;
        let take = self.backlog.len().min(MAX_FINISHED_PER_UPDATE);
        let mut update = self.counts.clone();
        update.finished = self.backlog.drain(..take).collect();
        self.ended = self.unfinished.is_empty() && self.backlog.is_empty();
        Some(Ok(update))
    }

    /// Waits until a watched job changes, then takes in every change already waiting.
    async fn wait_for_change(&mut self) -> Result<(), WatchError> {
        let mut changed = false;
        while !changed {
            if *self.stopping.borrow() {
                self.ended = true;
                return Err(WatchError::ShuttingDown);
            }
            let event = tokio::select! {
                event = self.events.recv() => event,
                _ = self.stopping.changed() => continue,
            };
            changed = match event {
                Ok(event) => self.apply(event)?,
                Err(RecvError::Lagged(_)) => self.reread()?,
                // The queue is gone (shutting down): nothing will change any more.
                Err(RecvError::Closed) => {
                    self.unfinished.clear();
                    return Ok(());
                }
            };
        }
        loop {
            match self.events.try_recv() {
                Ok(event) => {
                    self.apply(event)?;
                }
                Err(broadcast::error::TryRecvError::Lagged(_)) => {
                    self.reread()?;
                }
                Err(_) => return Ok(()),
            }
        }
    }

    /// Takes in one event; whether it was about a watched unfinished job.
    fn apply(&mut self, event: JobEvent) -> Result<bool, StoreError> {
        let Some(&known) = self.unfinished.get(&event.job_id) else {
            return Ok(false);
        };
        if event.state == known {
            return Ok(false);
        }
        match event.state {
            JobState::Queued | JobState::Leased => {
                self.forget(event.job_id);
                self.note(event.job_id, &Job::in_state(event.state));
            }
            JobState::Done | JobState::Failed | JobState::Cancelled => {
                self.refresh(event.job_id)?;
            }
        }
        Ok(true)
    }

    /// Reads every unfinished job again (after missing events); whether any changed.
    fn reread(&mut self) -> Result<bool, StoreError> {
        let before = self.counts.clone();
        let ids: Vec<u64> = self.unfinished.keys().copied().collect();
        for id in ids {
            self.refresh(id)?;
        }
        Ok(self.counts != before || !self.backlog.is_empty())
    }

    /// Reads one unfinished job again.
    fn refresh(&mut self, job_id: u64) -> Result<(), StoreError> {
        let record = self.queue.job_record(job_id)?.unwrap_or_else(|| Job {
            // Set aside as unreadable: it will never run.
            error: "the job record is unreadable".into(),
            ..Job::in_state(JobState::Failed)
        });
        self.forget(job_id);
        self.note(job_id, &record);
        Ok(())
    }

    /// Takes a job out of the counts of the unfinished ones.
    fn forget(&mut self, job_id: u64) {
        match self.unfinished.remove(&job_id) {
            Some(JobState::Queued) => self.counts.queued -= 1,
            Some(JobState::Leased) => self.counts.leased -= 1,
            _ => {}
        }
    }

    /// Counts a job in its state (finished jobs go to the backlog).
    fn note(&mut self, job_id: u64, record: &Job) {
        let state = record.state;
        let counter = match state {
            JobState::Queued => &mut self.counts.queued,
            JobState::Leased => &mut self.counts.leased,
            JobState::Done => &mut self.counts.done,
            JobState::Failed => &mut self.counts.failed,
            JobState::Cancelled => &mut self.counts.cancelled,
        };
        *counter += 1;
        if matches!(state, JobState::Queued | JobState::Leased) {
            self.unfinished.insert(job_id, state);
            return;
        }
        if state == JobState::Done {
            // Display sums over every stored job: they stop at the top rather than wrap.
            self.counts.playouts = self.counts.playouts.saturating_add(record.playouts);
            self.counts.games = self.counts.games.saturating_add(record.games);
        }
        let error = match state {
            JobState::Failed => record.error.clone(),
            _ => String::new(),
        };
        self.backlog.push_back(FinishedJob {
            job_id,
            state,
            error,
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pentago::Position;
    use pentagrid_model::Task;

    use super::*;
    use crate::clock::ManualClock;
    use crate::identity::WorkerId;
    use crate::jobs::JobSettings;
    use pentagrid_store::Store;

    fn id(text: &str) -> WorkerId {
        WorkerId::parse(text).unwrap()
    }

    fn queue(dir: &std::path::Path) -> Arc<JobQueue> {
        let store = Arc::new(Store::open(dir).unwrap());
        let settings = JobSettings {
            max_attempts: 1,
            ..JobSettings::default()
        };
        Arc::new(JobQueue::open_alone(store, settings, Arc::new(ManualClock::default())).unwrap())
    }

    fn solve() -> Task {
        Task::Solve {
            position: Position::START,
        }
    }

    #[tokio::test]
    async fn a_watch_follows_only_its_jobs_and_ends_when_they_finish() {
        let dir = tempfile::tempdir().unwrap();
        let queue = queue(dir.path());
        let mine = queue.submit(vec![solve(), solve()]).await.unwrap();
        let theirs = queue.submit(vec![solve()]).await.unwrap();
        let mut watch = queue.watch(&[mine[0], mine[1], mine[0]]).unwrap();
        let first = watch.next().await.unwrap().unwrap();
        assert_eq!((first.total, first.queued, first.finished.len()), (2, 2, 0));

        queue.hello(&id("w"), "w", 1).unwrap();
        let leased = queue.lease(&id("w"), 3).unwrap();
        assert_eq!(leased.len(), 3);
        let update = watch.next().await.unwrap().unwrap();
        assert_eq!((update.queued, update.leased), (0, 2));

        // Another user's job changing wakes nothing; ours failing does.
        queue.cancel(&theirs).await.unwrap();
        let lease = |id: u64| leased.iter().find(|j| j.job_id == id).unwrap().lease_id;
        let state = queue
            .report_failure(&id("w"), mine[0], lease(mine[0]), "it broke")
            .await
            .unwrap();
        assert_eq!(state, JobState::Failed);
        let update = watch.next().await.unwrap().unwrap();
        assert_eq!((update.leased, update.failed, update.cancelled), (1, 1, 0));
        assert_eq!(
            update.finished,
            vec![FinishedJob {
                job_id: mine[0],
                state: JobState::Failed,
                error: "it broke".into(),
            }]
        );
        queue.cancel(&[mine[1]]).await.unwrap();
        let last = watch.next().await.unwrap().unwrap();
        assert_eq!((last.leased, last.cancelled), (0, 1));
        assert!(watch.next().await.is_none(), "the watch ends");
    }

    #[tokio::test]
    async fn a_shutdown_ends_open_watches() {
        let dir = tempfile::tempdir().unwrap();
        let queue = queue(dir.path());
        let ids = queue.submit(vec![solve()]).await.unwrap();
        let mut watch = queue.watch(&ids).unwrap();
        assert!(watch.next().await.unwrap().is_ok());
        let waiting = tokio::spawn(async move { watch.next().await });
        tokio::task::yield_now().await;
        queue.drain();
        let ended = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the watch ends on shutdown")
            .unwrap();
        assert!(matches!(ended, Some(Err(WatchError::ShuttingDown))));
    }

    #[tokio::test]
    async fn unknown_ids_and_too_many_ids_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let queue = queue(dir.path());
        let ids = queue.submit(vec![solve()]).await.unwrap();
        assert!(matches!(
            queue.watch(&[ids[0], 999_999]),
            Err(JobError::UnknownJob(999_999))
        ));
        let many = vec![ids[0]; MAX_WATCHED_JOBS + 1];
        assert!(matches!(queue.watch(&many), Err(JobError::TooManyWatched)));
    }

    #[tokio::test]
    async fn many_finished_jobs_come_in_bounded_batches() {
        let dir = tempfile::tempdir().unwrap();
        let queue = queue(dir.path());
        let count = MAX_FINISHED_PER_UPDATE + 10;
        let ids = queue.queue(vec![solve(); count]).await.unwrap();
        queue.cancel(&ids).await.unwrap();
        let mut watch = queue.watch(&ids).unwrap();
        let first = watch.next().await.unwrap().unwrap();
        assert_eq!(
            (first.cancelled, first.finished.len()),
            (count as u64, MAX_FINISHED_PER_UPDATE)
        );
        let second = tokio::time::timeout(Duration::from_secs(5), watch.next())
            .await
            .expect("the rest come at once")
            .unwrap()
            .unwrap();
        assert_eq!(second.finished.len(), 10);
        assert!(watch.next().await.is_none());
    }
}
