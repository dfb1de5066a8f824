//! Optimal zero-collision reassignment (ZCR) of one prefix group: the exact lexicographic
//! optimum (fewest items changed, then least total ΔD, then a fixed tie-break by item id
//! order), solved as one integer assignment problem with Kuhn–Munkres.

use super::GroupProblem;
use super::hungarian::max_weight_assignment;

/// Up to this many movers, each row's cheapest free columns are kept in a short sorted list
/// rather than found by a selection over all of them.
const FEW_MOVERS: usize = 16;

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
/// the shared ones plus each row's `m` cheapest free ones; entries keep their full-problem
/// values (labels `j` included), so the pruned problem is a sub-matrix with the same optimum.
pub(crate) fn solve(problem: &GroupProblem) -> Vec<usize> {
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
    // Collected at full length: grown step by step, they reallocated several times a group.
    let mut free: Vec<usize> = Vec::with_capacity(cols);
    free.extend((0..cols).filter(|&j| !keep[j]));
    let movers = h - (cols - free.len());
    assert!(
        cols <= 1 << COLUMN_BITS,
        "a group has at most 65,536 columns"
    );
    // Free columns kept so far: once every one is, the rows left can add none.
    let mut kept_free = 0;
    // q(ΔD) of every entry, row-major, when the ranking computed them.
    let mut quanta: Vec<i64> = Vec::new();
    if movers <= FEW_MOVERS && movers < free.len() {
        // Few movers (usually one): each row's `movers` cheapest free columns by (q, j) in a
        // short sorted list. Columns come in ascending j, so a later one enters only with a smaller q than
        // the list's worst, and a scaled ΔD above `worst − 0.5` cannot round below it.
        let mut best: Vec<(f64, usize)> = Vec::with_capacity(movers + 1);
        for r in 0..h {
            let (row, native) = (problem.row(r), problem.dist(r, problem.native_col(r)));
            best.clear();
            for &j in &free {
                let delta = row[j] - native;
                if best.len() == movers && scale.scaled(delta) > best[movers - 1].0 - 0.5 {
                    continue;
                }
                let q = scale.quanta(delta);
                if best.len() == movers && q >= best[movers - 1].0 {
                    continue;
                }
                let at = best.partition_point(|&(kept_q, _)| kept_q <= q);
                best.insert(at, (q, j));
                best.truncate(movers);
            }
            for &(_, j) in &best {
                kept_free += usize::from(!std::mem::replace(&mut keep[j], true));
            }
            if kept_free == free.len() {
                break;
            }
        }
    } else if movers < free.len() {
        // Within a row, free columns cost `M + q·T + w·(A + j)` with `w·j < T`: they rank by
        // (q, j), one integer `q·2^16 + j` (j < 2^16, |q| ≤ 2^62), so the selection compares
        // plain integers.
        // Every entry's quanta, once: the ranking and then the weights read them.
        quanta = Vec::with_capacity(h * cols);
        for r in 0..h {
            let (row, native) = (problem.row(r), problem.dist(r, problem.native_col(r)));
            quanta.extend(row.iter().map(|&d| scale.quanta_int(d - native)));
        }
        let mut ranked: Vec<i128> = Vec::with_capacity(free.len());
        for r in 0..h {
            let row = &quanta[r * cols..(r + 1) * cols];
            ranked.clear();
            ranked.extend(
                free.iter()
                    .map(|&j| (i128::from(row[j]) << COLUMN_BITS) | j as i128),
            );
            ranked.select_nth_unstable(movers - 1);
            for &key in &ranked[..movers] {
                let j = (key & COLUMN_MASK) as usize;
                kept_free += usize::from(!std::mem::replace(&mut keep[j], true));
            }
            if kept_free == free.len() {
                break;
            }
        }
    } else {
        free.iter().for_each(|&j| keep[j] = true);
    }
    let mut kept: Vec<usize> = Vec::with_capacity(cols);
    kept.extend((0..cols).filter(|&j| keep[j]));
    // Negated costs: the least total cost is the greatest total weight.
    let mut weights = Vec::with_capacity(h * kept.len());
    for r in 0..h {
        let native = problem.native_col(r);
        if quanta.is_empty() {
            let (row, native_dist) = (problem.row(r), problem.dist(r, native));
            let q = |j: usize| scale.quanta_int(row[j] - native_dist);
            scale.push_negated_costs(r, native, q, &kept, &mut weights);
        } else {
            let row = &quanta[r * cols..(r + 1) * cols];
            scale.push_negated_costs(r, native, |j| row[j], &kept, &mut weights);
        }
    }
    // A row's largest weight is its native column's alone: every other entry costs M more,
    // more than any ΔD and tie-break part can make up (see `Scaling`).
    let natives: Vec<usize> = (0..h)
        .map(|r| {
            kept.binary_search(&problem.native_col(r))
                .expect("native columns are kept")
        })
        .collect();
    let assignment = max_weight_assignment(&weights, h, kept.len(), &natives);
    assignment.into_iter().map(|k| kept[k]).collect()
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

    /// `q(ΔD)`, an integer held exactly in an f64 (`|q| ≤ 2^62`).
    fn quanta(&self, delta: f64) -> f64 {
        round_half_away(self.scaled(delta))
    }

    /// `ΔD · 2^(b−e)` before rounding (exact: the scale is a power of two).
    fn scaled(&self, delta: f64) -> f64 {
        delta * self.delta_scale
    }

    /// `q(ΔD)` as an integer, the same value as `quanta`: below 2^63 the truncation through
    /// i64 is exact, and so is the remainder below 2^52 (from 2^52 on x is whole and the
    /// remainder 0); `|x| < 2^62` here. No branches, unlike the float rounding.
    fn quanta_int(&self, delta: f64) -> i64 {
        let x = self.scaled(delta);
        let t = x as i64;
        let rest = x - t as f64;
        t + i64::from(rest >= 0.5) - i64::from(rest <= -0.5)
    }

    /// The negated costs of row `row` (native column `native`) taking each of `columns`,
    /// pushed onto `out`, with `quanta(j)` the row's q(ΔD) at column j. The row's constants
    /// are computed once; where T fits in 64 bits (every group of a few hundred rows) `q·T`
    /// is one widening multiply instead of a 128-bit one, and `w·j < 2^32` is a 64-bit one.
    /// Exact integers either way, so the same values.
    fn push_negated_costs(
        &self,
        row: usize,
        native: usize,
        quanta: impl Fn(usize) -> i64,
        columns: &[usize],
        out: &mut Vec<i128>,
    ) {
        let w = self.h - row as i128;
        let change = self.m + w * self.a;
        let code_weight = if self.code_term { w as i64 } else { 0 };
        match i64::try_from(self.t) {
            Ok(t) => out.extend(columns.iter().map(|&j| {
                let changed = if j == native { 0 } else { change };
                let code = i128::from(code_weight * j as i64);
                -(changed + i128::from(quanta(j)) * i128::from(t) + code)
            })),
            Err(_) => out.extend(columns.iter().map(|&j| {
                let changed = if j == native { 0 } else { change };
                let code = i128::from(code_weight * j as i64);
                -(changed + i128::from(quanta(j)) * self.t + code)
            })),
        }
    }
}

/// `x.round()` (half away from zero, the sign of zero kept) without the libm call that
/// baseline x86-64 makes for it: millions of entries per run are rounded. Below 2^52 the
/// truncation through i64 and the remainder `x − t` are exact; from 2^52 on, x is whole.
fn round_half_away(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        return x;
    }
    let t = (x as i64 as f64).copysign(x);
    if (x - t).abs() >= 0.5 {
        t + 1f64.copysign(x)
    } else {
        t
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
            let got = solve(&p);
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
        assert_eq!(solve(&p), vec![1, 0, 2]);
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
    fn round_half_away_gives_the_bits_of_round() {
        let mut cases = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -2.5,
            0.499_999_999_999_999_94,
            -0.499_999_999_999_999_94,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            2f64.powi(62),
            -2f64.powi(62),
            f64::MIN_POSITIVE,
            -1e-300,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let mut rng = Rng(0xc0ffee);
        for _ in 0..100_000 {
            let bits = (rng.below(1 << 31) << 22) | rng.below(1 << 22);
            let mantissa = bits as f64 / (1u64 << 53) as f64 - 0.5;
            cases.push(mantissa * 2f64.powi(rng.below(66) as i32 - 2));
        }
        for x in cases {
            assert_eq!(round_half_away(x).to_bits(), x.round().to_bits(), "{x:e}");
        }
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
                assert_eq!(s.quanta_int(d), s.quanta(d) as i64, "{d:e} (h = {h})");
            }
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
            let mut weights = Vec::new();
            s.push_negated_costs(row, native, |j| quanta[j], &columns, &mut weights);
            let beaten = (0..cols).all(|j| j == native || weights[j] < weights[native]);
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
