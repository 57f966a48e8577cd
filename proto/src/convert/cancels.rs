//! What cancelling a job did ([`CancelOutcome`]) between the domain and the wire.

use pentagrid_model::CancelOutcome;

use crate::v2;

/// An outcome's wire form ([`CancelOutcome::NotSaid`] is UNSPECIFIED).
#[must_use]
pub fn cancel_outcome_to_wire(outcome: CancelOutcome) -> v2::CancelOutcome {
    match outcome {
        CancelOutcome::Cancelled => v2::CancelOutcome::Cancelled,
        CancelOutcome::NotFound => v2::CancelOutcome::NotFound,
        CancelOutcome::AlreadyDone => v2::CancelOutcome::AlreadyDone,
        CancelOutcome::AlreadyFailed => v2::CancelOutcome::AlreadyFailed,
        CancelOutcome::AlreadyCancelled => v2::CancelOutcome::AlreadyCancelled,
        CancelOutcome::NotSaid => v2::CancelOutcome::Unspecified,
    }
}

/// An outcome from its wire number: UNSPECIFIED or one this version does not know is
/// [`CancelOutcome::NotSaid`].
#[must_use]
pub fn cancel_outcome_of_wire(number: i32) -> CancelOutcome {
    match v2::CancelOutcome::try_from(number) {
        Ok(v2::CancelOutcome::Cancelled) => CancelOutcome::Cancelled,
        Ok(v2::CancelOutcome::NotFound) => CancelOutcome::NotFound,
        Ok(v2::CancelOutcome::AlreadyDone) => CancelOutcome::AlreadyDone,
        Ok(v2::CancelOutcome::AlreadyFailed) => CancelOutcome::AlreadyFailed,
        Ok(v2::CancelOutcome::AlreadyCancelled) => CancelOutcome::AlreadyCancelled,
        Ok(v2::CancelOutcome::Unspecified) | Err(_) => CancelOutcome::NotSaid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_go_and_come_back() {
        for outcome in [
            CancelOutcome::Cancelled,
            CancelOutcome::NotFound,
            CancelOutcome::AlreadyDone,
            CancelOutcome::AlreadyFailed,
            CancelOutcome::AlreadyCancelled,
            CancelOutcome::NotSaid,
        ] {
            assert_eq!(
                cancel_outcome_of_wire(cancel_outcome_to_wire(outcome) as i32),
                outcome
            );
        }
        assert_eq!(cancel_outcome_of_wire(99), CancelOutcome::NotSaid);
    }
}
