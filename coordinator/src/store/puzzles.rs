//! Puzzle candidates (their states) and stored puzzles (their stable JSON forms).

use std::sync::atomic::Ordering;

use super::{CandidateState, Store, StoreError, corrupt, id_of};

impl Store {
    /// Whether a puzzle candidate (canonical key) was queued or checked before.
    pub fn candidate_known(&self, key: u64) -> Result<bool, StoreError> {
        Ok(self.candidates.contains_key(key.to_be_bytes())?)
    }

    /// Marks candidates as queued (durable at the next flush).
    pub fn mark_candidates_pending(&self, keys: &[u64]) -> Result<(), StoreError> {
        let mut batch = sled::Batch::default();
        for key in keys {
            batch.insert(&key.to_be_bytes(), &[CandidateState::Pending as u8]);
        }
        self.candidates.apply_batch(batch)?;
        Ok(())
    }

    /// Candidates by state, indexed as [`CandidateState::ALL`].
    pub fn candidate_counts(&self) -> Result<[u64; CandidateState::ALL.len()], StoreError> {
        let mut counts = [0; CandidateState::ALL.len()];
        for entry in self.candidates.iter() {
            let (_, value) = entry?;
            let state = *value.first().ok_or_else(|| corrupt("candidate", "empty"))?;
            *counts
                .get_mut(state as usize)
                .ok_or_else(|| corrupt("candidate", "unknown state"))? += 1;
        }
        Ok(counts)
    }

    /// The JSON form of the puzzle stored under a canonical position key.
    pub fn puzzle(&self, key: u64) -> Result<Option<String>, StoreError> {
        self.puzzles
            .get(key.to_be_bytes())?
            .map(|value| String::from_utf8(value.to_vec()).map_err(|e| corrupt("puzzle", e)))
            .transpose()
    }

    /// A number that changes whenever puzzles may have been stored (by this process: the
    /// database has one writer), for caches of the stored puzzles to know they are stale.
    pub fn puzzles_version(&self) -> u64 {
        self.puzzles_version.load(Ordering::Acquire)
    }

    /// The canonical position keys of the stored puzzles, in key order.
    pub fn puzzle_keys(&self) -> impl Iterator<Item = Result<u64, StoreError>> + '_ {
        self.puzzles
            .iter()
            .keys()
            .map(|key| id_of(&key?, "puzzle key"))
    }
}
