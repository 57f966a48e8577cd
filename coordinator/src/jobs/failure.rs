//! Jobs that fail on their worker (a panic): the failure is kept on the job, which goes back
//! to the queue until its attempts are used up and then fails for good with that message.

use thiserror::Error;

use super::{JobQueue, NotLeased, watch};
use crate::identity::WorkerId;
use pentagrid_store::StoreError;
use pentagrid_store::job::JobState;

/// Why a reported job failure was refused. Nothing changed.
#[derive(Debug, Error)]
pub enum FailureError {
    /// The worker id is empty, too long or unprintable.
    /// The worker does not hold this lease on this job.
    #[error(transparent)]
    NotLeased(#[from] NotLeased),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn truncated(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl JobQueue {
    /// Records a failure a worker reports on a job it holds: the job is queued again, or
    /// failed for good (keeping the message) once its attempts are used up. Answers once
    /// durable, with the job's new state.
    pub async fn report_failure(
        &self,
        worker_id: &WorkerId,
        job_id: u64,
        lease_id: u64,
        error: &str,
    ) -> Result<JobState, FailureError> {
        let id = worker_id.as_str();
        let error = truncated(error, watch::MAX_ERROR_BYTES);
        let writes = self.writes();
        let record = {
            let mut scheduler = self.scheduler();
            scheduler.seen(id, self.clock.now());
            scheduler.fail_attempt(id, job_id, lease_id, error)
        }?;
        let state = record.state;
        tracing::warn!(
            worker = %id,
            job = job_id,
            ?state,
            error = ?error,
            "job failed on its worker"
        );
        self.record_changes(&[(job_id, record)])?;
        drop(writes);
        self.durable().await?;
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_at_a_character_boundary() {
        assert_eq!(truncated("héllo", 2), "h");
        assert_eq!(truncated("héllo", 3), "hé");
        assert_eq!(truncated("short", 100), "short");
    }
}
