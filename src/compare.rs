//! Tokenizers side by side (the paper's Table 4): collision rate, g_max, Hit@K against
//! ItemHit@K, each tokenizer's rank by both, and the pairs whose order flips between them.

use std::path::PathBuf;

use serde::Serialize;

use crate::collision::Collisions;
use crate::error::Result;
use crate::load::SidIndex;
use crate::load::dataset::Dataset;
use crate::metrics::{Compat, Evaluation, Evaluator, MetricValues};
use crate::progress::{Progress, check_cancelled};

/// One tokenizer to compare: its index and, optionally, beams generated against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The name shown in the table.
    pub name: String,
    /// The SID index.
    pub index: PathBuf,
    /// Beam outputs; without them only the collision columns are filled.
    pub beams: Option<PathBuf>,
}

impl Run {
    /// One run per variant of a dataset directory (beams: the first file found).
    pub fn from_dataset(dataset: &Dataset) -> Vec<Run> {
        dataset
            .variants
            .iter()
            .map(|v| Run {
                name: v.name.clone(),
                index: v.index.clone(),
                beams: v.beams_file().map(PathBuf::from),
            })
            .collect()
    }
}

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

/// Loads and evaluates every run at K, then ranks them.
pub fn compare_runs(
    runs: &[Run],
    k: usize,
    compat: Compat,
    codebook_size: Option<usize>,
    progress: &dyn Progress,
) -> Result<Comparison> {
    let mut entries = Vec::with_capacity(runs.len());
    for run in runs {
        check_cancelled(progress)?;
        let index = SidIndex::load(&run.index, codebook_size)?;
        let collisions = Collisions::new(&index);
        let mut entry = Entry::new(&run.name, &collisions, None, k);
        if let Some(beams) = &run.beams {
            let mut ev = Evaluator::new(&index, &collisions, compat);
            let s = ev.summarize_file(beams, &[k], false, progress, |_, _| Ok(()))?;
            entry.evaluated = Some((s.n_users, s.values[0]));
        }
        entries.push(entry);
    }
    Ok(rank(entries, k, compat))
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

    #[test]
    fn reference_dataset_compares_every_variant() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
        if !root.is_dir() {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"skipping: ../shared/reference not found\n",
            );
            return;
        }
        let ds = Dataset::discover(
            &root.join("CollisionGenRec/data/Scientific"),
            Some(&root.join("beams/Scientific")),
        )
        .unwrap();
        let runs: Vec<Run> = Run::from_dataset(&ds)
            .into_iter()
            .filter(|r| r.name.starts_with("rkmeans"))
            .collect();
        let c = compare_runs(
            &runs,
            10,
            Compat::Faithful,
            None,
            &crate::progress::NoProgress,
        )
        .unwrap();
        let native = &c.rows[0];
        assert_eq!(native.name, "rkmeans_native");
        assert!((native.collision_rate - 0.3052486187845304).abs() < 1e-15);
        let v = native.values.unwrap();
        assert!((v.hit - 0.1533004689190814).abs() < 1e-12);
        assert!((v.item_hit - 0.08544733045633947).abs() < 1e-12);
        assert_eq!(native.g_max, 26);
        let index = SidIndex::load(&runs[0].index, None).unwrap();
        let collisions = Collisions::new(&index);
        let evaluation = Evaluator::new(&index, &collisions, Compat::Faithful)
            .evaluate_file(
                runs[0].beams.as_ref().unwrap(),
                &crate::progress::NoProgress,
            )
            .unwrap();
        let entry = Entry::new("rkmeans_native", &collisions, Some(&evaluation), 10);
        assert_eq!(entry.evaluated, Some((native.n_users.unwrap(), v)));
        let zcr_cf = c.rows.iter().find(|r| r.name == "rkmeans_zcr_cf").unwrap();
        assert_eq!((zcr_cf.values, zcr_cf.rank_hit), (None, None));
    }
}
