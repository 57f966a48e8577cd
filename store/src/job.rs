//! A job as the coordinator's services know it: its task, where it stands ([`JobState`]), its
//! lease and what its result did. The store keeps it in a stable record of its own and converts
//! at its edge (`store::records`), so nothing above the store sees stored numbers or strings.

use pentagrid_model::Task;

/// Where a job stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum JobState {
    /// Waiting for a worker.
    Queued,
    /// Held by a worker.
    Leased,
    /// Its result is applied.
    Done,
    /// Gave up after too many attempts.
    Failed,
    /// Cancelled by a client.
    Cancelled,
}

impl JobState {
    /// Whether the job is still to run (queued or leased).
    #[must_use]
    pub fn is_unfinished(self) -> bool {
        matches!(self, JobState::Queued | JobState::Leased)
    }
}

/// A job: what to do, where it stands, who holds it and what its result did.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// What to do. `None` only for a finished job whose stored task is missing or no longer
    /// reads back (an unfinished one is set aside at open instead).
    pub task: Option<Task>,
    /// Where it stands.
    pub state: JobState,
    /// Leases granted so far.
    pub attempts: u32,
    /// The current lease while leased (0: none).
    pub lease_id: u64,
    /// The worker holding the current lease (empty: none).
    pub worker_id: String,
    /// The job's seed.
    pub seed: u64,
    /// The result applied, once done (empty before).
    pub result_id: String,
    /// The last failure a worker reported for it (kept when it fails for good).
    pub error: String,
    /// Playouts its result merged into tables, once done.
    pub playouts: u64,
    /// Games its result stored, once done.
    pub games: u64,
    /// Workers that may not lease it: the parties a cross-check must be independent of.
    pub excluded_workers: Vec<String>,
    /// The claim this job cross-checks, if it is a check job.
    pub claim_id: Option<u64>,
}

impl Job {
    /// A job in `state` with nothing else known (no task, no lease, no result).
    #[must_use]
    pub fn in_state(state: JobState) -> Job {
        Job {
            task: None,
            state,
            attempts: 0,
            lease_id: 0,
            worker_id: String::new(),
            seed: 0,
            result_id: String::new(),
            error: String::new(),
            playouts: 0,
            games: 0,
            excluded_workers: Vec::new(),
            claim_id: None,
        }
    }

    /// A freshly queued job of `task` with its `seed`.
    #[must_use]
    pub fn queued(task: Task, seed: u64) -> Job {
        Job {
            task: Some(task),
            seed,
            ..Job::in_state(JobState::Queued)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::Position;

    #[test]
    fn a_queued_job_is_unfinished_with_its_task_and_seed_only() {
        let task = Task::Solve {
            position: Position::START,
        };
        let job = Job::queued(task.clone(), 42);
        assert!(job.state.is_unfinished());
        assert_eq!((job.task, job.seed, job.attempts), (Some(task), 42, 0));
        assert!(!JobState::Cancelled.is_unfinished());
        assert!(JobState::Leased.is_unfinished());
    }
}
