//! The sequential probability ratio test on Elo: stop a match as soon as the results say
//! "A is at least `elo1` better" or "A is at most `elo0` better", with error rates α and β.
//!
//! Formulas: Wald's bounds `lower = ln(β / (1 - α))`, `upper = ln((1 - β) / α)`, and the
//! generalised SPRT log-likelihood ratio under a normal approximation of the mean score (as in
//! Fishtest): `LLR = N * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)` with
//! `s_i = score_of_elo(elo_i)`, `mean` and `variance` the sample's per-sample score statistics.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::elo::{ScoreStats, score_of_elo};

/// An SPRT: hypotheses `elo0` (H0) and `elo1` (H1), error rates `alpha` and `beta`.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// Chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Where a running SPRT stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtDecision {
    /// Not decided yet.
    Continue,
    /// H1 accepted: A is at least `elo1` stronger.
    AcceptH1,
    /// H0 accepted: A is not more than `elo0` stronger.
    AcceptH0,
}

impl Sprt {
    /// `(lower, upper)` bounds of the LLR.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 for these results (0 without variance).
    #[must_use]
    pub fn llr(&self, stats: &ScoreStats) -> f64 {
        if stats.variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        stats.samples as f64 * (s1 - s0) * (2.0 * stats.mean - s0 - s1) / (2.0 * stats.variance)
    }

    /// The decision for these results.
    #[must_use]
    pub fn decide(&self, stats: &ScoreStats) -> SprtDecision {
        let llr = self.llr(stats);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

/// Why an SPRT text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad SPRT {0:?}: expected elo0=E0,elo1=E1,alpha=A,beta=B with E0 < E1 and 0 < A, B < 0.5")]
pub struct ParseSprtError(pub String);

impl FromStr for Sprt {
    type Err = ParseSprtError;

    /// Reads `elo0=0,elo1=10,alpha=0.05,beta=0.05` (alpha and beta default to 0.05).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let error = || ParseSprtError(pentagrid_gamekit::excerpt(s));
        let mut sprt = Sprt {
            elo0: f64::NAN,
            elo1: f64::NAN,
            alpha: 0.05,
            beta: 0.05,
        };
        for item in s.split(',') {
            let (key, value) = item.split_once('=').ok_or_else(error)?;
            let value: f64 = value.parse().map_err(|_| error())?;
            match key {
                "elo0" => sprt.elo0 = value,
                "elo1" => sprt.elo1 = value,
                "alpha" => sprt.alpha = value,
                "beta" => sprt.beta = value,
                _ => return Err(error()),
            }
        }
        let rates_ok = (0.0..0.5).contains(&sprt.alpha)
            && sprt.alpha > 0.0
            && (0.0..0.5).contains(&sprt.beta)
            && sprt.beta > 0.0;
        if !(sprt.elo0.is_finite() && sprt.elo1.is_finite() && sprt.elo0 < sprt.elo1 && rates_ok) {
            return Err(error());
        }
        Ok(sprt)
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elo::Trinomial;

    #[test]
    fn worked_example() {
        // Bounds for α = β = 0.05: ±ln(19) = ±2.9444.
        let sprt: Sprt = "elo0=0,elo1=10,alpha=0.05,beta=0.05".parse().unwrap();
        let (lower, upper) = sprt.bounds();
        assert!((upper - 19f64.ln()).abs() < 1e-12 && (lower + 19f64.ln()).abs() < 1e-12);
        // 60/20/20: mean 0.7, variance 0.16; s0 = 0.5, s1 = 0.5143868;
        // LLR = 100 * 0.0143868 * (1.4 - 1.0143868) / 0.32 = 1.73370.
        let stats = Trinomial {
            wins: 60,
            draws: 20,
            losses: 20,
        }
        .stats()
        .unwrap();
        assert!(
            (sprt.llr(&stats) - 1.73370).abs() < 1e-4,
            "{}",
            sprt.llr(&stats)
        );
        assert_eq!(sprt.decide(&stats), SprtDecision::Continue);
        let twice = Trinomial {
            wins: 120,
            draws: 40,
            losses: 40,
        }
        .stats()
        .unwrap();
        assert_eq!(sprt.decide(&twice), SprtDecision::AcceptH1);
        // 3000/600/3000: mean 0.5, variance 3000/6600; LLR = 6600 * 0.0143872 * (1 - 1.0143872)
        // / (2 * 0.454545) = -3.005, below -2.944.
        let even = Trinomial {
            wins: 3000,
            draws: 600,
            losses: 3000,
        }
        .stats()
        .unwrap();
        assert_eq!(sprt.decide(&even), SprtDecision::AcceptH0);
    }

    #[test]
    fn text_form() {
        let sprt: Sprt = "elo0=-5,elo1=5".parse().unwrap();
        assert_eq!((sprt.alpha, sprt.beta), (0.05, 0.05));
        assert_eq!(sprt.to_string().parse::<Sprt>().unwrap(), sprt);
        for bad in [
            "elo0=5,elo1=0",
            "elo0=0",
            "elo0=0,elo1=5,alpha=0.7",
            "x=1",
            "elo0=a,elo1=2",
        ] {
            assert!(bad.parse::<Sprt>().is_err(), "{bad}");
        }
    }

    #[test]
    fn an_error_quotes_a_bounded_prefix_of_bad_input() {
        let junk = "z".repeat(100_000);
        let message = junk.parse::<Sprt>().unwrap_err().to_string();
        assert!(message.len() < 400, "{} bytes", message.len());
    }
}
