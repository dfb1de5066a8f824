//! Numeric kernels shared by the analyses. Each summation order has a name of its own, because
//! bytes depend on it: the committed demo (k-means, RK-Means codes), the t-SNE cache and the
//! ZCR costs must come out bit for bit the same on every run and every machine.
//!
//! Every float kernel with a build for a wider vector unit lives here (ZCR's distances,
//! MQL4GRec's float32 distances, k-means' nearest centroids, the sparse row × block product
//! of `sidlens cf`), with the cache hints, so that their `unsafe` (calling a build the CPU was
//! checked to run, the vector loads and the prefetch instruction) sits in one file.
#![allow(unsafe_code)] // target-feature builds called after CPU checks, AVX2 loads, prefetch.

/// `‖a − b‖²` in f64 with eight independent partial sums folded pairwise — what ZCR's costs
/// use (fast, and the same result every run). On x86-64 CPUs with AVX2 the same lanes run
/// four at a time: each lane still does its own subtract, multiply and add in the same
/// order (no fused multiply-add), so the bits are those of the portable loop.
pub fn sq_distance_8(a: &[f64], b: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { sq_distance_8_avx2(a, b) };
    }
    sq_distance_8_portable(a, b)
}

/// `out[c] = ‖r − e_c‖²` for every code `c` of a transposed float32 codebook (`d × V`,
/// `V = out.len()`): each difference in float32, squared and summed in float64 over the
/// dimensions in order, rounded to float32 — MQL4GRec's RQ distances. A block of codes is
/// computed side by side, its sums in registers, while every sum keeps the dimension order.
/// Where the CPU has fused multiply-add, each square is added with it: the square of a
/// float32 has at most 48 significant bits, so it is exact in float64 and
/// `fma(t, t, s) = round(t·t + s)` is the bits of the separate multiply and add.
pub fn sq_distances_transposed_f32(r: &[f32], transposed: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma")
    {
        // SAFETY: the CPU supports AVX-512F and FMA (checked just above).
        return unsafe { sq_distances_transposed_f32_avx512(r, transposed, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU supports AVX2 and FMA (checked just above).
        return unsafe { sq_distances_transposed_f32_avx2(r, transposed, out) };
    }
    sq_distances_transposed_f32_portable::<8, false>(r, transposed, out);
}

/// [`sq_distances_transposed_f32`] compiled for AVX-512: blocks of 64 codes (eight
/// independent registers of sums).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn sq_distances_transposed_f32_avx512(r: &[f32], transposed: &[f32], out: &mut [f32]) {
    sq_distances_transposed_f32_portable::<64, true>(r, transposed, out);
}

/// [`sq_distances_transposed_f32`] compiled for AVX2 and FMA: blocks of 16 codes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn sq_distances_transposed_f32_avx2(r: &[f32], transposed: &[f32], out: &mut [f32]) {
    sq_distances_transposed_f32_portable::<16, true>(r, transposed, out);
}

/// [`sq_distances_transposed_f32`] in blocks of `B` codes, then of 8, then one at a time
/// (the block size changes which codes share a pass, never a code's arithmetic); `FMA`
/// adds each square by a fused multiply-add (the same bits, see above; only where the CPU
/// has it, as a library call would be slow).
#[inline(always)]
fn sq_distances_transposed_f32_portable<const B: usize, const FMA: bool>(
    r: &[f32],
    transposed: &[f32],
    out: &mut [f32],
) {
    let v = out.len();
    assert_eq!(transposed.len(), r.len() * v, "a d × V transposed codebook");
    let done = f32_blocks::<B, FMA>(r, transposed, out, 0);
    let done = f32_blocks::<8, FMA>(r, transposed, out, done);
    f32_blocks::<1, FMA>(r, transposed, out, done);
}

/// Fills `out[first..]` in whole blocks of `B` codes; returns where they stop.
#[inline(always)]
fn f32_blocks<const B: usize, const FMA: bool>(
    r: &[f32],
    transposed: &[f32],
    out: &mut [f32],
    first: usize,
) -> usize {
    let v = out.len();
    let end = first + (v - first) / B * B;
    for (block, out) in out[first..end].chunks_exact_mut(B).enumerate() {
        let codes = sq_distances_f32_block::<B, FMA>(r, transposed, v, first + block * B);
        out.copy_from_slice(&codes);
    }
    end
}

/// Codes `first..first + B` of [`sq_distances_transposed_f32`] (`v` codes per row).
#[inline(always)]
fn sq_distances_f32_block<const B: usize, const FMA: bool>(
    r: &[f32],
    transposed: &[f32],
    v: usize,
    first: usize,
) -> [f32; B] {
    let mut sums = [0.0f64; B];
    for (&a, row) in r.iter().zip(transposed.chunks_exact(v)) {
        let codes: &[f32; B] = row[first..first + B].try_into().expect("B codes");
        for (s, &b) in sums.iter_mut().zip(codes) {
            let t = f64::from(a - b);
            *s = if FMA { t.mul_add(t, *s) } else { *s + t * t };
        }
    }
    sums.map(|s| s as f32)
}

/// Codes per panel of [`CodePanels`].
const PANEL: usize = 8;

/// A codebook laid out for [`sq_distances_8_panels`]: panels of eight codes, panel `p` being
/// `d` rows of eight values (dimension `j` of codes `8p..8p + 8`), the last panel padded
/// with zeros. Every block of codes the kernel reads is one contiguous fixed-size array, so
/// its inner loop has no index arithmetic or bounds checks.
#[derive(Debug, Clone)]
pub struct CodePanels {
    values: Vec<f64>,
    dim: usize,
    n_codes: usize,
}

impl CodePanels {
    /// Lays out `codewords` (each of length `dim`).
    pub fn new<'a>(dim: usize, codewords: impl ExactSizeIterator<Item = &'a [f64]>) -> Self {
        let n_codes = codewords.len();
        let mut values = vec![0.0; Self::padded_len(n_codes, dim)];
        for (c, codeword) in codewords.enumerate() {
            assert_eq!(codeword.len(), dim, "codewords of one length");
            let panel = &mut values[c / PANEL * PANEL * dim..];
            for (j, &e) in codeword.iter().enumerate() {
                panel[j * PANEL + c % PANEL] = e;
            }
        }
        CodePanels {
            values,
            dim,
            n_codes,
        }
    }

    /// Values the panels of `n_codes` codewords of length `dim` hold, padding included.
    pub fn padded_len(n_codes: usize, dim: usize) -> usize {
        n_codes.div_ceil(PANEL) * PANEL * dim
    }

    /// Values held, padding included.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is held (no code or `d = 0`).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// `out[c] = sq_distance_8(r, e_c)` for every code `c` of `panels` (`out.len()` codes), bit
/// for bit: each code keeps the eight partial sums and the fold of [`sq_distance_8`], but a
/// block of codes is computed side by side with its sums in registers, so a row of a ZCR
/// cost matrix costs a fraction of V separate calls.
pub fn sq_distances_8_panels(r: &[f64], panels: &CodePanels, out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU supports AVX-512F (checked just above).
        return unsafe { sq_distances_8_panels_avx512(r, panels, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { sq_distances_8_panels_avx2(r, panels, out) };
    }
    sq_distances_8_panels_portable::<2>(r, panels, out);
}

/// [`sq_distances_8_panels`] compiled for AVX-512: a whole panel at once, one register per
/// partial sum.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn sq_distances_8_panels_avx512(r: &[f64], panels: &CodePanels, out: &mut [f64]) {
    sq_distances_8_panels_portable::<8>(r, panels, out);
}

/// [`sq_distances_8_panels`] compiled for AVX2: half a panel at once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sq_distances_8_panels_avx2(r: &[f64], panels: &CodePanels, out: &mut [f64]) {
    sq_distances_8_panels_portable::<4>(r, panels, out);
}

/// [`sq_distances_8_panels`] in blocks of `B` codes (`B` divides [`PANEL`]): `B` codes'
/// eight partial sums are as many vector registers as the CPU has to spare.
#[inline(always)]
fn sq_distances_8_panels_portable<const B: usize>(r: &[f64], panels: &CodePanels, out: &mut [f64]) {
    assert_eq!(out.len(), panels.n_codes, "one distance per code");
    assert_eq!(r.len(), panels.dim, "a residual of the codewords' length");
    if r.is_empty() {
        out.fill(0.0);
        return;
    }
    let panel_len = r.len() * PANEL;
    let mut values = panels.values.chunks_exact(panel_len);
    // Whole panels are stored as fixed-size arrays (a variable-length copy is a `memcpy`
    // call per panel); only the last, padded panel is cut to the codes that exist.
    let (whole, partial) = out.as_chunks_mut::<PANEL>();
    for (out, panel) in whole.iter_mut().zip(&mut values) {
        *out = panel_sums::<B>(r, panel);
    }
    if let Some(panel) = values.next().filter(|_| !partial.is_empty()) {
        partial.copy_from_slice(&panel_sums::<B>(r, panel)[..partial.len()]);
    }
}

/// The distances from `r` to the eight codes of one panel, `B` codes at a time.
#[inline(always)]
fn panel_sums<const B: usize>(r: &[f64], panel: &[f64]) -> [f64; PANEL] {
    let rows = panel.as_chunks::<PANEL>().0;
    let mut sums = [0.0; PANEL];
    for part in 0..PANEL / B {
        let block = sq_distances_8_block::<B>(r, rows, part * B);
        sums[part * B..(part + 1) * B].copy_from_slice(&block);
    }
    sums
}

/// Codes `offset..offset + B` of one panel (`rows`: its `d` rows): sum k takes dimensions
/// k, k + 8, … in order (its first term stored, not added to 0: the same bits, t² ≥ 0), the
/// dimensions past the last eight a tail, then the fold of `sq_distance_8`,
/// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) + tail.
#[inline(always)]
fn sq_distances_8_block<const B: usize>(
    r: &[f64],
    rows: &[[f64; PANEL]],
    offset: usize,
) -> [f64; B] {
    let codes =
        |row: &[f64; PANEL]| -> [f64; B] { row[offset..offset + B].try_into().expect("B codes") };
    let square = |x: f64, e: f64| (x - e) * (x - e);
    let (head, tail_dims) = r.as_chunks::<8>();
    let (head_rows, tail_rows) = rows.split_at(head.len() * 8);
    let head_rows = head_rows.as_chunks::<8>().0;
    let mut lanes = [[0.0f64; B]; 8];
    // Eight dimensions per step, so every lane index is a constant and the lanes stay in
    // registers.
    let mut steps = head.iter().zip(head_rows);
    if let Some((xs, step)) = steps.next() {
        for (k, lane) in lanes.iter_mut().enumerate() {
            *lane = codes(&step[k]).map(|e| square(xs[k], e));
        }
    }
    for (xs, step) in steps {
        for (k, lane) in lanes.iter_mut().enumerate() {
            for (s, e) in lane.iter_mut().zip(codes(&step[k])) {
                *s += square(xs[k], e);
            }
        }
    }
    let mut sums = [0.0f64; B];
    for (i, s) in sums.iter_mut().enumerate() {
        let l = |k: usize| lanes[k][i];
        *s = ((l(0) + l(1)) + (l(2) + l(3))) + ((l(4) + l(5)) + (l(6) + l(7)));
    }
    let mut dims = tail_dims.iter().zip(tail_rows);
    if let Some((&x, row)) = dims.next() {
        let mut tail = codes(row).map(|e| square(x, e));
        for (&x, row) in dims {
            for (s, e) in tail.iter_mut().zip(codes(row)) {
                *s += square(x, e);
            }
        }
        for (s, t) in sums.iter_mut().zip(tail) {
            *s += t;
        }
    }
    sums
}

/// [`sq_distance_8`] compiled for AVX2 (the portable loop, widened by the compiler).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sq_distance_8_avx2(a: &[f64], b: &[f64]) -> f64 {
    sq_distance_8_portable(a, b)
}

/// [`sq_distance_8`] for any CPU.
#[inline(always)]
fn sq_distance_8_portable(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0.0f64; 8];
    let split = a.len() / 8 * 8;
    for (x, y) in a[..split].chunks_exact(8).zip(b[..split].chunks_exact(8)) {
        for k in 0..8 {
            let t = x[k] - y[k];
            acc[k] += t * t;
        }
    }
    let mut tail = 0.0;
    for (x, y) in a[split..].iter().zip(&b[split..]) {
        let t = x - y;
        tail += t * t;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail
}

/// `‖a − b‖²` in f64 with four partial sums folded as `(l0 + l1) + (l2 + l3)`: the t-SNE
/// neighbour search (its cache depends on these bits).
pub fn sq_distance_4_adjacent(a: &[f64], b: &[f64]) -> f64 {
    let lanes = lanes4(a, b);
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail_sq(a, b, 4)
}

/// `‖a − b‖²` in f64 with four partial sums folded as `(l0 + l2) + (l1 + l3)`: the RK-Means
/// encoder's exact nearest-codeword search (the demo's indexes depend on these bits).
pub fn sq_distance_4_strided(a: &[f64], b: &[f64]) -> f64 {
    let lanes = lanes4(a, b);
    ((lanes[0] + lanes[2]) + (lanes[1] + lanes[3])) + tail_sq(a, b, 4)
}

fn lanes4(a: &[f64], b: &[f64]) -> [f64; 4] {
    let mut lanes = [0.0f64; 4];
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for k in 0..4 {
            let d = x[k] - y[k];
            lanes[k] += d * d;
        }
    }
    lanes
}

/// The squared differences past the last whole chunk of `width`, summed in order.
fn tail_sq(a: &[f64], b: &[f64], width: usize) -> f64 {
    let split = a.len() / width * width;
    let mut tail = 0.0;
    for (x, y) in a[split..].iter().zip(&b[split..]) {
        tail += (x - y) * (x - y);
    }
    tail
}

/// Dot product in f32 with eight partial sums in a fixed order (vectorisable, the same bits
/// everywhere): k-means.
#[inline]
pub fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    fold8_f32(lanes) + tail
}

/// Squared Euclidean distance in f32, summed like [`dot_f32`]: k-means.
#[inline]
pub fn sq_distance_f32(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| (x - y) * (x - y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            let d = x[k] - y[k];
            lanes[k] += d * d;
        }
    }
    fold8_f32(lanes) + tail
}

/// Folds eight f32 lanes in the order [`dot_f32`] uses, for blocked kernels that keep their
/// own lanes.
#[inline]
pub fn fold8_f32(l: [f32; 8]) -> f32 {
    ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
}

/// Assigns each point of `block` (rows of `dim` values) to its nearest centroid (ties: the
/// lowest index) and records its squared distance, `‖p‖² + ‖c‖² − 2·p·c` (at least 0), given
/// the centroids' `norms` (`‖c‖²`); returns how many of `labels` changed: k-means' assignment
/// step, [`POINT_BLOCK`] points at a time, every dot product summed like [`dot_f32`].
pub fn assign_nearest_centroids(
    block: &[f32],
    centroids: &[f32],
    norms: &[f32],
    dim: usize,
    labels: &mut [u32],
    distances: &mut [f32],
) -> usize {
    let mut changed = 0;
    for ((labels, distances), rows) in labels
        .chunks_mut(POINT_BLOCK)
        .zip(distances.chunks_mut(POINT_BLOCK))
        .zip(block.chunks(POINT_BLOCK * dim))
    {
        let nearest = nearest_centroids_fastest(rows, centroids, norms, dim);
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
}

/// Points scored together against each centroid by [`nearest_centroids`], so a centroid is
/// read from cache once per block instead of once per point.
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
/// separate multiply and add (no FMA), so every lane sums exactly as [`dot_f32`] does.
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
/// Every dot product is summed exactly like [`dot_f32`], so the result does not depend on blocking.
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

/// `lanes[k] += x[k] * c[k]`: one step of [`dot_f32`].
#[inline(always)]
fn accumulate(lanes: &mut [f32; 8], x: &[f32; 8], c: &[f32; 8]) {
    for k in 0..8 {
        lanes[k] += x[k] * c[k];
    }
}

/// Columns of the block one pass of [`sparse_row_times_block`] over a sparse row accumulates
/// in registers.
const TILE: usize = 16;

/// Cells ahead of the current one whose block rows are requested from memory early: the
/// rows are read in random order, so without the hint every cell waits for its row.
const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to start loading the `TILE` values of `xs` from `at` (a hint: no effect on
/// results, and a prefetch never faults, so `at` may lie past the end).
#[inline(always)]
fn prefetch_tile(xs: &[f64], at: usize) {
    let p = xs.as_ptr().wrapping_add(at);
    prefetch_address(p);
    prefetch_address(p.cast::<u8>().wrapping_add(8 * TILE - 1));
}

/// `out = Σ v · x[c, ..]` over one sparse row's cells `(c, v)`, `x` row-major with
/// `out.len()` columns: the block products of `sidlens cf`'s eigensolver. Dispatches to an
/// AVX2 build of the same loop when the CPU has it.
#[inline]
pub fn sparse_row_times_block(cols: &[u32], vals: &[f64], xs: &[f64], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { sparse_row_times_block_avx2(cols, vals, xs, out) };
    }
    sparse_row_times_block_portable(cols, vals, xs, out);
}

/// [`sparse_row_times_block_portable`] compiled for AVX2: the same lanes four at a time, separate
/// multiply and add (no fused multiply-add), so the bits are the portable loop's.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sparse_row_times_block_avx2(cols: &[u32], vals: &[f64], xs: &[f64], out: &mut [f64]) {
    sparse_row_times_block_portable(cols, vals, xs, out);
}

/// The row kernel: `TILE` columns at a time with the partial sums in a fixed-size array (kept
/// in registers across the row's cells instead of re-read from `out` for every cell), the
/// remaining columns one by one; every output cell adds its terms in the row's column order.
#[inline(always)]
pub(crate) fn sparse_row_times_block_portable(
    cols: &[u32],
    vals: &[f64],
    xs: &[f64],
    out: &mut [f64],
) {
    let b = out.len();
    let full = b - b % TILE;
    for start in (0..full).step_by(TILE) {
        let mut acc = [0.0f64; TILE];
        for (i, (&c, &v)) in cols.iter().zip(vals).enumerate() {
            if let Some(&ahead) = cols.get(i + PREFETCH_AHEAD) {
                prefetch_tile(xs, ahead as usize * b + start);
            }
            let at = c as usize * b + start;
            let src: &[f64; TILE] = xs[at..at + TILE].try_into().expect("a tile");
            for (a, s) in acc.iter_mut().zip(src) {
                *a += v * s;
            }
        }
        out[start..start + TILE].copy_from_slice(&acc);
    }
    if full < b {
        let tail = &mut out[full..];
        tail.fill(0.0);
        for (&c, &v) in cols.iter().zip(vals) {
            let at = c as usize * b + full;
            for (o, s) in tail.iter_mut().zip(&xs[at..at + b - full]) {
                *o += v * s;
            }
        }
    }
}

/// Asks the CPU to start loading `value`'s cache line: the one hint of the evaluation's hot
/// lookups (the SID table, the id table), so that the misses of many lookups overlap. No
/// effect on results.
#[inline]
pub fn prefetch<T>(value: &T) {
    prefetch_address(std::ptr::from_ref(value));
}

/// Asks the CPU to start loading the cache line at `address` (a hint, no effect on results).
/// Any address will do, one past a slice's end included: a prefetch never faults and reads
/// nothing into the program.
#[inline(always)]
fn prefetch_address<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults and never
        // dereferences in the program's sense, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::random::SeededRng;

    /// The xorshift64 sequence from `seed`: fixed test inputs without a dependency.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    fn plain(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
    }

    #[test]
    fn every_f64_order_matches_the_plain_sum() {
        for n in [0, 1, 3, 4, 7, 8, 19, 33] {
            let a: Vec<f64> = (0..n).map(|i| f64::from(i) * 0.37).collect();
            let b: Vec<f64> = (0..n).map(|i| 1.0 - f64::from(i) * 0.11).collect();
            let want = plain(&a, &b);
            for got in [
                sq_distance_8(&a, &b),
                sq_distance_4_adjacent(&a, &b),
                sq_distance_4_strided(&a, &b),
            ] {
                assert!((got - want).abs() <= 1e-12 * want.max(1.0), "n={n}");
            }
        }
    }

    type F32Kernel = fn(&[f32], &[f32], &mut [f32]);
    type F64Kernel = fn(&[f64], &CodePanels, &mut [f64]);

    /// The dispatching entry point, the portable loop at several block sizes, then the AVX2
    /// and AVX-512 builds where this CPU runs them.
    fn f32_builds() -> Vec<(&'static str, F32Kernel)> {
        let mut builds: Vec<(&'static str, F32Kernel)> = vec![
            ("dispatched", sq_distances_transposed_f32),
            (
                "blocks of 1",
                sq_distances_transposed_f32_portable::<1, false>,
            ),
            (
                "blocks of 8",
                sq_distances_transposed_f32_portable::<8, false>,
            ),
            (
                "blocks of 64",
                sq_distances_transposed_f32_portable::<64, false>,
            ),
            // A library fma where the CPU has none: slow, but the same bits.
            (
                "blocks of 8, fused",
                sq_distances_transposed_f32_portable::<8, true>,
            ),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            let fma = std::arch::is_x86_feature_detected!("fma");
            if std::arch::is_x86_feature_detected!("avx2") && fma {
                // SAFETY: kept only where the CPU supports AVX2 and FMA (checked just above).
                builds.push(("avx2", |r, t, o| unsafe {
                    sq_distances_transposed_f32_avx2(r, t, o);
                }));
            }
            if std::arch::is_x86_feature_detected!("avx512f") && fma {
                // SAFETY: kept only where the CPU supports AVX-512F and FMA (checked just above).
                builds.push(("avx512", |r, t, o| unsafe {
                    sq_distances_transposed_f32_avx512(r, t, o);
                }));
            }
        }
        builds
    }

    /// The dispatching entry point, the portable loop at several block sizes, then the AVX2
    /// and AVX-512 builds where this CPU runs them.
    fn f64_builds() -> Vec<(&'static str, F64Kernel)> {
        let mut builds: Vec<(&'static str, F64Kernel)> = vec![
            ("dispatched", sq_distances_8_panels),
            ("blocks of 1", sq_distances_8_panels_portable::<1>),
            ("blocks of 2", sq_distances_8_panels_portable::<2>),
            ("blocks of 8", sq_distances_8_panels_portable::<8>),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: kept only where the CPU supports AVX2 (checked just above).
                builds.push(("avx2", |r, t, o| unsafe {
                    sq_distances_8_panels_avx2(r, t, o);
                }));
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: kept only where the CPU supports AVX-512F (checked just above).
                builds.push(("avx512", |r, t, o| unsafe {
                    sq_distances_8_panels_avx512(r, t, o);
                }));
            }
        }
        builds
    }

    #[test]
    fn every_f32_build_gives_the_bits_of_the_sum_in_dimension_order() {
        let mut bits = xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = || ((bits() >> 40) as f32 / (1u32 << 24) as f32 - 0.5) * 4.0;
        // Whole blocks of 64 and of 8, partial ones, and shapes below every block size.
        for (d, v) in [
            (0, 3),
            (1, 1),
            (3, 7),
            (32, 256),
            (17, 33),
            (32, 100),
            (5, 72),
        ] {
            let r: Vec<f32> = (0..d).map(|_| next()).collect();
            let t: Vec<f32> = (0..d * v).map(|_| next()).collect();
            let want: Vec<u32> = (0..v)
                .map(|c| {
                    let mut sum = 0.0f64;
                    for (j, &a) in r.iter().enumerate() {
                        let t = f64::from(a - t[j * v + c]);
                        sum += t * t;
                    }
                    (sum as f32).to_bits()
                })
                .collect();
            for (build, kernel) in f32_builds() {
                let mut got = vec![0.0f32; v];
                kernel(&r, &t, &mut got);
                let got: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
                assert_eq!(got, want, "{build}: d = {d}, V = {v}");
            }
        }
    }

    /// Why the fused builds of the float32 kernel keep the bits: a float32 difference's
    /// square is exact in float64, so one rounding of `t·t + s` is all either form does.
    /// Checked on differences and sums across the whole float32 range, subnormals included.
    #[test]
    fn a_fused_square_add_of_a_float32_difference_is_the_separate_one() {
        let mut bits = xorshift(0x2545_f491_4f6c_dd1d);
        let edge = [
            0.0f32,
            -0.0,
            f32::MIN_POSITIVE,
            1e-45,
            f32::MAX,
            -f32::MAX,
            1.0,
            3.0,
        ];
        for k in 0..200_000 {
            let (a, b) = if k < edge.len() * edge.len() {
                (edge[k / edge.len()], edge[k % edge.len()])
            } else {
                (f32::from_bits(bits() as u32), f32::from_bits(bits() as u32))
            };
            let t = f64::from(a - b);
            // A sum of squares: zero, near t² (where the rounding of t² + s matters) or any
            // positive value.
            let s = match k % 3 {
                0 => 0.0,
                1 => t * t * f64::from(bits() as u32) / (1u64 << 30) as f64,
                _ => f64::from_bits(bits() & (u64::MAX >> 1)),
            };
            if !t.is_finite() || !s.is_finite() {
                continue;
            }
            assert_eq!(
                t.mul_add(t, s).to_bits(),
                (s + t * t).to_bits(),
                "t = {t:e}, s = {s:e}"
            );
        }
    }

    #[test]
    fn the_panelled_f64_kernel_gives_the_bits_of_sq_distance_8() {
        let mut bits = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut next = || (bits() >> 11) as f64 / (1u64 << 53) as f64 * 6.0 - 3.0;
        for (d, v) in [
            (0, 3),
            (1, 1),
            (3, 7),
            (8, 4),
            (32, 256),
            (17, 33),
            (384, 9),
            (12, 1100),
        ] {
            let r: Vec<f64> = (0..d).map(|_| next()).collect();
            let codewords: Vec<Vec<f64>> =
                (0..v).map(|_| (0..d).map(|_| next()).collect()).collect();
            let t = CodePanels::new(d, codewords.iter().map(Vec::as_slice));
            assert_eq!(
                t.len(),
                usize::div_ceil(v, PANEL) * PANEL * d,
                "whole panels"
            );
            let want: Vec<u64> = codewords
                .iter()
                .map(|w| sq_distance_8(&r, w).to_bits())
                .collect();
            for (build, kernel) in f64_builds() {
                let mut got = vec![0.0; v];
                kernel(&r, &t, &mut got);
                let got: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
                assert_eq!(got, want, "{build}: d={d} v={v}");
            }
        }
    }

    #[test]
    fn the_avx2_kernel_gives_the_portable_bits() {
        let mut bits = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut next = || (bits() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        for n in [1, 7, 8, 9, 16, 31, 32, 33, 64, 100] {
            for scale in [1e-300, 1e-8, 1.0, 1e150] {
                let a: Vec<f64> = (0..n).map(|_| next() * scale).collect();
                let b: Vec<f64> = (0..n).map(|_| next() * scale).collect();
                assert_eq!(
                    sq_distance_8(&a, &b).to_bits(),
                    sq_distance_8_portable(&a, &b).to_bits(),
                    "n={n} scale={scale}"
                );
            }
        }
    }

    #[test]
    fn the_orders_are_the_documented_ones() {
        // Lanes chosen so that a different fold order rounds differently.
        let a = [1e16, 1.0, -1e16, 1.0, 0.0, 0.0, 0.0, 0.0];
        let zero = [0.0; 8];
        let lanes = [1e32, 1.0, 1e32, 1.0];
        assert_eq!(
            sq_distance_4_adjacent(&a[..4], &zero[..4]),
            (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
        );
        assert_eq!(
            sq_distance_4_strided(&a[..4], &zero[..4]),
            (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])
        );
    }

    #[test]
    fn f32_kernels_match_naive_sums() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..19).map(|i| 3.0 - i as f32).collect();
        let naive_dot: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let naive_sq: f32 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
        assert!((dot_f32(&a, &b) - naive_dot).abs() < 1e-3);
        assert!((sq_distance_f32(&a, &b) - naive_sq).abs() < 1e-3);
    }

    #[test]
    fn the_avx2_nearest_centroids_give_the_portable_bits() {
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
    fn nearest_centroids_in_blocks_are_those_of_one_point_at_a_time() {
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
