//! The greedy MQL4GRec baseline for one prefix group: for each shared code the holder nearest
//! to it keeps it (equal distances: lower item id); the other holders, in ascending order of
//! their distance to their native code (stable by item id), each take their nearest code not
//! yet used in the group (lowest code on equal distances).

use super::GroupProblem;

/// The column each row takes under the greedy rule.
pub(crate) fn solve(problem: &GroupProblem) -> Vec<usize> {
    let (h, cols) = (problem.n_rows(), problem.n_columns());
    let mut assignment: Vec<usize> = (0..h).map(|r| problem.native_col(r)).collect();
    let mut used = vec![false; cols];
    let mut keeper: Vec<Option<usize>> = vec![None; cols];
    for r in 0..h {
        let j = problem.native_col(r);
        used[j] = true;
        let nearer = keeper[j].is_none_or(|k| problem.dist(r, j) < problem.dist(k, j));
        if nearer {
            keeper[j] = Some(r);
        }
    }
    let mut losers: Vec<usize> = Vec::with_capacity(h);
    losers.extend((0..h).filter(|&r| keeper[problem.native_col(r)] != Some(r)));
    losers.sort_by(|&a, &b| {
        let (da, db) = (
            problem.dist(a, problem.native_col(a)),
            problem.dist(b, problem.native_col(b)),
        );
        da.total_cmp(&db).then(a.cmp(&b))
    });
    for r in losers {
        // The first unused column of least distance: distances are finite, so the first
        // unused one is below the starting infinity. Selected, not branched on: which
        // column is nearer is unpredictable.
        let (mut best, mut least) = (usize::MAX, f64::INFINITY);
        for (j, (&d, &taken)) in problem.row(r).iter().zip(&used).enumerate() {
            let nearer = !taken & (d < least);
            best = if nearer { j } else { best };
            least = if nearer { d } else { least };
        }
        assert!(
            best != usize::MAX,
            "the planner checks there are enough free codes"
        );
        used[best] = true;
        assignment[r] = best;
    }
    assignment
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(native_cols: Vec<usize>, dist: Vec<Vec<f64>>) -> GroupProblem {
        GroupProblem {
            native_cols,
            n_columns: dist[0].len(),
            dist: dist.concat(),
        }
    }

    #[test]
    fn nearest_holder_keeps_and_losers_take_their_nearest_free_code() {
        // Rows 0, 1, 2 hold column 1; row 1 is nearest and keeps it. Row 2 (native distance
        // 0.2) chooses before row 0 (0.3) and takes column 3, its nearest free one; row 0 then
        // takes column 2 (0.5 < 0.9).
        let p = problem(
            vec![1, 1, 1],
            vec![
                vec![0.9, 0.3, 0.5, 0.4],
                vec![0.1, 0.1, 0.1, 0.1],
                vec![0.5, 0.2, 0.6, 0.3],
            ],
        );
        assert_eq!(solve(&p), vec![2, 1, 3]);
    }

    #[test]
    fn ties_go_to_lower_ids_and_lower_codes() {
        // Equal native distances: row 0 (lower id) keeps; row 1 sees equal free codes 0 and 2
        // and takes the lower.
        let p = problem(vec![1, 1], vec![vec![0.5, 0.2, 0.5], vec![0.5, 0.2, 0.5]]);
        assert_eq!(solve(&p), vec![1, 0]);
        // Losers with equal native distance choose in id order.
        let p = problem(
            vec![0, 0, 0],
            vec![
                vec![0.0, 0.1, 0.2],
                vec![0.3, 0.1, 0.2],
                vec![0.3, 0.1, 0.2],
            ],
        );
        assert_eq!(solve(&p), vec![0, 1, 2]);
    }
}
