//! The paired t-test exactly as `scipy.stats.ttest_rel` (two-sided): t = mean(d) /
//! (sd(d, ddof = 1) / √n) with n − 1 degrees of freedom, p from the regularized incomplete beta.

use statrs::function::beta::beta_reg;

/// The paired t-test on the differences `d`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TTest {
    /// Mean difference.
    pub mean: f64,
    /// The t statistic: 0 when every difference is 0, ±∞ when all equal one non-zero value.
    pub t: f64,
    /// Two-sided p-value: 1 with fewer than two users or all-zero differences.
    pub p: f64,
}

/// Two-sided p = P(|T| ≥ |t|) = I_{ν/(ν+t²)}(ν/2, 1/2) for Student's t with ν = n − 1, which
/// keeps full relative precision for tiny p (no `1 − cdf` cancellation).
pub fn paired_t(d: &[f64]) -> TTest {
    let n = d.len();
    let mean = if n == 0 {
        0.0
    } else {
        d.iter().sum::<f64>() / n as f64
    };
    if n < 2 {
        // One difference says nothing about its spread: no evidence either way.
        return TTest {
            mean,
            t: 0.0,
            p: 1.0,
        };
    }
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    if var == 0.0 {
        return if mean == 0.0 {
            TTest {
                mean,
                t: 0.0,
                p: 1.0,
            }
        } else {
            TTest {
                mean,
                t: mean.signum() * f64::INFINITY,
                p: 0.0,
            }
        };
    }
    let t = mean / (var / n as f64).sqrt();
    let nu = (n - 1) as f64;
    let p = beta_reg(nu / 2.0, 0.5, nu / (nu + t * t)).clamp(0.0, 1.0);
    TTest { mean, t, p }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_differences_have_clear_answers() {
        assert_eq!(
            paired_t(&[0.0; 7]),
            TTest {
                mean: 0.0,
                t: 0.0,
                p: 1.0
            }
        );
        let constant = paired_t(&[0.5; 4]);
        assert_eq!((constant.t, constant.p), (f64::INFINITY, 0.0));
        assert_eq!(paired_t(&[-0.5; 3]).t, f64::NEG_INFINITY);
        assert_eq!(paired_t(&[0.3]).p, 1.0);
        assert_eq!(paired_t(&[]).p, 1.0);
    }

    #[test]
    fn symmetric_differences_give_p_one() {
        let r = paired_t(&[1.0, -1.0]);
        assert_eq!((r.mean, r.t), (0.0, 0.0));
        assert!((r.p - 1.0).abs() < 1e-15);
    }
}
