//! The deep solves of book builds: which book positions a build means to deep-solve and which
//! deep solve each one got, so that a position is deep-solved at most once per build, and a
//! restarted build neither loses a position it meant to deep-solve nor starts a second solve.
//!
//! Stable format. `build_deep`: key = build id (8 bytes, big-endian) ‖ state (1 byte: 0
//! waiting for a free place, 1 started) ‖ canonical position key (8 bytes, big-endian); value =
//! empty while waiting, the deep solve's id (8 bytes, big-endian) once started. A position has
//! one entry per build; starting it moves the entry from state 0 to state 1 in one batch.

use super::{Store, StoreError, all_records, id_of};
use crate::deep_record::DeepSolve;
use crate::records::StoredBuild;
use pentago::Position;

const WAITING: u8 = 0;
const STARTED: u8 = 1;

fn entry_key(build: u64, state: u8, key: u64) -> [u8; 17] {
    let mut out = [0; 17];
    out[..8].copy_from_slice(&build.to_be_bytes());
    out[8] = state;
    out[9..].copy_from_slice(&key.to_be_bytes());
    out
}

fn prefix(build: u64, state: u8) -> [u8; 9] {
    let mut out = [0; 9];
    out[..8].copy_from_slice(&build.to_be_bytes());
    out[8] = state;
    out
}

impl Store {
    /// Adds the canonical position keys build `build` has no deep-solve entry for as waiting;
    /// returns how many were new.
    pub fn add_deep_candidates(&self, build: u64, keys: &[u64]) -> Result<u64, StoreError> {
        let mut batch = sled::Batch::default();
        let mut added = 0;
        let mut seen = std::collections::HashSet::new();
        for &key in keys {
            if !seen.insert(key)
                || self
                    .build_deep
                    .contains_key(entry_key(build, WAITING, key))?
                || self
                    .build_deep
                    .contains_key(entry_key(build, STARTED, key))?
            {
                continue;
            }
            batch.insert(&entry_key(build, WAITING, key), &[]);
            added += 1;
        }
        if added > 0 {
            let _writing = self.writing();
            self.build_deep.apply_batch(batch)?;
        }
        Ok(added)
    }

    /// Up to `limit` canonical position keys build `build` waits to deep-solve, in key order.
    pub fn deep_candidates(&self, build: u64, limit: usize) -> Result<Vec<u64>, StoreError> {
        self.build_deep
            .scan_prefix(prefix(build, WAITING))
            .keys()
            .take(limit)
            .map(|key| id_of(&key?[9..], "build deep key"))
            .collect()
    }

    /// Records that build `build` deep-solves the position `key` in solve `solve` (`None`:
    /// it needs no deep solve after all, it is dropped), with the build's updated record, in
    /// one batch per tree.
    pub fn start_deep_candidate(
        &self,
        build: u64,
        key: u64,
        solve: Option<u64>,
        record: &crate::build_record::Build,
    ) -> Result<(), StoreError> {
        let mut batch = sled::Batch::default();
        batch.remove(&entry_key(build, WAITING, key));
        if let Some(solve) = solve {
            batch.insert(&entry_key(build, STARTED, key), &solve.to_be_bytes());
        }
        let _writing = self.writing();
        self.build_deep.apply_batch(batch)?;
        super::put_record(&self.builds, build, &StoredBuild::from(record))
    }

    /// The deep solve build `build` started for the position `key`, if any.
    pub fn build_deep_solve(&self, build: u64, key: u64) -> Result<Option<u64>, StoreError> {
        self.build_deep
            .get(entry_key(build, STARTED, key))?
            .map(|bytes| id_of(&bytes, "build deep solve"))
            .transpose()
    }

    /// A deep solve of the position of canonical key `key` (any frame), with its record: an
    /// unfinished one, else a proven one; `None` when there is none (or only ones that ended
    /// unproven). Walks every deep solve record.
    pub fn deep_solve_of(&self, key: u64) -> Result<Option<(u64, DeepSolve)>, StoreError> {
        let mut found: Option<(u64, DeepSolve)> = None;
        for entry in all_records::<super::StoredDeepSolve>(&self.deep_solves, "deep solve") {
            let (id, stored) = entry?;
            let record = DeepSolve::from(stored);
            let same = record
                .position
                .parse::<Position>()
                .is_ok_and(|p| p.canonical_key().bits() == key);
            if !same {
                continue;
            }
            if !record.done {
                return Ok(Some((id, record)));
            }
            if record.value().is_some() {
                found = Some((id, record));
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_record::Build;

    #[test]
    fn a_candidate_is_added_once_and_moves_to_started_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let record = Build::default();
        assert_eq!(store.add_deep_candidates(7, &[3, 1, 3]).unwrap(), 2);
        assert_eq!(store.add_deep_candidates(7, &[1, 2]).unwrap(), 1);
        assert_eq!(store.deep_candidates(7, 10).unwrap(), vec![1, 2, 3]);
        assert_eq!(store.deep_candidates(8, 10).unwrap(), Vec::<u64>::new());
        store.start_deep_candidate(7, 2, Some(99), &record).unwrap();
        store.start_deep_candidate(7, 3, None, &record).unwrap();
        assert_eq!(store.deep_candidates(7, 10).unwrap(), vec![1]);
        assert_eq!(store.build_deep_solve(7, 2).unwrap(), Some(99));
        // A started position is not waiting again; a dropped one may be.
        assert_eq!(store.add_deep_candidates(7, &[2]).unwrap(), 0);
        assert_eq!(store.add_deep_candidates(7, &[3]).unwrap(), 1);
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.deep_candidates(7, 1).unwrap(), vec![1]);
        assert_eq!(store.build_deep_solve(7, 2).unwrap(), Some(99));
    }

    #[test]
    fn the_deep_solve_of_a_position_is_found_in_any_frame() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let start = Position::START;
        let first = start.play(start.legal_moves()[3]).unwrap();
        let position = first.play(first.legal_moves()[7]).unwrap();
        // Stored in a frame other than the canonical one, looked up by the canonical key.
        assert_ne!(position, position.canonical().position);
        let key = position.canonical_key().bits();
        assert_eq!(store.deep_solve_of(key).unwrap(), None);
        let record = DeepSolve {
            position: position.to_string(),
            lower: -1,
            upper: 1,
            ..DeepSolve::default()
        };
        store.put_deep_solve(5, &record).unwrap();
        assert_eq!(store.deep_solve_of(key).unwrap().map(|f| f.0), Some(5));
        let other = Position::START.canonical_key().bits();
        assert_eq!(store.deep_solve_of(other).unwrap(), None);
    }
}
