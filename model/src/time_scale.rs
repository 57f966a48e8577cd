//! A refereed game's time scale: the factor a worker multiplies a match's time limit by so that
//! a time control means the same on a slow and a fast machine (fishtest's speed scaling). It is
//! the coordinator's reference speed over the worker's own (both in simulations per second of
//! one thread of the default player), kept within [`MIN_TIME_SCALE`]..=[`MAX_TIME_SCALE`] and
//! rounded to thousandths; 1 when either speed is unknown (0). Stored and sent with each game
//! (stable: a number; 0 or absent reads as 1).

use std::fmt;

use thiserror::Error;

/// The smallest time scale: a worker ten times as fast as the reference gets a tenth of the time.
pub const MIN_TIME_SCALE: f64 = 0.1;

/// The largest time scale: a worker ten times as slow as the reference gets ten times the time.
pub const MAX_TIME_SCALE: f64 = 10.0;

/// A time scale, always finite and within [`MIN_TIME_SCALE`]..=[`MAX_TIME_SCALE`].
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct TimeScale(f64);

// Sound: the value is never NaN (every constructor checks it is finite and in range).
impl Eq for TimeScale {}

/// A time scale that is not a finite number within the range.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
#[error("bad time scale {0}: expected a number from {MIN_TIME_SCALE} to {MAX_TIME_SCALE}")]
pub struct TimeScaleError(pub f64);

impl Default for TimeScale {
    fn default() -> Self {
        TimeScale::ONE
    }
}

impl TimeScale {
    /// No scaling.
    pub const ONE: TimeScale = TimeScale(1.0);

    /// The scale for a worker of `speed` under a coordinator whose time controls are meant for
    /// `reference` (simulations per second; 0: unknown, no scaling): `reference / speed`,
    /// rounded to thousandths and clamped to the range.
    #[must_use]
    pub fn from_speeds(reference: u64, speed: u64) -> TimeScale {
        if reference == 0 || speed == 0 {
            return TimeScale::ONE;
        }
        let ratio = reference as f64 / speed as f64;
        let rounded = (ratio * 1000.0).round() / 1000.0;
        TimeScale(rounded.clamp(MIN_TIME_SCALE, MAX_TIME_SCALE))
    }

    /// A scale read from untrusted input: finite and within the range, or an error naming it.
    pub fn new(value: f64) -> Result<TimeScale, TimeScaleError> {
        if value.is_finite() && (MIN_TIME_SCALE..=MAX_TIME_SCALE).contains(&value) {
            Ok(TimeScale(value))
        } else {
            Err(TimeScaleError(value))
        }
    }

    /// A scale as stored or sent, where 0 (absent: an older peer or record) reads as 1.
    pub fn of_stored(value: f64) -> Result<TimeScale, TimeScaleError> {
        if value == 0.0 {
            Ok(TimeScale::ONE)
        } else {
            TimeScale::new(value)
        }
    }

    /// The factor.
    #[must_use]
    pub fn get(self) -> f64 {
        self.0
    }

    /// Whether it leaves time limits as they are.
    #[must_use]
    pub fn is_one(self) -> bool {
        self.0 == 1.0
    }
}

impl fmt::Display for TimeScale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_reference_over_speed_clamped_and_one_when_unknown() {
        assert_eq!(TimeScale::from_speeds(100_000, 50_000).get(), 2.0);
        assert_eq!(TimeScale::from_speeds(100_000, 200_000).get(), 0.5);
        assert_eq!(TimeScale::from_speeds(100_000, 300_000).get(), 0.333);
        assert_eq!(TimeScale::from_speeds(7, 7), TimeScale::ONE);
        // Either speed unknown: no scaling.
        assert_eq!(TimeScale::from_speeds(0, 50_000), TimeScale::ONE);
        assert_eq!(TimeScale::from_speeds(100_000, 0), TimeScale::ONE);
        assert_eq!(TimeScale::from_speeds(0, 0), TimeScale::ONE);
        // Clamped at both ends, huge numbers included.
        assert_eq!(TimeScale::from_speeds(u64::MAX, 1).get(), MAX_TIME_SCALE);
        assert_eq!(TimeScale::from_speeds(1, u64::MAX).get(), MIN_TIME_SCALE);
        assert_eq!(TimeScale::from_speeds(1_000_000, 1).get(), MAX_TIME_SCALE);
        assert_eq!(TimeScale::from_speeds(u64::MAX, u64::MAX), TimeScale::ONE);
        assert_eq!(TimeScale::from_speeds(1000, 10_001).get(), MIN_TIME_SCALE);
    }

    #[test]
    fn untrusted_scales_are_checked_and_zero_reads_as_one() {
        assert_eq!(TimeScale::new(2.5).map(TimeScale::get), Ok(2.5));
        assert_eq!(TimeScale::new(MIN_TIME_SCALE).map(TimeScale::get), Ok(0.1));
        assert_eq!(TimeScale::new(MAX_TIME_SCALE).map(TimeScale::get), Ok(10.0));
        for bad in [
            0.0,
            -1.0,
            0.09,
            10.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert!(TimeScale::new(bad).is_err(), "{bad}");
        }
        assert_eq!(TimeScale::of_stored(0.0), Ok(TimeScale::ONE));
        assert_eq!(TimeScale::of_stored(-0.0), Ok(TimeScale::ONE));
        assert!(TimeScale::of_stored(f64::NAN).is_err());
        assert!(TimeScale::of_stored(1e300).is_err());
        let error = TimeScale::new(f64::NAN).unwrap_err().to_string();
        assert!(error.contains("bad time scale NaN"), "{error}");
        assert_eq!(TimeScale::default(), TimeScale::ONE);
        assert!(TimeScale::ONE.is_one());
        assert_eq!(TimeScale::from_speeds(3, 2).to_string(), "1.5");
    }
}
