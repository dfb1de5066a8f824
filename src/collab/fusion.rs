//! The paper's fused tokenizer input (`tokenizer/fusion.py`): L2-normalised text rows next to
//! α·collaborative rows, reduced by an exact, deterministic PCA.

use ndarray::{Array2, ArrayView2, Axis, concatenate};
use serde::Serialize;

use super::dense_eigen::symmetric_eigen;
use crate::progress::{Progress, check_cancelled};
use crate::{Error, Result};

/// The collaborative weight α of the paper.
pub const DEFAULT_ALPHA: f64 = 0.5;

/// The fused latents and how they were made.
#[derive(Debug, Clone)]
pub struct Fused {
    /// `n × components`, float32 like the reference's output.
    pub latents: Array2<f32>,
    /// What was done, for the tokenizer's meta file.
    pub summary: FusionSummary,
}

/// How the fusion went.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FusionSummary {
    /// The collaborative file, as given.
    pub cf: String,
    /// Its weight α.
    pub alpha: f64,
    /// Columns before the PCA (`d_text + d_cf`).
    pub concatenated_dim: usize,
    /// PCA components kept, `min(d_text, n − 1, d_text + d_cf)`.
    pub components: usize,
    /// Share of the total variance the kept components explain.
    pub explained_variance_ratio: f64,
}

/// Fuses text rows with collaborative rows (same items, same order): `[x/‖x‖; α·x_cf]`, then
/// PCA to `min(d_text, n − 1, d_text + d_cf)` components. The PCA is exact (eigenvectors of
/// the covariance) with scikit-learn's sign rule: each component's largest-magnitude weight
/// is positive. `cf_name` names the collaborative file in messages and the summary.
pub fn fuse(
    text: ArrayView2<'_, f32>,
    cf: ArrayView2<'_, f32>,
    alpha: f64,
    cf_name: &str,
    progress: &dyn Progress,
) -> Result<Fused> {
    let n = text.nrows();
    if cf.nrows() != n {
        return Err(Error::Invalid(format!(
            "{cf_name} has {} rows but the embeddings have {n}: both need one row per item",
            cf.nrows()
        )));
    }
    if n < 2 {
        return Err(Error::Invalid(format!(
            "fusion needs at least 2 items, found {n}"
        )));
    }
    if !alpha.is_finite() {
        return Err(Error::Invalid(format!("--alpha {alpha} is not a number")));
    }
    progress.stage("fusion PCA", 3);
    let normalised = text.mapv(f64::from);
    let norms = normalised.map_axis(Axis(1), |r| r.dot(&r).sqrt().max(1e-8));
    let normalised = &normalised / &norms.insert_axis(Axis(1));
    let weighted = cf.mapv(|v| alpha * f64::from(v));
    let mut x = concatenate(Axis(1), &[normalised.view(), weighted.view()])
        .expect("both blocks have n rows");
    let d = x.ncols();
    let components = text.ncols().min(n - 1).min(d);
    let mean = x.mean_axis(Axis(0)).expect("n > 0");
    x -= &mean;
    progress.advance(1);
    check_cancelled(progress)?;
    let covariance = x.t().dot(&x);
    progress.advance(1);
    check_cancelled(progress)?;
    let (values, vectors) = symmetric_eigen(&covariance)?;
    let total: f64 = values.iter().map(|v| v.max(0.0)).sum();
    let mut basis = Array2::<f64>::zeros((d, components));
    let mut explained = 0.0;
    for c in 0..components {
        let i = d - 1 - c;
        let v = vectors.row(i);
        let mut best = 0;
        for (j, w) in v.iter().enumerate() {
            if w.abs() > v[best].abs() {
                best = j;
            }
        }
        let sign = if v[best] < 0.0 { -1.0 } else { 1.0 };
        basis.column_mut(c).assign(&(&v * sign));
        explained += values[i].max(0.0);
    }
    let latents = x.dot(&basis).mapv(|v| v as f32);
    progress.advance(1);
    Ok(Fused {
        latents,
        summary: FusionSummary {
            cf: cf_name.to_string(),
            alpha,
            concatenated_dim: d,
            components,
            explained_variance_ratio: if total > 0.0 { explained / total } else { 0.0 },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::random::SeededRng;
    use crate::progress::NoProgress;

    fn random(n: usize, d: usize, seed: u64) -> Array2<f32> {
        let mut rng = SeededRng::new(seed);
        Array2::from_shape_simple_fn((n, d), || rng.normal() as f32)
    }

    #[test]
    fn fused_rows_keep_the_distances_of_the_concatenation_when_nothing_is_cut() {
        // d_text = 6 ≥ n − 1 = 5: every component is kept, so the PCA is a rotation.
        let (text, cf) = (random(6, 6, 1), random(6, 3, 2));
        let fused = fuse(text.view(), cf.view(), 0.5, "cf.npy", &NoProgress).unwrap();
        assert_eq!(fused.latents.dim(), (6, 5));
        assert!((fused.summary.explained_variance_ratio - 1.0).abs() < 1e-9);
        let t = text.mapv(f64::from);
        let row = |i: usize| {
            let r = t.row(i);
            let norm = r.dot(&r).sqrt();
            let mut v: Vec<f64> = r.iter().map(|x| x / norm).collect();
            v.extend(cf.row(i).iter().map(|&c| 0.5 * f64::from(c)));
            v
        };
        for i in 0..6 {
            for j in 0..i {
                let want: f64 = row(i)
                    .iter()
                    .zip(row(j))
                    .map(|(a, b)| (a - b).powi(2))
                    .sum();
                let got: f64 = fused
                    .latents
                    .row(i)
                    .iter()
                    .zip(fused.latents.row(j))
                    .map(|(a, b)| f64::from(a - b).powi(2))
                    .sum();
                assert!((want.sqrt() - got.sqrt()).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn mismatched_rows_are_refused() {
        let err = fuse(
            random(4, 3, 1).view(),
            random(5, 2, 2).view(),
            0.5,
            "cf.npy",
            &NoProgress,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("cf.npy") && err.contains('5') && err.contains('4'),
            "{err}"
        );
    }
}
