//! One move of a position's book table as a coordinator shows it and its clients read it: the
//! move in the asker's frame, the moves merged with it, its counts and its exact value.

use pentago::{Move, Value};

use crate::ExactSource;

/// One move of a book table, in the asker's frame, counted for the player making it.
#[derive(Clone, Debug, PartialEq)]
pub struct BookRow {
    /// The move shown (the first of its group).
    pub mv: Move,
    /// Other moves merged into this row: they reach the same position, or a symmetric one.
    pub also: Vec<Move>,
    /// Games (playouts or self-play games) that made this move.
    pub games: u64,
    /// Of them won by the mover.
    pub wins: u64,
    /// Of them drawn.
    pub draws: u64,
    /// The exact value for the mover, where the solver settled it.
    pub proven: Option<Value>,
    /// Where that value came from (the tablebase, a solver, propagation, an import).
    pub proven_by: Option<ExactSource>,
}
