//! Eigen-decomposition of small dense symmetric matrices (faer's divide and conquer): the
//! Rayleigh–Ritz step of the sparse solver and the PCA of fusion. Sequential: faer's default
//! (global) parallelism gives other bits on another thread count.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::{Mat, Par};
use ndarray::Array2;

use crate::{Error, Result};

/// Eigenvalues (ascending) and eigenvectors (`vectors.row(i)` belongs to `values[i]`) of the
/// symmetric matrix `a` (only its lower triangle is read). Fails only on non-finite input.
pub fn symmetric_eigen(a: &Array2<f64>) -> Result<(Vec<f64>, Array2<f64>)> {
    let n = a.nrows();
    assert_eq!(n, a.ncols(), "symmetric_eigen needs a square matrix");
    if a.iter().any(|v| !v.is_finite()) {
        return Err(Error::Invalid(
            "eigen-decomposition of a matrix with non-finite values".to_string(),
        ));
    }
    let m = Mat::from_fn(n, n, |i, j| if i >= j { a[[i, j]] } else { a[[j, i]] });
    let mut diag = Diag::<f64>::zeros(n);
    let mut u = Mat::<f64>::zeros(n, n);
    let scratch =
        evd::self_adjoint_evd_scratch::<f64>(n, ComputeEigenvectors::Yes, Par::Seq, default());
    evd::self_adjoint_evd(
        m.as_ref(),
        diag.as_mut(),
        Some(u.as_mut()),
        Par::Seq,
        MemStack::new(&mut MemBuffer::new(scratch)),
        default(),
    )
    .map_err(|e| Error::Invalid(format!("eigen-decomposition failed: {e:?}")))?;
    let s: Vec<f64> = diag.column_vector().iter().copied().collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| s[x].total_cmp(&s[y]).then(x.cmp(&y)));
    let values = order.iter().map(|&i| s[i]).collect();
    let vectors = Array2::from_shape_fn((n, n), |(row, k)| *u.get(k, order[row]));
    Ok((values, vectors))
}

fn default<T: Default>() -> T {
    T::default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::random::SeededRng;

    fn random_symmetric(n: usize, seed: u64) -> Array2<f64> {
        let mut rng = SeededRng::new(seed);
        let mut a = Array2::zeros((n, n));
        for i in 0..n {
            for j in 0..=i {
                let v = rng.normal();
                a[[i, j]] = v;
                a[[j, i]] = v;
            }
        }
        a
    }

    #[test]
    fn decomposes_random_matrices() {
        for (n, seed) in [(1, 1), (2, 2), (7, 3), (60, 4)] {
            let a = random_symmetric(n, seed);
            let (values, vectors) = symmetric_eigen(&a).unwrap();
            assert!(values.windows(2).all(|w| w[0] <= w[1]));
            let v = vectors.t();
            let av = a.dot(&v);
            for (i, &lambda) in values.iter().enumerate() {
                for r in 0..n {
                    assert!((av[[r, i]] - lambda * v[[r, i]]).abs() < 1e-10, "n={n}");
                }
            }
            let gram = vectors.dot(&v);
            for i in 0..n {
                for j in 0..n {
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((gram[[i, j]] - want).abs() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn handles_diagonal_and_repeated_eigenvalues() {
        let mut a = Array2::eye(5);
        a[[4, 4]] = -3.0;
        let (values, _) = symmetric_eigen(&a).unwrap();
        assert_eq!(values, vec![-3.0, 1.0, 1.0, 1.0, 1.0]);
        let zero = Array2::zeros((3, 3));
        assert_eq!(symmetric_eigen(&zero).unwrap().0, vec![0.0; 3]);
    }

    #[test]
    fn rejects_non_finite_input() {
        let mut a = Array2::eye(2);
        a[[1, 0]] = f64::NAN;
        assert!(symmetric_eigen(&a).is_err());
    }
}
