//! The workers a coordinator knows, bounded. Any holder of a worker token can say hello under
//! as many ids as it likes, so the registry holds at most `capacity` workers: a new id past
//! that evicts the longest-silent worker that holds no lease (an honest worker that was
//! evicted is told to say hello again on its next call, as after a coordinator restart), and
//! is refused only when every known worker holds a lease. Two ordered indexes keep every
//! operation O(log n) whatever the size: by (name, id) for paging the status, and by last
//! call for pruning and eviction.
//!
//! Sessions live in memory, so after a coordinator restart the registry starts empty. The ids
//! of workers that said hello with a key are then *reserved* (see [`Registry::reserve`]): for
//! one lease period from the start, and while the id still holds a lease restored from before
//! the restart, a hello under it must bring a key whose stored digest matches (see
//! [`pentagrid_store::worker_keys`]), so the first caller to say hello does not win an honest
//! worker's id. An id that holds a restored lease but said hello without a key (a worker
//! that does not send one) is reserved for nobody as long: no caller can prove to be its
//! worker, so none takes it, and its lease stays where it was until it expires.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Bound;
use std::time::Instant;

use crate::identity::{Session, WorkerKey, proves};
use pentagrid_store::worker_keys::KeyDigest;

/// What the registry keeps of a worker: its session and key as well as what a status shows of
/// it (that view is [`pentagrid_model::WorkerInfo`], built by `JobQueue::status_page`).
#[derive(Clone, Debug)]
pub struct WorkerEntry {
    /// Its display name.
    pub name: String,
    /// Threads it runs.
    pub threads: u32,
    /// Last call.
    pub last_seen: Instant,
    /// Results it had applied.
    pub results: u64,
    /// The external engines it runs.
    pub engines: super::engines::WorkerEngines,
    /// The key it said hello with: a later hello under its id must bring the same one while
    /// this session is live.
    pub key: WorkerKey,
    /// Its current session: every worker call must carry it.
    pub session: Session,
}

/// Default bound on known workers: far above any real cluster (hundreds of machines), far
/// below what makes the registry's memory matter (about 1 KB a worker).
pub const DEFAULT_MAX_WORKERS: usize = 100_000;

/// The registry is full of workers that hold leases: nobody can be evicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the coordinator knows {0} workers, its limit, and each holds a lease: try again later")]
pub struct RegistryFull(pub usize);

/// Where a page of workers starts: after this (name, id).
pub type WorkerCursor = (String, String);

/// An id kept for the holder of its key after a restart.
#[derive(Clone, Copy, Debug)]
struct Reservation {
    /// The stored digest of the key the id's last session said hello with; `None`: it said
    /// hello without a key, so nobody can claim the id before the reservation lapses.
    digest: Option<KeyDigest>,
    /// When the session that may still be live would have expired.
    until: Instant,
}

/// The known workers, bounded, indexed by id, by name and by silence.
#[derive(Debug)]
pub struct Registry {
    workers: HashMap<String, WorkerEntry>,
    by_name: BTreeSet<(String, String)>,
    by_silence: BTreeSet<(Instant, String)>,
    capacity: usize,
    /// Ids kept for their keys after a restart (none are in `workers`).
    reserved: HashMap<String, Reservation>,
}

impl Registry {
    /// An empty registry holding at most `capacity` workers (at least one).
    #[must_use]
    pub fn new(capacity: usize) -> Registry {
        Registry {
            workers: HashMap::new(),
            by_name: BTreeSet::new(),
            by_silence: BTreeSet::new(),
            capacity: capacity.max(1),
            reserved: HashMap::new(),
        }
    }

    /// Keeps `id` (not known yet) for the worker whose key has `digest` (`None`: for nobody)
    /// until `until` (see the module documentation).
    pub fn reserve(&mut self, id: &str, digest: Option<KeyDigest>, until: Instant) {
        if !self.workers.contains_key(id) {
            self.reserved
                .insert(id.to_owned(), Reservation { digest, until });
        }
    }

    /// Whether a hello under `id` at `now` with `key` may take the id as far as its
    /// reservation goes: it has none, the key proves its digest, or it lapsed (past its time,
    /// and the id holds no lease: `holds_lease`). The reservation is gone once the id is
    /// taken or lapsed.
    pub fn claim_reserved(
        &mut self,
        id: &str,
        key: &WorkerKey,
        now: Instant,
        holds_lease: bool,
    ) -> bool {
        let Some(reservation) = self.reserved.get(id) else {
            return true;
        };
        let lapsed = now >= reservation.until && !holds_lease;
        let owner = reservation
            .digest
            .is_some_and(|digest| proves(key, id, &digest));
        if lapsed || owner {
            self.reserved.remove(id);
            return true;
        }
        false
    }

    /// Drops the reservations lapsed at `now` whose ids `holds_lease` does not name; returns
    /// their ids.
    pub fn lapse_reservations(
        &mut self,
        now: Instant,
        holds_lease: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        let lapsed: Vec<String> = self
            .reserved
            .iter()
            .filter(|(id, r)| now >= r.until && !holds_lease(id))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &lapsed {
            self.reserved.remove(id);
        }
        lapsed
    }

    /// Ids reserved now.
    #[must_use]
    pub fn reserved(&self) -> usize {
        self.reserved.len()
    }

    /// Whether `id` is reserved now.
    #[must_use]
    pub fn is_reserved(&self, id: &str) -> bool {
        self.reserved.contains_key(id)
    }

    /// The worker `id`.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<&WorkerEntry> {
        self.workers.get(id)
    }

    /// Whether `id` is known.
    #[must_use]
    pub fn contains_key(&self, id: &str) -> bool {
        self.workers.contains_key(id)
    }

    /// Workers known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.workers.len()
    }

    /// Whether no worker is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }

    /// The engines of every known worker.
    pub fn engines(&self) -> impl Iterator<Item = &super::engines::WorkerEngines> {
        self.workers.values().map(|info| &info.engines)
    }

    /// Workers whose last call was at `since` or later.
    #[must_use]
    pub fn seen_since(&self, since: Instant) -> usize {
        self.by_silence.range((since, String::new())..).count()
    }

    /// Notes a call from `id` (if known) at `now`.
    pub fn seen(&mut self, id: &str, now: Instant) {
        if let Some(info) = self.workers.get_mut(id) {
            self.by_silence.remove(&(info.last_seen, id.to_owned()));
            info.last_seen = now;
            self.by_silence.insert((now, id.to_owned()));
        }
    }

    /// Counts a result applied for `id` (if known).
    pub fn record_result(&mut self, id: &str) {
        if let Some(info) = self.workers.get_mut(id) {
            info.results += 1;
        }
    }

    /// Registers `id` (again, keeping its results); a new id at capacity first evicts the
    /// longest-silent worker outside `leaseholders`. Returns the evicted worker's id.
    pub fn join(
        &mut self,
        id: &str,
        info: WorkerEntry,
        leaseholders: impl FnOnce() -> HashSet<String>,
    ) -> Result<Option<String>, RegistryFull> {
        let mut evicted = None;
        if !self.workers.contains_key(id) && self.workers.len() >= self.capacity {
            let holders = leaseholders();
            let victim = self
                .by_silence
                .iter()
                .map(|(_, id)| id)
                .find(|id| !holders.contains(*id))
                .cloned()
                .ok_or(RegistryFull(self.capacity))?;
            self.remove(&victim);
            evicted = Some(victim);
        }
        let results = self.remove(id).map_or(0, |old| old.results);
        self.by_name.insert((info.name.clone(), id.to_owned()));
        self.by_silence.insert((info.last_seen, id.to_owned()));
        self.workers
            .insert(id.to_owned(), WorkerEntry { results, ..info });
        Ok(evicted)
    }

    /// Forgets `id`; returns what was known of it.
    pub fn remove(&mut self, id: &str) -> Option<WorkerEntry> {
        let info = self.workers.remove(id)?;
        self.by_name.remove(&(info.name.clone(), id.to_owned()));
        self.by_silence.remove(&(info.last_seen, id.to_owned()));
        Some(info)
    }

    /// Forgets the workers silent since before `cutoff` that `holds_lease` does not name;
    /// returns their ids. Visits only the silent ones.
    pub fn prune(&mut self, cutoff: Instant, holds_lease: impl Fn(&str) -> bool) -> Vec<String> {
        let silent: Vec<String> = self
            .by_silence
            .range(..(cutoff, String::new()))
            .map(|(_, id)| id)
            .filter(|id| !holds_lease(id))
            .cloned()
            .collect();
        for id in &silent {
            self.remove(id);
        }
        silent
    }

    /// Up to `limit` workers by name then id, after `after`; with the cursor of the next page
    /// when more follow. Visits only the page.
    #[must_use]
    pub fn page(
        &self,
        after: Option<&WorkerCursor>,
        limit: usize,
    ) -> (Vec<(&str, &WorkerEntry)>, Option<WorkerCursor>) {
        let start = match after {
            Some(cursor) => Bound::Excluded(cursor.clone()),
            None => Bound::Unbounded,
        };
        let mut keys = self.by_name.range((start, Bound::Unbounded));
        let page: Vec<(&str, &WorkerEntry)> = keys
            .by_ref()
            .take(limit)
            .filter_map(|(_, id)| self.workers.get_key_value(id))
            .map(|(id, info)| (id.as_str(), info))
            .collect();
        let next = match (keys.next(), page.last()) {
            (Some(_), Some((id, info))) => Some((info.name.clone(), (*id).to_owned())),
            _ => None,
        };
        (page, next)
    }

    /// Every worker id, in no particular order (tests and small registries).
    pub fn ids(&self) -> impl Iterator<Item = &String> {
        self.workers.keys()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn info(name: &str, at: Instant) -> WorkerEntry {
        WorkerEntry {
            name: name.to_owned(),
            threads: 1,
            last_seen: at,
            results: 0,
            engines: Default::default(),
            key: WorkerKey::NONE,
            session: Session::fresh(),
        }
    }

    #[test]
    fn a_full_registry_evicts_the_longest_silent_worker_without_leases() {
        let t0 = Instant::now();
        let mut r = Registry::new(3);
        for (i, id) in ["old", "busy", "new"].into_iter().enumerate() {
            let at = t0 + Duration::from_secs(i as u64);
            assert_eq!(r.join(id, info(id, at), HashSet::new), Ok(None));
        }
        // "busy" holds a lease; "old" is the longest silent.
        let holders = || HashSet::from(["old".to_owned()]);
        let later = t0 + Duration::from_secs(9);
        assert_eq!(
            r.join("x", info("x", later), holders),
            Ok(Some("busy".to_owned())),
            "the silent leaseholder is kept"
        );
        assert_eq!(r.len(), 3);
        // Saying hello again under a known id evicts nobody and keeps its results.
        r.record_result("x");
        assert_eq!(r.join("x", info("y", later), HashSet::new), Ok(None));
        assert_eq!(
            r.get("x").map(|w| (w.results, w.name.as_str())),
            Some((1, "y"))
        );
        let all = || HashSet::from(["old".to_owned(), "new".to_owned(), "x".to_owned()]);
        assert_eq!(r.join("z", info("z", later), all), Err(RegistryFull(3)));
        assert!(!r.contains_key("z"));
    }

    #[test]
    fn a_reserved_id_is_taken_only_with_its_key_until_it_lapses() {
        let t0 = Instant::now();
        let minute = Duration::from_secs(60);
        let mut r = Registry::new(10);
        let key = WorkerKey::parse("the-owners-key-0123456789").unwrap();
        let other = WorkerKey::parse("another-key-0123456789").unwrap();
        r.reserve("w", key.digest("w"), t0 + minute);
        // The same key's digest as another id's proves nothing for this one.
        r.reserve("v", key.digest("other-id"), t0 + minute);
        assert_eq!(r.reserved(), 2);
        assert!(!r.claim_reserved("w", &other, t0, false));
        assert!(!r.claim_reserved("w", &WorkerKey::NONE, t0, false));
        assert!(!r.claim_reserved("v", &key, t0, false));
        // Past its time, a lease restored from before the restart still keeps it.
        let late = t0 + minute;
        assert!(!r.claim_reserved("w", &other, late, true));
        // Its owner takes it; then nothing is reserved under it.
        assert!(r.claim_reserved("w", &key, t0, false));
        assert!(r.claim_reserved("w", &other, t0, false));
        assert!(r.claim_reserved("never-reserved", &other, t0, false));
        assert!(r.lapse_reservations(t0, |_| false).is_empty());
        assert!(r.lapse_reservations(late, |id| id == "v").is_empty());
        assert_eq!(r.lapse_reservations(late, |_| false), ["v"]);
        assert_eq!(r.reserved(), 0);
        // A known worker is never reserved.
        r.join("k", info("k", t0), HashSet::new).unwrap();
        r.reserve("k", key.digest("k"), t0 + minute);
        assert_eq!(r.reserved(), 0);
    }

    #[test]
    fn a_keyless_reservation_is_taken_by_nobody_until_it_lapses() {
        let t0 = Instant::now();
        let minute = Duration::from_secs(60);
        let mut r = Registry::new(10);
        let key = WorkerKey::parse("some-callers-key-0123456789").unwrap();
        r.reserve("legacy", None, t0 + minute);
        assert!(r.is_reserved("legacy"));
        for caller in [&WorkerKey::NONE, &key] {
            assert!(!r.claim_reserved("legacy", caller, t0, true));
            assert!(!r.claim_reserved("legacy", caller, t0, false));
            // Past its time, the restored lease it still holds keeps it.
            assert!(!r.claim_reserved("legacy", caller, t0 + minute, true));
        }
        assert!(r.is_reserved("legacy"));
        // Lapsed, with its lease gone: first come again.
        assert!(r.claim_reserved("legacy", &WorkerKey::NONE, t0 + minute, false));
        assert!(!r.is_reserved("legacy"));
    }

    #[test]
    fn pages_follow_names_then_ids_and_pruning_visits_the_silent() {
        let t0 = Instant::now();
        let mut r = Registry::new(100);
        for i in 0..10u64 {
            let id = format!("id{i}");
            let at = t0 + Duration::from_secs(i);
            r.join(&id, info(&format!("n{}", i % 3), at), HashSet::new)
                .unwrap();
        }
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) = r.page(cursor.as_ref(), 4);
            assert!(page.len() <= 4);
            seen.extend(
                page.iter()
                    .map(|(id, w)| (w.name.clone(), (*id).to_owned())),
            );
            match next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let mut expected = seen.clone();
        expected.sort();
        assert_eq!((seen.len(), &seen), (10, &expected));
        r.seen("id0", t0 + Duration::from_secs(100));
        assert_eq!(r.seen_since(t0 + Duration::from_secs(8)), 3);
        let pruned = r.prune(t0 + Duration::from_secs(5), |id| id == "id1");
        assert_eq!(pruned, ["id2", "id3", "id4"]);
        assert_eq!(r.len(), 7);
        assert_eq!(r.page(None, 100).0.len(), 7);
    }
}
