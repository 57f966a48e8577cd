//! `pentagrid-proto`: the gRPC API of the cluster (package `pentagrid.v2`) and the
//! conversions between its wire messages and the domain values of `pentagrid-model` and the
//! engine, in one place (the limits both sides keep are `pentagrid_model::limits`).

mod client;
mod convert;
mod errors;
mod notes;
mod states;

/// The generated messages, client and server of `pentagrid.v2`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod v2 {
    tonic::include_proto!("pentagrid.v2");
}

pub use client::{Client, ClientAuth, ConnectError, connect};
pub use convert::{
    book_row_to_wire, book_tables_to_wire, cancel_outcome_of_wire, cancel_outcome_to_wire,
    export_row_to_wire, flagged_worker_of_wire, flagged_worker_to_wire, match_state_of_wire,
    match_state_to_wire, match_wait_of_wire, match_wait_to_wire, puzzle_filter_of_wire,
    puzzle_filter_to_wire, table_source_of_wire, table_source_to_wire, tune_purges_of_wire,
    tune_purges_to_wire, tune_state_of_wire, tune_state_to_wire, tune_step_of_wire,
    tune_step_to_wire, worker_info_of_wire, worker_info_to_wire,
};
pub use errors::{ConversionError, error_status, reason_of};
pub use notes::{
    adjudication_source_of_wire, forfeit_of_wire, forfeit_to_wire, loss_reason_of_wire,
    loss_reason_to_wire, note_of_wire, note_to_wire, time_scale_of_wire,
};
pub use pentagrid_model::{
    DealResult, ExactSource, GameForfeit, GameNote, LossReason, MAX_DEEP_LEAVES, MAX_JOB_PLAYOUTS,
    MAX_MOVE_MILLIS, MAX_NOTE_BYTES, MAX_SOLITAIRE_DEALS, MAX_VERIFY_CANDIDATES, MoveScores,
    MoveTimes, Outcome, RejectionKind, Row, Task, TimeScale, UNKNOWN_SCORE, Verdict, clip_note,
};
pub use states::{
    accuracy_of_wire, accuracy_to_wire, pentanomial_counts, pentanomial_of_counts, source_of_wire,
    source_to_wire, sprt_decision_of_wire, sprt_decision_to_wire, value_of_wire, value_to_wire,
};

/// Version of the wire protocol. Both sides send it in the `x-pentagrid-protocol` header and
/// refuse a peer that speaks another one. Version 2 is the `pentagrid.v2` package.
pub const PROTOCOL_VERSION: u32 = 2;

/// Metadata key carrying [`PROTOCOL_VERSION`].
pub const PROTOCOL_HEADER: &str = "x-pentagrid-protocol";

/// Largest message either side accepts, in bytes: ample for any real job or result (a full move
/// table is about 12 KB), small enough to refuse absurd ones.
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// Longest token either side accepts, in bytes: it travels in a header, and HTTP/2 peers
/// commonly refuse header blocks past 8 to 16 KB.
pub const MAX_TOKEN_BYTES: usize = 1_024;
