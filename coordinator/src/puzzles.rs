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
use crate::store::{CandidateState, Store, StoreError};

/// Candidates per verify job: small enough that a job finishes in seconds.
const CANDIDATES_PER_JOB: usize = 8;
/// Most candidates one request may queue.
pub const MAX_PUZZLE_CANDIDATES: u64 = 100_000;
/// Puzzles per listed page unless asked otherwise.
pub const PUZZLES_PAGE_SIZE: u64 = 20;
/// Most puzzles per listed page: proofs make a puzzle a few KB, so a page stays far below the
/// message cap.
pub const MAX_PUZZLES_PAGE: u64 = 100;
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
    /// Puzzles per page (0: [`PUZZLES_PAGE_SIZE`], at most [`MAX_PUZZLES_PAGE`]).
    pub page_size: u64,
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

    /// Offers up to [`GAMES_PER_STEP`] stored games from job id `from` on; returns where the
    /// next step starts, `None` when the games ran out.
    fn stored_games(&mut self, store: &Store, from: u64) -> Result<Option<u64>, StoreError> {
        let games = store.games_from(from, GAMES_PER_STEP)?;
        let next = (games.len() == GAMES_PER_STEP)
            .then(|| games.last().map(|(job_id, _)| job_id + 1))
            .flatten();
        for (job_id, game) in games {
            if self.full() {
                return Ok(None);
            }
            let (Ok(start), Ok(moves)) = (
                game.start.parse::<Position>(),
                game.moves
                    .iter()
                    .map(|m| m.parse())
                    .collect::<Result<Vec<_>, _>>(),
            ) else {
                continue;
            };
            self.offer_game(store, start, &moves, &format!("game {job_id}"))?;
        }
        Ok(next)
    }

    /// Offers the late positions among up to [`GAMES_PER_STEP`] book entries from key `from`
    /// on, and their quiet continuations; returns where the next step starts, `None` when the
    /// book ran out.
    fn book_positions(&mut self, store: &Store, from: u64) -> Result<Option<u64>, StoreError> {
        let entries = store.book_entries(from, GAMES_PER_STEP)?;
        let next = (entries.len() == GAMES_PER_STEP)
            .then(|| entries.last().and_then(|(key, _)| key.checked_add(1)))
            .flatten();
        for (key, _) in entries {
            if self.full() {
                return Ok(None);
            }
            let Ok(position) = Position::from_key(PositionKey(key)) else {
                continue;
            };
            if position.is_over() || position.stone_count() < self.min_stones {
                continue;
            }
            let prospect = self.finder.prospect(&position);
            self.offer(store, position, prospect, format!("book {position}"))?;
            for (mv, after, prospect) in self.finder.quiet_continuations(&position) {
                self.offer(
                    store,
                    after,
                    prospect,
                    format!("book {position} instead {mv}"),
                )?;
            }
        }
        Ok(next)
    }

    /// Plays and offers the seeded random games `indices`.
    fn random_games(
        &mut self,
        store: &Store,
        seed: u64,
        indices: std::ops::Range<u64>,
    ) -> Result<(), StoreError> {
        for index in indices {
            if self.full() {
                break;
            }
            let seed = splitmix64(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
            let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
            self.offer_game(store, game.start, &game.moves, &format!("random {seed}"))?;
        }
        Ok(())
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

impl PuzzleMiner {
    pub(crate) fn new(store: Arc<Store>, jobs: Arc<JobQueue>) -> PuzzleMiner {
        PuzzleMiner {
            store,
            jobs,
            finder: std::sync::Mutex::new(None),
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
        let priority = self.jobs.background_priority();
        // Stored games, the book, then random games, a bounded step at a time on the blocking
        // pool: the scan, the probes and the play grow with the database and the request, the
        // runtime must not.
        let mut from = Some(0);
        while let Some(start) = from.filter(|_| !miner.full()) {
            (miner, from) = mine_step(&self.store, priority, miner, move |m, s| {
                m.stored_games(s, start)
            })
            .await?;
        }
        let (mut from, mut looked) = (Some(0), 0);
        while let Some(start) = from.filter(|_| !miner.full() && looked < BOOK_ENTRIES_PER_REQUEST)
        {
            (miner, from) = mine_step(&self.store, priority, miner, move |m, s| {
                m.book_positions(s, start)
            })
            .await?;
            looked += GAMES_PER_STEP as u64;
        }
        if request.random_games {
            let tries = request
                .candidates
                .saturating_mul(RANDOM_GAMES_PER_CANDIDATE);
            let mut next = 0;
            while next < tries && !miner.full() {
                let end = tries.min(next + GAMES_PER_STEP as u64);
                let seed = request.seed;
                (miner, ()) = mine_step(&self.store, priority, miner, move |m, s| {
                    m.random_games(s, seed, next..end)
                })
                .await?;
                next = end;
            }
        }
        if let Ok(mut slot) = self.finder.lock() {
            *slot = Some(miner.finder);
        }
        let found = miner.found;
        let positions: Vec<Position> = found.iter().map(|(p, _)| *p).collect();
        let store = self.store.clone();
        blocking(move || {
            let keys: Vec<u64> = positions.iter().map(|p| p.canonical_key().bits()).collect();
            store.mark_candidates_pending(&keys)
        })
        .await?;
        let tasks: Vec<Task> = found
            .chunks(CANDIDATES_PER_JOB)
            .map(|chunk| Task::Verify {
                candidates: chunk.to_vec(),
                max_moves: request.max_moves,
            })
            .collect();
        let job_ids = self.jobs.queue(tasks).await?;
        tracing::info!(
            candidates = found.len(),
            jobs = job_ids.len(),
            "puzzle candidates queued"
        );
        Ok(Mined {
            queued: found.len() as u64,
            job_ids,
        })
    }

    /// One page of the stored puzzles matching the filters, by length then difficulty, with
    /// their total and candidate counts. A bad page is refused.
    pub fn list(&self, request: &PuzzleFilter) -> Result<PuzzleListing, PuzzleError> {
        let size = page_size(
            "page_size",
            request.page_size,
            PUZZLES_PAGE_SIZE,
            MAX_PUZZLES_PAGE,
        )?;
        let page = request.page.max(1);
        let mut puzzles = Vec::new();
        for entry in self.store.puzzles() {
            let json = entry?;
            let puzzle = read_puzzle(&json)?;
            if request.admits(&puzzle) {
                puzzles.push((puzzle.mate_in, puzzle.difficulty, json));
            }
        }
        let total = puzzles.len() as u64;
        check_start("page", page, total.div_ceil(size).max(1))?;
        puzzles.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
        let skip = ((page - 1) * size) as usize;
        let puzzles: Vec<String> = puzzles
            .into_iter()
            .skip(skip)
            .take(size as usize)
            .map(|(_, _, json)| json)
            .collect();
        let counts = self.store.candidate_counts()?;
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
    /// Whether `puzzle` passes the filters.
    fn admits(&self, puzzle: &Puzzle) -> bool {
        let moves_ok = (self.min_moves == 0 || puzzle.mate_in >= self.min_moves)
            && (self.max_moves == 0 || puzzle.mate_in <= self.max_moves);
        let difficulty_ok = (self.min_difficulty <= 0.0
            || puzzle.difficulty >= self.min_difficulty)
            && (self.max_difficulty <= 0.0 || puzzle.difficulty <= self.max_difficulty);
        // Themes are worked out from the proof, so puzzles stored before themes have them too.
        let theme_ok = self
            .theme
            .is_none_or(|theme| Theme::of(&puzzle.proof).contains(&theme));
        let level_ok = self
            .level
            .as_deref()
            .is_none_or(|level| difficulty_label(puzzle.difficulty) == level);
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
