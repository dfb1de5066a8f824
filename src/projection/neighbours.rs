//! Nearest neighbours of an item in an embedding space (exact, brute force over the index's
//! items), so a user can ask whether an item's neighbours are its groupmates.

use crate::load::{Latents, SidIndex};

/// The `k` items of `index` nearest to the item at `position` by Euclidean distance between
/// their rows in `vectors` (row = [`crate::load::ItemIds::vector_row`]), nearest first, as
/// (position, distance); the item itself and items without a row are left out. Ties go to
/// the smaller position, so the answer is the same on every run.
pub fn nearest(
    index: &SidIndex,
    vectors: &Latents,
    position: usize,
    k: usize,
) -> Vec<(usize, f64)> {
    let ids = index.ids();
    let rows = vectors.n_rows();
    let target_row = ids.vector_row(position);
    if k == 0 || target_row >= rows {
        return Vec::new();
    }
    let dim = vectors.dim();
    let mut target = vec![0.0; dim];
    vectors.row_into(target_row, &mut target);
    let mut row = vec![0.0; dim];
    let mut best: Vec<(usize, f64)> = Vec::with_capacity(k + 1);
    for p in 0..index.n_items() {
        let r = ids.vector_row(p);
        if p == position || r >= rows {
            continue;
        }
        vectors.row_into(r, &mut row);
        let d: f64 = target
            .iter()
            .zip(&row)
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        if best.len() == k && d >= best[k - 1].1 {
            continue;
        }
        let at = best.partition_point(|&(_, e)| e <= d);
        best.insert(at, (p, d));
        best.truncate(k);
    }
    best.into_iter().map(|(p, d)| (p, d.sqrt())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use std::path::Path;

    #[test]
    fn nearest_first_without_the_item_itself() {
        let index = SidIndex::parse(
            br#"{"0": [1, 1], "1": [1, 1], "2": [2, 2], "3": [3, 3]}"#,
            Path::new("i.json"),
            None,
        )
        .unwrap();
        let v = Latents::from_f64(
            Path::new("v.npy"),
            array![[0.0, 0.0], [3.0, 0.0], [1.0, 0.0], [0.0, 2.0]],
        )
        .unwrap();
        let near = nearest(&index, &v, 0, 2);
        assert_eq!(near, vec![(2, 1.0), (3, 2.0)]);
        assert_eq!(nearest(&index, &v, 0, 10).len(), 3);
        assert!(nearest(&index, &v, 0, 0).is_empty());
    }
}
