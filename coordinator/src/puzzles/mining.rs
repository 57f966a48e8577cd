//! Mining puzzle candidates: stored games, the book's late positions and seeded random games,
//! a bounded step at a time off the runtime, each full verify job queued as soon as it is found.

use std::collections::HashSet;
use std::sync::Arc;

use pentago::{
    CandidateFinder, MAX_PUZZLE_MOVES, Player, Position, PositionKey, Prospect, play_game,
    splitmix64,
};

use super::{
    CANDIDATES_PER_JOB, CANDIDATES_PER_MATE_IN_ONE, MAX_PUZZLE_CANDIDATES, MineRequest, Mined,
    PROBE_NODES, PuzzleError, PuzzleMiner,
};
use crate::offload::{BackgroundPriority, background};
use pentagrid_store::{Store, StoreError};

/// Games (stored or random) one blocking step of mining looks at.
const GAMES_PER_STEP: usize = 1_000;
/// Random games tried per wanted candidate before giving up.
const RANDOM_GAMES_PER_CANDIDATE: u64 = 4;
/// Book positions one request looks at, at most.
const BOOK_ENTRIES_PER_REQUEST: u64 = 20_000;

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
        let priority = self.background;
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
