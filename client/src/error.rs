//! The client library's errors: one enum, with the coordinator's refusals kept as statuses so
//! callers can branch on their typed reason.

use pentagrid_proto::reason_of;

use crate::parameter::ParameterError;
use thiserror::Error;

pub use pentagrid_model::RefusalReason;

/// Why a client call or workflow failed.
#[derive(Debug, Error)]
pub enum ClientError {
    /// The address, token or TLS settings are unusable.
    #[error(transparent)]
    Connect(#[from] pentagrid_proto::ConnectError),
    /// A token file is missing, unreadable or malformed.
    #[error("{0}")]
    Token(String),
    /// The coordinator refused a call, or could not be reached.
    #[error("{}", .0.message())]
    Rpc(#[from] tonic::Status),
    /// A request is out of range or malformed (checked before anything is sent).
    #[error("{0}")]
    Invalid(String),
    /// A workflow's parameter is refused (checked before anything is sent); a front end
    /// renders it with its own names for the parameters ([`ParameterError::render`]).
    #[error(transparent)]
    Parameter(#[from] ParameterError),
    /// Input rows or lines are malformed (`line` counted from 1).
    #[error("line {line}: {why}")]
    Format {
        /// The line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// An opening suite file does not read (the line and reason are in the error).
    #[error("opening suite {path}: {error}")]
    Suite {
        /// The file.
        path: String,
        /// What is wrong with it.
        error: pentago::SuiteError,
    },
    /// The coordinator sent something this client cannot read.
    #[error("the coordinator sent {0}")]
    Unreadable(String),
    /// Reading or writing a file failed.
    // The io error is the source: error chains print it after the context, once.
    #[error("{context}")]
    Io {
        /// What was being done.
        context: String,
        /// The failure.
        source: std::io::Error,
    },
    /// A workflow's caller told it to stop from a progress callback (its own failure, such
    /// as its output having gone away).
    // The caller's error is the source: error chains print it after the context, once.
    #[error("{context}")]
    Stopped {
        /// What the callback was doing.
        context: String,
        /// The caller's reason.
        source: Stop,
    },
    /// A puzzle round ended with fewer new puzzles than asked for (more rounds, longer
    /// mates or fewer stones find more; with `stored_only`, so do random games).
    #[error("only {found} of the {wanted} puzzles asked for were found: {why}")]
    PuzzlesShort {
        /// New puzzles stored.
        found: u64,
        /// New puzzles asked for.
        wanted: u64,
        /// What stopped the round.
        why: String,
        /// The round mined only the stored games and found no fresh candidates there.
        stored_only: bool,
    },
    /// A thread pool or runtime could not start.
    #[error("{0}")]
    Runtime(String),
    /// No stored match belongs to the tournament asked for.
    #[error("no tournament {0}")]
    NoTournament(u64),
    /// The stored results give no rating list.
    #[error(transparent)]
    Rating(#[from] pentagrid_rating::RatingError),
    /// Exact values could not be read, or judging input is malformed.
    #[error(transparent)]
    Judge(#[from] crate::judge::JudgeError),
}

impl ClientError {
    /// The typed reason of a refusal by the coordinator; [`RefusalReason::Unspecified`] for
    /// everything else.
    #[must_use]
    pub fn reason(&self) -> RefusalReason {
        match self {
            ClientError::Rpc(status) => reason_of(status).into(),
            _ => RefusalReason::Unspecified,
        }
    }

    /// Whether the coordinator could not be reached at all.
    #[must_use]
    pub fn is_unreachable(&self) -> bool {
        matches!(self, ClientError::Rpc(status) if status.code() == tonic::Code::Unavailable)
    }

    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> ClientError {
        let context = context.into();
        move |source| ClientError::Io { context, source }
    }
}

/// A caller's reason to stop a workflow, returned from one of its progress callbacks: the
/// caller's own error, whatever its type (the workflow ends with [`ClientError::Stopped`]).
pub type Stop = Box<dyn std::error::Error + Send + Sync>;

/// What a progress callback answers: go on (`Ok`), or stop for the caller's reason.
pub type ProgressResult = std::result::Result<(), Stop>;

/// Results of the client library.
pub type Result<T, E = ClientError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_reads_as_its_reason() {
        let status = pentagrid_proto::error_status(
            tonic::Code::NotFound,
            pentagrid_proto::v2::ErrorReason::NotFound,
            "x",
        );
        assert_eq!(ClientError::Rpc(status).reason(), RefusalReason::NotFound);
    }
}
