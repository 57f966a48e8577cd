//! The exact solver and the checkmate (continuous-check) search.

mod certificate;
mod exact;
mod hybrid;
mod mate;
mod mid;
mod proof;
mod table;

pub use certificate::{ProofCheckError, ProofDag, ProofNode, ProveError, prove};
pub use exact::{MoveOrdering, Solution, SolveLimits, SolveMethod, Solver};
pub use hybrid::FIRST_ATTEMPT_NODES;
pub use mate::{MAX_MATE_MOVES, MateProbe, MateSearch};
pub use mid::{MID_MIN_STONES, MidSolution, MidSolveError, midsolve};
pub use proof::{AttackNode, ProofTree, Reply};
