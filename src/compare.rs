//! Tokenizers side by side (the paper's Table 4): collision rate, g_max, Hit@K against
//! ItemHit@K, each tokenizer's rank by both, and the pairs whose order flips between them.

use serde::Serialize;

use crate::collision::Collisions;
use crate::metrics::{Compat, Evaluation, MetricValues};

/// What is known of one tokenizer at one K, before ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The tokenizer's name.
    pub name: String,
    /// Items in collision groups / items.
    pub collision_rate: f64,
    /// The largest collision group.
    pub g_max: usize,
    /// Users evaluated, and their mean metrics at K; `None` without beams.
    pub evaluated: Option<(u64, MetricValues)>,
}

impl Entry {
    /// The entry of a tokenizer grouped as `collisions`, with its beams' evaluation when there
    /// is one (what a front end holding evaluations re-ranks at each K).
    pub fn new(
        name: &str,
        collisions: &Collisions,
        evaluation: Option<&Evaluation>,
        k: usize,
    ) -> Entry {
        Entry {
            name: name.to_string(),
            collision_rate: collisions.collision_rate(),
            g_max: (0..collisions.n_groups() as u32)
                .map(|g| collisions.size(g) as usize)
                .max()
                .unwrap_or(0),
            evaluated: evaluation.map(|e| (e.n_users() as u64, e.at(k))),
        }
    }
}

/// One row of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The tokenizer's name.
    pub name: String,
    /// Items in collision groups / items.
    pub collision_rate: f64,
    /// The largest collision group.
    pub g_max: usize,
    /// Users evaluated (`None` without beams).
    pub n_users: Option<u64>,
    /// Mean Hit, NDCG, ItemHit, ItemNDCG at K (`None` without beams).
    pub values: Option<MetricValues>,
    /// (Hit − ItemHit) / ItemHit · 100 at K.
    pub inflation_pct: Option<f64>,
    /// Rank by Hit@K among the evaluated tokenizers (1 = best; ties share a rank).
    pub rank_hit: Option<usize>,
    /// Rank by ItemHit@K.
    pub rank_item_hit: Option<usize>,
}

/// Two tokenizers whose order by Hit@K is the reverse of their order by ItemHit@K.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Flip {
    /// Ahead by SID-level Hit@K.
    pub higher_by_hit: String,
    /// Ahead by item-level ItemHit@K.
    pub higher_by_item_hit: String,
}

/// The comparison at one K.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The cut-off.
    pub k: usize,
    /// Semantics of the metrics.
    pub compat: Compat,
    /// One row per tokenizer, in the order given.
    pub rows: Vec<Row>,
    /// Every pair whose order flips between Hit@K and ItemHit@K.
    pub flips: Vec<Flip>,
}

/// Ranks entries by Hit@K and by ItemHit@K and finds the flips (pure, so a front end that
/// already holds evaluations can re-rank at any K instantly).
pub fn rank(entries: Vec<Entry>, k: usize, compat: Compat) -> Comparison {
    let hits: Vec<Option<f64>> = entries
        .iter()
        .map(|e| e.evaluated.map(|(_, v)| v.hit))
        .collect();
    let item_hits: Vec<Option<f64>> = entries
        .iter()
        .map(|e| e.evaluated.map(|(_, v)| v.item_hit))
        .collect();
    let mut flips = Vec::new();
    for a in 0..entries.len() {
        for b in 0..entries.len() {
            if let (Some(ha), Some(hb), Some(ia), Some(ib)) =
                (hits[a], hits[b], item_hits[a], item_hits[b])
                && ha > hb
                && ia < ib
            {
                flips.push(Flip {
                    higher_by_hit: entries[a].name.clone(),
                    higher_by_item_hit: entries[b].name.clone(),
                });
            }
        }
    }
    let rows = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| Row {
            collision_rate: e.collision_rate,
            g_max: e.g_max,
            n_users: e.evaluated.map(|(n, _)| n),
            values: e.evaluated.map(|(_, v)| v),
            inflation_pct: e.evaluated.and_then(|(_, v)| v.hit_inflation_pct()),
            rank_hit: competition_rank(&hits, i),
            rank_item_hit: competition_rank(&item_hits, i),
            name: e.name,
        })
        .collect();
    Comparison {
        k,
        compat,
        rows,
        flips,
    }
}

/// 1 + how many values are strictly higher (ties share a rank), or `None` without a value.
fn competition_rank(values: &[Option<f64>], i: usize) -> Option<usize> {
    let v = values[i]?;
    Some(1 + values.iter().flatten().filter(|&&o| o > v).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, hit_item: Option<(f64, f64)>) -> Entry {
        Entry {
            name: name.into(),
            collision_rate: 0.1,
            g_max: 2,
            evaluated: hit_item.map(|(hit, item_hit)| {
                (
                    10,
                    MetricValues {
                        hit,
                        item_hit,
                        ..MetricValues::default()
                    },
                )
            }),
        }
    }

    #[test]
    fn ranks_share_ties_and_flips_are_found() {
        let c = rank(
            vec![
                entry("a", Some((0.30, 0.10))),
                entry("b", Some((0.20, 0.15))),
                entry("c", Some((0.20, 0.20))),
                entry("d", None),
            ],
            10,
            Compat::Faithful,
        );
        let ranks: Vec<_> = c
            .rows
            .iter()
            .map(|r| (r.rank_hit, r.rank_item_hit))
            .collect();
        assert_eq!(
            ranks,
            [
                (Some(1), Some(3)),
                (Some(2), Some(2)),
                (Some(2), Some(1)),
                (None, None)
            ]
        );
        let flips: Vec<(&str, &str)> = c
            .flips
            .iter()
            .map(|f| (f.higher_by_hit.as_str(), f.higher_by_item_hit.as_str()))
            .collect();
        assert_eq!(flips, [("a", "b"), ("a", "c")]);
        assert!((c.rows[0].inflation_pct.unwrap() - 200.0).abs() < 1e-9);
        assert_eq!(c.rows[3].values, None);
    }
}
