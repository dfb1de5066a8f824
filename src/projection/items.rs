//! Which embedding row belongs to which item of an index, and which rows belong to the largest
//! collision groups — shared by `sidlens project` and the TUI scatter so both agree.

use std::collections::HashMap;

use crate::collision::Collisions;
use crate::error::{Error, Place, Result};
use crate::load::SidIndex;

/// The items of an index placed on the rows of an embeddings array.
#[derive(Debug, Clone)]
pub struct ItemRows {
    rows: Vec<usize>,
    position_of_row: HashMap<usize, usize>,
    rank_of_row: HashMap<usize, usize>,
    highlighted: Vec<usize>,
}

impl ItemRows {
    /// Maps every item of `index` to its embedding row ([`crate::load::ItemIds::vector_row`])
    /// and ranks the `highlight` largest collision groups 1, 2, …. Fails, naming the item, when
    /// a row is beyond the `n_rows` of the embeddings.
    pub fn new(
        index: &SidIndex,
        collisions: &Collisions,
        n_rows: usize,
        highlight: usize,
    ) -> Result<Self> {
        let ids = index.ids();
        let mut position_of_row = HashMap::with_capacity(index.n_items());
        for position in 0..index.n_items() {
            let row = ids.vector_row(position);
            if row >= n_rows {
                return Err(Error::data(
                    index.path(),
                    Place::Item(index.id(position).to_string()),
                    format!("the item's embedding row {row} is beyond the {n_rows} embedding rows"),
                ));
            }
            position_of_row.insert(row, position);
        }
        let mut rank_of_row = HashMap::new();
        for (rank, group) in collisions
            .collision_groups()
            .into_iter()
            .take(highlight)
            .enumerate()
        {
            for &position in collisions.items(group) {
                rank_of_row.insert(ids.vector_row(position as usize), rank + 1);
            }
        }
        let mut rows: Vec<usize> = position_of_row.keys().copied().collect();
        rows.sort_unstable();
        let mut highlighted: Vec<usize> = rank_of_row.keys().copied().collect();
        highlighted.sort_unstable();
        Ok(ItemRows {
            rows,
            position_of_row,
            rank_of_row,
            highlighted,
        })
    }

    /// The rows that hold an item, ascending: what to sample from.
    pub fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// The rows of the highlighted groups, ascending: what every sample must keep.
    pub fn highlighted(&self) -> &[usize] {
        &self.highlighted
    }

    /// The index position of the item on `row`.
    pub fn position(&self, row: usize) -> Option<usize> {
        self.position_of_row.get(&row).copied()
    }

    /// The rank (1 = largest) of the highlighted collision group of the item on `row`.
    pub fn group_rank(&self, row: usize) -> Option<usize> {
        self.rank_of_row.get(&row).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn index(json: &str) -> SidIndex {
        SidIndex::parse(json.as_bytes(), Path::new("i.json"), None).unwrap()
    }

    #[test]
    fn maps_rows_and_ranks_groups() {
        let index = index(
            r#"{"0": ["<a_1>", "<b_1>"], "1": ["<a_1>", "<b_1>"], "2": ["<a_1>", "<b_1>"],
                "3": ["<a_2>", "<b_1>"], "4": ["<a_2>", "<b_1>"], "5": ["<a_3>", "<b_3>"]}"#,
        );
        let collisions = Collisions::new(&index);
        let items = ItemRows::new(&index, &collisions, 6, 1).unwrap();
        assert_eq!(items.rows(), [0, 1, 2, 3, 4, 5]);
        assert_eq!(items.highlighted(), [0, 1, 2]);
        assert_eq!(items.group_rank(1), Some(1));
        assert_eq!(items.group_rank(3), None);
        assert_eq!(items.position(5), Some(5));
        let both = ItemRows::new(&index, &collisions, 6, 5).unwrap();
        assert_eq!(both.highlighted(), [0, 1, 2, 3, 4]);
        assert_eq!(both.group_rank(4), Some(2));
        let err = ItemRows::new(&index, &collisions, 5, 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "i.json: item \"5\": the item's embedding row 5 is beyond the 5 embedding rows"
        );
    }
}
