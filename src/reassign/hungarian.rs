//! The assignment solver of ZCR's per-group problems: pathfinding 4.16's `kuhn_munkres`,
//! step for step, on a flat row-major matrix. Why not the crate's own: ZCR solves one problem
//! per prefix group (tens of thousands at 1M items), and the crate's version spends much of
//! its time outside the arithmetic: a negated copy of every matrix, a hash set for the rows
//! of the alternating tree, `Option` columns and checked indexing (measured in README's
//! dependency notes). Taking exactly the crate's steps — the same labels, the same first
//! column of least slack, the same augmenting paths — keeps the same optimum among equal
//! ones, so every output stays the same bytes; a proptest checks the assignment equals the
//! crate's.

/// No row or column.
const NONE: usize = usize::MAX;

/// The assignment of the `rows × cols` matrix `weights` (row-major, `rows ≤ cols`) that
/// maximises the total weight: each row's column. `first_best` holds each row's first column
/// of largest weight, whose weights are the crate's first labels (ZCR knows them without a
/// pass over the matrix: its native columns). The caller keeps the labels in range (ZCR's
/// [`super::zcr`] bounds every entry so that no label sum overflows).
///
/// A root whose first best column is still unmatched takes it at once, without the pass over
/// the columns that the crate makes: an unmatched column has never been in a tree, so its
/// label is 0 and its slack 0, the least there is; every column before it has a smaller
/// weight, so a positive slack; so the crate picks it first, with a delta of 0, and augments
/// along it alone. The same matching and labels, for the cost of one lookup: in ZCR the first
/// holder of each shared code is such a root.
///
/// The crate's steps, done with less work per step: while one root's tree grows, each step's
/// delta is added to one running total rather than to every free column's slack and every
/// tree column's and row's label. Free columns hold their slack plus that total (so they
/// order, ties included, as the slacks do), and each tree row and column learns at the end of
/// the phase what was added since it joined. The new row's slacks and the next least slack
/// are then one pass over the columns instead of three. Integer sums in another order: the
/// same labels, slacks and choices.
pub(crate) fn max_weight_assignment(
    weights: &[i128],
    rows: usize,
    cols: usize,
    first_best: &[usize],
) -> Vec<usize> {
    assert!(rows <= cols, "more rows than columns");
    assert_eq!(weights.len(), rows * cols, "a rows × cols matrix");
    assert_eq!(first_best.len(), rows, "one best column per row");
    let mut xy = vec![NONE; rows];
    let mut yx = vec![NONE; cols];
    let mut lx: Vec<i128> = (0..rows)
        .map(|x| weights[x * cols + first_best[x]])
        .collect();
    let mut columns = vec![Column::default(); cols];
    // Rows and columns of the tree, each with the running total of deltas when it joined.
    let mut tree_rows: Vec<(usize, i128)> = Vec::with_capacity(rows);
    let mut tree_cols: Vec<(usize, i128)> = Vec::with_capacity(cols);
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
        let (root_label, root_row) = (lx[root], &weights[root * cols..(root + 1) * cols]);
        // The column of least slack (the first of equals) and its row, found as slacks change.
        let (mut least, mut x, mut y) = (i128::MAX, root, 0);
        for (yy, (c, &w)) in columns.iter_mut().zip(root_row).enumerate() {
            c.tree_row = NONE;
            c.slack_row = root;
            c.slack = root_label + c.label - w;
            if c.slack < least {
                (least, y) = (c.slack, yy);
            }
        }
        let free_end = loop {
            let delta = least - added;
            if delta > 0 {
                added += delta;
            }
            columns[y].tree_row = x;
            tree_cols.push((y, added));
            if yx[y] == NONE {
                break y;
            }
            let next = yx[y];
            tree_rows.push((next, added));
            // `next` joined just now: its label is still its own, and the stored slacks
            // carry `added`.
            let (label, row) = (lx[next] + added, &weights[next * cols..(next + 1) * cols]);
            least = i128::MAX;
            for (yy, (c, &w)) in columns.iter_mut().zip(row).enumerate() {
                if c.tree_row == NONE {
                    // Written unconditionally (select, not branch): whether the new row
                    // comes closer is a coin toss the branch predictor loses.
                    let alternate = label + c.label - w;
                    let closer = alternate < c.slack;
                    c.slack = if closer { alternate } else { c.slack };
                    c.slack_row = if closer { next } else { c.slack_row };
                    if c.slack < least {
                        (least, x, y) = (c.slack, c.slack_row, yy);
                    }
                }
            }
        };
        for &(t, joined) in &tree_rows {
            lx[t] -= added - joined;
        }
        for &(c, joined) in &tree_cols {
            columns[c].label += added - joined;
        }
        let mut y = free_end;
        while y != NONE {
            let x = columns[y].tree_row;
            let previous = xy[x];
            yx[y] = x;
            xy[x] = y;
            y = previous;
        }
    }
    xy
}

/// One column during a root's phase, its fields side by side: the pass over the columns for
/// each row joining the tree then walks one array instead of five, and keeps its pointers
/// in registers.
#[derive(Debug, Clone, Copy)]
struct Column {
    label: i128,
    /// The least slack to a tree row, plus the running total of deltas.
    slack: i128,
    /// The tree row of that slack.
    slack_row: usize,
    /// The tree row it was reached from; `NONE` while outside the tree.
    tree_row: usize,
}

impl Default for Column {
    fn default() -> Self {
        Column {
            label: 0,
            slack: 0,
            slack_row: 0,
            tree_row: NONE,
        }
    }
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

    proptest! {
        #[test]
        fn takes_the_crates_steps_so_ties_end_alike(
            (rows, cols, weights) in (1usize..8, 0usize..6).prop_flat_map(|(rows, extra)| {
                let cols = rows + extra;
                (Just(rows), Just(cols), prop::collection::vec(
                    prop_oneof![-3i128..3, any::<i64>().prop_map(i128::from)],
                    rows * cols,
                ))
            }),
        ) {
            let matrix = Matrix::from_vec(rows, cols, weights.clone()).unwrap();
            let (_, expected) = kuhn_munkres(&matrix);
            prop_assert_eq!(max_weight_assignment(&weights, rows, cols, &first_best(&weights, rows, cols)), expected);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Larger problems, mostly ties: trees of many rows and columns, labels carried over
        /// many roots.
        #[test]
        fn takes_the_crates_steps_on_larger_problems(
            (rows, cols, weights) in (8usize..48, 0usize..24).prop_flat_map(|(rows, extra)| {
                let cols = rows + extra;
                (Just(rows), Just(cols), prop::collection::vec(
                    prop_oneof![4 => -2i128..2, 1 => any::<i32>().prop_map(i128::from)],
                    rows * cols,
                ))
            }),
        ) {
            let matrix = Matrix::from_vec(rows, cols, weights.clone()).unwrap();
            let (_, expected) = kuhn_munkres(&matrix);
            prop_assert_eq!(max_weight_assignment(&weights, rows, cols, &first_best(&weights, rows, cols)), expected);
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
        assert_eq!(
            total(&max_weight_assignment(
                &weights,
                3,
                4,
                &first_best(&weights, 3, 4)
            )),
            best
        );
    }
}
