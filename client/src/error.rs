//! The client library's errors: one enum, with the coordinator's refusals kept as statuses so
//! callers can branch on their typed reason.

use pentagrid_proto::reason_of;
use pentagrid_proto::v2::ErrorReason;
use thiserror::Error;

/// The typed reason the coordinator gave for refusing a call (the wire's `ErrorReason`, read).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RefusalReason {
    /// No reason given, or one this client does not know (and every failure that is not a
    /// refusal).
    Unspecified,
    /// The request is malformed or out of range.
    InvalidArgument,
    /// The worker id is not known to this coordinator process.
    UnknownWorker,
    /// The caller speaks another protocol version.
    ProtocolMismatch,
    /// The token is missing or wrong.
    Unauthenticated,
    /// The lease of a submitted result is not held by the caller.
    LeaseNotHeld,
    /// The submitted result fails validation against its job.
    InvalidResult,
    /// The result id was used before for another job.
    ResultIdReused,
    /// The match, build or other named thing does not exist.
    NotFound,
    /// The coordinator's storage failed.
    Storage,
    /// The token's role may not call this method.
    Forbidden,
    /// The worker is quarantined.
    Quarantined,
    /// The request is over a size limit.
    TooLarge,
    /// The coordinator is at a capacity limit: try again later.
    AtCapacity,
    /// A worker call's session is not its worker id's current one: say hello again.
    WrongSession,
    /// Another live session holds the worker id.
    WorkerIdInUse,
    /// The match (or other thing) has already finished, so it cannot be changed.
    Finished,
}

/// The pairs of a refusal reason and its wire form, one table for both directions.
const REASONS: [(RefusalReason, ErrorReason); 17] = [
    (RefusalReason::Unspecified, ErrorReason::Unspecified),
    (RefusalReason::InvalidArgument, ErrorReason::InvalidArgument),
    (RefusalReason::UnknownWorker, ErrorReason::UnknownWorker),
    (
        RefusalReason::ProtocolMismatch,
        ErrorReason::ProtocolMismatch,
    ),
    (RefusalReason::Unauthenticated, ErrorReason::Unauthenticated),
    (RefusalReason::LeaseNotHeld, ErrorReason::LeaseNotHeld),
    (RefusalReason::InvalidResult, ErrorReason::InvalidResult),
    (RefusalReason::ResultIdReused, ErrorReason::ResultIdReused),
    (RefusalReason::NotFound, ErrorReason::NotFound),
    (RefusalReason::Storage, ErrorReason::Storage),
    (RefusalReason::Forbidden, ErrorReason::Forbidden),
    (RefusalReason::Quarantined, ErrorReason::Quarantined),
    (RefusalReason::TooLarge, ErrorReason::TooLarge),
    (RefusalReason::AtCapacity, ErrorReason::AtCapacity),
    (RefusalReason::WrongSession, ErrorReason::WrongSession),
    (RefusalReason::WorkerIdInUse, ErrorReason::WorkerIdInUse),
    (RefusalReason::Finished, ErrorReason::Finished),
];

impl From<ErrorReason> for RefusalReason {
    fn from(wire: ErrorReason) -> RefusalReason {
        REASONS
            .iter()
            .find(|(_, w)| *w == wire)
            .map_or(RefusalReason::Unspecified, |(reason, _)| *reason)
    }
}

/// The wire form, for programs that build a coordinator's refusals (fakes, tests).
impl From<RefusalReason> for ErrorReason {
    fn from(reason: RefusalReason) -> ErrorReason {
        REASONS
            .iter()
            .find(|(r, _)| *r == reason)
            .map_or(ErrorReason::Unspecified, |(_, wire)| *wire)
    }
}

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
    /// A puzzle round ended with fewer new puzzles than asked for.
    #[error(
        "only {found} of the {wanted} puzzles asked for were found: {why}; raise --rounds or \
         --max-moves, or lower --min-stones"
    )]
    PuzzlesShort {
        /// New puzzles stored.
        found: u64,
        /// New puzzles asked for.
        wanted: u64,
        /// What stopped the round.
        why: String,
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

/// Results of the client library.
pub type Result<T, E = ClientError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_maps_to_the_wire_and_back() {
        for (reason, wire) in REASONS {
            assert_eq!(ErrorReason::from(reason), wire);
            assert_eq!(RefusalReason::from(wire), reason);
        }
        let status =
            pentagrid_proto::error_status(tonic::Code::NotFound, ErrorReason::NotFound, "x");
        assert_eq!(ClientError::Rpc(status).reason(), RefusalReason::NotFound);
    }
}
