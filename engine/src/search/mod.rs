//! The search layer: random playouts, many-core UCT, the exact solver and the checkmate search, and
//! the interface through which a tablebase hands the engine exact values.
//!
//! Built on the board layer only; the applications in `play` build on it.

pub(crate) mod eval;
pub(crate) mod oracle;
pub(crate) mod playout;
pub(crate) mod solver;
pub(crate) mod uct;
pub(crate) mod value;
