//! What the job queue shows of itself: job counts by state and the workers it knows, a page
//! at a time, so that the answer stays far below the message cap however many workers there
//! are, and a call costs the page, not the registry.

use std::time::Duration;

use pentagrid_model::WorkerInfo;

use super::JobQueue;
use super::registry::WorkerCursor;
use crate::flags::QUARANTINE_FLAGS;

/// Workers one status lists by default and at most: with ids of at most 200 bytes and names
/// of at most 100, a full page is about 350 KB, a third of the message cap.
pub const DEFAULT_WORKERS_PAGE: usize = 1_000;

/// Which workers a status lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerPage {
    /// After this (name, id); from the first when `None`.
    pub after: Option<WorkerCursor>,
    /// At most this many (clamped to [`DEFAULT_WORKERS_PAGE`]; 0 lists none).
    pub limit: usize,
}

impl WorkerPage {
    /// The first page, of the default size.
    #[must_use]
    pub fn first() -> WorkerPage {
        WorkerPage {
            after: None,
            limit: DEFAULT_WORKERS_PAGE,
        }
    }
}

/// Job counts and workers.
#[derive(Clone, Debug, Default)]
pub struct QueueStatus {
    /// Jobs waiting for a worker.
    pub queued: u64,
    /// Jobs held by workers.
    pub leased: u64,
    /// Jobs finished with a result.
    pub done: u64,
    /// Jobs given up after too many attempts.
    pub failed: u64,
    /// Jobs cancelled.
    pub cancelled: u64,
    /// Job records found unreadable at start-up and set aside.
    pub quarantined: u64,
    /// One page of the known workers, by name then id.
    pub workers: Vec<WorkerInfo>,
    /// Every known worker.
    pub worker_count: u64,
    /// Where the next page of workers starts, if there is one.
    pub next_workers: Option<WorkerCursor>,
}

impl JobQueue {
    /// Job counts and the first page of workers.
    pub fn status(&self) -> QueueStatus {
        self.status_page(&WorkerPage::first())
    }

    /// Job counts and one page of workers. Holds the queue's lock for the page and one pass
    /// over the leases (bounded by the jobs, not by the workers).
    pub fn status_page(&self, page: &WorkerPage) -> QueueStatus {
        let scheduler = self.scheduler();
        let (queued, leased) = scheduler.pending();
        let now = self.clock.now();
        let limit = page.limit.min(DEFAULT_WORKERS_PAGE);
        let (listed, next_workers) = scheduler.workers().page(page.after.as_ref(), limit);
        let leases = if listed.is_empty() {
            Default::default()
        } else {
            scheduler.lease_counts()
        };
        let mut workers: Vec<WorkerInfo> = listed
            .into_iter()
            .map(|(id, info)| WorkerInfo {
                id: id.to_owned(),
                name: info.name.clone(),
                threads: info.threads,
                leases: leases.get(id).copied().unwrap_or(0),
                results: info.results,
                seconds_since_seen: now.saturating_duration_since(info.last_seen).as_secs_f64(),
                flags: 0,
                quarantined: false,
                engines: info
                    .engines
                    .iter()
                    .map(|(name, version)| (name.clone(), version.clone()))
                    .collect(),
            })
            .collect();
        let worker_count = scheduler.workers().len() as u64;
        let [done, failed, cancelled] = scheduler.finished();
        drop(leases);
        drop(scheduler);
        for worker in &mut workers {
            worker.flags = self.flags.flags(&worker.id);
            worker.quarantined = worker.flags >= QUARANTINE_FLAGS;
        }
        QueueStatus {
            queued,
            leased,
            done,
            failed,
            cancelled,
            quarantined: self.store.quarantined(),
            workers,
            worker_count,
            next_workers,
        }
    }

    /// Workers whose last call was within `within`.
    pub fn workers_seen_within(&self, within: Duration) -> usize {
        let now = self.clock.now();
        let scheduler = self.scheduler();
        match now.checked_sub(within) {
            Some(since) => scheduler.workers().seen_since(since),
            None => scheduler.workers().len(),
        }
    }
}
