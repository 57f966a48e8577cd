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
    /// Book positions with at least this many stones (within [`Build::deep_range`]) get a
    /// cluster deep solve (0: never).
    pub deep_from: u32,
    /// Most deep solves the build keeps running at once.
    pub deep_window: u32,
    /// Stones of its deep solves' leaves.
    pub deep_leaf_stones: u32,
    /// Deep solves it started or joined (one of the same position was already running).
    pub deep_started: u64,
    /// Of those, the ones that finished.
    pub deep_finished: u64,
    /// The ids of its deep solves still running.
    pub deep_running: Vec<u64>,
}

impl Build {
    /// The stone counts of the positions the build deep-solves: from `deep_from` up to, not
    /// including, the leaves' stone count, and below `solve_stones` where set (those are solved
    /// by plain solve jobs). Empty when deep solves are off.
    #[must_use]
    pub fn deep_range(&self) -> std::ops::Range<u32> {
        if self.deep_from == 0 {
            return 0..0;
        }
        let mut end = self.deep_leaf_stones;
        if self.solve_stones > 0 {
            end = end.min(self.solve_stones);
        }
        self.deep_from..end.max(self.deep_from)
    }
}
