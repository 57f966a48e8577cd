//! `pentago`: the pure engine of pentagrid — rules, notation, symmetry, playouts and search.
//!
//! Nothing here touches the network or the disk. Positions are two 64-bit stone sets in
//! quadrant lanes, so a move is a few table lookups and a copy of 16 bytes.

mod bitboard;
mod color;
mod movegen;
mod moves;
mod perft;
mod playout;
mod position;
mod square;
mod symmetry;
mod tables;
mod twist;

pub use bitboard::Bitboard;
pub use color::{Color, ParseStatusError, Status};
pub use movegen::MoveList;
pub use moves::{Move, MoveNotation, ParseMoveError};
pub use perft::{PerftCounts, perft};
pub use playout::{
    Ending, EngineRng, PLAYOUT_CHUNK, ParsePolicyError, PlayoutResult, PlayoutStats, Policy,
    playout, run_playouts, seeded_rng, splitmix64,
};
pub use position::{ParsePositionError, PlayError, Position, PositionKey};
pub use square::{ParseSquareError, Square};
pub use symmetry::{Canonical, Symmetry};
pub use twist::{Direction, Quadrant, Twist};
