//! The largest-magnitude eigenpairs of a sparse symmetric matrix by a thick-restarted block
//! Lanczos (block Krylov–Schur) method. Blocks keep the heavy work in matrix–matrix products;
//! a symmetric matrix's singular triplets are its eigenpairs with σ = |λ|, so this is the
//! truncated SVD of the PPMI matrix.

use ndarray::{Array2, Axis, s};

use super::dense_eigen::symmetric_eigen;
use super::gemm;
use super::sparse::Csr;
use crate::Result;
use crate::numeric::random::SeededRng;
use crate::progress::{Progress, check_cancelled};

/// Matrices up to this order are decomposed densely: faster than iterating, and exact.
const DENSE_LIMIT: usize = 700;

/// Directions whose share of a block is below this (relative to the block's largest) are
/// treated as lost to rounding and replaced by fresh random ones.
const RANK_TOLERANCE: f64 = 1e-10;

/// A cycle is expected to finish the job when the restart before it left every wanted pair
/// within this factor of the tolerance.
const CLOSING_FACTOR: f64 = 1e3;

/// How the solver iterates; [`SolverConfig::for_rank`] picks values that suit PPMI matrices.
#[derive(Debug, Clone, PartialEq)]
pub struct SolverConfig {
    /// Columns per Krylov block.
    pub block: usize,
    /// Ritz vectors kept at each restart (at least the number wanted).
    pub keep: usize,
    /// Largest basis before a restart.
    pub basis: usize,
    /// A pair counts as converged when its residual is below `tolerance · |λ_max|`.
    pub tolerance: f64,
    /// Restarts allowed before giving up on full convergence.
    pub max_restarts: usize,
    /// Blocks between convergence checks in a cycle that is expected to finish the job (0:
    /// check only when the basis is full). A check costs one eigen-decomposition of the
    /// projected matrix, about what Gram–Schmidt costs for one block at 50k items.
    pub check_every: usize,
    /// Seed of the random start block.
    pub seed: u64,
}

impl SolverConfig {
    /// Parameters for the `k` largest pairs of an order-`n` matrix. Measured on power-law
    /// PPMI matrices (10k–50k items, docs/PERFORMANCE.md): small blocks and a long extension per
    /// restart need the fewest products and the least Gram–Schmidt. The tolerance is 1e-8 of
    /// `|λ_max|`: a run stopped at 1e-7 (checked mid-cycle, at 50k items) moved the pairwise
    /// cosines by 1.5e-6 from scipy's `svds`, one stopped at 1e-8 by 4e-8 (the conformance
    /// bar is 1e-5).
    pub fn for_rank(k: usize, n: usize) -> Self {
        let block = 16;
        let keep = k + k.div_ceil(4).max(block);
        SolverConfig {
            block,
            keep,
            basis: (keep + 16 * block).min(n),
            tolerance: 1e-8,
            max_restarts: 200,
            check_every: 4,
            seed: 42,
        }
    }
}

/// The `k` eigenpairs of largest magnitude.
#[derive(Debug, Clone)]
pub struct Eigenpairs {
    /// Eigenvalues (signed), largest magnitude first.
    pub values: Vec<f64>,
    /// `n × k`, column `i` the unit eigenvector of `values[i]`.
    pub vectors: Array2<f64>,
    /// Restarts the iteration needed (0 for the dense path).
    pub restarts: usize,
    /// Products of the matrix with a vector.
    pub products: usize,
    /// Largest residual `‖A x − λ x‖` relative to `|λ_max|` among the returned pairs.
    pub max_residual: f64,
    /// Whether every pair met the tolerance (false only when `max_restarts` ran out).
    pub converged: bool,
    /// `dense` for small matrices, else `block-lanczos`.
    pub method: &'static str,
}

/// The `k` largest-magnitude eigenpairs of the symmetric `a`. Progress: one stage whose units
/// are converged pairs; cancellation is checked after every block product.
pub fn largest_magnitude(
    a: &Csr,
    k: usize,
    config: &SolverConfig,
    progress: &dyn Progress,
) -> Result<Eigenpairs> {
    let n = a.n();
    let k = k.min(n);
    progress.stage("eigenpairs", k as u64);
    if n <= DENSE_LIMIT.max(config.basis) || config.basis < config.keep + config.block {
        let pairs = dense(a, k)?;
        progress.advance(k as u64);
        return Ok(pairs);
    }
    BlockLanczos::new(a, k, config).run(progress)
}

/// The dense path: every eigenpair, then the `k` largest in magnitude.
fn dense(a: &Csr, k: usize) -> Result<Eigenpairs> {
    let (values, vectors) = symmetric_eigen(&a.to_dense())?;
    let order = by_magnitude(&values);
    let top = &order[..k];
    let mut out = Array2::zeros((a.n(), k));
    for (col, &i) in top.iter().enumerate() {
        out.column_mut(col).assign(&vectors.row(i));
    }
    Ok(Eigenpairs {
        values: top.iter().map(|&i| values[i]).collect(),
        vectors: out,
        restarts: 0,
        products: a.n(),
        max_residual: 0.0,
        converged: true,
        method: "dense",
    })
}

/// Wanted pairs converged, counted from the largest until the first one that is not (the
/// order progress reports them in).
fn converged_count(residuals: &[f64], tolerance: f64) -> usize {
    residuals.iter().take_while(|&&r| r <= tolerance).count()
}

/// Indices of `values` by decreasing magnitude (ties: lower index first).
fn by_magnitude(values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&x, &y| values[y].abs().total_cmp(&values[x].abs()).then(x.cmp(&y)));
    order
}

/// The eigen-decomposition of the projected matrix, and how far its wanted pairs are.
struct RitzPairs {
    /// Eigenvalues of the projected matrix.
    values: Vec<f64>,
    /// Row `i`: the eigenvector of `values[i]` in basis coordinates.
    vectors: Array2<f64>,
    /// Indices into `values` by decreasing magnitude.
    order: Vec<usize>,
    /// Wanted pairs converged, counted from the largest.
    converged: usize,
    /// Largest residual among the wanted pairs.
    worst: f64,
}

struct BlockLanczos<'a> {
    a: &'a Csr,
    k: usize,
    config: &'a SolverConfig,
    rng: SeededRng,
    /// Orthonormal basis, `n × basis`; columns `..cols` are in use.
    q: Array2<f64>,
    /// `qᵀ A q` on the columns in use.
    h: Array2<f64>,
    /// First basis column the frontier block is coupled to in `h` (the block before it, or
    /// every kept Ritz vector right after a restart): in exact arithmetic `A·frontier` has no
    /// component on the columns before it.
    coupled_from: usize,
    products: usize,
}

impl<'a> BlockLanczos<'a> {
    fn new(a: &'a Csr, k: usize, config: &'a SolverConfig) -> Self {
        BlockLanczos {
            a,
            k,
            config,
            rng: SeededRng::for_stream(config.seed, 0x6b72_796c_6f76),
            q: Array2::zeros((a.n(), config.basis)),
            h: Array2::zeros((config.basis, config.basis)),
            coupled_from: 0,
            products: 0,
        }
    }

    fn run(mut self, progress: &dyn Progress) -> Result<Eigenpairs> {
        let (b, keep, basis) = (self.config.block, self.config.keep, self.config.basis);
        let start = self.fresh_directions(b, 0);
        self.q.slice_mut(s![.., ..b]).assign(&start);
        let (mut done, mut cols) = (0, b);
        let mut reported = 0;
        let mut restarts = 0;
        // Whether the last restart's worst residual says this cycle may well finish the job;
        // the basis is then checked every few blocks instead of only when it is full, so the
        // last cycle stops where the pairs converge instead of at the full basis.
        let mut closing = false;
        loop {
            let mut blocks = 0;
            // Extend the basis block by block; `next` and `coupling` continue the last block.
            let (pairs, coupling, next) = loop {
                let (next, coupling) = self.extend(done, cols)?;
                check_cancelled(progress)?;
                blocks += 1;
                let full = cols + b > basis;
                if full
                    || (closing
                        && self.config.check_every > 0
                        && blocks % self.config.check_every == 0)
                {
                    let pairs = self.ritz_pairs(done, cols, &coupling)?;
                    if pairs.converged > reported {
                        progress.advance((pairs.converged - reported) as u64);
                        reported = pairs.converged;
                    }
                    if full || pairs.converged == self.k {
                        break (pairs, coupling, next);
                    }
                }
                self.q.slice_mut(s![.., cols..cols + b]).assign(&next);
                self.set_block(cols, done, &coupling);
                self.coupled_from = done;
                done = cols;
                cols += b;
            };
            let RitzPairs {
                values,
                vectors,
                order,
                converged,
                worst,
            } = pairs;
            let finished = converged == self.k || restarts == self.config.max_restarts;
            let wanted = if finished { self.k } else { keep };
            let mut ritz = Array2::zeros((cols, wanted));
            for (col, &i) in order[..wanted].iter().enumerate() {
                ritz.column_mut(col).assign(&vectors.row(i));
            }
            let x = gemm::a_b(&self.q, 0..cols, &ritz);
            if finished {
                return Ok(Eigenpairs {
                    values: order[..self.k].iter().map(|&i| values[i]).collect(),
                    vectors: x,
                    restarts,
                    products: self.products,
                    max_residual: worst,
                    converged: converged == self.k,
                    method: "block-lanczos",
                });
            }
            closing = worst <= CLOSING_FACTOR * self.config.tolerance;
            // Thick restart: the kept Ritz vectors, then the block that continues them.
            restarts += 1;
            self.q.slice_mut(s![.., ..keep]).assign(&x);
            self.q.slice_mut(s![.., keep..keep + b]).assign(&next);
            self.h.fill(0.0);
            for (col, &i) in order[..keep].iter().enumerate() {
                self.h[[col, col]] = values[i];
            }
            let tail = ritz.slice(s![done..cols, ..]);
            self.set_block(keep, 0, &coupling.dot(&tail));
            self.coupled_from = 0;
            done = keep;
            cols = keep + b;
        }
    }

    /// The Ritz pairs of the basis's first `cols` columns, largest magnitude first, with the
    /// residuals `‖A x − θ x‖ / |θ_max|` of the `k` wanted ones: only the frontier rows
    /// `done..cols` of an eigenvector meet the coupling to the next block.
    fn ritz_pairs(&self, done: usize, cols: usize, coupling: &Array2<f64>) -> Result<RitzPairs> {
        let (values, vectors) = symmetric_eigen(&self.h.slice(s![..cols, ..cols]).to_owned())?;
        let order = by_magnitude(&values);
        let scale = values[order[0]].abs().max(f64::MIN_POSITIVE);
        let residuals: Vec<f64> = order[..self.k]
            .iter()
            .map(|&i| {
                let tail = vectors.slice(s![i, done..cols]);
                coupling
                    .dot(&tail)
                    .iter()
                    .map(|v| v * v)
                    .sum::<f64>()
                    .sqrt()
                    / scale
            })
            .collect();
        Ok(RitzPairs {
            converged: converged_count(&residuals, self.config.tolerance),
            worst: residuals.iter().copied().fold(0.0, f64::max),
            values,
            vectors,
            order,
        })
    }

    /// Multiplies the frontier columns `done..cols` by A, records their projections in `h`,
    /// and returns the orthonormal continuation block with its coupling (`A F = Q C + P R`).
    fn extend(&mut self, done: usize, cols: usize) -> Result<(Array2<f64>, Array2<f64>)> {
        let frontier = gemm::columns(&self.q, done..cols);
        let mut z = self.a.mul_block(frontier.view());
        self.products += cols - done;
        let product_norms = column_norms(&z);
        // The three-term recurrence against the coupled columns, then one classical
        // Gram–Schmidt pass against the whole basis for what rounding left on the rest: the
        // second pass of "twice is enough" (Giraud et al. 2005) at the cost of one.
        let from = self.coupled_from;
        let local = gemm::at_b(&self.q, from..cols, &z);
        gemm::sub_a_b(&self.q, from..cols, &local, &mut z);
        let local_norms = column_norms(&z);
        let mut c = gemm::at_b(&self.q, 0..cols, &z);
        gemm::sub_a_b(&self.q, 0..cols, &c, &mut z);
        let mut coupled = c.slice_mut(s![from..cols, ..]);
        coupled += &local;
        for i in 0..cols {
            for j in 0..cols - done {
                let v = if i >= done {
                    0.5 * (c[[i, j]] + c[[done + j, i - done]])
                } else {
                    c[[i, j]]
                };
                self.h[[i, done + j]] = v;
                self.h[[done + j, i]] = v;
            }
        }
        // A residual much shorter than its product (a nearly invariant subspace) keeps, once
        // normalised, a visible trace of the basis, and so does one that the whole-basis pass
        // still shortened by more than 1/√2 (Kahan–Parlett): one more pass removes it.
        let after = column_norms(&z);
        let shrunk = (0..after.len()).any(|j| {
            after[j] < 1e-3 * product_norms[j]
                || after[j] < std::f64::consts::FRAC_1_SQRT_2 * local_norms[j]
        });
        let (mut p, mut r) = orthonormalise(z)?;
        if shrunk {
            project_out(&self.q, cols, &mut p);
            let (p2, r2) = orthonormalise(p)?;
            p = p2;
            r = r2.dot(&r);
        }
        let missing = self.config.block - p.ncols();
        if missing > 0 {
            let mut fresh = self.fresh_directions(missing, cols);
            project_out(&p, p.ncols(), &mut fresh);
            let (fresh, _) = orthonormalise(fresh)?;
            p = ndarray::concatenate(Axis(1), &[p.view(), fresh.view()])
                .expect("blocks have the same rows");
            let zeros = Array2::zeros((missing, r.ncols()));
            r = ndarray::concatenate(Axis(0), &[r.view(), zeros.view()])
                .expect("couplings have the same columns");
        }
        Ok((p, r))
    }

    /// Stores the coupling `r` (rows: block at `row`, columns from `col`) and its transpose.
    fn set_block(&mut self, row: usize, col: usize, r: &Array2<f64>) {
        for i in 0..r.nrows() {
            for j in 0..r.ncols() {
                self.h[[row + i, col + j]] = r[[i, j]];
                self.h[[col + j, row + i]] = r[[i, j]];
            }
        }
    }

    /// `count` random unit directions orthogonal to the first `cols` basis columns.
    fn fresh_directions(&mut self, count: usize, cols: usize) -> Array2<f64> {
        let n = self.a.n();
        let mut z = Array2::from_shape_simple_fn((n, count), || self.rng.normal());
        for _ in 0..2 {
            if cols > 0 {
                project_out(&self.q, cols, &mut z);
            }
            let (p, _) = orthonormalise(z).expect("random directions are finite");
            z = p;
        }
        z
    }
}

/// Removes from `z` its components along the orthonormal first `cols` columns of `basis`
/// (classical Gram–Schmidt, twice), returning the coefficients `basisᵀ z` it removed.
fn project_out(basis: &Array2<f64>, cols: usize, z: &mut Array2<f64>) -> Array2<f64> {
    let mut total = Array2::zeros((cols, z.ncols()));
    for _ in 0..2 {
        let c = gemm::at_b(basis, 0..cols, z);
        gemm::sub_a_b(basis, 0..cols, &c, z);
        total += &c;
    }
    total
}

/// Euclidean norms of the columns of the row-major `z`, read row by row (a column walk
/// strides through memory).
fn column_norms(z: &Array2<f64>) -> Vec<f64> {
    let mut sums = vec![0.0; z.ncols()];
    for row in z.rows() {
        for (s, v) in sums.iter_mut().zip(row) {
            *s += v * v;
        }
    }
    sums.into_iter().map(f64::sqrt).collect()
}

/// Orthonormalises the columns of `z` through the eigen-decomposition of its Gram matrix
/// (SVQB, Stathopoulos & Wu 2002): `z = p · r`, with directions below the rank tolerance
/// dropped, so `p` may have fewer columns than `z`.
fn orthonormalise(z: Array2<f64>) -> Result<(Array2<f64>, Array2<f64>)> {
    let b = z.ncols();
    let gram = gemm::at_b(&z, 0..b, &z);
    let norms: Vec<f64> = (0..b).map(|i| gram[[i, i]].sqrt()).collect();
    let inv: Vec<f64> = norms
        .iter()
        .map(|&v| if v > 0.0 { 1.0 / v } else { 0.0 })
        .collect();
    let scaled = Array2::from_shape_fn((b, b), |(i, j)| gram[[i, j]] * inv[i] * inv[j]);
    let (values, vectors) = symmetric_eigen(&scaled)?;
    let top = values.iter().copied().fold(0.0, f64::max);
    let kept: Vec<usize> = (0..b)
        .rev()
        .filter(|&i| top > 0.0 && values[i] > RANK_TOLERANCE * top)
        .collect();
    let r_dim = kept.len();
    // p = z · D⁻¹ · V_kept · Λ^{-1/2};  r = Λ^{1/2} · V_keptᵀ · D.
    let mut map = Array2::zeros((b, r_dim));
    let mut r = Array2::zeros((r_dim, b));
    for (col, &i) in kept.iter().enumerate() {
        let root = values[i].sqrt();
        for j in 0..b {
            map[[j, col]] = inv[j] * vectors[[i, j]] / root;
            r[[col, j]] = root * vectors[[i, j]] * norms[j];
        }
    }
    Ok((gemm::a_b(&z, 0..b, &map), r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    /// A random symmetric sparse matrix with a spread spectrum, like a small PPMI matrix.
    fn random_sparse(n: usize, per_row: usize, seed: u64) -> Csr {
        let mut rng = SeededRng::new(seed);
        let mut cells = Vec::new();
        for i in 0..n as u32 {
            for _ in 0..per_row {
                let j = rng.below(n) as u32;
                if j != i {
                    cells.push((i, j));
                    cells.push((j, i));
                }
            }
        }
        cells.sort_unstable();
        Csr::from_sorted_cells(n, &cells)
            .map_and_prune(|i, j, v| v * (1.0 + ((i * j + i + j) % 5) as f64))
    }

    #[test]
    fn block_lanczos_matches_the_dense_decomposition() {
        let a = random_sparse(1200, 3, 7);
        let k = 40;
        let config = SolverConfig {
            block: 8,
            keep: 56,
            basis: 120,
            tolerance: 1e-10,
            ..SolverConfig::for_rank(k, a.n())
        };
        let iterative = BlockLanczos::new(&a, k, &config).run(&NoProgress).unwrap();
        let exact = dense(&a, k).unwrap();
        assert!(iterative.converged);
        assert!(iterative.restarts > 0, "the test should exercise restarts");
        for (x, y) in iterative.values.iter().zip(&exact.values) {
            assert!((x - y).abs() < 1e-8 * exact.values[0].abs(), "{x} vs {y}");
        }
        // The projectors onto the leading subspaces agree (signs and rotations aside).
        let p = iterative.vectors.dot(&iterative.vectors.t());
        let q = exact.vectors.dot(&exact.vectors.t());
        let worst = (&p - &q).iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        assert!(worst < 1e-6, "projector difference {worst}");
        let a_dense = a.to_dense();
        let av = a_dense.dot(&iterative.vectors);
        for (i, &lambda) in iterative.values.iter().enumerate() {
            let r = &av.column(i) - &(&iterative.vectors.column(i) * lambda);
            assert!(r.dot(&r).sqrt() < 1e-8 * exact.values[0].abs());
        }
    }

    #[test]
    fn the_last_cycle_stops_where_the_pairs_converge() {
        let a = random_sparse(1500, 3, 5);
        let k = 30;
        let config = |check_every| SolverConfig {
            block: 4,
            keep: 40,
            basis: 100,
            tolerance: 1e-9,
            check_every,
            ..SolverConfig::for_rank(k, a.n())
        };
        let (checked, unchecked) = (config(2), config(0));
        let early = BlockLanczos::new(&a, k, &checked).run(&NoProgress).unwrap();
        let full = BlockLanczos::new(&a, k, &unchecked)
            .run(&NoProgress)
            .unwrap();
        assert!(early.converged && full.converged);
        assert_eq!(early.restarts, full.restarts);
        assert!(
            early.products < full.products,
            "{} vs {}",
            early.products,
            full.products
        );
        assert!(early.max_residual <= 1e-9);
        let exact = dense(&a, k).unwrap();
        for (x, y) in early.values.iter().zip(&exact.values) {
            assert!((x - y).abs() < 1e-9 * exact.values[0].abs(), "{x} vs {y}");
        }
    }

    #[test]
    fn the_pairs_do_not_depend_on_the_thread_count() {
        let a = random_sparse(2500, 3, 11);
        let config = SolverConfig::for_rank(24, a.n());
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| largest_magnitude(&a, 24, &config, &NoProgress).unwrap())
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one.method, "block-lanczos");
        assert_eq!(one.values, two.values);
        assert_eq!(one.vectors, two.vectors);
    }

    #[test]
    fn cancellation_stops_the_iteration() {
        struct Stop;
        impl Progress for Stop {
            fn stage(&self, _: &str, _: u64) {}
            fn advance(&self, _: u64) {}
            fn cancelled(&self) -> bool {
                true
            }
        }
        let a = random_sparse(1000, 3, 1);
        let config = SolverConfig::for_rank(16, a.n());
        let err = largest_magnitude(&a, 16, &config, &Stop).unwrap_err();
        assert!(matches!(err, crate::Error::Cancelled));
    }

    #[test]
    fn orthonormalise_drops_dependent_columns() {
        // Column 1 is twice column 0; column 2 is independent.
        let z = Array2::from_shape_fn((6, 3), |(i, j)| match j {
            0 => (i % 3) as f64 + 1.0,
            1 => 2.0 * ((i % 3) as f64 + 1.0),
            _ => (i * i) as f64,
        });
        let (p, r) = orthonormalise(z.clone()).unwrap();
        assert_eq!(p.ncols(), 2);
        let back = p.dot(&r);
        assert!((&back - &z).iter().all(|v| v.abs() < 1e-10));
        let gram = p.t().dot(&p);
        assert!(
            (&gram - &Array2::<f64>::eye(2))
                .iter()
                .all(|v| v.abs() < 1e-12)
        );
    }
}
