//! Cancelling jobs one by one with an answer for each: cancelled, or why not (no such job,
//! already done, failed or cancelled), for clients that cancel by id.

use std::collections::HashSet;

use pentagrid_model::CancelOutcome;

use super::JobQueue;
use pentagrid_store::StoreError;
use pentagrid_store::job::JobState;

impl JobQueue {
    /// Cancels the unfinished jobs among `job_ids` (as [`JobQueue::cancel`]) and answers, once
    /// durable, what became of each id, in order (a repeated id is cancelled at its first
    /// occurrence and already cancelled after).
    pub async fn cancel_each(&self, job_ids: &[u64]) -> Result<Vec<CancelOutcome>, StoreError> {
        let cancelled: HashSet<u64> = {
            let _writes = self.writes();
            let changed = self.scheduler().cancel(job_ids);
            self.record_changes(&changed)?;
            changed.into_iter().map(|(id, _)| id).collect()
        };
        let mut answered = HashSet::new();
        let mut outcomes = Vec::with_capacity(job_ids.len());
        for &id in job_ids {
            let outcome = if cancelled.contains(&id) && answered.insert(id) {
                CancelOutcome::Cancelled
            } else {
                match self.store.job(id)? {
                    None => CancelOutcome::NotFound,
                    Some(job) => match job.state {
                        JobState::Done => CancelOutcome::AlreadyDone,
                        JobState::Failed => CancelOutcome::AlreadyFailed,
                        JobState::Cancelled => CancelOutcome::AlreadyCancelled,
                        // Every unfinished job among the ids was cancelled above.
                        JobState::Queued | JobState::Leased => CancelOutcome::NotSaid,
                    },
                }
            };
            outcomes.push(outcome);
        }
        self.durable().await?;
        Ok(outcomes)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use pentago::Position;
    use pentagrid_model::Task;

    use super::*;
    use crate::clock::ManualClock;
    use crate::identity::WorkerId;
    use crate::jobs::JobSettings;
    use pentagrid_store::Store;

    #[tokio::test]
    async fn each_id_says_whether_it_was_cancelled_or_why_not() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path()).unwrap());
        let settings = JobSettings {
            max_attempts: 1,
            ..JobSettings::default()
        };
        let queue = JobQueue::open_alone(store.clone(), settings, Arc::new(ManualClock::default()))
            .unwrap();
        let solve = Task::Solve {
            position: Position::START,
        };
        let ids = queue.submit(vec![solve.clone(), solve]).await.unwrap();
        let worker = WorkerId::parse("w").unwrap();
        queue.hello(&worker, "w", 1).unwrap();
        let leased = queue.lease(&worker, 1).unwrap();
        let failed = leased[0].job_id;
        queue
            .report_failure(&worker, failed, leased[0].lease_id, "broke")
            .await
            .unwrap();
        let open = ids.iter().copied().find(|&id| id != failed).unwrap();

        let outcomes = queue
            .cancel_each(&[open, open, failed, 999_999])
            .await
            .unwrap();
        assert_eq!(
            outcomes,
            [
                CancelOutcome::Cancelled,
                CancelOutcome::AlreadyCancelled,
                CancelOutcome::AlreadyFailed,
                CancelOutcome::NotFound,
            ]
        );
        assert_eq!(store.job(open).unwrap().unwrap().state, JobState::Cancelled);
        // A second call finds it cancelled and changes nothing.
        assert_eq!(
            queue.cancel_each(&[open]).await.unwrap(),
            [CancelOutcome::AlreadyCancelled]
        );
    }
}
