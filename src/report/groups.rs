//! The collision-group list: one row per group, largest first, with its items and titles.
//! `sidlens groups` and the TUI's group pane both build their rows here, so they agree.

use serde::Serialize;

use super::{Align, Table, on_first_line};
use crate::collision::Collisions;
use crate::load::{ItemTexts, SidIndex};
use crate::sid::{self, Code};

/// One collision group as listed to a user.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GroupRow {
    /// 1-based rank in the list (largest group first).
    pub rank: usize,
    /// The shared SID, `<a_127><b_244><c_179><d_206>`.
    pub sid: String,
    /// The shared codes.
    pub codes: Vec<Code>,
    /// Number of items sharing the SID.
    pub size: usize,
    /// The items, in id order.
    pub items: Vec<GroupItem>,
    /// Internal group id (position in SID order), for front ends that drill down.
    #[serde(skip)]
    pub group: u32,
}

/// An item of a collision group.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GroupItem {
    /// Item id as in the index.
    pub id: String,
    /// Title from the item metadata, when loaded.
    pub title: Option<String>,
}

/// Which groups to list.
#[derive(Debug, Clone, Copy)]
pub struct GroupFilter {
    /// Smallest group size listed (at least 2: only collisions are listed).
    pub min_size: usize,
    /// List at most this many groups.
    pub top: Option<usize>,
}

impl Default for GroupFilter {
    fn default() -> Self {
        GroupFilter {
            min_size: 2,
            top: None,
        }
    }
}

/// Collision groups of `index`, largest first (ties in SID order), with item titles.
pub fn group_rows(
    index: &SidIndex,
    collisions: &Collisions,
    texts: Option<&ItemTexts>,
    filter: GroupFilter,
) -> Vec<GroupRow> {
    let min = filter.min_size.max(2) as u32;
    collisions
        .collision_groups()
        .into_iter()
        .filter(|&g| collisions.size(g) >= min)
        .take(filter.top.unwrap_or(usize::MAX))
        .enumerate()
        .map(|(i, g)| {
            let items = collisions.items_in_id_order(index, g);
            let codes = index.codes(items[0] as usize).to_vec();
            GroupRow {
                rank: i + 1,
                sid: sid::format_sid(&codes),
                codes,
                size: items.len(),
                items: items
                    .iter()
                    .map(|&p| {
                        let id = index.id(p as usize).to_string();
                        let title = texts.and_then(|t| t.title(&id)).map(str::to_string);
                        GroupItem { id, title }
                    })
                    .collect(),
                group: g,
            }
        })
        .collect()
}

/// The group list as a table: one line per item, group columns on the group's first line.
pub fn table(rows: &[GroupRow]) -> Table {
    let mut t = Table::new(&[
        ("#", Align::Right),
        ("size", Align::Right),
        ("SID", Align::Left),
        ("item", Align::Right),
        ("title", Align::Left),
    ]);
    for row in rows {
        for (i, item) in row.items.iter().enumerate() {
            let first = i == 0;
            t.push(vec![
                on_first_line(first, row.rank.to_string()),
                on_first_line(first, row.size.to_string()),
                on_first_line(first, row.sid.clone()),
                item.id.clone(),
                item.title.clone().unwrap_or_default(),
            ]);
        }
    }
    t
}

/// The group list for CSV: one line per item with its group's columns on every line.
pub fn csv_table(rows: &[GroupRow]) -> Table {
    let mut t = Table::new(&[
        ("rank", Align::Right),
        ("size", Align::Right),
        ("SID", Align::Left),
        ("item", Align::Right),
        ("title", Align::Left),
    ]);
    for row in rows {
        for item in &row.items {
            t.push(vec![
                row.rank.to_string(),
                row.size.to_string(),
                row.sid.clone(),
                item.id.clone(),
                item.title.clone().unwrap_or_default(),
            ]);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::ItemInfo;
    use std::path::Path;

    #[test]
    fn largest_first_with_titles_in_id_order() {
        let idx = SidIndex::parse(
            br#"{"10": [1, 1], "2": [1, 1], "3": [2, 2], "4": [2, 2], "5": [2, 2], "6": [3, 3]}"#,
            Path::new("t"),
            None,
        )
        .unwrap();
        let c = Collisions::new(&idx);
        let texts = ItemTexts::from_pairs([(
            "2".to_string(),
            ItemInfo {
                title: Some("Mini 3D Printer".into()),
                ..Default::default()
            },
        )]);
        let rows = group_rows(&idx, &c, Some(&texts), GroupFilter::default());
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].size, rows[0].sid.as_str()), (3, "<a_2><b_2>"));
        assert_eq!(rows[1].items[0].id, "2");
        assert_eq!(rows[1].items[0].title.as_deref(), Some("Mini 3D Printer"));
        assert_eq!(rows[1].items[1].id, "10");
        let few = group_rows(
            &idx,
            &c,
            None,
            GroupFilter {
                min_size: 3,
                top: None,
            },
        );
        assert_eq!(few.len(), 1);
        let top = group_rows(
            &idx,
            &c,
            None,
            GroupFilter {
                min_size: 2,
                top: Some(1),
            },
        );
        assert_eq!(top.len(), 1);
        assert_eq!(table(&rows).rows.len(), 5);
        let csv = csv_table(&rows);
        assert_eq!(csv.rows.len(), 5);
        assert_eq!(csv.rows[1][..3], ["1", "3", "<a_2><b_2>"]);
    }
}
