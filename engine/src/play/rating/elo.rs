//! Elo differences from match scores, with confidence intervals, for game results (W/D/L) and
//! game pairs (pentanomial: the two games of a pair played with colours swapped).
//!
//! Formulas (the standard ones, as used by chess engine testing frameworks such as Fishtest):
//! expected score `s = 1 / (1 + 10^(-elo / 400))`, so `elo = -400 * log10(1 / s - 1)`. The mean
//! score of N samples has standard error `sqrt(var / N)`, `var` the per-sample variance of the
//! score; the 95% interval of the Elo difference is the image of `mean ± 1.96 * stderr`. For
//! pairs, a sample is the mean score of the pair (0, ¼, ½, ¾ or 1), which removes the
//! colour advantage and the opening's bias from the variance.

use serde::{Deserialize, Serialize};

/// Score (0 to 1) expected at an Elo difference.
#[must_use]
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo difference of a score (0 to 1); infinite at 0 or 1.
#[must_use]
pub fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// Wins, draws and losses of one side.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trinomial {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

/// Game pairs by the pair's total score: `counts[k]` pairs scored `k / 2` points (0 to 2).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Pairs scoring 0, ½, 1, 1½, 2 points.
    pub counts: [u64; 5],
}

/// Mean score and per-sample variance of a distribution over scores.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ScoreStats {
    /// Samples.
    pub samples: u64,
    /// Mean score per sample (0 to 1).
    pub mean: f64,
    /// Variance of one sample's score.
    pub variance: f64,
}

/// An Elo estimate with its 95% confidence interval.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Most likely Elo difference.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

fn stats(points: &[(f64, u64)]) -> Option<ScoreStats> {
    let samples: u64 = points.iter().map(|(_, n)| n).sum();
    if samples == 0 {
        return None;
    }
    let n = samples as f64;
    let mean = points.iter().map(|(s, k)| s * *k as f64).sum::<f64>() / n;
    let variance = points
        .iter()
        .map(|(s, k)| (s - mean).powi(2) * *k as f64)
        .sum::<f64>()
        / n;
    Some(ScoreStats {
        samples,
        mean,
        variance,
    })
}

impl Trinomial {
    /// `wins`, `draws` and `losses` games.
    #[must_use]
    pub const fn new(wins: u64, draws: u64, losses: u64) -> Trinomial {
        Trinomial {
            wins,
            draws,
            losses,
        }
    }

    /// The same games seen from the opponent's side.
    #[must_use]
    pub const fn flipped(self) -> Trinomial {
        Trinomial::new(self.losses, self.draws, self.wins)
    }

    /// Games played.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored (a draw is half a point).
    #[must_use]
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Mean and variance per game; `None` without games.
    #[must_use]
    pub fn stats(&self) -> Option<ScoreStats> {
        stats(&[(1.0, self.wins), (0.5, self.draws), (0.0, self.losses)])
    }
}

impl Pentanomial {
    /// Adds one pair that scored `points` (0, 0.5, 1, 1.5 or 2).
    pub fn add_pair(&mut self, points: f64) {
        let index = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[index] += 1;
    }

    /// The counts with one more pair at 0 points and one at 2: a weak prior that keeps the
    /// variance above zero, so that a test can decide even on a perfect score (a match where
    /// one side wins every pair has zero sample variance). Negligible after many pairs.
    #[must_use]
    pub fn regularized(&self) -> Pentanomial {
        let mut counts = self.counts;
        counts[0] += 1;
        counts[4] += 1;
        Pentanomial { counts }
    }

    /// Pairs played.
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Mean and variance per pair of the pair's mean score; `None` without pairs.
    #[must_use]
    pub fn stats(&self) -> Option<ScoreStats> {
        let points: Vec<(f64, u64)> = self
            .counts
            .iter()
            .enumerate()
            .map(|(k, &n)| (k as f64 / 4.0, n))
            .collect();
        stats(&points)
    }
}

impl ScoreStats {
    /// The Elo difference with its 95% interval (infinite ends where the score is 0 or 1).
    #[must_use]
    pub fn elo(&self) -> EloEstimate {
        let (low, high) = self.interval95();
        EloEstimate {
            elo: elo_of_score(self.mean),
            low: elo_of_score(low),
            high: elo_of_score(high),
        }
    }

    /// The 95% interval of the mean score (normal approximation, mean ± 1.96 standard errors),
    /// clamped to 0..=1. It is exact enough from a few dozen samples on; with a handful it is
    /// a rough guide, and with zero variance (all samples alike) it collapses to the mean.
    #[must_use]
    pub fn interval95(&self) -> (f64, f64) {
        let stderr = (self.variance / self.samples as f64).sqrt();
        let clamp = |s: f64| s.clamp(0.0, 1.0);
        (
            clamp(self.mean - 1.96 * stderr),
            clamp(self.mean + 1.96 * stderr),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() < tolerance
    }

    #[test]
    fn score_interval_worked_example() {
        // 60 wins, 20 draws, 20 losses: mean 0.7; per-game variance
        // (60·0.09 + 20·0.04 + 20·0.49) / 100 = 0.16, standard error 0.04, so 0.7 ± 0.0784.
        let stats = Trinomial {
            wins: 60,
            draws: 20,
            losses: 20,
        }
        .stats()
        .unwrap();
        let (low, high) = stats.interval95();
        assert!(
            close(low, 0.6216, 1e-9) && close(high, 0.7784, 1e-9),
            "{low} {high}"
        );
        // All wins: no spread, and the interval never leaves 0..=1.
        let perfect = Trinomial {
            wins: 5,
            draws: 0,
            losses: 0,
        }
        .stats()
        .unwrap();
        assert_eq!(perfect.interval95(), (1.0, 1.0));
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert!(close(score_of_elo(0.0), 0.5, 1e-12));
        // 400 Elo is odds of 10 to 1.
        assert!(close(score_of_elo(400.0), 10.0 / 11.0, 1e-12));
        for elo in [-300.0, -35.5, 0.0, 12.0, 250.0] {
            assert!(close(elo_of_score(score_of_elo(elo)), elo, 1e-9));
        }
    }

    #[test]
    fn worked_example_trinomial() {
        // 60 wins, 20 draws, 20 losses: score 0.7, Elo -400 log10(1/0.7 - 1) = 147.19;
        // variance (60*0.3² + 20*0.2² + 20*0.7²) / 100 = 0.16, stderr 0.04, so the interval
        // is the Elo of 0.7 ± 0.0784: [0.6216, 0.7784] -> [86.22, 218.25].
        let t = Trinomial {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let s = t.stats().unwrap();
        assert!(close(s.mean, 0.7, 1e-12));
        assert!(close(s.variance, 0.16, 1e-12));
        let e = s.elo();
        assert!(close(e.elo, 147.19, 0.01), "{e:?}");
        assert!(close(e.low, 86.22, 0.01), "{e:?}");
        assert!(close(e.high, 218.25, 0.01), "{e:?}");
        assert_eq!(Trinomial::default().stats(), None);
    }

    #[test]
    fn worked_example_pentanomial() {
        // Pairs: 10 scored 2, 20 scored 1.5, 40 scored 1, 20 scored 0.5, 10 scored 0. Per-pair
        // mean scores 1, .75, .5, .25, 0: mean 0.5 (Elo 0), variance
        // (10*0.25 + 20*0.0625 + 0 + 20*0.0625 + 10*0.25) / 100 = 0.075.
        let mut p = Pentanomial::default();
        for (points, n) in [(2.0, 10), (1.5, 20), (1.0, 40), (0.5, 20), (0.0, 10)] {
            for _ in 0..n {
                p.add_pair(points);
            }
        }
        let s = p.stats().unwrap();
        assert_eq!(s.samples, 100);
        assert!(close(s.mean, 0.5, 1e-12));
        assert!(close(s.variance, 0.075, 1e-12));
        let e = s.elo();
        assert!(close(e.elo, 0.0, 1e-9));
        assert!(close(e.low, -e.high, 1e-9));
        // A perfect record has no variance; the regularized counts do.
        let perfect = Pentanomial {
            counts: [0, 0, 0, 0, 30],
        };
        assert_eq!(perfect.stats().unwrap().variance, 0.0);
        let r = perfect.regularized().stats().unwrap();
        assert_eq!(r.samples, 32);
        assert!(r.variance > 0.0 && close(r.mean, 31.0 / 32.0, 1e-12));
    }
}
