//! Collision groups with their spread in the textual and collaborative spaces (`sidlens
//! groups --embeddings … [--cf …] [--tightest N]`, the paper's Figure 5 view).

use serde::Serialize;

use super::groups::GroupItem;
use super::{Align, Table, on_first_line, raw};
use crate::collab::spread::GroupSpread;
use crate::collision::Collisions;
use crate::load::{ItemTexts, SidIndex};
use crate::sid;

/// One group as listed, with how far apart its items are.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SpreadRow {
    /// 1-based rank (tightest first).
    pub rank: usize,
    /// The shared SID.
    pub sid: String,
    /// Number of items sharing it.
    pub size: usize,
    /// Mean pairwise cosine distance (1 − cos) in the embeddings given.
    pub mean_cosine_distance: f64,
    /// The same in the collaborative space (`--cf`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cf_mean_cosine_distance: Option<f64>,
    /// The items, in id order.
    pub items: Vec<GroupItem>,
}

/// Rows for `spreads` (already ordered), at most `top` of them.
pub fn spread_rows(
    index: &SidIndex,
    collisions: &Collisions,
    texts: Option<&ItemTexts>,
    spreads: &[GroupSpread],
    top: Option<usize>,
) -> Vec<SpreadRow> {
    spreads
        .iter()
        .take(top.unwrap_or(usize::MAX))
        .enumerate()
        .map(|(i, s)| {
            let items = collisions.items_in_id_order(index, s.group);
            SpreadRow {
                rank: i + 1,
                sid: sid::format_sid(index.codes(items[0] as usize)),
                size: items.len(),
                mean_cosine_distance: s.mean_cosine_distance,
                cf_mean_cosine_distance: s.cf_mean_cosine_distance,
                items: items
                    .iter()
                    .map(|&p| {
                        let id = index.id(p as usize).to_string();
                        let title = texts.and_then(|t| t.title(&id)).map(str::to_string);
                        GroupItem { id, title }
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The rows as a table: one line per item, group columns on the group's first line.
pub fn table(rows: &[SpreadRow]) -> Table {
    let with_cf = rows.iter().any(|r| r.cf_mean_cosine_distance.is_some());
    let mut columns = vec![
        ("#", Align::Right),
        ("size", Align::Right),
        ("SID", Align::Left),
        ("text dist", Align::Right),
    ];
    if with_cf {
        columns.push(("cf dist", Align::Right));
    }
    columns.extend([("item", Align::Right), ("title", Align::Left)]);
    let mut t = Table::new(&columns);
    for row in rows {
        for (i, item) in row.items.iter().enumerate() {
            let first = i == 0;
            let mut cells = vec![
                on_first_line(first, row.rank.to_string()),
                on_first_line(first, row.size.to_string()),
                on_first_line(first, row.sid.clone()),
                on_first_line(first, format!("{:.4}", row.mean_cosine_distance)),
            ];
            if with_cf {
                let cf = row
                    .cf_mean_cosine_distance
                    .map_or_else(String::new, |v| format!("{v:.4}"));
                cells.push(on_first_line(first, cf));
            }
            cells.push(item.id.clone());
            cells.push(item.title.clone().unwrap_or_default());
            t.push(cells);
        }
    }
    t
}

/// The rows for CSV: one line per item with its group's columns (distances unrounded) on
/// every line.
pub fn csv_table(rows: &[SpreadRow]) -> Table {
    let with_cf = rows.iter().any(|r| r.cf_mean_cosine_distance.is_some());
    let mut columns = vec![
        ("rank", Align::Right),
        ("size", Align::Right),
        ("SID", Align::Left),
        ("mean_cosine_distance", Align::Right),
    ];
    if with_cf {
        columns.push(("cf_mean_cosine_distance", Align::Right));
    }
    columns.extend([("item", Align::Right), ("title", Align::Left)]);
    let mut t = Table::new(&columns);
    for row in rows {
        for item in &row.items {
            let mut cells = vec![
                row.rank.to_string(),
                row.size.to_string(),
                row.sid.clone(),
                raw(Some(row.mean_cosine_distance)),
            ];
            if with_cf {
                cells.push(raw(row.cf_mean_cosine_distance));
            }
            cells.push(item.id.clone());
            cells.push(item.title.clone().unwrap_or_default());
            t.push(cells);
        }
    }
    t
}
