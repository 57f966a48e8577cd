//! The workers the scheduler knows: hellos that take an id only with its key while its session
//! is live, the session every worker call must carry, reservations of ids after a restart, and
//! forgetting the silent ones.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use super::super::registry::{Registry, RegistryFull, WorkerEntry};
use super::{Lease, Scheduler};
use crate::identity::Session;
use pentagrid_store::worker_keys::KeyDigest;

/// Why a hello was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    /// The registry is full of workers that hold leases.
    #[error(transparent)]
    Full(#[from] RegistryFull),
    /// A live session holds the id and the hello's key is not its key.
    #[error("a live session with another key holds this worker id")]
    IdInUse,
}

/// What a worker call's session is to the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionCheck {
    /// The worker's current session.
    Current,
    /// The worker is known, the session is not its own.
    Wrong,
    /// No such worker (the coordinator restarted or forgot it).
    UnknownWorker,
}

impl Scheduler {
    /// The known workers.
    pub fn workers(&self) -> &Registry {
        &self.workers
    }

    /// Notes a call from a worker.
    pub fn seen(&mut self, worker_id: &str, now: Instant) {
        self.workers.seen(worker_id, now);
    }

    /// Forgets workers silent since before `cutoff` that hold no lease; returns their ids.
    pub fn prune_workers(&mut self, cutoff: Instant) -> Vec<String> {
        let holders = self.leaseholders();
        self.workers.prune(cutoff, |id| holders.contains(id))
    }

    /// Keeps `id` for its key's holder (`None`: for nobody) for one lease period from `now`
    /// (see [`Registry::reserve`]): a coordinator start does so for every stored key digest,
    /// and for nobody for each id without one that holds a restored lease.
    pub fn reserve_worker(&mut self, id: &str, digest: Option<KeyDigest>, now: Instant) {
        self.workers.reserve(id, digest, now + self.lease_duration);
    }

    /// Reserves for nobody, for one lease period from `now`, each id that holds a restored
    /// lease and is not reserved already (it said hello without a key): see
    /// [`Registry::reserve`].
    pub fn reserve_keyless_leaseholders(&mut self, now: Instant) -> usize {
        let keyless: Vec<String> = self
            .leaseholders()
            .into_iter()
            .filter(|id| !self.workers.is_reserved(id) && !self.workers.contains_key(id))
            .collect();
        for id in &keyless {
            self.reserve_worker(id, None, now);
        }
        keyless.len()
    }

    /// Drops the reservations lapsed at `now` (see [`Registry::lapse_reservations`]).
    pub fn lapse_reservations(&mut self, now: Instant) -> Vec<String> {
        if self.workers.reserved() == 0 {
            return Vec::new();
        }
        let holders = self.leaseholders();
        self.workers
            .lapse_reservations(now, |id| holders.contains(id))
    }

    /// The workers holding a lease.
    #[must_use]
    pub fn leaseholders(&self) -> HashSet<String> {
        leaseholders(&self.leases)
    }

    /// Registers a worker (see [`Registry::join`]); returns the worker evicted for it. An id
    /// whose session is live — it called within the last lease period, or holds a lease — is
    /// taken again only with the key it said hello with, so no other caller can step into a
    /// live worker's name; after a restart, so is a reserved id (see [`Registry::reserve`]).
    pub fn join_worker(
        &mut self,
        id: &str,
        info: WorkerEntry,
    ) -> Result<Option<String>, JoinError> {
        let holds_lease = self.leases.values().any(|lease| lease.worker_id == id);
        if let Some(known) = self.workers.get(id) {
            let quiet_since = info.last_seen.checked_sub(self.lease_duration);
            let live = quiet_since.is_none_or(|since| known.last_seen > since) || holds_lease;
            if live && !known.key.matches(&info.key) {
                return Err(JoinError::IdInUse);
            }
        } else if !self
            .workers
            .claim_reserved(id, &info.key, info.last_seen, holds_lease)
        {
            return Err(JoinError::IdInUse);
        }
        let leases = &self.leases;
        Ok(self.workers.join(id, info, || leaseholders(leases))?)
    }

    /// Whether `session` is the current session of worker `id`.
    pub fn session_of(&self, id: &str, session: &Session) -> SessionCheck {
        match self.workers.get(id) {
            None => SessionCheck::UnknownWorker,
            Some(info) if info.session.matches(session) => SessionCheck::Current,
            Some(_) => SessionCheck::Wrong,
        }
    }

    /// Counts a finished job.
    pub fn mark_done(&mut self, worker_id: &str) {
        self.finished[0] += 1;
        self.workers.record_result(worker_id);
    }
}

/// The workers holding one of `leases`.
fn leaseholders(leases: &HashMap<u64, Lease>) -> HashSet<String> {
    leases
        .values()
        .map(|lease| lease.worker_id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::tests::job;
    use super::*;
    use crate::jobs::registry::DEFAULT_MAX_WORKERS;

    fn worker(name: &str, at: Instant, key: &str) -> WorkerEntry {
        WorkerEntry {
            name: name.into(),
            threads: 1,
            last_seen: at,
            results: 0,
            engines: Default::default(),
            key: crate::identity::WorkerKey::parse(key).unwrap(),
            session: Session::fresh(),
        }
    }

    #[test]
    fn a_live_id_is_taken_again_only_with_its_key() {
        let lease = Duration::from_secs(10);
        let mut s = Scheduler::new(lease, 2, DEFAULT_MAX_WORKERS);
        let t0 = Instant::now();
        let key = "the-owners-key-0123456789";
        s.join_worker("w", worker("w", t0, key)).unwrap();
        let session = s.workers.get("w").unwrap().session.clone();
        assert_eq!(s.session_of("w", &session), SessionCheck::Current);
        assert_eq!(
            s.session_of("w", &Session::presented("guess")),
            SessionCheck::Wrong
        );
        assert_eq!(s.session_of("x", &session), SessionCheck::UnknownWorker);
        // Someone else, without the key or with another, while the session is live.
        let soon = t0 + Duration::from_secs(3);
        for other in ["", "another-key-0123456789"] {
            assert_eq!(
                s.join_worker("w", worker("thief", soon, other)),
                Err(JoinError::IdInUse)
            );
        }
        assert_eq!(
            s.session_of("w", &session),
            SessionCheck::Current,
            "unchanged"
        );
        // The owner again (a lost hello answer, a restart with a kept key): a new session.
        s.join_worker("w", worker("w", soon, key)).unwrap();
        assert_eq!(s.session_of("w", &session), SessionCheck::Wrong);
        // Holding a lease keeps a silent session live.
        s.restore(1, job(), soon);
        s.lease("w", 1, soon, || Some(7));
        let later = soon + lease * 2;
        assert_eq!(
            s.join_worker("w", worker("thief", later, "")),
            Err(JoinError::IdInUse)
        );
        // Silent for a lease period without a lease: the id is free again.
        s.return_leases("w", &[7]);
        s.join_worker("w", worker("heir", later, "")).unwrap();
        assert_eq!(s.workers.get("w").unwrap().name, "heir");
    }

    #[test]
    fn silent_workers_without_leases_are_pruned() {
        let mut s = Scheduler::new(Duration::from_secs(10), 2, DEFAULT_MAX_WORKERS);
        let t0 = Instant::now();
        for id in ["quiet", "busy", "fresh"] {
            s.workers
                .join(id, worker(id, t0, ""), HashSet::new)
                .unwrap();
        }
        s.restore(1, job(), t0);
        s.lease("busy", 1, t0, || Some(7));
        s.seen("fresh", t0 + Duration::from_secs(50));
        assert!(
            s.prune_workers(t0).is_empty(),
            "nobody is older than the cutoff"
        );
        let pruned = s.prune_workers(t0 + Duration::from_secs(20));
        assert_eq!(pruned, vec!["quiet".to_owned()]);
        let mut left: Vec<&String> = s.workers.ids().collect();
        left.sort();
        assert_eq!(left, ["busy", "fresh"]);
    }
}
