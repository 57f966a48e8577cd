//! The exact solver and the checkmate (continuous-check) search.
//!
//! [`Solver::solve`] gives the exact value for the side to move with a move that achieves it
//! (alpha-beta, and the retrograde midsolver from [`MID_MIN_STONES`] stones on); [`MateSearch`]
//! finds the shortest win by continuous checks with its proof tree:
//!
//! ```
//! use pentago::{MateSearch, Position, SolveLimits, Solver, Status, Value};
//!
//! let position: Position = "....../....../....../....../oooo../xxxx..".parse()?;
//! let mut solver = Solver::new(16); // a transposition table of 2^16 entries
//! let solution = solver.solve(&position, SolveLimits::default());
//! assert_eq!(solution.value, Some(Value::Win));
//! let best = solution.best.expect("a won position has a winning move");
//! assert!(matches!(position.play(best)?.status(), Status::Won(_)));
//!
//! let mate = MateSearch::new().find(&position, 3).expect("a mate in 1");
//! assert_eq!(mate.mate_in, 1);
//! assert_eq!(mate.first_move(), best);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! From [`MID_MIN_STONES`] stones on, the midsolver decides any position and values every move
//! in one walk; here a won position of 24 stones, where most moves throw the win away:
//!
//! ```
//! use pentago::{Position, Value, midsolve};
//!
//! let late: Position = "o.x..o/xoox.o/.oooxo/xx..xx/ox..oo/.x..xx".parse()?;
//! let solved = midsolve(&late)?;
//! assert_eq!(solved.value, Value::Win);
//! assert_eq!(solved.moves.len(), late.legal_moves().len());
//! let winning = solved.moves.iter().filter(|(_, value)| *value == Value::Win).count();
//! assert!(0 < winning && winning < solved.moves.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

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
