//! Item co-occurrence counts within a sliding window of each user's history (the last items
//! held out), and their PPMI transform — `tokenizer/collaborative_signal.py` of the paper.

use rayon::prelude::*;

use super::sparse::Csr;
use crate::error::{Error, Place, Result};
use crate::load::ids::canonical_integer;
use crate::load::{Interactions, SidIndex};

/// Window and hold-out of the co-occurrence count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Window {
    /// Each item pairs with the next `size` items of the same user.
    pub size: usize,
    /// Items dropped from the end of every sequence (test and validation targets).
    pub holdout: usize,
}

impl Default for Window {
    /// The paper's choice: window 3, the last 2 items held out.
    fn default() -> Self {
        Window {
            size: 3,
            holdout: 2,
        }
    }
}

/// Where each interaction item goes in the embedding: `row[item number]`, and the row count.
#[derive(Debug, Clone)]
pub struct ItemRows {
    /// Row of each of the interactions' item numbers.
    pub row: Vec<u32>,
    /// Rows of the embedding.
    pub n: usize,
}

impl ItemRows {
    /// Rows by item id (`row i = item id i`); `n` is the largest id + 1. Every id must be a
    /// non-negative integer.
    pub fn by_id(interactions: &Interactions) -> Result<Self> {
        let mut row = Vec::with_capacity(interactions.n_items());
        for id in interactions.items().iter() {
            let value = canonical_integer(id)
                .filter(|&v| v < u64::from(u32::MAX))
                .ok_or_else(|| {
                    Error::data(
                        interactions.path(),
                        Place::Item(id.to_string()),
                        "is not a plain integer id, so its embedding row is unknown \
                         (give --index to place items by the index)",
                    )
                })?;
            row.push(value as u32);
        }
        let n = row.iter().map(|&r| r as usize + 1).max().unwrap_or(0);
        Ok(ItemRows { row, n })
    }

    /// Rows as the index places items in per-item vector files (see
    /// [`crate::load::ItemIds::vector_row`]); `n` covers every item of the index. An item of
    /// the interactions that the index lacks is an error.
    pub fn by_index(interactions: &Interactions, index: &SidIndex) -> Result<Self> {
        let ids = index.ids();
        let n = (0..index.n_items())
            .map(|p| ids.vector_row(p) + 1)
            .max()
            .unwrap_or(0);
        if n > u32::MAX as usize {
            return Err(Error::Invalid(format!(
                "{}: item ids up to {} are too large for an embedding",
                index.path().display(),
                n - 1
            )));
        }
        let mut row = Vec::with_capacity(interactions.n_items());
        for id in interactions.items().iter() {
            let position = ids.position(id).ok_or_else(|| {
                Error::data(
                    interactions.path(),
                    Place::Item(id.to_string()),
                    format!("is not in the index {}", index.path().display()),
                )
            })?;
            row.push(ids.vector_row(position) as u32);
        }
        Ok(ItemRows { row, n })
    }
}

/// What the count saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CountSummary {
    /// Users whose sequence (after the hold-out) had at least 2 items.
    pub users_used: usize,
    /// Users skipped for having fewer.
    pub users_skipped: usize,
    /// Stored cells of the co-occurrence matrix.
    pub cooccurrence_cells: usize,
}

/// The symmetric co-occurrence matrix: for each position `i` and each `j` in `i+1..=i+size`
/// of a user's sequence without its last `holdout` items, when the two items differ, 1 is added
/// to `C[a,b]` and to `C[b,a]`. Users with fewer than 2 items left are skipped.
pub fn cooccurrence(
    interactions: &Interactions,
    rows: &ItemRows,
    window: Window,
) -> (Csr, CountSummary) {
    let mut users_used = 0;
    let mut cells: Vec<(u32, u32)> = Vec::new();
    for u in 0..interactions.n_users() {
        let seq = interactions.sequence(u);
        let kept = &seq[..seq.len().saturating_sub(window.holdout)];
        if kept.len() < 2 {
            continue;
        }
        users_used += 1;
        for (i, &a) in kept.iter().enumerate() {
            let a = rows.row[a as usize];
            for &b in &kept[i + 1..(i + window.size + 1).min(kept.len())] {
                let b = rows.row[b as usize];
                if a != b {
                    cells.push((a, b));
                    cells.push((b, a));
                }
            }
        }
    }
    cells.par_sort_unstable();
    let matrix = Csr::from_sorted_cells(rows.n, &cells);
    let summary = CountSummary {
        users_used,
        users_skipped: interactions.n_users() - users_used,
        cooccurrence_cells: matrix.nnz(),
    };
    (matrix, summary)
}

/// Positive pointwise mutual information of the stored cells,
/// `max(0, ln(C·T / (r_a · c_b)))` with `T = ΣC` and row/column sums clamped at 1e-12,
/// evaluated in the reference's order (`C·T` first); cells that become 0 are dropped.
pub fn ppmi(counts: &Csr) -> Csr {
    let total = counts.total();
    if total == 0.0 {
        return counts.clone();
    }
    let rows: Vec<f64> = counts
        .row_sums()
        .into_iter()
        .map(|v| v.max(1e-12))
        .collect();
    let cols: Vec<f64> = counts
        .column_sums()
        .into_iter()
        .map(|v| v.max(1e-12))
        .collect();
    counts.map_and_prune(|i, j, v| (v * total / (rows[i] * cols[j])).ln().max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn interactions(users: &[(&str, &[&str])]) -> Interactions {
        Interactions::from_sequences(
            Path::new("inter.json"),
            users
                .iter()
                .map(|(u, items)| (u.to_string(), items.iter().copied())),
        )
        .unwrap()
    }

    #[test]
    fn counts_follow_the_reference_recipe() {
        // u1 keeps [0, 1, 2, 0, 3] (two held out); u2 keeps [5] and is skipped.
        let inter = interactions(&[
            ("u1", &["0", "1", "2", "0", "3", "9", "9"]),
            ("u2", &["5", "6", "7"]),
        ]);
        let rows = ItemRows::by_id(&inter).unwrap();
        assert_eq!(rows.n, 10);
        let (c, summary) = cooccurrence(&inter, &rows, Window::default());
        assert_eq!(summary.users_used, 1);
        assert_eq!(summary.users_skipped, 1);
        let d = c.to_dense();
        // Pairs: (0,1) (0,2) (0,0)skip | (1,2) (1,0) (1,3) | (2,0) (2,3) | (0,3).
        assert_eq!(d[[0, 1]], 2.0);
        assert_eq!(d[[0, 2]], 2.0);
        assert_eq!(d[[0, 3]], 1.0);
        assert_eq!(d[[1, 2]], 1.0);
        assert_eq!(d[[1, 3]], 1.0);
        assert_eq!(d[[2, 3]], 1.0);
        assert_eq!(d[[0, 0]], 0.0);
        assert_eq!(d, d.t());
        assert_eq!(c.total(), 16.0);
        let p = ppmi(&c).to_dense();
        let expected = (2.0_f64 * 16.0 / (5.0 * 4.0)).ln();
        assert!((p[[0, 1]] - expected).abs() < 1e-15);
        // (0,3): ln(1·16 / (5·3)) > 0; (1,3): ln(16 / (4·3)) > 0; both kept.
        assert!(p[[0, 3]] > 0.0 && p[[1, 3]] > 0.0);
        assert!(p.iter().all(|&v| v >= 0.0));
    }

    #[test]
    fn rows_by_id_need_integer_ids() {
        let inter = interactions(&[("u", &["B00X", "1", "2"])]);
        let err = ItemRows::by_id(&inter).unwrap_err().to_string();
        assert!(err.contains("inter.json") && err.contains("B00X"), "{err}");
    }
}
