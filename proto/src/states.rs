//! Wire enums and messages for values, SPRT decisions and pentanomials, and their engine forms.

use pentago::{SprtDecision, Value};

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
