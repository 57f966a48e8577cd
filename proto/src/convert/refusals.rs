//! Refusal reasons between the domain ([`RefusalReason`]) and the wire's [`ErrorReason`], one
//! table for both directions.

use pentagrid_model::RefusalReason;

use crate::v2::ErrorReason;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_maps_to_the_wire_and_back() {
        for (reason, wire) in REASONS {
            assert_eq!(ErrorReason::from(reason), wire);
            assert_eq!(RefusalReason::from(wire), reason);
        }
    }
}
