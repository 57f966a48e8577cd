//! A job's result as a worker reports it, in engine types: not yet validated against its job
//! (the coordinator does that before anything is stored).

use pentago::{MatchAccuracy, Move, Puzzle, Rejection, Status, Value};

use crate::GameNote;

/// One row of a move table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The move.
    pub mv: Move,
    /// Games (playouts or self-play games) through the move.
    pub games: u64,
    /// Of those, won by the player making the move.
    pub wins: u64,
    /// Of those, drawn.
    pub draws: u64,
}

/// A job's result as a worker reports it (not yet validated against the job).
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The root move table of an analysis.
    Analyse {
        /// Its rows.
        rows: Vec<Row>,
        /// Simulations run.
        simulations: u64,
        /// Seconds taken.
        seconds: f64,
    },
    /// A finished game.
    Selfplay {
        /// The moves from the job's start.
        moves: Vec<Move>,
        /// The final status.
        result: Status,
    },
    /// The two games of a pair (A black first), each as its moves and final status.
    Pair {
        /// The games.
        games: [(Vec<Move>, Status); 2],
        /// A's and B's accuracy in them, when the job asked for it.
        accuracy: Option<MatchAccuracy>,
        /// Each game's forfeit and engines' standard error (refereed games; empty otherwise).
        notes: Box<[GameNote; 2]>,
    },
    /// Exact values of first moves (for the player making them); unsettled moves left out.
    Solve {
        /// The moves with their values.
        moves: Vec<(Move, Value)>,
    },
    /// One verdict per candidate, in order.
    Verify {
        /// The verdicts.
        verdicts: Vec<Verdict>,
    },
    /// The exact value of each leaf of a deep-leaves job, in order, for its side to move.
    DeepLeaves {
        /// The values.
        values: Vec<Value>,
        /// For each leaf a midsolve valued, the values of its rotated variants
        /// ([`pentago::rotated_variants`] order, `None` where the game is over); empty for a
        /// leaf alpha-beta decided. Empty altogether, or one list per leaf.
        rotated: Vec<Vec<Option<Value>>>,
    },
    /// How each deal of a solitaire job ended, in the job's order.
    Solitaire {
        /// The deals.
        deals: Vec<DealResult>,
    },
}

/// How one solitaire deal ended, as a worker reports it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DealResult {
    /// All 52 cards reached the foundations.
    pub won: bool,
    /// Cards on the foundations at the end, counting any that started there.
    pub foundation_cards: u32,
}

/// What a worker found for one puzzle candidate.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// A verified puzzle.
    Puzzle(Box<Puzzle>),
    /// Not a puzzle, for this reason (`no_mate`, `not_unique`, `undecided`, `game_over`).
    Rejected(RejectionKind),
}

/// Why a candidate was rejected.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RejectionKind {
    /// No checkmate within the limit.
    NoMate,
    /// Another first move wins too.
    NotUnique,
    /// The solver could not settle uniqueness within its limits.
    Undecided,
    /// The game was over.
    GameOver,
}

impl From<&Rejection> for RejectionKind {
    fn from(rejection: &Rejection) -> RejectionKind {
        match rejection {
            Rejection::GameOver => RejectionKind::GameOver,
            Rejection::NoMate => RejectionKind::NoMate,
            Rejection::NotUnique(_) => RejectionKind::NotUnique,
            Rejection::Undecided(_) => RejectionKind::Undecided,
        }
    }
}
