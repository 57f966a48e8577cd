//! Tuning runs' states and steps between the domain ([`TuneState`], [`TuneStep`]) and the
//! wire.

use pentagrid_model::{TunePurges, TuneState, TuneStep};

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
        purged_pairs: step.purged_pairs,
        purged_wins: step.purged_wins,
        purged_draws: step.purged_draws,
        purged_losses: step.purged_losses,
        correction: step.correction,
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
        purged_pairs: step.purged_pairs,
        purged_wins: step.purged_wins,
        purged_draws: step.purged_draws,
        purged_losses: step.purged_losses,
        correction: step.correction,
    }
}

/// A run's purges in wire form; `None` when nothing was purged.
#[must_use]
pub fn tune_purges_to_wire(purges: TunePurges) -> Option<v2::TunePurges> {
    (purges != TunePurges::default()).then_some(v2::TunePurges {
        stepped_pairs: purges.stepped_pairs,
        replayed_pairs: purges.replayed_pairs,
        owed: purges.owed,
        owed_pairs: purges.owed_pairs,
    })
}

/// A run's purges from the wire (absent: nothing purged).
#[must_use]
pub fn tune_purges_of_wire(purges: Option<v2::TunePurges>) -> TunePurges {
    purges.map_or_else(TunePurges::default, |p| TunePurges {
        stepped_pairs: p.stepped_pairs,
        replayed_pairs: p.replayed_pairs,
        owed: p.owed,
        owed_pairs: p.owed_pairs,
    })
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

    #[test]
    fn steps_and_purges_go_and_come_back() {
        let step = TuneStep {
            iteration: 3,
            match_id: 9,
            delta: vec![1, -1],
            c: 0.1,
            plus: vec![1.0, 2.0],
            minus: vec![0.5, 1.5],
            wins: 1,
            draws: 2,
            losses: 1,
            theta: vec![0.4, 0.6],
            values: vec![0.8, 1.7],
            purged_pairs: 1,
            purged_wins: 2,
            purged_draws: 0,
            purged_losses: 0,
            correction: vec![-0.01, 0.01],
        };
        assert_eq!(tune_step_of_wire(tune_step_to_wire(step.clone())), step);
        let purges = TunePurges {
            stepped_pairs: 2,
            replayed_pairs: 1,
            owed: vec![0.02, -0.02],
            owed_pairs: 1,
        };
        assert_eq!(
            tune_purges_of_wire(tune_purges_to_wire(purges.clone())),
            purges
        );
        assert_eq!(tune_purges_to_wire(TunePurges::default()), None);
        assert_eq!(tune_purges_of_wire(None), TunePurges::default());
    }
}
