//! Tuning runs' states and steps between the domain ([`TuneState`], [`TuneStep`]) and the
//! wire.

use pentagrid_model::{TuneState, TuneStep};

use crate::v2;

/// A run state's wire form.
#[must_use]
pub fn tune_state_to_wire(state: TuneState) -> v2::TuneState {
    match state {
        TuneState::Iterating => v2::TuneState::Iterating,
        TuneState::Verifying => v2::TuneState::Verifying,
        TuneState::Done => v2::TuneState::Done,
        TuneState::Stopped => v2::TuneState::Stopped,
    }
}

/// A run state from its wire number; `None` for UNSPECIFIED or a number this version does not
/// know.
#[must_use]
pub fn tune_state_of_wire(number: i32) -> Option<TuneState> {
    match v2::TuneState::try_from(number) {
        Ok(v2::TuneState::Iterating) => Some(TuneState::Iterating),
        Ok(v2::TuneState::Verifying) => Some(TuneState::Verifying),
        Ok(v2::TuneState::Done) => Some(TuneState::Done),
        Ok(v2::TuneState::Stopped) => Some(TuneState::Stopped),
        _ => None,
    }
}

/// A step's wire form.
#[must_use]
pub fn tune_step_to_wire(step: TuneStep) -> v2::TuneStep {
    v2::TuneStep {
        iteration: step.iteration,
        match_id: step.match_id,
        delta: step.delta,
        c: step.c,
        plus: step.plus,
        minus: step.minus,
        wins: step.wins,
        draws: step.draws,
        losses: step.losses,
        theta: step.theta,
        values: step.values,
    }
}

/// A step from the wire.
#[must_use]
pub fn tune_step_of_wire(step: v2::TuneStep) -> TuneStep {
    TuneStep {
        iteration: step.iteration,
        match_id: step.match_id,
        delta: step.delta,
        c: step.c,
        plus: step.plus,
        minus: step.minus,
        wins: step.wins,
        draws: step.draws,
        losses: step.losses,
        theta: step.theta,
        values: step.values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_go_and_come_back_and_unknown_ones_are_none() {
        for state in [
            TuneState::Iterating,
            TuneState::Verifying,
            TuneState::Done,
            TuneState::Stopped,
        ] {
            assert_eq!(
                tune_state_of_wire(tune_state_to_wire(state) as i32),
                Some(state)
            );
        }
        assert_eq!(tune_state_of_wire(v2::TuneState::Unspecified as i32), None);
        assert_eq!(tune_state_of_wire(99), None);
    }
}
