//! Submitting jobs and waiting for exactly them (a `WatchJobs` stream), and the polling loop
//! for waits on one match or build.

use std::time::Duration;

use pentagrid_model::limits::MAX_JOBS_PER_SUBMISSION;
use pentagrid_proto::{Client, MAX_MESSAGE_BYTES, Task, cancel_outcome_of_wire, v2};
use prost::Message;

use crate::error::{ClientError, Result};
use crate::status::ClusterStatus;

pub use pentagrid_model::CancelOutcome;

/// How often a wait on one match or build asks the coordinator where it stands.
pub const POLL_INTERVAL: Duration = Duration::from_millis(200);

/// Asks `check` every [`POLL_INTERVAL`] until it returns a value.
pub async fn poll<T>(mut check: impl AsyncFnMut() -> Result<Option<T>>) -> Result<T> {
    loop {
        if let Some(value) = check().await? {
            return Ok(value);
        }
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

/// How far a batch of jobs has come.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct JobsProgress {
    /// Jobs of the batch finished (done, failed or cancelled).
    pub finished: u64,
    /// Jobs in the batch.
    pub total: u64,
    /// Playouts the batch's done jobs merged into tables.
    pub playouts: u64,
}

/// The coordinator's status.
pub async fn status(client: &Client) -> Result<ClusterStatus> {
    let reply = client
        .clone()
        .status(v2::StatusRequest::default())
        .await?
        .into_inner();
    Ok(ClusterStatus::from(reply))
}

/// Bytes of job specs per submission call: a quarter of the message cap, so a batch of large
/// jobs (verify jobs carry up to 256 positions) stays well below it.
const SUBMIT_BATCH_BYTES: usize = MAX_MESSAGE_BYTES / 4;

/// Queues `tasks` in batches of at most [`MAX_JOBS_PER_SUBMISSION`] jobs (the coordinator's
/// cap per call) and [`SUBMIT_BATCH_BYTES`]; returns their job ids in order. A refused batch
/// stops the submission: the batches before it stay queued.
pub async fn submit(client: &Client, tasks: &[Task]) -> Result<Vec<u64>> {
    let mut job_ids = Vec::with_capacity(tasks.len());
    for batch in batches(tasks.iter().map(v2::JobSpec::from)) {
        let request = v2::SubmitJobsRequest { jobs: batch };
        let reply = client.clone().submit_jobs(request).await?.into_inner();
        job_ids.extend(reply.job_ids);
    }
    Ok(job_ids)
}

/// Specs cut into batches under both submission limits (a spec over the byte limit alone
/// still goes, in a batch of its own).
fn batches(specs: impl Iterator<Item = v2::JobSpec>) -> Vec<Vec<v2::JobSpec>> {
    let mut batches: Vec<Vec<v2::JobSpec>> = Vec::new();
    let mut bytes = 0;
    for spec in specs {
        let size = spec.encoded_len() + 8;
        let full = batches.last().is_none_or(|batch| {
            batch.len() >= MAX_JOBS_PER_SUBMISSION || bytes + size > SUBMIT_BATCH_BYTES
        });
        if full {
            batches.push(Vec::new());
            bytes = 0;
        }
        bytes += size;
        batches.last_mut().expect("pushed above").push(spec);
    }
    batches
}

/// What a cancellation did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cancellation {
    /// Jobs it cancelled.
    pub cancelled: u32,
    /// Each requested id with what became of it, in the order asked (every outcome
    /// [`CancelOutcome::NotSaid`] from a coordinator that gives no per-id answers).
    pub outcomes: Vec<(u64, CancelOutcome)>,
}

/// Cancels the unfinished jobs among `job_ids`, saying for each what became of it.
///
/// # Errors
///
/// The call failed or was refused; an answer with outcomes for other ids than asked is
/// [`ClientError::Unreadable`].
pub async fn cancel(client: &Client, job_ids: &[u64]) -> Result<Cancellation> {
    let request = v2::CancelJobsRequest {
        job_ids: job_ids.to_vec(),
    };
    let answer = client.clone().cancel_jobs(request).await?.into_inner();
    let outcomes = match answer.outcomes.len() {
        0 => vec![CancelOutcome::NotSaid; job_ids.len()],
        n if n == job_ids.len() => answer
            .outcomes
            .into_iter()
            .map(cancel_outcome_of_wire)
            .collect(),
        n => {
            return Err(ClientError::Unreadable(format!(
                "{n} cancel outcomes for {} ids",
                job_ids.len()
            )));
        }
    };
    Ok(Cancellation {
        cancelled: answer.cancelled,
        outcomes: job_ids.iter().copied().zip(outcomes).collect(),
    })
}

/// How a batch of jobs ended, counted over exactly its own jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobsOutcome {
    /// The jobs, in the order of their tasks.
    pub job_ids: Vec<u64>,
    /// Jobs done with a result.
    pub done: u64,
    /// Jobs given up (attempts used up), with the last failure reported for each, if any.
    pub failed: Vec<(u64, String)>,
    /// Jobs cancelled.
    pub cancelled: u64,
    /// Playouts the done jobs merged into tables.
    pub playouts: u64,
    /// Games the done jobs stored.
    pub games: u64,
}

/// Follows `job_ids` (with `WatchJobs`) until every one is finished, telling `progress` on
/// each change; returns how they ended. Other users' jobs play no part.
pub async fn watch(
    client: &Client,
    job_ids: &[u64],
    progress: &mut dyn FnMut(JobsProgress),
) -> Result<JobsOutcome> {
    let mut outcome = JobsOutcome {
        job_ids: job_ids.to_vec(),
        ..JobsOutcome::default()
    };
    if job_ids.is_empty() {
        return Ok(outcome);
    }
    let request = v2::WatchJobsRequest {
        job_ids: job_ids.to_vec(),
    };
    let mut updates = client.clone().watch_jobs(request).await?.into_inner();
    let mut last = v2::JobsUpdate::default();
    while let Some(update) = updates.message().await? {
        for job in &update.finished {
            if job.state() == v2::FinishedState::Failed {
                outcome.failed.push((job.job_id, job.error.clone()));
            }
        }
        progress(JobsProgress {
            finished: update.done + update.failed + update.cancelled,
            total: update.total,
            playouts: update.playouts,
        });
        last = update;
    }
    if last.queued + last.leased > 0 || last.total == 0 {
        return Err(ClientError::Unreadable(
            "the end of a job watch before its jobs finished".into(),
        ));
    }
    outcome.done = last.done;
    outcome.cancelled = last.cancelled;
    outcome.playouts = last.playouts;
    outcome.games = last.games;
    Ok(outcome)
}

/// Queues `tasks` and waits until exactly those jobs have finished, telling `progress` as
/// they do; returns how they ended.
pub async fn run_jobs(
    client: &Client,
    tasks: &[Task],
    progress: &mut dyn FnMut(JobsProgress),
) -> Result<JobsOutcome> {
    let job_ids = submit(client, tasks).await?;
    watch(client, &job_ids, progress).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::Position;

    fn analyse() -> Task {
        Task::Analyse {
            position: Position::START,
            config: "uct".parse().unwrap(),
            playouts: 100,
        }
    }

    #[test]
    fn batches_keep_order_and_stay_under_both_limits() {
        let tasks = vec![analyse(); 2 * MAX_JOBS_PER_SUBMISSION + 5];
        let specs: Vec<v2::JobSpec> = tasks.iter().map(v2::JobSpec::from).collect();
        let cut = batches(specs.clone().into_iter());
        let sizes: Vec<usize> = cut.iter().map(Vec::len).collect();
        assert_eq!(sizes, [MAX_JOBS_PER_SUBMISSION, MAX_JOBS_PER_SUBMISSION, 5]);
        assert_eq!(cut.concat(), specs);

        let big = Task::Verify {
            candidates: vec![(Position::START, "x".repeat(2_000)); 200],
            max_moves: 3,
        };
        let specs: Vec<v2::JobSpec> = vec![v2::JobSpec::from(&big); 3];
        let cut = batches(specs.clone().into_iter());
        assert!(cut.len() > 1, "large jobs are split by bytes");
        for batch in &cut {
            let request = v2::SubmitJobsRequest {
                jobs: batch.clone(),
            };
            assert!(request.encoded_len() < MAX_MESSAGE_BYTES, "{}", batch.len());
        }
        assert_eq!(cut.concat(), specs);
        assert!(batches(std::iter::empty()).is_empty());
    }
}
