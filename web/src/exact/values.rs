//! Putting an answer together from the sources that know exact values — the rules, the
//! tablebase, the book's stored proofs and the solver — each value carrying its source; what no
//! source knows stays unknown.

use std::collections::HashMap;

use pentago::{Move, Position, Value};
use serde::Serialize;

use super::pool::SolverRun;
use crate::source::BookTables;

/// Where an exact value came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueSource {
    /// The game is over (or the move ends it): the rules give the result.
    Rules,
    /// Irving's strong solution (the tablebase).
    Table,
    /// A proof stored in the book.
    Book,
    /// The engine's exact solver, run for this request.
    Solver,
}

/// What the tablebase says about a position: its value where its slice is loaded, and every
/// move's where the next slice is.
#[derive(Clone, Debug, PartialEq)]
pub struct TableAnswer {
    /// The position's value for the side to move.
    pub value: Option<Value>,
    /// Every legal move with its value for the mover.
    pub moves: Option<Vec<(Move, Value)>>,
}

/// The exact values the book has stored for a position's moves (merged moves share their
/// row's value) and for the position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BookProofs {
    moves: HashMap<Move, Value>,
    position: Option<Value>,
}

impl BookProofs {
    /// The proofs in `tables` (both of its tables: a proof is a proof whichever source
    /// reached the move).
    #[must_use]
    pub fn of(tables: &BookTables) -> BookProofs {
        let mut moves = HashMap::new();
        for row in tables.playouts.iter().chain(&tables.games) {
            if let Some(value) = row.proven {
                for mv in std::iter::once(&row.mv).chain(&row.also) {
                    moves.insert(*mv, value);
                }
            }
        }
        BookProofs {
            moves,
            position: tables.proven,
        }
    }

    /// How many moves have a stored proof.
    #[must_use]
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether no move has a stored proof.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// One move's exact value for the mover, if any source knows it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Its value for the mover.
    pub value: Option<Value>,
    /// Which source gave it.
    pub source: Option<ValueSource>,
}

/// A position's exact values, as far as the sources given know them.
#[derive(Clone, Debug, PartialEq)]
pub struct Known {
    /// The position's value for the side to move.
    pub value: Option<Value>,
    /// Which source gave it (for a value found from the moves: the source of the best move).
    pub source: Option<ValueSource>,
    /// Every legal move, in legal order.
    pub moves: Vec<MoveValue>,
}

impl Known {
    /// How many moves have no value.
    #[must_use]
    pub fn unknown_moves(&self) -> usize {
        self.moves.iter().filter(|m| m.value.is_none()).count()
    }
}

/// What the sources given know about `position` (an ongoing game): per move the rules first
/// (a move that ends the game), then the tablebase, the book and the solver; the position's
/// value from the tablebase, else from its moves (a winning move, or every move known), else
/// from the book.
#[must_use]
pub fn known(
    position: &Position,
    table: Option<&TableAnswer>,
    book: Option<&BookProofs>,
    solver: Option<&SolverRun>,
) -> Known {
    let mover = position.side_to_move();
    let table_moves: HashMap<Move, Value> = table
        .and_then(|t| t.moves.as_ref())
        .map(|moves| moves.iter().copied().collect())
        .unwrap_or_default();
    let solver_moves: HashMap<Move, Value> = solver
        .map(|run| {
            run.moves
                .iter()
                .filter_map(|&(mv, value)| Some((mv, value?)))
                .collect()
        })
        .unwrap_or_default();
    let moves: Vec<MoveValue> = position
        .legal_moves()
        .iter()
        .map(|&mv| {
            let child = position.play_unchecked(mv);
            let found = Value::of_status(child.status(), mover)
                .map(|v| (v, ValueSource::Rules))
                .or_else(|| table_moves.get(&mv).map(|&v| (v, ValueSource::Table)))
                .or_else(|| {
                    book.and_then(|b| b.moves.get(&mv))
                        .map(|&v| (v, ValueSource::Book))
                })
                .or_else(|| solver_moves.get(&mv).map(|&v| (v, ValueSource::Solver)));
            MoveValue {
                mv,
                value: found.map(|f| f.0),
                source: found.map(|f| f.1),
            }
        })
        .collect();
    let (value, source) = match table.and_then(|t| t.value) {
        Some(value) => (Some(value), Some(ValueSource::Table)),
        None => match from_moves(&moves) {
            Some(best) => (best.value, best.source),
            None => match book.and_then(|b| b.position) {
                Some(value) => (Some(value), Some(ValueSource::Book)),
                None => (None, None),
            },
        },
    };
    Known {
        value,
        source,
        moves,
    }
}

/// The move that settles the position's value: the first winning move, or, when every move is
/// known, the first best one.
fn from_moves(moves: &[MoveValue]) -> Option<MoveValue> {
    if let Some(win) = moves.iter().find(|m| m.value == Some(Value::Win)) {
        return Some(*win);
    }
    if moves.iter().any(|m| m.value.is_none()) {
        return None;
    }
    moves.iter().copied().fold(None, |best, m| match best {
        Some(b) if b.value >= m.value => Some(b),
        _ => Some(m),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentago::SolveMethod;

    fn position(text: &str) -> Position {
        text.parse().expect("a position")
    }

    #[test]
    fn nothing_known_but_the_rules() {
        // Black to move with four on rank 1: e1 wins at once whatever the twist.
        let p = position("....../....../....../....../oooo../xxxx..");
        let known = known(&p, None, None, None);
        assert_eq!(known.moves.len(), p.legal_moves().len());
        assert_eq!(
            known.value,
            Some(Value::Win),
            "a winning move proves the position"
        );
        assert_eq!(known.source, Some(ValueSource::Rules));
        let e1 = known.moves.iter().find(|m| m.mv.to_string() == "e1-1R");
        assert_eq!(e1.map(|m| m.value), Some(Some(Value::Win)));
        assert!(known.unknown_moves() > 0, "the quiet moves stay unknown");
        assert!(
            known
                .moves
                .iter()
                .all(|m| m.value.is_none() == m.source.is_none())
        );
    }

    #[test]
    fn sources_in_order_and_the_value_from_every_move() {
        let p = position("x...../....../....../....../....../......");
        let moves: Vec<Move> = p.legal_moves().iter().copied().collect();
        let (first, second) = (moves[0], moves[1]);
        let table = TableAnswer {
            value: None,
            moves: Some(moves.iter().map(|&m| (m, Value::Loss)).collect()),
        };
        let mut book = BookProofs::default();
        book.moves.insert(first, Value::Draw);
        let run = SolverRun {
            moves: moves.iter().map(|&m| (m, Some(Value::Draw))).collect(),
            method: SolveMethod::AlphaBeta,
            seconds: 0.0,
        };
        let all = known(&p, Some(&table), Some(&book), Some(&run));
        assert!(
            all.moves
                .iter()
                .all(|m| m.source == Some(ValueSource::Table))
        );
        assert_eq!(
            (all.value, all.source),
            (Some(Value::Loss), Some(ValueSource::Table))
        );
        let some = known(&p, None, Some(&book), Some(&run));
        assert_eq!(some.moves[0].source, Some(ValueSource::Book));
        assert_eq!(some.moves[1].source, Some(ValueSource::Solver));
        assert_eq!(some.value, Some(Value::Draw));
        assert_eq!(
            some.source,
            Some(ValueSource::Book),
            "the first best move's"
        );
        let partial = SolverRun {
            moves: vec![(second, Some(Value::Draw)), (first, None)],
            ..run
        };
        let open = known(&p, None, None, Some(&partial));
        assert_eq!(
            open.value, None,
            "a draw is not proven while a move is unknown"
        );
        assert_eq!(open.unknown_moves(), moves.len() - 1);
        book.position = Some(Value::Draw);
        let proven = known(&p, None, Some(&book), Some(&partial));
        assert_eq!(
            (proven.value, proven.source),
            (Some(Value::Draw), Some(ValueSource::Book))
        );
    }
}
