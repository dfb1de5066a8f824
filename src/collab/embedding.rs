//! The collaborative embedding `E = U·√σ` of the PPMI matrix's top singular triplets, rows
//! L2-normalised, float32 — what the paper's `CollaborativeSignal.fit` returns.

use ndarray::Array2;

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
    let kept = pairs.values.len();
    // U columns with svd_flip's sign rule (largest |entry| positive), then E = U·√σ.
    let mut e = Array2::<f64>::zeros((n, k));
    let mut sigma = vec![0.0; k];
    for col in 0..kept {
        let u = pairs.vectors.column(col);
        let mut best = 0;
        for (i, v) in u.iter().enumerate() {
            if v.abs() > u[best].abs() {
                best = i;
            }
        }
        let sign = if u[best] < 0.0 { -1.0 } else { 1.0 };
        sigma[col] = pairs.values[col].abs();
        let root = sigma[col].sqrt();
        for (i, &r) in active.iter().enumerate() {
            e[[r as usize, col]] = sign * u[i] * root;
        }
    }
    let mut vectors = Array2::<f32>::zeros((n, k));
    for (mut out, row) in vectors.rows_mut().into_iter().zip(e.rows()) {
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-8);
        for (o, v) in out.iter_mut().zip(row) {
            *o = (v / norm) as f32;
        }
    }
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
