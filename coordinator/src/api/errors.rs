//! The one place where errors become gRPC statuses: each domain error gets its code, its
//! message for people, and a machine-readable [`ErrorReason`] in the status details, which is
//! what workers and clients branch on.

use pentagrid_proto::v2::ErrorReason;
use tonic::{Code, Status};

use super::quote::capped;

use super::auth::AuthError;
use crate::book::BookError;
use crate::builder::BuildError;
use crate::deep::DeepError;
use crate::identity::{BadResultId, BadWorkerId};
use crate::ingest::SubmitError;
use crate::jobs::{FailureError, JobError, WatchError};
use crate::match_openings::OpeningsError;
use crate::matches::MatchError;
use crate::puzzles::PuzzleError;
use crate::tunes::TuneError;
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

/// A storage failure as a status (the store's crate cannot name gRPC, so this is a function
/// rather than a `From`): an overflow the request caused is the caller's to fix, anything else
/// is the coordinator's.
pub(crate) fn store_status(error: StoreError) -> Status {
    {
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

/// A failed backup as a status.
pub(crate) fn backup_status(error: BackupError) -> Status {
    {
        match error {
            BackupError::Store(error) => store_status(error),
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

impl From<BadWorkerId> for Status {
    fn from(error: BadWorkerId) -> Status {
        invalid(error.to_string())
    }
}

impl From<BadResultId> for Status {
    fn from(error: BadResultId) -> Status {
        invalid(error.to_string())
    }
}

impl From<JobError> for Status {
    fn from(error: JobError) -> Status {
        match error {
            JobError::Store(error) => store_status(error),
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

impl From<WatchError> for Status {
    fn from(error: WatchError) -> Status {
        match error {
            WatchError::Store(error) => store_status(error),
            WatchError::ShuttingDown => error_status(
                Code::Unavailable,
                ErrorReason::Unspecified,
                error.to_string(),
            ),
        }
    }
}

impl From<FailureError> for Status {
    fn from(error: FailureError) -> Status {
        match error {
            FailureError::Store(error) => store_status(error),
            FailureError::NotLeased(_) => error_status(
                Code::FailedPrecondition,
                ErrorReason::LeaseNotHeld,
                error.to_string(),
            ),
        }
    }
}

impl From<SubmitError> for Status {
    fn from(error: SubmitError) -> Status {
        let (code, reason) = match error {
            SubmitError::Store(error) => return store_status(error),
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

impl From<MatchError> for Status {
    fn from(error: MatchError) -> Status {
        match error {
            MatchError::Store(error) => store_status(error),
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
            MatchError::Openings(OpeningsError::Store(error)) => store_status(error),
            MatchError::Openings(OpeningsError::Table(_)) => {
                error_status(Code::Internal, ErrorReason::Unspecified, error.to_string())
            }
            MatchError::NotFound(_) | MatchError::NoTournament { .. } => not_found(&error),
            MatchError::NotRunning { .. } => error_status(
                Code::FailedPrecondition,
                ErrorReason::Finished,
                error.to_string(),
            ),
        }
    }
}

impl From<TuneError> for Status {
    fn from(error: TuneError) -> Status {
        match error {
            TuneError::Store(error) => store_status(error),
            TuneError::Match(error) => error.into(),
            TuneError::Space(_)
            | TuneError::Schedule(_)
            | TuneError::Pairs(_)
            | TuneError::SprtPairs(_)
            | TuneError::Weight(_)
            | TuneError::Openings(_)
            | TuneError::Page(_) => invalid(error.to_string()),
            TuneError::NotFound(_) => not_found(&error),
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

impl From<BookError> for Status {
    fn from(error: BookError) -> Status {
        match error {
            BookError::Store(error) => store_status(error),
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

impl From<BuildError> for Status {
    fn from(error: BuildError) -> Status {
        match error {
            BuildError::Store(error) => store_status(error),
            BuildError::Invalid(_) => invalid(error.to_string()),
            BuildError::NotFound(_) => not_found(&error),
        }
    }
}

impl From<DeepError> for Status {
    fn from(error: DeepError) -> Status {
        match error {
            DeepError::Store(error) => store_status(error),
            DeepError::Stones { .. }
            | DeepError::LeafStones(_)
            | DeepError::Finished(_)
            | DeepError::Batch(_) => invalid(error.to_string()),
            DeepError::NotFound(_) => not_found(&error),
        }
    }
}

impl From<PuzzleError> for Status {
    fn from(error: PuzzleError) -> Status {
        match error {
            PuzzleError::Store(error) => store_status(error),
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
    use crate::identity::LabelError;
    use crate::jobs::NotLeased;
    use crate::jobs::registry::RegistryFull;
    use pentagrid_proto::reason_of;

    #[test]
    fn each_error_maps_to_its_code_and_reason() {
        let cases: Vec<(Status, Code, ErrorReason)> = vec![
            (
                JobError::UnknownWorker("w".into()).into(),
                Code::FailedPrecondition,
                ErrorReason::UnknownWorker,
            ),
            (
                BadWorkerId(LabelError::Empty).into(),
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
            ),
            (
                BadResultId(0).into(),
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
            ),
            (
                JobError::BadWorkerName(LabelError::TooLong { len: 101, max: 100 }).into(),
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
            ),
            (
                JobError::RegistryFull(RegistryFull(3)).into(),
                Code::ResourceExhausted,
                ErrorReason::AtCapacity,
            ),
            (
                SubmitError::NotLeased(NotLeased::NotHeld { lease_id: 7 }).into(),
                Code::FailedPrecondition,
                ErrorReason::LeaseNotHeld,
            ),
            (
                SubmitError::Invalid(crate::validate::InvalidResult::WrongKind).into(),
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
                MatchError::NotFound(3).into(),
                Code::NotFound,
                ErrorReason::NotFound,
            ),
            (
                JobError::UnknownJob(3).into(),
                Code::NotFound,
                ErrorReason::NotFound,
            ),
            (
                JobError::TooManyWatched.into(),
                Code::InvalidArgument,
                ErrorReason::InvalidArgument,
            ),
            (
                FailureError::NotLeased(NotLeased::NotHeld { lease_id: 7 }).into(),
                Code::FailedPrecondition,
                ErrorReason::LeaseNotHeld,
            ),
            (
                SubmitError::Quarantined("w".into()).into(),
                Code::PermissionDenied,
                ErrorReason::Quarantined,
            ),
            (
                JobError::Quarantined("w".into()).into(),
                Code::PermissionDenied,
                ErrorReason::Quarantined,
            ),
            (
                store_status(StoreError::Durability("disk".into())),
                Code::Internal,
                ErrorReason::Storage,
            ),
            (
                BookError::Store(StoreError::Overflow { what: "playouts" }).into(),
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
