//! `pentago`: the pure engine of pentagrid — rules, notation, symmetry, playouts and search.
//!
//! The crate is in three layers, each building only on those before it: `board` (squares,
//! twists, bitboards, positions, moves, the rules, symmetry), `search` (playouts, UCT, the exact
//! solver, the checkmate search) and `play` (players, self-play, matches, openings, puzzles).
//! The public API is the curated list of `pub use` below. The statistics of matches (Elo, the
//! SPRT, rating lists) are `pentagrid-rating`'s, the second game (the card solitaire
//! Calculation) is `pentagrid-calculation`, and the seeded random streams and error quotes both
//! games use are `pentagrid-gamekit`'s, re-exported here because the playouts take them.
//!
//! Nothing here touches the network or the disk. Positions are two 64-bit stone sets in
//! quadrant lanes, so a move is a few table lookups and a copy of 16 bytes.
//!
//! # Examples
//!
//! A position in pentagrid's notation (`docs/DESIGN.md` §2: six ranks from rank 6 down to rank
//! 1, `x` black, `o` white, `.` empty), its moves, and a move played by the rules:
//!
//! ```
//! use pentago::{Color, Move, Position, Status};
//!
//! let position: Position = "....../....../....../....../oooo../xxxx..".parse()?;
//! assert_eq!(position.side_to_move(), Color::Black); // equal counts: black moves
//! assert_eq!(position.status(), Status::Ongoing);
//!
//! // Every empty square with each of the 8 twists (moves that reach the same position included).
//! assert_eq!(position.legal_moves().len(), 28 * 8);
//!
//! // e1 makes five at once: black wins, and the twist is not made.
//! let e1: Move = "e1-1R".parse()?;
//! let after = position.play(e1)?;
//! assert_eq!(after.status(), Status::Won(Color::Black));
//! assert_eq!(after.to_string(), "....../....../....../....../oooo../xxxxx.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The headers of the main modules, in the source, carry more runnable examples: positions and
//! moves (`board/position.rs`, `board/moves.rs`), symmetry (`board/symmetry.rs`), random playouts
//! (`search/playout.rs`, [`run_playouts`]), a UCT search (`search/uct/mod.rs`, [`search()`]),
//! exact solving and checkmates (`search/solver/mod.rs`, [`Solver`], [`midsolve`],
//! [`MateSearch`]) and games between players (`play/selfplay.rs`, [`play_game`]).

mod board;
mod play;
mod search;
mod serde_text;

pub use board::bitboard::Bitboard;
pub use board::children::{MoveGroups, distinct_moves, move_groups};
pub use board::color::Color;
pub use board::history::{moves_reaching, parents};
pub use board::movegen::MoveList;
pub use board::moves::{Move, MoveNotation, ParseMoveError};
pub use board::perft::{PerftCounts, perft};
pub use board::position::{ParsePositionError, PlayError, Position, PositionKey};
pub use board::square::{ParseSquareError, Square};
pub use board::status::{ParseStatusError, Status};
pub use board::symmetry::{Canonical, Symmetry};
pub use board::twist::{Direction, Quadrant, Twist};
pub use pentagrid_gamekit::{EXCERPT_CHARS, EngineRng, excerpt, seeded_rng, splitmix64};
pub use play::accuracy::{
    ACCURACY_MIN_STONES, ACCURACY_STONES, Accuracy, AccuracyError, MatchAccuracy, TABLE_STONES,
    game_accuracy, judged_moves, pair_accuracy,
};
pub use play::adjudication::{
    ADJUDICATION_ATTEMPT_NODES, ADJUDICATION_ATTEMPT_SECONDS, Adjudicated, Adjudication,
    DEFAULT_ADJUDICATION_BUDGET_MS, DEFAULT_ADJUDICATION_STONES, MAX_ADJUDICATION_BUDGET_MS,
    ParseAdjudicationError,
};
pub use play::candidates::{
    CONTINUATION_ROOTS, CONTINUATIONS_PER_ROOT, CandidateFinder, DECIDED_MOVES, GameCandidate,
    Prospect, instructive_mate_in_one,
};
pub use play::clock::{Clock, MIN_THINK_SECONDS, SafetyMargin, TimeControl, think_time};
pub use play::exact_clock::{ExactChoice, ProvenBy, exact_move, midsolve_seconds};
pub use play::gtp;
pub use play::matches::{
    MAX_OPENING_PLIES, MatchScore, OpeningSource, PairResult, ParseOpeningSourceError, game_points,
    opening_seed, play_pair, play_pair_judged, random_opening,
};
pub use play::named::{
    MAX_PLAYER_NAME, NamedPlayer, ParseNamedPlayerError, player_label, short_spec,
    valid_player_name,
};
pub use play::openings::{Opening, ParseOpeningError, Pattern};
pub use play::player::{
    Choice, MAX_ENGINE_NAME, ParsePlayerError, Player, perfect_move, valid_engine_name,
};
pub use play::puzzle::{
    DIFFICULTY_LABELS, DeepBudget, MAX_PUZZLE_MOVES, Puzzle, PuzzleVerifier, Rejection,
    deep_first_win, difficulty, difficulty_label,
};
pub use play::record::{
    MAX_TAGS, MAX_VALUE_BYTES, MoveNote, ParseRecordError, ParseTerminationError, Record,
    RecordErrorKind, RecordPlayer, RecordedMove, ReplayError, Termination, UNKNOWN_DATE,
    parse_records, parse_records_at,
};
pub use play::selfplay::{GameRecord, GameWatch, play_game, play_game_judged};
pub use play::sprt_stop::sprt_stop;
pub use play::spsa::{
    DEFAULT_C_END, DEFAULT_R_END, MAX_TUNE_ITERATIONS, SPSA_ALPHA, SPSA_GAMMA, SpsaError,
    SpsaSchedule, perturbation, perturbed, spsa_update,
};
pub use play::suite::{MAX_SUITE_OPENINGS, SuiteError, parse_suite, suite_openings};
pub use play::themes::{ParseThemeError, Theme};
pub use play::time_limit::{MAX_LIMIT_SECONDS, MIN_LIMIT_SECONDS, ParseTimeLimitError, TimeLimit};
pub use play::tournament::{
    MAX_TOURNAMENT_PLAYERS, ParseTournamentKindError, TournamentError, TournamentKind,
};
pub use play::tune_space::{
    MAX_TUNE_PARAMS, ParamRange, ParseRangeError, TuneParam, TuneSpace, TuneSpaceError,
};
pub use search::eval::{Evaluation, LineCounts, LineOccupancy};
pub use search::oracle::{ExactOracle, ExactValues, NoOracle, SharedOracle, best_of};
pub use search::playout::{
    Ending, PLAYOUT_CHUNK, ParsePolicyError, PlayoutResult, PlayoutStats, Policy, cut_off_playout,
    playout, run_playouts,
};
pub use search::solver::{
    AttackNode, CertificateError, DeepLimits, DeepNode, DeepProgress, DeepProof, DeepProveError,
    DeepSolution, DeepSolver, FIRST_ATTEMPT_NODES, Frontier, LEAVES_HEADER, LeafError, LeafMode,
    LeafTable, LeafValue, MAX_MATE_MOVES, MID_MIN_STONES, MateProbe, MateSearch, MidSolution,
    MidSolveError, MoveOrdering, ProofCheckError, ProofDag, ProofFormatError, ProofLeafError,
    ProofNode, ProofTree, ProveError, QUICK_LEAF_NODES, ROTATED_VARIANTS, Reply, SECOND_LEAF_NODES,
    Solution, SolveLimits, SolveMethod, Solver, ValueBounds, check_leaf, midsolve, midsolve_until,
    prove, rotated_variants, solve_leaf,
};
pub use search::uct::{
    BYTES_PER_EDGE, Budget, KeptSearch, MoveStats, NodeTable, ParseConfigError, SearchControl,
    SearchError, SearchOptions, SearchResult, UctConfig, search,
};
pub use search::value::Value;
