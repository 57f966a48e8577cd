//! Elo differences from match scores, with confidence intervals, for game results (W/D/L) and
//! game pairs (pentanomial: the two games of a pair played with colours swapped).
//!
//! Formulas (the standard ones, as used by chess engine testing frameworks such as Fishtest):
//! expected score `s = 1 / (1 + 10^(-elo / 400))`, so `elo = -400 * log10(1 / s - 1)`. The mean
//! score of N samples has standard error `sqrt(var / N)`, `var` the per-sample variance of the
//! score; the 95% interval of the Elo difference is the image of `mean ± 1.96 * stderr`. For
//! pairs, a sample is the mean score of the pair (0, ¼, ½, ¾ or 1), which removes the
//! colour advantage and the opening's bias from the variance.
//!
//! The interval adds a weak prior (one sample at score 0 and one at 1) so that it never
//! collapses to a point when every sample scored alike; see [`ScoreStats::interval95`].

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

/// An Elo estimate with its 95% confidence interval. Build it with [`EloEstimate::new`], which
/// never stores a negative zero (an even score would otherwise read `-0`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Most likely Elo difference.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl EloEstimate {
    /// The estimate `elo` in `[low, high]`, each negative zero made a plain zero.
    #[must_use]
    pub fn new(elo: f64, low: f64, high: f64) -> EloEstimate {
        EloEstimate {
            elo: positive_zero(elo),
            low: positive_zero(low),
            high: positive_zero(high),
        }
    }
}

/// `x` with a negative zero turned into `0.0` (every other value, infinities included, kept).
/// `-400 * log10(1)` is `-0.0`, which prints and serializes as `-0`.
fn positive_zero(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x }
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
    /// The Elo difference of the mean score, with the Elo of [`ScoreStats::interval95`] (ends
    /// are infinite where the interval reaches a score of 0 or 1, the estimate where the mean
    /// is 0 or 1). Never a negative zero.
    #[must_use]
    pub fn elo(&self) -> EloEstimate {
        let (low, high) = self.interval95();
        EloEstimate::new(
            elo_of_score(self.mean),
            elo_of_score(low),
            elo_of_score(high),
        )
    }

    /// The 95% interval of the mean score: the normal approximation (mean ± 1.96 standard
    /// errors, clamped to 0..=1) over the samples plus two virtual ones, one that scored 0 and
    /// one that scored 1.
    ///
    /// Why the two virtual samples: the plain normal interval takes the sample variance at its
    /// word, so when every sample scored alike (one pair, a clean sweep, nothing but draws) it
    /// has zero width and claims a certain Elo from a single pair. Adding pseudo-observations
    /// at both ends is the standard remedy for small samples (additive smoothing, as the
    /// Agresti–Coull interval adds about two successes and two failures to a binomial count);
    /// one at each end is the same weak prior the SPRT uses ([`Pentanomial::regularized`]).
    /// The interval then always has positive width and always contains the observed mean
    /// (the prior moves the centre by at most `1 / (n + 2)`, less than 1.96 of its standard
    /// errors), and its effect fades as `1 / n`: after a few hundred samples the ends move by
    /// well under an Elo point.
    #[must_use]
    pub fn interval95(&self) -> (f64, f64) {
        let n = self.samples as f64;
        let total = n + 2.0;
        // The virtual samples add 0 + 1 to the sum of scores and 0² + 1² to their squares.
        let mean = (n * self.mean + 1.0) / total;
        let square = (n * (self.variance + self.mean * self.mean) + 1.0) / total;
        let variance = (square - mean * mean).max(0.0);
        let stderr = (variance / total).sqrt();
        let clamp = |s: f64| s.clamp(0.0, 1.0);
        (clamp(mean - 1.96 * stderr), clamp(mean + 1.96 * stderr))
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
        // 60 wins, 20 draws, 20 losses plus the virtual win and loss: 102 samples, mean
        // 71/102; mean square (100·(0.16 + 0.49) + 1) / 102 = 66/102, so the variance is
        // 66/102 − (71/102)² = 1691/10404 and the standard error sqrt(1691/10404/102) = 0.039918:
        // 0.696078 ± 0.078240.
        let stats = Trinomial {
            wins: 60,
            draws: 20,
            losses: 20,
        }
        .stats()
        .unwrap();
        let (low, high) = stats.interval95();
        let half = 1.96 * (1691.0_f64 / 10404.0 / 102.0).sqrt();
        assert!(
            close(low, 71.0 / 102.0 - half, 1e-12) && close(high, 71.0 / 102.0 + half, 1e-12),
            "{low} {high}"
        );
        assert!(close(low, 0.617_839, 1e-6) && close(high, 0.774_318, 1e-6));
        // All wins: the interval has width, reaches 1 and never leaves 0..=1.
        let perfect = Trinomial {
            wins: 5,
            draws: 0,
            losses: 0,
        }
        .stats()
        .unwrap();
        let (low, high) = perfect.interval95();
        assert!(low > 0.5 && low < 1.0 && high == 1.0, "{low} {high}");
    }

    /// `(pentanomial counts, Elo, low, high)` to 0.01 Elo: one pair of each kind, a few
    /// draws, and a 1-1 pair split by games. The ends follow from the prior: one pair at
    /// `[0, 0, 1, 0, 0]` is the scores 0.5, 0, 1: mean 0.5, variance 1/6, standard error
    /// sqrt(1/18), so 0.5 ± 0.461976 -> ±561.24 Elo.
    const TINY_PAIRS: [([u64; 5], f64, f64, f64); 6] = [
        ([0, 0, 0, 0, 1], f64::INFINITY, -325.33, f64::INFINITY),
        (
            [1, 0, 0, 0, 0],
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
            325.33,
        ),
        ([0, 0, 1, 0, 0], 0.0, -561.24, 561.24),
        ([0, 0, 0, 1, 0], 190.85, -376.94, f64::INFINITY),
        ([0, 0, 5, 0, 0], 0.0, -145.53, 145.53),
        ([1, 0, 0, 0, 1], 0.0, -798.25, 798.25),
    ];

    fn same(a: f64, b: f64) -> bool {
        if a.is_infinite() {
            a == b
        } else {
            close(a, b, 0.01)
        }
    }

    #[test]
    fn tiny_samples_give_wide_intervals() {
        for (counts, elo, low, high) in TINY_PAIRS {
            let e = Pentanomial { counts }.stats().unwrap().elo();
            assert!(
                same(e.elo, elo) && same(e.low, low) && same(e.high, high),
                "{counts:?}: {e:?}"
            );
            assert!(e.low < e.high, "{counts:?}: {e:?}");
            for x in [e.elo, e.low, e.high] {
                assert!(!(x == 0.0 && x.is_sign_negative()), "{counts:?}: {e:?}");
            }
        }
        // Games: two wins, two losses, two draws, and a win and a loss.
        for (t, elo, low, high) in [
            (
                Trinomial::new(2, 0, 0),
                f64::INFINITY,
                -126.46,
                f64::INFINITY,
            ),
            (
                Trinomial::new(0, 0, 2),
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
                126.46,
            ),
            (Trinomial::new(0, 2, 0), 0.0, -296.58, 296.58),
            (Trinomial::new(1, 0, 1), 0.0, -798.25, 798.25),
        ] {
            let e = t.stats().unwrap().elo();
            assert!(
                same(e.elo, elo) && same(e.low, low) && same(e.high, high),
                "{t:?}: {e:?}"
            );
            assert!(!(e.elo == 0.0 && e.elo.is_sign_negative()), "{t:?}: {e:?}");
        }
    }

    #[test]
    fn estimates_never_hold_a_negative_zero() {
        let e = EloEstimate::new(-0.0, -0.0, -0.0);
        assert!(e.elo.is_sign_positive() && e.low.is_sign_positive() && e.high.is_sign_positive());
        assert_eq!(
            EloEstimate::new(-1.5, f64::NEG_INFINITY, f64::INFINITY),
            EloEstimate {
                elo: -1.5,
                low: f64::NEG_INFINITY,
                high: f64::INFINITY
            }
        );
        let even = Trinomial::new(3, 4, 3).stats().unwrap().elo();
        assert!(even.elo.is_sign_positive(), "{even:?}");
        assert_eq!(
            serde_json::to_string(&EloEstimate::new(-0.0, -1.0, 1.0)).unwrap(),
            r#"{"elo":0.0,"low":-1.0,"high":1.0}"#
        );
    }

    proptest::proptest! {
        #[test]
        fn intervals_contain_the_estimate_and_have_width(
            counts in proptest::array::uniform5(0u64..40),
        ) {
            let pairs = Pentanomial { counts };
            proptest::prop_assume!(pairs.pairs() > 0);
            let stats = pairs.stats().unwrap();
            let (low, high) = stats.interval95();
            proptest::prop_assert!(low < high, "{counts:?}: {low} {high}");
            proptest::prop_assert!(low <= stats.mean && stats.mean <= high, "{counts:?}");
            let e = stats.elo();
            proptest::prop_assert!(e.low < e.high, "{counts:?}: {e:?}");
            proptest::prop_assert!(e.low <= e.elo && e.elo <= e.high, "{counts:?}: {e:?}");
            for x in [e.elo, e.low, e.high] {
                proptest::prop_assert!(!(x == 0.0 && x.is_sign_negative()), "{counts:?}: {e:?}");
            }
        }
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
        // variance (60*0.3² + 20*0.2² + 20*0.7²) / 100 = 0.16. The interval, with the virtual
        // win and loss (see `score_interval_worked_example`), is [0.617839, 0.774318] ->
        // [83.45, 214.17] (without them it would be 0.7 ± 0.0784: [86.22, 218.25]).
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
        assert!(close(e.low, 83.45, 0.01), "{e:?}");
        assert!(close(e.high, 214.17, 0.01), "{e:?}");
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
