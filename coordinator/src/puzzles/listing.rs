//! Listing the stored puzzles: filters, the cursor that pages go on from, and pages cut to a
//! size and a byte budget, read through the index of [`super::index`].

use pentago::Puzzle;
use pentagrid_model::PuzzleFilter;
use thiserror::Error;

use super::{PuzzleError, PuzzleMiner};
use crate::paging::{check_start, page_size};
use pentagrid_store::{CandidateState, corrupt};

/// Puzzles per listed page unless asked otherwise.
pub const PUZZLES_PAGE_SIZE: u64 = 20;
pub use pentagrid_model::limits::MAX_PUZZLES_PAGE;
/// A listed page ends before its puzzles pass this many bytes (a page holds one puzzle at
/// least): a mate in 5's proof can take 200 KB, and a page of such mates stays far below the
/// 1 MiB message cap.
pub const MAX_PUZZLES_PAGE_BYTES: usize = 256 * 1024;

/// One page of the stored puzzles to list: which ones, and where the page starts.
#[derive(Clone, Debug, Default)]
pub struct PuzzleQuery {
    /// Which puzzles.
    pub filter: PuzzleFilter,
    /// The page, from 1 (0: the first).
    pub page: u64,
    /// Go on after this puzzle instead (the page must then be 0 or 1).
    pub cursor: Option<PuzzleCursor>,
    /// Puzzles per page (0: [`PUZZLES_PAGE_SIZE`], at most [`MAX_PUZZLES_PAGE`]).
    pub page_size: u64,
}

/// A place in the listing order of puzzles (mate length, difficulty, canonical key): a page
/// goes on after the puzzle it names, whatever was stored since. Its text form
/// `MATE-DIFFICULTY-KEY` (difficulty as the hex bits of the f64, key in hex) is opaque to
/// callers but stable.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PuzzleCursor {
    mate_in: u32,
    difficulty: f64,
    /// The puzzle's canonical position key, under which it is stored.
    pub(super) key: u64,
}

impl PuzzleCursor {
    /// The place of `puzzle`.
    pub(super) fn of(puzzle: &Puzzle) -> PuzzleCursor {
        PuzzleCursor {
            mate_in: puzzle.mate_in,
            difficulty: puzzle.difficulty,
            key: puzzle.position.canonical_key().bits(),
        }
    }

    /// Listing order: mate length, then difficulty, then key.
    pub(super) fn order(&self, other: &PuzzleCursor) -> std::cmp::Ordering {
        self.mate_in
            .cmp(&other.mate_in)
            .then(self.difficulty.total_cmp(&other.difficulty))
            .then(self.key.cmp(&other.key))
    }
}

impl std::fmt::Display for PuzzleCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}-{:x}-{:x}",
            self.mate_in,
            self.difficulty.to_bits(),
            self.key
        )
    }
}

/// Why a cursor's text does not read.
#[derive(Debug, Error)]
#[error("expected the next_cursor of an earlier page")]
pub struct BadCursor;

impl std::str::FromStr for PuzzleCursor {
    type Err = BadCursor;

    fn from_str(text: &str) -> Result<Self, BadCursor> {
        let mut parts = text.splitn(3, '-');
        let mut next = || parts.next().ok_or(BadCursor);
        let mate_in = next()?.parse().map_err(|_| BadCursor)?;
        let difficulty = u64::from_str_radix(next()?, 16).map_err(|_| BadCursor)?;
        let key = u64::from_str_radix(next()?, 16).map_err(|_| BadCursor)?;
        Ok(PuzzleCursor {
            mate_in,
            difficulty: f64::from_bits(difficulty),
            key,
        })
    }
}

/// Stored puzzles and candidate counts by verdict.
#[derive(Clone, Debug, Default)]
pub struct PuzzleListing {
    /// One page of the puzzles in their stable JSON form, by mate length, then difficulty.
    pub puzzles_json: Vec<String>,
    /// Puzzles matching the filters, on all pages.
    pub total: u64,
    /// Candidates checked so far.
    pub candidates: u64,
    /// Of those, puzzles.
    pub found: u64,
    /// Without a mate.
    pub no_mate: u64,
    /// With another winning first move.
    pub not_unique: u64,
    /// Not settled (or already over).
    pub undecided: u64,
    /// Queued but not yet checked.
    pub pending: u64,
    /// Found by one worker, waiting for a second party to confirm (not listed).
    pub unconfirmed: u64,
    /// Its parties disagree, waiting for a third (not listed).
    pub disputed: u64,
    /// Where the next page starts, when puzzles follow this one.
    pub next_cursor: Option<PuzzleCursor>,
}

impl PuzzleMiner {
    /// One page of the stored puzzles matching the filters, by length then difficulty, with
    /// their total and candidate counts: from the cursor, else by page number, at most the
    /// page size and [`MAX_PUZZLES_PAGE_BYTES`] (at least one puzzle). A bad page is refused.
    pub fn list(&self, request: &PuzzleQuery) -> Result<PuzzleListing, PuzzleError> {
        self.list_within(request, MAX_PUZZLES_PAGE_BYTES)
    }

    fn list_within(
        &self,
        request: &PuzzleQuery,
        max_bytes: usize,
    ) -> Result<PuzzleListing, PuzzleError> {
        let size = page_size(
            "page_size",
            request.page_size,
            PUZZLES_PAGE_SIZE,
            MAX_PUZZLES_PAGE,
        )?;
        let page = request.page.max(1);
        if request.cursor.is_some() && page > 1 {
            return Err(PuzzleError::Invalid(
                "a cursor and a page number above 1 do not go together".into(),
            ));
        }
        let index = self.index.current(&self.store)?;
        let puzzles: Vec<PuzzleCursor> = index
            .puzzles
            .iter()
            .filter(|listed| {
                // Themes are worked out from the proof, so puzzles stored before themes have
                // them too.
                let PuzzleCursor {
                    mate_in,
                    difficulty,
                    ..
                } = listed.cursor;
                request.filter.admits(mate_in, difficulty, &listed.themes)
            })
            .map(|listed| listed.cursor)
            .collect();
        let total = puzzles.len() as u64;
        let skip = match &request.cursor {
            Some(cursor) => puzzles.partition_point(|at| at.order(cursor).is_le()),
            None => {
                check_start("page", page, total.div_ceil(size).max(1))?;
                ((page - 1) * size) as usize
            }
        };
        let mut page_json = Vec::new();
        let mut bytes = 0;
        for at in puzzles.iter().skip(skip).take(size as usize) {
            let json = self.store.puzzle(at.key)?.ok_or_else(|| {
                corrupt(
                    "puzzle",
                    format!("listed puzzle {:#x} is not stored", at.key),
                )
            })?;
            if !page_json.is_empty() && bytes + json.len() > max_bytes {
                break;
            }
            bytes += json.len();
            page_json.push(json);
        }
        let shown = skip + page_json.len();
        let next_cursor = (shown < puzzles.len() && shown > 0).then(|| puzzles[shown - 1]);
        let puzzles = page_json;
        let counts = self.store.candidate_counts();
        let count = |state: CandidateState| counts[state as usize];
        Ok(PuzzleListing {
            puzzles_json: puzzles,
            total,
            candidates: counts.iter().sum::<u64>()
                - count(CandidateState::Pending)
                - count(CandidateState::Unconfirmed)
                - count(CandidateState::Disputed),
            found: count(CandidateState::Puzzle),
            no_mate: count(CandidateState::NoMate),
            not_unique: count(CandidateState::NotUnique),
            undecided: count(CandidateState::Undecided) + count(CandidateState::GameOver),
            pending: count(CandidateState::Pending),
            unconfirmed: count(CandidateState::Unconfirmed),
            disputed: count(CandidateState::Disputed),
            next_cursor,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use pentago::Position;

    use super::*;
    use crate::jobs::JobQueue;
    use crate::offload::BackgroundPriority;
    use crate::puzzles::read_puzzle;
    use pentagrid_store::Store;

    /// A result storing puzzle records of `positions` (their mates in 1, with made-up
    /// difficulties from `positions.len()` down to 1: the listing reads records, it does not
    /// judge them).
    fn puzzles_effect(positions: &[&str]) -> pentagrid_store::ResultEffect {
        let mut effect = pentagrid_store::ResultEffect::default();
        for (index, text) in positions.iter().enumerate() {
            let position: Position = text.parse().unwrap();
            let proof = pentago::MateSearch::new().find(&position, 1).unwrap();
            let puzzle = Puzzle {
                difficulty: (positions.len() - index) as f64,
                ..Puzzle::from_proof(proof)
            };
            let json = serde_json::to_string(&puzzle).unwrap();
            let key = position.canonical_key().bits();
            effect
                .verdicts
                .push((key, CandidateState::Puzzle, Some(json)));
        }
        effect
    }

    /// A miner over a store holding the puzzle records of [`puzzles_effect`].
    fn miner_with_puzzles(positions: &[&str]) -> (tempfile::TempDir, PuzzleMiner) {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&dir.path().join("db")).unwrap());
        let done = pentagrid_store::job::Job::in_state(pentagrid_store::job::JobState::Done);
        store
            .apply(1, &done, "r1", &puzzles_effect(positions))
            .unwrap();
        let clock = Arc::new(crate::clock::ManualClock::default());
        let jobs = Arc::new(
            JobQueue::open_alone(store.clone(), crate::jobs::JobSettings::default(), clock)
                .unwrap(),
        );
        (
            dir,
            PuzzleMiner::new(store, jobs, BackgroundPriority::Normal),
        )
    }

    #[tokio::test]
    async fn listings_share_one_index_until_a_puzzle_is_stored() {
        let (_dir, miner) = miner_with_puzzles(&[
            "oooo../....../....../....../.....x/xxx...",
            "ooo.o./....../....../....../.....x/xxx...",
        ]);
        let filter = PuzzleQuery::default();
        assert_eq!(miner.list(&filter).unwrap().total, 2);
        let first = miner.index.current(&miner.store).unwrap();
        assert!(Arc::ptr_eq(
            &first,
            &miner.index.current(&miner.store).unwrap()
        ));
        // A verdict without a puzzle leaves the index as it is.
        let mut no_puzzle = pentagrid_store::ResultEffect::default();
        no_puzzle.verdicts.push((1, CandidateState::NoMate, None));
        let done = pentagrid_store::job::Job::in_state(pentagrid_store::job::JobState::Done);
        miner.store.apply(2, &done, "r2", &no_puzzle).unwrap();
        assert!(Arc::ptr_eq(
            &first,
            &miner.index.current(&miner.store).unwrap()
        ));
        // A stored puzzle is listed at once.
        let added = puzzles_effect(&["oo.oo./....../....../....../.....x/xxx..."]);
        miner.store.apply(3, &done, "r3", &added).unwrap();
        let listing = miner.list(&filter).unwrap();
        assert_eq!(listing.total, 3);
        assert!(
            listing
                .puzzles_json
                .iter()
                .any(|json| json.contains("oo.oo."))
        );
        assert!(!Arc::ptr_eq(
            &first,
            &miner.index.current(&miner.store).unwrap()
        ));
    }

    #[tokio::test]
    async fn pages_end_at_their_byte_budget_and_a_cursor_goes_on_from_there() {
        // Black's only win is f1-4R in each: a twist makes the five.
        let (_dir, miner) = miner_with_puzzles(&[
            "oooo../....../....../....../.....x/xxx...",
            "ooo.o./....../....../....../.....x/xxx...",
            "oo.oo./....../....../....../.....x/xxx...",
        ]);
        let filter = PuzzleQuery {
            page_size: MAX_PUZZLES_PAGE,
            ..PuzzleQuery::default()
        };
        let whole = miner.list(&filter).unwrap();
        assert_eq!((whole.puzzles_json.len(), whole.total), (3, 3));
        // By difficulty: the last stored is the easiest.
        assert!(whole.puzzles_json[0].contains("oo.oo."));
        assert_eq!(whole.next_cursor, None);
        // A budget below one puzzle: one a page, in the same order, the last without a cursor.
        let mut read = Vec::new();
        let mut cursor = None;
        loop {
            let page = miner
                .list_within(
                    &PuzzleQuery {
                        cursor,
                        ..filter.clone()
                    },
                    1,
                )
                .unwrap();
            assert_eq!(page.puzzles_json.len(), 1);
            read.extend(page.puzzles_json);
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
            // The cursor survives its text form.
            let text = cursor.unwrap().to_string();
            assert_eq!(text.parse::<PuzzleCursor>().ok(), cursor);
        }
        assert_eq!(read, whole.puzzles_json);
        // A cursor with a page number, or a cursor that does not read, is refused.
        let with_page = PuzzleQuery {
            page: 2,
            cursor: Some(PuzzleCursor::of(&read_puzzle(&read[0]).unwrap())),
            ..filter.clone()
        };
        assert!(matches!(
            miner.list(&with_page),
            Err(PuzzleError::Invalid(_))
        ));
        for bad in ["", "3", "3-zz-1", "x-1-1", "3-1"] {
            assert!(bad.parse::<PuzzleCursor>().is_err(), "{bad:?}");
        }
    }
}
