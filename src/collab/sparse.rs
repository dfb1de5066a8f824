//! A compressed-sparse-row matrix of f64, just enough for co-occurrence counts, PPMI and the
//! block products of the eigensolver.

use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use crate::numeric::kernels::sparse_row_times_block;

/// Rows one parallel task multiplies; small enough to balance, large enough to amortise.
const ROWS_PER_TASK: usize = 256;

/// A square sparse matrix in CSR form; column indices are sorted within each row.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    n: usize,
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f64>,
}

impl Csr {
    /// Builds an `n × n` matrix from `(row, column)` cells sorted by row then column, each
    /// summed from its repeats: duplicates add up (like scipy's coo → csr).
    pub fn from_sorted_cells(n: usize, cells: &[(u32, u32)]) -> Self {
        let mut starts = vec![0usize; n + 1];
        let mut columns = Vec::new();
        let mut values: Vec<f64> = Vec::new();
        let mut last: Option<(u32, u32)> = None;
        for &(r, c) in cells {
            if last == Some((r, c)) {
                *values.last_mut().expect("a cell was pushed") += 1.0;
            } else {
                columns.push(c);
                values.push(1.0);
                starts[r as usize + 1] += 1;
                last = Some((r, c));
            }
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        Csr {
            n,
            starts,
            columns,
            values,
        }
    }

    /// The order `n`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of stored (non-zero) cells.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Row `i`'s column indices and values.
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let span = self.starts[i]..self.starts[i + 1];
        (&self.columns[span.clone()], &self.values[span])
    }

    /// Sum of every cell, in storage order.
    pub fn total(&self) -> f64 {
        self.values.iter().sum()
    }

    /// Each row's sum, in storage order.
    pub fn row_sums(&self) -> Vec<f64> {
        (0..self.n).map(|i| self.row(i).1.iter().sum()).collect()
    }

    /// Each column's sum, adding rows in order.
    pub fn column_sums(&self) -> Vec<f64> {
        let mut sums = vec![0.0; self.n];
        for (c, v) in self.columns.iter().zip(&self.values) {
            sums[*c as usize] += v;
        }
        sums
    }

    /// Replaces every stored value `v` at `(i, j)` by `f(i, j, v)`, then drops the zeros.
    pub fn map_and_prune(&self, f: impl Fn(usize, usize, f64) -> f64) -> Csr {
        let mut starts = vec![0usize; self.n + 1];
        let mut columns = Vec::with_capacity(self.nnz());
        let mut values = Vec::with_capacity(self.nnz());
        for i in 0..self.n {
            let (cols, vals) = self.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                let w = f(i, c as usize, v);
                if w != 0.0 {
                    columns.push(c);
                    values.push(w);
                }
            }
            starts[i + 1] = columns.len();
        }
        Csr {
            n: self.n,
            starts,
            columns,
            values,
        }
    }

    /// Rows (and columns) that hold at least one cell.
    pub fn active(&self) -> Vec<u32> {
        (0..self.n)
            .filter(|&i| self.starts[i + 1] > self.starts[i])
            .map(|i| i as u32)
            .collect()
    }

    /// The principal submatrix on `keep` (sorted, from [`Csr::active`]), renumbered `0..`.
    pub fn restrict(&self, keep: &[u32]) -> Csr {
        let mut renumber = vec![u32::MAX; self.n];
        for (new, &old) in keep.iter().enumerate() {
            renumber[old as usize] = new as u32;
        }
        let mut starts = vec![0usize; keep.len() + 1];
        let mut columns = Vec::new();
        let mut values = Vec::new();
        for (new, &old) in keep.iter().enumerate() {
            let (cols, vals) = self.row(old as usize);
            for (&c, &v) in cols.iter().zip(vals) {
                let r = renumber[c as usize];
                if r != u32::MAX {
                    columns.push(r);
                    values.push(v);
                }
            }
            starts[new + 1] = columns.len();
        }
        Csr {
            n: keep.len(),
            starts,
            columns,
            values,
        }
    }

    /// The dense `n × n` form (for small problems and tests).
    pub fn to_dense(&self) -> Array2<f64> {
        let mut a = Array2::zeros((self.n, self.n));
        for i in 0..self.n {
            let (cols, vals) = self.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                a[[i, c as usize]] = v;
            }
        }
        a
    }

    /// `self · x` for a row-major `n × b` block `x`, rows in parallel; each output cell sums
    /// its row's cells in column order, so the result does not depend on the thread count
    /// (nor on whether the AVX2 build of the row kernel runs: it widens the same lanes).
    pub fn mul_block(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let b = x.ncols();
        assert_eq!(x.nrows(), self.n, "block rows must match the matrix");
        let x = x.as_standard_layout();
        let xs = x.as_slice().expect("standard layout is contiguous");
        let mut out = Array2::zeros((self.n, b));
        out.as_slice_mut()
            .expect("fresh arrays are contiguous")
            .par_chunks_mut(ROWS_PER_TASK * b.max(1))
            .enumerate()
            .for_each(|(task, chunk)| {
                for (offset, out_row) in chunk.chunks_mut(b.max(1)).enumerate() {
                    let (cols, vals) = self.row(task * ROWS_PER_TASK + offset);
                    sparse_row_times_block(cols, vals, xs, out_row);
                }
            });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::kernels::sparse_row_times_block_portable;

    #[test]
    fn duplicates_add_up_and_products_match_dense() {
        let cells = [(0, 1), (0, 1), (1, 0), (1, 0), (1, 2), (2, 1)];
        let m = Csr::from_sorted_cells(4, &cells);
        assert_eq!(m.nnz(), 4);
        assert_eq!(m.row(0), (&[1u32][..], &[2.0][..]));
        assert_eq!(m.total(), 6.0);
        assert_eq!(m.row_sums(), vec![2.0, 3.0, 1.0, 0.0]);
        assert_eq!(m.column_sums(), vec![2.0, 3.0, 1.0, 0.0]);
        assert_eq!(m.active(), vec![0, 1, 2]);
        let x = Array2::from_shape_fn((4, 3), |(i, j)| (i * 3 + j) as f64);
        assert_eq!(m.mul_block(x.view()), m.to_dense().dot(&x));
        let sub = m.restrict(&[0, 1, 2]);
        assert_eq!(sub.n(), 3);
        assert_eq!(sub.nnz(), 4);
        let halved = m.map_and_prune(|i, _, v| if i == 1 { 0.0 } else { v / 2.0 });
        assert_eq!(halved.nnz(), 2);
    }

    /// A naive triple loop, the reference for the row kernel.
    fn naive_product(m: &Csr, x: &Array2<f64>) -> Array2<f64> {
        let mut out = Array2::zeros(x.dim());
        for i in 0..m.n() {
            let (cols, vals) = m.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                for j in 0..x.ncols() {
                    out[[i, j]] += v * x[[c as usize, j]];
                }
            }
        }
        out
    }

    #[test]
    fn the_row_kernel_matches_a_naive_product_on_every_width_and_build() {
        let n = 700;
        let mut cells = Vec::new();
        for i in 0..n as u32 {
            for step in [1, 7, 31, 200] {
                let j = (i * 13 + step * (i % 5 + 1)) % n as u32;
                cells.push((i, j));
            }
        }
        cells.sort_unstable();
        let m = Csr::from_sorted_cells(n, &cells)
            .map_and_prune(|i, j, v| v * (0.5 + ((i * 3 + j) % 7) as f64 / 3.0));
        for b in [1, 5, 16, 19, 32, 40] {
            let x =
                Array2::from_shape_fn((n, b), |(i, j)| ((i * 17 + j * 5) % 23) as f64 / 7.0 - 1.5);
            let want = naive_product(&m, &x);
            let got = m.mul_block(x.view());
            let worst = (&got - &want).iter().fold(0.0_f64, |w, v| w.max(v.abs()));
            assert!(worst < 1e-12, "width {b}: {worst}");
            let xs = x.as_slice().unwrap();
            // `got` comes from the dispatched kernel: its AVX2 build where this CPU has AVX2.
            for i in 0..n {
                let (cols, vals) = m.row(i);
                let mut portable = vec![0.0; b];
                sparse_row_times_block_portable(cols, vals, xs, &mut portable);
                assert_eq!(
                    portable.as_slice(),
                    got.row(i).as_slice().unwrap(),
                    "width {b}"
                );
            }
        }
    }
}
