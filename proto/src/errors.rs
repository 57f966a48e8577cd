//! Errors of the wire layer: messages that do not convert, and machine-readable error reasons
//! (an [`ErrorDetail`] encoded in the status details), so callers branch on [`ErrorReason`] and
//! never on the wording of a message.

use prost::Message;
use thiserror::Error;
use tonic::{Code, Status};

use crate::v2::{ErrorDetail, ErrorReason};

/// A wire message that does not describe a valid job or result.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct ConversionError(pub String);

impl From<pentagrid_model::FieldError> for ConversionError {
    fn from(error: pentagrid_model::FieldError) -> ConversionError {
        ConversionError(error.to_string())
    }
}

/// A status with `code`, a message for people, and `reason` in its details.
#[must_use]
pub fn error_status(code: Code, reason: ErrorReason, message: impl Into<String>) -> Status {
    let detail = ErrorDetail {
        reason: reason as i32,
    };
    Status::with_details(code, message, detail.encode_to_vec().into())
}

/// The reason a status carries; [`ErrorReason::Unspecified`] when it has none (transport
/// failures, or a peer that sent no detail).
#[must_use]
pub fn reason_of(status: &Status) -> ErrorReason {
    ErrorDetail::decode(status.details())
        .ok()
        .and_then(|detail| ErrorReason::try_from(detail.reason).ok())
        .unwrap_or(ErrorReason::Unspecified)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_travels_in_the_details_whatever_the_message() {
        let status = error_status(
            Code::FailedPrecondition,
            ErrorReason::UnknownWorker,
            "anything at all",
        );
        assert_eq!(reason_of(&status), ErrorReason::UnknownWorker);
        assert_eq!(status.code(), Code::FailedPrecondition);
        let bare = Status::failed_precondition("unknown worker: say hello first");
        assert_eq!(reason_of(&bare), ErrorReason::Unspecified);
        let garbage = Status::with_details(Code::Internal, "x", vec![0xff, 0xff].into());
        assert_eq!(reason_of(&garbage), ErrorReason::Unspecified);
    }
}
