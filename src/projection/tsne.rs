//! Barnes–Hut t-SNE (van der Maaten 2014) in two dimensions: exact nearest neighbours,
//! perplexity-calibrated affinities, a quadtree for the repulsion, the usual optimiser
//! (early exaggeration, momentum, gains). Work is parallel per point and every reduction runs
//! in a fixed order, so one seed gives bit-identical points on any number of threads.

use rayon::prelude::*;

use super::Stream;
use super::pca::Reduced;
use crate::Result;
use crate::numeric::kernels::sq_distance_4_adjacent;
use crate::numeric::random::SeededRng;
use crate::progress::{Progress, check_cancelled};

/// Factor on the affinities during the first iterations, to form clusters early.
const EXAGGERATION: f64 = 12.0;
/// Iterations with exaggeration and low momentum (fewer when the run is short).
const EXAGGERATION_ITERATIONS: usize = 250;
const INITIAL_MOMENTUM: f64 = 0.5;
const FINAL_MOMENTUM: f64 = 0.8;
/// Standard deviation of the random start.
const START_SCALE: f64 = 1e-4;
const MIN_GAIN: f64 = 0.01;
/// Rows per parallel batch of the neighbour search (progress and cancellation granularity).
const NEIGHBOUR_BATCH: usize = 256;
/// Below this cell width quadtree points are merged instead of split further.
const MAX_TREE_DEPTH: u32 = 48;

/// The optimiser's settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    pub perplexity: f64,
    pub iterations: usize,
    pub theta: f64,
    pub seed: u64,
}

/// The sparse symmetric affinities P (CSR), summing to 1.
#[derive(Debug, Clone)]
pub(crate) struct Affinities {
    starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<f64>,
}

/// The 2-D points of `data`'s rows. `settings.perplexity` must already fit the row count
/// (`3 · perplexity ≤ n − 1`) and `n ≥ 2`.
pub(crate) fn embed(
    data: &Reduced,
    settings: Settings,
    progress: &dyn Progress,
) -> Result<Vec<[f64; 2]>> {
    let affinities = affinities(data, settings.perplexity, progress)?;
    optimise(&affinities, data.n, settings, progress)
}

/// Number of rows whose nearest neighbour is at distance zero (exact duplicates).
pub(crate) fn count_duplicates(data: &Reduced) -> usize {
    let mut order: Vec<usize> = (0..data.n).collect();
    order.sort_by(|&a, &b| {
        data.row(a)
            .iter()
            .zip(data.row(b))
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let same = |a: usize, b: usize| data.row(a) == data.row(b);
    (0..order.len())
        .filter(|&k| {
            (k > 0 && same(order[k], order[k - 1]))
                || (k + 1 < order.len() && same(order[k], order[k + 1]))
        })
        .count()
}

/// Exact k nearest neighbours of every row (ties broken by row number), then Gaussian
/// conditionals calibrated to the perplexity, symmetrised: p_ij = (p_j|i + p_i|j) / 2n.
pub(crate) fn affinities(
    data: &Reduced,
    perplexity: f64,
    progress: &dyn Progress,
) -> Result<Affinities> {
    let n = data.n;
    let k = ((3.0 * perplexity) as usize).clamp(1, n - 1);
    progress.stage("neighbours", n as u64);
    let mut neighbours = vec![0u32; n * k];
    let mut conditional = vec![0.0; n * k];
    for first in (0..n).step_by(NEIGHBOUR_BATCH) {
        check_cancelled(progress)?;
        let last = (first + NEIGHBOUR_BATCH).min(n);
        neighbours[first * k..last * k]
            .par_chunks_mut(k)
            .zip(conditional[first * k..last * k].par_chunks_mut(k))
            .enumerate()
            .for_each_init(Vec::new, |candidates, (offset, (ids, probs))| {
                let i = first + offset;
                candidates.clear();
                let row = data.row(i);
                candidates.extend(
                    (0..n)
                        .filter(|&j| j != i)
                        .map(|j| (sq_distance_4_adjacent(row, data.row(j)), j as u32)),
                );
                let order =
                    |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
                if candidates.len() > k {
                    candidates.select_nth_unstable_by(k - 1, order);
                    candidates.truncate(k);
                }
                candidates.sort_unstable_by(order);
                for (t, &(d2, j)) in candidates.iter().enumerate() {
                    ids[t] = j;
                    probs[t] = d2;
                }
                calibrate_row(probs, perplexity);
            });
        progress.advance((last - first) as u64);
    }
    Ok(symmetrise(n, k, &neighbours, &conditional))
}

/// Turns squared distances (ascending) into p_j|i ∝ exp(−β d²) with entropy log(perplexity),
/// by bisection on β.
fn calibrate_row(values: &mut [f64], perplexity: f64) {
    let target = perplexity.ln();
    let nearest = values[0];
    let distances: Vec<f64> = values.iter().map(|d| d - nearest).collect();
    let (mut beta, mut lo, mut hi) = (1.0, 0.0, f64::INFINITY);
    let spread = distances.last().copied().unwrap_or(0.0);
    if spread > 0.0 {
        beta = 1.0 / spread;
    }
    for _ in 0..200 {
        let mut sum = 0.0;
        let mut weighted = 0.0;
        for (v, &d) in values.iter_mut().zip(&distances) {
            *v = (-beta * d).exp();
            sum += *v;
            weighted += d * *v;
        }
        let entropy = sum.ln() + beta * weighted / sum;
        let gap = entropy - target;
        if gap.abs() < 1e-5 {
            break;
        }
        if gap > 0.0 {
            lo = beta;
            beta = if hi.is_finite() {
                (beta + hi) / 2.0
            } else {
                beta * 2.0
            };
        } else {
            hi = beta;
            beta = (beta + lo) / 2.0;
        }
    }
    let sum: f64 = values.iter().sum();
    values.iter_mut().for_each(|v| *v /= sum);
}

fn symmetrise(n: usize, k: usize, neighbours: &[u32], conditional: &[f64]) -> Affinities {
    let mut counts = vec![0usize; n + 1];
    for i in 0..n {
        for &j in &neighbours[i * k..(i + 1) * k] {
            counts[i] += 1;
            counts[j as usize] += 1;
        }
    }
    let mut starts = vec![0usize; n + 1];
    for i in 0..n {
        starts[i + 1] = starts[i] + counts[i];
    }
    let mut fill = starts.clone();
    let mut entries = vec![(0u32, 0.0f64); starts[n]];
    for i in 0..n {
        for t in 0..k {
            let (j, p) = (neighbours[i * k + t] as usize, conditional[i * k + t]);
            entries[fill[i]] = (j as u32, p);
            fill[i] += 1;
            entries[fill[j]] = (i as u32, p);
            fill[j] += 1;
        }
    }
    let scale = 1.0 / (2.0 * n as f64);
    let mut out = Affinities {
        starts: vec![0],
        columns: Vec::with_capacity(entries.len()),
        values: Vec::with_capacity(entries.len()),
    };
    for i in 0..n {
        let row = &mut entries[starts[i]..starts[i + 1]];
        row.sort_by_key(|e| e.0);
        let mut t = 0;
        while t < row.len() {
            let column = row[t].0;
            let mut p = 0.0;
            while t < row.len() && row[t].0 == column {
                p += row[t].1;
                t += 1;
            }
            out.columns.push(column);
            out.values.push(p * scale);
        }
        out.starts.push(out.columns.len());
    }
    out
}

/// Gradient descent on the KL divergence from a seeded random start.
fn optimise(
    p: &Affinities,
    n: usize,
    settings: Settings,
    progress: &dyn Progress,
) -> Result<Vec<[f64; 2]>> {
    let mut rng = SeededRng::for_stream(settings.seed, Stream::TsneStart as u64);
    let mut y: Vec<[f64; 2]> = (0..n)
        .map(|_| [rng.normal() * START_SCALE, rng.normal() * START_SCALE])
        .collect();
    let mut update = vec![[0.0; 2]; n];
    let mut gains = vec![[1.0; 2]; n];
    let mut gradient = vec![[0.0; 2]; n];
    let learning_rate = (n as f64 / EXAGGERATION / 4.0).max(50.0);
    let early = EXAGGERATION_ITERATIONS.min(settings.iterations / 4);
    progress.stage("t-SNE", settings.iterations as u64);
    for iteration in 0..settings.iterations {
        check_cancelled(progress)?;
        let (exaggeration, momentum) = if iteration < early {
            (EXAGGERATION, INITIAL_MOMENTUM)
        } else {
            (1.0, FINAL_MOMENTUM)
        };
        compute_gradient(p, &y, exaggeration, settings.theta, &mut gradient);
        for i in 0..n {
            for c in 0..2 {
                let g = gradient[i][c];
                let gain: &mut f64 = &mut gains[i][c];
                *gain = if sign(g) != sign(update[i][c]) {
                    *gain + 0.2
                } else {
                    *gain * 0.8
                }
                .max(MIN_GAIN);
                update[i][c] = momentum * update[i][c] - learning_rate * *gain * g;
                y[i][c] += update[i][c];
            }
        }
        let mut mean = [0.0; 2];
        for point in &y {
            mean[0] += point[0];
            mean[1] += point[1];
        }
        for point in &mut y {
            point[0] -= mean[0] / n as f64;
            point[1] -= mean[1] / n as f64;
        }
        progress.advance(1);
    }
    Ok(y)
}

fn sign(v: f64) -> i8 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// ∂KL/∂y_i = 4 (exaggeration · Σ_j p_ij q̂_ij (y_i − y_j) − Σ_j q̂_ij² (y_i − y_j) / Z), with
/// q̂_ij = 1/(1 + |y_i − y_j|²) and Z = Σ_{i≠j} q̂_ij; the repulsion via the quadtree.
fn compute_gradient(
    p: &Affinities,
    y: &[[f64; 2]],
    exaggeration: f64,
    theta: f64,
    out: &mut [[f64; 2]],
) {
    let cells = QuadTree::build(y).flatten();
    // Points visited in space-filling-curve order take nearly the same path through the tree
    // one after another (cache and branch friendly); each point's sums stay its own, so the
    // order cannot change the result.
    let order = morton_order(y);
    let parts: Vec<[f64; 5]> = order
        .par_iter()
        .map(|&i| {
            let i = i as usize;
            let (mut ax, mut ay) = (0.0, 0.0);
            let yi = y[i];
            for t in p.starts[i]..p.starts[i + 1] {
                let yj = y[p.columns[t] as usize];
                let (dx, dy) = (yi[0] - yj[0], yi[1] - yj[1]);
                let w = p.values[t] / (1.0 + dx * dx + dy * dy);
                ax += w * dx;
                ay += w * dy;
            }
            let [rx, ry, z] = repulsion(&cells, yi, theta);
            [ax, ay, rx, ry, z]
        })
        .collect();
    let mut z = 0.0;
    let mut by_point = vec![[0.0; 5]; y.len()];
    for (&i, part) in order.iter().zip(&parts) {
        by_point[i as usize] = *part;
    }
    for part in &by_point {
        z += part[4];
    }
    let inverse_z = if z > 0.0 { z.recip() } else { 0.0 };
    for (g, part) in out.iter_mut().zip(&by_point) {
        g[0] = 4.0 * (exaggeration * part[0] - part[2] * inverse_z);
        g[1] = 4.0 * (exaggeration * part[1] - part[3] * inverse_z);
    }
}

/// Point indices sorted along a Z-order (Morton) curve over the bounding box.
fn morton_order(y: &[[f64; 2]]) -> Vec<u32> {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for point in y {
        for c in 0..2 {
            lo[c] = lo[c].min(point[c]);
            hi[c] = hi[c].max(point[c]);
        }
    }
    let scale = [0, 1].map(|c| {
        let extent = hi[c] - lo[c];
        if extent > 0.0 { 65535.0 / extent } else { 0.0 }
    });
    let spread = |v: u32| {
        let mut v = v & 0xFFFF;
        v = (v | (v << 8)) & 0x00FF_00FF;
        v = (v | (v << 4)) & 0x0F0F_0F0F;
        v = (v | (v << 2)) & 0x3333_3333;
        (v | (v << 1)) & 0x5555_5555
    };
    let mut keyed: Vec<(u32, u32)> = y
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let x = ((p[0] - lo[0]) * scale[0]) as u32;
            let y = ((p[1] - lo[1]) * scale[1]) as u32;
            (spread(x) | (spread(y) << 1), i as u32)
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// A point-region quadtree over the embedding, rebuilt every iteration.
struct QuadTree {
    nodes: Vec<Node>,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    center: [f64; 2],
    half: f64,
    /// Sum of the positions below; their centre of mass once the tree is built.
    mass: [f64; 2],
    count: u32,
    /// Index of the first of four children; 0 for a leaf.
    children: u32,
    /// For a leaf: the position of its point(s) (all equal unless the depth limit merged them).
    point: [f64; 2],
    depth: u32,
}

impl QuadTree {
    fn build(y: &[[f64; 2]]) -> Self {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for point in y {
            for c in 0..2 {
                lo[c] = lo[c].min(point[c]);
                hi[c] = hi[c].max(point[c]);
            }
        }
        let center = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
        let half = ((hi[0] - lo[0]).max(hi[1] - lo[1]) / 2.0) * (1.0 + 1e-9) + 1e-12;
        let mut tree = QuadTree {
            nodes: Vec::with_capacity(2 * y.len() + 1),
        };
        tree.nodes.push(Node::empty(center, half, 0));
        for point in y {
            tree.insert(*point);
        }
        for node in &mut tree.nodes {
            if node.count > 0 {
                let count = f64::from(node.count);
                node.mass = [node.mass[0] / count, node.mass[1] / count];
            }
        }
        tree
    }

    fn insert(&mut self, point: [f64; 2]) {
        let mut at = 0usize;
        loop {
            let node = &mut self.nodes[at];
            node.count += 1;
            node.mass[0] += point[0];
            node.mass[1] += point[1];
            if node.children != 0 {
                at = node.children as usize + quadrant(node.center, point);
                continue;
            }
            if node.count == 1 {
                node.point = point;
                return;
            }
            if node.point == point || node.depth >= MAX_TREE_DEPTH {
                return;
            }
            // Split: move the existing point(s) one level down, then continue with `point`.
            let (center, half, depth) = (node.center, node.half, node.depth);
            let (old_point, old_count) = (node.point, node.count - 1);
            let first = self.nodes.len();
            self.nodes[at].children = first as u32;
            let quarter = half / 2.0;
            for q in 0..4 {
                let child_center = [
                    center[0] + if q & 1 == 1 { quarter } else { -quarter },
                    center[1] + if q & 2 == 2 { quarter } else { -quarter },
                ];
                self.nodes
                    .push(Node::empty(child_center, quarter, depth + 1));
            }
            let child = &mut self.nodes[first + quadrant(center, old_point)];
            child.count = old_count;
            child.mass = [
                old_point[0] * f64::from(old_count),
                old_point[1] * f64::from(old_count),
            ];
            child.point = old_point;
            at = first + quadrant(center, point);
        }
    }

    /// The non-empty cells in depth-first pre-order, each with the index of the cell after
    /// its subtree, so a traversal is one forward scan with jumps (no stack, cache-friendly).
    fn flatten(&self) -> Vec<Cell> {
        let mut cells = Vec::with_capacity(self.nodes.len());
        self.flatten_into(0, &mut cells);
        cells
    }

    fn flatten_into(&self, at: usize, cells: &mut Vec<Cell>) {
        let node = &self.nodes[at];
        if node.count == 0 {
            return;
        }
        let me = cells.len();
        cells.push(Cell {
            mass: node.mass,
            width_sq: if node.children == 0 {
                LEAF
            } else {
                (2.0 * node.half).powi(2)
            },
            count: f64::from(node.count),
            next: 0,
        });
        if node.children != 0 {
            for q in 0..4 {
                self.flatten_into(node.children as usize + q, cells);
            }
        }
        cells[me].next = cells.len() as u32;
    }
}

/// A quadtree cell as the traversal reads it.
#[derive(Debug, Clone, Copy)]
struct Cell {
    mass: [f64; 2],
    /// Squared width, or [`LEAF`] so that leaves pass the summary test without a branch.
    width_sq: f64,
    count: f64,
    /// Index of the first cell after this one's subtree.
    next: u32,
}

/// The "squared width" of a leaf: below any θ² · d², so a leaf is always used as it is.
const LEAF: f64 = -1.0;

/// Σ_j q̂² (y − y_j) and Σ_j q̂ over all points other than `y`, approximating a cell by its
/// centre of mass when width / distance < θ. With θ ≤ 0.7 a cell that contains `y` is never
/// approximated (its centre of mass is within √2 widths of `y`), so `y` meets itself only in
/// its own leaf, at distance 0, and is left out there. (An inner cell at distance 0 is never
/// summarised: its test is width² < 0.)
fn repulsion(cells: &[Cell], y: [f64; 2], theta: f64) -> [f64; 3] {
    let (mut fx, mut fy, mut z) = (0.0, 0.0, 0.0);
    let theta_sq = theta * theta;
    let mut at = 0;
    while at < cells.len() {
        let cell = &cells[at];
        let (dx, dy) = (y[0] - cell.mass[0], y[1] - cell.mass[1]);
        let d2 = dx * dx + dy * dy;
        if cell.width_sq < theta_sq * d2 {
            let others = if d2 == 0.0 {
                cell.count - 1.0
            } else {
                cell.count
            };
            let q = 1.0 / (1.0 + d2);
            z += others * q;
            let force = others * q * q;
            fx += force * dx;
            fy += force * dy;
            at = cell.next as usize;
        } else {
            at += 1;
        }
    }
    [fx, fy, z]
}

impl Node {
    fn empty(center: [f64; 2], half: f64, depth: u32) -> Self {
        Node {
            center,
            half,
            mass: [0.0; 2],
            count: 0,
            children: 0,
            point: [0.0; 2],
            depth,
        }
    }
}

/// Child index of `point` in a cell centred at `center` (bit 0: east, bit 1: north).
fn quadrant(center: [f64; 2], point: [f64; 2]) -> usize {
    usize::from(point[0] >= center[0]) + 2 * usize::from(point[1] >= center[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    fn random_points(n: usize, seed: u64) -> Vec<[f64; 2]> {
        let mut rng = SeededRng::for_stream(seed, Stream::Sample as u64);
        (0..n).map(|_| [rng.normal() * 5.0, rng.normal()]).collect()
    }

    fn reduced(values: Vec<f64>, dims: usize) -> Reduced {
        Reduced {
            n: values.len() / dims,
            values,
            dims,
            note: None,
        }
    }

    /// The brute-force gradient, straight from the definition.
    fn exact_gradient(p: &Affinities, y: &[[f64; 2]], exaggeration: f64) -> Vec<[f64; 2]> {
        let n = y.len();
        let q = |i: usize, j: usize| {
            let (dx, dy) = (y[i][0] - y[j][0], y[i][1] - y[j][1]);
            1.0 / (1.0 + dx * dx + dy * dy)
        };
        let z: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| q(i, j))
            .sum();
        let mut dense = vec![0.0; n * n];
        for i in 0..n {
            for t in p.starts[i]..p.starts[i + 1] {
                dense[i * n + p.columns[t] as usize] = p.values[t];
            }
        }
        (0..n)
            .map(|i| {
                let mut g = [0.0; 2];
                for j in (0..n).filter(|&j| j != i) {
                    let w = (exaggeration * dense[i * n + j] - q(i, j) / z) * q(i, j);
                    g[0] += 4.0 * w * (y[i][0] - y[j][0]);
                    g[1] += 4.0 * w * (y[i][1] - y[j][1]);
                }
                g
            })
            .collect()
    }

    fn test_affinities(n: usize) -> Affinities {
        let mut rng = SeededRng::for_stream(11, Stream::Sample as u64);
        let values: Vec<f64> = (0..n * 3).map(|_| rng.normal()).collect();
        affinities(&reduced(values, 3), 5.0, &NoProgress).unwrap()
    }

    #[test]
    fn tree_gradient_with_theta_zero_is_exact() {
        let n = 60;
        let p = test_affinities(n);
        let y = random_points(n, 5);
        let mut got = vec![[0.0; 2]; n];
        compute_gradient(&p, &y, 12.0, 0.0, &mut got);
        for (g, w) in got.iter().zip(exact_gradient(&p, &y, 12.0)) {
            for c in 0..2 {
                assert!(
                    (g[c] - w[c]).abs() < 1e-12 * (1.0 + w[c].abs()),
                    "{g:?} {w:?}"
                );
            }
        }
    }

    #[test]
    fn tree_gradient_with_theta_half_is_close() {
        let n = 400;
        let p = test_affinities(n);
        let y = random_points(n, 6);
        let mut got = vec![[0.0; 2]; n];
        compute_gradient(&p, &y, 1.0, 0.5, &mut got);
        let want = exact_gradient(&p, &y, 1.0);
        let norm = |v: &[[f64; 2]]| v.iter().map(|g| g[0] * g[0] + g[1] * g[1]).sum::<f64>();
        let diff: Vec<[f64; 2]> = got
            .iter()
            .zip(&want)
            .map(|(a, b)| [a[0] - b[0], a[1] - b[1]])
            .collect();
        let relative = (norm(&diff) / norm(&want)).sqrt();
        assert!(relative < 0.05, "relative error {relative}");
    }

    #[test]
    fn duplicate_points_do_not_break_the_tree() {
        let mut y = vec![[1.0, 2.0]; 5];
        y.push([-3.0, 0.5]);
        let cells = QuadTree::build(&y).flatten();
        let [fx, fy, z] = repulsion(&cells, [1.0, 2.0], 0.5);
        // Four coincident others (q̂ = 1, no force) and one at distance² 10.25.
        let q = 1.0 / (1.0 + 16.0 + 2.25);
        assert!((z - (4.0 + q)).abs() < 1e-12);
        assert!((fx - q * q * 4.0).abs() < 1e-12 && (fy - q * q * 1.5).abs() < 1e-12);
    }

    #[test]
    fn calibrated_rows_have_the_target_perplexity() {
        let mut rng = SeededRng::for_stream(2, Stream::Sample as u64);
        let mut row: Vec<f64> = (0..90).map(|_| rng.normal().abs() * 3.0).collect();
        row.sort_by(f64::total_cmp);
        calibrate_row(&mut row, 30.0);
        let entropy: f64 = row.iter().filter(|&&p| p > 0.0).map(|p| -p * p.ln()).sum();
        assert!((entropy.exp() - 30.0).abs() < 0.01, "{}", entropy.exp());
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn affinities_are_symmetric_and_sum_to_one() {
        let p = test_affinities(50);
        let mut total = 0.0;
        for i in 0..50 {
            for t in p.starts[i]..p.starts[i + 1] {
                let j = p.columns[t] as usize;
                let back = (p.starts[j]..p.starts[j + 1])
                    .find(|&s| p.columns[s] as usize == i)
                    .map(|s| p.values[s]);
                assert_eq!(back, Some(p.values[t]));
                total += p.values[t];
            }
        }
        assert!((total - 1.0).abs() < 1e-12);
    }

    #[test]
    fn duplicates_are_counted() {
        let data = reduced(vec![1.0, 1.0, 2.0, 1.0, 1.0, 3.0], 1);
        assert_eq!(count_duplicates(&data), 4);
    }
}
