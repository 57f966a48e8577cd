//! The exact solver and the checkmate (continuous-check) search.

mod exact;
mod mate;
mod proof;
mod table;

pub use exact::{Solution, SolveLimits, Solver};
pub use mate::{MAX_MATE_MOVES, MateSearch};
pub use proof::{AttackNode, ProofTree, Reply};
