//! SPSA (simultaneous perturbation stochastic approximation), the tuning method of fishtest
//! and OpenBench: at iteration `k` every parameter is pushed by `±c_k` at once (the signs
//! `Δ` drawn from the run's seed), the two perturbed configurations `θ + c_k Δ` and
//! `θ − c_k Δ` play game pairs against each other, and `θ` moves along `Δ` by
//! `a_k / c_k` times the net games `θ + c_k Δ` won (wins − losses).
//!
//! The schedule is the standard one (Spall): `c_k = c / (k + 1)^γ` and
//! `a_k = a / (A + k + 1)^α` with `α = 0.602`, `γ = 0.101` and `A` a tenth of the
//! iterations. As in fishtest, `c` and `a` are given by their values at the end: `c_end`, the
//! perturbation of the last iteration, and `r_end = a_end / c_end²`, so that in the last
//! iteration a net game won moves each parameter by `r_end · c_end`. Every length here is in
//! normalized coordinates — a fraction of each parameter's range (see
//! [`crate::play::tune_space`]) — so one `c_end` fits parameters of any scale.

use thiserror::Error;

use pentagrid_gamekit::splitmix64;

/// Most iterations one run may have.
pub const MAX_TUNE_ITERATIONS: u64 = 10_000;

/// Spall's recommended decay of the gain, `α`.
pub const SPSA_ALPHA: f64 = 0.602;

/// Spall's recommended decay of the perturbation, `γ`.
pub const SPSA_GAMMA: f64 = 0.101;

/// The default `c_end`: the last iteration perturbs each parameter by a tenth of its range.
pub const DEFAULT_C_END: f64 = 0.1;

/// The default `r_end`: a net game won in the last iteration moves each parameter by
/// `r_end · c_end` = 0.5% of its range (early iterations move further).
pub const DEFAULT_R_END: f64 = 0.05;

/// The schedule of a run.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SpsaSchedule {
    /// Iterations, 1 to [`MAX_TUNE_ITERATIONS`].
    pub iterations: u64,
    /// The perturbation of the last iteration, as a fraction of each range: more than 0, at
    /// most 0.5.
    pub c_end: f64,
    /// `a_end / c_end²`: more than 0, at most 100.
    pub r_end: f64,
    /// The stability constant `A`, 0 to 10 times the iterations.
    pub stability: f64,
    /// The gain's decay `α`, more than 0, at most 1.
    pub alpha: f64,
    /// The perturbation's decay `γ`, more than 0, at most 1.
    pub gamma: f64,
}

/// Why a schedule is refused.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SpsaError {
    /// The iteration count is out of range.
    #[error("iterations must be from 1 to {MAX_TUNE_ITERATIONS}, not {0}")]
    Iterations(u64),
    /// A constant is out of its range.
    #[error("{name} must be {range}, not {value}")]
    Constant {
        /// The constant (`c_end`, `r_end`, `A`, `alpha`, `gamma`).
        name: &'static str,
        /// Its allowed values, in words.
        range: &'static str,
        /// The value given.
        value: f64,
    },
}

impl SpsaSchedule {
    /// The standard schedule over `iterations`: [`DEFAULT_C_END`], [`DEFAULT_R_END`], `A` a
    /// tenth of the iterations, [`SPSA_ALPHA`], [`SPSA_GAMMA`].
    #[must_use]
    pub fn standard(iterations: u64) -> SpsaSchedule {
        SpsaSchedule {
            iterations,
            c_end: DEFAULT_C_END,
            r_end: DEFAULT_R_END,
            stability: iterations as f64 / 10.0,
            alpha: SPSA_ALPHA,
            gamma: SPSA_GAMMA,
        }
    }

    /// Checks every constant's range.
    pub fn check(&self) -> Result<(), SpsaError> {
        if !(1..=MAX_TUNE_ITERATIONS).contains(&self.iterations) {
            return Err(SpsaError::Iterations(self.iterations));
        }
        let max_stability = 10.0 * self.iterations as f64;
        let checks = [
            ("c_end", "more than 0 and at most 0.5", self.c_end, 0.5),
            ("r_end", "more than 0 and at most 100", self.r_end, 100.0),
            ("alpha", "more than 0 and at most 1", self.alpha, 1.0),
            ("gamma", "more than 0 and at most 1", self.gamma, 1.0),
        ];
        for (name, range, value, max) in checks {
            if !(value > 0.0 && value <= max) {
                return Err(SpsaError::Constant { name, range, value });
            }
        }
        if !(self.stability >= 0.0 && self.stability <= max_stability) {
            return Err(SpsaError::Constant {
                name: "A",
                range: "from 0 to 10 times the iterations",
                value: self.stability,
            });
        }
        Ok(())
    }

    /// The perturbation `c_k` of iteration `k` (from 0).
    #[must_use]
    pub fn c(&self, k: u64) -> f64 {
        self.c_end * (self.iterations as f64 / (k as f64 + 1.0)).powf(self.gamma)
    }

    /// The gain `a_k` of iteration `k`.
    #[must_use]
    pub fn a(&self, k: u64) -> f64 {
        let a = self.r_end * self.c_end * self.c_end;
        let end = self.stability + self.iterations as f64;
        a * (end / (self.stability + k as f64 + 1.0)).powf(self.alpha)
    }

    /// How far a net game won in iteration `k` moves each parameter: `a_k / c_k`.
    #[must_use]
    pub fn step(&self, k: u64) -> f64 {
        self.a(k) / self.c(k)
    }
}

/// The signs `Δ` (each +1 or −1) of iteration `k` of a run seeded with `seed`, one per
/// parameter (at most 64).
#[must_use]
pub fn perturbation(seed: u64, k: u64, params: usize) -> Vec<f64> {
    let bits = splitmix64(seed ^ splitmix64(k.wrapping_add(0x5A5A_0000)));
    (0..params.min(64))
        .map(|i| if bits >> i & 1 == 1 { 1.0 } else { -1.0 })
        .collect()
}

/// The two points an iteration plays: `θ + cΔ` and `θ − cΔ`, each within 0..1.
#[must_use]
pub fn perturbed(theta: &[f64], delta: &[f64], c: f64) -> [Vec<f64>; 2] {
    [1.0, -1.0].map(|sign| {
        theta
            .iter()
            .zip(delta)
            .map(|(t, d)| (t + sign * c * d).clamp(0.0, 1.0))
            .collect()
    })
}

/// `θ` after an iteration in which `θ + cΔ` won `net` more games than it lost, moved by
/// `step` (see [`SpsaSchedule::step`]) a net game along `Δ`, within 0..1.
#[must_use]
pub fn spsa_update(theta: &[f64], delta: &[f64], step: f64, net: i64) -> Vec<f64> {
    theta
        .iter()
        .zip(delta)
        .map(|(t, d)| (t + step * net as f64 * d).clamp(0.0, 1.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn the_schedule_ends_at_its_end_values_and_decays_from_larger_ones() {
        let schedule = SpsaSchedule {
            c_end: 0.2,
            r_end: 0.5,
            ..SpsaSchedule::standard(100)
        };
        schedule.check().unwrap();
        assert!(close(schedule.c(99), 0.2));
        assert!(close(schedule.a(99) / (0.2 * 0.2), 0.5));
        assert!(close(schedule.step(99), 0.5 * 0.2));
        assert!(close(schedule.c(0), 0.2 * 100f64.powf(SPSA_GAMMA)));
        for k in 1..100 {
            assert!(schedule.c(k) < schedule.c(k - 1));
            assert!(schedule.a(k) < schedule.a(k - 1));
        }
    }

    #[test]
    fn bad_schedules_say_which_constant() {
        let good = SpsaSchedule::standard(10);
        let cases = [
            (SpsaSchedule::standard(0), "iterations"),
            (
                SpsaSchedule::standard(MAX_TUNE_ITERATIONS + 1),
                "iterations",
            ),
            (SpsaSchedule { c_end: 0.0, ..good }, "c_end"),
            (SpsaSchedule { c_end: 0.6, ..good }, "c_end"),
            (
                SpsaSchedule {
                    r_end: f64::NAN,
                    ..good
                },
                "r_end",
            ),
            (
                SpsaSchedule {
                    r_end: 1e300,
                    ..good
                },
                "r_end",
            ),
            (
                SpsaSchedule {
                    alpha: -1.0,
                    ..good
                },
                "alpha",
            ),
            (
                SpsaSchedule {
                    gamma: f64::INFINITY,
                    ..good
                },
                "gamma",
            ),
            (
                SpsaSchedule {
                    stability: -1.0,
                    ..good
                },
                "A",
            ),
            (
                SpsaSchedule {
                    stability: 101.0,
                    ..good
                },
                "A",
            ),
        ];
        for (schedule, name) in cases {
            let error = schedule.check().unwrap_err();
            assert!(error.to_string().starts_with(name), "{error}");
        }
    }

    #[test]
    fn perturbations_are_signs_fixed_by_seed_and_iteration() {
        let delta = perturbation(7, 3, 5);
        assert_eq!(delta, perturbation(7, 3, 5));
        assert!(delta.iter().all(|d| *d == 1.0 || *d == -1.0));
        let draws: Vec<Vec<f64>> = (0..64).map(|k| perturbation(7, k, 1)).collect();
        let ups = draws.iter().filter(|d| d[0] > 0.0).count();
        assert!((16..=48).contains(&ups), "{ups} of 64 up");
        assert_ne!(
            (0..8).map(|k| perturbation(1, k, 2)).collect::<Vec<_>>(),
            (0..8).map(|k| perturbation(2, k, 2)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn points_and_updates_stay_in_the_unit_box_and_follow_the_winner() {
        let [plus, minus] = perturbed(&[0.5, 0.95], &[1.0, 1.0], 0.1);
        assert!(close(plus[0], 0.6) && close(minus[0], 0.4));
        assert_eq!((plus[1], minus[1]), (1.0, 0.95 - 0.1));
        // The plus side won: θ moves along Δ; lost: against it; even: not at all.
        let theta = [0.5, 0.5];
        assert_eq!(spsa_update(&theta, &[1.0, -1.0], 0.05, 2), [0.6, 0.4]);
        assert_eq!(spsa_update(&theta, &[1.0, -1.0], 0.05, -2), [0.4, 0.6]);
        assert_eq!(spsa_update(&theta, &[1.0, -1.0], 0.05, 0), theta);
        assert_eq!(spsa_update(&theta, &[1.0, -1.0], 0.05, 100), [1.0, 0.0]);
    }
}
