//! The one place where errors become gRPC statuses: each domain error gets its code, its
//! message for people, and a machine-readable [`ErrorReason`] in the status details, which is
//! what workers and clients branch on.

use pentagrid_proto::v2::ErrorReason;
use tonic::{Code, Status};

use super::quote::capped;

use super::auth::AuthError;
use pentagrid_coordinator::book::BookError;
use pentagrid_coordinator::builder::BuildError;
use pentagrid_coordinator::deep::DeepError;
use pentagrid_coordinator::identity::{BadResultId, BadWorkerId};
use pentagrid_coordinator::ingest::SubmitError;
use pentagrid_coordinator::jobs::{FailureError, JobError, WatchError};
use pentagrid_coordinator::match_openings::OpeningsError;
use pentagrid_coordinator::matches::MatchError;
use pentagrid_coordinator::puzzles::PuzzleError;
use pentagrid_coordinator::tunes::TuneError;
use pentagrid_store::StoreError;
use pentagrid_store::backup::BackupError;

/// A status with `code`, `reason` in its details and `message` cut to a length every peer's
/// header limits allow (a message quoting a huge input would otherwise reach the caller as
/// an opaque transport error).
fn error_status(code: Code, reason: ErrorReason, message: impl Into<String>) -> Status {
    pentagrid_proto::error_status(code, reason, capped(message.into()))
}

/// A malformed request (found while reading it off the wire).
pub(crate) fn invalid(message: impl Into<String>) -> Status {
    error_status(Code::InvalidArgument, ErrorReason::InvalidArgument, message)
}

/// A domain error as a gRPC status: the one mapping. A trait of this crate rather than
/// `From`, because neither the domain errors nor `Status` are this crate's.
pub(crate) trait ToStatus {
    /// The status that answers a call failing with this error.
    fn to_status(self) -> Status;
}

/// `.or_status()?` turns a domain result into the call's answer.
pub(crate) trait OrStatus<T> {
    /// The value, or the error's status.
    fn or_status(self) -> Result<T, Status>;
}

impl<T, E: ToStatus> OrStatus<T> for Result<T, E> {
    fn or_status(self) -> Result<T, Status> {
        self.map_err(ToStatus::to_status)
    }
}

/// A storage failure: an overflow the request caused is the caller's to fix, anything else is
/// the coordinator's.
impl ToStatus for StoreError {
    fn to_status(self) -> Status {
        let error = self;
        if let StoreError::Overflow { .. } = error {
            // The request itself would push a count past its range: the caller's to fix.
            return error_status(
                Code::OutOfRange,
                ErrorReason::InvalidArgument,
                error.to_string(),
            );
        }
        tracing::error!(%error, "storage failure");
        error_status(
            Code::Internal,
            ErrorReason::Storage,
            format!("storage failure: {error}"),
        )
    }
}

/// A failed backup.
impl ToStatus for BackupError {
    fn to_status(self) -> Status {
        match self {
            BackupError::Store(error) => error.to_status(),
            // Taking a backup only writes one: anything else failing is the coordinator's disk.
            other => {
                tracing::error!(error = %other, "backup failed");
                error_status(
                    Code::Internal,
                    ErrorReason::Storage,
                    format!("the backup failed: {other}"),
                )
            }
        }
    }
}

impl From<AuthError> for Status {
    fn from(error: AuthError) -> Status {
        let (code, reason) = match error {
            AuthError::Protocol(_) | AuthError::NoProtocol => {
                (Code::FailedPrecondition, ErrorReason::ProtocolMismatch)
            }
            AuthError::WrongToken | AuthError::NoToken => {
                (Code::Unauthenticated, ErrorReason::Unauthenticated)
            }
            AuthError::WrongRole { .. } | AuthError::Unlisted(_) => {
                (Code::PermissionDenied, ErrorReason::Forbidden)
            }
        };
        error_status(code, reason, error.to_string())
    }
}

impl ToStatus for BadWorkerId {
    fn to_status(self) -> Status {
        let error = self;
        invalid(error.to_string())
    }
}

impl ToStatus for BadResultId {
    fn to_status(self) -> Status {
        let error = self;
        invalid(error.to_string())
    }
}

impl ToStatus for JobError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            JobError::Store(error) => error.to_status(),
            JobError::UnknownWorker(_) => error_status(
                Code::FailedPrecondition,
                ErrorReason::UnknownWorker,
                error.to_string(),
            ),
            JobError::RegistryFull(_) => error_status(
                Code::ResourceExhausted,
                ErrorReason::AtCapacity,
                error.to_string(),
            ),
            JobError::BadWorkerName(_)
            | JobError::TooManyJobs(_)
            | JobError::PairsBelongToMatches
            | JobError::TooManyWatched
            | JobError::BadEngines(_) => invalid(error.to_string()),
            JobError::UnknownJob(_) => not_found(&error),
            JobError::Quarantined(_) => quarantined(&error),
            JobError::WrongSession(_) => error_status(
                Code::PermissionDenied,
                ErrorReason::WrongSession,
                error.to_string(),
            ),
            JobError::WorkerIdInUse(_) => error_status(
                Code::AlreadyExists,
                ErrorReason::WorkerIdInUse,
                error.to_string(),
            ),
        }
    }
}

impl From<super::watches::TooManyWatches> for Status {
    fn from(error: super::watches::TooManyWatches) -> Status {
        error_status(
            Code::ResourceExhausted,
            ErrorReason::AtCapacity,
            error.to_string(),
        )
    }
}

impl ToStatus for WatchError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            WatchError::Store(error) => error.to_status(),
            WatchError::ShuttingDown => error_status(
                Code::Unavailable,
                ErrorReason::Unspecified,
                error.to_string(),
            ),
        }
    }
}

impl ToStatus for FailureError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            FailureError::Store(error) => error.to_status(),
            FailureError::NotLeased(_) => error_status(
                Code::FailedPrecondition,
                ErrorReason::LeaseNotHeld,
                error.to_string(),
            ),
        }
    }
}

impl ToStatus for SubmitError {
    fn to_status(self) -> Status {
        let error = self;
        let (code, reason) = match error {
            SubmitError::Store(error) => return error.to_status(),
            SubmitError::ResultIdReused { .. } => {
                (Code::InvalidArgument, ErrorReason::ResultIdReused)
            }
            SubmitError::NotLeased(_) => (Code::FailedPrecondition, ErrorReason::LeaseNotHeld),
            SubmitError::Invalid(_) => (Code::InvalidArgument, ErrorReason::InvalidResult),
            SubmitError::Quarantined(_) => return quarantined(&error),
        };
        error_status(code, reason, error.to_string())
    }
}

impl ToStatus for MatchError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            MatchError::Store(error) => error.to_status(),
            MatchError::PairsOutOfRange(_)
            | MatchError::AccuracyStonesOutOfRange(_)
            | MatchError::EngineNeedsTimeLimit(_)
            | MatchError::WeightOutOfRange(_)
            | MatchError::SuiteMismatch { .. }
            | MatchError::FinishedOpening { .. }
            | MatchError::Openings(OpeningsError::NoneFound { .. })
            | MatchError::Page(_) => invalid(error.to_string()),
            MatchError::Openings(OpeningsError::NotCovered { .. }) => error_status(
                Code::FailedPrecondition,
                ErrorReason::Unspecified,
                error.to_string(),
            ),
            MatchError::Openings(OpeningsError::Store(error)) => error.to_status(),
            MatchError::Openings(OpeningsError::Table(_)) => {
                error_status(Code::Internal, ErrorReason::Unspecified, error.to_string())
            }
            MatchError::NotFound(_) | MatchError::NoTournament { .. } => not_found(&error),
            MatchError::NotOwner { .. } => error_status(
                Code::PermissionDenied,
                ErrorReason::Forbidden,
                error.to_string(),
            ),
            MatchError::NotRunning { .. } => error_status(
                Code::FailedPrecondition,
                ErrorReason::Finished,
                error.to_string(),
            ),
        }
    }
}

impl ToStatus for TuneError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            TuneError::Store(error) => error.to_status(),
            TuneError::Match(error) => error.to_status(),
            TuneError::Space(_)
            | TuneError::Schedule(_)
            | TuneError::Pairs(_)
            | TuneError::SprtPairs(_)
            | TuneError::Weight(_)
            | TuneError::Openings(_)
            | TuneError::Page(_) => invalid(error.to_string()),
            TuneError::NotFound(_) => not_found(&error),
            TuneError::NotOwner { .. } => error_status(
                Code::PermissionDenied,
                ErrorReason::Forbidden,
                error.to_string(),
            ),
            TuneError::NotRunning { .. } => error_status(
                Code::FailedPrecondition,
                ErrorReason::Finished,
                error.to_string(),
            ),
            TuneError::Unreadable { .. } => {
                error_status(Code::Internal, ErrorReason::Unspecified, error.to_string())
            }
        }
    }
}

impl ToStatus for BookError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            BookError::Store(error) => error.to_status(),
            BookError::AlreadyImported(_) => error_status(
                Code::AlreadyExists,
                ErrorReason::InvalidArgument,
                error.to_string(),
            ),
            BookError::ImportOutOfOrder { .. } => error_status(
                Code::FailedPrecondition,
                ErrorReason::InvalidArgument,
                error.to_string(),
            ),
            BookError::TooMany(..) | BookError::BadRow { .. } | BookError::Page(_) => {
                invalid(error.to_string())
            }
        }
    }
}

impl ToStatus for BuildError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            BuildError::Store(error) => error.to_status(),
            BuildError::Invalid(_) => invalid(error.to_string()),
            BuildError::NotFound(_) => not_found(&error),
        }
    }
}

impl ToStatus for DeepError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            DeepError::Store(error) => error.to_status(),
            DeepError::Stones { .. }
            | DeepError::LeafStones(_)
            | DeepError::Finished(_)
            | DeepError::Batch(_) => invalid(error.to_string()),
            DeepError::NotFound(_) => not_found(&error),
        }
    }
}

impl ToStatus for PuzzleError {
    fn to_status(self) -> Status {
        let error = self;
        match error {
            PuzzleError::Store(error) => error.to_status(),
            PuzzleError::Invalid(_) | PuzzleError::Page(_) => invalid(error.to_string()),
        }
    }
}

/// The worker is quarantined: permanent for its id, so workers stop.
fn quarantined(error: &dyn std::error::Error) -> Status {
    error_status(
        Code::PermissionDenied,
        ErrorReason::Quarantined,
        error.to_string(),
    )
}

fn not_found(error: &dyn std::error::Error) -> Status {
    not_found_message(error.to_string())
}

/// Nothing stored answers the request (found while answering it).
pub(crate) fn not_found_message(message: impl Into<String>) -> Status {
    error_status(Code::NotFound, ErrorReason::NotFound, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pentagrid_coordinator::identity::LabelError;
    use pentagrid_coordinator::jobs::NotLeased;
    use pentagrid_coordinator::jobs::registry::RegistryFull;
    use pentagrid_proto::reason_of;

    #[test]
    fn each_error_maps_to_its_code_and_reason() {
        let cases: Vec<(Status, Code, ErrorReason)> = vec![
            (
                JobError::UnknownWorker("w".into()).to_status(),
                Code::FailedPrecondition,
                ErrorReason::UnknownWorker,
            ),
            (
                BadWorkerId(LabelError::Empty).to_status(),
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
            ),
            (
                BadResultId(0).to_status(),
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
            ),
            (
                JobError::BadWorkerName(LabelError::TooLong { len: 101, max: 100 }).to_status(),
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
            ),
            (
                JobError::RegistryFull(RegistryFull(3)).to_status(),
                Code::ResourceExhausted,
                ErrorReason::AtCapacity,
            ),
            (
                SubmitError::NotLeased(NotLeased::NotHeld { lease_id: 7 }).to_status(),
                Code::FailedPrecondition,
                ErrorReason::LeaseNotHeld,
            ),
            (
                SubmitError::Invalid(pentagrid_coordinator::validate::InvalidResult::WrongKind)
                    .to_status(),
                Code::InvalidArgument,
                ErrorReason::InvalidResult,
            ),
            (
                AuthError::NoProtocol.into(),
                Code::FailedPrecondition,
                ErrorReason::ProtocolMismatch,
            ),
            (
                AuthError::WrongToken.into(),
                Code::Unauthenticated,
                ErrorReason::Unauthenticated,
            ),
            (
                AuthError::Unlisted("Unlisted".into()).into(),
                Code::PermissionDenied,
                ErrorReason::Forbidden,
            ),
            (
                MatchError::NotFound(3).to_status(),
                Code::NotFound,
                ErrorReason::NotFound,
            ),
            (
                JobError::UnknownJob(3).to_status(),
                Code::NotFound,
                ErrorReason::NotFound,
            ),
            (
                JobError::TooManyWatched.to_status(),
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
            ),
            (
                FailureError::NotLeased(NotLeased::NotHeld { lease_id: 7 }).to_status(),
                Code::FailedPrecondition,
                ErrorReason::LeaseNotHeld,
            ),
            (
                SubmitError::Quarantined("w".into()).to_status(),
                Code::PermissionDenied,
                ErrorReason::Quarantined,
            ),
            (
                JobError::Quarantined("w".into()).to_status(),
                Code::PermissionDenied,
                ErrorReason::Quarantined,
            ),
            (
                StoreError::Durability("disk".into()).to_status(),
                Code::Internal,
                ErrorReason::Storage,
            ),
            (
                BookError::Store(StoreError::Overflow { what: "playouts" }).to_status(),
                Code::OutOfRange,
                ErrorReason::InvalidArgument,
            ),
        ];
        let long = invalid("x".repeat(100_000));
        assert!(long.message().len() < 1_100, "{}", long.message().len());
        for (status, code, reason) in cases {
            assert_eq!(
                (status.code(), reason_of(&status)),
                (code, reason),
                "{status:?}"
            );
        }
    }
}
