//! The interface through which exact values from outside the engine (a tablebase) reach it.
//!
//! The engine does no I/O, so it cannot read Irving's slice files itself; the `tablebase` crate
//! does, and implements [`ExactOracle`]. Code in the engine and above it that wants a proven
//! value asks an oracle first and searches only where the oracle has no answer.

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::search::value::Value;

/// A source of exact values for (some) positions: perfect play's result for the side to move.
///
/// An oracle answers `Ok(None)` for a position it does not cover (e.g. more stones than the
/// slices it holds) and `Err` when it covers the position but could not read its answer (a
/// damaged file): it never guesses. Takes `&self` so one oracle can serve many threads; an
/// implementation keeps its cache behind its own lock.
pub trait ExactOracle {
    /// Why an answer could not be read.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The exact value of `position` for the side to move, or `None` when not covered. A
    /// finished game is valued by the rules (its result, seen by the side that would move).
    fn probe(&self, position: &Position) -> Result<Option<Value>, Self::Error>;

    /// Every legal move of `position` (as [`Position::legal_moves`] lists them) with its exact
    /// value for the mover, or `None` when some child is not covered. A move that ends the
    /// game is valued by the rules; every other child is probed and its value negated.
    /// An empty list for a finished game.
    fn probe_moves(&self, position: &Position) -> Result<Option<Vec<(Move, Value)>>, Self::Error> {
        moves_by(position, |child| self.probe(child))
    }
}

/// An oracle that covers nothing: where exact knowledge is optional and none is at hand (a
/// tablebase that did not open, a test of what the other sources give alone).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NoOracle;

impl ExactOracle for NoOracle {
    type Error = std::convert::Infallible;

    fn probe(&self, _: &Position) -> Result<Option<Value>, Self::Error> {
        Ok(None)
    }
}

/// Every legal move of `position` with its exact value for the mover, `probe` valuing the
/// children the rules do not (see [`ExactOracle::probe_moves`]).
fn moves_by<E>(
    position: &Position,
    mut probe: impl FnMut(&Position) -> Result<Option<Value>, E>,
) -> Result<Option<Vec<(Move, Value)>>, E> {
    let mover = position.side_to_move();
    let mut values = Vec::new();
    for mv in position.legal_moves().iter().copied() {
        let child = position.play_unchecked(mv);
        let value = match Value::of_status(child.status(), mover) {
            Some(value) => value,
            None => match probe(&child)? {
                Some(child_value) => child_value.negate(),
                None => return Ok(None),
            },
        };
        values.push((mv, value));
    }
    Ok(Some(values))
}

/// An [`ExactOracle`] as a search holds it, behind a shared trait object: any oracle that can be
/// shared between threads is one. A read error counts as "not known" here, so a damaged file
/// costs the search its shortcut, never a wrong value (callers that must report such errors
/// probe the [`ExactOracle`] themselves).
pub trait ExactValues: Send + Sync {
    /// The exact value of `position` for the side to move, when the oracle knows it.
    fn exact_value(&self, position: &Position) -> Option<Value>;

    /// Every legal move of `position` with its exact value for the mover, when the oracle
    /// knows them all (as [`ExactOracle::probe_moves`], unreadable answers unknown).
    fn exact_moves(&self, position: &Position) -> Option<Vec<(Move, Value)>> {
        let known: Result<_, std::convert::Infallible> =
            moves_by(position, |child| Ok(self.exact_value(child)));
        match known {
            Ok(moves) => moves,
        }
    }
}

impl<O: ExactOracle + Send + Sync> ExactValues for O {
    fn exact_value(&self, position: &Position) -> Option<Value> {
        self.probe(position).ok().flatten()
    }
}

/// A shared [`ExactValues`], as search options carry it.
#[derive(Clone)]
pub struct SharedOracle(pub std::sync::Arc<dyn ExactValues>);

impl std::fmt::Debug for SharedOracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedOracle")
    }
}

impl SharedOracle {
    /// Shares `oracle`.
    pub fn new(oracle: impl ExactValues + 'static) -> SharedOracle {
        SharedOracle(std::sync::Arc::new(oracle))
    }
}

/// The value of a position from its moves' values: the first move (in the list's order) with
/// the best value for the mover, or `None` for an empty list (a finished game has no moves;
/// value it by its status instead).
#[must_use]
pub fn best_of(moves: &[(Move, Value)]) -> Option<(Move, Value)> {
    moves
        .iter()
        .copied()
        .fold(None, |best, (mv, value)| match best {
            Some((_, b)) if b >= value => best,
            _ => Some((mv, value)),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An oracle that covers positions from `min_stones` on and calls every ongoing one a
    /// draw: enough to check the provided `probe_moves` (rules for finished children, negation
    /// of probed ones, uncovered children).
    struct DrawOracle {
        min_stones: u32,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("unreachable")]
    struct Never;

    impl ExactOracle for DrawOracle {
        type Error = Never;

        fn probe(&self, position: &Position) -> Result<Option<Value>, Never> {
            if let Some(value) = Value::of_status(position.status(), position.side_to_move()) {
                return Ok(Some(value));
            }
            Ok((position.stone_count() >= self.min_stones).then_some(Value::Draw))
        }
    }

    #[test]
    fn finished_children_are_valued_by_the_rules() {
        // Black to move with four in a row on rank 1 (a1-d1): e1 wins at once, with any twist.
        let position: Position = "....../....../....../....../oooo../xxxx..".parse().unwrap();
        let oracle = DrawOracle { min_stones: 0 };
        let moves = oracle.probe_moves(&position).unwrap().unwrap();
        assert_eq!(moves.len(), position.legal_moves().len());
        let wins: Vec<Move> = moves
            .iter()
            .filter(|(_, v)| *v == Value::Win)
            .map(|(m, _)| *m)
            .collect();
        assert!(wins.iter().any(|m| m.to_string() == "e1-1R"), "{wins:?}");
        assert!(moves.iter().all(|(_, v)| *v != Value::Loss));
        assert_eq!(
            best_of(&moves),
            Some((wins[0], Value::Win)),
            "the first winning move"
        );
        let first_draw = moves.iter().find(|(_, v)| *v == Value::Draw).unwrap();
        assert_eq!(best_of(&[*first_draw]), Some(*first_draw));
    }

    #[test]
    fn uncovered_children_make_the_moves_uncovered() {
        let oracle = DrawOracle { min_stones: 40 };
        assert_eq!(oracle.probe_moves(&Position::START).unwrap(), None);
        assert_eq!(best_of(&[]), None);
        let finished: Position = "....../....../....../....../oooo../xxxxx.".parse().unwrap();
        assert_eq!(oracle.probe_moves(&finished).unwrap(), Some(Vec::new()));
    }
}
