//! Time controls and how long to think: the budget policy of an engine program that is told
//! its time control (GTP's `time_settings`) and what is left on its clock (`time_left`).

use std::fmt;

/// How a game's time is controlled.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TimeControl {
    /// No limit: the engine's own budget decides.
    Unlimited,
    /// The same time for every move; unused time is lost.
    PerMove {
        /// Seconds per move.
        seconds: f64,
    },
    /// A base time for the whole game and an increment added after each move (Fischer);
    /// with no increment, absolute time.
    Increment {
        /// Seconds for the game at the start.
        base: f64,
        /// Seconds added after every move.
        increment: f64,
    },
    /// GTP's Canadian byo-yomi: main time, then periods of `period` seconds in each of which
    /// `stones` moves must be made.
    Canadian {
        /// Main time in seconds.
        main: f64,
        /// Seconds per period.
        period: f64,
        /// Moves per period (at least 1).
        stones: u32,
    },
}

impl TimeControl {
    /// The control GTP's `time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES` means (GTP 2, §4.2):
    /// `0 T 1` is `T` seconds per move; a byo-yomi time with no stones means no limit.
    #[must_use]
    pub fn from_gtp(main: f64, byo_yomi: f64, stones: u32) -> TimeControl {
        match (main, byo_yomi, stones) {
            (_, b, 0) if b > 0.0 => TimeControl::Unlimited,
            (m, b, _) if b <= 0.0 => TimeControl::Increment {
                base: m,
                increment: 0.0,
            },
            (m, b, 1) if m <= 0.0 => TimeControl::PerMove { seconds: b },
            (m, b, s) => TimeControl::Canadian {
                main: m,
                period: b,
                stones: s,
            },
        }
    }

    /// The clock at the start of a game under this control.
    #[must_use]
    pub fn initial_clock(&self) -> Clock {
        match *self {
            TimeControl::Unlimited => Clock {
                seconds: f64::INFINITY,
                stones: 0,
            },
            TimeControl::PerMove { seconds } => Clock { seconds, stones: 1 },
            TimeControl::Increment { base, .. } => Clock {
                seconds: base,
                stones: 0,
            },
            TimeControl::Canadian {
                main,
                period,
                stones,
            } if main <= 0.0 => Clock {
                seconds: period,
                stones,
            },
            TimeControl::Canadian { main, .. } => Clock {
                seconds: main,
                stones: 0,
            },
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::Unlimited => f.write_str("no time limit"),
            TimeControl::PerMove { seconds } => write!(f, "{seconds} s per move"),
            TimeControl::Increment { base, increment } => {
                write!(f, "{base} s per game + {increment} s per move")
            }
            TimeControl::Canadian {
                main,
                period,
                stones,
            } => write!(f, "{main} s, then {stones} moves per {period} s"),
        }
    }
}

/// What is left on one player's clock, as GTP's `time_left COLOUR SECONDS STONES` says it:
/// seconds, and the moves still to make in the current byo-yomi period (0 in main time).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Clock {
    /// Seconds left.
    pub seconds: f64,
    /// Moves to make in those seconds; 0: the seconds are main (or whole-game) time.
    pub stones: u32,
}

impl Clock {
    /// The clock after a move that took `elapsed` seconds under `control`, for an engine that
    /// is not told (`time_left`) what is left: the time is taken off, the increment added, and
    /// a byo-yomi period counts down its moves and starts over.
    #[must_use]
    pub fn after_move(self, control: &TimeControl, elapsed: f64) -> Clock {
        let left = self.seconds - elapsed;
        match *control {
            TimeControl::Unlimited | TimeControl::PerMove { .. } => control.initial_clock(),
            TimeControl::Increment { increment, .. } => Clock {
                seconds: left.max(0.0) + increment,
                stones: 0,
            },
            TimeControl::Canadian { period, stones, .. } => {
                let (seconds, to_make) = match self.stones {
                    // Main time ran out during the move: the rest came out of a first period.
                    0 if left < 0.0 => (period + left, stones),
                    0 => {
                        return Clock {
                            seconds: left,
                            stones: 0,
                        };
                    }
                    n => (left, n),
                };
                match to_make.saturating_sub(1) {
                    0 => Clock {
                        seconds: period,
                        stones,
                    },
                    n => Clock {
                        seconds: seconds.max(0.0),
                        stones: n,
                    },
                }
            }
        }
    }
}

/// How much of the time left an engine keeps back for what the search does not count: starting
/// the search, merging trees, and the trip of the answer to the controller.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SafetyMargin {
    /// Seconds always kept back.
    pub seconds: f64,
    /// And this fraction of the time available for the move.
    pub fraction: f64,
}

impl Default for SafetyMargin {
    fn default() -> Self {
        SafetyMargin {
            seconds: 0.05,
            fraction: 0.05,
        }
    }
}

/// The shortest think: the search looks at the clock in small batches anyway.
pub const MIN_THINK_SECONDS: f64 = 0.001;

/// Moves the side to move expects still to make with `stones` on the board: games end by the
/// 28th stone on average, so count to 34 rather than 36, and never fewer than two.
fn moves_to_go(stones: u32) -> f64 {
    (f64::from(34u32.saturating_sub(stones)) / 2.0)
        .ceil()
        .max(2.0)
}

/// Seconds to think on the next move under `control`, with `clock` left (the control's
/// initial clock when the controller has not said), `stones` on the board; `None` under no
/// limit. Never more than the hard limit of the move less the margin (and at least
/// [`MIN_THINK_SECONDS`]): the whole remaining time under a game clock, the period's share
/// under byo-yomi, the move time under a per-move control.
#[must_use]
pub fn think_time(
    control: &TimeControl,
    clock: Option<Clock>,
    stones: u32,
    margin: &SafetyMargin,
) -> Option<f64> {
    let clock = clock.unwrap_or_else(|| control.initial_clock());
    let seconds = clock.seconds.max(0.0);
    let (wanted, limit) = match *control {
        TimeControl::Unlimited => return None,
        TimeControl::PerMove { seconds: per_move } => {
            let limit = seconds.min(per_move);
            (limit, limit)
        }
        TimeControl::Increment { increment, .. } => {
            (seconds / moves_to_go(stones) + 0.8 * increment, seconds)
        }
        TimeControl::Canadian {
            period,
            stones: per_period,
            ..
        } => {
            if clock.stones > 0 {
                let share = seconds / f64::from(clock.stones);
                (share, share)
            } else {
                let share = period / f64::from(per_period.max(1));
                (seconds / moves_to_go(stones) + 0.8 * share, seconds + share)
            }
        }
    };
    let hard = limit - margin.seconds - margin.fraction * limit;
    Some(wanted.min(hard).max(MIN_THINK_SECONDS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn think(control: TimeControl, seconds: f64, stones_left: u32, board: u32) -> f64 {
        let clock = Clock {
            seconds,
            stones: stones_left,
        };
        think_time(&control, Some(clock), board, &SafetyMargin::default()).unwrap()
    }

    #[test]
    fn gtp_time_settings_map_to_controls() {
        assert_eq!(TimeControl::from_gtp(0.0, 5.0, 0), TimeControl::Unlimited);
        assert_eq!(
            TimeControl::from_gtp(0.0, 2.0, 1),
            TimeControl::PerMove { seconds: 2.0 }
        );
        assert_eq!(
            TimeControl::from_gtp(60.0, 0.0, 0),
            TimeControl::Increment {
                base: 60.0,
                increment: 0.0
            }
        );
        assert_eq!(
            TimeControl::from_gtp(60.0, 10.0, 5),
            TimeControl::Canadian {
                main: 60.0,
                period: 10.0,
                stones: 5
            }
        );
    }

    #[test]
    fn per_move_time_keeps_the_margin() {
        let control = TimeControl::PerMove { seconds: 1.0 };
        let t = think_time(&control, None, 0, &SafetyMargin::default()).unwrap();
        assert!((t - 0.9).abs() < 1e-9, "{t}");
        assert_eq!(
            think_time(&TimeControl::Unlimited, None, 0, &SafetyMargin::default()),
            None
        );
    }

    #[test]
    fn a_game_clock_is_spread_over_the_moves_to_go() {
        let control = TimeControl::Increment {
            base: 60.0,
            increment: 1.0,
        };
        let early = think(control, 60.0, 0, 0);
        let late = think(control, 30.0, 0, 24);
        assert!((early - (60.0 / 17.0 + 0.8)).abs() < 1e-9, "{early}");
        assert!((late - (30.0 / 5.0 + 0.8)).abs() < 1e-9, "{late}");
        // Almost out of time: the increment cannot be counted on before the move is made.
        assert!(think(control, 0.5, 0, 10) < 0.5);
    }

    #[test]
    fn byo_yomi_spreads_the_period_over_its_stones() {
        let control = TimeControl::Canadian {
            main: 0.0,
            period: 10.0,
            stones: 5,
        };
        let t = think(control, 10.0, 5, 8);
        assert!(t < 2.0 && t > 1.5, "{t}");
    }

    #[test]
    fn the_clock_runs_down_without_time_left() {
        let fischer = TimeControl::Increment {
            base: 10.0,
            increment: 1.0,
        };
        let clock = fischer.initial_clock().after_move(&fischer, 3.0);
        assert_eq!(
            clock,
            Clock {
                seconds: 8.0,
                stones: 0
            }
        );
        let canadian = TimeControl::Canadian {
            main: 5.0,
            period: 10.0,
            stones: 2,
        };
        let c = canadian.initial_clock().after_move(&canadian, 6.0);
        assert_eq!(
            c,
            Clock {
                seconds: 9.0,
                stones: 1
            }
        );
        let c = c.after_move(&canadian, 2.0);
        assert_eq!(
            c,
            Clock {
                seconds: 10.0,
                stones: 2
            },
            "a new period"
        );
    }

    proptest! {
        /// Whatever the clock says, the think time stays within the hard limit less the
        /// margin (or is the minimum when there is not even that).
        #[test]
        fn think_time_keeps_within_the_time_left(
            seconds in 0.0f64..600.0,
            increment in 0.0f64..30.0,
            stones_left in 0u32..25,
            board in 0u32..36,
            per_period in 1u32..25,
        ) {
            let margin = SafetyMargin::default();
            let controls = [
                TimeControl::PerMove { seconds: seconds.max(0.001) },
                TimeControl::Increment { base: 600.0, increment },
                TimeControl::Canadian { main: 600.0, period: 30.0, stones: per_period },
            ];
            for control in controls {
                let clock = Clock { seconds, stones: stones_left };
                let t = think_time(&control, Some(clock), board, &margin).unwrap();
                let limit = match control {
                    TimeControl::PerMove { seconds: per_move } => seconds.min(per_move),
                    TimeControl::Canadian { period, stones, .. } => {
                        if stones_left > 0 {
                            seconds / f64::from(stones_left)
                        } else {
                            seconds + period / f64::from(stones)
                        }
                    }
                    _ => seconds,
                };
                prop_assert!(t >= MIN_THINK_SECONDS);
                prop_assert!(
                    t <= MIN_THINK_SECONDS.max(limit - margin.seconds - margin.fraction * limit) + 1e-9,
                    "{control}: {t} of {limit}"
                );
            }
        }
    }
}
