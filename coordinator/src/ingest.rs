//! Result ingest: a worker's result is checked against its lease and its job, reviewed by the
//! cross-checks (exact claims are held back until a second party confirms them), applied in one
//! transaction at most once per result id (with the table values of the positions it stores,
//! see [`crate::table_values`]), and acknowledged only once durable. A pair result
//! then lets its match stop if the SPRT decided, and its tuning run (if any) move on. A
//! quarantined worker's results are refused.

use std::sync::Arc;

use pentagrid_model::{Outcome, Task};
use thiserror::Error;

use crate::crosscheck::CrossCheck;
use crate::flags::WorkerFlags;
use crate::identity::{ResultId, WorkerId};
use crate::jobs::{JobQueue, NotLeased};
use crate::matches::Matches;
use crate::metrics::{Metrics, RefusedReason, ResultAnswer};
use crate::offload::blocking;
use crate::table_values::TableValues;
use crate::tunes::Tunes;
use crate::validate::{InvalidResult, result_effect};
use pentagrid_store::job::JobState;
use pentagrid_store::{Applied, Store, StoreError};

/// A result handed in by a worker (already read from the wire, not yet validated).
#[derive(Clone, Debug)]
pub struct Submission {
    /// The worker.
    pub worker_id: WorkerId,
    /// The job.
    pub job_id: u64,
    /// The lease the worker holds on it.
    pub lease_id: u64,
    /// Chosen by the worker, the same on every retry.
    pub result_id: ResultId,
    /// The result.
    pub outcome: Outcome,
}

/// What became of an acknowledged result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// Validated, stored, durable.
    Applied,
    /// Applied before (this result id, or another result of the job); nothing changed.
    Duplicate,
}

/// Why a result was refused. Nothing changed.
#[derive(Debug, Error)]
pub enum SubmitError {
    /// The result id was applied to another job.
    #[error("result id {result_id} was used for job {job_id}")]
    ResultIdReused {
        /// The result id.
        result_id: ResultId,
        /// The job it was applied to.
        job_id: u64,
    },
    /// The worker does not hold this lease on this job.
    #[error(transparent)]
    NotLeased(NotLeased),
    /// The result fails validation against its job.
    #[error("invalid result: {0}")]
    Invalid(InvalidResult),
    /// The worker is quarantined: its results are no longer applied.
    #[error("worker {0} is quarantined: a cross-check caught it with a wrong exact claim")]
    Quarantined(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SubmitError {
    /// The reason the metrics count this refusal under; `None` for a failure of the
    /// coordinator itself.
    #[must_use]
    pub fn refused_reason(&self) -> Option<RefusedReason> {
        match self {
            SubmitError::NotLeased(_) => Some(RefusedReason::NotLeased),
            SubmitError::Invalid(_) => Some(RefusedReason::Invalid),
            SubmitError::ResultIdReused { .. } => Some(RefusedReason::Malformed),
            SubmitError::Quarantined(_) => Some(RefusedReason::Quarantined),
            SubmitError::Store(_) => None,
        }
    }
}

/// What the metrics count for `answer`, if anything.
fn counted(answer: &Result<Submitted, SubmitError>) -> Option<ResultAnswer> {
    match answer {
        Ok(Submitted::Applied) => Some(ResultAnswer::Applied),
        Ok(Submitted::Duplicate) => Some(ResultAnswer::Duplicate),
        Err(error) => error.refused_reason().map(ResultAnswer::Refused),
    }
}

/// What a stored pair result moves on: its match (which stops once its SPRT decides) and the
/// tuning run the match is an iteration of.
pub(crate) struct PairFollowers {
    /// Engine matches.
    pub(crate) matches: Arc<Matches>,
    /// Tuning runs.
    pub(crate) tunes: Arc<Tunes>,
}

/// The result path.
pub struct ResultIngest {
    store: Arc<Store>,
    jobs: Arc<JobQueue>,
    matches: Arc<Matches>,
    tunes: Arc<Tunes>,
    checks: CrossCheck,
    flags: Arc<WorkerFlags>,
    metrics: Metrics,
    /// Where a result's table values come from.
    table: TableValues,
}

impl ResultIngest {
    pub(crate) fn new(
        store: Arc<Store>,
        jobs: Arc<JobQueue>,
        PairFollowers { matches, tunes }: PairFollowers,
        checks: CrossCheck,
        flags: Arc<WorkerFlags>,
        metrics: Metrics,
        table: TableValues,
    ) -> Self {
        ResultIngest {
            store,
            jobs,
            matches,
            tunes,
            checks,
            flags,
            metrics,
            table,
        }
    }

    /// Undoes what a worker caught lying stored on its word alone (see
    /// [`pentagrid_store::word`]) and takes its analyses and games back out of the book (see
    /// [`pentagrid_store::contributions`]): the values go, the positions it solved are solved
    /// again by other workers, the deep solves it served carry on without its leaves, and the
    /// match pairs it played leave their matches and are played again by others.
    async fn purge(&self, worker: &str) -> Result<(), StoreError> {
        let (store, liar) = (self.store.clone(), worker.to_owned());
        let mut purged = blocking(move || store.purge_worker(&liar)).await?;
        let mut positions: Vec<pentago::Position> = purged
            .solves
            .iter()
            .filter_map(|text| text.parse().ok())
            .collect();
        positions.sort_by_key(|p| p.canonical_key().bits());
        positions.dedup_by_key(|p| p.canonical_key().bits());
        let again: Vec<Task> = positions
            .into_iter()
            .map(|position| Task::Solve { position })
            .collect();
        let solving_again = again.len();
        if !again.is_empty() {
            self.jobs
                .queue_excluding(again, vec![worker.to_owned()])
                .await?;
        }
        let pairs = purged.pairs.len();
        let pairs_again = self
            .matches
            .replay_purged(worker, std::mem::take(&mut purged.pairs))
            .await?;
        tracing::error!(
            worker,
            results = purged.results,
            proven_tables = purged.proven_tables,
            leaves = purged.leaves,
            deep_solves = purged.deep_solves.len(),
            reopened = purged.reopened,
            demoted = purged.demoted,
            solving_again,
            analysed_positions = purged.analyses.positions,
            playouts = purged.analyses.games,
            tables_removed = purged.analyses.tables_removed,
            game_positions = purged.games.positions,
            games = purged.games.games,
            game_tables_removed = purged.games.tables_removed,
            pairs,
            pairs_again,
            "a caught worker's unconfirmed exact values, analyses, games and match pairs purged"
        );
        let short = purged.analyses.short + purged.games.short;
        if short > 0 {
            tracing::error!(
                worker,
                rows = short,
                "table rows held less than the caught worker had added: removed whole"
            );
        }
        Ok(())
    }

    /// Counts a submission refused at the edge for a bad worker or result id.
    pub fn count_malformed(&self) {
        self.metrics
            .result(ResultAnswer::Refused(RefusedReason::Malformed));
    }

    /// Validates and applies a result; answers only once it is durable.
    pub async fn submit(&self, submission: &Submission) -> Result<Submitted, SubmitError> {
        let answer = self.apply(submission).await;
        if let Some(counted) = counted(&answer) {
            self.metrics.result(counted);
        }
        answer
    }

    /// Whether job `job_id` is stored as cancelled (a read error counts as not cancelled).
    fn cancelled(&self, job_id: u64) -> bool {
        matches!(self.store.job(job_id), Ok(Some(job)) if job.state == JobState::Cancelled)
    }

    /// Refuses quarantined workers.
    fn check_submitter(&self, submission: &Submission) -> Result<(), SubmitError> {
        let worker = &submission.worker_id;
        if self.flags.quarantined(worker.as_str()) {
            let job = submission.job_id;
            tracing::warn!(worker = %worker, job, "result of a quarantined worker refused");
            return Err(SubmitError::Quarantined(worker.to_string()));
        }
        Ok(())
    }

    async fn apply(&self, submission: &Submission) -> Result<Submitted, SubmitError> {
        let Submission {
            worker_id: worker,
            job_id,
            lease_id,
            result_id,
            outcome,
        } = submission;
        let (job_id, lease_id) = (*job_id, *lease_id);
        self.check_submitter(submission)?;
        if let Some(applied_to) = self.store.result_job(result_id.as_str())? {
            if applied_to != job_id {
                return Err(SubmitError::ResultIdReused {
                    result_id: result_id.clone(),
                    job_id: applied_to,
                });
            }
            self.jobs.durable().await?;
            return Ok(Submitted::Duplicate);
        }
        let refused = |e: NotLeased| {
            if self.cancelled(job_id) {
                // An admin (or the `run` that asked for it) cancelled the job: its worker's
                // result is expected to come back and be refused.
                tracing::debug!(worker = %worker, job = job_id, reason = %e, "result of a cancelled job refused");
            } else {
                tracing::warn!(worker = %worker, job = job_id, reason = %e, "result refused");
            }
            SubmitError::NotLeased(e)
        };
        let (job, threads) = self
            .jobs
            .leased_job(worker, job_id, lease_id)
            .map_err(refused)?;
        // Validate outside the lock; an invalid result changes nothing, not even the lease.
        let effect = result_effect(&job.task, job_id, outcome).map_err(|why| {
            tracing::warn!(worker = %worker, job = job_id, why = ?why, "invalid result refused");
            SubmitError::Invalid(why)
        })?;
        let effect = self
            .checks
            .review(
                (worker.as_str(), threads),
                job_id,
                job.record.claim_id,
                &job.task,
                effect,
            )
            .await?;
        // Probing reads and decompresses: on the blocking pool, before the lease is taken.
        let (store, table) = (self.store.clone(), self.table.clone());
        let effect = blocking(move || {
            let mut effect = effect;
            table.fill_effect(&store, &mut effect).map(|()| effect)
        })
        .await?;
        let active = self
            .jobs
            .take_for_submit(worker, job_id, lease_id)
            .map_err(refused)?;
        let mut done = active.record.clone();
        done.state = JobState::Done;
        done.result_id = result_id.to_string();
        done.playouts = effect.playout_count;
        done.games = u64::from(effect.game.is_some()) + 2 * u64::from(effect.pair.is_some());
        let applied = match self.store.apply(job_id, &done, result_id.as_str(), &effect) {
            Ok(Applied::WorkerQuarantined) => {
                // Caught by a result that committed after this one was let in.
                self.jobs.put_back(job_id, active);
                tracing::warn!(worker = %worker, job = job_id, "result of a worker quarantined meanwhile refused");
                return Err(SubmitError::Quarantined(worker.to_string()));
            }
            Ok(applied) => applied,
            Err(error) => {
                self.jobs.put_back(job_id, active);
                return Err(error.into());
            }
        };
        if applied == Applied::Applied {
            self.jobs.adopt(&effect.new_jobs);
            for liar in self.flags.add(&effect.flags) {
                self.purge(&liar).await?;
            }
            self.jobs.mark_done(worker, job_id);
            let rows = effect.playouts.values().chain(effect.games.values());
            self.metrics
                .rows_ingested(rows.map(|table| table.len()).sum());
        }
        // The purge is durable with the result that caught the liar.
        self.jobs.durable().await?;
        if let Task::Pair { match_id, .. } = job.task {
            self.matches.stop_if_decided(match_id).await?;
            self.tunes.pair_stored(match_id).await;
        }
        Ok(match applied {
            Applied::Applied => Submitted::Applied,
            // A quarantined worker's result was refused above.
            Applied::Duplicate | Applied::JobAlreadyDone | Applied::WorkerQuarantined => {
                Submitted::Duplicate
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::Coordinator;
    use crate::settings::CoordinatorSettings;
    use pentago::Position;
    use pentagrid_model::Task;

    #[tokio::test]
    async fn only_a_cancelled_job_makes_a_refused_result_expected() {
        let dir = tempfile::tempdir().unwrap();
        let coordinator = Coordinator::open(dir.path(), CoordinatorSettings::default()).unwrap();
        let solve = Task::Solve {
            position: Position::START,
        };
        let ids = coordinator
            .jobs
            .submit(vec![solve.clone(), solve])
            .await
            .unwrap();
        coordinator.jobs.cancel(&ids[..1]).await.unwrap();
        assert!(coordinator.ingest.cancelled(ids[0]));
        assert!(!coordinator.ingest.cancelled(ids[1]));
        assert!(!coordinator.ingest.cancelled(u64::MAX));
    }
}
