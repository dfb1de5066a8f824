//! Tokenizers side by side (the paper's Table 4): collision rate, g_max, Hit@K against
//! ItemHit@K, each tokenizer's rank by both, and the pairs whose order flips between them.

pub mod pairwise;
pub mod seeds;
pub mod significance;

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
    /// With several seeds: the sample standard deviation (ddof = 1) of each mean over seeds.
    pub std: Option<MetricValues>,
    /// Beams files (seeds) evaluated.
    pub n_seeds: usize,
    /// The longest beam list (0 without beams).
    pub beam_width: usize,
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
            std: None,
            n_seeds: usize::from(evaluation.is_some()),
            beam_width: evaluation.map_or(0, |e| e.list_width),
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
    /// Mean metrics at K, over users and then over seeds (`None` without beams).
    pub values: Option<MetricValues>,
    /// Their sample standard deviation over seeds (`None` with fewer than two seeds).
    pub std: Option<MetricValues>,
    /// Beams files (seeds) evaluated.
    pub n_seeds: usize,
    /// (Hit − ItemHit) / ItemHit · 100 at K.
    pub inflation_pct: Option<f64>,
    /// Rank by Hit@K among the evaluated tokenizers (1 = best; ties share a rank).
    pub rank_hit: Option<usize>,
    /// Rank by ItemHit@K.
    pub rank_item_hit: Option<usize>,
    /// The longest beam list (0 without beams).
    pub beam_width: usize,
}

/// Two tokenizers whose order by Hit@K is the reverse of their order by ItemHit@K.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Flip {
    /// Ahead by SID-level Hit@K.
    pub higher_by_hit: String,
    /// Ahead by item-level ItemHit@K.
    pub higher_by_item_hit: String,
    /// The item-level order of the pair is significant after correction (false until the
    /// paired tests have run).
    pub significant: bool,
}

/// Two tokenizers whose order by NDCG@K is the reverse of their order by ItemNDCG@K.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NdcgFlip {
    /// Ahead by SID-level NDCG@K.
    pub higher_by_ndcg: String,
    /// Ahead by item-level ItemNDCG@K.
    pub higher_by_item_ndcg: String,
    /// The ItemNDCG@K order of the pair is significant after correction.
    pub significant: bool,
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
    /// Every pair whose order flips between NDCG@K and ItemNDCG@K.
    pub ndcg_flips: Vec<NdcgFlip>,
    /// What makes these ranks misleading (K beyond some tokenizer's beam width), worded
    /// once for every surface.
    pub warnings: Vec<String>,
}

impl Comparison {
    /// Whether K exceeds some tokenizer's beam width, so its ranks are not comparable.
    pub fn beyond_beam_width(&self) -> bool {
        self.rows
            .iter()
            .any(|r| r.beam_width > 0 && self.k > r.beam_width)
    }
}

/// Ranks entries by Hit@K and by ItemHit@K and finds the flips (pure, so a front end that
/// already holds evaluations can re-rank at any K instantly).
pub fn rank(entries: Vec<Entry>, k: usize, compat: Compat) -> Comparison {
    let values = |f: fn(&MetricValues) -> f64| -> Vec<Option<f64>> {
        entries
            .iter()
            .map(|e| e.evaluated.map(|(_, v)| f(&v)))
            .collect()
    };
    let (hits, item_hits) = (values(|v| v.hit), values(|v| v.item_hit));
    let (ndcgs, item_ndcgs) = (values(|v| v.ndcg), values(|v| v.item_ndcg));
    let name = |i: usize| entries[i].name.clone();
    let widths: Vec<(&str, usize)> = entries
        .iter()
        .map(|e| (e.name.as_str(), e.beam_width))
        .collect();
    let warnings = crate::metrics::beyond_width_warning(k, &widths)
        .into_iter()
        .collect();
    let flips = reversed_pairs(&hits, &item_hits)
        .map(|(a, b)| Flip {
            higher_by_hit: name(a),
            higher_by_item_hit: name(b),
            significant: false,
        })
        .collect();
    let ndcg_flips = reversed_pairs(&ndcgs, &item_ndcgs)
        .map(|(a, b)| NdcgFlip {
            higher_by_ndcg: name(a),
            higher_by_item_ndcg: name(b),
            significant: false,
        })
        .collect();
    let rows = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| Row {
            collision_rate: e.collision_rate,
            g_max: e.g_max,
            n_users: e.evaluated.map(|(n, _)| n),
            values: e.evaluated.map(|(_, v)| v),
            std: e.std,
            n_seeds: e.n_seeds,
            inflation_pct: e.evaluated.and_then(|(_, v)| v.hit_inflation_pct()),
            rank_hit: competition_rank(&hits, i),
            rank_item_hit: competition_rank(&item_hits, i),
            beam_width: e.beam_width,
            name: e.name,
        })
        .collect();
    Comparison {
        k,
        compat,
        rows,
        flips,
        ndcg_flips,
        warnings,
    }
}

/// Pairs (a, b) with a ahead of b by `sid_level` but behind it by `item_level`.
fn reversed_pairs<'a>(
    sid_level: &'a [Option<f64>],
    item_level: &'a [Option<f64>],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let n = sid_level.len();
    (0..n).flat_map(move |a| {
        (0..n).filter_map(move |b| {
            match (sid_level[a], sid_level[b], item_level[a], item_level[b]) {
                (Some(sa), Some(sb), Some(ia), Some(ib)) if sa > sb && ia < ib => Some((a, b)),
                _ => None,
            }
        })
    })
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
                        ndcg: hit,
                        item_ndcg: item_hit,
                        ..MetricValues::default()
                    },
                )
            }),
            std: None,
            n_seeds: usize::from(hit_item.is_some()),
            beam_width: if hit_item.is_some() { 20 } else { 0 },
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
        let ndcg: Vec<(&str, &str)> = c
            .ndcg_flips
            .iter()
            .map(|f| (f.higher_by_ndcg.as_str(), f.higher_by_item_ndcg.as_str()))
            .collect();
        assert_eq!(ndcg, flips);
        assert!((c.rows[0].inflation_pct.unwrap() - 200.0).abs() < 1e-9);
        assert_eq!(c.rows[3].values, None);
    }
}
