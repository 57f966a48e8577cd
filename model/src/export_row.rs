//! One row of a book export (or import): a move of a canonical position's table with its
//! counts and exact value, the unit the stable row formats and the book's transfers carry.

use pentago::{Move, Position, Value};

use crate::{ExactSource, TableSource};

/// One exported (or imported) row: canonical position, move in its frame, counts, value.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportRow {
    /// The position (canonical in an export).
    pub position: Position,
    /// The move, in that position's frame.
    pub mv: Move,
    /// The table it belongs to.
    pub source: TableSource,
    /// Games (playouts or self-play games) that made the move.
    pub games: u64,
    /// Of them won by the mover.
    pub wins: u64,
    /// Of them drawn.
    pub draws: u64,
    /// The exact value for the mover, where the solver settled it.
    pub proven: Option<Value>,
    /// Where that value came from (as the exporting coordinator stored it: an imported row's
    /// is stored as imported).
    pub proven_by: Option<ExactSource>,
}
