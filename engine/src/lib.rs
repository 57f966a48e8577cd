//! `pentago`: the pure engine of pentagrid — rules, notation, symmetry, playouts and search.
//!
//! Nothing here touches the network or the disk. Positions are two 64-bit stone sets in
//! quadrant lanes, so a move is a few table lookups and a copy of 16 bytes.

mod bitboard;
mod children;
mod color;
mod matches;
mod movegen;
mod moves;
mod openings;
mod perft;
mod player;
mod playout;
mod position;
mod puzzle;
mod rating;
mod selfplay;
mod serde_text;
mod solver;
mod square;
mod symmetry;
mod tables;
mod twist;
mod uct;
mod value;

pub use bitboard::Bitboard;
pub use children::move_groups;
pub use color::{Color, ParseStatusError, Status};
pub use matches::{
    MAX_OPENING_PLIES, MatchScore, OpeningSource, PairResult, ParseOpeningSourceError, game_points,
    opening_seed, play_pair, random_opening,
};
pub use movegen::MoveList;
pub use moves::{Move, MoveNotation, ParseMoveError};
pub use openings::{Opening, ParseOpeningError, Pattern};
pub use perft::{PerftCounts, perft};
pub use player::{ParsePlayerError, Player};
pub use playout::{
    Ending, EngineRng, PLAYOUT_CHUNK, ParsePolicyError, PlayoutResult, PlayoutStats, Policy,
    playout, run_playouts, seeded_rng, splitmix64,
};
pub use position::{ParsePositionError, PlayError, Position, PositionKey};
pub use puzzle::{
    MAX_PUZZLE_MOVES, Puzzle, PuzzleVerifier, Rejection, difficulty, difficulty_label,
};
pub use rating::{
    EloEstimate, ParseSprtError, Pentanomial, ScoreStats, Sprt, SprtDecision, Trinomial,
    elo_of_score, score_of_elo,
};
pub use selfplay::{GameRecord, play_game};
pub use solver::{
    AttackNode, MAX_MATE_MOVES, MateSearch, ProofTree, Reply, Solution, SolveLimits, Solver,
};
pub use square::{ParseSquareError, Square};
pub use symmetry::{Canonical, Symmetry};
pub use twist::{Direction, Quadrant, Twist};
pub use uct::{
    BYTES_PER_EDGE, Budget, MoveStats, NodeTable, ParseConfigError, SearchControl, SearchError,
    SearchOptions, SearchResult, UctConfig, search,
};
pub use value::Value;
