//! The assignment solver of ZCR's per-group problems: pathfinding 4.16's `kuhn_munkres`,
//! step for step, on a flat row-major matrix. Why not the crate's own: ZCR solves one problem
//! per prefix group (tens of thousands at 1M items), and the crate's version spends much of
//! its time outside the arithmetic: a negated copy of every matrix, a hash set for the rows
//! of the alternating tree, `Option` columns and checked indexing (measured in docs/DEPENDENCIES.md's
//! dependency notes). Taking exactly the crate's steps — the same labels, the same first
//! column of least slack, the same augmenting paths — keeps the same optimum among equal
//! ones, so every output stays the same bytes; a proptest checks the assignment equals the
//! crate's.
#![allow(unsafe_code)] // the AVX2/AVX-512 column passes: target-feature calls, vector loads.

/// No row or column.
const NONE: usize = usize::MAX;

/// Columns per block of the column planes (eight 64-bit lanes of a 512-bit register).
const LANES: usize = 8;

/// Which pass over the columns [`Assigner::solve_with`] makes.
const PORTABLE: u8 = 0;
#[cfg(target_arch = "x86_64")]
const AVX2: u8 = 1;
#[cfg(target_arch = "x86_64")]
const AVX512: u8 = 2;

/// A `rows × cols` matrix of `i128` weights kept as two planes, the high and the low 64 bits
/// of each entry, each row padded with zeros to a whole number of [`LANES`]: the form a
/// vector pass over a row reads, eight columns per load and no tail.
#[derive(Debug, Clone, Default)]
pub(crate) struct Weights {
    rows: usize,
    cols: usize,
    stride: usize,
    high: Vec<i64>,
    low: Vec<u64>,
}

impl Weights {
    /// An empty matrix of `cols` columns.
    #[cfg(test)]
    pub(crate) fn new(cols: usize) -> Self {
        let mut weights = Weights::default();
        weights.reset(cols);
        weights
    }

    /// Empties the matrix for rows of `cols` columns (its memory is kept).
    pub(crate) fn reset(&mut self, cols: usize) {
        self.rows = 0;
        self.cols = cols;
        self.stride = cols.div_ceil(LANES) * LANES;
        self.high.clear();
        self.low.clear();
    }

    /// Appends one row (`cols` weights).
    pub(crate) fn push_row(&mut self, row: impl ExactSizeIterator<Item = i128>) {
        assert_eq!(row.len(), self.cols, "a row has one weight per column");
        let start = self.high.len();
        self.high.resize(start + self.stride, 0);
        self.low.resize(start + self.stride, 0);
        let planes = self.high[start..].iter_mut().zip(&mut self.low[start..]);
        for ((high, low), w) in planes.zip(row) {
            (*high, *low) = split(w);
        }
        self.rows += 1;
    }

    /// The weight of row `r` at column `c`.
    pub(crate) fn get(&self, r: usize, c: usize) -> i128 {
        let at = r * self.stride + c;
        join(self.high[at], self.low[at])
    }

    /// Row `r`'s two planes, padding included.
    fn row(&self, r: usize) -> (&[i64], &[u64]) {
        let range = r * self.stride..(r + 1) * self.stride;
        (&self.high[range.clone()], &self.low[range])
    }
}

/// The `i128` of a high and a low half.
fn join(high: i64, low: u64) -> i128 {
    (i128::from(high) << 64) | i128::from(low)
}

/// The high and the low half of an `i128`.
fn split(x: i128) -> (i64, u64) {
    ((x >> 64) as i64, x as u64)
}

/// One thread's Kuhn–Munkres, its buffers kept from problem to problem (ZCR solves tens of
/// thousands of small ones, one after another on each thread).
#[derive(Default)]
pub(crate) struct Assigner {
    columns: Columns,
    /// Each row's column, and each column's row.
    xy: Vec<usize>,
    yx: Vec<usize>,
    /// Row labels.
    lx: Vec<i128>,
    /// Rows and columns of the tree, each with the running total of deltas when it joined.
    tree_rows: Vec<(usize, i128)>,
    tree_cols: Vec<(usize, i128)>,
}

impl Assigner {
    /// The assignment of `weights` (`rows ≤ cols`) that maximises the total weight: each
    /// row's column. `first_best` holds each row's first column of largest weight, whose
    /// weights are the crate's first labels (ZCR knows them without a pass over the matrix:
    /// its native columns). The caller keeps the labels in range (ZCR's [`super::zcr`]
    /// bounds every entry so that no label sum overflows).
    ///
    /// A root whose first best column is still unmatched takes it at once, without the pass
    /// over the columns that the crate makes: an unmatched column has never been in a tree,
    /// so its label is 0 and its slack 0, the least there is; every column before it has a
    /// smaller weight, so a positive slack; so the crate picks it first, with a delta of 0,
    /// and augments along it alone. The same matching and labels, for the cost of one
    /// lookup: in ZCR the first holder of each shared code is such a root.
    ///
    /// The crate's steps, done with less work per step: while one root's tree grows, each
    /// step's delta is added to one running total rather than to every free column's slack
    /// and every tree column's and row's label. Free columns hold their slack plus that total
    /// (so they order, ties included, as the slacks do), and each tree row and column learns
    /// at the end of the phase what was added since it joined. The new row's slacks and the
    /// next least slack are then one pass over the columns instead of three ([`relax`]),
    /// eight columns at a time where the CPU has AVX-512 and four where it has AVX2. Integer
    /// sums in another order: the same labels, slacks and choices.
    pub(crate) fn solve(&mut self, weights: &Weights, first_best: &[usize]) -> &[usize] {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            unsafe { self.solve_avx512(weights, first_best) };
            return &self.xy;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { self.solve_avx2(weights, first_best) };
            return &self.xy;
        }
        self.solve_with::<PORTABLE>(weights, first_best);
        &self.xy
    }

    /// [`Assigner::solve`] compiled for AVX-512, its passes over the columns eight at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn solve_avx512(&mut self, weights: &Weights, first_best: &[usize]) {
        self.solve_with::<AVX512>(weights, first_best);
    }

    /// [`Assigner::solve`] compiled for AVX2, its passes over the columns four at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn solve_avx2(&mut self, weights: &Weights, first_best: &[usize]) {
        self.solve_with::<AVX2>(weights, first_best);
    }

    /// [`Assigner::solve`], its passes over the columns by [`relax_avx512`], [`relax_avx2`]
    /// or [`relax`] as `PASS` says (the vector ones only where the CPU has the features).
    #[inline(always)]
    fn solve_with<const PASS: u8>(&mut self, weights: &Weights, first_best: &[usize]) {
        let (rows, cols) = (weights.rows, weights.cols);
        assert!(rows <= cols, "more rows than columns");
        assert_eq!(first_best.len(), rows, "one best column per row");
        // A row's pass: `FIRST` for a root's, which sets every column's slack.
        fn pass<const PASS: u8, const FIRST: bool>(
            columns: &mut Columns,
            weights: &Weights,
            row: usize,
            label: i128,
        ) -> (i128, usize) {
            #[cfg(target_arch = "x86_64")]
            match PASS {
                // SAFETY: `AVX512` is passed only by `solve_avx512`, on a CPU with AVX-512F.
                AVX512 => unsafe {
                    return relax_avx512::<FIRST>(columns, weights.row(row), label, row);
                },
                // SAFETY: `AVX2` is passed only by `solve_avx2`, on a CPU with AVX2.
                AVX2 => unsafe {
                    return relax_avx2::<FIRST>(columns, weights.row(row), label, row);
                },
                _ => {}
            }
            relax::<FIRST>(columns, weights.row(row), label, row)
        }
        let Assigner {
            columns,
            xy,
            yx,
            lx,
            tree_rows,
            tree_cols,
        } = self;
        xy.clear();
        xy.resize(rows, NONE);
        yx.clear();
        yx.resize(cols, NONE);
        lx.clear();
        lx.extend((0..rows).map(|x| weights.get(x, first_best[x])));
        columns.reset(cols, weights.stride);
        for root in 0..rows {
            let best = first_best[root];
            if yx[best] == NONE {
                (xy[root], yx[best]) = (best, root);
                continue;
            }
            tree_rows.clear();
            tree_cols.clear();
            tree_rows.push((root, 0));
            let mut added: i128 = 0;
            columns.start_phase();
            let (mut least, mut y) = pass::<PASS, true>(columns, weights, root, lx[root]);
            let free_end = loop {
                let delta = least - added;
                if delta > 0 {
                    added += delta;
                }
                columns.join_tree(y);
                tree_cols.push((y, added));
                if yx[y] == NONE {
                    break y;
                }
                let next = yx[y];
                tree_rows.push((next, added));
                // `next` joined just now: its label is still its own, and the stored slacks
                // carry `added`.
                (least, y) = pass::<PASS, false>(columns, weights, next, lx[next] + added);
            };
            for &(t, joined) in tree_rows.iter() {
                lx[t] -= added - joined;
            }
            for &(c, joined) in tree_cols.iter() {
                columns.add_to_label(c, added - joined);
            }
            let mut y = free_end;
            while y != NONE {
                let x = columns.tree_row[y];
                let previous = xy[x];
                yx[y] = x;
                xy[x] = y;
                y = previous;
            }
        }
    }
}

/// The columns during a root's phase, one plane per field (the layout the vector passes load
/// eight or four columns of at once), padded like the rows of [`Weights`].
#[derive(Default)]
struct Columns {
    label_high: Vec<i64>,
    label_low: Vec<u64>,
    /// The least slack to a tree row, plus the running total of deltas.
    slack_high: Vec<i64>,
    slack_low: Vec<u64>,
    /// The tree row of that slack.
    slack_row: Vec<u64>,
    /// Bit `i` of byte `b`: column `8b + i` exists and is outside the tree.
    outside: Vec<u8>,
    /// The tree row a tree column was reached from (the augmenting path).
    tree_row: Vec<usize>,
    /// `outside` at the start of a phase: every column that exists.
    all: Vec<u8>,
}

impl Columns {
    /// Labels 0 for a problem of `cols` columns (`stride` with the padding).
    fn reset(&mut self, cols: usize, stride: usize) {
        for plane in [&mut self.label_high, &mut self.slack_high] {
            plane.clear();
            plane.resize(stride, 0);
        }
        for plane in [
            &mut self.label_low,
            &mut self.slack_low,
            &mut self.slack_row,
        ] {
            plane.clear();
            plane.resize(stride, 0);
        }
        self.tree_row.clear();
        self.tree_row.resize(stride, NONE);
        self.all.clear();
        self.all.extend((0..stride / LANES).map(|b| {
            let present = cols.saturating_sub(b * LANES).min(LANES);
            (((1u16 << present) - 1) & 0xff) as u8
        }));
        self.outside.clone_from(&self.all);
    }

    /// Checks that every plane and the row of weights `w` have one length, padding
    /// included: the vector passes load whole blocks of each.
    fn assert_width(&self, w: (&[i64], &[u64])) {
        let n = self.tree_row.len();
        assert!(
            [
                w.0.len(),
                w.1.len(),
                self.label_high.len(),
                self.label_low.len(),
                self.slack_high.len(),
                self.slack_low.len(),
                self.slack_row.len(),
                self.outside.len() * LANES,
            ]
            .iter()
            .all(|&len| len == n),
            "column planes and a row of weights of one length"
        );
    }

    /// Every column outside the tree (the root's pass then sets every slack).
    fn start_phase(&mut self) {
        self.outside.copy_from_slice(&self.all);
    }

    /// Column `y` joins the tree, reached from the tree row of its slack.
    fn join_tree(&mut self, y: usize) {
        self.outside[y / LANES] &= !(1 << (y % LANES));
        self.tree_row[y] = self.slack_row[y] as usize;
    }

    fn add_to_label(&mut self, c: usize, amount: i128) {
        let label = join(self.label_high[c], self.label_low[c]) + amount;
        (self.label_high[c], self.label_low[c]) = split(label);
    }
}

/// Row `row` (its weights `w`, its label `label`) joins the tree: every column outside the
/// tree whose slack to it, `label + column label − w`, is below its stored one (`FIRST`, the
/// root's pass: every column) takes it and the row. Returns the least slack outside the tree
/// and its first column.
fn relax<const FIRST: bool>(
    columns: &mut Columns,
    w: (&[i64], &[u64]),
    label: i128,
    row: usize,
) -> (i128, usize) {
    let (mut least, mut y) = (i128::MAX, 0);
    let blocks = columns
        .outside
        .iter()
        .zip(columns.label_high.as_chunks::<LANES>().0)
        .zip(columns.label_low.as_chunks::<LANES>().0)
        .zip(columns.slack_high.as_chunks_mut::<LANES>().0)
        .zip(columns.slack_low.as_chunks_mut::<LANES>().0)
        .zip(columns.slack_row.as_chunks_mut::<LANES>().0)
        .zip(
            w.0.as_chunks::<LANES>()
                .0
                .iter()
                .zip(w.1.as_chunks::<LANES>().0),
        );
    for (
        b,
        ((((((&outside, label_high), label_low), slack_high), slack_low), slack_row), weight),
    ) in blocks.enumerate()
    {
        for lane in 0..LANES {
            if outside >> lane & 1 == 1 {
                let column_label = join(label_high[lane], label_low[lane]);
                let alternate = label + column_label - join(weight.0[lane], weight.1[lane]);
                let slack = join(slack_high[lane], slack_low[lane]);
                // Written unconditionally (select, not branch): whether the new row comes
                // closer is a coin toss the branch predictor loses.
                let closer = FIRST || alternate < slack;
                let slack = if closer { alternate } else { slack };
                (slack_high[lane], slack_low[lane]) = split(slack);
                slack_row[lane] = if closer { row as u64 } else { slack_row[lane] };
                if slack < least {
                    (least, y) = (slack, b * LANES + lane);
                }
            }
        }
    }
    (least, y)
}

/// [`relax`], eight columns at a time: 128-bit sums as two 64-bit lanes with the carry
/// (an unsigned compare) added to the high half, 128-bit compares as high-then-low lane
/// compares, and each lane keeping the first column of its least slack; the lane of least
/// slack, then least column, is the first column of least slack of the row.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn relax_avx512<const FIRST: bool>(
    columns: &mut Columns,
    w: (&[i64], &[u64]),
    label: i128,
    row: usize,
) -> (i128, usize) {
    use std::arch::x86_64::*;
    /// `a < b` as 128-bit signed integers (high half, low half), lane by lane.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn below(a: (__m512i, __m512i), b: (__m512i, __m512i)) -> __mmask8 {
        _mm512_cmplt_epi64_mask(a.0, b.0)
            | (_mm512_cmpeq_epi64_mask(a.0, b.0) & _mm512_cmplt_epu64_mask(a.1, b.1))
    }
    columns.assert_width(w);
    let (label_high, label_low) = split(label);
    let label = (
        _mm512_set1_epi64(label_high),
        _mm512_set1_epi64(label_low as i64),
    );
    let one = _mm512_set1_epi64(1);
    let row = _mm512_set1_epi64(row as i64);
    let mut best = (_mm512_set1_epi64(i64::MAX), _mm512_set1_epi64(-1));
    let mut best_column = _mm512_set1_epi64(-1);
    let mut column = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    let step = _mm512_set1_epi64(LANES as i64);
    for (b, &outside) in columns.outside.iter().enumerate() {
        let at = b * LANES;
        // SAFETY: `at + LANES` is within every plane for every block (`assert_width`),
        // and unaligned loads and stores of eight 64-bit lanes need no alignment.
        unsafe {
            let column_label = (
                _mm512_loadu_epi64(columns.label_high.as_ptr().add(at)),
                _mm512_loadu_epi64(columns.label_low.as_ptr().add(at).cast()),
            );
            let weight = (
                _mm512_loadu_epi64(w.0.as_ptr().add(at)),
                _mm512_loadu_epi64(w.1.as_ptr().add(at).cast()),
            );
            let slack = (
                _mm512_loadu_epi64(columns.slack_high.as_ptr().add(at)),
                _mm512_loadu_epi64(columns.slack_low.as_ptr().add(at).cast()),
            );
            // label + column label, the low halves' carry into the high ones.
            let sum_low = _mm512_add_epi64(label.1, column_label.1);
            let carry = _mm512_cmplt_epu64_mask(sum_low, column_label.1);
            let sum_high = _mm512_add_epi64(label.0, column_label.0);
            let sum_high = _mm512_mask_add_epi64(sum_high, carry, sum_high, one);
            // − weight, the low halves' borrow out of the high ones.
            let alternate_low = _mm512_sub_epi64(sum_low, weight.1);
            let borrow = _mm512_cmplt_epu64_mask(sum_low, weight.1);
            let alternate_high = _mm512_sub_epi64(sum_high, weight.0);
            let alternate_high = _mm512_mask_sub_epi64(alternate_high, borrow, alternate_high, one);
            let alternate = (alternate_high, alternate_low);
            let closer = if FIRST {
                outside
            } else {
                outside & below(alternate, slack)
            };
            let slack = (
                _mm512_mask_blend_epi64(closer, slack.0, alternate.0),
                _mm512_mask_blend_epi64(closer, slack.1, alternate.1),
            );
            _mm512_mask_storeu_epi64(columns.slack_high.as_mut_ptr().add(at), closer, slack.0);
            _mm512_mask_storeu_epi64(
                columns.slack_low.as_mut_ptr().add(at).cast(),
                closer,
                slack.1,
            );
            _mm512_mask_storeu_epi64(columns.slack_row.as_mut_ptr().add(at).cast(), closer, row);
            let less = outside & below(slack, best);
            best = (
                _mm512_mask_blend_epi64(less, best.0, slack.0),
                _mm512_mask_blend_epi64(less, best.1, slack.1),
            );
            best_column = _mm512_mask_blend_epi64(less, best_column, column);
        }
        column = _mm512_add_epi64(column, step);
    }
    let (mut high, mut low, mut at) = ([0i64; LANES], [0i64; LANES], [0i64; LANES]);
    // SAFETY: each array holds exactly one register's eight lanes.
    unsafe {
        _mm512_storeu_epi64(high.as_mut_ptr(), best.0);
        _mm512_storeu_epi64(low.as_mut_ptr(), best.1);
        _mm512_storeu_epi64(at.as_mut_ptr(), best_column);
    }
    least_of_lanes(&high, &low, &at)
}

/// [`relax`], four columns at a time, as [`relax_avx512`] does it with AVX2: no unsigned
/// compares (both sides' sign bits flipped, then a signed one) and no mask registers (masks
/// are lanes of all ones, blended with; the carry, −1, is subtracted).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn relax_avx2<const FIRST: bool>(
    columns: &mut Columns,
    w: (&[i64], &[u64]),
    label: i128,
    row: usize,
) -> (i128, usize) {
    use std::arch::x86_64::*;
    /// Half a block of the column planes.
    const HALF: usize = LANES / 2;
    /// `a < b` lane by lane, as unsigned integers given with their sign bits flipped.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn below_flipped(a: __m256i, b: __m256i) -> __m256i {
        _mm256_cmpgt_epi64(b, a)
    }
    /// `a < b` as 128-bit signed integers (high half, low half with its sign bit flipped).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn below(a: (__m256i, __m256i), b: (__m256i, __m256i)) -> __m256i {
        let high = _mm256_cmpgt_epi64(b.0, a.0);
        let equal = _mm256_cmpeq_epi64(a.0, b.0);
        _mm256_or_si256(high, _mm256_and_si256(equal, below_flipped(a.1, b.1)))
    }
    columns.assert_width(w);
    let flip = _mm256_set1_epi64x(i64::MIN);
    let (label_high, label_low) = split(label);
    let label = (
        _mm256_set1_epi64x(label_high),
        _mm256_set1_epi64x(label_low as i64),
    );
    let row = _mm256_set1_epi64x(row as i64);
    // The least slack of each lane (its low half flipped) and its first column.
    let mut best = (_mm256_set1_epi64x(i64::MAX), _mm256_set1_epi64x(i64::MAX));
    let mut best_column = _mm256_set1_epi64x(-1);
    let mut column = _mm256_setr_epi64x(0, 1, 2, 3);
    let step = _mm256_set1_epi64x(HALF as i64);
    for (b, &outside) in columns.outside.iter().enumerate() {
        for half in 0..2 {
            let at = b * LANES + half * HALF;
            // This half's four bits of the block's byte, as lanes of all ones.
            let bits = if half == 0 {
                _mm256_setr_epi64x(1, 2, 4, 8)
            } else {
                _mm256_setr_epi64x(16, 32, 64, 128)
            };
            let out = _mm256_cmpeq_epi64(
                _mm256_and_si256(_mm256_set1_epi64x(i64::from(outside)), bits),
                bits,
            );
            // SAFETY: `at + HALF` is within every plane for every half block
            // (`assert_width`), and unaligned loads and stores of four 64-bit lanes need no
            // alignment.
            unsafe {
                let load = |p: *const i64| _mm256_loadu_si256(p.add(at).cast());
                let column_label = (
                    load(columns.label_high.as_ptr()),
                    load(columns.label_low.as_ptr().cast()),
                );
                let weight = (load(w.0.as_ptr()), load(w.1.as_ptr().cast()));
                let slack = (
                    load(columns.slack_high.as_ptr()),
                    _mm256_xor_si256(load(columns.slack_low.as_ptr().cast()), flip),
                );
                let slack_row = load(columns.slack_row.as_ptr().cast());
                // label + column label, the low halves' carry (−1) subtracted from the high.
                let sum_low = _mm256_add_epi64(label.1, column_label.1);
                let sum_low_flipped = _mm256_xor_si256(sum_low, flip);
                let carry = below_flipped(sum_low_flipped, _mm256_xor_si256(column_label.1, flip));
                let sum_high = _mm256_sub_epi64(_mm256_add_epi64(label.0, column_label.0), carry);
                // − weight, the low halves' borrow (−1) added to the high.
                let alternate_low = _mm256_sub_epi64(sum_low, weight.1);
                let borrow = below_flipped(sum_low_flipped, _mm256_xor_si256(weight.1, flip));
                let alternate_high = _mm256_add_epi64(_mm256_sub_epi64(sum_high, weight.0), borrow);
                let alternate = (alternate_high, _mm256_xor_si256(alternate_low, flip));
                let closer = if FIRST {
                    out
                } else {
                    _mm256_and_si256(out, below(alternate, slack))
                };
                let slack = (
                    _mm256_blendv_epi8(slack.0, alternate.0, closer),
                    _mm256_blendv_epi8(slack.1, alternate.1, closer),
                );
                let store = |p: *mut i64, v: __m256i| _mm256_storeu_si256(p.add(at).cast(), v);
                store(columns.slack_high.as_mut_ptr(), slack.0);
                store(
                    columns.slack_low.as_mut_ptr().cast(),
                    _mm256_xor_si256(slack.1, flip),
                );
                store(
                    columns.slack_row.as_mut_ptr().cast(),
                    _mm256_blendv_epi8(slack_row, row, closer),
                );
                let less = _mm256_and_si256(out, below(slack, best));
                best = (
                    _mm256_blendv_epi8(best.0, slack.0, less),
                    _mm256_blendv_epi8(best.1, slack.1, less),
                );
                best_column = _mm256_blendv_epi8(best_column, column, less);
            }
            column = _mm256_add_epi64(column, step);
        }
    }
    let (mut high, mut low, mut at) = ([0i64; HALF], [0i64; HALF], [0i64; HALF]);
    // SAFETY: each array holds exactly one register's four lanes.
    unsafe {
        _mm256_storeu_si256(high.as_mut_ptr().cast(), best.0);
        _mm256_storeu_si256(low.as_mut_ptr().cast(), _mm256_xor_si256(best.1, flip));
        _mm256_storeu_si256(at.as_mut_ptr().cast(), best_column);
    }
    least_of_lanes(&high, &low, &at)
}

/// The least of the vector passes' lanes (each a least slack as high and low halves, and its
/// first column), then the least column: the row's first column of least slack.
#[cfg(target_arch = "x86_64")]
fn least_of_lanes(high: &[i64], low: &[i64], at: &[i64]) -> (i128, usize) {
    high.iter()
        .zip(low)
        .zip(at)
        .map(|((&high, &low), &at)| (join(high, low as u64), at as u64 as usize))
        .min()
        .expect("a register has lanes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathfinding::kuhn_munkres::kuhn_munkres;
    use pathfinding::matrix::Matrix;
    use proptest::prelude::*;

    /// Each row's first column of largest weight (the crate's first labels are the weights).
    fn first_best(weights: &[i128], rows: usize, cols: usize) -> Vec<usize> {
        (0..rows)
            .map(|x| {
                let row = &weights[x * cols..(x + 1) * cols];
                let max = row.iter().copied().max().expect("a row has columns");
                row.iter()
                    .position(|&w| w == max)
                    .expect("the maximum is in the row")
            })
            .collect()
    }

    /// The weights of a row-major `i128` matrix.
    fn planes(weights: &[i128], cols: usize) -> Weights {
        let mut planes = Weights::new(cols);
        for row in weights.chunks_exact(cols) {
            planes.push_row(row.iter().copied());
        }
        planes
    }

    /// The assignment of a row-major `i128` matrix, by every pass this CPU can run: the
    /// portable one and, where the CPU has them, the AVX2 and AVX-512 ones (which must
    /// agree), each of these with buffers left from another problem (nothing of it may leak).
    fn solve(weights: &[i128], rows: usize, cols: usize) -> Vec<usize> {
        let best = first_best(weights, rows, cols);
        let planes = planes(weights, cols);
        let mut portable = Assigner::default();
        portable.solve_with::<PORTABLE>(&planes, &best);
        let other = [5, -1, 9, 9, 0, 3, 9, 9, 2, 7, 1, 9, 9, 9, 4];
        let reused = || {
            let mut assigner = Assigner::default();
            assigner.solve(&self::planes(&other, 5), &first_best(&other, 3, 5));
            assigner
        };
        let mut dispatched = reused();
        assert_eq!(
            dispatched.solve(&planes, &best),
            portable.xy,
            "the chosen pass agrees"
        );
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut avx2 = reused();
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { avx2.solve_avx2(&planes, &best) };
            assert_eq!(avx2.xy, portable.xy, "the AVX2 pass agrees");
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            let mut avx512 = reused();
            // SAFETY: the CPU supports AVX-512F (checked just above).
            unsafe { avx512.solve_avx512(&planes, &best) };
            assert_eq!(avx512.xy, portable.xy, "the AVX-512 pass agrees");
        }
        portable.xy
    }

    /// A shift of every weight: the same optimum, but labels and slacks whose low halves
    /// wrap around (a carry or a borrow between the halves at every step).
    fn shift() -> impl Strategy<Value = i128> {
        prop_oneof![
            Just(0),
            Just(-(1i128 << 64)),
            Just((1i128 << 64) - 1),
            Just(-1),
            Just(-(1i128 << 63))
        ]
    }

    proptest! {
        #[test]
        fn takes_the_crates_steps_so_ties_end_alike(
            (rows, cols, weights) in (1usize..8, 0usize..6, shift()).prop_flat_map(|(rows, extra, shift)| {
                let cols = rows + extra;
                (Just(rows), Just(cols), prop::collection::vec(
                    prop_oneof![-3i128..3, any::<i64>().prop_map(i128::from)].prop_map(move |w| w + shift),
                    rows * cols,
                ))
            }),
        ) {
            let matrix = Matrix::from_vec(rows, cols, weights.clone()).unwrap();
            let (_, expected) = kuhn_munkres(&matrix);
            prop_assert_eq!(solve(&weights, rows, cols), expected);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Larger problems, mostly ties: trees of many rows and columns, labels carried over
        /// many roots; some weights far beyond 64 bits (ZCR's are), so sums carry from the low
        /// half into the high one and compares are decided by either half.
        #[test]
        fn takes_the_crates_steps_on_larger_problems(
            (rows, cols, weights) in (8usize..48, 0usize..24, shift()).prop_flat_map(|(rows, extra, shift)| {
                let cols = rows + extra;
                (Just(rows), Just(cols), prop::collection::vec(
                    prop_oneof![
                        4 => -2i128..2,
                        1 => any::<i32>().prop_map(i128::from),
                        1 => (any::<i64>(), -3i128..3).prop_map(|(low, high)| (high << 64) + i128::from(low)),
                        1 => any::<i64>().prop_map(|x| i128::from(x) << 40),
                    ].prop_map(move |w| w + shift),
                    rows * cols,
                ))
            }),
        ) {
            let matrix = Matrix::from_vec(rows, cols, weights.clone()).unwrap();
            let (_, expected) = kuhn_munkres(&matrix);
            prop_assert_eq!(solve(&weights, rows, cols), expected);
        }
    }

    #[test]
    fn finds_the_maximum_of_every_assignment() {
        let weights = [7, 53, 183, 439, 497, 383, 563, 79, 973, 287, 63, 343];
        let total =
            |a: &[usize]| -> i128 { a.iter().enumerate().map(|(x, &y)| weights[x * 4 + y]).sum() };
        let mut best = i128::MIN;
        for a in 0..4 {
            for b in (0..4).filter(|&b| b != a) {
                for c in (0..4).filter(|&c| c != a && c != b) {
                    best = best.max(total(&[a, b, c]));
                }
            }
        }
        assert_eq!(total(&solve(&weights, 3, 4)), best);
    }
}
