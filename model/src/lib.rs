//! `pentagrid-model`: the domain values that both the coordinator's store and the wire crate
//! (`pentagrid-proto`) speak — a job's [`Task`] and a worker's [`Outcome`] — in engine types,
//! below both, so that neither depends on the other for them; the one helper that reads a
//! text field as such a value ([`parse_field`]); and the vocabulary the coordinator and its
//! clients share for what they report, each defined here once: matches ([`MatchState`],
//! [`MatchWait`], a game's [`MoveTimes`] and [`MoveScores`]) and tuning runs ([`TuneState`],
//! [`TuneStep`]), cancelled jobs ([`CancelOutcome`]), the cluster's workers ([`WorkerInfo`],
//! [`FlaggedWorker`]), the opening book ([`BookTables`], [`BookRow`], [`ExportRow`],
//! [`TableSource`]), the puzzle collection ([`PuzzleFilter`]) and why a call was refused
//! ([`RefusalReason`]); and the [`limits`] the coordinator owns and its clients keep.

mod book_row;
mod book_tables;
mod cancel_outcome;
mod exact_source;
mod export_row;
mod field;
mod flagged_worker;
mod forfeit;
pub mod limits;
mod match_state;
mod match_wait;
mod move_scores;
mod move_times;
mod outcome;
mod puzzle_filter;
mod refusal_reason;
mod table_source;
mod task;
mod time_scale;
mod tune_state;
mod tune_step;
mod worker_info;

pub use book_row::BookRow;
pub use book_tables::BookTables;
pub use cancel_outcome::CancelOutcome;
pub use exact_source::{ExactSource, ParseExactSourceError};
pub use export_row::ExportRow;
pub use field::{FieldError, QUOTED_BYTES, parse_field, quote};
pub use flagged_worker::FlaggedWorker;
pub use forfeit::{
    GameForfeit, GameNote, LossReason, MAX_NOTE_BYTES, ParseLossReasonError, clip_note,
};
pub use match_state::MatchState;
pub use match_wait::MatchWait;
pub use move_scores::{MAX_SCORE_MILLI, MoveScores, UNKNOWN_SCORE};
pub use move_times::{GameClocks, MAX_MOVE_MILLIS, MoveTimes};
pub use outcome::{DealResult, Outcome, RejectionKind, Row, Verdict};
pub use puzzle_filter::PuzzleFilter;
pub use refusal_reason::RefusalReason;
pub use table_source::TableSource;
pub use task::{
    MAX_DEEP_LEAVES, MAX_JOB_PLAYOUTS, MAX_SOLITAIRE_DEALS, MAX_VERIFY_CANDIDATES, Task,
};
pub use time_scale::{MAX_TIME_SCALE, MIN_TIME_SCALE, TimeScale, TimeScaleError};
pub use tune_state::TuneState;
pub use tune_step::{TunePurges, TuneStep};
pub use worker_info::WorkerInfo;
