//! Game-theoretic values (win, draw, loss) from the point of view of the side to move.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::color::Color;
use crate::board::status::Status;

/// The exact value of a position for the side to move. Stored as `-1`, `0`, `1` (stable).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "i8", try_from = "i8")]
#[repr(i8)]
pub enum Value {
    /// The side to move loses against best play.
    Loss = -1,
    /// Best play draws.
    Draw = 0,
    /// The side to move wins against best play.
    Win = 1,
}

impl Value {
    /// The same outcome seen by the other player.
    #[must_use]
    pub const fn negate(self) -> Value {
        match self {
            Value::Loss => Value::Win,
            Value::Draw => Value::Draw,
            Value::Win => Value::Loss,
        }
    }

    /// The value of a finished game for `color`.
    #[must_use]
    pub const fn of_status(status: Status, color: Color) -> Option<Value> {
        match status {
            Status::Ongoing => None,
            Status::Draw => Some(Value::Draw),
            Status::Won(winner) => Some(if winner as u8 == color as u8 {
                Value::Win
            } else {
                Value::Loss
            }),
        }
    }

    /// `1`, `0` or `-1`.
    #[must_use]
    pub const fn as_i8(self) -> i8 {
        self as i8
    }

    /// The score of this value: 1, ½ or 0.
    #[must_use]
    pub const fn score(self) -> f64 {
        match self {
            Value::Loss => 0.0,
            Value::Draw => 0.5,
            Value::Win => 1.0,
        }
    }

    /// `win`, `draw` or `loss`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Value::Loss => "loss",
            Value::Draw => "draw",
            Value::Win => "win",
        }
    }
}

impl From<Value> for i8 {
    fn from(value: Value) -> i8 {
        value.as_i8()
    }
}

impl TryFrom<i8> for Value {
    type Error = String;

    fn try_from(v: i8) -> Result<Self, Self::Error> {
        match v {
            -1 => Ok(Value::Loss),
            0 => Ok(Value::Draw),
            1 => Ok(Value::Win),
            _ => Err(format!("value {v} is not -1, 0 or 1")),
        }
    }
}

impl std::str::FromStr for Value {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        [Value::Win, Value::Draw, Value::Loss]
            .into_iter()
            .find(|v| v.name() == text)
            .ok_or_else(|| format!("{text:?} is not win, draw or loss"))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for value in [Value::Win, Value::Draw, Value::Loss] {
            assert_eq!(value.name().parse(), Ok(value));
        }
        assert!("won".parse::<Value>().is_err());
    }

    #[test]
    fn negation_and_status() {
        assert_eq!(Value::Win.negate(), Value::Loss);
        assert_eq!(Value::Draw.negate(), Value::Draw);
        assert_eq!(
            Value::of_status(Status::Won(Color::White), Color::Black),
            Some(Value::Loss)
        );
        assert_eq!(Value::of_status(Status::Ongoing, Color::Black), None);
        assert_eq!(Value::try_from(2), Err("value 2 is not -1, 0 or 1".into()));
        assert!(Value::Loss < Value::Draw && Value::Draw < Value::Win);
    }
}
