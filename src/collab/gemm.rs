//! The solver's dense products on faer's matrix multiply (blocked, SIMD). The tall `n`
//! dimension is cut into fixed chunks of rows that run in parallel, each chunk a sequential
//! faer product, and partial sums are added in chunk order: both cores work, and the
//! embedding's bytes do not depend on the thread count. The arrays stay row-major ndarray,
//! seen without copies.

use std::ops::Range;

use faer::{Accum, MatMut, MatRef, Par};
use ndarray::Array2;
use rayon::prelude::*;

/// Rows per parallel chunk: a fixed number, so results do not depend on the thread count.
const CHUNK_ROWS: usize = 2048;

/// Rows `rows` and columns `cols` of the row-major `a`, without a copy.
fn view(a: &Array2<f64>, rows: Range<usize>, cols: Range<usize>) -> MatRef<'_, f64> {
    let slice = a.as_slice().expect("solver arrays are row-major");
    let start = (rows.start * a.ncols() + cols.start).min(slice.len());
    MatRef::from_row_major_slice_with_stride(&slice[start..], rows.len(), cols.len(), a.ncols())
}

fn chunks(n: usize) -> impl IndexedParallelIterator<Item = Range<usize>> {
    (0..n.div_ceil(CHUNK_ROWS))
        .into_par_iter()
        .map(move |c| c * CHUNK_ROWS..((c + 1) * CHUNK_ROWS).min(n))
}

fn matmul(
    dst: MatMut<'_, f64>,
    accum: Accum,
    lhs: MatRef<'_, f64>,
    rhs: MatRef<'_, f64>,
    alpha: f64,
) {
    faer::linalg::matmul::matmul(dst, accum, lhs, rhs, alpha, Par::Seq);
}

/// A contiguous copy of `a[:, cols]`, row slice by row slice.
pub fn columns(a: &Array2<f64>, cols: Range<usize>) -> Array2<f64> {
    let w = cols.len();
    let mut out = Array2::zeros((a.nrows(), w));
    let src = a.as_slice().expect("solver arrays are row-major");
    let stride = a.ncols();
    for (i, row) in out
        .as_slice_mut()
        .expect("fresh arrays are contiguous")
        .chunks_exact_mut(w.max(1))
        .enumerate()
    {
        row.copy_from_slice(&src[i * stride + cols.start..i * stride + cols.end]);
    }
    out
}

/// `a[:, cols]ᵀ · b`.
pub fn at_b(a: &Array2<f64>, cols: Range<usize>, b: &Array2<f64>) -> Array2<f64> {
    let n = a.nrows();
    let w = b.ncols();
    let partials: Vec<Array2<f64>> = chunks(n)
        .map(|rows| {
            let mut part = Array2::zeros((cols.len(), w));
            let (r, c) = part.dim();
            let dst = MatMut::from_row_major_slice_mut(
                part.as_slice_mut().expect("fresh arrays are contiguous"),
                r,
                c,
            );
            let lhs = view(a, rows.clone(), cols.clone());
            matmul(
                dst,
                Accum::Replace,
                lhs.transpose(),
                view(b, rows, 0..w),
                1.0,
            );
            part
        })
        .collect();
    let mut out = Array2::zeros((cols.len(), w));
    for part in &partials {
        out += part;
    }
    out
}

/// `a[:, cols] · b`.
pub fn a_b(a: &Array2<f64>, cols: Range<usize>, b: &Array2<f64>) -> Array2<f64> {
    let mut out = Array2::zeros((a.nrows(), b.ncols()));
    into_rows(&mut out, a, cols, b, Accum::Replace, 1.0);
    out
}

/// `z −= a[:, cols] · c`.
pub fn sub_a_b(a: &Array2<f64>, cols: Range<usize>, c: &Array2<f64>, z: &mut Array2<f64>) {
    into_rows(z, a, cols, c, Accum::Add, -1.0);
}

/// `out (accum) alpha · a[:, cols] · b`, chunk by chunk of rows.
fn into_rows(
    out: &mut Array2<f64>,
    a: &Array2<f64>,
    cols: Range<usize>,
    b: &Array2<f64>,
    accum: Accum,
    alpha: f64,
) {
    let w = out.ncols();
    let rhs = view(b, 0..b.nrows(), 0..w);
    out.as_slice_mut()
        .expect("solver arrays are row-major")
        .par_chunks_mut(CHUNK_ROWS * w.max(1))
        .enumerate()
        .for_each(|(c, chunk)| {
            let rows = c * CHUNK_ROWS..c * CHUNK_ROWS + chunk.len() / w.max(1);
            let dst = MatMut::from_row_major_slice_mut(chunk, rows.len(), w);
            matmul(dst, accum, view(a, rows, cols.clone()), rhs, alpha);
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_match_ndarray() {
        let a = Array2::from_shape_fn((7, 5), |(i, j)| (i * 5 + j) as f64 * 0.1);
        let b = Array2::from_shape_fn((7, 3), |(i, j)| (i + 2 * j) as f64);
        let c = Array2::from_shape_fn((2, 3), |(i, j)| (i * 3 + j) as f64 - 2.0);
        let sub = a.slice(ndarray::s![.., 1..3]).to_owned();
        assert_eq!(columns(&a, 1..3), sub);
        assert_eq!(at_b(&a, 1..3, &b), sub.t().dot(&b));
        assert_eq!(a_b(&a, 1..3, &c), sub.dot(&c));
        let mut z = b.clone();
        sub_a_b(&a, 1..3, &c, &mut z);
        let want = &b - &sub.dot(&c);
        assert!((&z - &want).iter().all(|v| v.abs() < 1e-12));
    }

    #[test]
    fn chunked_products_match_across_chunk_boundaries() {
        let n = 2 * CHUNK_ROWS + 17;
        let a = Array2::from_shape_fn((n, 6), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 5.0);
        let b = Array2::from_shape_fn((n, 4), |(i, j)| ((i + j * 5) % 13) as f64 * 0.5);
        let c = Array2::from_shape_fn((3, 4), |(i, j)| (i as f64) - (j as f64) * 0.25);
        let sub = a.slice(ndarray::s![.., 2..5]).to_owned();
        let gram = at_b(&a, 2..5, &b);
        assert!((&gram - &sub.t().dot(&b)).iter().all(|v| v.abs() < 1e-9));
        assert!(
            (&a_b(&a, 2..5, &c) - &sub.dot(&c))
                .iter()
                .all(|v| v.abs() < 1e-12)
        );
    }
}
