//! The stored puzzles in listing order with what the list filters read (length, difficulty,
//! themes), kept between listings so that a page parses no stored puzzle's JSON: without it,
//! reading a collection of N puzzles page by page would parse all N for every page. Stored puzzles
//! never change or go, so their count is the index's version: when it moves, the index parses
//! only the puzzles it lacks.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use pentago::Theme;

use super::{PuzzleCursor, read_puzzle};
use pentagrid_store::{Store, StoreError, corrupt};

/// One stored puzzle as the listing sees it.
#[derive(Clone)]
pub(super) struct Listed {
    /// Its place in the listing order (mate length, difficulty, canonical key).
    pub(super) cursor: PuzzleCursor,
    /// Its themes, worked out from its proof.
    pub(super) themes: Vec<Theme>,
}

/// Every stored puzzle in listing order, as of one count of the store's puzzles.
#[derive(Default)]
pub(super) struct PuzzleIndex {
    /// [`Store::stored_puzzles`] when the index was made.
    version: u64,
    /// In listing order.
    pub(super) puzzles: Vec<Listed>,
}

impl PuzzleIndex {
    /// `self` with the puzzles stored since added: a walk over the stored keys, and a parse of
    /// each puzzle not yet listed.
    fn refreshed(&self, store: &Store, version: u64) -> Result<PuzzleIndex, StoreError> {
        let listed: HashSet<u64> = self.puzzles.iter().map(|l| l.cursor.key).collect();
        let mut puzzles = self.puzzles.clone();
        for key in store.puzzle_keys() {
            let key = key?;
            if listed.contains(&key) {
                continue;
            }
            let json = store
                .puzzle(key)?
                .ok_or_else(|| corrupt("puzzle", format!("{key:#x} vanished while listed")))?;
            let puzzle = read_puzzle(&json)?;
            let cursor = PuzzleCursor::of(&puzzle);
            // Pages read puzzles back by the key in their cursor.
            if cursor.key != key {
                return Err(corrupt(
                    "puzzle",
                    format!("{key:#x} holds another position"),
                ));
            }
            puzzles.push(Listed {
                cursor,
                themes: Theme::of(&puzzle.proof),
            });
        }
        puzzles.sort_by(|a, b| a.cursor.order(&b.cursor));
        Ok(PuzzleIndex { version, puzzles })
    }
}

/// The index the last listing used, for the next one.
#[derive(Default)]
pub(super) struct IndexCache(Mutex<Option<Arc<PuzzleIndex>>>);

impl IndexCache {
    /// The index of the puzzles stored now: the kept one while the store's count of puzzles
    /// has not moved, else the kept one with the puzzles stored since.
    pub(super) fn current(&self, store: &Store) -> Result<Arc<PuzzleIndex>, StoreError> {
        // Read before the walk: puzzles stored during it move the count again, so an index
        // missing them is never taken for current.
        let version = store.stored_puzzles();
        let kept = self.kept();
        if let Some(index) = kept.as_ref().filter(|index| index.version == version) {
            return Ok(index.clone());
        }
        let index = Arc::new(kept.unwrap_or_default().refreshed(store, version)?);
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(index.clone());
        Ok(index)
    }

    fn kept(&self) -> Option<Arc<PuzzleIndex>> {
        // A panicking holder can only have left a whole index or none.
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
