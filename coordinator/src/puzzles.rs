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

use std::collections::HashSet;
use std::sync::Arc;

use pentago::{
    CandidateFinder, MAX_PUZZLE_MOVES, Player, Position, PositionKey, Prospect, Puzzle, Theme,
    difficulty_label, play_game, splitmix64,
};
use pentagrid_proto::Task;
use thiserror::Error;

use crate::jobs::JobQueue;
use crate::offload::{BackgroundPriority, background, blocking};
use crate::paging::{PageError, check_start, page_size};
use crate::store::{CandidateState, Store, StoreError, corrupt};
use index::{IndexCache, Listed};

/// Candidates per verify job: small enough that a job finishes in seconds.
const CANDIDATES_PER_JOB: usize = 8;
/// Most candidates one request may queue.
pub const MAX_PUZZLE_CANDIDATES: u64 = 100_000;
/// Puzzles per listed page unless asked otherwise.
pub const PUZZLES_PAGE_SIZE: u64 = 20;
/// Most puzzles per listed page.
pub const MAX_PUZZLES_PAGE: u64 = 100;
/// A listed page ends before its puzzles pass this many bytes (a page holds one puzzle at
/// least): a mate in 5's proof can take 200 KB, and a page of such mates stays far below the
/// 1 MiB message cap.
pub const MAX_PUZZLES_PAGE_BYTES: usize = 256 * 1024;
/// Games (stored or random) one blocking step of mining looks at.
const GAMES_PER_STEP: usize = 1_000;
/// Random games tried per wanted candidate before giving up.
const RANDOM_GAMES_PER_CANDIDATE: u64 = 4;
/// Checkmate nodes the probe may search for one position.
pub const PROBE_NODES: u64 = 20_000;
/// At most one candidate in this many is an instructive mate in 1.
pub const CANDIDATES_PER_MATE_IN_ONE: usize = 20;
/// Book positions one request looks at, at most.
const BOOK_ENTRIES_PER_REQUEST: u64 = 20_000;

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

/// Which stored puzzles to list; zero means no bound.
#[derive(Clone, Debug, Default)]
pub struct PuzzleFilter {
    /// Shortest mate.
    pub min_moves: u32,
    /// Longest mate.
    pub max_moves: u32,
    /// Least difficulty.
    pub min_difficulty: f64,
    /// Most difficulty.
    pub max_difficulty: f64,
    /// Only puzzles with this theme.
    pub theme: Option<Theme>,
    /// Only puzzles of this difficulty level (as [`difficulty_label`] names it).
    pub level: Option<String>,
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
    key: u64,
}

impl PuzzleCursor {
    fn of(puzzle: &Puzzle) -> PuzzleCursor {
        PuzzleCursor {
            mate_in: puzzle.mate_in,
            difficulty: puzzle.difficulty,
            key: puzzle.position.canonical_key().bits(),
        }
    }

    fn order(&self, other: &PuzzleCursor) -> std::cmp::Ordering {
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
    /// The last request's candidate finder, kept for the next: it remembers its probes, and
    /// rounds of a puzzle generation mine the same games and book again.
    finder: std::sync::Mutex<Option<CandidateFinder>>,
    /// The stored puzzles in listing order, kept between listings.
    index: IndexCache,
}

/// Collects fresh candidates: ongoing, with enough stones, worth verifying by the probe, never
/// queued before, once each. Moves between blocking steps, each bounded to [`GAMES_PER_STEP`]
/// games or book positions.
struct Miner {
    min_stones: u32,
    wanted: usize,
    /// Instructive mates in 1 still admitted.
    mates_in_one_left: usize,
    /// Mates found shorter than this are not offered.
    min_moves: u32,
    finder: CandidateFinder,
    seen: HashSet<u64>,
    found: Vec<(Position, String)>,
}

impl Miner {
    /// A miner for `request`, with `kept`'s remembered probes when it probes the same way.
    fn new(request: &MineRequest, kept: Option<CandidateFinder>) -> Miner {
        let wanted = request.candidates as usize;
        let finder = kept
            .filter(|finder| finder.probes(request.max_moves, PROBE_NODES))
            .unwrap_or_else(|| CandidateFinder::new(request.max_moves, PROBE_NODES));
        Miner {
            min_stones: request.min_stones,
            wanted,
            // Asked for mates in 1 only, they are all there is to find.
            mates_in_one_left: match (request.min_moves, request.max_moves) {
                (2.., _) => 0,
                (_, 1) => wanted,
                _ => wanted.div_ceil(CANDIDATES_PER_MATE_IN_ONE),
            },
            min_moves: request.min_moves,
            finder,
            seen: HashSet::new(),
            found: Vec::new(),
        }
    }

    fn full(&self) -> bool {
        self.found.len() >= self.wanted
    }

    /// Takes `position` if it is fresh (and, for an instructive mate in 1, within their share).
    fn offer(
        &mut self,
        store: &Store,
        position: Position,
        prospect: Prospect,
        source: String,
    ) -> Result<(), StoreError> {
        let mate_in_one = prospect == Prospect::InstructiveMateInOne;
        let too_short = matches!(prospect, Prospect::Mate(n) if n < self.min_moves);
        if self.full()
            || !prospect.worth_verifying()
            || too_short
            || (mate_in_one && self.mates_in_one_left == 0)
        {
            return Ok(());
        }
        let key = position.canonical_key().bits();
        if self.seen.insert(key) && !store.candidate_known(key)? {
            self.found.push((position, source));
            if mate_in_one {
                self.mates_in_one_left -= 1;
            }
        }
        Ok(())
    }

    /// Offers a game's decided zone and the quiet continuations before it.
    fn offer_game(
        &mut self,
        store: &Store,
        start: Position,
        moves: &[pentago::Move],
        source: &str,
    ) -> Result<(), StoreError> {
        for found in self.finder.from_game(&start, moves, self.min_stones) {
            let source = match found.instead {
                None => format!("{source} ply {}", found.ply),
                Some(mv) => format!("{source} ply {} instead {mv}", found.ply),
            };
            self.offer(store, found.position, found.prospect, source)?;
        }
        Ok(())
    }

    /// Whether a step that began with `found_before` candidates found should end: the miner
    /// is full, or a verify job's worth of new candidates is ready to go out.
    fn step_done(&self, found_before: usize) -> bool {
        self.full() || self.found.len() >= found_before + CANDIDATES_PER_JOB
    }

    /// Offers stored games from job id `from` on, up to [`GAMES_PER_STEP`] of them or until
    /// the step is done; returns where the next step starts, `None` when the games ran out.
    fn stored_games(&mut self, store: &Store, from: u64) -> Result<Option<u64>, StoreError> {
        let games = store.games_from(from, GAMES_PER_STEP)?;
        self.scan(games, |miner, job_id, game| {
            let (Ok(start), Ok(moves)) = (
                game.start.parse::<Position>(),
                game.moves
                    .iter()
                    .map(|m| m.parse())
                    .collect::<Result<Vec<_>, _>>(),
            ) else {
                return Ok(());
            };
            miner.offer_game(store, start, &moves, &format!("game {job_id}"))
        })
    }

    /// Offers the late positions among book entries from key `from` on, and their quiet
    /// continuations, up to [`GAMES_PER_STEP`] entries or until the step is done; returns
    /// where the next step starts, `None` when the book ran out.
    fn book_positions(&mut self, store: &Store, from: u64) -> Result<Option<u64>, StoreError> {
        let keys = store.book_keys(from, GAMES_PER_STEP)?;
        self.scan(
            keys.into_iter().map(|key| (key, ())).collect(),
            |miner, key, ()| {
                let Ok(position) = Position::from_key(PositionKey(key)) else {
                    return Ok(());
                };
                if position.is_over() || position.stone_count() < miner.min_stones {
                    return Ok(());
                }
                let prospect = miner.finder.prospect(&position);
                miner.offer(store, position, prospect, format!("book {position}"))?;
                for (mv, after, prospect) in miner.finder.quiet_continuations(&position) {
                    let source = format!("book {position} instead {mv}");
                    miner.offer(store, after, prospect, source)?;
                }
                Ok(())
            },
        )
    }

    /// Offers `items` (one stored read of [`GAMES_PER_STEP`] at most, by id) in order, until
    /// the miner is full or the step is done; returns the id where the next step starts,
    /// `None` when there is nothing more to read (the read came up short, or the miner is full).
    fn scan<T>(
        &mut self,
        items: Vec<(u64, T)>,
        mut offer: impl FnMut(&mut Self, u64, T) -> Result<(), StoreError>,
    ) -> Result<Option<u64>, StoreError> {
        let (found_before, read_all) = (self.found.len(), items.len() == GAMES_PER_STEP);
        let mut next = None;
        for (id, item) in items {
            if self.full() {
                return Ok(None);
            }
            next = id.checked_add(1);
            offer(self, id, item)?;
            if self.step_done(found_before) {
                return Ok(next.filter(|_| !self.full()));
            }
        }
        Ok(next.filter(|_| read_all))
    }

    /// Plays and offers the seeded random games `indices`, until the step is done; returns
    /// the index where the next step starts.
    fn random_games(
        &mut self,
        store: &Store,
        seed: u64,
        indices: std::ops::Range<u64>,
    ) -> Result<u64, StoreError> {
        let found_before = self.found.len();
        for index in indices.clone() {
            if self.step_done(found_before) {
                return Ok(index);
            }
            let seed = splitmix64(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
            let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
            self.offer_game(store, game.start, &game.moves, &format!("random {seed}"))?;
        }
        Ok(indices.end)
    }
}

/// Runs one bounded mining step as background work, handing the miner there and back.
async fn mine_step<T: Send + 'static>(
    store: &Arc<Store>,
    priority: BackgroundPriority,
    miner: Miner,
    step: impl FnOnce(&mut Miner, &Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<(Miner, T), StoreError> {
    let store = store.clone();
    background(priority, move || {
        let mut miner = miner;
        let answer = step(&mut miner, &store)?;
        Ok((miner, answer))
    })
    .await
}

/// The verify jobs of one mining request, queued as its candidates are found.
struct VerifyQueue {
    max_moves: u32,
    /// Candidates (from the front of the miner's list) already in jobs.
    queued: usize,
    job_ids: Vec<u64>,
}

impl VerifyQueue {
    fn new(max_moves: u32) -> VerifyQueue {
        VerifyQueue {
            max_moves,
            queued: 0,
            job_ids: Vec::new(),
        }
    }

    /// Queues the whole jobs' worth of `found` not queued yet.
    async fn full_jobs(
        &mut self,
        miner: &PuzzleMiner,
        found: &[(Position, String)],
    ) -> Result<(), PuzzleError> {
        let whole = (found.len() - self.queued) / CANDIDATES_PER_JOB * CANDIDATES_PER_JOB;
        self.take(miner, &found[self.queued..self.queued + whole])
            .await
    }

    /// Queues everything in `found` not queued yet.
    async fn rest(
        &mut self,
        miner: &PuzzleMiner,
        found: &[(Position, String)],
    ) -> Result<(), PuzzleError> {
        self.take(miner, &found[self.queued..]).await
    }

    async fn take(
        &mut self,
        miner: &PuzzleMiner,
        candidates: &[(Position, String)],
    ) -> Result<(), PuzzleError> {
        if candidates.is_empty() {
            return Ok(());
        }
        let ids = miner.queue_verify(candidates, self.max_moves).await?;
        self.job_ids.extend(ids);
        self.queued += candidates.len();
        Ok(())
    }
}

impl PuzzleMiner {
    pub(crate) fn new(store: Arc<Store>, jobs: Arc<JobQueue>) -> PuzzleMiner {
        PuzzleMiner {
            store,
            jobs,
            finder: std::sync::Mutex::new(None),
            index: IndexCache::default(),
        }
    }

    /// Mines candidates and queues verify jobs for them; answers once they are durable.
    pub async fn generate(&self, request: &MineRequest) -> Result<Mined, PuzzleError> {
        if !(1..=MAX_PUZZLE_MOVES).contains(&request.max_moves) {
            return Err(PuzzleError::Invalid(format!(
                "max_moves must be from 1 to {MAX_PUZZLE_MOVES}"
            )));
        }
        if !(1..=MAX_PUZZLE_CANDIDATES).contains(&request.candidates) {
            return Err(PuzzleError::Invalid(format!(
                "candidates must be from 1 to {MAX_PUZZLE_CANDIDATES}"
            )));
        }
        if request.min_moves > request.max_moves {
            return Err(PuzzleError::Invalid(format!(
                "min_moves {} is above max_moves {}",
                request.min_moves, request.max_moves
            )));
        }
        if request.min_stones > 35 {
            return Err(PuzzleError::Invalid("min_stones must be at most 35".into()));
        }
        // A request running beside this one mines with a fresh finder: a cache, not a lock.
        let kept = self.finder.lock().ok().and_then(|mut slot| slot.take());
        let mut miner = Miner::new(request, kept);
        let mut queue = VerifyQueue::new(request.max_moves);
        let priority = self.jobs.background_priority();
        // Stored games, the book, then random games, a bounded step at a time on the blocking
        // pool: the scan, the probes and the play grow with the database and the request, the
        // runtime must not. Each full job of candidates is queued as soon as it is found, so
        // workers verify while mining goes on.
        let mut from = Some(0);
        while let Some(start) = from.filter(|_| !miner.full()) {
            (miner, from) = mine_step(&self.store, priority, miner, move |m, s| {
                m.stored_games(s, start)
            })
            .await?;
            queue.full_jobs(self, &miner.found).await?;
        }
        let (mut from, mut looked) = (Some(0), 0);
        while let Some(start) = from.filter(|_| !miner.full() && looked < BOOK_ENTRIES_PER_REQUEST)
        {
            (miner, from) = mine_step(&self.store, priority, miner, move |m, s| {
                m.book_positions(s, start)
            })
            .await?;
            queue.full_jobs(self, &miner.found).await?;
            looked += GAMES_PER_STEP as u64;
        }
        if request.random_games {
            let tries = request
                .candidates
                .saturating_mul(RANDOM_GAMES_PER_CANDIDATE);
            let mut next = 0;
            while next < tries && !miner.full() {
                let (seed, end) = (request.seed, tries.min(next + GAMES_PER_STEP as u64));
                (miner, next) = mine_step(&self.store, priority, miner, move |m, s| {
                    m.random_games(s, seed, next..end)
                })
                .await?;
                queue.full_jobs(self, &miner.found).await?;
            }
        }
        if let Ok(mut slot) = self.finder.lock() {
            *slot = Some(miner.finder);
        }
        queue.rest(self, &miner.found).await?;
        tracing::info!(
            candidates = queue.queued,
            jobs = queue.job_ids.len(),
            "puzzle candidates queued"
        );
        Ok(Mined {
            queued: queue.queued as u64,
            job_ids: queue.job_ids,
        })
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

    /// One page of the stored puzzles matching the filters, by length then difficulty, with
    /// their total and candidate counts: from the cursor, else by page number, at most the
    /// page size and [`MAX_PUZZLES_PAGE_BYTES`] (at least one puzzle). A bad page is refused.
    pub fn list(&self, request: &PuzzleFilter) -> Result<PuzzleListing, PuzzleError> {
        self.list_within(request, MAX_PUZZLES_PAGE_BYTES)
    }

    fn list_within(
        &self,
        request: &PuzzleFilter,
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
            .filter(|listed| request.admits(listed))
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

impl PuzzleFilter {
    /// Whether `listed` passes the filters.
    fn admits(&self, listed: &Listed) -> bool {
        let PuzzleCursor {
            mate_in,
            difficulty,
            ..
        } = listed.cursor;
        let moves_ok = (self.min_moves == 0 || mate_in >= self.min_moves)
            && (self.max_moves == 0 || mate_in <= self.max_moves);
        let difficulty_ok = (self.min_difficulty <= 0.0 || difficulty >= self.min_difficulty)
            && (self.max_difficulty <= 0.0 || difficulty <= self.max_difficulty);
        // Themes are worked out from the proof, so puzzles stored before themes have them too.
        let theme_ok = self
            .theme
            .is_none_or(|theme| listed.themes.contains(&theme));
        let level_ok = self
            .level
            .as_deref()
            .is_none_or(|level| difficulty_label(difficulty) == level);
        moves_ok && difficulty_ok && theme_ok && level_ok
    }
}

fn read_puzzle(json: &str) -> Result<Puzzle, StoreError> {
    serde_json::from_str(json).map_err(|e| StoreError::Corrupt {
        what: "puzzle",
        why: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Black mates in 2 (main line e1-1R e6-4L b2-1R).
    const MATE_IN_TWO: &str = "oo.x.o/xo.ox./x..o.x/...xxo/..x.xo/o..o.x";

    fn request(candidates: u64, min_moves: u32, max_moves: u32) -> MineRequest {
        MineRequest {
            candidates,
            max_moves,
            min_moves,
            min_stones: 0,
            random_games: false,
            seed: 1,
        }
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        (dir, store)
    }

    fn offer(miner: &mut Miner, store: &Store, text: &str) {
        let position: Position = text.parse().unwrap();
        let prospect = miner.finder.prospect(&position);
        miner
            .offer(store, position, prospect, text.to_owned())
            .unwrap();
    }

    #[test]
    fn a_games_forced_win_is_offered_from_where_it_began() {
        let (_dir, store) = store();
        let mut miner = Miner::new(&request(10, 0, 5), None);
        let start: Position = MATE_IN_TWO.parse().unwrap();
        let line: Vec<pentago::Move> = ["e1-1R", "e6-4L", "b2-1R"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        miner.offer_game(&store, start, &line, "game 7").unwrap();
        assert_eq!(miner.found, vec![(start, "game 7 ply 0".to_owned())]);
        // Asked for mates of 3 or more, the mate in 2 is not offered.
        let mut longer = Miner::new(&request(10, 3, 5), None);
        longer.offer_game(&store, start, &line, "game 7").unwrap();
        assert!(longer.found.is_empty());
    }

    #[test]
    fn a_mining_step_ends_once_a_verify_job_of_candidates_is_ready() {
        let (_dir, store) = store();
        let mut miner = Miner::new(&request(40, 2, 5), None);
        // Random games until a job's worth is found: the step says where to go on.
        let next = miner.random_games(&store, 7, 0..1_000).unwrap();
        assert!(next < 1_000, "the step went through every game");
        assert!(miner.found.len() >= CANDIDATES_PER_JOB);
        // The next step goes on from there and finds fresh candidates only.
        let before = miner.found.len();
        let further = miner.random_games(&store, 7, next..1_000).unwrap();
        assert!(further > next);
        assert!(miner.found.len() >= before + CANDIDATES_PER_JOB);
        let keys: HashSet<u64> = miner
            .found
            .iter()
            .map(|(p, _)| p.canonical_key().bits())
            .collect();
        assert_eq!(keys.len(), miner.found.len());
    }

    /// A result storing puzzle records of `positions` (their mates in 1, with made-up
    /// difficulties from `positions.len()` down to 1: the listing reads records, it does not
    /// judge them).
    fn puzzles_effect(positions: &[&str]) -> crate::store::ResultEffect {
        let mut effect = crate::store::ResultEffect::default();
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
        let done = crate::store::StoredJob::default();
        store
            .apply(1, &done, "r1", &puzzles_effect(positions))
            .unwrap();
        let clock = Arc::new(crate::clock::ManualClock::default());
        let jobs = Arc::new(
            JobQueue::open(store.clone(), crate::jobs::Settings::default(), clock).unwrap(),
        );
        (dir, PuzzleMiner::new(store, jobs))
    }

    #[tokio::test]
    async fn listings_share_one_index_until_a_puzzle_is_stored() {
        let (_dir, miner) = miner_with_puzzles(&[
            "oooo../....../....../....../.....x/xxx...",
            "ooo.o./....../....../....../.....x/xxx...",
        ]);
        let filter = PuzzleFilter::default();
        assert_eq!(miner.list(&filter).unwrap().total, 2);
        let first = miner.index.current(&miner.store).unwrap();
        assert!(Arc::ptr_eq(
            &first,
            &miner.index.current(&miner.store).unwrap()
        ));
        // A verdict without a puzzle leaves the index as it is.
        let mut no_puzzle = crate::store::ResultEffect::default();
        no_puzzle.verdicts.push((1, CandidateState::NoMate, None));
        let done = crate::store::StoredJob::default();
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
        let filter = PuzzleFilter {
            page_size: MAX_PUZZLES_PAGE,
            ..PuzzleFilter::default()
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
                    &PuzzleFilter {
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
        let with_page = PuzzleFilter {
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

    #[test]
    fn mates_in_one_are_instructive_and_a_small_share() {
        let (_dir, store) = store();
        // 40 candidates wanted: at most 2 mates in 1.
        let mut miner = Miner::new(&request(40, 0, 5), None);
        // A placement five is never offered.
        offer(
            &mut miner,
            &store,
            "....../....../....../....../oooo../xxxx..",
        );
        assert!(miner.found.is_empty());
        // Black's only win is f1-4R in each: a twist makes the five.
        for text in [
            "oooo../....../....../....../.....x/xxx...",
            "ooo.o./....../....../....../.....x/xxx...",
            "oo.oo./....../....../....../.....x/xxx...",
        ] {
            offer(&mut miner, &store, text);
        }
        assert_eq!(miner.found.len(), 2);
        // Mates in 1 only, when that is what is asked for.
        let mut only = Miner::new(&request(40, 0, 1), None);
        offer(
            &mut only,
            &store,
            "oooo../....../....../....../.....x/xxx...",
        );
        offer(
            &mut only,
            &store,
            "ooo.o./....../....../....../.....x/xxx...",
        );
        assert_eq!(only.found.len(), 2);
        // None when mates of 2 or more are asked for; the mate in 2 is taken.
        let mut longer = Miner::new(&request(40, 2, 5), None);
        offer(
            &mut longer,
            &store,
            "oooo../....../....../....../.....x/xxx...",
        );
        offer(&mut longer, &store, MATE_IN_TWO);
        assert_eq!(longer.found.len(), 1);
        assert_eq!(longer.found[0].1, MATE_IN_TWO);
    }
}
