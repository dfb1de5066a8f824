//! `sidlens project` as JSON or a table: one row per projected item with its 2-D point and
//! the rank of its collision group among the highlighted ones.

use std::path::Path;

use serde::Serialize;

use super::{Align, Table};
use crate::projection::Method;

/// What `sidlens project --json` prints.
#[derive(Debug, Serialize)]
pub struct ProjectionJson<'a> {
    /// The embeddings file projected.
    pub embeddings: &'a Path,
    /// Its rows.
    pub total_rows: usize,
    /// How many were projected (a sample when fewer).
    pub projected: usize,
    /// How the points were computed.
    pub method: Method,
    /// The perplexity used (lowered for small samples).
    pub perplexity: f64,
    /// Seed of the sample and of the t-SNE start.
    pub seed: u64,
    /// `off`, `hit`, `stored` or `not-stored`.
    pub cache: &'static str,
    /// What was adjusted, in words.
    pub notes: &'a [String],
    /// The points.
    pub points: Vec<PointRow>,
}

/// One projected item.
#[derive(Debug, Serialize)]
pub struct PointRow {
    /// The item id (the row number when no index is given).
    pub id: String,
    /// Its embeddings row.
    pub row: usize,
    /// The 2-D point.
    pub x: f64,
    /// The 2-D point.
    pub y: f64,
    /// Rank of the item's collision group among the highlighted ones (1 = largest).
    pub group: Option<usize>,
}

/// The points as a table (CSV or text).
pub fn points_table(points: &[PointRow]) -> Table {
    let mut table = Table::new(&[
        ("id", Align::Left),
        ("row", Align::Right),
        ("x", Align::Right),
        ("y", Align::Right),
        ("group", Align::Right),
    ]);
    for p in points {
        table.push(vec![
            p.id.clone(),
            p.row.to_string(),
            format!("{:.4}", p.x),
            format!("{:.4}", p.y),
            p.group.map_or(String::new(), |g| g.to_string()),
        ]);
    }
    table
}
