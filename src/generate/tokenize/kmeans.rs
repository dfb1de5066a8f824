//! Lloyd's k-means with k-means++ seeding, written so that a seed fixes the result bit for bit
//! on any machine and with any number of threads: fixed summation orders, no fused multiply-add.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::numeric::kernels::{assign_nearest_centroids, dot_f32, sq_distance_f32};
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
            assign_nearest_centroids(block, centroids, &norms, dim, labels, distances)
        })
        .sum()
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
}
