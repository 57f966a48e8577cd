//! A position's two book tables as a coordinator shows them and its clients read them: the
//! rows of each in the asker's frame, with the position's exact value and proven line.

use pentago::{Move, Position, Value};

use crate::{BookRow, ExactSource};

/// A position's two tables.
#[derive(Clone, Debug, PartialEq)]
pub struct BookTables {
    /// The position asked about (the tables' moves are in its frame).
    pub position: Position,
    /// The canonical form the tables are stored under.
    pub canonical: Position,
    /// From UCT analyses (playout counts), most played first.
    pub playouts: Vec<BookRow>,
    /// From self-play games, most played first.
    pub games: Vec<BookRow>,
    /// The position's exact value for the side to move, where stored exact values prove one.
    pub proven: Option<Value>,
    /// Where that value came from: the source of the value of the move that proves it (the
    /// proven line's first move); `None` when it is not proven, or the rules decide that move.
    pub proven_by: Option<ExactSource>,
    /// The proven line from the position (each proven position's best move while the positions
    /// reached stay proven), in its frame; empty when it is not proven.
    pub proven_line: Vec<Move>,
}

impl BookTables {
    /// The source of the proven line's first move as its row names it (the row showing it, or
    /// merging it); `None` when there is no line or no row names a source.
    #[must_use]
    pub fn source_of_first_move(&self) -> Option<ExactSource> {
        let first = *self.proven_line.first()?;
        self.playouts
            .iter()
            .chain(&self.games)
            .find(|row| row.mv == first || row.also.contains(&first))
            .and_then(|row| row.proven_by)
    }
}
