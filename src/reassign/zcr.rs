//! Optimal zero-collision reassignment (ZCR) of one prefix group: the exact lexicographic
//! optimum (fewest items changed, then least total ΔD, then a fixed tie-break by item id
//! order), solved as one integer assignment problem with Kuhn–Munkres.

use super::GroupProblem;
use super::hungarian::{Assigner, Weights};

/// Bits of a column index in a ranking key: a group has at most V ≤ 65,536 columns.
const COLUMN_BITS: u32 = 16;
const COLUMN_MASK: i128 = (1 << COLUMN_BITS) - 1;

/// The column each row takes in the optimum of `problem`.
/// Only the holders of shared codes are rows (an item alone on its code keeps it in every
/// optimum); columns are the shared codes plus the group's free codes, ascending. Row `k`
/// (rows in item id order, `h` rows) taking column `j` costs
/// `[j ≠ native_k]·M + q(ΔD_kj)·T + w_k·([j ≠ native_k]·A + j)` with `w_k = h − k` and
/// `q(x) = round(x · 2^(b−e))`, `2^(e−1) ≤ max|ΔD| < 2^e` (see [`Scaling`] for M, T, A, b).
/// Tie-break, precisely: among assignments with the fewest changes and the least quantised
/// total ΔD, the result minimises first `Σ_{moved k} w_k`, then `Σ_k w_k·j_k`; so among
/// interchangeable items (same native code and distances, e.g. duplicate vectors) the lowest
/// id keeps the native code and lower codes go to lower ids.
/// Precision: `q` rounds exactly after scaling by a power of two, so each entry is off by at
/// most half a quantum `2^(e−b)` and the total ΔD found is within `h·2^(e−b) < 2h·max|ΔD|·2^−b`
/// of the exact optimum (≤ 1.1e−16·max|ΔD| for h ≤ 256, b = 62).
/// Columns are pruned before solving: `m = h − s` rows move (s = shared codes), each to a free
/// column, and some optimum gives every mover one of its `m` cheapest free columns (by the
/// integer cost, then column): were a mover on a column outside that set, one of the set is
/// unused (only `m − 1` other movers), and moving it there costs no more. The kept columns are
/// the shared ones plus each row's `m` cheapest free ones ([`Ranking::cheapest`]); entries
/// keep their full-problem values (labels `j` included), so the pruned problem is a
/// sub-matrix with the same optimum.
pub(crate) fn solve(problem: &GroupProblem, buffers: &mut Buffers) -> Vec<usize> {
    let Buffers {
        ranking,
        weights,
        assigner,
    } = buffers;
    let (h, cols) = (problem.n_rows(), problem.n_columns());
    if h == 0 {
        return Vec::new();
    }
    let max_abs = (0..h)
        .map(|r| largest_gap(problem.row(r), problem.dist(r, problem.native_col(r))))
        .fold(0.0f64, f64::max);
    let scale = Scaling::new(h, cols, max_abs);
    let mut keep = vec![false; cols];
    for r in 0..h {
        keep[problem.native_col(r)] = true;
    }
    let shared: Vec<usize> = (0..cols).filter(|&j| keep[j]).collect();
    let (movers, n_free) = (h - shared.len(), cols - shared.len());
    assert!(
        cols <= 1 << COLUMN_BITS,
        "a group has at most 65,536 columns"
    );
    // Free columns kept so far: once every one is, the rows left can add none.
    let mut kept_free = 0;
    if movers < n_free {
        for r in 0..h {
            let (row, native) = (problem.row(r), problem.dist(r, problem.native_col(r)));
            for &j in ranking.cheapest(row, native, &shared, movers, &scale) {
                kept_free += usize::from(!std::mem::replace(&mut keep[j], true));
            }
            if kept_free == n_free {
                break;
            }
        }
    } else {
        keep.fill(true);
    }
    let mut kept: Vec<usize> = Vec::with_capacity(cols);
    kept.extend((0..cols).filter(|&j| keep[j]));
    // Negated costs: the least total cost is the greatest total weight.
    weights.reset(kept.len());
    for r in 0..h {
        let native = problem.native_col(r);
        let (row, native_dist) = (problem.row(r), problem.dist(r, native));
        let q = |j: usize| scale.quanta_int(row[j] - native_dist);
        scale.push_negated_costs(r, native, q, &kept, weights);
    }
    // A row's largest weight is its native column's alone: every other entry costs M more,
    // more than any ΔD and tie-break part can make up (see `Scaling`).
    let natives: Vec<usize> = (0..h)
        .map(|r| {
            kept.binary_search(&problem.native_col(r))
                .expect("native columns are kept")
        })
        .collect();
    let assignment = assigner.solve(weights, &natives);
    assignment.iter().map(|&k| kept[k]).collect()
}

/// One thread's buffers for [`solve`], reused from group to group.
#[derive(Default)]
pub(crate) struct Buffers {
    ranking: Ranking,
    weights: Weights,
    assigner: Assigner,
}

/// One thread's buffers for finding a row's cheapest free columns, reused from row to row
/// and group to group.
#[derive(Default)]
pub(crate) struct Ranking {
    /// The row's distances as ordered integers ([`order_key`]), `u64::MAX` at the shared
    /// columns.
    keys: Vec<u64>,
    /// Every [`SAMPLE_STEP`]-th key.
    sample: Vec<u64>,
    /// The keys that may be among the `movers` least, and their places in `keys`.
    candidates: Vec<u64>,
    places: Vec<u32>,
    /// `q·2^16 + j` of the free columns, when distances alone cannot decide.
    exact: Vec<i128>,
    /// The columns found.
    cheapest: Vec<usize>,
}

/// One key in this many goes into the sample that bounds a row's `movers`-th least key.
const SAMPLE_STEP: usize = 4;

impl Ranking {
    /// The `movers` free columns (all but `shared`) of least `(q(D − native), j)` of one row
    /// (`D` its distances), fewer than there are free columns. By distance first: `q` never
    /// decreases as `D` grows, so the `movers` nearest free columns are the cheapest whenever
    /// the nearest one left out has a larger `q` than the farthest one in (no column outside
    /// can then tie or beat one inside). This holds unless quanta are equal across the cut
    /// (equal distances, say duplicate codewords); then every free column's `(q, j)` is
    /// ranked.
    fn cheapest(
        &mut self,
        row: &[f64],
        native: f64,
        shared: &[usize],
        movers: usize,
        scale: &Scaling,
    ) -> &[usize] {
        let q = |key: u64| scale.quanta_int(from_order_key(key) - native);
        self.cheapest.clear();
        // Keys of the whole row, read in order (no gather through a list of the free ones),
        // the shared columns' above every distance's: with more free columns than movers,
        // the `movers + 1` least keys are all free columns'.
        self.keys.clear();
        self.keys.extend(row.iter().map(|&d| order_key(d)));
        for &j in shared {
            self.keys[j] = u64::MAX;
        }
        let separated = if movers == 1 {
            let (least, next, at) = least_two(&self.keys);
            let separated = q(least) < q(next);
            if separated {
                self.cheapest.push(at);
            }
            separated
        } else {
            let (cut, next, count) = self.cut(movers);
            let separated = q(cut) < q(next);
            if separated {
                let keys = &self.keys;
                self.cheapest.extend(
                    self.places[..count]
                        .iter()
                        .map(|&place| place as usize)
                        .filter(|&place| keys[place] <= cut),
                );
            }
            separated
        };
        if !separated {
            let q = |j: usize| scale.quanta_int(row[j] - native);
            self.exact.clear();
            self.exact.extend(
                (0..row.len())
                    .filter(|&j| self.keys[j] != u64::MAX)
                    .map(|j| (i128::from(q(j)) << COLUMN_BITS) | j as i128),
            );
            self.exact.select_nth_unstable(movers - 1);
            self.cheapest.extend(
                self.exact[..movers]
                    .iter()
                    .map(|&key| (key & COLUMN_MASK) as usize),
            );
        }
        &self.cheapest
    }

    /// The `movers`-th least of `keys`, the next one up and how many `places` (columns)
    /// may hold the `movers` least (`movers ≥ 2`).
    fn cut(&mut self, movers: usize) -> (u64, u64, usize) {
        let n = self.keys.len();
        // The candidates: every key up to a bound, written in place and counted (no
        // branch on a comparison that goes either way).
        let bound = self.bound(movers);
        // Grown, never shrunk: each row writes what it reads.
        if self.candidates.len() < n {
            self.candidates.resize(n, 0);
            self.places.resize(n, 0);
        }
        let mut count = 0;
        for (place, &key) in self.keys.iter().enumerate() {
            self.candidates[count] = key;
            self.places[count] = place as u32;
            count += usize::from(key <= bound);
        }
        let bound = if count < movers {
            self.candidates[..n].copy_from_slice(&self.keys);
            self.places[..n]
                .iter_mut()
                .zip(0..)
                .for_each(|(p, place)| *p = place);
            count = n;
            u64::MAX
        } else {
            bound
        };
        let (_, &mut cut, rest) = self.candidates[..count].select_nth_unstable(movers - 1);
        let next = match rest.iter().min() {
            Some(&next) => next,
            None => *self
                .keys
                .iter()
                .filter(|&&key| key > bound)
                .min()
                .expect("a free column is left out"),
        };
        (cut, next, count)
    }

    /// A key likely at least the `movers`-th least of `keys`, from every
    /// [`SAMPLE_STEP`]-th one: the sample holds about `(movers − 1) / SAMPLE_STEP` of the
    /// `movers − 1` least keys, so its `k`-th least with `k` a few deviations above that
    /// is rarely below them. `u64::MAX` when the sample is too small to tell.
    fn bound(&mut self, movers: usize) -> u64 {
        let expected = (movers - 1) / SAMPLE_STEP;
        let k = expected + 2 * expected.isqrt() + 2;
        self.sample.clear();
        self.sample
            .extend(self.keys.iter().step_by(SAMPLE_STEP).copied());
        if k >= self.sample.len() {
            return u64::MAX;
        }
        *self.sample.select_nth_unstable(k - 1).1
    }
}

/// The least of `keys`, the next one up (equal if two are least) and the place of the
/// least, in one pass (one mover, the most common case, needs no more).
fn least_two(keys: &[u64]) -> (u64, u64, usize) {
    let (mut least, mut next, mut at) = (u64::MAX, u64::MAX, 0);
    for (place, &key) in keys.iter().enumerate() {
        let below = key < least;
        next = if below { least } else { next.min(key) };
        at = if below { place } else { at };
        least = if below { key } else { least };
    }
    (least, next, at)
}

/// An integer with the order of finite floats (−0 just below +0): a selection over these
/// compares plain integers.
fn order_key(x: f64) -> u64 {
    let bits = x.to_bits();
    let negative = ((bits as i64) >> 63) as u64;
    bits ^ (negative | 1 << 63)
}

/// The float of an [`order_key`].
fn from_order_key(key: u64) -> f64 {
    let positive = key >> 63 == 1;
    f64::from_bits(if positive { key ^ 1 << 63 } else { !key })
}

/// The largest `|d − native|` over a row, as a fold of `f64::max` finds it: the distances
/// are finite (checked when the problem is built), so max is exact in any order, and eight
/// running maxima compare with vector instructions where `f64::max`'s NaN rules kept the
/// fold to one element at a time (9 M fewer instructions for `zcr` at 200k items).
fn largest_gap(row: &[f64], native: f64) -> f64 {
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    let mut lanes = [0.0f64; 8];
    let chunks = row.chunks_exact(lanes.len());
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &d) in lanes.iter_mut().zip(chunk) {
            *lane = larger(*lane, (d - native).abs());
        }
    }
    let head = lanes.into_iter().fold(0.0, larger);
    rest.iter()
        .fold(head, |m, &d| larger(m, (d - native).abs()))
}

/// The integer cost model of one group: the weights M (per change), T (per ΔD quantum) and
/// A (per change, inside the tie-break), and the ΔD scale `2^(b−e)`.
// Why nothing overflows (S = h(h+1)/2, Q = 2^b, h ≤ cols ≤ 65,536): the tie part of any
// assignment lies in [0, S·A + S·(cols−1)] = [0, T − 1] with A = S·(cols−1) + 1; the ΔD part
// lies in [−h·Q·T, h·Q·T]; so two assignments' non-M parts differ by less than
// M = 2·h·Q·T + T, and one change more always costs more. Every entry is below
// E = (2h+3)·Q·T in magnitude. In Kuhn–Munkres (`hungarian`: pathfinding 4.16's steps, on
// −cost) the row labels start at a row maximum and only decrease, and never below −E: while
// a row is unmatched some column is unmatched with label 0, and each step's delta is at most
// that column's slack. Column labels start at 0, only increase, and stay ≤ 2E (tight on a
// matched edge); so slacks stay below 4E and the final label sum below 3h·E. `bits` picks the
// largest b ≤ 62 with (3h+4)·E ≤ i128::MAX, and `new` asserts it. When the full tie-break
// would leave b < 50 (only for groups of thousands of rows) its code term is dropped
// (A = 1, no j term, T = S + 1), which leaves b ≥ 60 for every h ≤ 65,536.
#[derive(Debug, Clone, Copy)]
struct Scaling {
    h: i128,
    /// Multiplies a ΔD into quanta: `2^(b−e)` (0 when every ΔD is 0).
    delta_scale: f64,
    m: i128,
    t: i128,
    a: i128,
    code_term: bool,
}

/// Below this many bits for ΔD, the code-order part of the tie-break is dropped.
const MIN_BITS_WITH_CODE_TERM: u32 = 50;
const MAX_BITS: u32 = 62;

impl Scaling {
    fn new(h: usize, cols: usize, max_abs: f64) -> Self {
        let (h, cols) = (h as i128, cols as i128);
        let s = h * (h + 1) / 2;
        let full_a = s * (cols - 1) + 1;
        let full_t = s * full_a + s * (cols - 1) + 1;
        let (code_term, a, t, bits) = match Self::bits(h, full_t) {
            Some(b) if b >= MIN_BITS_WITH_CODE_TERM => (true, full_a, full_t, b),
            _ => {
                let t = s + 1;
                let b = Self::bits(h, t).expect("h ≤ 65,536 leaves room for b ≥ 60");
                (false, 1, t, b)
            }
        };
        assert!(bits >= 60 || code_term, "too few bits for the ΔD part");
        let q = 1i128 << bits;
        let m = 2 * h * q * t + t;
        let entry_bound = (2 * h + 3) * q * t;
        assert!(
            entry_bound.checked_mul(3 * h + 4).is_some(),
            "Kuhn–Munkres labels could overflow"
        );
        Scaling {
            h,
            delta_scale: power_of_two_scale(max_abs, bits),
            m,
            t,
            a,
            code_term,
        }
    }

    /// The largest b ≤ 62 with `(3h+4)·(2h+3)·2^b·t ≤ i128::MAX`, if any b ≥ 0 fits.
    fn bits(h: i128, t: i128) -> Option<u32> {
        let k = (3 * h + 4)
            .checked_mul(2 * h + 3)
            .and_then(|x| x.checked_mul(t))?;
        let room = i128::MAX / k;
        (room >= 1).then(|| (127 - room.leading_zeros()).min(MAX_BITS))
    }

    /// `ΔD · 2^(b−e)` before rounding (exact: the scale is a power of two).
    fn scaled(&self, delta: f64) -> f64 {
        delta * self.delta_scale
    }

    /// `q(ΔD)`: `ΔD · 2^(b−e)` rounded half away from zero, as an integer (`|q| ≤ 2^62`).
    /// Below 2^63 the truncation through i64 is exact, and so is the remainder below 2^52
    /// (from 2^52 on x is whole and the remainder 0); `|x| < 2^62` here. No branches and no
    /// libm call, unlike `f64::round` on baseline x86-64.
    fn quanta_int(&self, delta: f64) -> i64 {
        let x = self.scaled(delta);
        let t = x as i64;
        let rest = x - t as f64;
        t + i64::from(rest >= 0.5) - i64::from(rest <= -0.5)
    }

    /// The negated costs of row `row` (native column `native`) taking each of `columns`,
    /// pushed onto `out` as its next row, with `quanta(j)` the row's q(ΔD) at column j. The
    /// row's constants are computed once; where T fits in 64 bits (every group of a few
    /// hundred rows) `q·T` is one widening multiply instead of a 128-bit one, and
    /// `w·j < 2^32` is a 64-bit one. Exact integers either way, so the same values.
    fn push_negated_costs(
        &self,
        row: usize,
        native: usize,
        quanta: impl Fn(usize) -> i64,
        columns: &[usize],
        out: &mut Weights,
    ) {
        let w = self.h - row as i128;
        let change = self.m + w * self.a;
        let code_weight = if self.code_term { w as i64 } else { 0 };
        match i64::try_from(self.t) {
            Ok(t) => out.push_row(columns.iter().map(|&j| {
                let changed = if j == native { 0 } else { change };
                let code = i128::from(code_weight * j as i64);
                -(changed + i128::from(quanta(j)) * i128::from(t) + code)
            })),
            Err(_) => out.push_row(columns.iter().map(|&j| {
                let changed = if j == native { 0 } else { change };
                let code = i128::from(code_weight * j as i64);
                -(changed + i128::from(quanta(j)) * self.t + code)
            })),
        }
    }
}

/// `2^(b−e)` with `2^(e−1) ≤ max_abs < 2^e`, so `|x · scale| < 2^b` for `|x| ≤ max_abs` and
/// the product is exact; 0 when `max_abs` is 0 or too small to matter (< 2^−1000).
fn power_of_two_scale(max_abs: f64, bits: u32) -> f64 {
    if max_abs < 2f64.powi(-1000) {
        return 0.0;
    }
    let mut e = max_abs.log2().floor() as i32 + 1;
    while 2f64.powi(e) <= max_abs {
        e += 1;
    }
    while 2f64.powi(e - 1) > max_abs {
        e -= 1;
    }
    2f64.powi(bits as i32 - e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reassign::test_support::{Rng, objective, random_problem};

    /// The lexicographic objective of every injective row → column map, minimised.
    fn brute_force(p: &GroupProblem) -> (usize, f64, u64, u64) {
        fn walk(
            p: &GroupProblem,
            row: usize,
            used: &mut Vec<bool>,
            cols: &mut Vec<usize>,
            best: &mut Option<(usize, f64, u64, u64)>,
        ) {
            if row == p.n_rows() {
                let o = objective(p, cols);
                let better = best.is_none_or(|b| {
                    (o.0, o.1, o.2, o.3)
                        .partial_cmp(&(b.0, b.1, b.2, b.3))
                        .is_some_and(|c| c.is_lt())
                });
                if better {
                    *best = Some(o);
                }
                return;
            }
            for j in 0..p.n_columns() {
                if !used[j] {
                    used[j] = true;
                    cols.push(j);
                    walk(p, row + 1, used, cols, best);
                    cols.pop();
                    used[j] = false;
                }
            }
        }
        let mut best = None;
        walk(
            p,
            0,
            &mut vec![false; p.n_columns()],
            &mut Vec::new(),
            &mut best,
        );
        best.unwrap()
    }

    #[test]
    fn matches_brute_force_including_the_tie_break() {
        let mut rng = Rng(0x5eed);
        for case in 0..3000 {
            // Integer distances make exact ties common, so the tie-break is exercised.
            let integer = case % 2 == 0;
            let p = random_problem(&mut rng, integer);
            let got = solve(&p, &mut Buffers::default());
            let want = brute_force(&p);
            let have = objective(&p, &got);
            assert_eq!(have.0, want.0, "case {case}: changes");
            assert!(
                (have.1 - want.1).abs() <= 1e-12,
                "case {case}: ΔD {have:?} {want:?}"
            );
            if integer {
                assert_eq!((have.2, have.3), (want.2, want.3), "case {case}: tie-break");
            }
        }
    }

    #[test]
    fn interchangeable_items_lowest_id_keeps_and_lower_codes_go_to_lower_ids() {
        // Three rows with identical distances on shared column 1; columns 0, 2, 3 free.
        let p = GroupProblem {
            native_cols: vec![1, 1, 1],
            n_columns: 4,
            dist: [1.0, 0.5, 1.0, 1.0].repeat(3),
        };
        assert_eq!(solve(&p, &mut Buffers::default()), vec![1, 0, 2]);
    }

    #[test]
    fn bits_are_at_least_sixty_up_to_v_256_and_for_huge_groups_without_code_term() {
        for h in [1usize, 2, 24, 184, 256] {
            let s = Scaling::new(h, 256, 1.0);
            assert!(s.code_term, "h={h}");
            assert!(s.m > 0);
        }
        let s = Scaling::new(256, 256, 1.0);
        assert_eq!(s.delta_scale, 2f64.powi(62 - 1));
        let big = Scaling::new(65_536, 65_536, 1.0);
        assert!(!big.code_term);
        assert!(big.delta_scale >= 2f64.powi(59));
    }

    #[test]
    fn integer_quanta_equal_the_rounded_ones() {
        let mut rng = Rng(0x5eed);
        for (h, max_abs) in [(2, 1.0), (40, 3.5e-4), (200, 7.0e3)] {
            let s = Scaling::new(h, 256, max_abs);
            let mut deltas = vec![0.0, -0.0, max_abs, -max_abs, f64::MIN_POSITIVE];
            for _ in 0..20_000 {
                let x = (rng.below(1 << 30) as f64 / (1u64 << 30) as f64 * 2.0 - 1.0) * max_abs;
                deltas.push(x);
                // Exactly half a quantum off a whole one, and one step either side of that.
                let half = ((x * s.delta_scale).trunc() + 0.5) / s.delta_scale;
                deltas.extend([half, half.next_up(), half.next_down()]);
            }
            for d in deltas.into_iter().filter(|d| d.abs() <= max_abs) {
                let rounded = s.scaled(d).round();
                assert_eq!(s.quanta_int(d), rounded as i64, "{d:e} (h = {h})");
            }
        }
    }

    /// The `movers` free columns of least `(q, j)`, by sorting every one.
    fn cheapest_by_sorting(
        row: &[f64],
        native: f64,
        free: &[usize],
        movers: usize,
        s: &Scaling,
    ) -> Vec<usize> {
        let mut ranked: Vec<(i64, usize)> = free
            .iter()
            .map(|&j| (s.quanta_int(row[j] - native), j))
            .collect();
        ranked.sort_unstable();
        let mut cheapest: Vec<usize> = ranked[..movers].iter().map(|&(_, j)| j).collect();
        cheapest.sort_unstable();
        cheapest
    }

    #[test]
    fn the_cheapest_free_columns_are_those_of_a_full_sort() {
        let mut rng = Rng(0xc4ea9);
        // One buffer for every case, as one thread reuses it from group to group.
        let mut ranking = Ranking::default();
        for case in 0..6000 {
            let cols = 2 + rng.below(300);
            // Continuous distances; a few values (ties across the cut, whose quanta are
            // equal: ranked by (q, j) in full); the least distances exactly where the sample
            // looks (its bound falls short of the `movers`-th one); a coarse scale (distinct
            // distances, equal quanta).
            let pattern = case % 4;
            let row: Vec<f64> = (0..cols)
                .map(|j| match pattern {
                    0 | 3 => rng.below(1 << 40) as f64 / (1u64 << 30) as f64,
                    1 => rng.below(4) as f64,
                    _ => (j % SAMPLE_STEP != 0) as u8 as f64 * 1000.0 + j as f64,
                })
                .collect();
            let mut free: Vec<usize> = (0..cols).filter(|_| rng.below(4) != 0).collect();
            if free.len() < 2 {
                free = (0..cols).collect();
            }
            // One mover (the common case, read in one pass) every fifth case.
            let movers = if case % 5 == 0 {
                1
            } else {
                1 + rng.below(free.len() - 1)
            };
            let native = row[rng.below(cols)];
            let max_abs = row.iter().fold(0.0f64, |m, &d| m.max((d - native).abs()));
            let scale = if pattern == 3 {
                Scaling::new(65_536, 65_536, max_abs * 2f64.powi(56))
            } else {
                Scaling::new(1 + rng.below(200), cols, max_abs)
            };
            // The other columns are shared ones, of any distance (often the least).
            let shared: Vec<usize> = (0..cols).filter(|j| !free.contains(j)).collect();
            let mut got = ranking
                .cheapest(&row, native, &shared, movers, &scale)
                .to_vec();
            got.sort_unstable();
            let want = cheapest_by_sorting(&row, native, &free, movers, &scale);
            assert_eq!(got, want, "case {case}: {movers} of {} free", free.len());
        }
    }

    #[test]
    fn a_rows_largest_weight_is_its_native_columns() {
        // What lets `solve` hand Kuhn–Munkres each row's first best column (its native one)
        // without a pass over the matrix.
        let mut rng = Rng(0x1abe1);
        for case in 0..2000 {
            // Every 100th case a group of thousands of rows, whose model drops the code term.
            let h = if case % 100 == 0 {
                4000
            } else {
                1 + rng.below(300)
            };
            let cols = h + rng.below(300);
            let s = Scaling::new(h, cols, 1.0);
            assert_eq!(s.code_term, h < 4000, "case {case}");
            let (row, native) = (rng.below(h), rng.below(cols));
            let quanta: Vec<i64> = (0..cols)
                .map(|j| match (j == native, rng.below(3)) {
                    (true, _) => 0,
                    (false, 0) => s.quanta_int(-1.0),
                    (false, _) => s.quanta_int(rng.below(2001) as f64 / 1000.0 - 1.0),
                })
                .collect();
            let columns: Vec<usize> = (0..cols).collect();
            let mut weights = Weights::new(cols);
            s.push_negated_costs(row, native, |j| quanta[j], &columns, &mut weights);
            let beaten =
                (0..cols).all(|j| j == native || weights.get(0, j) < weights.get(0, native));
            assert!(beaten, "case {case}: h = {h}, cols = {cols}");
        }
    }

    #[test]
    fn largest_gap_is_the_max_fold() {
        let mut rng = Rng(0x9a9);
        for len in 0..40 {
            let row: Vec<f64> = (0..len)
                .map(|_| rng.below(1_000_001) as f64 * 2f64.powi(rng.below(80) as i32 - 40))
                .collect();
            for native in row.iter().copied().chain([0.0, 1e-300, 3.5]) {
                let folded = row.iter().fold(0.0f64, |m, &d| m.max((d - native).abs()));
                assert_eq!(
                    largest_gap(&row, native).to_bits(),
                    folded.to_bits(),
                    "{row:?}"
                );
            }
        }
    }

    #[test]
    fn power_of_two_scale_keeps_quanta_in_range() {
        for x in [1.0, 0.75, 3.0e-7, 12345.678, 2.0f64.powi(-20)] {
            let s = power_of_two_scale(x, 62);
            let q = (x * s).round();
            assert!(q < 2f64.powi(62) + 0.5 && q >= 2f64.powi(61), "{x}: {q}");
        }
        assert_eq!(power_of_two_scale(0.0, 62), 0.0);
    }
}
