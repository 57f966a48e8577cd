//! A game's move times: the whole milliseconds each move took on the wall clock of the worker
//! that played it, in move order from the opening. Stored and sent with each match game
//! (stable: a list of whole milliseconds, at most [`MAX_MOVE_MILLIS`] each; empty means
//! unknown, as in games stored before times were kept). From them: each side's total, and
//! under a whole-game time control each side's clock after every move, as the referee kept it.

use pentago::{Color, TimeControl, TimeLimit};

use crate::TimeScale;

/// The longest a move may be reported to have taken: one day, in milliseconds. Far beyond any
/// move a worker plays under a lease; a longer time is an error, not a slow move.
pub const MAX_MOVE_MILLIS: u32 = 86_400_000;

/// The milliseconds each move of a game took, in move order (empty: unknown).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveTimes(Vec<u32>);

/// Both sides' clocks through a game under a whole-game time control, in seconds (rounded to
/// milliseconds): at the opening, and after each move (black's, white's).
#[derive(Clone, Debug, PartialEq)]
pub struct GameClocks {
    /// Each side's clock before the first move.
    pub start: f64,
    /// Black's and white's clocks after each move, in move order.
    pub after: Vec<[f64; 2]>,
}

impl MoveTimes {
    /// Times as they were stored or sent (checked where they are received, not here).
    #[must_use]
    pub fn from_millis(millis: Vec<u32>) -> MoveTimes {
        MoveTimes(millis)
    }

    /// Times measured in seconds, each rounded to whole milliseconds and kept within
    /// 0..=[`MAX_MOVE_MILLIS`] (a time that is not a number counts as 0).
    #[must_use]
    pub fn from_seconds(seconds: impl IntoIterator<Item = f64>) -> MoveTimes {
        let max = f64::from(MAX_MOVE_MILLIS);
        MoveTimes(
            seconds
                .into_iter()
                .map(|s| {
                    let millis = (s * 1000.0).round();
                    if millis.is_nan() {
                        0
                    } else {
                        // Whole and in range: the cast is exact.
                        millis.clamp(0.0, max) as u32
                    }
                })
                .collect(),
        )
    }

    /// The milliseconds, in move order.
    #[must_use]
    pub fn millis(&self) -> &[u32] {
        &self.0
    }

    /// Whether the times are known (a game of no moves has none to know).
    #[must_use]
    pub fn is_known(&self) -> bool {
        !self.0.is_empty()
    }

    /// Seconds move `index` (from 0) took, if known.
    #[must_use]
    pub fn seconds(&self, index: usize) -> Option<f64> {
        self.0.get(index).map(|&ms| f64::from(ms) / 1000.0)
    }

    /// The side that made move `index` (from 0) of a game whose first move was `first`'s.
    #[must_use]
    pub fn mover(first: Color, index: usize) -> Color {
        if index.is_multiple_of(2) {
            first
        } else {
            first.opponent()
        }
    }

    /// Seconds each side (black, white) spent in all, where `first` made the first move.
    #[must_use]
    pub fn totals(&self, first: Color) -> [f64; 2] {
        let mut millis = [0u64; 2];
        for (index, &ms) in self.0.iter().enumerate() {
            millis[MoveTimes::mover(first, index) as usize] += u64::from(ms);
        }
        millis.map(|ms| ms as f64 / 1000.0)
    }

    /// Both clocks through the game under `limit` multiplied by `scale` (as the worker that
    /// played it kept them: the time taken off, the increment added), where `first` made the
    /// first move. `None` unless the limit is a whole-game control and the times are known.
    #[must_use]
    pub fn clocks(&self, limit: TimeLimit, scale: TimeScale, first: Color) -> Option<GameClocks> {
        let control = limit.scaled(scale.get()).control();
        if !matches!(control, TimeControl::Increment { .. }) || !self.is_known() {
            return None;
        }
        let initial = control.initial_clock();
        let mut clocks = [initial; 2];
        let after = (0..self.0.len())
            .map(|index| {
                let side = MoveTimes::mover(first, index) as usize;
                let used = self.seconds(index).unwrap_or_default();
                clocks[side] = clocks[side].after_move(&control, used);
                clocks.map(|clock| to_millis(clock.seconds))
            })
            .collect();
        Some(GameClocks {
            start: to_millis(initial.seconds),
            after,
        })
    }
}

/// `seconds` rounded to whole milliseconds.
fn to_millis(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

impl GameClocks {
    /// The clock of the side that made move `index` (from 0), after it.
    #[must_use]
    pub fn mover_after(&self, first: Color, index: usize) -> Option<f64> {
        let side = MoveTimes::mover(first, index) as usize;
        self.after.get(index).map(|clocks| clocks[side])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_to_milliseconds_within_the_range() {
        let times = MoveTimes::from_seconds([0.0124, 1.5, -3.0, f64::NAN, f64::INFINITY, 1e9]);
        assert_eq!(
            times.millis(),
            &[12, 1500, 0, 0, MAX_MOVE_MILLIS, MAX_MOVE_MILLIS]
        );
        assert_eq!(times.seconds(1), Some(1.5));
        assert_eq!(times.seconds(6), None);
        assert!(!MoveTimes::default().is_known());
    }

    #[test]
    fn totals_go_to_the_side_that_moved() {
        let times = MoveTimes::from_millis(vec![100, 250, 300, 50, 1]);
        assert_eq!(times.totals(Color::Black), [0.401, 0.3]);
        assert_eq!(times.totals(Color::White), [0.3, 0.401]);
        assert_eq!(MoveTimes::default().totals(Color::Black), [0.0, 0.0]);
    }

    #[test]
    fn a_game_controls_clocks_take_each_move_off_and_add_the_increment() {
        // game:10+1 scaled by 2: 20 s each, 2 s added after every move.
        let limit = TimeLimit::Increment {
            base: 10.0,
            increment: 1.0,
        };
        let scale = TimeScale::new(2.0).unwrap();
        // White moves first (an opening with an odd number of stones).
        let times = MoveTimes::from_millis(vec![1_500, 4_000, 25_000, 250]);
        let clocks = times.clocks(limit, scale, Color::White).unwrap();
        assert_eq!(clocks.start, 20.0);
        assert_eq!(
            clocks.after,
            vec![
                [20.0, 20.5],
                [18.0, 20.5],
                // White overran its clock: it stops at 0 before the increment.
                [18.0, 2.0],
                [19.75, 2.0],
            ]
        );
        assert_eq!(clocks.mover_after(Color::White, 2), Some(2.0));
        assert_eq!(clocks.mover_after(Color::White, 3), Some(19.75));
        assert_eq!(clocks.mover_after(Color::White, 4), None);
        // Unscaled, black first, no increment: what is used is gone.
        let sudden = TimeLimit::Increment {
            base: 1.0,
            increment: 0.0,
        };
        let clocks = MoveTimes::from_millis(vec![300, 100, 301])
            .clocks(sudden, TimeScale::ONE, Color::Black)
            .unwrap();
        assert_eq!(clocks.after[2], [0.399, 0.9]);
        // A per-move limit has no clock to run down; unknown times have no clocks.
        assert_eq!(
            times.clocks(TimeLimit::PerMove(1.0), scale, Color::Black),
            None
        );
        assert_eq!(
            MoveTimes::default().clocks(limit, scale, Color::Black),
            None
        );
    }
}
