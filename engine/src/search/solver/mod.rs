//! The exact solver and the checkmate (continuous-check) search.

mod certificate;
mod deep;
mod exact;
mod hybrid;
mod mate;
mod mid;
mod proof;
mod table;

pub use certificate::{ProofCheckError, ProofDag, ProofNode, ProveError, prove};
pub use deep::{
    CertificateError, DeepLimits, DeepNode, DeepProgress, DeepProof, DeepProveError, DeepSolution,
    DeepSolver, Frontier, LEAVES_HEADER, LeafError, LeafMode, LeafTable, LeafValue,
    ProofFormatError, ProofLeafError, QUICK_LEAF_NODES, SECOND_LEAF_NODES, ValueBounds, check_leaf,
    solve_leaf,
};
pub use exact::{MoveOrdering, Solution, SolveLimits, SolveMethod, Solver};
pub use hybrid::FIRST_ATTEMPT_NODES;
pub use mate::{MAX_MATE_MOVES, MateProbe, MateSearch};
pub use mid::{
    MID_MIN_STONES, MidSolution, MidSolveError, ROTATED_VARIANTS, midsolve, midsolve_until,
    rotated_variants,
};
pub use proof::{AttackNode, ProofTree, Reply};
