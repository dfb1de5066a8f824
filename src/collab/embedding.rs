//! The collaborative embedding `E = U·√σ` of the PPMI matrix's top singular triplets, rows
//! L2-normalised, float32 — what the paper's `CollaborativeSignal.fit` returns.

use ndarray::Array2;
use rayon::prelude::*;

use super::cooccurrence::{CountSummary, ItemRows, Window, cooccurrence, ppmi};
use super::krylov::{SolverConfig, largest_magnitude};
use crate::Result;
use crate::load::Interactions;
use crate::progress::{Progress, check_cancelled};

/// Singular triplets kept, before the `n − 2` cap (the paper's `d_cf`).
pub const DEFAULT_DIMS: usize = 256;

/// How the embedding is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CfConfig {
    /// The co-occurrence window and hold-out.
    #[serde(flatten)]
    pub window: Window,
    /// Requested dimensions `d_cf`; the embedding has `min(d_cf, n − 2)`.
    pub dims: usize,
}

impl Default for CfConfig {
    fn default() -> Self {
        CfConfig {
            window: Window::default(),
            dims: DEFAULT_DIMS,
        }
    }
}

/// The embedding and what it took.
#[derive(Debug, Clone)]
pub struct CfEmbedding {
    /// `n × k`, row = item row; items without co-occurrences are zero rows.
    pub vectors: Array2<f32>,
    /// The `k` singular values, descending.
    pub singular_values: Vec<f64>,
    /// What the counting saw.
    pub counts: CountSummary,
    /// Stored cells of the PPMI matrix.
    pub ppmi_cells: usize,
    /// Items with at least one PPMI cell (the order of the matrix the solver saw).
    pub active_items: usize,
    /// Solver figures.
    pub solver: SolverReport,
}

/// How the truncated SVD went.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SolverReport {
    /// `dense` for small matrices, else `block-lanczos`.
    pub method: &'static str,
    /// Thick restarts.
    pub restarts: usize,
    /// Matrix–vector products.
    pub products: usize,
    /// Largest relative residual of a returned pair.
    pub max_residual: f64,
    /// Whether every pair met the tolerance.
    pub converged: bool,
}

impl CfEmbedding {
    /// Rows that are all zero (no co-occurrence left after the hold-out).
    pub fn zero_rows(&self) -> usize {
        self.vectors
            .rows()
            .into_iter()
            .filter(|r| r.iter().all(|&v| v == 0.0))
            .count()
    }
}

/// `E = U·√σ` with rows L2-normalised (eps 1e-8), as float32: solver row `i` goes to item row
/// `active[i]`, the other rows stay zero, and each column of `U` takes svd_flip's sign (its
/// largest `|entry|`, the first on ties, positive). Walks `U` row by row on both cores: a
/// column walk through the row-major `n × k` arrays missed the cache on every read (0.7 s on
/// one core at 50k items).
fn scaled_rows(
    values: &[f64],
    u: &Array2<f64>,
    active: &[u32],
    n: usize,
    k: usize,
) -> (Vec<f64>, Array2<f32>) {
    let mut largest = vec![0.0f64; values.len()];
    for row in u.rows() {
        for (best, &v) in largest.iter_mut().zip(row) {
            if v.abs() > best.abs() {
                *best = v;
            }
        }
    }
    let mut sigma: Vec<f64> = values.iter().map(|v| v.abs()).collect();
    let factor: Vec<(f64, f64)> = largest
        .iter()
        .zip(&sigma)
        .map(|(&best, s)| (if best < 0.0 { -1.0 } else { 1.0 }, s.sqrt()))
        .collect();
    sigma.resize(k, 0.0);
    let mut vectors = Array2::<f32>::zeros((n, k));
    let mut target_of = vec![usize::MAX; n];
    for (i, &r) in active.iter().enumerate() {
        target_of[r as usize] = i;
    }
    vectors
        .as_slice_mut()
        .expect("fresh arrays are contiguous")
        .par_chunks_mut(k.max(1))
        .zip(target_of.par_iter())
        .filter(|(_, i)| **i != usize::MAX)
        .for_each_init(
            || vec![0.0f64; k],
            |scaled, (out, &i)| {
                for ((s, &(sign, root)), &v) in scaled.iter_mut().zip(&factor).zip(u.row(i)) {
                    *s = sign * v * root;
                }
                let norm = scaled.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-8);
                for (o, v) in out.iter_mut().zip(scaled.iter()) {
                    *o = (v / norm) as f32;
                }
            },
        );
    (sigma, vectors)
}

/// Builds the collaborative embedding of `interactions`, items placed by `rows`. Fails when
/// there are fewer than 3 rows (the paper's `k = min(d_cf, n − 2)` would be empty).
pub fn embed(
    interactions: &Interactions,
    rows: &ItemRows,
    config: &CfConfig,
    progress: &dyn Progress,
) -> Result<CfEmbedding> {
    let n = rows.n;
    if n < 3 {
        return Err(crate::Error::Invalid(format!(
            "{}: a collaborative embedding needs at least 3 items, found {n}",
            interactions.path().display()
        )));
    }
    let k = config.dims.min(n - 2);
    progress.stage("co-occurrence", 0);
    let (counts, count_summary) = cooccurrence(interactions, rows, config.window);
    check_cancelled(progress)?;
    let weights = ppmi(&counts);
    drop(counts);
    let active = weights.active();
    let sub = weights.restrict(&active);
    let solver_config = SolverConfig::for_rank(k, sub.n());
    let pairs = largest_magnitude(&sub, k.min(sub.n()), &solver_config, progress)?;
    let (sigma, vectors) = scaled_rows(&pairs.values, &pairs.vectors, &active, n, k);
    Ok(CfEmbedding {
        vectors,
        singular_values: sigma,
        counts: count_summary,
        ppmi_cells: weights.nnz(),
        active_items: active.len(),
        solver: SolverReport {
            method: pairs.method,
            restarts: pairs.restarts,
            products: pairs.products,
            max_residual: pairs.max_residual,
            converged: pairs.converged,
        },
    })
}
