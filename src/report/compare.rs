//! The `compare` report: one row per tokenizer (collision rate, g_max, Hit@K, ItemHit@K,
//! NDCG@K, ItemNDCG@K, inflation, both ranks), the rank flips, and `compare --json`.

use serde::Serialize;

use super::eval::MetricMap;
use super::{Align, Table, metric, percent, signed_percent};
use crate::compare::{Comparison, Flip, Row};
use crate::metrics::Compat;

/// Shown where a tokenizer has no beams.
const MISSING: &str = "-";

/// The comparison as a table, rows in the order given.
pub fn table(c: &Comparison) -> Table {
    let k = c.k;
    let mut t = Table::new(&[
        ("tokenizer", Align::Left),
        ("collision rate", Align::Right),
        ("g_max", Align::Right),
        (&format!("Hit@{k}"), Align::Right),
        (&format!("ItemHit@{k}"), Align::Right),
        (&format!("NDCG@{k}"), Align::Right),
        (&format!("ItemNDCG@{k}"), Align::Right),
        ("inflation", Align::Right),
        ("rank Hit", Align::Right),
        ("rank ItemHit", Align::Right),
    ]);
    for r in &c.rows {
        let cell = |f: fn(&crate::metrics::MetricValues) -> f64| {
            r.values
                .as_ref()
                .map_or(MISSING.to_string(), |v| metric(f(v)))
        };
        let rank = |v: Option<usize>| v.map_or(MISSING.to_string(), |r| r.to_string());
        t.push(vec![
            r.name.clone(),
            percent(r.collision_rate),
            r.g_max.to_string(),
            cell(|v| v.hit),
            cell(|v| v.item_hit),
            cell(|v| v.ndcg),
            cell(|v| v.item_ndcg),
            if r.values.is_some() {
                signed_percent(r.inflation_pct)
            } else {
                MISSING.to_string()
            },
            rank(r.rank_hit),
            rank(r.rank_item_hit),
        ]);
    }
    t
}

/// One sentence per rank flip, e.g. `a ranks above b by Hit@10 but below it by ItemHit@10`.
pub fn flip_lines(c: &Comparison) -> Vec<String> {
    c.flips
        .iter()
        .map(|f| {
            format!(
                "{} ranks above {} by Hit@{k} but below it by ItemHit@{k}",
                f.higher_by_hit,
                f.higher_by_item_hit,
                k = c.k
            )
        })
        .collect()
}

/// The `sidlens compare --json` document.
#[derive(Serialize)]
pub struct CompareJson<'a> {
    /// The cut-off.
    pub k: usize,
    /// `faithful` or `cce-py`.
    pub compat: Compat,
    /// One object per tokenizer.
    pub rows: Vec<RowJson<'a>>,
    /// Pairs ranked in opposite orders by Hit@K and ItemHit@K.
    pub flips: &'a [Flip],
}

/// One tokenizer in `compare --json`.
#[derive(Serialize)]
pub struct RowJson<'a> {
    /// The tokenizer's name.
    pub name: &'a str,
    /// Items in collision groups / items.
    pub collision_rate: f64,
    /// The largest collision group.
    pub g_max: usize,
    /// Users evaluated, or null without beams.
    pub n_users: Option<u64>,
    /// `"Hit@K"`, `"NDCG@K"`, `"ItemHit@K"`, `"ItemNDCG@K"`, or null without beams.
    pub metrics: Option<MetricMap>,
    /// (Hit − ItemHit) / ItemHit · 100, or null.
    pub inflation_pct: Option<f64>,
    /// Rank by Hit@K (1 = best), or null.
    pub rank_hit: Option<usize>,
    /// Rank by ItemHit@K, or null.
    pub rank_item_hit: Option<usize>,
}

impl<'a> CompareJson<'a> {
    /// Builds the document.
    pub fn new(c: &'a Comparison) -> Self {
        let row = |r: &'a Row| RowJson {
            name: &r.name,
            collision_rate: r.collision_rate,
            g_max: r.g_max,
            n_users: r.n_users,
            metrics: r.values.map(|v| {
                MetricMap(
                    v.named()
                        .iter()
                        .map(|(name, value)| (format!("{name}@{}", c.k), Some(*value)))
                        .collect(),
                )
            }),
            inflation_pct: r.inflation_pct,
            rank_hit: r.rank_hit,
            rank_item_hit: r.rank_item_hit,
        };
        CompareJson {
            k: c.k,
            compat: c.compat,
            rows: c.rows.iter().map(row).collect(),
            flips: &c.flips,
        }
    }
}

/// Row positions of `c` ordered by column `column` of [`table`] (0 = tokenizer name, compared
/// as text; the others by value, missing values last), best first when `descending`.
pub fn order_by(c: &Comparison, column: usize, descending: bool) -> Vec<usize> {
    let value = |r: &crate::compare::Row| -> Option<f64> {
        let v = r.values.as_ref();
        match column {
            1 => Some(r.collision_rate),
            2 => Some(r.g_max as f64),
            3 => v.map(|v| v.hit),
            4 => v.map(|v| v.item_hit),
            5 => v.map(|v| v.ndcg),
            6 => v.map(|v| v.item_ndcg),
            7 => r.inflation_pct,
            8 => r.rank_hit.map(|x| x as f64),
            9 => r.rank_item_hit.map(|x| x as f64),
            _ => None,
        }
    };
    let mut order: Vec<usize> = (0..c.rows.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&c.rows[a], &c.rows[b]);
        let by = if column == 0 {
            ra.name.cmp(&rb.name)
        } else {
            match (value(ra), value(rb)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => return std::cmp::Ordering::Less,
                (None, Some(_)) => return std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        };
        if descending { by.reverse() } else { by }
    });
    order
}
