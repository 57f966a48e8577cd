//! What the job queue shows of itself: job counts by state and the workers it knows.

use std::time::Duration;

use super::JobQueue;

/// A worker as the status shows it.
#[derive(Clone, Debug)]
pub struct WorkerSnapshot {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its threads.
    pub threads: u32,
    /// Leases it holds.
    pub leases: u64,
    /// Results it had applied.
    pub results: u64,
    /// Time since its last call.
    pub since_seen: Duration,
    /// Times a cross-check showed its claim wrong.
    pub flags: u32,
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
    /// Known workers, by name.
    pub workers: Vec<WorkerSnapshot>,
}

impl JobQueue {
    /// Job counts and workers. Holds the queue's lock for one pass over the workers and one
    /// over the leases (heartbeats wait on that lock, and a cluster has thousands of both).
    pub fn status(&self) -> QueueStatus {
        let scheduler = self.scheduler();
        let (queued, leased) = scheduler.pending();
        let now = self.clock.now();
        let leases = scheduler.lease_counts();
        let mut workers: Vec<WorkerSnapshot> = scheduler
            .workers
            .iter()
            .map(|(id, info)| WorkerSnapshot {
                id: id.clone(),
                name: info.name.clone(),
                threads: info.threads,
                leases: leases.get(id.as_str()).copied().unwrap_or(0),
                results: info.results,
                since_seen: now.saturating_duration_since(info.last_seen),
                flags: 0,
            })
            .collect();
        let [done, failed, cancelled] = scheduler.finished;
        drop(scheduler);
        for worker in &mut workers {
            worker.flags = self.flags.flags(&worker.id);
        }
        workers.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        QueueStatus {
            queued,
            leased,
            done,
            failed,
            cancelled,
            quarantined: self.store.quarantined(),
            workers,
        }
    }
}
