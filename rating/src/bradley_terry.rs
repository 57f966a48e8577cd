//! The maximum-likelihood fit behind the rating list: a Bradley–Terry model on the logistic
//! scale, maximised by Newton's method with a backtracking line search.
//!
//! Player `i` scores `σ(xᵢ − xⱼ)` against `j` on average (`σ` the logistic function), so a
//! game's log-likelihood is `s·ln σ(d) + (1 − s)·ln σ(−d)` with `s` the points scored (draws
//! half a point each, as Ordo counts them). That is concave in the strengths, and strictly so
//! once one player per connected component is fixed and every pairing has points on both sides
//! (the caller's virtual draws see to it), so Newton with a line search that insists on
//! progress converges from anywhere, to the one maximum.

use super::cholesky::Cholesky;

/// Games between two players, prior included.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Pairing {
    /// One player's index.
    pub i: usize,
    /// The other's.
    pub j: usize,
    /// Games between them (may be fractional: virtual draws).
    pub games: f64,
    /// `i`'s points in them.
    pub points_i: f64,
}

/// The fitted strengths and their covariance.
#[derive(Clone, Debug)]
pub(crate) struct Fit {
    /// Strength per player, natural (logistic) units; fixed players keep 0.
    pub strengths: Vec<f64>,
    /// `n`×`n` covariance of the strengths, row-major; rows and columns of fixed players are 0.
    pub covariance: Vec<f64>,
    /// Newton steps taken.
    pub iterations: u32,
}

/// Why a fit failed. Neither happens with the caller's prior; they are errors, not panics, so
/// that a numerical surprise reaches the user as a message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FitError {
    /// The information matrix is singular: some free player is not tied to a fixed one.
    Singular,
    /// No convergence within the step limit.
    NotConverged,
}

/// Most Newton steps; a strictly concave problem of this kind converges in a handful.
const MAX_STEPS: u32 = 200;
/// Most halvings of one step in the line search.
const MAX_HALVINGS: u32 = 60;
/// Largest change of one strength in one step (natural units, about 700 Elo): keeps the first
/// steps from a poor start out of the range where the logistic function saturates.
const MAX_STEP: f64 = 4.0;
/// Below this Newton decrement (twice the log-likelihood still to gain, to second order) the
/// fit is in Newton's region of quadratic convergence: one more full step, taken without a line
/// search (whose comparisons would by then drown in rounding), brings the strengths to within
/// about the square of this of the maximum.
const DECREMENT_TOLERANCE: f64 = 1e-10;

/// `ln(1 + eᶻ)` without overflow.
fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// The logistic function.
fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

fn log_likelihood(x: &[f64], pairings: &[Pairing]) -> f64 {
    pairings
        .iter()
        .map(|p| {
            let d = x[p.i] - x[p.j];
            -p.points_i * softplus(-d) - (p.games - p.points_i) * softplus(d)
        })
        .sum()
}

/// The gradient and the negated Hessian over the free players (`slot[i]` is player `i`'s row,
/// `None` when fixed).
fn derivatives(
    x: &[f64],
    pairings: &[Pairing],
    slot: &[Option<usize>],
    m: usize,
) -> (Vec<f64>, Vec<f64>) {
    let mut gradient = vec![0.0; m];
    let mut information = vec![0.0; m * m];
    for p in pairings {
        let expected = sigmoid(x[p.i] - x[p.j]);
        let g = p.points_i - p.games * expected;
        let h = p.games * expected * (1.0 - expected);
        if let Some(a) = slot[p.i] {
            gradient[a] += g;
            information[a * m + a] += h;
        }
        if let Some(b) = slot[p.j] {
            gradient[b] -= g;
            information[b * m + b] += h;
        }
        if let (Some(a), Some(b)) = (slot[p.i], slot[p.j]) {
            information[a * m + b] -= h;
            information[b * m + a] -= h;
        }
    }
    (gradient, information)
}

/// Maximises the likelihood of `pairings` over `n` players, the players with `fixed[i]` held at
/// strength 0.
pub(crate) fn fit(n: usize, pairings: &[Pairing], fixed: &[bool]) -> Result<Fit, FitError> {
    let mut slot = vec![None; n];
    let mut m = 0;
    for (i, &is_fixed) in fixed.iter().enumerate().take(n) {
        if !is_fixed {
            slot[i] = Some(m);
            m += 1;
        }
    }
    let mut x = vec![0.0; n];
    let mut iterations = 0;
    let mut polished = false;
    loop {
        let (gradient, information) = derivatives(&x, pairings, &slot, m);
        let factor = Cholesky::factor(&information, m).ok_or(FitError::Singular)?;
        let mut step = factor.solve(&gradient);
        let decrement: f64 = gradient.iter().zip(&step).map(|(g, s)| g * s).sum();
        if !decrement.is_finite() {
            return Err(FitError::NotConverged);
        }
        if decrement <= DECREMENT_TOLERANCE {
            if polished {
                return Ok(finish(x, &factor, &slot, iterations));
            }
            for (i, value) in x.iter_mut().enumerate() {
                *value += slot[i].map_or(0.0, |a| step[a]);
            }
            polished = true;
            iterations += 1;
            continue;
        }
        if iterations >= MAX_STEPS {
            return Err(FitError::NotConverged);
        }
        iterations += 1;
        let largest = step.iter().fold(0.0f64, |a, s| a.max(s.abs()));
        if largest > MAX_STEP {
            step.iter_mut().for_each(|s| *s *= MAX_STEP / largest);
        }
        let slope: f64 = gradient.iter().zip(&step).map(|(g, s)| g * s).sum();
        let now = log_likelihood(&x, pairings);
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..MAX_HALVINGS {
            let trial: Vec<f64> = (0..n)
                .map(|i| slot[i].map_or(x[i], |a| x[i] + t * step[a]))
                .collect();
            // Armijo's condition: at least a quarter of the gain the slope promises.
            if log_likelihood(&trial, pairings) >= now + 0.25 * t * slope {
                accepted = Some(trial);
                break;
            }
            t *= 0.5;
        }
        match accepted {
            Some(trial) => x = trial,
            // No step gains anything measurable: the maximum to floating-point precision.
            None => return Ok(finish(x, &factor, &slot, iterations)),
        }
    }
}

fn finish(x: Vec<f64>, factor: &Cholesky, slot: &[Option<usize>], iterations: u32) -> Fit {
    let n = x.len();
    let m_inverse = factor.inverse();
    let m = slot.iter().flatten().count();
    let mut covariance = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            if let (Some(a), Some(b)) = (slot[i], slot[j]) {
                covariance[i * n + j] = m_inverse[a * m + b];
            }
        }
    }
    Fit {
        strengths: x,
        covariance,
        iterations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_players_fit_the_log_odds_of_the_score() {
        // 30 points from 40 games: strength ln(30 / 10), variance 1 / (40 · ¾ · ¼) = 1 / 7.5.
        let pairings = [Pairing {
            i: 0,
            j: 1,
            games: 40.0,
            points_i: 30.0,
        }];
        let fit = fit(2, &pairings, &[false, true]).unwrap();
        assert!((fit.strengths[0] - 3f64.ln()).abs() < 1e-9, "{fit:?}");
        assert_eq!(fit.strengths[1], 0.0);
        assert!((fit.covariance[0] - 1.0 / 7.5).abs() < 1e-9, "{fit:?}");
        assert_eq!(fit.covariance[1..], [0.0; 3]);
    }

    #[test]
    fn an_untied_free_player_is_singular() {
        let pairings = [Pairing {
            i: 0,
            j: 1,
            games: 2.0,
            points_i: 1.0,
        }];
        assert_eq!(
            fit(3, &pairings, &[true, false, false]).unwrap_err(),
            FitError::Singular
        );
    }

    #[test]
    fn softplus_and_sigmoid_stay_finite_at_extremes() {
        for z in [-1e6, -50.0, 0.0, 50.0, 1e6] {
            assert!(softplus(z).is_finite() && sigmoid(z).is_finite());
        }
        assert!((softplus(0.0) - 2f64.ln()).abs() < 1e-15);
        assert!((sigmoid(0.0) - 0.5).abs() < 1e-15);
    }
}
