//! Wire enums and messages for values, SPRT decisions, pentanomials and accuracy against
//! perfect play, and their engine forms.

use pentago::{Accuracy, MatchAccuracy, Value};
use pentagrid_model::ExactSource;
use pentagrid_rating::SprtDecision;

use crate::errors::ConversionError;
use crate::v2;

/// The wire form of an exact value.
#[must_use]
pub fn value_to_wire(value: Option<Value>) -> v2::Value {
    match value {
        Some(Value::Win) => v2::Value::Win,
        Some(Value::Draw) => v2::Value::Draw,
        Some(Value::Loss) => v2::Value::Loss,
        None => v2::Value::Unspecified,
    }
}

/// The wire form of an exact value's source.
#[must_use]
pub fn source_to_wire(source: Option<ExactSource>) -> v2::ExactSource {
    match source {
        Some(ExactSource::Table) => v2::ExactSource::Table,
        Some(ExactSource::Solver) => v2::ExactSource::Solver,
        Some(ExactSource::Propagated) => v2::ExactSource::Propagated,
        Some(ExactSource::Imported) => v2::ExactSource::Imported,
        Some(ExactSource::Unrecorded) => v2::ExactSource::Unrecorded,
        None => v2::ExactSource::Unspecified,
    }
}

/// An exact value's source from its wire number; `None` for none (or a number this side does
/// not know: no source is claimed for it).
#[must_use]
pub fn source_of_wire(number: i32) -> Option<ExactSource> {
    match v2::ExactSource::try_from(number) {
        Ok(v2::ExactSource::Table) => Some(ExactSource::Table),
        Ok(v2::ExactSource::Solver) => Some(ExactSource::Solver),
        Ok(v2::ExactSource::Propagated) => Some(ExactSource::Propagated),
        Ok(v2::ExactSource::Imported) => Some(ExactSource::Imported),
        Ok(v2::ExactSource::Unrecorded) => Some(ExactSource::Unrecorded),
        Ok(v2::ExactSource::Unspecified) | Err(_) => None,
    }
}

/// An exact value from its wire number; `Ok(None)` for "not proven".
pub fn value_of_wire(number: i32) -> Result<Option<Value>, ConversionError> {
    match v2::Value::try_from(number) {
        Ok(v2::Value::Win) => Ok(Some(Value::Win)),
        Ok(v2::Value::Draw) => Ok(Some(Value::Draw)),
        Ok(v2::Value::Loss) => Ok(Some(Value::Loss)),
        Ok(v2::Value::Unspecified) => Ok(None),
        Err(_) => Err(ConversionError(format!("unknown value {number}"))),
    }
}

/// The wire form of an SPRT decision.
#[must_use]
pub fn sprt_decision_to_wire(decision: SprtDecision) -> v2::SprtDecision {
    match decision {
        SprtDecision::Continue => v2::SprtDecision::Continue,
        SprtDecision::AcceptH0 => v2::SprtDecision::AcceptH0,
        SprtDecision::AcceptH1 => v2::SprtDecision::AcceptH1,
    }
}

/// An SPRT decision from the wire (unknown numbers read as undecided).
#[must_use]
pub fn sprt_decision_of_wire(decision: v2::SprtDecision) -> SprtDecision {
    match decision {
        v2::SprtDecision::AcceptH0 => SprtDecision::AcceptH0,
        v2::SprtDecision::AcceptH1 => SprtDecision::AcceptH1,
        v2::SprtDecision::Continue | v2::SprtDecision::Unspecified => SprtDecision::Continue,
    }
}

/// Pair counts by A's points (0, ½, 1, 1½, 2) as the wire message.
#[must_use]
pub fn pentanomial_of_counts(counts: [u64; 5]) -> v2::Pentanomial {
    let [zero, half, one, one_and_half, two] = counts;
    v2::Pentanomial {
        zero,
        half,
        one,
        one_and_half,
        two,
    }
}

/// Pair counts by A's points from the wire message (none: all zero).
#[must_use]
pub fn pentanomial_counts(pentanomial: Option<&v2::Pentanomial>) -> [u64; 5] {
    pentanomial.map_or([0; 5], |p| [p.zero, p.half, p.one, p.one_and_half, p.two])
}

/// Both players' accuracy against perfect play as the wire message.
#[must_use]
pub fn accuracy_to_wire(accuracy: &MatchAccuracy) -> v2::MatchAccuracy {
    let side = |side: &Accuracy| v2::Accuracy {
        moves: side.moves,
        drops: side.drops,
    };
    v2::MatchAccuracy {
        min_stones: accuracy.min_stones,
        a: Some(side(&accuracy.sides[0])),
        b: Some(side(&accuracy.sides[1])),
    }
}

/// Both players' accuracy from the wire message (a missing side reads as no move judged). The
/// counts are not checked here: a result's are checked against its games by the coordinator.
#[must_use]
pub fn accuracy_of_wire(accuracy: &v2::MatchAccuracy) -> MatchAccuracy {
    let side = |side: Option<&v2::Accuracy>| {
        side.map_or_else(Accuracy::default, |s| Accuracy {
            moves: s.moves,
            drops: s.drops,
        })
    };
    MatchAccuracy {
        min_stones: accuracy.min_stones,
        sides: [side(accuracy.a.as_ref()), side(accuracy.b.as_ref())],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accuracy_round_trips_and_missing_sides_read_as_nothing_judged() {
        let accuracy = MatchAccuracy {
            min_stones: 22,
            sides: [
                Accuracy { moves: 9, drops: 2 },
                Accuracy { moves: 8, drops: 0 },
            ],
        };
        assert_eq!(accuracy_of_wire(&accuracy_to_wire(&accuracy)), accuracy);
        let bare = v2::MatchAccuracy {
            min_stones: 20,
            ..v2::MatchAccuracy::default()
        };
        assert_eq!(
            accuracy_of_wire(&bare).sides,
            [Accuracy::default(), Accuracy::default()]
        );
    }
}
