//! Match states and waits between the domain ([`MatchState`], [`MatchWait`]) and the wire.

use pentagrid_model::{MatchState, MatchWait};

use crate::v2;

/// The match states, domain and wire, one table for both directions.
const MATCH_STATES: [(MatchState, v2::MatchState); 5] = [
    (MatchState::Running, v2::MatchState::Running),
    (MatchState::AcceptedH0, v2::MatchState::AcceptedH0),
    (MatchState::AcceptedH1, v2::MatchState::AcceptedH1),
    (MatchState::Complete, v2::MatchState::Complete),
    (MatchState::Stopped, v2::MatchState::Stopped),
];

/// A match state's wire form.
#[must_use]
pub fn match_state_to_wire(state: MatchState) -> v2::MatchState {
    MATCH_STATES
        .iter()
        .find(|(domain, _)| *domain == state)
        .map_or(v2::MatchState::Unspecified, |(_, wire)| *wire)
}

/// A match state from its wire number; `None` for UNSPECIFIED or a number this version does
/// not know.
#[must_use]
pub fn match_state_of_wire(number: i32) -> Option<MatchState> {
    let wire = v2::MatchState::try_from(number).ok()?;
    MATCH_STATES
        .iter()
        .find(|(_, w)| *w == wire)
        .map(|(domain, _)| *domain)
}

/// Why a match waits, on the wire.
#[must_use]
pub fn match_wait_to_wire(wait: MatchWait) -> v2::MatchWait {
    match wait {
        MatchWait::NoWorkerHasEngines(engines) => v2::MatchWait {
            reason: v2::MatchWaitReason::NoWorkerHasEngines as i32,
            engines,
        },
    }
}

/// Why a match waits, from the wire; `None` for a reason this version does not know.
#[must_use]
pub fn match_wait_of_wire(wait: &v2::MatchWait) -> Option<MatchWait> {
    match v2::MatchWaitReason::try_from(wait.reason) {
        Ok(v2::MatchWaitReason::NoWorkerHasEngines) => {
            Some(MatchWait::NoWorkerHasEngines(wait.engines.clone()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_go_and_come_back_and_unknown_ones_are_none() {
        for state in MatchState::ALL {
            assert_eq!(
                match_state_of_wire(match_state_to_wire(state) as i32),
                Some(state)
            );
        }
        for number in [v2::MatchState::Unspecified as i32, 99, -1] {
            assert_eq!(match_state_of_wire(number), None);
        }
    }

    #[test]
    fn waits_go_and_come_back() {
        let wait = MatchWait::NoWorkerHasEngines(vec!["a".into(), "b".into()]);
        assert_eq!(
            match_wait_of_wire(&match_wait_to_wire(wait.clone())),
            Some(wait)
        );
    }
}
