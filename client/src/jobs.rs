//! Submitting jobs and waiting for them, and the one polling loop every workflow waits with.

use std::time::Duration;

use pentagrid_coordinator::MAX_JOBS_PER_SUBMISSION;
use pentagrid_proto::{Client, MAX_MESSAGE_BYTES, Task, v2};
use prost::Message;

use crate::error::Result;

/// How often waiting workflows ask the coordinator where things stand.
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
    /// Playouts merged into tables since the batch was queued.
    pub playouts: u64,
}

/// The coordinator's status.
pub async fn status(client: &Client) -> Result<v2::StatusResponse> {
    Ok(client
        .clone()
        .status(v2::StatusRequest {})
        .await?
        .into_inner())
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

/// Cancels jobs; returns how many were still unfinished.
pub async fn cancel(client: &Client, job_ids: &[u64]) -> Result<u32> {
    let request = v2::CancelJobsRequest {
        job_ids: job_ids.to_vec(),
    };
    Ok(client
        .clone()
        .cancel_jobs(request)
        .await?
        .into_inner()
        .cancelled)
}

/// Queues `tasks` and waits until as many jobs have finished, telling `progress` as they do;
/// returns their job ids. (It counts the cluster's finished jobs, so it assumes nobody else
/// queues jobs meanwhile; per-job waits are a later protocol addition.)
pub async fn run_jobs(
    client: &Client,
    tasks: &[Task],
    progress: &mut dyn FnMut(JobsProgress),
) -> Result<Vec<u64>> {
    let before = status(client).await?;
    let finished = |s: &v2::StatusResponse| s.done + s.failed + s.cancelled;
    let job_ids = submit(client, tasks).await?;
    let total = tasks.len() as u64;
    poll(async || {
        let now = status(client).await?;
        let done = finished(&now) - finished(&before);
        progress(JobsProgress {
            finished: done.min(total),
            total,
            playouts: now.playouts - before.playouts,
        });
        Ok((done >= total).then_some(()))
    })
    .await?;
    Ok(job_ids)
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
