//! Principal components before t-SNE: randomized subspace iteration (Halko, Martinsson & Tropp
//! 2011) fitted on at most `FIT_ROWS` rows, so even 50,000×4,096 inputs stay bounded in time
//! and memory. Every sum runs in a fixed order, so the result does not depend on thread count.

use ndarray::ArrayView2;
use rayon::prelude::*;

use super::Element;
use super::Stream;
use crate::Result;
use crate::numeric::random::SeededRng;
use crate::progress::{Progress, check_cancelled};

/// Rows the components are fitted on; every projected row is then mapped onto them.
const FIT_ROWS: usize = 5000;
/// Extra directions in the random start, for accuracy of the leading ones.
const OVERSAMPLE: usize = 10;
/// Power iterations; each sharpens the separation of leading from trailing components.
const POWER_ITERATIONS: usize = 3;
/// Columns of `mul_transposed`'s output one task owns.
const COLUMN_BLOCK: usize = 32;

/// The selected rows, centred and reduced to at most the requested number of dimensions.
#[derive(Debug, Clone)]
pub(crate) struct Reduced {
    /// Row-major `n × dims` values.
    pub values: Vec<f64>,
    /// Number of rows.
    pub n: usize,
    /// Columns per row (fewer than asked when the data has lower rank).
    pub dims: usize,
    /// What was done, for the user ("PCA: 384 → 50 dimensions ...").
    pub note: Option<String>,
}

impl Reduced {
    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.dims..(i + 1) * self.dims]
    }
}

/// Centres `rows` of `embeddings` and, when they have more than `dims` columns, maps them onto
/// their leading `dims` principal components. Rows must be finite (checked by the caller).
pub(crate) fn reduce<T: Element>(
    embeddings: ArrayView2<'_, T>,
    rows: &[usize],
    dims: usize,
    seed: u64,
    progress: &dyn Progress,
) -> Result<Reduced> {
    let d = embeddings.ncols();
    if d <= dims {
        let mean = column_mean(embeddings, rows);
        let mut values = Vec::with_capacity(rows.len() * d);
        for &r in rows {
            let row = embeddings.row(r);
            values.extend(row.iter().zip(&mean).map(|(&v, m)| v.into() - m));
        }
        return Ok(Reduced {
            values,
            n: rows.len(),
            dims: d,
            note: None,
        });
    }

    let n = rows.len();
    let fit_rows: Vec<usize> = if n <= FIT_ROWS {
        rows.to_vec()
    } else {
        (0..FIT_ROWS).map(|i| rows[i * n / FIT_ROWS]).collect()
    };
    let m = fit_rows.len();
    let mean = column_mean(embeddings, &fit_rows);
    let mut x = Vec::with_capacity(m * d);
    for &r in &fit_rows {
        let row = embeddings.row(r);
        x.extend(row.iter().zip(&mean).map(|(&v, mu)| v.into() - mu));
    }
    let x = Matrix::new(x, m, d);
    let total_variance: f64 = x.data.iter().map(|v| v * v).sum();

    progress.stage("PCA", (2 * POWER_ITERATIONS + 3) as u64);
    let l = (dims + OVERSAMPLE).min(m).min(d);
    let mut rng = SeededRng::for_stream(seed, Stream::PcaStart as u64);
    let omega = Matrix::new((0..d * l).map(|_| rng.normal()).collect(), d, l);
    let mut q = x.mul(&omega);
    q.orthonormalize_columns();
    progress.advance(1);
    for _ in 0..POWER_ITERATIONS {
        check_cancelled(progress)?;
        let mut z = x.mul_transposed(&q);
        z.orthonormalize_columns();
        q = x.mul(&z);
        q.orthonormalize_columns();
        progress.advance(2);
    }
    check_cancelled(progress)?;
    // Bᵀ = Xᵀ Q spans the leading right singular directions; B Bᵀ is small (l × l).
    let bt = x.mul_transposed(&q);
    progress.advance(1);
    let gram = bt.gram();
    let (eigenvalues, eigenvectors) = symmetric_eigen(&gram);
    let largest = eigenvalues.first().copied().unwrap_or(0.0);
    let kept: Vec<usize> = (0..eigenvalues.len())
        .filter(|&c| eigenvalues[c] > largest * 1e-18 && eigenvalues[c] > 0.0)
        .take(dims)
        .collect();
    let k = kept.len();
    // Right singular vectors V = Bᵀ U Σ⁻¹, stored d × k.
    let mut components = vec![0.0; d * k];
    for (c, &e) in kept.iter().enumerate() {
        let scale = eigenvalues[e].sqrt().recip();
        for j in 0..d {
            let dot: f64 = (0..l).map(|t| bt.at(j, t) * eigenvectors.at(t, e)).sum();
            components[j * k + c] = dot * scale;
        }
        // Fix each component's sign (largest entry positive) so pictures do not flip.
        let (mut best, mut best_abs) = (0.0, -1.0);
        for j in 0..d {
            let v = components[j * k + c];
            if v.abs() > best_abs {
                (best, best_abs) = (v, v.abs());
            }
        }
        if best < 0.0 {
            for j in 0..d {
                components[j * k + c] = -components[j * k + c];
            }
        }
    }
    let explained: f64 = kept.iter().map(|&e| eigenvalues[e]).sum();
    let mut values = vec![0.0; n * k];
    if k > 0 {
        values.par_chunks_mut(k).zip(rows.par_iter()).for_each_init(
            || vec![0.0; d],
            |centred, (out, &r)| {
                let row = embeddings.row(r);
                for ((c, &v), mu) in centred.iter_mut().zip(row.iter()).zip(&mean) {
                    *c = v.into() - mu;
                }
                for (j, &v) in centred.iter().enumerate() {
                    axpy(out, v, &components[j * k..(j + 1) * k]);
                }
            },
        );
    }
    progress.advance(1);
    let share = if total_variance > 0.0 {
        format!("{:.0}% of the variance", 100.0 * explained / total_variance)
    } else {
        "the rows are identical".to_string()
    };
    let fitted = if m < n {
        format!(", fitted on {m} of the {n} rows")
    } else {
        String::new()
    };
    Ok(Reduced {
        values,
        n,
        dims: k,
        note: Some(format!("PCA: {d} → {k} dimensions ({share}{fitted})")),
    })
}

fn column_mean<T: Element>(embeddings: ArrayView2<'_, T>, rows: &[usize]) -> Vec<f64> {
    let mut mean = vec![0.0; embeddings.ncols()];
    for &r in rows {
        for (m, &v) in mean.iter_mut().zip(embeddings.row(r).iter()) {
            *m += v.into();
        }
    }
    let count = rows.len().max(1) as f64;
    mean.iter_mut().for_each(|m| *m /= count);
    mean
}

/// `y += a · x`, element-wise (vectorises, and keeps a fixed order).
fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// A dense row-major matrix, just enough for subspace iteration.
#[derive(Debug, Clone)]
struct Matrix {
    data: Vec<f64>,
    rows: usize,
    cols: usize,
}

impl Matrix {
    fn new(data: Vec<f64>, rows: usize, cols: usize) -> Self {
        debug_assert_eq!(data.len(), rows * cols);
        Matrix { data, rows, cols }
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// `self · other`, parallel over output rows.
    fn mul(&self, other: &Matrix) -> Matrix {
        let l = other.cols;
        let mut out = vec![0.0; self.rows * l];
        if l > 0 {
            out.par_chunks_mut(l).enumerate().for_each(|(i, out_row)| {
                for (j, &v) in self.row(i).iter().enumerate() {
                    axpy(out_row, v, other.row(j));
                }
            });
        }
        Matrix::new(out, self.rows, l)
    }

    /// `selfᵀ · other`, parallel over blocks of output rows, each summed over `self`'s rows
    /// in order.
    fn mul_transposed(&self, other: &Matrix) -> Matrix {
        let l = other.cols;
        let mut out = vec![0.0; self.cols * l];
        if l > 0 {
            out.par_chunks_mut(COLUMN_BLOCK * l)
                .enumerate()
                .for_each(|(block, out_block)| {
                    let first = block * COLUMN_BLOCK;
                    for i in 0..self.rows {
                        let x_row = self.row(i);
                        let o_row = other.row(i);
                        for (t, out_row) in out_block.chunks_mut(l).enumerate() {
                            axpy(out_row, x_row[first + t], o_row);
                        }
                    }
                });
        }
        Matrix::new(out, self.cols, l)
    }

    /// `selfᵀ · self` (cols × cols).
    fn gram(&self) -> Matrix {
        let c = self.cols;
        let mut out = vec![0.0; c * c];
        for i in 0..self.rows {
            let row = self.row(i);
            for (a, &va) in row.iter().enumerate() {
                axpy(&mut out[a * c..(a + 1) * c], va, row);
            }
        }
        Matrix::new(out, c, c)
    }

    /// Modified Gram–Schmidt, twice (re-orthogonalisation keeps columns orthogonal to
    /// rounding). Columns that are (numerically) dependent on earlier ones become zero.
    fn orthonormalize_columns(&mut self) {
        let (rows, cols) = (self.rows, self.cols);
        for c in 0..cols {
            let original: f64 = (0..rows).map(|i| self.at(i, c).powi(2)).sum::<f64>().sqrt();
            for _ in 0..2 {
                for p in 0..c {
                    let dot: f64 = (0..rows).map(|i| self.at(i, c) * self.at(i, p)).sum();
                    for i in 0..rows {
                        self.data[i * cols + c] -= dot * self.data[i * cols + p];
                    }
                }
            }
            let norm: f64 = (0..rows).map(|i| self.at(i, c).powi(2)).sum::<f64>().sqrt();
            let scale = if norm > original * 1e-10 && norm > 0.0 {
                norm.recip()
            } else {
                0.0
            };
            for i in 0..rows {
                self.data[i * cols + c] *= scale;
            }
        }
    }
}

/// Eigen-decomposition of a small symmetric matrix by cyclic Jacobi rotations: eigenvalues in
/// descending order, eigenvectors as the columns of the returned matrix (same order).
fn symmetric_eigen(matrix: &Matrix) -> (Vec<f64>, Matrix) {
    let n = matrix.rows;
    let mut a = matrix.data.clone();
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j].powi(2))
            .sum();
        let diag: f64 = (0..n).map(|i| a[i * n + i].powi(2)).sum();
        if off <= diag * 1e-30 || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = (t * t + 1.0).sqrt().recip();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[j * n + j].total_cmp(&a[i * n + i]).then(i.cmp(&j)));
    let values = order.iter().map(|&i| a[i * n + i]).collect();
    let mut vectors = vec![0.0; n * n];
    for (new, &old) in order.iter().enumerate() {
        for k in 0..n {
            vectors[k * n + new] = v[k * n + old];
        }
    }
    (values, Matrix::new(vectors, n, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use ndarray::Array2;

    #[test]
    fn jacobi_recovers_a_known_spectrum() {
        let m = Matrix::new(vec![4.0, 1.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.0, 1.0], 3, 3);
        let (values, vectors) = symmetric_eigen(&m);
        let golden = (7.0 + 5f64.sqrt()) / 2.0;
        assert!((values[0] - golden).abs() < 1e-12, "{values:?}");
        assert!((values[2] - 1.0).abs() < 1e-12);
        // A v = λ v for the leading pair.
        for i in 0..3 {
            let av: f64 = (0..3).map(|j| m.at(i, j) * vectors.at(j, 0)).sum();
            assert!((av - values[0] * vectors.at(i, 0)).abs() < 1e-12);
        }
    }

    /// Data with a planted 3-D structure in 40 dimensions: the reduction keeps the
    /// pairwise distances (the structure lives in the leading components).
    #[test]
    fn pca_keeps_planted_low_rank_geometry() {
        let (n, d) = (300, 40);
        let mut rng = SeededRng::for_stream(3, Stream::Sample as u64);
        let basis: Vec<f64> = (0..3 * d).map(|_| rng.normal()).collect();
        let mut data = Array2::<f64>::zeros((n, d));
        for i in 0..n {
            let z: Vec<f64> = (0..3).map(|c| rng.normal() * (3 - c) as f64).collect();
            for j in 0..d {
                data[[i, j]] = (0..3).map(|c| z[c] * basis[c * d + j]).sum::<f64>()
                    + 1e-3 * rng.normal()
                    + 5.0;
            }
        }
        let rows: Vec<usize> = (0..n).collect();
        let reduced = reduce(data.view(), &rows, 3, 9, &NoProgress).unwrap();
        assert_eq!(reduced.dims, 3);
        for (a, b) in [(0, 1), (5, 77), (100, 299)] {
            let full: f64 = (0..d).map(|j| (data[[a, j]] - data[[b, j]]).powi(2)).sum();
            let low: f64 = (0..3)
                .map(|c| (reduced.row(a)[c] - reduced.row(b)[c]).powi(2))
                .sum();
            assert!((full - low).abs() < 1e-3 * full.max(1.0), "{full} {low}");
        }
        assert!(reduced.note.unwrap().contains("100% of the variance"));
    }

    #[test]
    fn identical_rows_reduce_to_zero_dimensions() {
        let data = Array2::<f32>::from_elem((5, 8), 0.25);
        let rows: Vec<usize> = (0..5).collect();
        let reduced = reduce(data.view(), &rows, 2, 0, &NoProgress).unwrap();
        assert_eq!(reduced.dims, 0);
        assert!(reduced.values.is_empty());
    }

    #[test]
    fn transposed_product_matches_the_definition() {
        let x = Matrix::new((0..70 * 3).map(|v| v as f64 * 0.5).collect(), 3, 70);
        let q = Matrix::new((0..3 * 2).map(|v| v as f64 - 2.0).collect(), 3, 2);
        let out = x.mul_transposed(&q);
        for j in 0..70 {
            for t in 0..2 {
                let want: f64 = (0..3).map(|i| x.at(i, j) * q.at(i, t)).sum();
                assert_eq!(out.at(j, t), want);
            }
        }
    }
}
