//! Puzzle generation on the cluster: candidates mined from stored self-play games (and
//! seeded random games when asked) go out in verify jobs; verdicts and puzzles come back
//! through the usual result path and are stored once per canonical position.

use std::collections::HashSet;

use pentago::{MAX_PUZZLE_MOVES, Player, Position, Puzzle, play_game, splitmix64};
use pentagrid_proto::{Task, v1};
use tonic::Status;

use crate::coordinator::{Coordinator, internal};
use crate::store::{CandidateState, StoreError};

/// Candidates per verify job: small enough that a job finishes in seconds.
const CANDIDATES_PER_JOB: usize = 8;
/// Most candidates one request may queue.
pub const MAX_PUZZLE_CANDIDATES: u64 = 100_000;
/// Random games tried per wanted candidate before giving up.
const RANDOM_GAMES_PER_CANDIDATE: u64 = 4;

/// Collects fresh candidates: ongoing, with enough stones, never queued before, once each.
struct Miner<'a> {
    coordinator: &'a Coordinator,
    min_stones: u32,
    wanted: usize,
    seen: HashSet<u64>,
    found: Vec<(Position, String)>,
}

impl Miner<'_> {
    fn full(&self) -> bool {
        self.found.len() >= self.wanted
    }

    /// Offers the positions before each move of a game.
    fn offer_game(
        &mut self,
        start: Position,
        moves: &[pentago::Move],
        source: &str,
    ) -> Result<(), StoreError> {
        let mut position = start;
        for (ply, &mv) in moves.iter().enumerate() {
            if self.full() {
                break;
            }
            if position.stone_count() >= self.min_stones && !position.is_over() {
                let key = position.canonical_key().bits();
                if self.seen.insert(key) && !self.coordinator.store.candidate_known(key)? {
                    self.found.push((position, format!("{source} ply {ply}")));
                }
            }
            match position.play(mv) {
                Ok(next) => position = next,
                Err(_) => break,
            }
        }
        Ok(())
    }
}

impl Coordinator {
    /// Mines candidates and queues verify jobs for them; answers once they are durable.
    pub async fn generate_puzzles(
        &self,
        request: &v1::GeneratePuzzlesRequest,
    ) -> Result<v1::GeneratePuzzlesResponse, Status> {
        if !(1..=MAX_PUZZLE_MOVES).contains(&request.max_moves) {
            return Err(Status::invalid_argument(format!(
                "max_moves must be from 1 to {MAX_PUZZLE_MOVES}"
            )));
        }
        if !(1..=MAX_PUZZLE_CANDIDATES).contains(&request.candidates) {
            return Err(Status::invalid_argument(format!(
                "candidates must be from 1 to {MAX_PUZZLE_CANDIDATES}"
            )));
        }
        if request.min_stones > 35 {
            return Err(Status::invalid_argument("min_stones must be at most 35"));
        }
        let mut miner = Miner {
            coordinator: self,
            min_stones: request.min_stones,
            wanted: request.candidates as usize,
            seen: HashSet::new(),
            found: Vec::new(),
        };
        for entry in self.store.games() {
            if miner.full() {
                break;
            }
            let (job_id, game) = entry.map_err(internal)?;
            let (Ok(start), Ok(moves)) = (
                game.start.parse::<Position>(),
                game.moves
                    .iter()
                    .map(|m| m.parse())
                    .collect::<Result<Vec<_>, _>>(),
            ) else {
                continue;
            };
            miner
                .offer_game(start, &moves, &format!("game {job_id}"))
                .map_err(internal)?;
        }
        if request.random_games {
            let tries = request
                .candidates
                .saturating_mul(RANDOM_GAMES_PER_CANDIDATE);
            for index in 0..tries {
                if miner.full() {
                    break;
                }
                let seed = splitmix64(request.seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
                let game = play_game(&Position::START, &Player::Random, &Player::Random, seed, 1);
                miner
                    .offer_game(game.start, &game.moves, &format!("random {seed}"))
                    .map_err(internal)?;
            }
        }
        let found = miner.found;
        let keys: Vec<u64> = found
            .iter()
            .map(|(p, _)| p.canonical_key().bits())
            .collect();
        self.store
            .mark_candidates_pending(&keys)
            .map_err(internal)?;
        let tasks: Vec<Task> = found
            .chunks(CANDIDATES_PER_JOB)
            .map(|chunk| Task::Verify {
                candidates: chunk.to_vec(),
                max_moves: request.max_moves,
            })
            .collect();
        let job_ids = self.queue_tasks(tasks).await?;
        tracing::info!(
            candidates = found.len(),
            jobs = job_ids.len(),
            "puzzle candidates queued"
        );
        Ok(v1::GeneratePuzzlesResponse {
            queued: found.len() as u64,
            job_ids,
        })
    }

    /// Stored puzzles matching the filters, by length then difficulty, with candidate counts.
    pub fn list_puzzles(
        &self,
        request: &v1::ListPuzzlesRequest,
    ) -> Result<v1::ListPuzzlesResponse, Status> {
        let mut puzzles = Vec::new();
        for entry in self.store.puzzles() {
            let json = entry.map_err(internal)?;
            let puzzle: Puzzle = serde_json::from_str(&json)
                .map_err(|e| Status::internal(format!("corrupt puzzle in the database: {e}")))?;
            let moves_ok = (request.min_moves == 0 || puzzle.mate_in >= request.min_moves)
                && (request.max_moves == 0 || puzzle.mate_in <= request.max_moves);
            let difficulty_ok = (request.min_difficulty <= 0.0
                || puzzle.difficulty >= request.min_difficulty)
                && (request.max_difficulty <= 0.0 || puzzle.difficulty <= request.max_difficulty);
            if moves_ok && difficulty_ok {
                puzzles.push((puzzle.mate_in, puzzle.difficulty, json));
            }
        }
        puzzles.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
        if request.limit > 0 {
            puzzles.truncate(request.limit as usize);
        }
        let counts = self.store.candidate_counts().map_err(internal)?;
        let count = |state: CandidateState| counts[state as usize];
        Ok(v1::ListPuzzlesResponse {
            puzzles_json: puzzles.into_iter().map(|(_, _, json)| json).collect(),
            candidates: counts.iter().sum::<u64>() - count(CandidateState::Pending),
            found: count(CandidateState::Puzzle),
            no_mate: count(CandidateState::NoMate),
            not_unique: count(CandidateState::NotUnique),
            undecided: count(CandidateState::Undecided) + count(CandidateState::GameOver),
            pending: count(CandidateState::Pending),
        })
    }
}
