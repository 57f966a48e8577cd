//! Puzzle generation on the cluster: candidates mined from stored self-play games, the book's
//! late positions and (when asked) seeded random games go out in verify jobs; verdicts and
//! puzzles come back through the usual result path and are stored once per canonical position.
//!
//! Mining aims at mates of 2–5 moves (see [`pentago::CandidateFinder`]): from each game the
//! decided zone (where the winner's forced mate began, walking back from the end) and the quiet
//! continuations just before it; from the book, its late positions and their quiet
//! continuations. A bounded checkmate probe (at most [`PROBE_NODES`] nodes a position) drops
//! positions without a mate and plain mates in 1 before any worker sees them; instructive mates
//! in 1 are at most one candidate in [`CANDIDATES_PER_MATE_IN_ONE`].

mod index;
mod listing;
mod mining;

use std::sync::Arc;

use pentago::{CandidateFinder, Position, PositionKey, Puzzle};
use pentagrid_model::Task;
use thiserror::Error;

use crate::jobs::JobQueue;
use crate::offload::{BackgroundPriority, blocking};
use crate::paging::PageError;
use index::IndexCache;
use pentagrid_store::{Store, StoreError};

pub use listing::{
    BadCursor, MAX_PUZZLES_PAGE, MAX_PUZZLES_PAGE_BYTES, PUZZLES_PAGE_SIZE, PuzzleCursor,
    PuzzleListing, PuzzleQuery,
};

/// Candidates per verify job: small enough that a job finishes in seconds.
const CANDIDATES_PER_JOB: usize = 8;
/// Most candidates one request may queue.
pub const MAX_PUZZLE_CANDIDATES: u64 = 100_000;
/// Checkmate nodes the probe may search for one position.
pub const PROBE_NODES: u64 = 20_000;
/// At most one candidate in this many is an instructive mate in 1.
pub const CANDIDATES_PER_MATE_IN_ONE: usize = 20;

/// What to mine.
#[derive(Clone, Debug)]
pub struct MineRequest {
    /// Most candidate positions to queue, 1 to [`MAX_PUZZLE_CANDIDATES`].
    pub candidates: u64,
    /// Longest mate, 1 to 7.
    pub max_moves: u32,
    /// Shortest mate wanted, at most `max_moves` (0 or 1: any, with instructive mates in 1 at
    /// most one candidate in [`CANDIDATES_PER_MATE_IN_ONE`] unless `max_moves` is 1).
    pub min_moves: u32,
    /// Candidates need at least this many stones (at most 35).
    pub min_stones: u32,
    /// Also mine seeded random games when stored games run out.
    pub random_games: bool,
    /// Seed of the random games.
    pub seed: u64,
}

/// Candidates queued by one request.
#[derive(Clone, Debug, Default)]
pub struct Mined {
    /// Candidates queued.
    pub queued: u64,
    /// The verify jobs holding them.
    pub job_ids: Vec<u64>,
}

/// Why a puzzle call was refused.
#[derive(Debug, Error)]
pub enum PuzzleError {
    /// A parameter is out of range.
    #[error("{0}")]
    Invalid(String),
    /// A bad page.
    #[error(transparent)]
    Page(#[from] PageError),
    /// The store failed (or holds a puzzle that does not read back).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The puzzle miner service.
pub struct PuzzleMiner {
    store: Arc<Store>,
    jobs: Arc<JobQueue>,
    /// Where mining runs.
    background: BackgroundPriority,
    /// The last request's candidate finder, kept for the next: it remembers its probes, and
    /// rounds of a puzzle generation mine the same games and book again.
    finder: std::sync::Mutex<Option<CandidateFinder>>,
    /// The stored puzzles in listing order, kept between listings.
    index: IndexCache,
}

impl PuzzleMiner {
    pub(crate) fn new(
        store: Arc<Store>,
        jobs: Arc<JobQueue>,
        background: BackgroundPriority,
    ) -> PuzzleMiner {
        PuzzleMiner {
            store,
            jobs,
            background,
            finder: std::sync::Mutex::new(None),
            index: IndexCache::default(),
        }
    }

    /// Marks `candidates` pending and queues verify jobs for them, [`CANDIDATES_PER_JOB`] a
    /// job; answers once they are durable.
    async fn queue_verify(
        &self,
        candidates: &[(Position, String)],
        max_moves: u32,
    ) -> Result<Vec<u64>, PuzzleError> {
        let keys: Vec<u64> = candidates
            .iter()
            .map(|(p, _)| p.canonical_key().bits())
            .collect();
        let store = self.store.clone();
        blocking(move || store.mark_candidates_pending(&keys)).await?;
        let tasks: Vec<Task> = candidates
            .chunks(CANDIDATES_PER_JOB)
            .map(|chunk| Task::Verify {
                candidates: chunk.to_vec(),
                max_moves,
            })
            .collect();
        Ok(self.jobs.queue(tasks).await?)
    }
}

impl PuzzleMiner {
    /// The stored puzzle whose position has `key` (in any frame); `None` when there is none.
    pub fn get(&self, key: u64) -> Result<Option<String>, PuzzleError> {
        let position = Position::from_key(PositionKey(key))
            .map_err(|e| PuzzleError::Invalid(format!("bad puzzle key {key:#x}: {e}")))?;
        let Some(json) = self.store.puzzle(position.canonical_key().bits())? else {
            return Ok(None);
        };
        // A symmetric image of a stored puzzle is not that puzzle.
        Ok((read_puzzle(&json)?.position == position).then_some(json))
    }
}

fn read_puzzle(json: &str) -> Result<Puzzle, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::Corrupt {
        what: "puzzle",
        why: e.to_string(),
    })
}
