//! Puzzle candidates (their states, and how many are in each) and stored puzzles (their stable
//! JSON forms).

use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard, PoisonError};

use sled::transaction::{ConflictableTransactionResult, TransactionalTree};

use super::{CandidateState, Store, StoreError, corrupt, id_of};

/// How many candidates there are in each state, indexed as [`CandidateState::ALL`].
pub type CandidateCounts = [u64; CandidateState::ALL.len()];

/// A candidate's state before and after one write (`None`: not stored).
pub(crate) type StateChange = (Option<CandidateState>, Option<CandidateState>);

/// The candidates tree's counts by state, kept in step with every write so that reading them
/// (every puzzle listing does) costs nothing, however many candidates were checked.
pub(crate) struct CandidateTally(Mutex<CandidateCounts>);

impl CandidateTally {
    /// Counts the stored candidates (once, at open, before anything writes). An unreadable
    /// state is logged and counted nowhere, as a write over it takes it for none: one bad byte
    /// must not keep the coordinator from starting.
    pub(crate) fn count(candidates: &sled::Tree) -> Result<CandidateTally, StoreError> {
        let mut counts = CandidateCounts::default();
        let mut unreadable = 0u64;
        for entry in candidates.iter() {
            let (_, value) = entry?;
            match stored_state(&value) {
                Some(state) => counts[state as usize] += 1,
                None => unreadable += 1,
            }
        }
        if unreadable > 0 {
            tracing::warn!(
                unreadable,
                "puzzle candidates with an unreadable state: not counted"
            );
        }
        Ok(CandidateTally(Mutex::new(counts)))
    }

    fn counts(&self) -> MutexGuard<'_, CandidateCounts> {
        // Each update is applied whole under the lock, so a poisoned one is still consistent.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes in the changes of a committed write, all at once so readers never see half.
    pub(crate) fn record(&self, changes: &[StateChange]) {
        // Most results (analyses, games, pairs) change no candidate: no lock for them.
        if changes.is_empty() {
            return;
        }
        let mut counts = self.counts();
        for (before, after) in changes {
            if let Some(before) = before {
                let count = &mut counts[*before as usize];
                *count = count.saturating_sub(1);
            }
            if let Some(after) = after {
                counts[*after as usize] += 1;
            }
        }
    }
}

/// The state a stored candidate value holds, `None` when it holds none that reads.
fn stored_state(value: &[u8]) -> Option<CandidateState> {
    let byte = *value.first()?;
    CandidateState::ALL.get(byte as usize).copied()
}

/// Sets a candidate's state inside a transaction; returns the change for the tally.
pub(crate) fn set_candidate(
    candidates: &TransactionalTree,
    key: u64,
    state: CandidateState,
) -> ConflictableTransactionResult<StateChange, StoreError> {
    let previous = candidates.insert(&key.to_be_bytes(), &[state as u8])?;
    Ok((previous.and_then(|value| stored_state(&value)), Some(state)))
}

/// Forgets a candidate inside a transaction; returns the change for the tally.
pub(crate) fn forget_candidate(
    candidates: &TransactionalTree,
    key: u64,
) -> ConflictableTransactionResult<StateChange, StoreError> {
    let previous = candidates.remove(&key.to_be_bytes())?;
    Ok((previous.and_then(|value| stored_state(&value)), None))
}

impl Store {
    /// Whether a puzzle candidate (canonical key) was queued or checked before.
    pub fn candidate_known(&self, key: u64) -> Result<bool, StoreError> {
        Ok(self.candidates.contains_key(key.to_be_bytes())?)
    }

    /// Marks candidates as queued, all or none (durable at the next flush).
    pub fn mark_candidates_pending(&self, keys: &[u64]) -> Result<(), StoreError> {
        let _writing = self.writing();
        let changes = self.candidates.transaction(|candidates| {
            keys.iter()
                .map(|key| set_candidate(candidates, *key, CandidateState::Pending))
                .collect::<Result<Vec<_>, _>>()
        })?;
        self.candidate_tally.record(&changes);
        Ok(())
    }

    /// Candidates by state, indexed as [`CandidateState::ALL`].
    pub fn candidate_counts(&self) -> CandidateCounts {
        *self.candidate_tally.counts()
    }

    /// The JSON form of the puzzle stored under a canonical position key.
    pub fn puzzle(&self, key: u64) -> Result<Option<String>, StoreError> {
        self.puzzles
            .get(key.to_be_bytes())?
            .map(|value| String::from_utf8(value.to_vec()).map_err(|e| corrupt("puzzle", e)))
            .transpose()
    }

    /// How many puzzles are stored. Puzzles are never removed, so this moves whenever one is
    /// stored (by this process: the database has one writer), and caches of the stored puzzles
    /// take it as their version.
    pub fn stored_puzzles(&self) -> u64 {
        self.stored_puzzles.load(Ordering::Acquire)
    }

    /// The canonical position keys of the stored puzzles, in key order.
    pub fn puzzle_keys(&self) -> impl Iterator<Item = Result<u64, StoreError>> + '_ {
        self.puzzles
            .iter()
            .keys()
            .map(|key| id_of(&key?, "puzzle key"))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::claim::{Answer, Claim};
    use crate::job::{Job, JobState};
    use crate::{ReleasedClaim, ResultEffect};
    use pentago::Position;

    /// One write to the candidates, on keys drawn from a few so that writes meet.
    #[derive(Clone, Debug)]
    enum Write {
        Pending(Vec<u64>),
        Verdicts(Vec<(u64, usize)>),
        Release {
            forget: Vec<u64>,
            settle: Option<(u64, usize)>,
        },
    }

    fn write() -> impl Strategy<Value = Write> {
        let key = 1..6u64;
        let state = 0..CandidateState::ALL.len();
        prop_oneof![
            prop::collection::vec(key.clone(), 0..4).prop_map(Write::Pending),
            prop::collection::vec((key.clone(), state.clone()), 0..4).prop_map(Write::Verdicts),
            (
                prop::collection::vec(key.clone(), 0..4),
                prop::option::of((key, state))
            )
                .prop_map(|(forget, settle)| Write::Release { forget, settle }),
        ]
    }

    fn perform(store: &Store, index: usize, write: &Write) {
        match write {
            Write::Pending(keys) => store.mark_candidates_pending(keys).unwrap(),
            Write::Verdicts(verdicts) => {
                let effect = ResultEffect {
                    verdicts: verdicts
                        .iter()
                        .map(|(key, state)| (*key, CandidateState::ALL[*state], None))
                        .collect(),
                    ..ResultEffect::default()
                };
                let id = index as u64 + 1;
                store
                    .apply(
                        id,
                        &Job::in_state(JobState::Done),
                        &format!("r{id}"),
                        &effect,
                    )
                    .unwrap();
            }
            Write::Release { forget, settle } => {
                let claim = settle.map(|(key, state)| ReleasedClaim {
                    id: index as u64,
                    record: Claim::new("w", 0, Position::START, Answer::Values(Default::default())),
                    candidate: Some((key, CandidateState::ALL[state])),
                });
                store.release_abandoned(forget, claim.as_ref()).unwrap();
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn kept_counts_equal_a_fresh_count(writes in prop::collection::vec(write(), 0..24)) {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path()).unwrap();
            for (index, write) in writes.iter().enumerate() {
                perform(&store, index, write);
            }
            // What an open would count (reopening in a loop races sled's lock release).
            let counted = *CandidateTally::count(&store.candidates).unwrap().counts();
            prop_assert_eq!(store.candidate_counts(), counted);
        }
    }

    #[test]
    fn a_replayed_result_changes_no_count() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.mark_candidates_pending(&[7, 8]).unwrap();
        let effect = ResultEffect {
            verdicts: vec![(7, CandidateState::NoMate, None)],
            ..ResultEffect::default()
        };
        for _ in 0..2 {
            store
                .apply(1, &Job::in_state(JobState::Done), "r1", &effect)
                .unwrap();
        }
        let mut expected = CandidateCounts::default();
        expected[CandidateState::Pending as usize] = 1;
        expected[CandidateState::NoMate as usize] = 1;
        assert_eq!(store.candidate_counts(), expected);
    }

    #[test]
    fn an_unreadable_candidate_state_is_counted_nowhere_until_a_verdict_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.candidates.insert(1u64.to_be_bytes(), &[99]).unwrap();
        store.candidates.insert(2u64.to_be_bytes(), &[]).unwrap();
        // What an open counts: nothing, and no error.
        let counted = *CandidateTally::count(&store.candidates).unwrap().counts();
        assert_eq!(counted, CandidateCounts::default());
        let effect = ResultEffect {
            verdicts: vec![(1, CandidateState::NoMate, None)],
            ..ResultEffect::default()
        };
        store
            .apply(1, &Job::in_state(JobState::Done), "r1", &effect)
            .unwrap();
        let mut expected = CandidateCounts::default();
        expected[CandidateState::NoMate as usize] = 1;
        assert_eq!(store.candidate_counts(), expected);
        store.release_abandoned(&[2], None).unwrap();
        assert_eq!(store.candidate_counts(), expected);
    }
}
