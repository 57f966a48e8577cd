//! The board layer: squares, twists, bitboards, positions, moves, the rules and symmetry.
//!
//! Everything above (search, play) builds on these types; nothing here knows about search.

pub(crate) mod bitboard;
pub(crate) mod children;
pub(crate) mod color;
mod diagram;
pub(crate) mod history;
pub(crate) mod movegen;
pub(crate) mod moves;
pub(crate) mod perft;
pub(crate) mod position;
pub(crate) mod square;
pub(crate) mod status;
pub(crate) mod symmetry;
pub(crate) mod tables;
pub(crate) mod threats;
pub(crate) mod twist;
