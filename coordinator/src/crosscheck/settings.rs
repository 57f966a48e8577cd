//! How claims are cross-checked: the sampled shares of results and from how many stones on the
//! coordinator answers a claim itself, checked here against the ranges they may take.

use pentago::{MID_MIN_STONES, Square};
use thiserror::Error;

/// Most stones a position has: a full board.
pub const MAX_JUDGE_STONES: u32 = Square::COUNT as u32;

/// How claims are cross-checked.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossCheckSettings {
    /// Share of verify results whose puzzles are cross-checked, 0 to 1 (the rest are published
    /// on the finding worker's word).
    pub puzzle_sample: f64,
    /// Share of solve results whose values are cross-checked, 0 to 1.
    pub solve_sample: f64,
    /// Share of analysis results the coordinator compares with its own short search, 0 to 1
    /// (see `crosscheck::analysis`).
    pub analysis_sample: f64,
    /// The coordinator answers claims about positions with at least this many stones itself
    /// (at least the midsolver's [`MID_MIN_STONES`] are needed, at most
    /// [`MAX_JUDGE_STONES`]); 0: never, every check is a job.
    pub judge_stones: u32,
}

impl Default for CrossCheckSettings {
    fn default() -> Self {
        CrossCheckSettings {
            puzzle_sample: 1.0,
            solve_sample: 0.05,
            analysis_sample: 0.05,
            judge_stones: 20,
        }
    }
}

/// Why cross-check settings were refused.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum CrossCheckSettingsError {
    /// The puzzle share is not from 0 to 1.
    #[error("the share of puzzles checked must be from 0 to 1, not {0}")]
    PuzzleSample(f64),
    /// The solve share is not from 0 to 1.
    #[error("the share of solves checked must be from 0 to 1, not {0}")]
    SolveSample(f64),
    /// The analysis share is not from 0 to 1.
    #[error("the share of analyses checked must be from 0 to 1, not {0}")]
    AnalysisSample(f64),
    /// The judging threshold is neither 0 nor a stone count the midsolver takes.
    #[error(
        "the coordinator judges from 0 (never) or {MID_MIN_STONES} to {MAX_JUDGE_STONES} stones, not {0}"
    )]
    JudgeStones(u32),
}

impl CrossCheckSettings {
    /// Checks every setting against its range (a share that is not a number is refused).
    pub fn validate(&self) -> Result<(), CrossCheckSettingsError> {
        let share = 0.0..=1.0;
        if !share.contains(&self.puzzle_sample) {
            return Err(CrossCheckSettingsError::PuzzleSample(self.puzzle_sample));
        }
        if !share.contains(&self.solve_sample) {
            return Err(CrossCheckSettingsError::SolveSample(self.solve_sample));
        }
        if !share.contains(&self.analysis_sample) {
            return Err(CrossCheckSettingsError::AnalysisSample(
                self.analysis_sample,
            ));
        }
        let stones = self.judge_stones;
        if stones != 0 && !(MID_MIN_STONES..=MAX_JUDGE_STONES).contains(&stones) {
            return Err(CrossCheckSettingsError::JudgeStones(stones));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_the_judging_threshold_are_checked_against_their_ranges() {
        let ok = CrossCheckSettings::default();
        assert_eq!(ok.validate(), Ok(()));
        let with = |puzzle_sample, solve_sample, judge_stones| CrossCheckSettings {
            puzzle_sample,
            solve_sample,
            judge_stones,
            ..CrossCheckSettings::default()
        };
        assert_eq!(with(0.0, 1.0, 0).validate(), Ok(()));
        assert_eq!(with(1.0, 0.0, MID_MIN_STONES).validate(), Ok(()));
        assert_eq!(with(1.0, 0.0, 36).validate(), Ok(()));
        assert_eq!(
            with(1.5, 0.0, 0).validate(),
            Err(CrossCheckSettingsError::PuzzleSample(1.5))
        );
        assert!(matches!(
            with(f64::NAN, 0.0, 0).validate(),
            Err(CrossCheckSettingsError::PuzzleSample(_))
        ));
        assert_eq!(
            with(0.0, -0.1, 0).validate(),
            Err(CrossCheckSettingsError::SolveSample(-0.1))
        );
        assert_eq!(
            with(0.0, 0.0, MID_MIN_STONES - 1).validate(),
            Err(CrossCheckSettingsError::JudgeStones(MID_MIN_STONES - 1))
        );
        assert_eq!(
            with(0.0, 0.0, 37).validate(),
            Err(CrossCheckSettingsError::JudgeStones(37))
        );
    }
}
