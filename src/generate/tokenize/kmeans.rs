//! Lloyd's k-means with k-means++ seeding, written so that a seed fixes the result bit for bit
//! on any machine and with any number of threads: fixed summation orders, no fused multiply-add.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::numeric::kernels::{dot_f32, fold8_f32, sq_distance_f32};
use crate::numeric::random::SeededRng;
use crate::progress::{Progress, check_cancelled};

/// Points handled by one parallel task; fixed, so results never depend on the thread count.
const POINTS_PER_TASK: usize = 64;

/// How the first centroids are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum Init {
    /// k distinct points drawn uniformly, as faiss's `Kmeans` (the reference RK-Means) does.
    /// On the reference MiniLM embeddings it reaches faiss's reconstruction error.
    #[default]
    #[serde(rename = "random")]
    Random,
    /// k-means++ (Arthur & Vassilvitskii 2007): each next centroid drawn with probability
    /// proportional to the squared distance to the nearest one chosen so far.
    #[serde(rename = "kmeans++")]
    PlusPlus,
}

/// What to fit.
#[derive(Debug, Clone, Copy)]
pub struct KMeansConfig {
    /// Number of clusters k.
    pub clusters: usize,
    /// How the first centroids are chosen.
    pub init: Init,
    /// Most Lloyd iterations (update + assignment) after seeding.
    pub max_iters: usize,
    /// Seed of the k-means++ draws.
    pub seed: u64,
}

/// A fitted k-means: centroids and the nearest centroid of every training point.
#[derive(Debug, Clone)]
pub struct KMeans {
    /// `clusters × dim` centroids, row-major.
    pub centroids: Vec<f32>,
    /// Nearest centroid of each point under the final centroids (ties: lowest index).
    pub labels: Vec<u32>,
    /// Lloyd iterations run.
    pub iterations: usize,
    /// Whether the assignment stopped changing before `max_iters`.
    pub converged: bool,
    /// Times an empty cluster was re-seeded with the point farthest from its centroid.
    pub reseeded: usize,
}

/// Units of progress [`fit`] reports: one for seeding and one per iteration.
pub fn progress_units(config: &KMeansConfig) -> u64 {
    config.max_iters as u64 + 1
}

/// Fits k-means to `points` (`n × dim`, row-major, finite). Needs at least `clusters` points.
/// Own implementation rather than linfa-clustering 0.8.1, whose update is m_k-means (the old
/// centroid counts as one more member, not the Lloyd/faiss update the reference used), whose
/// k-means|| seeding draws depend on rayon's work split, and which has no progress or
/// cancellation. Here a seed fixes the result bit for bit on any machine and thread count.
pub fn fit(
    points: &[f32],
    dim: usize,
    config: &KMeansConfig,
    progress: &dyn Progress,
) -> Result<KMeans> {
    let n = points.len().checked_div(dim).unwrap_or(0);
    if dim == 0 || n * dim != points.len() {
        return Err(Error::Invalid(
            "k-means needs a non-empty n × d matrix".to_string(),
        ));
    }
    if config.clusters == 0 || config.clusters > n {
        return Err(Error::Invalid(format!(
            "k-means with {} clusters needs at least that many points, got {n}",
            config.clusters
        )));
    }
    let mut rng = SeededRng::new(config.seed);
    let mut centroids = match config.init {
        Init::Random => seed_random(points, dim, config.clusters, &mut rng),
        Init::PlusPlus => seed_plus_plus(points, dim, config.clusters, &mut rng, progress)?,
    };
    progress.advance(1);
    let mut labels = vec![0u32; n];
    let mut distances = vec![0f32; n];
    assign(points, dim, &centroids, &mut labels, &mut distances);
    let (mut iterations, mut converged, mut reseeded) = (0, false, 0);
    while iterations < config.max_iters {
        check_cancelled(progress)?;
        let moved = reseed_empty_clusters(&mut labels, &mut distances, config.clusters);
        reseeded += moved;
        update_centroids(points, dim, &labels, &mut centroids);
        let changed = assign(points, dim, &centroids, &mut labels, &mut distances);
        iterations += 1;
        progress.advance(1);
        if changed == 0 && moved == 0 {
            converged = true;
            break;
        }
    }
    progress.advance((config.max_iters - iterations) as u64);
    Ok(KMeans {
        centroids,
        labels,
        iterations,
        converged,
        reseeded,
    })
}

/// Uniform seeding: the first `clusters` points of a seeded random permutation.
fn seed_random(points: &[f32], dim: usize, clusters: usize, rng: &mut SeededRng) -> Vec<f32> {
    let mut order: Vec<usize> = (0..points.len() / dim).collect();
    rng.shuffle(&mut order);
    order[..clusters]
        .iter()
        .flat_map(|&i| points[i * dim..(i + 1) * dim].iter().copied())
        .collect()
}

/// k-means++ seeding (Arthur & Vassilvitskii 2007): each next centroid is a point drawn with
/// probability proportional to its squared distance to the nearest centroid chosen so far.
fn seed_plus_plus(
    points: &[f32],
    dim: usize,
    clusters: usize,
    rng: &mut SeededRng,
    progress: &dyn Progress,
) -> Result<Vec<f32>> {
    let n = points.len() / dim;
    let point = |i: usize| &points[i * dim..(i + 1) * dim];
    let mut centroids = Vec::with_capacity(clusters * dim);
    let first = rng.below(n);
    centroids.extend_from_slice(point(first));
    let mut nearest = vec![0f32; n];
    update_nearest(points, dim, point(first), &mut nearest, true);
    for chosen in 1..clusters {
        if chosen % 16 == 0 {
            check_cancelled(progress)?;
        }
        let total: f64 = nearest.iter().map(|&d| f64::from(d)).sum();
        let next = if total > 0.0 {
            let target = rng.unit() * total;
            let mut cumulative = 0.0;
            let mut pick = None;
            for (i, &d) in nearest.iter().enumerate() {
                cumulative += f64::from(d);
                if d > 0.0 && cumulative > target {
                    pick = Some(i);
                    break;
                }
            }
            // Rounding can leave the target just above the last cumulative sum.
            pick.or_else(|| nearest.iter().rposition(|&d| d > 0.0))
                .unwrap_or(0)
        } else {
            rng.below(n)
        };
        let start = centroids.len();
        centroids.extend_from_slice(point(next));
        update_nearest(points, dim, &centroids[start..], &mut nearest, false);
    }
    Ok(centroids)
}

/// Lowers each point's squared distance to the nearest centroid by a new centroid `c`
/// (or sets it, when `first`).
fn update_nearest(points: &[f32], dim: usize, c: &[f32], nearest: &mut [f32], first: bool) {
    nearest
        .par_chunks_mut(POINTS_PER_TASK)
        .zip(points.par_chunks(POINTS_PER_TASK * dim))
        .for_each(|(near, block)| {
            for (d, p) in near.iter_mut().zip(block.chunks_exact(dim)) {
                let to_c = sq_distance_f32(p, c);
                if first || to_c < *d {
                    *d = to_c;
                }
            }
        });
}

/// Assigns every point to its nearest centroid (ties: lowest index) and records the squared
/// distance; returns how many labels changed.
fn assign(
    points: &[f32],
    dim: usize,
    centroids: &[f32],
    labels: &mut [u32],
    distances: &mut [f32],
) -> usize {
    let norms: Vec<f32> = centroids.chunks_exact(dim).map(|c| dot_f32(c, c)).collect();
    labels
        .par_chunks_mut(POINTS_PER_TASK)
        .zip(distances.par_chunks_mut(POINTS_PER_TASK))
        .zip(points.par_chunks(POINTS_PER_TASK * dim))
        .map(|((labels, distances), block)| {
            let mut changed = 0;
            for ((labels, distances), rows) in labels
                .chunks_mut(POINT_BLOCK)
                .zip(distances.chunks_mut(POINT_BLOCK))
                .zip(block.chunks(POINT_BLOCK * dim))
            {
                let nearest = nearest_centroids_fastest(rows, centroids, &norms, dim);
                for (((label, distance), p), (best, partial)) in labels
                    .iter_mut()
                    .zip(distances.iter_mut())
                    .zip(rows.chunks_exact(dim))
                    .zip(nearest)
                {
                    changed += usize::from(*label != best);
                    *label = best;
                    *distance = (dot_f32(p, p) + partial).max(0.0);
                }
            }
            changed
        })
        .sum()
}

/// Points scored together against each centroid, so a centroid is read from cache once per
/// block instead of once per point.
const POINT_BLOCK: usize = 4;

/// [`nearest_centroids`] compiled for the widest vector unit the CPU has. Rust never fuses or
/// reorders float operations, so every variant returns the same bits; only the speed differs.
fn nearest_centroids_fastest(
    block: &[f32],
    centroids: &[f32],
    norms: &[f32],
    dim: usize,
) -> [(u32, f32); POINT_BLOCK] {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { nearest_centroids_avx2(block, centroids, norms, dim) };
    }
    nearest_centroids(block, centroids, norms, dim)
}

/// [`nearest_centroids`] with AVX2 intrinsics: one 8-lane register per partial-sum array,
/// separate multiply and add (no FMA), so every lane sums exactly as [`dot`] does.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn nearest_centroids_avx2(
    block: &[f32],
    centroids: &[f32],
    norms: &[f32],
    dim: usize,
) -> [(u32, f32); POINT_BLOCK] {
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };
    let rows: Vec<&[f32]> = block.chunks_exact(dim).collect();
    if rows.len() < POINT_BLOCK {
        return nearest_centroids(block, centroids, norms, dim);
    }
    let load = |values: &[f32], start: usize| -> __m256 {
        let chunk = &values[start..start + 8];
        // SAFETY: `chunk` holds 8 floats; the load has no alignment requirement.
        unsafe { _mm256_loadu_ps(chunk.as_ptr()) }
    };
    let full = dim - dim % 8;
    let mut best = [(0u32, f32::INFINITY); POINT_BLOCK];
    for (j, (c, &norm)) in centroids.chunks_exact(dim).zip(norms).enumerate() {
        let [mut a0, mut a1, mut a2, mut a3] = [_mm256_setzero_ps(); POINT_BLOCK];
        for start in (0..full).step_by(8) {
            let cv = load(c, start);
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(load(rows[0], start), cv));
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(load(rows[1], start), cv));
            a2 = _mm256_add_ps(a2, _mm256_mul_ps(load(rows[2], start), cv));
            a3 = _mm256_add_ps(a3, _mm256_mul_ps(load(rows[3], start), cv));
        }
        for ((b, a), row) in best.iter_mut().zip([a0, a1, a2, a3]).zip(&rows) {
            let mut lanes = [0f32; 8];
            // SAFETY: `lanes` holds 8 floats; the store has no alignment requirement.
            unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), a) };
            let tail: f32 = row[full..].iter().zip(&c[full..]).map(|(x, y)| x * y).sum();
            let d = norm - 2.0 * (fold8_f32(lanes) + tail);
            if d < b.1 {
                *b = (j as u32, d);
            }
        }
    }
    best
}

/// For each point of `block` (up to [`POINT_BLOCK`] rows), its nearest centroid and
/// `‖c‖² − 2·p·c` for it (the squared distance minus `‖p‖²`); ties go to the lowest index.
/// Every dot product is summed exactly like [`dot`], so the result does not depend on blocking.
fn nearest_centroids(
    block: &[f32],
    centroids: &[f32],
    norms: &[f32],
    dim: usize,
) -> [(u32, f32); POINT_BLOCK] {
    let mut best = [(0u32, f32::INFINITY); POINT_BLOCK];
    let rows: Vec<&[f32]> = block.chunks_exact(dim).collect();
    if rows.len() < POINT_BLOCK {
        for (b, p) in best.iter_mut().zip(&rows) {
            for (j, (c, &norm)) in centroids.chunks_exact(dim).zip(norms).enumerate() {
                let d = norm - 2.0 * dot_f32(p, c);
                if d < b.1 {
                    *b = (j as u32, d);
                }
            }
        }
        return best;
    }
    let rows: [&[f32]; POINT_BLOCK] = [rows[0], rows[1], rows[2], rows[3]];
    let full = dim - dim % 8;
    for (j, (c, &norm)) in centroids.chunks_exact(dim).zip(norms).enumerate() {
        let [mut l0, mut l1, mut l2, mut l3] = [[0f32; 8]; POINT_BLOCK];
        for start in (0..full).step_by(8) {
            let c: &[f32; 8] = c[start..start + 8].try_into().expect("8 values");
            let x0: &[f32; 8] = rows[0][start..start + 8].try_into().expect("8 values");
            let x1: &[f32; 8] = rows[1][start..start + 8].try_into().expect("8 values");
            let x2: &[f32; 8] = rows[2][start..start + 8].try_into().expect("8 values");
            let x3: &[f32; 8] = rows[3][start..start + 8].try_into().expect("8 values");
            accumulate(&mut l0, x0, c);
            accumulate(&mut l1, x1, c);
            accumulate(&mut l2, x2, c);
            accumulate(&mut l3, x3, c);
        }
        let lanes = [l0, l1, l2, l3];
        for r in 0..POINT_BLOCK {
            let tail: f32 = rows[r][full..]
                .iter()
                .zip(&c[full..])
                .map(|(x, y)| x * y)
                .sum();
            let d = norm - 2.0 * (fold8_f32(lanes[r]) + tail);
            if d < best[r].1 {
                best[r] = (j as u32, d);
            }
        }
    }
    best
}

/// Gives every empty cluster the point farthest from its centroid (largest distance first,
/// lowest index on ties), taken from clusters that keep at least one point. Returns how many
/// clusters were re-seeded.
fn reseed_empty_clusters(labels: &mut [u32], distances: &mut [f32], clusters: usize) -> usize {
    let mut counts = vec![0usize; clusters];
    for &l in labels.iter() {
        counts[l as usize] += 1;
    }
    let empty: Vec<usize> = (0..clusters).filter(|&j| counts[j] == 0).collect();
    if empty.is_empty() {
        return 0;
    }
    let mut far: Vec<usize> = (0..labels.len()).collect();
    far.sort_by(|&a, &b| distances[b].total_cmp(&distances[a]).then(a.cmp(&b)));
    let mut donors = far.into_iter();
    let mut reseeded = 0;
    for j in empty {
        let Some(p) = donors.by_ref().find(|&p| counts[labels[p] as usize] > 1) else {
            break;
        };
        counts[labels[p] as usize] -= 1;
        counts[j] = 1;
        labels[p] = j as u32;
        distances[p] = 0.0;
        reseeded += 1;
    }
    reseeded
}

/// Sets each non-empty cluster's centroid to the mean of its points, summed in f64 in point
/// order (one cluster per task, so the order never depends on threads).
fn update_centroids(points: &[f32], dim: usize, labels: &[u32], centroids: &mut [f32]) {
    let clusters = centroids.len() / dim;
    let mut starts = vec![0usize; clusters + 1];
    for &l in labels {
        starts[l as usize + 1] += 1;
    }
    for j in 0..clusters {
        starts[j + 1] += starts[j];
    }
    let mut fill = starts.clone();
    let mut members = vec![0u32; labels.len()];
    for (i, &l) in labels.iter().enumerate() {
        members[fill[l as usize]] = i as u32;
        fill[l as usize] += 1;
    }
    centroids
        .par_chunks_mut(dim)
        .enumerate()
        .for_each(|(j, centroid)| {
            let mine = &members[starts[j]..starts[j + 1]];
            if mine.is_empty() {
                return;
            }
            let mut sum = vec![0f64; dim];
            for &i in mine {
                let p = &points[i as usize * dim..(i as usize + 1) * dim];
                for (s, &v) in sum.iter_mut().zip(p) {
                    *s += f64::from(v);
                }
            }
            let count = mine.len() as f64;
            for (c, s) in centroid.iter_mut().zip(&sum) {
                *c = (s / count) as f32;
            }
        });
}

/// `lanes[k] += x[k] * c[k]`: one step of [`dot`].
#[inline(always)]
fn accumulate(lanes: &mut [f32; 8], x: &[f32; 8], c: &[f32; 8]) {
    for k in 0..8 {
        lanes[k] += x[k] * c[k];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    fn blobs(n_per: usize, centers: &[[f32; 3]], seed: u64) -> Vec<f32> {
        let mut rng = SeededRng::new(seed);
        let mut out = Vec::new();
        for _ in 0..n_per {
            for c in centers {
                for &v in c {
                    out.push(v + (rng.unit() as f32 - 0.5) * 0.2);
                }
            }
        }
        out
    }

    #[test]
    fn finds_well_separated_blobs() {
        let centers = [[0.0, 0.0, 0.0], [5.0, 0.0, 0.0], [0.0, 5.0, 5.0]];
        let points = blobs(40, &centers, 1);
        let config = KMeansConfig {
            clusters: 3,
            init: Init::PlusPlus,
            max_iters: 20,
            seed: 42,
        };
        let km = fit(&points, 3, &config, &NoProgress).unwrap();
        assert!(km.converged);
        // Points i, i+3, i+6, ... come from the same blob and must share a label.
        for i in 0..points.len() / 3 {
            assert_eq!(km.labels[i], km.labels[i % 3], "point {i}");
        }
        let mut distinct = km.labels[..3].to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 3);
    }

    #[test]
    fn duplicate_points_leave_no_cluster_empty_when_possible() {
        // 6 points, only 2 distinct values, 4 clusters: seeding duplicates, re-seeding fixes.
        let points = [0.0f32, 0.0, 0.0, 1.0, 1.0, 1.0];
        let config = KMeansConfig {
            clusters: 4,
            init: Init::Random,
            max_iters: 5,
            seed: 9,
        };
        let km = fit(&points, 1, &config, &NoProgress).unwrap();
        assert_eq!(km.labels.len(), 6);
        assert!(km.centroids.iter().all(|c| c.is_finite()));
        assert!(fit(&points[..3], 1, &config, &NoProgress).is_err());
    }

    #[test]
    fn result_does_not_depend_on_thread_count() {
        let mut rng = SeededRng::new(5);
        let points: Vec<f32> = (0..700 * 13).map(|_| rng.unit() as f32).collect();
        for init in [Init::Random, Init::PlusPlus] {
            let config = KMeansConfig {
                clusters: 17,
                init,
                max_iters: 10,
                seed: 3,
            };
            let run = |threads: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| fit(&points, 13, &config, &NoProgress).unwrap())
            };
            let (one, three) = (run(1), run(3));
            assert_eq!(one.labels, three.labels);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&one.centroids), bits(&three.centroids));
        }
    }

    #[test]
    fn vector_kernel_gives_the_same_bits_as_the_portable_one() {
        let mut rng = SeededRng::new(11);
        for dim in [5, 8, 19, 64] {
            let centroids: Vec<f32> = (0..9 * dim).map(|_| rng.unit() as f32 - 0.5).collect();
            let norms: Vec<f32> = centroids.chunks_exact(dim).map(|c| dot_f32(c, c)).collect();
            let points: Vec<f32> = (0..4 * dim).map(|_| rng.unit() as f32 - 0.5).collect();
            let fast = nearest_centroids_fastest(&points, &centroids, &norms, dim);
            let portable = nearest_centroids(&points, &centroids, &norms, dim);
            for (f, p) in fast.iter().zip(&portable) {
                assert_eq!((f.0, f.1.to_bits()), (p.0, p.1.to_bits()), "dim {dim}");
            }
        }
    }

    #[test]
    fn kernels_match_naive_sums() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..19).map(|i| 3.0 - i as f32).collect();
        let naive_dot: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let naive_sq: f32 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
        assert!((dot_f32(&a, &b) - naive_dot).abs() < 1e-3);
        assert!((sq_distance_f32(&a, &b) - naive_sq).abs() < 1e-3);
        let centroids: Vec<f32> = (0..5 * 19).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
        let norms: Vec<f32> = centroids.chunks_exact(19).map(|c| dot_f32(c, c)).collect();
        let points: Vec<f32> = (0..4 * 19).map(|i| ((i * 5) % 13) as f32 * 0.25).collect();
        let blocked = nearest_centroids(&points, &centroids, &norms, 19);
        for (p, row) in points.chunks_exact(19).enumerate() {
            let single = nearest_centroids(row, &centroids, &norms, 19)[0];
            assert_eq!(blocked[p].0, single.0);
            assert_eq!(blocked[p].1.to_bits(), single.1.to_bits());
        }
    }
}
