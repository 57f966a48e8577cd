//! Cholesky factorisation of small symmetric positive definite matrices: the Newton steps and
//! the covariance of the rating list's maximum-likelihood fit.
//!
//! The matrices are the negated Hessian of a concave log-likelihood (one row per free player),
//! so tens to a few hundred rows; a dense factorisation is plenty.

/// The lower-triangular factor `L` of a symmetric positive definite matrix `A = L Lᵀ`, stored
/// row-major.
#[derive(Clone, Debug)]
pub(crate) struct Cholesky {
    n: usize,
    lower: Vec<f64>,
}

impl Cholesky {
    /// Factors the `n`×`n` row-major matrix `a`; `None` if it is not (numerically) positive
    /// definite or holds a non-finite entry.
    pub(crate) fn factor(a: &[f64], n: usize) -> Option<Cholesky> {
        if a.len() != n * n {
            return None;
        }
        let mut lower = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let dot: f64 = (0..j).map(|k| lower[i * n + k] * lower[j * n + k]).sum();
                let value = a[i * n + j] - dot;
                if i == j {
                    // A pivot this small relative to the diagonal means a singular matrix; taking
                    // its square root would give a meaningless, huge inverse.
                    if !value.is_finite() || value <= a[i * n + i].abs() * 1e-14 {
                        return None;
                    }
                    lower[i * n + i] = value.sqrt();
                } else {
                    lower[i * n + j] = value / lower[j * n + j];
                }
            }
        }
        Some(Cholesky { n, lower })
    }

    /// The solution `x` of `A x = b`.
    pub(crate) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = self.n;
        let l = &self.lower;
        let mut y = vec![0.0; n];
        for i in 0..n {
            let dot: f64 = (0..i).map(|k| l[i * n + k] * y[k]).sum();
            y[i] = (b[i] - dot) / l[i * n + i];
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let dot: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
            x[i] = (y[i] - dot) / l[i * n + i];
        }
        x
    }

    /// `A⁻¹`, row-major.
    pub(crate) fn inverse(&self) -> Vec<f64> {
        let n = self.n;
        let mut inverse = vec![0.0; n * n];
        let mut unit = vec![0.0; n];
        for column in 0..n {
            unit[column] = 1.0;
            for (row, value) in self.solve(&unit).into_iter().enumerate() {
                inverse[row * n + column] = value;
            }
            unit[column] = 0.0;
        }
        inverse
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_inverts_a_worked_example() {
        // A = [[4, 2], [2, 3]] = L Lᵀ with L = [[2, 0], [1, √2]]; A⁻¹ = [[3, -2], [-2, 4]] / 8.
        let a = [4.0, 2.0, 2.0, 3.0];
        let c = Cholesky::factor(&a, 2).unwrap();
        let x = c.solve(&[2.0, 1.0]);
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12, "{x:?}");
        let inverse = c.inverse();
        for (got, want) in inverse.iter().zip([0.375, -0.25, -0.25, 0.5]) {
            assert!((got - want).abs() < 1e-12, "{inverse:?}");
        }
    }

    #[test]
    fn refuses_singular_indefinite_and_misshapen_matrices() {
        assert!(Cholesky::factor(&[1.0, 1.0, 1.0, 1.0], 2).is_none());
        assert!(Cholesky::factor(&[1.0, 2.0, 2.0, 1.0], 2).is_none());
        assert!(Cholesky::factor(&[f64::NAN], 1).is_none());
        assert!(Cholesky::factor(&[1.0, 0.0], 2).is_none());
        assert!(Cholesky::factor(&[], 0).is_some());
    }
}
