//! Submitting jobs and waiting for them, and the one polling loop every workflow waits with.

use std::time::Duration;

use pentagrid_proto::{Client, Task, v2};

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

/// Queues `tasks`; returns their job ids.
pub async fn submit(client: &Client, tasks: &[Task]) -> Result<Vec<u64>> {
    let request = v2::SubmitJobsRequest {
        jobs: tasks.iter().map(v2::JobSpec::from).collect(),
    };
    Ok(client
        .clone()
        .submit_jobs(request)
        .await?
        .into_inner()
        .job_ids)
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
