//! The solver's dense products on faer's matrix multiply (blocked, SIMD), sequential so the
//! embedding does not depend on the thread count (and measured faster than faer's parallel
//! mode on a loaded 2-core machine); the arrays stay row-major ndarray, seen without copies.

use std::ops::Range;

use faer::{Accum, MatMut, MatRef, Par};
use ndarray::Array2;

fn columns(a: &Array2<f64>, cols: Range<usize>) -> MatRef<'_, f64> {
    let slice = a.as_slice().expect("solver arrays are row-major");
    let start = cols.start.min(slice.len());
    MatRef::from_row_major_slice_with_stride(&slice[start..], a.nrows(), cols.len(), a.ncols())
}

fn product(out_shape: (usize, usize), fill: impl FnOnce(MatMut<'_, f64>)) -> Array2<f64> {
    let mut out = Array2::zeros(out_shape);
    let slice = out.as_slice_mut().expect("fresh arrays are contiguous");
    fill(MatMut::from_row_major_slice_mut(
        slice,
        out_shape.0,
        out_shape.1,
    ));
    out
}

/// `a[:, cols]ᵀ · b`.
pub fn at_b(a: &Array2<f64>, cols: Range<usize>, b: &Array2<f64>) -> Array2<f64> {
    let lhs = columns(a, cols.clone());
    let rhs = columns(b, 0..b.ncols());
    product((cols.len(), b.ncols()), |dst| {
        faer::linalg::matmul::matmul(dst, Accum::Replace, lhs.transpose(), rhs, 1.0, Par::Seq)
    })
}

/// `a[:, cols] · b`.
pub fn a_b(a: &Array2<f64>, cols: Range<usize>, b: &Array2<f64>) -> Array2<f64> {
    let lhs = columns(a, cols);
    let rhs = columns(b, 0..b.ncols());
    product((a.nrows(), b.ncols()), |dst| {
        faer::linalg::matmul::matmul(dst, Accum::Replace, lhs, rhs, 1.0, Par::Seq)
    })
}

/// `z −= a[:, cols] · c`.
pub fn sub_a_b(a: &Array2<f64>, cols: Range<usize>, c: &Array2<f64>, z: &mut Array2<f64>) {
    let lhs = columns(a, cols);
    let rhs = columns(c, 0..c.ncols());
    let (n, w) = z.dim();
    let slice = z.as_slice_mut().expect("solver arrays are row-major");
    let dst = MatMut::from_row_major_slice_mut(slice, n, w);
    faer::linalg::matmul::matmul(dst, Accum::Add, lhs, rhs, -1.0, Par::Seq);
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
        assert_eq!(at_b(&a, 1..3, &b), sub.t().dot(&b));
        assert_eq!(a_b(&a, 1..3, &c), sub.dot(&c));
        let mut z = b.clone();
        sub_a_b(&a, 1..3, &c, &mut z);
        let want = &b - &sub.dot(&c);
        assert!((&z - &want).iter().all(|v| v.abs() < 1e-12));
    }
}
