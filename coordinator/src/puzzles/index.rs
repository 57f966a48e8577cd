//! The stored puzzles in listing order with what the list filters read (length, difficulty,
//! themes), kept between listings so that a page parses no stored puzzle's JSON: reading a
//! collection of N puzzles page by page used to parse all N for every page. Rebuilt when the
//! store's puzzles version moves.

use std::sync::{Arc, Mutex, PoisonError};

use pentago::Theme;

use super::{PuzzleCursor, read_puzzle};
use crate::store::{Store, StoreError};

/// One stored puzzle as the listing sees it.
pub(super) struct Listed {
    /// Its place in the listing order (mate length, difficulty, canonical key).
    pub(super) cursor: PuzzleCursor,
    /// Its themes, worked out from its proof.
    pub(super) themes: Vec<Theme>,
}

/// Every stored puzzle in listing order, as of one puzzles version of the store.
pub(super) struct PuzzleIndex {
    version: u64,
    /// In listing order.
    pub(super) puzzles: Vec<Listed>,
}

impl PuzzleIndex {
    fn build(store: &Store, version: u64) -> Result<PuzzleIndex, StoreError> {
        let mut puzzles = Vec::new();
        for json in store.puzzles() {
            let puzzle = read_puzzle(&json?)?;
            puzzles.push(Listed {
                cursor: PuzzleCursor::of(&puzzle),
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
    /// The index of the puzzles stored now: the kept one while the store's puzzles version
    /// has not moved, else a fresh one (a full read of the stored puzzles).
    pub(super) fn current(&self, store: &Store) -> Result<Arc<PuzzleIndex>, StoreError> {
        // Read before the scan: puzzles stored during it move the version again, so an index
        // missing them is never taken for current.
        let version = store.puzzles_version();
        if let Some(index) = self.kept().filter(|index| index.version == version) {
            return Ok(index);
        }
        let index = Arc::new(PuzzleIndex::build(store, version)?);
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
