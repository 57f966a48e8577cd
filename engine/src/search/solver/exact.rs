//! The exact solver: alpha-beta negamax over the values -1, 0, 1 with a transposition table on
//! canonical positions, immediate-win detection, and threat-first move ordering ranked by the
//! line-occupancy evaluation.
//!
//! Every cut is a proof (a value bound), never a guess, so a finished search is exact; a search
//! that hits its node or time limit reports "unknown" and keeps only bounds it proved.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::hybrid::FIRST_ATTEMPT_NODES;
use super::mate::MateSearch;
use super::mid::MID_MIN_STONES;
use super::table::Table;
use crate::board::bitboard::Bitboard;
use crate::board::children::Children;
use crate::board::movegen::has_winning_move;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::search::eval::{Evaluation, LineOccupancy};
use crate::search::value::Value;

/// Limits of one solve.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SolveLimits {
    /// Give up after this many nodes.
    pub max_nodes: u64,
    /// Give up after this long.
    pub max_time: Option<Duration>,
}

impl Default for SolveLimits {
    fn default() -> Self {
        SolveLimits {
            max_nodes: 200_000_000,
            max_time: None,
        }
    }
}

/// The answer of the solver.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    /// The exact value for the side to move, or `None` when a limit stopped the search.
    pub value: Option<Value>,
    /// A move that achieves the value (none when unknown or when the game is over).
    #[serde(with = "crate::serde_text::option")]
    pub best: Option<Move>,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The algorithm that decided (or last tried to decide) the value.
    #[serde(default)]
    pub method: SolveMethod,
}

/// Which algorithm decided a solve. Stable names: `finished`, `alpha-beta`, `midsolver`,
/// `deep`, `table`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SolveMethod {
    /// The game was already over: its result is the value.
    Finished,
    /// Alpha-beta search.
    #[default]
    AlphaBeta,
    /// The retrograde midsolver.
    Midsolver,
    /// The deep solver (a search whose leaves the midsolver decides), below 18 stones.
    Deep,
    /// Read from a tablebase (Irving's strong solution) through an [`crate::ExactOracle`].
    Table,
}

impl SolveMethod {
    /// `finished`, `alpha-beta`, `midsolver`, `deep` or `table`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            SolveMethod::Finished => "finished",
            SolveMethod::AlphaBeta => "alpha-beta",
            SolveMethod::Midsolver => "midsolver",
            SolveMethod::Deep => "deep",
            SolveMethod::Table => "table",
        }
    }
}

/// How the solver orders the moves of a node within each class (drawn endings, threats, the
/// rest).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum MoveOrdering {
    /// Move generation's order within each class.
    Threats,
    /// Within each class, the child with the best line-occupancy evaluation for the mover
    /// first (issue 16; BENCHMARKS.md compares the two).
    #[default]
    Evaluation,
}

/// Checkmate length probed at nodes where a win matters.
const MATE_PROBE: u32 = 2;
/// Positions the checkmate probe remembers before starting afresh.
const MATE_MEMORY: usize = 1 << 20;

/// A limit was reached.
struct Aborted;

/// One move of a node, ready to be searched.
#[derive(Copy, Clone)]
pub(super) struct Candidate {
    pub(super) mv: Move,
    pub(super) child: Position,
    /// Searched in decreasing order: the class in the high bits, the evaluation below.
    order: i32,
}

/// Evaluation steps per unit of `g` in a candidate's order key.
const EVAL_SCALE: f32 = 1024.0;

/// Nodes between two looks at the clock (a look costs far more than a node).
const DEADLINE_CHECK_NODES: u64 = 4096;

/// The exact solver. Keep one to reuse its transposition table across positions.
pub struct Solver {
    table: Table,
    children: Children,
    mates: MateSearch,
    nodes: u64,
    limits: SolveLimits,
    deadline: Option<Instant>,
    /// Positions with at least this many stones go to the midsolver after a short alpha-beta.
    pub(super) mid_min_stones: u32,
    /// Nodes the hybrid's first alpha-beta attempt may spend before the midsolver takes over.
    pub(super) first_attempt_nodes: u64,
    ordering: MoveOrdering,
}

impl Solver {
    /// A solver whose table holds `2^table_bits` entries of 16 bytes (22 bits: 64 MiB).
    #[must_use]
    pub fn new(table_bits: u32) -> Solver {
        Solver {
            table: Table::new(table_bits),
            children: Children::new(),
            mates: MateSearch::new(),
            nodes: 0,
            limits: SolveLimits::default(),
            deadline: None,
            mid_min_stones: MID_MIN_STONES,
            first_attempt_nodes: FIRST_ATTEMPT_NODES,
            ordering: MoveOrdering::default(),
        }
    }

    /// The solver with another move ordering (the default is [`MoveOrdering::Evaluation`]).
    #[must_use]
    pub fn with_ordering(mut self, ordering: MoveOrdering) -> Solver {
        self.ordering = ordering;
        self
    }

    /// Forgets all stored results.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Solves `position` by alpha-beta alone: its value for the side to move and a move that
    /// achieves it. [`Solver::solve`] hands positions with many stones to the midsolver.
    pub fn alpha_beta(&mut self, position: &Position, limits: SolveLimits) -> Solution {
        let started = Instant::now();
        self.nodes = 0;
        self.limits = limits;
        self.deadline = limits.max_time.map(|t| started + t);
        let status = position.status();
        let (value, best) = if status.is_over() {
            (Value::of_status(status, position.side_to_move()), None)
        } else {
            match self.root(position) {
                Ok((value, best)) => (Some(value), best),
                Err(Aborted) => (None, None),
            }
        };
        Solution {
            value,
            best,
            nodes: self.nodes,
            seconds: started.elapsed().as_secs_f64(),
            method: if status.is_over() {
                SolveMethod::Finished
            } else {
                SolveMethod::AlphaBeta
            },
        }
    }

    /// Exact value of `position`'s every first move (for the side to move) by alpha-beta, or
    /// `None` for a move whose search hit the limits. The game must be ongoing.
    pub fn alpha_beta_moves(
        &mut self,
        position: &Position,
        limits: SolveLimits,
    ) -> Vec<(Move, Option<Value>)> {
        self.limits = limits;
        self.deadline = limits.max_time.map(|t| Instant::now() + t);
        self.nodes = 0;
        let mover = position.side_to_move();
        position
            .legal_moves()
            .iter()
            .map(|&mv| {
                let child = position.play_unchecked(mv);
                let value = match Value::of_status(child.status(), mover) {
                    Some(v) => Some(v),
                    // Once the time is up, the moves left are not started: each would
                    // otherwise spend up to a deadline check's worth of nodes before stopping.
                    None if self.past_deadline() => None,
                    None => self.negamax(&child, -1, 1).ok().map(|v| to_value(-v)),
                };
                (mv, value)
            })
            .collect()
    }

    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether `mv` (legal in the ongoing `position`) wins by force for the side to move:
    /// `Some(false)` when it draws or loses, `None` when the limits stopped the search. Cheaper
    /// than an exact value: a null-window search on "is the reply position lost?".
    pub fn move_wins(
        &mut self,
        position: &Position,
        mv: Move,
        limits: SolveLimits,
    ) -> Option<bool> {
        self.limits = limits;
        self.deadline = limits.max_time.map(|t| Instant::now() + t);
        self.nodes = 0;
        let child = position.play_unchecked(mv);
        if let Some(value) = Value::of_status(child.status(), position.side_to_move()) {
            return Some(value == Value::Win);
        }
        self.negamax(&child, -1, 0).ok().map(|value| value < 0)
    }

    /// The root: like `negamax` with the full window, but remembers the best move.
    fn root(&mut self, position: &Position) -> Result<(Value, Option<Move>), Aborted> {
        let mover = position.side_to_move();
        if let Some(mv) = position.winning_move() {
            return Ok((Value::Win, Some(mv)));
        }
        let mut best = (-2i8, None);
        for candidate in self.candidates(position) {
            let value = match Value::of_status(candidate.child.status(), mover) {
                Some(v) => v.as_i8(),
                None => -self.negamax(&candidate.child, -1, -best.0.max(-1))?,
            };
            if value > best.0 {
                best = (value, Some(candidate.mv));
                if value == 1 {
                    break;
                }
            }
        }
        Ok((to_value(best.0), best.1))
    }

    fn count_node(&mut self) -> Result<(), Aborted> {
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(Aborted);
        }
        if self.nodes.is_multiple_of(DEADLINE_CHECK_NODES) && self.past_deadline() {
            return Err(Aborted);
        }
        Ok(())
    }

    /// The value of an ongoing `position` for the side to move, within `[alpha, beta]`:
    /// exact if strictly inside, a bound at or beyond either end (fail-hard negamax).
    fn negamax(&mut self, position: &Position, mut alpha: i8, mut beta: i8) -> Result<i8, Aborted> {
        self.count_node()?;
        if position.has_immediate_win() {
            return Ok(1);
        }
        // Where a win would matter, a short checkmate settles the node far more cheaply than
        // alpha-beta finds the same win among all moves.
        if beta > 0 && self.mates.mates_within(position, MATE_PROBE, MATE_MEMORY) {
            return Ok(1);
        }
        let canonical = position.canonical();
        let key = canonical.position.key().0;
        let mut hint = None;
        if let Some(entry) = self.table.get(key) {
            if entry.lower >= beta || entry.lower == entry.upper {
                return Ok(entry.lower);
            }
            if entry.upper <= alpha {
                return Ok(entry.upper);
            }
            alpha = alpha.max(entry.lower);
            beta = beta.min(entry.upper);
            hint = entry
                .best()
                .map(|m| canonical.symmetry.inverse().apply_move(m));
        }
        let (alpha0, beta0) = (alpha, beta);
        let nodes_before = self.nodes;
        let mover = position.side_to_move();
        let mut candidates = self.candidates(position);
        // The stored best move goes first; the rest keep `candidates`' order.
        if let Some(hint) = hint
            && let Some(at) = candidates.iter().position(|c| c.mv == hint)
        {
            candidates[..=at].rotate_right(1);
        }
        let mut best = -1i8;
        let mut best_move = None;
        for candidate in &candidates {
            let value = match Value::of_status(candidate.child.status(), mover) {
                Some(v) => v.as_i8(),
                None => -self.negamax(&candidate.child, -beta, -alpha.max(best))?,
            };
            if value > best || best_move.is_none() {
                best = best.max(value);
                best_move = Some(candidate.mv);
            }
            if best >= beta {
                break;
            }
        }
        let (lower, upper) = if best <= alpha0 {
            (-1, best)
        } else if best >= beta0 {
            (best, 1)
        } else {
            (best, best)
        };
        let best_canonical = best_move.map(|m| canonical.symmetry.apply_move(m));
        self.table
            .put(key, lower, upper, best_canonical, self.nodes - nodes_before);
        Ok(best)
    }

    /// The value of the ongoing `position` within the window `[alpha, beta]` by alpha-beta
    /// alone within `limits` (fail-hard: a result at or below `alpha` is an upper bound, at or
    /// above `beta` a lower bound, inside it exact); `None` when a limit stopped it.
    pub(super) fn window(
        &mut self,
        position: &Position,
        alpha: i8,
        beta: i8,
        limits: SolveLimits,
    ) -> Option<i8> {
        self.limits = limits;
        self.deadline = limits.max_time.map(|t| Instant::now() + t);
        self.nodes = 0;
        self.negamax(position, alpha, beta).ok()
    }

    /// The moves worth searching, ordered: moves that lose at once (the opponent then has an
    /// immediate win) are left out, since they are worth -1 whatever else holds; then drawn
    /// game ends, threats (moves after which we would win at once if we moved again), the rest;
    /// within each class as [`MoveOrdering`] says.
    pub(super) fn candidates(&mut self, position: &Position) -> Vec<Candidate> {
        let mover = position.side_to_move();
        let mut children = Vec::with_capacity(Move::COUNT);
        self.children.collect(position, true, &mut children);
        let mut out = Vec::with_capacity(children.len());
        for (mv, child) in children {
            let (own, other) = stones(&child, mover);
            let order = if child.status().is_over() {
                // A draw (wins were taken before): cheap, and it raises alpha to 0.
                Some(4)
            } else if has_winning_move(other, own) {
                None
            } else if has_winning_move(own, other) {
                Some(3)
            } else {
                Some(2)
            };
            if let Some(class) = order {
                let order = (class << 24) + self.evaluation_key(&child, mover);
                out.push(Candidate { mv, child, order });
            }
        }
        if out.is_empty() {
            // Every move loses at once: keep one so the caller has a move to report.
            let mv = position.legal_moves()[0];
            out.push(Candidate {
                mv,
                child: position.play_unchecked(mv),
                order: 0,
            });
        }
        out.sort_by_key(|c| std::cmp::Reverse(c.order));
        out
    }
}

impl Solver {
    /// The part of a candidate's order key that ranks it within its class: the child's
    /// evaluation for `mover`, scaled to an integer well inside 24 bits (|g| stays below 32).
    fn evaluation_key(&self, child: &Position, mover: crate::Color) -> i32 {
        match self.ordering {
            MoveOrdering::Threats => 0,
            MoveOrdering::Evaluation => {
                let g = Evaluation::FITTED.score(&LineOccupancy::of(child).counts());
                let for_mover = if mover == crate::Color::Black { g } else { -g };
                (for_mover * EVAL_SCALE) as i32
            }
        }
    }
}

fn stones(position: &Position, color: crate::Color) -> (Bitboard, Bitboard) {
    (position.stones(color), position.stones(color.opponent()))
}

pub(super) fn to_value(v: i8) -> Value {
    Value::try_from(v.clamp(-1, 1)).expect("clamped")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(text: &str) -> Solution {
        Solver::new(16).alpha_beta(&text.parse().unwrap(), SolveLimits::default())
    }

    #[test]
    fn moves_left_when_the_time_is_up_are_not_searched() {
        // 17 stones, hard for alpha-beta: no move settles within one clock check.
        let position: Position = "o...xx/x...o./xo..ox/xox.../x..xoo/o.....".parse().unwrap();
        let mut solver = Solver::new(16);
        let limits = SolveLimits {
            max_nodes: u64::MAX,
            max_time: Some(std::time::Duration::ZERO),
        };
        let moves = solver.alpha_beta_moves(&position, limits);
        assert_eq!(moves.len(), position.legal_moves().len());
        assert!(moves.iter().all(|(_, value)| value.is_none()));
        // The first move stops at its first look at the clock; no other is started.
        assert!(
            solver.nodes <= DEADLINE_CHECK_NODES,
            "{} nodes",
            solver.nodes
        );
    }

    #[test]
    fn immediate_win_is_a_win_with_the_winning_move() {
        let s = solve("....../....../....../....../oooo../xxxx..");
        assert_eq!(s.value, Some(Value::Win));
        assert_eq!(s.best.unwrap().square().to_string(), "e1");
    }

    #[test]
    fn a_double_threat_is_a_loss() {
        // White's b1-e1 is open at both ends: every black move lets white win at once.
        let s = solve("x....x/x...../x...../....../....../.oooo.");
        assert_eq!(s.value, Some(Value::Loss));
        assert!(s.best.is_some());
    }

    #[test]
    fn finished_games_have_their_value_and_no_move() {
        let s = solve("....../....../....../....../oooo../xxxxx.");
        assert_eq!(s.value, Some(Value::Loss), "white to move has lost");
        assert_eq!(s.best, None);
        let s = solve("xoxoxo/xoxoxo/oxoxox/oxoxox/xoxoxo/xoxoxo");
        assert_eq!(s.value, Some(Value::Draw));
    }

    #[test]
    fn last_empty_square_is_played_out() {
        // One square left; whatever black does, the board fills. Draw unless a five appears.
        let p: Position = "xoxoxo/xoxoxo/oxoxox/oxoxox/xoxoxo/xoxox.".parse().unwrap();
        let s = Solver::new(16).alpha_beta(&p, SolveLimits::default());
        let best = p.play(s.best.unwrap()).unwrap();
        assert_eq!(
            s.value,
            Value::of_status(best.status(), p.side_to_move()),
            "the value is that of the best final move"
        );
    }
}
