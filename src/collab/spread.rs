//! How far apart a collision group's items are in a space: the mean pairwise cosine distance
//! (1 − cos) of their rows — the paper's Figure 5 figure ("textually 0.02 apart, 0.71 apart by
//! interactions").

use crate::Result;
use crate::collision::Collisions;
use crate::load::{Latents, SidIndex};

/// Mean of `1 − cos(a, b)` over every pair of `rows` of `vectors` (pairs in the given order);
/// a zero row has cosine 0 with everything. `None` for fewer than 2 rows.
pub fn mean_cosine_distance(vectors: &Latents, rows: &[usize]) -> Option<f64> {
    if rows.len() < 2 {
        return None;
    }
    let d = vectors.dim();
    let mut data = vec![0.0; rows.len() * d];
    for (chunk, &r) in data.chunks_mut(d).zip(rows) {
        vectors.row_into(r, chunk);
    }
    let norms: Vec<f64> = data
        .chunks(d)
        .map(|v| v.iter().map(|x| x * x).sum::<f64>().sqrt())
        .collect();
    let (mut sum, mut pairs) = (0.0, 0usize);
    for i in 0..rows.len() {
        for j in i + 1..rows.len() {
            let (a, b) = (&data[i * d..(i + 1) * d], &data[j * d..(j + 1) * d]);
            let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            sum += 1.0 - dot / (norms[i] * norms[j]).max(1e-12);
            pairs += 1;
        }
    }
    Some(sum / pairs as f64)
}

/// A collision group with its spread in one or two spaces.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSpread {
    /// The group (see [`Collisions`]).
    pub group: u32,
    /// Mean pairwise cosine distance in the first (usually textual) space.
    pub mean_cosine_distance: f64,
    /// The same in the second (collaborative) space, when one was given.
    pub cf_mean_cosine_distance: Option<f64>,
}

/// Every collision group of at least `min_size` items (at least 2) with its spread in `space`
/// (and in `second`), tightest first; ties keep SID order. Rows follow
/// [`crate::load::ItemIds::vector_row`]; both spaces must cover the index.
pub fn group_spreads(
    index: &SidIndex,
    collisions: &Collisions,
    space: &Latents,
    second: Option<&Latents>,
    min_size: usize,
) -> Result<Vec<GroupSpread>> {
    space.check_covers(index)?;
    if let Some(s) = second {
        s.check_covers(index)?;
    }
    let ids = index.ids();
    let mut rows: Vec<GroupSpread> = collisions
        .collision_groups()
        .into_iter()
        .filter(|&g| collisions.size(g) as usize >= min_size.max(2))
        .map(|g| {
            let items: Vec<usize> = collisions
                .items_in_id_order(index, g)
                .into_iter()
                .map(|p| ids.vector_row(p as usize))
                .collect();
            GroupSpread {
                group: g,
                mean_cosine_distance: mean_cosine_distance(space, &items)
                    .expect("collision groups have 2 or more items"),
                cf_mean_cosine_distance: second.and_then(|s| mean_cosine_distance(s, &items)),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        a.mean_cosine_distance
            .total_cmp(&b.mean_cosine_distance)
            .then(collisions.key(a.group).cmp(&collisions.key(b.group)))
    });
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use std::path::Path;

    #[test]
    fn tightest_groups_come_first_with_both_spaces() {
        let index = SidIndex::parse(
            br#"{"0": [1, 1], "1": [1, 1], "2": [1, 1], "3": [2, 2], "4": [2, 2], "5": [3, 3]}"#,
            Path::new("i.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        let text = Latents::from_f64(
            Path::new("t.npy"),
            array![
                [1.0, 0.0],
                [1.0, 0.1],
                [0.0, 1.0],
                [1.0, 0.0],
                [2.0, 0.0],
                [0.0, 1.0]
            ],
        )
        .unwrap();
        let cf = Latents::from_f64(
            Path::new("c.npy"),
            array![
                [1.0, 0.0],
                [0.0, 1.0],
                [0.0, 0.0],
                [0.0, 1.0],
                [0.0, -1.0],
                [1.0, 0.0]
            ],
        )
        .unwrap();
        let rows = group_spreads(&index, &collisions, &text, Some(&cf), 2).unwrap();
        assert_eq!(rows.len(), 2);
        // Items 3 and 4 point the same way: distance 0 in text, opposite (2) in cf.
        assert_eq!(rows[0].mean_cosine_distance, 0.0);
        assert_eq!(rows[0].cf_mean_cosine_distance, Some(2.0));
        let cos01 = 1.0 / 1.01_f64.sqrt();
        let want = ((1.0 - cos01) + 1.0 + (1.0 - 0.1 / 1.01_f64.sqrt())) / 3.0;
        assert!((rows[1].mean_cosine_distance - want).abs() < 1e-12);
        // cf: orthogonal pair (1), and a zero row (cosine 0, distance 1) twice.
        assert_eq!(rows[1].cf_mean_cosine_distance, Some(1.0));
        assert_eq!(
            group_spreads(&index, &collisions, &text, None, 3)
                .unwrap()
                .len(),
            1
        );
    }
}
