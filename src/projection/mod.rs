//! 2-D projection of item embeddings for the scatter pane: PCA, then a deterministic
//! Barnes–Hut t-SNE, on a sample that always keeps the rows the caller must show, with an
//! on-disk cache in the user's cache folder so reopening is instant.

mod cache;
mod items;
pub mod neighbours;
mod pca;
mod tsne;

pub use cache::{CacheOutcome, ProjectionCache};
pub use items::ItemRows;

use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};

use crate::numeric::random::SeededRng;
use crate::progress::Progress;
use crate::{Error, Result};

/// Independent random streams derived from one user seed, one per purpose, so that changing
/// how many numbers one step draws never shifts another step's numbers.
#[derive(Debug, Clone, Copy)]
enum Stream {
    Sample = 1,
    PcaStart = 2,
    TsneStart = 3,
}

/// Bumped whenever the same inputs would give a different picture, so that cache entries
/// written by older versions are recomputed instead of shown.
pub const ALGORITHM_VERSION: u32 = 1;

/// Fewest rows t-SNE is run on; smaller inputs are shown by their first two principal
/// components (t-SNE needs at least 3 · perplexity neighbours with perplexity ≥ 1).
pub const MIN_TSNE_ROWS: usize = 4;

/// Largest Barnes–Hut θ: up to here a quadtree cell that contains a point is never
/// summarised for that point, which the repulsion relies on.
pub const MAX_THETA: f64 = 0.7;

/// Element types of an embeddings array: float32 and float64 files project alike (all the
/// arithmetic is float64).
pub trait Element: Copy + Into<f64> + Send + Sync {}
impl Element for f32 {}
impl Element for f64 {}

/// What to compute; every field changes the picture and is part of the cache key (except
/// `max_points`, which only matters through the rows the caller samples with it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectionParams {
    /// Effective number of neighbours each point attends to (5–50 is typical); lowered
    /// automatically for small samples.
    pub perplexity: f64,
    /// Seed of the sample, the PCA start and the t-SNE start: same seed, same picture.
    pub seed: u64,
    /// Largest sample projected; bigger inputs are sampled (keeping the must-include rows).
    pub max_points: usize,
    /// Dimensions kept by PCA before t-SNE.
    pub pca_dims: usize,
    /// Gradient-descent iterations.
    pub iterations: usize,
    /// Barnes–Hut accuracy: cells narrower than `theta` × distance are summarised (0 = exact,
    /// at most [`MAX_THETA`]).
    pub theta: f64,
}

impl Default for ProjectionParams {
    fn default() -> Self {
        ProjectionParams {
            perplexity: 30.0,
            seed: 0,
            max_points: 10_000,
            pca_dims: 50,
            iterations: 1000,
            theta: 0.5,
        }
    }
}

impl ProjectionParams {
    /// Rejects settings t-SNE cannot run with, with a message naming the setting.
    pub fn validate(&self) -> Result<()> {
        let problem = if !self.perplexity.is_finite() {
            Some(format!(
                "perplexity must be a finite number (got {})",
                self.perplexity
            ))
        } else if self.perplexity < 1.0 {
            Some(format!(
                "perplexity must be at least 1 (got {})",
                self.perplexity
            ))
        } else if self.max_points == 0 {
            Some("max points must be at least 1".to_string())
        } else if self.pca_dims < 2 {
            Some(format!(
                "PCA dimensions must be at least 2 (got {})",
                self.pca_dims
            ))
        } else if self.iterations == 0 {
            Some("iterations must be at least 1".to_string())
        } else if !(self.theta.is_finite() && (0.0..=MAX_THETA).contains(&self.theta)) {
            Some(format!(
                "theta must be between 0 and {MAX_THETA} (got {})",
                self.theta
            ))
        } else {
            None
        };
        problem.map_or(Ok(()), |p| Err(Error::Invalid(p)))
    }
}

/// How the points were laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Barnes–Hut t-SNE on the PCA-reduced rows.
    Tsne,
    /// The first two principal components (too few rows for t-SNE).
    Pca,
    /// Nothing to lay out (no row, or one at the origin).
    Trivial,
}

/// 2-D points for a set of embedding rows, plus what a user should be told about them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    /// The projected rows, strictly increasing.
    pub rows: Vec<usize>,
    /// `points[i]` is the position of `rows[i]`.
    pub points: Vec<[f64; 2]>,
    /// Rows in the embeddings, so a sample can be reported as "n of N".
    pub total_rows: usize,
    /// How the points were computed.
    pub method: Method,
    /// The perplexity actually used (lowered for small samples; 0 unless t-SNE).
    pub perplexity: f64,
    /// Facts for the user: sampling, lowered perplexity, PCA, duplicates.
    pub notes: Vec<String>,
}

impl Projection {
    /// The position of `row` in `rows`/`points`, if it was projected.
    pub fn index_of(&self, row: usize) -> Option<usize> {
        self.rows.binary_search(&row).ok()
    }

    /// The point of `row`, if it was projected.
    pub fn point(&self, row: usize) -> Option<[f64; 2]> {
        self.index_of(row).map(|i| self.points[i])
    }

    /// Whether only a sample of the rows was projected.
    pub fn is_sample(&self) -> bool {
        self.rows.len() < self.total_rows
    }
}

/// The rows to project out of `0..n`: all of them when `n ≤ max_points`, else every
/// `must_include` row plus a seeded uniform sample of the others, `max_points` in all (more
/// when `must_include` alone is larger). Sorted; the same arguments give the same rows.
pub fn sample_rows(
    n: usize,
    max_points: usize,
    must_include: &[usize],
    seed: u64,
) -> Result<Vec<usize>> {
    if let Some(&bad) = must_include.iter().find(|&&r| r >= n) {
        return Err(Error::Invalid(format!(
            "row {bad} must be shown but the embeddings have only {n} rows"
        )));
    }
    let universe: Vec<usize> = (0..n).collect();
    sample_among(&universe, max_points, must_include, seed)
}

/// Like [`sample_rows`], but drawing from `candidates` only (e.g. the rows of the items of
/// one index). `must_include` must be among the candidates.
pub fn sample_among(
    candidates: &[usize],
    max_points: usize,
    must_include: &[usize],
    seed: u64,
) -> Result<Vec<usize>> {
    let mut universe = candidates.to_vec();
    universe.sort_unstable();
    universe.dedup();
    let mut must = must_include.to_vec();
    must.sort_unstable();
    must.dedup();
    if let Some(&bad) = must.iter().find(|r| universe.binary_search(r).is_err()) {
        return Err(Error::Invalid(format!(
            "row {bad} must be shown but is not among the rows to sample from"
        )));
    }
    if universe.len() <= max_points {
        return Ok(universe);
    }
    let mut rest: Vec<usize> = universe
        .into_iter()
        .filter(|r| must.binary_search(r).is_err())
        .collect();
    let wanted = max_points.saturating_sub(must.len()).min(rest.len());
    let mut rng = SeededRng::for_stream(seed, Stream::Sample as u64);
    for i in 0..wanted {
        let j = i + rng.below(rest.len() - i);
        rest.swap(i, j);
    }
    rest.truncate(wanted);
    must.extend(rest);
    must.sort_unstable();
    Ok(must)
}

/// Projects `rows` of `embeddings` (any memory layout) to 2-D: PCA to `params.pca_dims`, then
/// Barnes–Hut t-SNE. Deterministic: the same rows, values and params give bit-identical
/// points on any machine thread count. Reports stages to `progress` and stops with
/// [`Error::Cancelled`] when it asks. Rows must be strictly increasing and finite.
pub fn project<T: Element>(
    embeddings: ArrayView2<'_, T>,
    rows: &[usize],
    params: &ProjectionParams,
    progress: &dyn Progress,
) -> Result<Projection> {
    params.validate()?;
    check_rows(embeddings, rows)?;
    let n = rows.len();
    let total_rows = embeddings.nrows();
    let mut notes = Vec::new();
    if n < total_rows {
        notes.push(format!("t-SNE on a sample of {n} of {total_rows} rows"));
    }
    let mut result = Projection {
        rows: rows.to_vec(),
        points: Vec::new(),
        total_rows,
        method: Method::Trivial,
        perplexity: 0.0,
        notes,
    };
    match n {
        0 => {
            result.notes.push("no rows to project".to_string());
            return Ok(result);
        }
        1 => {
            result.points.push([0.0, 0.0]);
            result
                .notes
                .push("a single point: nothing to lay out".to_string());
            return Ok(result);
        }
        _ => {}
    }
    if n < MIN_TSNE_ROWS {
        let reduced = pca::reduce(embeddings, rows, 2, params.seed, progress)?;
        result.points = (0..n)
            .map(|i| {
                let row = reduced.row(i);
                [
                    row.first().copied().unwrap_or(0.0),
                    row.get(1).copied().unwrap_or(0.0),
                ]
            })
            .collect();
        result.method = Method::Pca;
        result.notes.push(format!(
            "too few points for t-SNE ({n}); showing the first two principal components"
        ));
        return Ok(result);
    }
    let reduced = pca::reduce(embeddings, rows, params.pca_dims, params.seed, progress)?;
    result.notes.extend(reduced.note.clone());
    let duplicates = tsne::count_duplicates(&reduced);
    if duplicates > 0 {
        result.notes.push(format!(
            "{duplicates} points coincide with another point (identical vectors)"
        ));
    }
    let largest = (n - 1) as f64 / 3.0;
    let perplexity = if params.perplexity > largest {
        result.notes.push(format!(
            "perplexity lowered from {} to {:.2}: only {n} points (t-SNE needs 3 × perplexity ≤ points − 1)",
            params.perplexity, largest
        ));
        largest
    } else {
        params.perplexity
    };
    let settings = tsne::Settings {
        perplexity,
        iterations: params.iterations,
        theta: params.theta,
        seed: params.seed,
    };
    result.points = tsne::embed(&reduced, settings, progress)?;
    result.method = Method::Tsne;
    result.perplexity = perplexity;
    Ok(result)
}

fn check_rows<T: Element>(embeddings: ArrayView2<'_, T>, rows: &[usize]) -> Result<()> {
    if embeddings.ncols() == 0 && !rows.is_empty() {
        return Err(Error::Invalid(
            "the embeddings have no columns; there is nothing to project".to_string(),
        ));
    }
    if let Some(w) = rows.windows(2).find(|w| w[0] >= w[1]) {
        return Err(Error::Invalid(format!(
            "rows to project must be strictly increasing (row {} follows row {})",
            w[1], w[0]
        )));
    }
    if let Some(&bad) = rows.iter().find(|&&r| r >= embeddings.nrows()) {
        return Err(Error::Invalid(format!(
            "row {bad} is out of range: the embeddings have {} rows",
            embeddings.nrows()
        )));
    }
    if let Some(&bad) = rows
        .iter()
        .find(|&&r| embeddings.row(r).iter().any(|&v| !v.into().is_finite()))
    {
        return Err(Error::Invalid(format!(
            "embedding row {bad} contains NaN or infinity; every projected row must be finite"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::{CancelFlag, NoProgress};
    use ndarray::{Array2, ShapeBuilder};

    /// `clusters` Gaussian blobs of `per` points in `d` dimensions, centres `gap` apart.
    fn blobs(clusters: usize, per: usize, d: usize, gap: f64, seed: u64) -> Array2<f32> {
        let mut rng = SeededRng::for_stream(seed, Stream::Sample as u64);
        Array2::from_shape_fn((clusters * per, d), |(i, j)| {
            let centre = if j == i / per { gap } else { 0.0 };
            (centre + rng.normal()) as f32
        })
    }

    fn quick() -> ProjectionParams {
        ProjectionParams {
            perplexity: 10.0,
            iterations: 300,
            ..ProjectionParams::default()
        }
    }

    fn all_rows(n: usize) -> Vec<usize> {
        (0..n).collect()
    }

    #[test]
    fn same_seed_same_points_other_seed_other_points() {
        let data = blobs(3, 40, 12, 8.0, 1);
        let rows = all_rows(120);
        let a = project(data.view(), &rows, &quick(), &NoProgress).unwrap();
        let b = project(data.view(), &rows, &quick(), &NoProgress).unwrap();
        assert_eq!(a, b);
        let other = ProjectionParams { seed: 1, ..quick() };
        let c = project(data.view(), &rows, &other, &NoProgress).unwrap();
        assert_ne!(a.points, c.points);
        assert_eq!(a.method, Method::Tsne);
    }

    #[test]
    fn thread_count_does_not_change_the_points() {
        let data = blobs(2, 60, 70, 6.0, 2);
        let rows = all_rows(120);
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| project(data.view(), &rows, &quick(), &NoProgress).unwrap())
        };
        assert_eq!(run(1).points, run(3).points);
    }

    #[test]
    fn fortran_order_and_float64_give_the_same_points() {
        let data = blobs(2, 30, 6, 6.0, 3);
        let rows = all_rows(60);
        let c_order = project(data.view(), &rows, &quick(), &NoProgress).unwrap();
        let mut fortran = Array2::<f32>::zeros(data.raw_dim().f());
        fortran.assign(&data);
        assert!(!fortran.is_standard_layout());
        let f_order = project(fortran.view(), &rows, &quick(), &NoProgress).unwrap();
        assert_eq!(c_order.points, f_order.points);
        let wide = data.mapv(f64::from);
        let as_f64 = project(wide.view(), &rows, &quick(), &NoProgress).unwrap();
        assert_eq!(c_order.points, as_f64.points);
    }

    /// Two well separated clusters must come out as two separated clusters: every point's
    /// nearest 2-D neighbour is in its own cluster, and the gap between the cluster centres is
    /// several times the clusters' spread.
    #[test]
    fn separated_clusters_stay_separated() {
        let per = 80;
        let data = blobs(2, per, 20, 12.0, 4);
        let p = project(data.view(), &all_rows(2 * per), &quick(), &NoProgress).unwrap();
        let cluster = |i: usize| i / per;
        for (i, a) in p.points.iter().enumerate() {
            let nearest = (0..p.points.len())
                .filter(|&j| j != i)
                .min_by(|&x, &y| dist(a, &p.points[x]).total_cmp(&dist(a, &p.points[y])))
                .unwrap();
            assert_eq!(cluster(nearest), cluster(i), "point {i}");
        }
        let centre = |c: usize| {
            let pts = &p.points[c * per..(c + 1) * per];
            let sum = pts
                .iter()
                .fold([0.0, 0.0], |s, q| [s[0] + q[0], s[1] + q[1]]);
            [sum[0] / per as f64, sum[1] / per as f64]
        };
        let (c0, c1) = (centre(0), centre(1));
        let spread = (0..2 * per)
            .map(|i| dist(&p.points[i], if i < per { &c0 } else { &c1 }))
            .sum::<f64>()
            / (2 * per) as f64;
        assert!(
            dist(&c0, &c1) > 3.0 * spread,
            "{} vs {spread}",
            dist(&c0, &c1)
        );
    }

    fn dist(a: &[f64; 2], b: &[f64; 2]) -> f64 {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
    }

    #[test]
    fn sample_keeps_the_must_include_rows() {
        let must = [3, 999, 500, 3];
        let rows = sample_rows(1000, 50, &must, 7).unwrap();
        assert_eq!(rows.len(), 50);
        assert!(rows.windows(2).all(|w| w[0] < w[1]));
        for r in must {
            assert!(rows.binary_search(&r).is_ok());
        }
        assert_eq!(rows, sample_rows(1000, 50, &must, 7).unwrap());
        assert_ne!(rows, sample_rows(1000, 50, &must, 8).unwrap());
        assert_eq!(sample_rows(30, 50, &[], 1).unwrap(), all_rows(30));
        let many: Vec<usize> = (0..80).collect();
        assert_eq!(sample_rows(1000, 50, &many, 1).unwrap(), many);
        assert!(sample_rows(10, 5, &[10], 1).is_err());
        assert!(sample_among(&[1, 5, 9], 2, &[4], 1).is_err());
        let among = sample_among(&[9, 1, 5, 7], 2, &[5], 3).unwrap();
        assert!(among.len() == 2 && among.contains(&5));
    }

    struct CancelAfter {
        flag: CancelFlag,
        stage: std::sync::Mutex<String>,
        advanced: std::sync::atomic::AtomicU64,
    }

    impl Progress for CancelAfter {
        fn stage(&self, name: &str, _total: u64) {
            *self.stage.lock().unwrap() = name.to_string();
        }
        fn advance(&self, n: u64) {
            let seen = self
                .advanced
                .fetch_add(n, std::sync::atomic::Ordering::Relaxed)
                + n;
            if *self.stage.lock().unwrap() == "t-SNE" && seen > 0 {
                self.flag.cancel();
            }
        }
        fn cancelled(&self) -> bool {
            self.flag.is_cancelled()
        }
    }

    #[test]
    fn cancellation_stops_early() {
        let data = blobs(2, 30, 6, 6.0, 5);
        let progress = CancelAfter {
            flag: CancelFlag::default(),
            stage: Default::default(),
            advanced: Default::default(),
        };
        let err = project(data.view(), &all_rows(60), &quick(), &progress).unwrap_err();
        assert!(matches!(err, Error::Cancelled));
        // 60 rows of neighbours, then one t-SNE iteration before the stop was seen.
        assert_eq!(
            progress.advanced.load(std::sync::atomic::Ordering::Relaxed),
            61
        );
    }

    #[test]
    fn tiny_inputs() {
        let data = blobs(1, 6, 5, 0.0, 6);
        let none = project(data.view(), &[], &quick(), &NoProgress).unwrap();
        assert!(none.points.is_empty() && none.method == Method::Trivial);
        let one = project(data.view(), &[4], &quick(), &NoProgress).unwrap();
        assert_eq!(one.points, vec![[0.0, 0.0]]);
        for n in 2..MIN_TSNE_ROWS {
            let p = project(data.view(), &all_rows(n), &quick(), &NoProgress).unwrap();
            assert_eq!((p.method, p.points.len()), (Method::Pca, n));
            assert!(p.points.iter().flatten().all(|v| v.is_finite()));
            // Two points: their PCA distance is their true distance.
            if n == 2 {
                let full: f64 = (0..5)
                    .map(|j| f64::from(data[[0, j]] - data[[1, j]]).powi(2))
                    .sum();
                assert!((dist(&p.points[0], &p.points[1]) - full.sqrt()).abs() < 1e-5);
            }
        }
        let small = project(data.view(), &all_rows(6), &quick(), &NoProgress).unwrap();
        assert_eq!(small.method, Method::Tsne);
        assert!((small.perplexity - 5.0 / 3.0).abs() < 1e-12);
        assert!(small.notes.iter().any(|n| n.contains("perplexity lowered")));
        assert!(small.points.iter().flatten().all(|v| v.is_finite()));
    }

    #[test]
    fn duplicates_give_finite_points_and_a_note() {
        let mut data = blobs(2, 20, 4, 5.0, 7);
        for j in 0..4 {
            for i in 1..10 {
                data[[i, j]] = data[[0, j]];
            }
        }
        let p = project(data.view(), &all_rows(40), &quick(), &NoProgress).unwrap();
        assert!(p.points.iter().flatten().all(|v| v.is_finite()));
        assert!(p.notes.iter().any(|n| n.starts_with("10 points coincide")));
        let same = Array2::<f32>::ones((12, 3));
        let p = project(same.view(), &all_rows(12), &quick(), &NoProgress).unwrap();
        assert!(p.points.iter().flatten().all(|v| v.is_finite()));
    }

    #[test]
    fn bad_rows_and_params_are_errors() {
        let mut data = blobs(1, 8, 3, 0.0, 8);
        data[[5, 1]] = f32::NAN;
        let err = project(data.view(), &all_rows(8), &quick(), &NoProgress).unwrap_err();
        assert!(err.to_string().contains("row 5 contains NaN"), "{err}");
        assert!(project(data.view(), &[0, 1, 2, 3], &quick(), &NoProgress).is_ok());
        assert!(project(data.view(), &[2, 1], &quick(), &NoProgress).is_err());
        assert!(project(data.view(), &[8], &quick(), &NoProgress).is_err());
        let bad = ProjectionParams {
            perplexity: 0.5,
            ..quick()
        };
        assert!(project(data.view(), &[0], &bad, &NoProgress).is_err());
        let empty = Array2::<f32>::zeros((3, 0));
        assert!(project(empty.view(), &[0, 1], &quick(), &NoProgress).is_err());
    }

    #[test]
    fn sample_is_reported() {
        let data = blobs(2, 20, 4, 5.0, 9);
        let rows = sample_rows(40, 25, &[0, 39], 1).unwrap();
        let p = project(data.view(), &rows, &quick(), &NoProgress).unwrap();
        assert!(p.is_sample());
        assert_eq!(p.notes[0], "t-SNE on a sample of 25 of 40 rows");
        assert!(p.point(39).is_some() && p.index_of(0) == Some(0));
    }
}
