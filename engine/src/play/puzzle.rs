//! Checkmate puzzles (`docs/DESIGN.md` §8): verifying a candidate position, and the difficulty
//! scale.
//!
//! A candidate becomes a puzzle when the side to move has a checkmate in n ≤ `max_moves`, the
//! checkmate search finds the shortest one with its proof tree, and the exact solver shows that
//! no first move other than the solution wins at all (below the midsolver's stone count, where
//! the solver's node budget leaves a move open, the deep solver may settle it within the
//! verifier's [`DeepBudget`]; a move neither settles leaves the candidate undecided — rejected,
//! never guessed). Moves that reach the same position as the
//! solution, or a symmetric image of it, count as the solution: they are the same move on the
//! board.
//!
//! A [`Puzzle`] serializes (serde JSON) to the stable published form: `position`,
//! `side_to_move`, `mate_in`, `first_move`, `proof` (the proof-tree form), `reply_groups`,
//! `uct_playouts`, `tempting`, `difficulty`, `source`, `themes` (a list of theme names, see
//! [`Theme`]). `themes` and `tempting` are absent in puzzles stored before they existed and
//! read as none and 0.
//!
//! Difficulty (stable; stored with each puzzle):
//! `10·(n − 1) + 2·log2(1 + g) + 3·log2(p / 100) + 3·log2(1 + t)`, where
//! - `n` is the mate length: each further forced move is 10 points, the unit of the scale;
//! - `g` the number of defender reply groups in the proof tree (how much the solver must see):
//!   doubling the defences to refute is 2 points;
//! - `p` the smallest playout budget among 100, 200, 400, …, 102 400 at which a plain UCT search
//!   (K = 0.45, uniform playouts, one thread, fixed seed — fixed here, so ratings do not move
//!   when the engine's defaults are tuned) picks the solution; 204 800 when none does. A tenfold
//!   budget is 10 points: a first move that a search needs ten times the effort to see is as
//!   hard as one more forced move;
//! - `t` the number of *tempting* first moves: the other first moves (none of which wins) that
//!   the same UCT search with 1,600 playouts visits more often than the solution — UCT's top
//!   alternatives, which lose or draw. One lure is 3 points, seven are 9.
//!
//! A mate in 1 found at once with no lure thus rates 0, and every mate in n ≥ 2 at least
//! 10·(n − 1). Labels: below 20 easy, below 40 medium, below 60 hard, else expert.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::children::distinct_moves;
use crate::board::color::Color;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::play::themes::Theme;
use crate::search::playout::Policy;
use crate::search::solver::{
    DeepLimits, DeepSolver, MID_MIN_STONES, MateSearch, ProofTree, SolveLimits, Solver,
};
use crate::search::uct::{Budget, SearchControl, SearchOptions, SearchResult, UctConfig, search};
use crate::search::value::Value;

/// Longest checkmate a puzzle may have.
pub const MAX_PUZZLE_MOVES: u32 = 7;

/// Smallest and largest UCT budgets tried when rating a puzzle.
const FIRST_BUDGET: u64 = 100;
const LAST_BUDGET: u64 = 102_400;
/// Tempting moves are counted at this budget: enough for UCT's visits to say which moves it
/// likes, little enough that a hard solution is still among the others.
const TEMPTING_BUDGET: u64 = 1_600;

/// A verified puzzle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Puzzle {
    /// The position, the side to move mates.
    #[serde(with = "crate::serde_text")]
    pub position: Position,
    /// Who mates.
    pub side_to_move: Color,
    /// Length of the shortest mate.
    pub mate_in: u32,
    /// The only winning first move.
    #[serde(with = "crate::serde_text")]
    pub first_move: Move,
    /// The proof tree (stable JSON form, see [`ProofTree`]).
    pub proof: ProofTree,
    /// Defender reply groups in the proof tree.
    pub reply_groups: u32,
    /// Smallest UCT budget that finds the first move (`None`: not within 102 400).
    pub uct_playouts: Option<u64>,
    /// Other first moves UCT finds about as good as the solution (see the module docs).
    #[serde(default)]
    pub tempting: u32,
    /// The difficulty (see the module docs).
    pub difficulty: f64,
    /// Where the position came from (`game 17 ply 12`, `random 5 ply 20`; empty if unknown).
    #[serde(default)]
    pub source: String,
    /// What the checkmate asks of the solver, computed from the proof tree.
    #[serde(default)]
    pub themes: Vec<Theme>,
}

impl Puzzle {
    /// The puzzle `proof` proves, with what the proof settles filled in (position, who mates,
    /// length, first move, reply groups, themes) and the rest unrated: no UCT budget, no
    /// tempting moves, difficulty 0, no source.
    #[must_use]
    pub fn from_proof(proof: ProofTree) -> Puzzle {
        Puzzle {
            position: proof.position,
            side_to_move: proof.position.side_to_move(),
            mate_in: proof.mate_in,
            first_move: proof.first_move(),
            reply_groups: proof.reply_groups(),
            uct_playouts: None,
            tempting: 0,
            difficulty: 0.0,
            source: String::new(),
            themes: Theme::of(&proof),
            proof,
        }
    }
}

/// Why a candidate is not a puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The game is over.
    GameOver,
    /// No checkmate within the limit.
    NoMate,
    /// Another first move also wins (by checkmate or otherwise).
    NotUnique(Move),
    /// The solver could not settle whether this other first move wins within its limits.
    Undecided(Move),
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::GameOver => write!(f, "the game is over"),
            Rejection::NoMate => write!(f, "no checkmate within the limit"),
            Rejection::NotUnique(mv) => write!(f, "{mv} wins too"),
            Rejection::Undecided(mv) => write!(f, "the solver could not settle {mv}"),
        }
    }
}

/// The difficulty labels, easiest first; [`difficulty_label`] gives one of them.
pub const DIFFICULTY_LABELS: [&str; 4] = ["easy", "medium", "hard", "expert"];

/// Difficulty label of a rating.
#[must_use]
pub fn difficulty_label(difficulty: f64) -> &'static str {
    match difficulty {
        d if d < 20.0 => "easy",
        d if d < 40.0 => "medium",
        d if d < 60.0 => "hard",
        _ => "expert",
    }
}

/// The difficulty of a mate in `mate_in` with `reply_groups` defender groups that UCT finds
/// with `uct_playouts` playouts (`None`: not within the largest budget tried), past
/// `tempting` losing first moves it ranked high (see the module docs).
#[must_use]
pub fn difficulty(
    mate_in: u32,
    reply_groups: u32,
    uct_playouts: Option<u64>,
    tempting: u32,
) -> f64 {
    let playouts = uct_playouts.unwrap_or(2 * LAST_BUDGET).max(FIRST_BUDGET) as f64;
    let rating = 10.0 * f64::from(mate_in.saturating_sub(1))
        + 2.0 * f64::from(1 + reply_groups).log2()
        + 3.0 * (playouts / FIRST_BUDGET as f64).log2()
        + 3.0 * f64::from(1 + tempting).log2();
    (rating * 10.0).round() / 10.0
}

/// What the deep solver may spend on one other first move of a candidate below the midsolver's
/// stone count, in deterministic units (so that two workers verifying the same candidate agree).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DeepBudget {
    /// Most leaves midsolved (about 5 s each at 18 stones; 0: alpha-beta attempts only).
    pub midsolves: u64,
    /// Most top nodes.
    pub nodes: u64,
}

/// Verifies puzzle candidates; keep one to reuse the searchers' memory.
pub struct PuzzleVerifier {
    mates: MateSearch,
    solver: Solver,
    /// Limits of the solver for each other first move.
    pub limits: SolveLimits,
    /// What the deep solver may spend on an other first move the solver left open (below the
    /// midsolver's stone count; `None`: it is not tried).
    pub deep: Option<DeepBudget>,
    /// Seed of the UCT searches that rate difficulty.
    pub seed: u64,
}

impl PuzzleVerifier {
    /// A verifier whose solver table has `2^table_bits` entries.
    #[must_use]
    pub fn new(table_bits: u32, limits: SolveLimits, seed: u64) -> PuzzleVerifier {
        PuzzleVerifier {
            mates: MateSearch::new(),
            solver: Solver::new(table_bits),
            limits,
            deep: None,
            seed,
        }
    }

    /// The same verifier, trying the deep solver within `budget` where the solver leaves an
    /// other first move open.
    #[must_use]
    pub fn with_deep(mut self, budget: DeepBudget) -> PuzzleVerifier {
        self.deep = Some(budget);
        self
    }

    /// Checks `position` as a puzzle with a mate of at most `max_moves` (capped at
    /// [`MAX_PUZZLE_MOVES`]).
    pub fn verify(&mut self, position: &Position, max_moves: u32) -> Result<Puzzle, Rejection> {
        if position.is_over() {
            return Err(Rejection::GameOver);
        }
        let proof = self
            .mates
            .find(position, max_moves.min(MAX_PUZZLE_MOVES))
            .ok_or(Rejection::NoMate)?;
        let first_move = proof.first_move();
        let solution = position.play_unchecked(first_move).canonical_key();
        // Another mating first move is the cheap refutation; the solver handles the rest.
        let max = max_moves.min(MAX_PUZZLE_MOVES);
        if let Some((other, _)) = self.mates.other_mating_move(position, max, &[solution]) {
            return Err(Rejection::NotUnique(other));
        }
        // Every other first move, once per position it reaches (up to symmetry), goes to the
        // hybrid solver: from the midsolver's threshold on, one midsolve settles them all.
        let others = distinct_moves(position, &[solution]);
        match self.solver.first_win(position, &others, self.limits) {
            Ok(None) => {}
            Ok(Some(mv)) => return Err(Rejection::NotUnique(mv)),
            Err(open) => {
                let from = others.iter().position(|&mv| mv == open).unwrap_or(0);
                match deep_first_win(position, &others[from..], self.deep) {
                    Ok(None) => {}
                    Ok(Some(mv)) => return Err(Rejection::NotUnique(mv)),
                    Err(mv) => return Err(Rejection::Undecided(mv)),
                }
            }
        }
        let (uct_playouts, tempting) = self.playouts_to_find(position, solution);
        let puzzle = Puzzle::from_proof(proof);
        Ok(Puzzle {
            uct_playouts,
            tempting,
            difficulty: difficulty(puzzle.mate_in, puzzle.reply_groups, uct_playouts, tempting),
            ..puzzle
        })
    }

    /// Smallest budget (doubling from 100) at which UCT's best move reaches `solution`, and the
    /// tempting first moves: those UCT visits more than the solution at [`TEMPTING_BUDGET`].
    fn playouts_to_find(
        &self,
        position: &Position,
        solution: crate::PositionKey,
    ) -> (Option<u64>, u32) {
        let tempting = self
            .plain_uct(position, TEMPTING_BUDGET)
            .map_or(0, |result| tempting(position, &result, solution));
        let mut budget = FIRST_BUDGET;
        while budget <= LAST_BUDGET {
            let Some(result) = self.plain_uct(position, budget) else {
                break;
            };
            if result
                .best
                .is_some_and(|mv| position.play_unchecked(mv).canonical_key() == solution)
            {
                return (Some(budget), tempting);
            }
            budget *= 2;
        }
        (None, tempting)
    }

    /// A plain UCT search of `budget` playouts, pinned field by field (never the tuned
    /// defaults, which move), so that ratings stay comparable across engine versions.
    fn plain_uct(&self, position: &Position, budget: u64) -> Option<SearchResult> {
        let config = UctConfig {
            exploration: 0.45,
            expand: 8,
            max_depth: 36,
            policy: Policy::Uniform,
            cutoff: 0,
            prior: 0.0,
            budget: Budget::Playouts(budget),
            max_nodes: 10_000_000,
            exact: false,
        };
        let options = SearchOptions {
            seed: self.seed,
            threads: 1,
            tables_min_visits: None,
            oracle: None,
        };
        search(position, &config, &options, &SearchControl::new()).ok()
    }
}

/// The first moves other than `solution` that `result` visited more often than it.
fn tempting(position: &Position, result: &SearchResult, solution: crate::PositionKey) -> u32 {
    let is_solution = |mv| position.play_unchecked(mv).canonical_key() == solution;
    let solution_games = result
        .moves
        .iter()
        .filter(|m| is_solution(m.mv))
        .map(|m| m.games)
        .max()
        .unwrap_or(0);
    result
        .moves
        .iter()
        .filter(|m| m.games > solution_games && !is_solution(m.mv))
        .count() as u32
}

/// The first of `moves` that wins in `position` by the deep solver within `budget` (per
/// move), `Ok(None)` when it proves none does, or `Err` with the first move it cannot settle:
/// always for a position from the midsolver's stone count on, or without a budget.
pub fn deep_first_win(
    position: &Position,
    moves: &[Move],
    budget: Option<DeepBudget>,
) -> Result<Option<Move>, Move> {
    let Some(budget) = budget.filter(|_| position.stone_count() < MID_MIN_STONES) else {
        return moves.first().map_or(Ok(None), |&mv| Err(mv));
    };
    let mover = position.side_to_move();
    for &mv in moves {
        let child = position.play_unchecked(mv);
        let value = match Value::of_status(child.status(), mover) {
            Some(value) => Some(value),
            None => {
                let limits = DeepLimits {
                    max_midsolves: Some(budget.midsolves),
                    max_nodes: Some(budget.nodes),
                    ..DeepLimits::default()
                };
                DeepSolver::new(16)
                    .solve(&child, limits)
                    .value
                    .map(Value::negate)
            }
        };
        match value {
            Some(Value::Win) => return Ok(Some(mv)),
            Some(_) => {}
            None => return Err(mv),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difficulty_grows_with_length_and_search_effort() {
        assert_eq!(difficulty(1, 0, Some(100), 0), 0.0);
        // A mate in 1 is easier than any mate in 5, however obvious.
        let hardest_mate_in_1 = difficulty(1, 0, None, 0);
        assert!(hardest_mate_in_1 < difficulty(5, 0, Some(100), 0));
        assert!(difficulty(3, 10, Some(400), 0) < difficulty(3, 10, Some(1600), 0));
        assert!(difficulty(3, 10, Some(400), 0) < difficulty(3, 40, Some(400), 0));
        assert!(difficulty(3, 10, Some(400), 0) < difficulty(3, 10, Some(400), 2));
        assert_eq!(difficulty_label(0.0), "easy");
        assert_eq!(difficulty_label(19.9), "easy");
        assert_eq!(difficulty_label(20.0), "medium");
        assert_eq!(difficulty_label(45.0), "hard");
        assert_eq!(difficulty_label(60.0), "expert");
    }

    #[test]
    fn candidates_without_a_unique_mate_are_rejected() {
        let mut verifier = PuzzleVerifier::new(16, SolveLimits::default(), 1);
        // Four in a row open at both ends: a1 and f1 both win at once.
        let open_both_ends: Position = "oo.oo./....../....../....../....../.xxxx.".parse().unwrap();
        assert!(matches!(
            verifier.verify(&open_both_ends, 3),
            Err(Rejection::NotUnique(_))
        ));
        assert_eq!(verifier.verify(&Position::START, 3), Err(Rejection::NoMate));
        let over: Position = "oooo../....../....../....../....../xxxxx.".parse().unwrap();
        assert_eq!(verifier.verify(&over, 3), Err(Rejection::GameOver));
    }

    #[test]
    fn the_deep_solver_settles_other_moves_within_its_budget_and_leaves_the_rest_open() {
        // 17 stones, lost for white (bench/data/deep-17.txt): no move wins.
        let lost: Position = "..xx../...x../....../oxxxxo/xooxoo/...oo.".parse().unwrap();
        let moves = distinct_moves(&lost, &[]);
        let budget = DeepBudget {
            midsolves: 0,
            nodes: 1_000_000,
        };
        assert_eq!(deep_first_win(&lost, &moves, Some(budget)), Ok(None));
        // No budget, or none to speak of: undecided, never guessed.
        assert_eq!(deep_first_win(&lost, &moves, None), Err(moves[0]));
        let tiny = DeepBudget {
            midsolves: 0,
            nodes: 100,
        };
        let early = Position::START
            .play(Position::START.legal_moves()[0])
            .unwrap();
        let early_moves = distinct_moves(&early, &[]);
        assert!(deep_first_win(&early, &early_moves, Some(tiny)).is_err());
        // From the midsolver's stone count on, the hybrid solver is the one to ask.
        let late = lost.play(moves[0]).unwrap();
        let late_moves = distinct_moves(&late, &[]);
        assert!(deep_first_win(&late, &late_moves, Some(budget)).is_err());
    }
}
