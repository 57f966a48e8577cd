//! A book build's record as the coordinator's services and its edge know it: its roots and
//! limits, and what it has queued so far. The store keeps it in a stable record of its own and
//! converts at its edge (`store::records`), as it does for jobs ([`crate::job`]).

/// A book build: where it grows the book from, within which limits, and how far it has come.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Build {
    /// Canonical root positions (text form).
    pub roots: Vec<String>,
    /// Deepest ply below a root that gets analysed.
    pub depth: u32,
    /// Most positions to queue.
    pub max_positions: u64,
    /// Most playouts to spend.
    pub budget: u64,
    /// Playouts per analysed position.
    pub playouts_per_position: u64,
    /// Engine configuration (text form).
    pub config: String,
    /// Positions with at least this many stones are solved (0: never).
    pub solve_stones: u32,
    /// Positions queued so far (analyses and solves).
    pub positions: u64,
    /// Of those, solves.
    pub solved: u64,
    /// Playouts queued so far.
    pub playouts: u64,
    /// Whether the build has finished.
    pub done: bool,
}
