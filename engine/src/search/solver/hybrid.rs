//! The hybrid solve: a short alpha-beta attempt (it settles easy positions in milliseconds),
//! then the retrograde midsolver from [`MID_MIN_STONES`](super::mid::MID_MIN_STONES) stones on
//! (its time depends only on the stone count, so there is no tail), and alpha-beta alone below.

use super::exact::{Solution, SolveLimits, SolveMethod, Solver};
use super::mid::midsolve;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::search::value::Value;

/// Nodes the first alpha-beta attempt may spend before the midsolver takes over.
pub const FIRST_ATTEMPT_NODES: u64 = 20_000;

/// Nodes the first alpha-beta attempt at one move of [`Solver::first_win`] may spend before the
/// midsolver values the moves still open.
pub const MOVE_ATTEMPT_NODES: u64 = 2_000;

impl Solver {
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

    /// The first of `moves` (legal in the ongoing `position`) that wins for the side to move:
    /// `Ok(None)` when none does, `Err(mv)` for a move the limits left open. From the
    /// midsolver's threshold on each move gets a short alpha-beta attempt, and one midsolve
    /// settles all that stay open, so the answer is always found; below it, alpha-beta within
    /// `limits` decides each move.
    pub fn first_win(
        &mut self,
        position: &Position,
        moves: &[Move],
        limits: SolveLimits,
    ) -> Result<Option<Move>, Move> {
        let mid = position.stone_count() >= self.mid_min_stones;
        let attempt = if mid {
            SolveLimits {
                max_nodes: limits.max_nodes.min(MOVE_ATTEMPT_NODES),
                ..limits
            }
        } else {
            limits
        };
        let mut open = Vec::new();
        for &mv in moves {
            match self.move_wins(position, mv, attempt) {
                Some(true) => return Ok(Some(mv)),
                Some(false) => {}
                None if mid => open.push(mv),
                None => return Err(mv),
            }
        }
        let Some(&first_open) = open.first() else {
            return Ok(None);
        };
        let values = midsolve(position).map_err(|_| first_open)?;
        Ok(open.into_iter().find(|mv| {
            values
                .moves
                .iter()
                .any(|&(m, value)| m == *mv && value == Value::Win)
        }))
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
    fn first_win_agrees_with_every_moves_exact_value() {
        // The same reference position: every move loses, so no move wins; after its first
        // move, the opponent's winning replies are found whichever method settles them.
        let position: Position = "oxxoo./ooxx../.x.oxx/ox...x/oo.xx./.o.oox".parse().unwrap();
        let mut solver = Solver::new(16);
        let moves: Vec<Move> = position.legal_moves().iter().copied().collect();
        assert_eq!(
            solver.first_win(&position, &moves, SolveLimits::default()),
            Ok(None)
        );
        let after = position.play(moves[0]).unwrap();
        let replies: Vec<Move> = after.legal_moves().iter().copied().collect();
        let exact = midsolve(&after).unwrap();
        let first = exact.moves.iter().find(|m| m.1 == Value::Win).map(|m| m.0);
        let found = solver
            .first_win(&after, &replies, SolveLimits::default())
            .unwrap();
        assert_eq!(found.is_some(), first.is_some());
        if let Some(mv) = found {
            assert!(exact.moves.contains(&(mv, Value::Win)));
        }
    }

    #[test]
    fn below_the_threshold_alpha_beta_decides() {
        let position: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        let solution = Solver::new(16).solve(&position, SolveLimits::default());
        assert_eq!(solution.method, SolveMethod::AlphaBeta);
        assert_eq!(solution.value, Some(Value::Win));
    }
}
