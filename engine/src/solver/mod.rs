//! The exact solver and the checkmate (continuous-check) search.

mod exact;
mod mate;
mod proof;
mod table;

pub use exact::{SolveLimits, Solution, Solver};
pub use mate::{MAX_MATE_MOVES, MateSearch};
pub use proof::{AttackNode, ProofTree, Reply};
