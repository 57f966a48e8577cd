//! The hybrid solve: a short alpha-beta attempt (it settles easy positions in milliseconds),
//! then the retrograde midsolver from [`MID_MIN_STONES`] stones on (its time depends only on
//! the stone count, so there is no tail), and alpha-beta alone below.

use super::exact::{Solution, SolveLimits, SolveMethod, Solver};
use super::mid::{MID_MIN_STONES, midsolve};
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::search::value::Value;

/// Nodes the first alpha-beta attempt may spend before the midsolver takes over.
pub const FIRST_ATTEMPT_NODES: u64 = 20_000;

impl Solver {
    /// Positions with at least `stones` stones (never fewer than [`MID_MIN_STONES`]) go to the
    /// midsolver when the first alpha-beta attempt does not settle them.
    #[must_use]
    pub fn with_mid_min_stones(mut self, stones: u32) -> Solver {
        self.mid_min_stones = stones.max(MID_MIN_STONES);
        self
    }

    /// The hybrid's first alpha-beta attempt spends at most `nodes` nodes (default
    /// [`FIRST_ATTEMPT_NODES`]) before the midsolver takes over.
    #[must_use]
    pub fn with_first_attempt_nodes(mut self, nodes: u64) -> Solver {
        self.first_attempt_nodes = nodes;
        self
    }

    /// Solves `position`: its value for the side to move and a move that achieves it, and
    /// which method decided. From the midsolver's threshold on, the value is always found
    /// (the limits bound only the first alpha-beta attempt).
    pub fn solve(&mut self, position: &Position, limits: SolveLimits) -> Solution {
        if position.stone_count() < self.mid_min_stones || position.is_over() {
            return self.alpha_beta(position, limits);
        }
        let first = SolveLimits {
            max_nodes: limits.max_nodes.min(self.first_attempt_nodes),
            ..limits
        };
        let attempt = self.alpha_beta(position, first);
        if attempt.value.is_some() {
            return attempt;
        }
        let mid = midsolve(position).expect("ongoing, and enough stones for the midsolver");
        // Among the moves that keep the value, a placement that wins at once comes first.
        let best = position
            .winning_move()
            .filter(|_| mid.value == Value::Win)
            .or_else(|| mid.moves.iter().find(|m| m.1 == mid.value).map(|m| m.0));
        Solution {
            value: Some(mid.value),
            best,
            nodes: attempt.nodes,
            seconds: attempt.seconds + mid.seconds,
            method: SolveMethod::Midsolver,
        }
    }

    /// The exact value of every legal move of the ongoing `position` (for the side to move),
    /// `None` where alpha-beta hit the limits. From the midsolver's threshold on, one
    /// midsolve values them all.
    pub fn solve_moves(
        &mut self,
        position: &Position,
        limits: SolveLimits,
    ) -> Vec<(Move, Option<Value>)> {
        if position.stone_count() >= self.mid_min_stones
            && let Ok(mid) = midsolve(position)
        {
            return mid.moves.into_iter().map(|(mv, v)| (mv, Some(v))).collect();
        }
        self.alpha_beta_moves(position, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn late_hard_positions_go_to_the_midsolver() {
        // A reference position alpha-beta needs far more than the first attempt's nodes for.
        let position: Position = "oxxoo./ooxx../.x.oxx/ox...x/oo.xx./.o.oox".parse().unwrap();
        let mut solver = Solver::new(16);
        let solution = solver.solve(&position, SolveLimits::default());
        assert_eq!(solution.value, Some(Value::Loss));
        let plain = solver.alpha_beta(&position, SolveLimits::default());
        assert_eq!(plain.value, solution.value);
        if plain.nodes > FIRST_ATTEMPT_NODES {
            assert_eq!(solution.method, SolveMethod::Midsolver);
        }
        let best = position.play(solution.best.unwrap()).unwrap();
        let after = solver.solve(&best, SolveLimits::default()).value.unwrap();
        assert_eq!(after.negate(), Value::Loss, "every move loses");
    }

    #[test]
    fn below_the_threshold_alpha_beta_decides() {
        let position: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        let solution = Solver::new(16).solve(&position, SolveLimits::default());
        assert_eq!(solution.method, SolveMethod::AlphaBeta);
        assert_eq!(solution.value, Some(Value::Win));
    }
}
