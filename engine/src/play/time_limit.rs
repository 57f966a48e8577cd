//! A game's time limit on the wall clock, as matches between engine programs set it: a fixed
//! time per move, or a clock per player with an increment.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::play::clock::TimeControl;

/// A game's time limit on the wall clock. Text form (stable, stored with matches): `move:SECONDS`
/// (the same time for every move) or `game:BASE+INCREMENT` (a clock per player).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TimeLimit {
    /// Seconds per move.
    PerMove(f64),
    /// Seconds per game and seconds added after each move.
    Increment {
        /// The clock at the start.
        base: f64,
        /// Added after each move.
        increment: f64,
    },
}

/// Longest time a limit may name, in seconds (a day).
pub const MAX_LIMIT_SECONDS: f64 = 86_400.0;

/// Shortest time a limit may name (a move's time, a clock's start, an increment other than
/// 0), in seconds: a millisecond, the finest the referee's clock and the engines' protocols
/// write (a nanosecond limit would only be a forfeit for whoever moves first).
pub const MIN_LIMIT_SECONDS: f64 = 0.001;

/// A time limit text that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "bad time limit {0:?}: expected move:SECONDS or game:BASE+INCREMENT (seconds from 0.001 \
     to 86400; an increment may also be 0)"
)]
pub struct ParseTimeLimitError(pub String);

impl FromStr for TimeLimit {
    type Err = ParseTimeLimitError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || ParseTimeLimitError(crate::excerpt(text));
        let seconds = |s: &str, zero_ok: bool| {
            s.parse::<f64>()
                .ok()
                .filter(|t| {
                    (*t >= MIN_LIMIT_SECONDS || (zero_ok && *t == 0.0)) && *t <= MAX_LIMIT_SECONDS
                })
                .ok_or_else(bad)
        };
        match text.split_once(':') {
            Some(("move", s)) => Ok(TimeLimit::PerMove(seconds(s, false)?)),
            Some(("game", clock)) => {
                let (base, increment) = clock.split_once('+').unwrap_or((clock, "0"));
                Ok(TimeLimit::Increment {
                    base: seconds(base, false)?,
                    increment: seconds(increment, true)?,
                })
            }
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for TimeLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeLimit::PerMove(s) => write!(f, "move:{s}"),
            TimeLimit::Increment { base, increment } => write!(f, "game:{base}+{increment}"),
        }
    }
}

impl TimeLimit {
    /// The limit with every time multiplied by `factor` (a worker's time scale), each kept
    /// within [`MIN_LIMIT_SECONDS`]..=[`MAX_LIMIT_SECONDS`] (an increment of 0 stays 0). A
    /// factor that is not a positive finite number leaves the limit as it is.
    #[must_use]
    pub fn scaled(self, factor: f64) -> TimeLimit {
        if !(factor.is_finite() && factor > 0.0) {
            return self;
        }
        let scale = |seconds: f64| (seconds * factor).clamp(MIN_LIMIT_SECONDS, MAX_LIMIT_SECONDS);
        match self {
            TimeLimit::PerMove(seconds) => TimeLimit::PerMove(scale(seconds)),
            TimeLimit::Increment { base, increment } => TimeLimit::Increment {
                base: scale(base),
                increment: if increment == 0.0 {
                    0.0
                } else {
                    scale(increment)
                },
            },
        }
    }

    /// The same as a time control.
    #[must_use]
    pub fn control(self) -> TimeControl {
        match self {
            TimeLimit::PerMove(seconds) => TimeControl::PerMove { seconds },
            TimeLimit::Increment { base, increment } => TimeControl::Increment { base, increment },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limits_parse_and_print() {
        for (text, limit) in [
            ("move:0.5", TimeLimit::PerMove(0.5)),
            ("move:0.001", TimeLimit::PerMove(MIN_LIMIT_SECONDS)),
            (
                "game:60+1",
                TimeLimit::Increment {
                    base: 60.0,
                    increment: 1.0,
                },
            ),
            (
                "game:30",
                TimeLimit::Increment {
                    base: 30.0,
                    increment: 0.0,
                },
            ),
        ] {
            assert_eq!(text.parse::<TimeLimit>(), Ok(limit));
            assert_eq!(limit.to_string().parse::<TimeLimit>(), Ok(limit));
        }
        for bad in [
            "0.5",
            "move:0",
            "move:1e-9",
            "move:0.0009",
            "game:1e-9+1",
            "game:10+1e-9",
            "move:-1",
            "move:nan",
            "move:86401",
            "game:+1",
            "game:10+x",
            "hour:1",
        ] {
            assert!(bad.parse::<TimeLimit>().is_err(), "{bad}");
        }
    }

    #[test]
    fn scaled_limits_stay_within_the_bounds() {
        assert_eq!(TimeLimit::PerMove(0.5).scaled(2.0), TimeLimit::PerMove(1.0));
        let clock = TimeLimit::Increment {
            base: 60.0,
            increment: 0.0,
        };
        assert_eq!(
            clock.scaled(0.5),
            TimeLimit::Increment {
                base: 30.0,
                increment: 0.0
            }
        );
        let clock = TimeLimit::Increment {
            base: 10.0,
            increment: 1.0,
        };
        assert_eq!(
            clock.scaled(0.25),
            TimeLimit::Increment {
                base: 2.5,
                increment: 0.25
            }
        );
        assert_eq!(
            TimeLimit::PerMove(0.001).scaled(0.1),
            TimeLimit::PerMove(MIN_LIMIT_SECONDS)
        );
        assert_eq!(
            TimeLimit::PerMove(MAX_LIMIT_SECONDS).scaled(10.0),
            TimeLimit::PerMove(MAX_LIMIT_SECONDS)
        );
        for odd in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(TimeLimit::PerMove(0.5).scaled(odd), TimeLimit::PerMove(0.5));
        }
    }
}
