//! `pentagrid-model`: the domain values that both the coordinator's store and the wire crate
//! (`pentagrid-proto`) speak — a job's [`Task`] and a worker's [`Outcome`] — in engine types,
//! below both, so that neither depends on the other for them; and the one helper that reads a
//! text field as such a value ([`parse_field`]).

mod exact_source;
mod field;
mod forfeit;
mod outcome;
mod task;
mod time_scale;

pub use exact_source::{ExactSource, ParseExactSourceError};
pub use field::{FieldError, QUOTED_BYTES, parse_field, quote};
pub use forfeit::{
    GameForfeit, GameNote, LossReason, MAX_NOTE_BYTES, ParseLossReasonError, clip_note,
};
pub use outcome::{DealResult, Outcome, RejectionKind, Row, Verdict};
pub use task::{
    MAX_DEEP_LEAVES, MAX_JOB_PLAYOUTS, MAX_SOLITAIRE_DEALS, MAX_VERIFY_CANDIDATES, Task,
};
pub use time_scale::{MAX_TIME_SCALE, MIN_TIME_SCALE, TimeScale, TimeScaleError};
