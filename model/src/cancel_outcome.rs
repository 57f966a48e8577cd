//! What cancelling one job by id did: the coordinator answers it per id, and clients report it
//! per id.

/// What a cancellation did to one job.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CancelOutcome {
    /// It was queued or leased and is now cancelled.
    Cancelled,
    /// No job has this id (never handed out, or its damaged record was set aside).
    NotFound,
    /// It had already finished with its result applied.
    AlreadyDone,
    /// It had already failed for good.
    AlreadyFailed,
    /// It had already been cancelled (earlier, or earlier in the same call's ids).
    AlreadyCancelled,
    /// No reason was given (a coordinator from before per-id answers).
    NotSaid,
}

impl CancelOutcome {
    /// The stable name (JSON, logs): `cancelled`, `not_found`, `already_done`,
    /// `already_failed`, `already_cancelled`, `not_said`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CancelOutcome::Cancelled => "cancelled",
            CancelOutcome::NotFound => "not_found",
            CancelOutcome::AlreadyDone => "already_done",
            CancelOutcome::AlreadyFailed => "already_failed",
            CancelOutcome::AlreadyCancelled => "already_cancelled",
            CancelOutcome::NotSaid => "not_said",
        }
    }
}
