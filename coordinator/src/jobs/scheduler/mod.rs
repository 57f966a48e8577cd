//! The job queue and its leases, in memory: how a lease is granted, renewed, expires and goes
//! back to the queue. The database holds the same facts durably; this is the fast index the
//! calls use. Every change returns the job records to write back. Time comes in as arguments.

mod membership;

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use pentago::Position;
use pentagrid_model::Task;

use super::engines::{WorkerEngines, can_run};
use super::fair::PairQueues;
use super::registry::Registry;
pub use super::registry::WorkerEntry;
pub use membership::{JoinError, SessionCheck};
use pentagrid_store::job::{Job, JobState};

/// A job that is queued or leased.
#[derive(Clone, Debug)]
pub struct Active {
    /// The job (its task included, as it is written back).
    pub record: Job,
    /// Its task.
    pub task: Task,
}

/// A lease on one job.
#[derive(Clone, Debug)]
pub struct Lease {
    /// The job.
    pub job_id: u64,
    /// The holder.
    pub worker_id: String,
    /// When it goes back to the queue unless renewed.
    pub expires: Instant,
}

/// Why a worker's call about a lease (a result, a reported failure) was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotLeased {
    /// No such lease: it expired, was returned or cancelled, or was never granted.
    #[error("lease {lease_id} is not held (expired, returned, cancelled or never granted)")]
    NotHeld {
        /// The lease named.
        lease_id: u64,
    },
    /// The lease is held, but not by this worker on this job.
    #[error("lease {lease_id} is not a lease of worker {worker} on job {job_id}")]
    OtherHolder {
        /// The lease named.
        lease_id: u64,
        /// The worker that named it.
        worker: String,
        /// The job it named.
        job_id: u64,
    },
    /// The job has left the queue (done, failed or cancelled).
    #[error("job {job_id} is not active")]
    JobInactive {
        /// The job named.
        job_id: u64,
    },
}

/// The active analyse and solve jobs of one canonical position.
#[derive(Clone, Debug)]
struct BookJobs {
    /// The position, canonical.
    position: Position,
    /// The jobs, oldest first.
    job_ids: Vec<u64>,
}

/// A place in the job queue: a job, or a turn of the running matches, whose pair is chosen
/// when the turn comes ([`PairQueues`]: each queued pair has one such place).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Slot {
    /// This job.
    Job(u64),
    /// A pair of whichever match's turn it is.
    Pair,
}

/// The match of a game pair's task.
fn pair_match(task: &Task) -> Option<u64> {
    match task {
        Task::Pair { match_id, .. } => Some(*match_id),
        _ => None,
    }
}

/// Queue, leases and workers.
pub struct Scheduler {
    queue: VecDeque<Slot>,
    /// The queued game pairs, by match, shared among users and their matches by weight.
    pairs: PairQueues,
    active: HashMap<u64, Active>,
    /// The active analyse and solve jobs by canonical key, kept as jobs come and go, so the
    /// book builder learns what is being worked on without copying the queue each round.
    book_jobs: HashMap<u64, BookJobs>,
    leases: HashMap<u64, Lease>,
    /// The known workers, bounded.
    workers: Registry,
    lease_duration: Duration,
    max_attempts: u32,
    /// Jobs done, failed and cancelled.
    finished: [u64; 3],
}

impl Scheduler {
    /// An empty scheduler that knows at most `max_workers` workers at once.
    #[must_use]
    pub fn new(lease_duration: Duration, max_attempts: u32, max_workers: usize) -> Scheduler {
        Scheduler {
            queue: VecDeque::new(),
            pairs: PairQueues::default(),
            active: HashMap::new(),
            book_jobs: HashMap::new(),
            leases: HashMap::new(),
            workers: Registry::new(max_workers),
            lease_duration,
            max_attempts,
            finished: [0; 3],
        }
    }

    /// Takes in a stored job at start-up or when submitted: queued and leased jobs become
    /// active (a lease from before a restart is honoured for one more lease period).
    /// Unfinished jobs come with their task; finished ones are only counted.
    pub fn restore(&mut self, job_id: u64, record: Job, now: Instant) {
        match (record.state, record.task.clone()) {
            (JobState::Queued, Some(task)) => {
                self.activate(job_id, Active { record, task });
                self.enqueue(job_id, false);
            }
            (JobState::Leased, Some(task)) => {
                self.leases.insert(
                    record.lease_id,
                    Lease {
                        job_id,
                        worker_id: record.worker_id.clone(),
                        expires: now + self.lease_duration,
                    },
                );
                self.activate(job_id, Active { record, task });
            }
            // The store quarantines unfinished jobs without a readable task.
            (JobState::Queued | JobState::Leased, None) => {}
            (JobState::Done, _) => self.finished[0] += 1,
            (JobState::Failed, _) => self.finished[1] += 1,
            (JobState::Cancelled, _) => self.finished[2] += 1,
        }
    }

    /// Jobs done, failed and cancelled.
    pub fn finished(&self) -> [u64; 3] {
        self.finished
    }

    /// Grants up to `max` queued jobs to `worker_id`; `lease_ids` supplies fresh ids, and the
    /// grant stops early when it runs out of them.
    pub fn lease(
        &mut self,
        worker_id: &str,
        max: usize,
        now: Instant,
        mut lease_ids: impl FnMut() -> Option<u64>,
    ) -> Vec<(u64, Active)> {
        let mut granted = Vec::new();
        // Jobs this worker may not take (cross-checks of its own claims, game pairs between
        // engines it does not run) keep their places.
        let mut passed_over = Vec::new();
        let none = WorkerEngines::new();
        let engines = self
            .workers
            .get(worker_id)
            .map_or(&none, |info| &info.engines);
        // Pair leases held by match, counted when the first pair's turn comes.
        let mut held: Option<HashMap<u64, u64>> = None;
        while granted.len() < max {
            let Some(slot) = self.queue.pop_front() else {
                break;
            };
            let may_take = |active: &Active| {
                !active
                    .record
                    .excluded_workers
                    .iter()
                    .any(|w| w == worker_id)
                    && can_run(&active.task, engines)
            };
            let job_id = match slot {
                Slot::Job(job_id) => {
                    let Some(active) = self.active.get(&job_id) else {
                        continue; // cancelled while queued
                    };
                    if !may_take(active) {
                        passed_over.push(slot);
                        continue;
                    }
                    job_id
                }
                Slot::Pair => {
                    let held = held.get_or_insert_with(|| self.pair_leases());
                    let active = &self.active;
                    let eligible = |job: u64| active.get(&job).is_some_and(may_take);
                    let Some((_, job_id)) = self.pairs.take(held, eligible) else {
                        passed_over.push(slot);
                        continue;
                    };
                    job_id
                }
            };
            // A fresh id that a held lease already has would take that lease over.
            let lease_id = std::iter::from_fn(&mut lease_ids)
                .take(8)
                .find(|id| !self.leases.contains_key(id));
            let Some(lease_id) = lease_id else {
                self.enqueue(job_id, true);
                break;
            };
            let Some(active) = self.active.get_mut(&job_id) else {
                continue;
            };
            active.record.state = JobState::Leased;
            active.record.attempts += 1;
            active.record.lease_id = lease_id;
            active.record.worker_id = worker_id.to_owned();
            self.leases.insert(
                lease_id,
                Lease {
                    job_id,
                    worker_id: worker_id.to_owned(),
                    expires: now + self.lease_duration,
                },
            );
            granted.push((job_id, active.clone()));
        }
        for slot in passed_over.into_iter().rev() {
            self.queue.push_front(slot);
        }
        granted
    }

    /// Puts a queued job in the queue, last or first; a game pair in its match's queue, with a
    /// turn of the matches in the job queue.
    fn enqueue(&mut self, job_id: u64, front: bool) {
        let slot = match self.active.get(&job_id).and_then(|a| pair_match(&a.task)) {
            Some(match_id) => {
                self.pairs.push(match_id, job_id, front);
                Slot::Pair
            }
            None => Slot::Job(job_id),
        };
        if front {
            self.queue.push_front(slot);
        } else {
            self.queue.push_back(slot);
        }
    }

    /// Game pair leases held, by match.
    fn pair_leases(&self) -> HashMap<u64, u64> {
        let mut held = HashMap::new();
        for lease in self.leases.values() {
            if let Some(match_id) = self.task(lease.job_id).and_then(pair_match) {
                *held.entry(match_id).or_default() += 1;
            }
        }
        held
    }

    /// Sets a match's owner and its weight among that owner's running matches (see
    /// [`PairQueues`]).
    pub fn set_match_share(&mut self, match_id: u64, owner: &str, weight: u32) {
        self.pairs.set_share(match_id, owner, weight);
    }

    /// Pairs of `match_id` queued and leased.
    #[must_use]
    pub fn match_pairs(&self, match_id: u64) -> (u64, u64) {
        let leased = self.pair_leases().get(&match_id).copied().unwrap_or(0);
        (self.pairs.queued(match_id) as u64, leased)
    }

    /// Renews the leases `worker_id` holds; returns those it does not hold.
    pub fn heartbeat(&mut self, worker_id: &str, lease_ids: &[u64], now: Instant) -> Vec<u64> {
        let mut lost = Vec::new();
        for id in lease_ids {
            match self.leases.get_mut(id) {
                Some(lease) if lease.worker_id == worker_id => {
                    lease.expires = now + self.lease_duration;
                }
                _ => lost.push(*id),
            }
        }
        lost
    }

    /// The job of a lease, checking that `worker_id` holds that lease on `job_id`.
    pub fn check_lease(
        &self,
        worker_id: &str,
        job_id: u64,
        lease_id: u64,
    ) -> Result<&Active, NotLeased> {
        match self.leases.get(&lease_id) {
            Some(lease) if lease.worker_id == worker_id && lease.job_id == job_id => self
                .active
                .get(&job_id)
                .ok_or(NotLeased::JobInactive { job_id }),
            Some(_) => Err(NotLeased::OtherHolder {
                lease_id,
                worker: worker_id.to_owned(),
                job_id,
            }),
            None => Err(NotLeased::NotHeld { lease_id }),
        }
    }

    /// Takes the job of a lease for completion, checking that `worker_id` holds that lease on
    /// `job_id`. The job leaves the scheduler; [`Scheduler::put_back`] undoes this.
    pub fn take_for_submit(
        &mut self,
        worker_id: &str,
        job_id: u64,
        lease_id: u64,
    ) -> Result<Active, NotLeased> {
        self.check_lease(worker_id, job_id, lease_id)?;
        self.leases.remove(&lease_id);
        self.deactivate(job_id)
            .ok_or(NotLeased::JobInactive { job_id })
    }

    /// Puts a job back at the front of the queue (its result could not be applied, or its
    /// lease could not be granted), dropping any lease on it.
    pub fn put_back(&mut self, job_id: u64, mut active: Active) -> Job {
        self.leases.retain(|_, lease| lease.job_id != job_id);
        active.record.state = JobState::Queued;
        active.record.worker_id.clear();
        let record = active.record.clone();
        self.activate(job_id, active);
        self.enqueue(job_id, true);
        record
    }

    /// Takes a failure a worker reports on a job it holds (keeping `error` on the record): the
    /// job goes back to the queue, or fails for good once its attempts are used up. Returns
    /// the changed record.
    pub fn fail_attempt(
        &mut self,
        worker_id: &str,
        job_id: u64,
        lease_id: u64,
        error: &str,
    ) -> Result<Job, NotLeased> {
        self.check_lease(worker_id, job_id, lease_id)?;
        self.leases.remove(&lease_id);
        if let Some(active) = self.active.get_mut(&job_id) {
            active.record.error = error.to_owned();
        }
        self.requeue(job_id, true)
            .map(|(_, record)| record)
            .ok_or(NotLeased::JobInactive { job_id })
    }

    /// The state of a queued or leased job (`None` once it left the scheduler).
    #[must_use]
    pub fn state(&self, job_id: u64) -> Option<JobState> {
        self.active.get(&job_id).map(|active| active.record.state)
    }

    /// Sends expired leases' jobs back to the queue, or fails them after too many attempts.
    /// Returns the changed records.
    pub fn expire(&mut self, now: Instant) -> Vec<(u64, Job)> {
        let expired: Vec<u64> = self
            .leases
            .iter()
            .filter(|(_, lease)| lease.expires <= now)
            .map(|(id, _)| *id)
            .collect();
        expired
            .into_iter()
            .filter_map(|lease_id| {
                let lease = self.leases.remove(&lease_id)?;
                self.requeue(lease.job_id, true)
            })
            .collect()
    }

    /// Gives back leases a worker holds (on its shutdown); their jobs go to the queue front.
    pub fn return_leases(&mut self, worker_id: &str, lease_ids: &[u64]) -> Vec<(u64, Job)> {
        let mut changed = Vec::new();
        for id in lease_ids {
            if self
                .leases
                .get(id)
                .is_some_and(|l| l.worker_id == worker_id)
            {
                let lease = self.leases.remove(id).expect("checked");
                if let Some(mut change) = self.requeue(lease.job_id, false) {
                    // A returned lease does not count as an attempt.
                    change.1.attempts = change.1.attempts.saturating_sub(1);
                    if let Some(active) = self.active.get_mut(&lease.job_id) {
                        active.record.attempts = change.1.attempts;
                    }
                    changed.push(change);
                }
            }
        }
        changed
    }

    fn requeue(&mut self, job_id: u64, counts_attempt: bool) -> Option<(u64, Job)> {
        let active = self.active.get_mut(&job_id)?;
        active.record.worker_id.clear();
        if counts_attempt && active.record.attempts >= self.max_attempts {
            active.record.state = JobState::Failed;
            let record = self.deactivate(job_id)?.record;
            self.finished[1] += 1;
            return Some((job_id, record));
        }
        active.record.state = JobState::Queued;
        let record = active.record.clone();
        self.enqueue(job_id, !counts_attempt);
        Some((job_id, record))
    }

    /// The task of a queued or leased job.
    #[must_use]
    pub fn task(&self, job_id: u64) -> Option<&Task> {
        self.active.get(&job_id).map(|active| &active.task)
    }

    /// Ids of the queued or leased jobs whose task satisfies `wanted`.
    pub fn active_where(&self, wanted: impl Fn(&Task) -> bool) -> Vec<u64> {
        let mut ids: Vec<u64> = self
            .active
            .iter()
            .filter(|(_, active)| wanted(&active.task))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Cancels queued or leased jobs; returns the changed records.
    pub fn cancel(&mut self, job_ids: &[u64]) -> Vec<(u64, Job)> {
        let mut changed = Vec::new();
        for id in job_ids {
            if let Some(mut active) = self.deactivate(*id) {
                active.record.state = JobState::Cancelled;
                self.finished[2] += 1;
                changed.push((*id, active.record));
            }
        }
        // One pass over the queue and the leases, however many jobs a match cancels at once.
        let cancelled: HashSet<u64> = changed.iter().map(|(id, _)| *id).collect();
        if !cancelled.is_empty() {
            self.leases
                .retain(|_, lease| !cancelled.contains(&lease.job_id));
            self.queue
                .retain(|slot| !matches!(slot, Slot::Job(id) if cancelled.contains(id)));
            // Each queued pair cancelled gives up one turn of the matches (the last ones).
            let turns = self.pairs.remove(&cancelled);
            if turns > 0 {
                let all = self
                    .queue
                    .iter()
                    .filter(|slot| **slot == Slot::Pair)
                    .count();
                let mut kept = all.saturating_sub(turns);
                self.queue.retain(|slot| match slot {
                    Slot::Pair if kept == 0 => false,
                    Slot::Pair => {
                        kept -= 1;
                        true
                    }
                    Slot::Job(_) => true,
                });
            }
        }
        changed
    }

    /// A job that analyses or solves the position of canonical key `key`, if one is active.
    #[must_use]
    pub fn book_job(&self, key: u64) -> Option<u64> {
        self.book_jobs.get(&key).map(|jobs| jobs.job_ids[0])
    }

    /// The canonical positions of the active analyse and solve jobs, each with its oldest job.
    #[must_use]
    pub fn book_positions(&self) -> Vec<(u64, Position)> {
        self.book_jobs
            .values()
            .map(|jobs| (jobs.job_ids[0], jobs.position))
            .collect()
    }

    /// Makes a job active, indexing its position if it analyses or solves one.
    fn activate(&mut self, job_id: u64, active: Active) {
        if let Some(position) = book_position(&active.task) {
            let position = position.canonical().position;
            self.book_jobs
                .entry(position.key().bits())
                .or_insert_with(|| BookJobs {
                    position,
                    job_ids: Vec::new(),
                })
                .job_ids
                .push(job_id);
        }
        self.active.insert(job_id, active);
    }

    /// Takes a job out of the active ones, and its position out of the index.
    fn deactivate(&mut self, job_id: u64) -> Option<Active> {
        let active = self.active.remove(&job_id)?;
        if let Some(position) = book_position(&active.task) {
            let key = position.canonical_key().bits();
            if let Entry::Occupied(mut entry) = self.book_jobs.entry(key) {
                entry.get_mut().job_ids.retain(|&id| id != job_id);
                if entry.get().job_ids.is_empty() {
                    entry.remove();
                }
            }
        }
        Some(active)
    }

    /// (queued, leased) job counts.
    #[must_use]
    pub fn pending(&self) -> (u64, u64) {
        (self.queue.len() as u64, self.leases.len() as u64)
    }

    /// Leases held, by worker (workers without one are absent).
    #[must_use]
    pub fn lease_counts(&self) -> HashMap<&str, u64> {
        let mut counts = HashMap::new();
        for lease in self.leases.values() {
            *counts.entry(lease.worker_id.as_str()).or_default() += 1;
        }
        counts
    }
}

/// The position a task analyses or solves (what the book builder cares about).
fn book_position(task: &Task) -> Option<&Position> {
    match task {
        Task::Analyse { position, .. } | Task::Solve { position } => Some(position),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::registry::DEFAULT_MAX_WORKERS;
    use pentago::Move;

    /// A queued analysis of the start (the membership tests use it too).
    pub(super) fn job() -> Job {
        let task = Task::Analyse {
            position: Position::START,
            config: "uct".parse().unwrap(),
            playouts: 10,
        };
        Job::queued(task, 0)
    }

    fn pair(match_id: u64, pair: u64) -> Job {
        let task = Task::Pair {
            match_id,
            pair,
            opening: Position::START,
            a: pentago::Player::Random,
            b: pentago::Player::Random,
            accuracy_stones: None,
            time: None,
            adjudicate: None,
        };
        Job::queued(task, 0)
    }

    #[test]
    fn pairs_take_turns_by_weight_where_their_places_come_and_others_keep_theirs() {
        let mut s = Scheduler::new(Duration::from_secs(10), 2, DEFAULT_MAX_WORKERS);
        let now = Instant::now();
        s.set_match_share(1, "", 2);
        // Queue: pairs 10, 11, 12 of match 1, the analysis 20, pairs 30, 31 of match 2.
        for (id, job) in [(10, pair(1, 0)), (11, pair(1, 1)), (12, pair(1, 2))] {
            s.restore(id, job, now);
        }
        s.restore(20, job(), now);
        for (id, job) in [(30, pair(2, 0)), (31, pair(2, 1))] {
            s.restore(id, job, now);
        }
        let mut next = 100;
        let mut ids = || {
            next += 1;
            Some(next)
        };
        let order: Vec<u64> = s.lease("w", 6, now, &mut ids).iter().map(|g| g.0).collect();
        // Each match's pairs in order, shared 2:1; the analysis keeps its fourth place.
        assert_eq!(order, [10, 30, 11, 20, 12, 31]);
        assert_eq!((s.match_pairs(1), s.match_pairs(2)), ((0, 3), (0, 2)));
        // Cancelling a match's queued pairs takes their turns out of the queue too.
        for (id, job) in [(40, pair(3, 0)), (41, pair(3, 1))] {
            s.restore(id, job, now);
        }
        s.restore(50, job(), now);
        assert_eq!(s.pending().0, 3);
        assert_eq!(s.cancel(&[40, 41, 10]).len(), 3);
        assert_eq!((s.pending(), s.match_pairs(3)), ((1, 5), (0, 0)));
        assert_eq!(s.lease("w", 5, now, &mut ids).len(), 1);
    }

    #[test]
    fn excluded_workers_pass_over_a_job_that_keeps_its_place() {
        let mut s = Scheduler::new(Duration::from_secs(10), 2, DEFAULT_MAX_WORKERS);
        let t0 = Instant::now();
        let check = Job {
            excluded_workers: vec!["claimant".into()],
            ..job()
        };
        s.restore(1, check, t0);
        s.restore(2, job(), t0);
        let mut next = 100;
        let mut ids = || {
            next += 1;
            Some(next)
        };
        let granted = s.lease("claimant", 5, t0, &mut ids);
        assert_eq!(granted.iter().map(|g| g.0).collect::<Vec<_>>(), [2]);
        assert!(s.lease("claimant", 5, t0, &mut ids).is_empty());
        let granted = s.lease("other", 5, t0, &mut ids);
        assert_eq!(granted.iter().map(|g| g.0).collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn leases_expire_back_to_the_queue_and_then_fail() {
        let mut s = Scheduler::new(Duration::from_secs(10), 2, DEFAULT_MAX_WORKERS);
        let t0 = Instant::now();
        s.restore(1, job(), t0);
        let mut next = 100;
        let mut ids = || {
            next += 1;
            Some(next)
        };
        let granted = s.lease("w1", 5, t0, &mut ids);
        assert_eq!(granted.len(), 1);
        assert_eq!(s.pending(), (0, 1));
        assert!(s.expire(t0 + Duration::from_secs(5)).is_empty());
        assert_eq!(
            s.heartbeat("w1", &[101, 999], t0 + Duration::from_secs(5)),
            vec![999]
        );
        let changed = s.expire(t0 + Duration::from_secs(16));
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].1.state, JobState::Queued);
        // Second attempt by another worker, which expires too: the job fails.
        assert_eq!(s.lease("w2", 5, t0, &mut ids).len(), 1);
        let changed = s.expire(t0 + Duration::from_secs(60));
        assert_eq!(changed[0].1.state, JobState::Failed);
        assert_eq!(s.pending(), (0, 0));
    }

    #[test]
    fn only_the_holder_can_submit() {
        let mut s = Scheduler::new(Duration::from_secs(10), 3, DEFAULT_MAX_WORKERS);
        let now = Instant::now();
        s.restore(1, job(), now);
        let lease_id = s.lease("w1", 1, now, || Some(7))[0].1.record.lease_id;
        assert!(s.take_for_submit("w2", 1, lease_id).is_err());
        assert!(s.take_for_submit("w1", 2, lease_id).is_err());
        let active = s.take_for_submit("w1", 1, lease_id).unwrap();
        assert!(s.take_for_submit("w1", 1, lease_id).is_err(), "taken once");
        s.put_back(1, active);
        assert_eq!(s.pending(), (1, 0));
    }

    #[test]
    fn a_reported_failure_requeues_until_the_attempts_run_out() {
        let mut s = Scheduler::new(Duration::from_secs(10), 2, DEFAULT_MAX_WORKERS);
        let now = Instant::now();
        s.restore(1, job(), now);
        s.lease("w1", 1, now, || Some(7));
        assert!(
            s.fail_attempt("w2", 1, 7, "boom").is_err(),
            "not the holder"
        );
        let record = s.fail_attempt("w1", 1, 7, "boom").unwrap();
        assert_eq!(record.state, JobState::Queued);
        assert_eq!(record.error, "boom");
        assert_eq!(s.state(1), Some(JobState::Queued));
        s.lease("w1", 1, now, || Some(8));
        let record = s.fail_attempt("w1", 1, 8, "boom again").unwrap();
        assert_eq!(
            (record.state, record.error.as_str()),
            (JobState::Failed, "boom again")
        );
        assert_eq!((s.state(1), s.finished[1]), (None, 1));
    }

    #[test]
    fn lease_ids_already_held_are_not_granted_twice() {
        let mut s = Scheduler::new(Duration::from_secs(10), 2, DEFAULT_MAX_WORKERS);
        let now = Instant::now();
        s.restore(1, job(), now);
        s.restore(2, job(), now);
        // A generator that keeps drawing a held id: the second job is not leased under it.
        let granted = s.lease("w", 2, now, || Some(7));
        assert_eq!(granted.len(), 1);
        assert_eq!(s.pending(), (1, 1));
        let mut ids = [9, 7].into_iter();
        let granted = s.lease("w", 1, now, || ids.next());
        assert_eq!(granted[0].1.record.lease_id, 9);
    }

    #[test]
    fn returned_leases_requeue_without_costing_an_attempt() {
        let mut s = Scheduler::new(Duration::from_secs(10), 1, DEFAULT_MAX_WORKERS);
        let now = Instant::now();
        s.restore(1, job(), now);
        s.lease("w1", 1, now, || Some(7));
        let changed = s.return_leases("w1", &[7]);
        assert_eq!(changed[0].1.attempts, 0);
        assert_eq!(s.pending(), (1, 0));
        assert_eq!(s.cancel(&[1]).len(), 1);
        assert_eq!(s.pending(), (0, 0));
        assert!(s.lease("w1", 1, now, || Some(8)).is_empty());
    }

    #[test]
    fn the_book_index_follows_jobs_in_any_frame_until_they_leave() {
        let mut s = Scheduler::new(Duration::from_secs(10), 1, DEFAULT_MAX_WORKERS);
        let now = Instant::now();
        let after: Move = "a1-1R".parse().unwrap();
        let mirrored: Move = "f6-4R".parse().unwrap();
        let (one, other) = (
            Position::START.play(after).unwrap(),
            Position::START.play(mirrored).unwrap(),
        );
        assert_eq!(one.canonical_key(), other.canonical_key(), "test positions");
        let key = one.canonical_key().bits();
        let analyse = |position| Task::Analyse {
            position,
            config: "uct".parse().unwrap(),
            playouts: 10,
        };
        s.restore(1, Job::queued(analyse(one), 0), now);
        s.restore(2, Job::queued(analyse(other), 0), now);
        let solve = Task::Solve {
            position: Position::START,
        };
        s.restore(3, Job::queued(solve, 0), now);
        assert_eq!(s.book_job(key), Some(1));
        let mut positions = s.book_positions();
        positions.sort_by_key(|(job, _)| *job);
        assert_eq!(positions.len(), 2, "one entry per canonical position");
        assert_eq!(positions[0], (1, one.canonical().position));
        s.lease("w", 1, now, || Some(7));
        let taken = s.take_for_submit("w", 1, 7).unwrap();
        assert_eq!(
            s.book_job(key),
            Some(2),
            "the other frame's job still analyses it"
        );
        s.put_back(1, taken);
        assert_eq!(s.book_job(key), Some(2), "a job put back is indexed again");
        s.cancel(&[2]);
        assert_eq!(s.book_job(key), Some(1));
        s.lease("w", 1, now, || Some(8));
        s.expire(now + Duration::from_secs(11));
        assert_eq!(
            s.book_job(key),
            None,
            "a job that failed for good leaves the index"
        );
        assert_eq!(s.book_positions().len(), 1);
    }
}
