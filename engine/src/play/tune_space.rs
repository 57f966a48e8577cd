//! What a tuning run may change: the numeric parameters of a UCT configuration
//! ([`TuneParam`]), each over a range ([`ParamRange`], text form `NAME=LOW..HIGH`, e.g.
//! `k=0.1..1.0`), and the space of them around a base configuration ([`TuneSpace`]). SPSA
//! ([`crate::play::spsa`]) works in normalized coordinates — each parameter's range mapped to
//! 0..1 — so that one perturbation size and one gain fit parameters of any scale; this module
//! maps them back to configurations. The text forms are stable: they are stored with runs.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::search::uct::{Budget, UctConfig};

/// Most parameters one run tunes.
pub const MAX_TUNE_PARAMS: usize = 8;

/// A numeric parameter of [`UctConfig`], by the key of its text form.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TuneParam {
    /// `k`: the exploration constant.
    K,
    /// `expand`: visits before a node is expanded.
    Expand,
    /// `depth`: the deepest node level.
    Depth,
    /// `cutoff`: moves after which a playout is scored by the evaluation.
    Cutoff,
    /// `prior`: the evaluation prior's weight.
    Prior,
    /// `playouts`: the playout budget (a base with a playout budget only).
    Playouts,
    /// `seconds`: the time budget (a base with a time budget only).
    Seconds,
    /// `nodes`: the tree's node cap.
    Nodes,
}

impl TuneParam {
    /// Every parameter, in text-form order.
    pub const ALL: [TuneParam; 8] = [
        TuneParam::K,
        TuneParam::Expand,
        TuneParam::Depth,
        TuneParam::Cutoff,
        TuneParam::Prior,
        TuneParam::Playouts,
        TuneParam::Seconds,
        TuneParam::Nodes,
    ];

    /// Its key in the configuration's text form.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TuneParam::K => "k",
            TuneParam::Expand => "expand",
            TuneParam::Depth => "depth",
            TuneParam::Cutoff => "cutoff",
            TuneParam::Prior => "prior",
            TuneParam::Playouts => "playouts",
            TuneParam::Seconds => "seconds",
            TuneParam::Nodes => "nodes",
        }
    }

    /// The values the configuration accepts (the same bounds as its text form).
    #[must_use]
    pub fn limits(self) -> (f64, f64) {
        match self {
            TuneParam::K => (0.0, 100.0),
            TuneParam::Expand => (1.0, 1e6),
            TuneParam::Depth => (1.0, 36.0),
            TuneParam::Cutoff => (0.0, 36.0),
            TuneParam::Prior => (0.0, 10_000.0),
            TuneParam::Playouts => (1.0, 1e12),
            TuneParam::Seconds => (0.001, 86_400.0),
            TuneParam::Nodes => (1_000.0, 1e10),
        }
    }

    /// Whether it takes whole numbers only (tuned values are rounded to the nearest).
    #[must_use]
    pub fn integer(self) -> bool {
        !matches!(self, TuneParam::K | TuneParam::Prior | TuneParam::Seconds)
    }

    /// Its value in `config`; `None` for a budget the configuration does not use.
    #[must_use]
    pub fn value(self, config: &UctConfig) -> Option<f64> {
        let raw = match self {
            TuneParam::K => f64::from(config.exploration),
            TuneParam::Expand => f64::from(config.expand),
            TuneParam::Depth => f64::from(config.max_depth),
            TuneParam::Cutoff => f64::from(config.cutoff),
            TuneParam::Prior => f64::from(config.prior),
            TuneParam::Playouts => match config.budget {
                Budget::Playouts(n) => n as f64,
                Budget::Seconds(_) => return None,
            },
            TuneParam::Seconds => match config.budget {
                Budget::Seconds(s) => s,
                Budget::Playouts(_) => return None,
            },
            TuneParam::Nodes => config.max_nodes as f64,
        };
        Some(self.round(raw))
    }

    /// `value` as this parameter takes it: within its limits, rounded when it is whole, and
    /// at the precision its text form keeps (`k` and `prior` are `f32`s: the value is the
    /// shortest decimal that reads back as the same `f32`, so `0.3` stays `0.3`).
    #[must_use]
    pub fn round(self, value: f64) -> f64 {
        let (min, max) = self.limits();
        let value = value.clamp(min, max);
        match self {
            _ if self.integer() => value.round(),
            TuneParam::K | TuneParam::Prior => (value as f32).to_string().parse().unwrap_or(value),
            _ => value,
        }
    }

    /// Sets it in `config` to `value` (see [`TuneParam::round`]).
    pub fn set(self, config: &mut UctConfig, value: f64) {
        let value = self.round(value);
        // `round` keeps every value within the limits, which fit each field's type.
        match self {
            TuneParam::K => config.exploration = value as f32,
            TuneParam::Expand => config.expand = value as u32,
            TuneParam::Depth => config.max_depth = value as u32,
            TuneParam::Cutoff => config.cutoff = value as u32,
            TuneParam::Prior => config.prior = value as f32,
            TuneParam::Playouts => config.budget = Budget::Playouts(value as u64),
            TuneParam::Seconds => config.budget = Budget::Seconds(value),
            TuneParam::Nodes => config.max_nodes = value as u64,
        }
    }
}

impl fmt::Display for TuneParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a parameter range could not be read.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ParseRangeError {
    /// Not `NAME=LOW..HIGH`.
    #[error("parameter range {0:?} is not NAME=LOW..HIGH (as in k=0.1..1.0)")]
    Form(String),
    /// An unknown parameter.
    #[error(
        "unknown parameter {0:?}: a tuning run tunes k, expand, depth, cutoff, prior, \
         playouts, seconds or nodes"
    )]
    Unknown(String),
    /// A bound that is not a finite number.
    #[error("bad bound {text:?} for {param}: expected a finite number")]
    Number {
        /// The parameter.
        param: TuneParam,
        /// The bound as given.
        text: String,
    },
    /// A fractional bound of a whole-number parameter.
    #[error("bad bound {value} for {param}: {param} takes whole numbers")]
    NotWhole {
        /// The parameter.
        param: TuneParam,
        /// The bound.
        value: f64,
    },
    /// An empty or inverted range.
    #[error("empty range {low}..{high} for {param}: the low bound must be below the high one")]
    Empty {
        /// The parameter.
        param: TuneParam,
        /// Its low bound.
        low: f64,
        /// Its high bound.
        high: f64,
    },
    /// A range past what the configuration accepts.
    #[error("range {low}..{high} for {param} is outside {min}..{max}, the values {param} takes")]
    Limits {
        /// The parameter.
        param: TuneParam,
        /// Its low bound.
        low: f64,
        /// Its high bound.
        high: f64,
        /// The least value the parameter takes.
        min: f64,
        /// The greatest.
        max: f64,
    },
}

/// One parameter over a range of values (stable text form `NAME=LOW..HIGH`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ParamRange {
    /// The parameter.
    pub param: TuneParam,
    /// The least value tried.
    pub low: f64,
    /// The greatest.
    pub high: f64,
}

impl ParamRange {
    /// The value at normalized coordinate `u` (0: `low`, 1: `high`; clamped to the range),
    /// as the configuration takes it.
    #[must_use]
    pub fn value_at(&self, u: f64) -> f64 {
        let u = if u.is_nan() { 0.0 } else { u.clamp(0.0, 1.0) };
        self.param.round(self.low + u * (self.high - self.low))
    }

    /// The normalized coordinate of `value` (unclamped).
    #[must_use]
    pub fn coordinate(&self, value: f64) -> f64 {
        (value - self.low) / (self.high - self.low)
    }

    /// The range's width.
    #[must_use]
    pub fn width(&self) -> f64 {
        self.high - self.low
    }
}

impl FromStr for ParamRange {
    type Err = ParseRangeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let form = || ParseRangeError::Form(crate::excerpt(text));
        let (name, range) = text.split_once('=').ok_or_else(form)?;
        let param = TuneParam::ALL
            .into_iter()
            .find(|p| p.name() == name.trim())
            .ok_or_else(|| ParseRangeError::Unknown(crate::excerpt(name.trim())))?;
        let (low, high) = range.split_once("..").ok_or_else(form)?;
        let bound = |text: &str| {
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| ParseRangeError::Number {
                    param,
                    text: crate::excerpt(text.trim()),
                })
        };
        let (low, high) = (bound(low)?, bound(high)?);
        for value in [low, high] {
            if param.integer() && value.fract() != 0.0 {
                return Err(ParseRangeError::NotWhole { param, value });
            }
        }
        if low >= high {
            return Err(ParseRangeError::Empty { param, low, high });
        }
        let (min, max) = param.limits();
        if low < min || high > max {
            return Err(ParseRangeError::Limits {
                param,
                low,
                high,
                min,
                max,
            });
        }
        Ok(ParamRange { param, low, high })
    }
}

impl fmt::Display for ParamRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}..{}", self.param, self.low, self.high)
    }
}

/// Why a set of ranges does not make a space around a base configuration.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum TuneSpaceError {
    /// No parameter, or too many.
    #[error("a tuning run tunes 1 to {MAX_TUNE_PARAMS} parameters, not {0}")]
    Count(usize),
    /// A parameter given twice.
    #[error("parameter {0} is given twice")]
    Repeated(TuneParam),
    /// A budget parameter the base does not use.
    #[error(
        "the base configuration has no {0} budget to tune: give it one (e.g. \
         uct:{0}=...), or tune the budget it has"
    )]
    NoSuchBudget(TuneParam),
    /// The base's value lies outside the range.
    #[error(
        "the base configuration has {param}={value}, outside the range {low}..{high}: set \
         {param} inside it in the base, or widen the range"
    )]
    Outside {
        /// The parameter.
        param: TuneParam,
        /// The base's value.
        value: f64,
        /// The range's low bound.
        low: f64,
        /// Its high bound.
        high: f64,
    },
}

/// The parameters a run tunes around its base configuration; a point of the space is one
/// normalized coordinate (0..1) per parameter, in the order of the ranges.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneSpace {
    base: UctConfig,
    ranges: Vec<ParamRange>,
}

impl TuneSpace {
    /// The space of `ranges` around `base`, whose values are the starting point.
    pub fn new(base: UctConfig, ranges: Vec<ParamRange>) -> Result<TuneSpace, TuneSpaceError> {
        if !(1..=MAX_TUNE_PARAMS).contains(&ranges.len()) {
            return Err(TuneSpaceError::Count(ranges.len()));
        }
        for (i, range) in ranges.iter().enumerate() {
            if ranges[..i].iter().any(|r| r.param == range.param) {
                return Err(TuneSpaceError::Repeated(range.param));
            }
            let value = range
                .param
                .value(&base)
                .ok_or(TuneSpaceError::NoSuchBudget(range.param))?;
            // Compared at the parameter's own precision (`k` is an f32).
            let (low, high) = (range.param.round(range.low), range.param.round(range.high));
            if !(low..=high).contains(&value) {
                return Err(TuneSpaceError::Outside {
                    param: range.param,
                    value,
                    low: range.low,
                    high: range.high,
                });
            }
        }
        Ok(TuneSpace { base, ranges })
    }

    /// The base configuration.
    #[must_use]
    pub fn base(&self) -> &UctConfig {
        &self.base
    }

    /// The ranges, in coordinate order.
    #[must_use]
    pub fn ranges(&self) -> &[ParamRange] {
        &self.ranges
    }

    /// The base's point.
    #[must_use]
    pub fn start(&self) -> Vec<f64> {
        self.ranges
            .iter()
            .map(|r| r.coordinate(r.param.value(&self.base).unwrap_or(r.low)))
            .collect()
    }

    /// The parameter values at point `theta`, as the configuration takes them.
    #[must_use]
    pub fn values(&self, theta: &[f64]) -> Vec<f64> {
        self.ranges
            .iter()
            .zip(theta)
            .map(|(range, &u)| range.value_at(u))
            .collect()
    }

    /// The configuration at point `theta`: the base with each parameter set.
    #[must_use]
    pub fn config(&self, theta: &[f64]) -> UctConfig {
        let mut config = self.base.clone();
        for (range, value) in self.ranges.iter().zip(self.values(theta)) {
            range.param.set(&mut config, value);
        }
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_and_print_back() {
        for text in [
            "k=0.1..1",
            "playouts=20..400",
            "prior=0..50",
            "seconds=0.05..2",
        ] {
            let range: ParamRange = text.parse().unwrap();
            assert_eq!(range.to_string(), text);
            assert_eq!(range.to_string().parse::<ParamRange>().unwrap(), range);
        }
        let range: ParamRange = " k = 0.1 .. 1.0 ".parse().unwrap();
        assert_eq!(
            (range.param, range.low, range.high),
            (TuneParam::K, 0.1, 1.0)
        );
    }

    #[test]
    fn bad_ranges_say_what_is_wrong() {
        use ParseRangeError as E;
        type Expected = fn(&ParseRangeError) -> bool;
        let cases: [(&str, Expected); 10] = [
            ("k", |e| matches!(e, E::Form(_))),
            ("k=0.1", |e| matches!(e, E::Form(_))),
            ("colour=1..2", |e| matches!(e, E::Unknown(_))),
            ("policy=0..1", |e| matches!(e, E::Unknown(_))),
            ("k=a..1", |e| matches!(e, E::Number { .. })),
            ("k=0..1e400", |e| matches!(e, E::Number { .. })),
            ("playouts=10.5..20", |e| matches!(e, E::NotWhole { .. })),
            ("k=1..1", |e| matches!(e, E::Empty { .. })),
            ("k=1..0.5", |e| matches!(e, E::Empty { .. })),
            ("playouts=1..1e30", |e| matches!(e, E::Limits { .. })),
        ];
        for (text, expected) in cases {
            let error = text.parse::<ParamRange>().unwrap_err();
            assert!(expected(&error), "{text}: {error}");
        }
        let error = "k=1..0.5".parse::<ParamRange>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "empty range 1..0.5 for k: the low bound must be below the high one"
        );
    }

    #[test]
    fn a_space_maps_points_to_configurations_and_refuses_what_does_not_fit() {
        let base: UctConfig = "uct:k=0.5,playouts=100".parse().unwrap();
        let ranges = vec![
            "k=0..1".parse().unwrap(),
            "playouts=20..220".parse().unwrap(),
        ];
        let space = TuneSpace::new(base.clone(), ranges.clone()).unwrap();
        assert_eq!(space.start(), [0.5, 0.4]);
        let config = space.config(&[0.25, 1.7]);
        assert_eq!(config.exploration, 0.25);
        assert_eq!(config.budget, Budget::Playouts(220), "clamped to the range");
        assert_eq!(space.values(&[0.0, 0.503]), [0.0, 121.0], "rounded");
        assert_eq!(space.config(&space.start()), base);
        // An f32 parameter reads and prints as written.
        let k = TuneSpace::new(
            "uct:k=0.3".parse().unwrap(),
            vec!["k=0.1..0.3".parse().unwrap()],
        );
        assert_eq!(k.unwrap().values(&[1.0]), [0.3]);

        let refused = |base: &str, ranges: &[&str]| {
            let ranges = ranges.iter().map(|r| r.parse().unwrap()).collect();
            TuneSpace::new(base.parse().unwrap(), ranges).unwrap_err()
        };
        assert_eq!(refused("uct", &[]), TuneSpaceError::Count(0));
        assert_eq!(
            refused("uct", &["k=0..1", "k=0..2"]),
            TuneSpaceError::Repeated(TuneParam::K)
        );
        assert_eq!(
            refused("uct:seconds=1", &["playouts=1..10"]),
            TuneSpaceError::NoSuchBudget(TuneParam::Playouts)
        );
        assert!(matches!(
            refused("uct", &["k=0.5..1"]),
            TuneSpaceError::Outside {
                param: TuneParam::K,
                ..
            }
        ));
    }
}
