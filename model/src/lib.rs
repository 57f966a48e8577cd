//! `pentagrid-model`: the domain values that both the coordinator's store and the wire crate
//! (`pentagrid-proto`) speak — a job's [`Task`] and a worker's [`Outcome`] — in engine types,
//! below both, so that neither depends on the other for them; and the one helper that reads a
//! text field as such a value ([`parse_field`]).

mod field;
mod outcome;
mod task;

pub use field::{FieldError, QUOTED_BYTES, parse_field, quote};
pub use outcome::{DealResult, Outcome, RejectionKind, Row, Verdict};
pub use task::{MAX_JOB_PLAYOUTS, MAX_SOLITAIRE_DEALS, MAX_VERIFY_CANDIDATES, Task};
