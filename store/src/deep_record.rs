//! A deep solve's record as the coordinator's services and its edge know it: the position, its
//! proven bounds and, once they meet, its value and best move. The store keeps it in a stable
//! record of its own and converts at its edge (`store::deep`), as it does for jobs
//! ([`crate::job`]).

use pentago::Value;

/// A deep solve: what it solves and how far it has come.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeepSolve {
    /// The position as submitted (text form).
    pub position: String,
    /// Leaves per job.
    pub batch: u32,
    /// Whether the value is proven.
    pub done: bool,
    /// The proven lower bound for the side to move (-1, 0 or 1).
    pub lower: i32,
    /// The proven upper bound.
    pub upper: i32,
    /// A move achieving the value once proven (text form; empty before or when none).
    pub best: String,
    /// Top nodes the last pass visited.
    pub nodes: u64,
    /// Leaf values the solve took in from results.
    pub leaves_solved: u64,
    /// Stones of its leaves.
    pub leaf_stones: u32,
}

impl DeepSolve {
    /// The exact value for the side to move, once proven (the bounds met).
    #[must_use]
    pub fn value(&self) -> Option<Value> {
        (self.done && self.lower == self.upper)
            .then(|| {
                i8::try_from(self.lower)
                    .ok()
                    .and_then(|v| Value::try_from(v).ok())
            })
            .flatten()
    }
}
