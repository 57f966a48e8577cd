//! The search layer: random playouts, many-core UCT, the exact solver and the checkmate search.
//!
//! Built on the board layer only; the applications in `play` build on it.

pub(crate) mod eval;
pub(crate) mod playout;
pub(crate) mod solver;
pub(crate) mod uct;
pub(crate) mod value;
