//! The aggregates the paper's `model/test.py` writes as `results/<DS>/<VARIANT>.json`
//! (`metadata.zcr_mode`, `results` with `ItemHit@K`, `ItemNDCG@K`, `hit@K`, `ndcg@K`,
//! `collision_rate`, `total`), read to be shown beside sidlens's recomputation and checked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Place, Result};
use crate::metrics::EvalSummary;

/// What one `<VARIANT>.json` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaperResults {
    /// The file.
    pub path: PathBuf,
    /// `metadata.zcr_mode` (`optimal`, `greedy`, `none` or `unknown`).
    pub zcr_mode: Option<String>,
    /// Metrics by sidlens's names (`Hit@10`, `NDCG@10`, `ItemHit@10`, `ItemNDCG@10`).
    pub metrics: BTreeMap<String, f64>,
    /// The collision rate it reports.
    pub collision_rate: Option<f64>,
    /// The number of test users it evaluated.
    pub total: Option<u64>,
}

/// One reported value that sidlens's recomputation does not reproduce.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    /// `Hit@10`, `collision_rate`, `users`, …
    pub metric: String,
    /// What the file reports.
    pub reported: f64,
    /// What sidlens computes from the beams.
    pub computed: f64,
}

/// Relative tolerance for a reported value to count as reproduced (the reference sums in
/// another order, in float64).
pub const TOLERANCE: f64 = 1e-9;

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    metadata: Option<Metadata>,
    results: BTreeMap<String, f64>,
    #[serde(default)]
    collision_rate: Option<f64>,
    #[serde(default)]
    total: Option<u64>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    zcr_mode: Option<String>,
}

impl PaperResults {
    /// Reads `<VARIANT>.json`.
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let file: File = serde_json::from_slice(&bytes).map_err(|e| {
            Error::data(
                path,
                Place::File,
                format!("is not the paper's test.py results ({e})"),
            )
        })?;
        let metrics = file
            .results
            .into_iter()
            .filter_map(|(k, v)| Some((canonical_metric(&k)?, v)))
            .collect();
        Ok(PaperResults {
            path: path.to_path_buf(),
            zcr_mode: file.metadata.and_then(|m| m.zcr_mode),
            metrics,
            collision_rate: file.collision_rate,
            total: file.total,
        })
    }

    /// The reported values `summary` (and the index's `collision_rate`) do not reproduce
    /// within [`TOLERANCE`]; metrics at a K the summary lacks are not checked.
    pub fn disagreements(&self, summary: &EvalSummary, collision_rate: f64) -> Vec<Disagreement> {
        let mut out = Vec::new();
        let mut check = |metric: String, reported: f64, computed: f64| {
            let scale = reported.abs().max(computed.abs()).max(1e-300);
            if (reported - computed).abs() / scale > TOLERANCE {
                out.push(Disagreement {
                    metric,
                    reported,
                    computed,
                });
            }
        };
        for (name, &reported) in &self.metrics {
            let Some((kind, k)) = name.split_once('@') else {
                continue;
            };
            let Some(at) = k
                .parse::<usize>()
                .ok()
                .and_then(|k| summary.ks.iter().position(|&x| x == k))
            else {
                continue;
            };
            let v = &summary.values[at];
            let computed = match kind {
                "Hit" => v.hit,
                "NDCG" => v.ndcg,
                "ItemHit" => v.item_hit,
                "ItemNDCG" => v.item_ndcg,
                _ => continue,
            };
            check(name.clone(), reported, computed);
        }
        if let Some(r) = self.collision_rate {
            check("collision_rate".into(), r, collision_rate);
        }
        if let Some(t) = self.total {
            check("users".into(), t as f64, summary.n_users as f64);
        }
        out
    }

    /// The K values the file reports metrics at.
    pub fn ks(&self) -> Vec<usize> {
        let mut ks: Vec<usize> = self
            .metrics
            .keys()
            .filter_map(|m| m.split_once('@')?.1.parse().ok())
            .collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    }
}

/// sidlens's name of a `test.py` metric key (`hit@10` → `Hit@10`; `ItemHit@10` stays).
fn canonical_metric(key: &str) -> Option<String> {
    let (kind, k) = key.split_once('@')?;
    let kind = match kind.to_ascii_lowercase().as_str() {
        "hit" => "Hit",
        "ndcg" => "NDCG",
        "itemhit" => "ItemHit",
        "itemndcg" => "ItemNDCG",
        _ => return None,
    };
    k.parse::<usize>().ok()?;
    Some(format!("{kind}@{k}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{Compat, MetricValues};

    #[test]
    fn reads_test_py_results_and_finds_disagreements() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rk.json");
        std::fs::write(
            &path,
            r#"{"metadata": {"zcr_mode": "optimal", "index_file": "x", "dataset": "D"},
                "results": {"ItemHit@5": 0.25, "ItemNDCG@5": 0.125, "hit@5": 0.5, "ndcg@5": 0.3},
                "collision_rate": 0.1, "n_collision_groups": 3, "g_max": 2, "total": 4}"#,
        )
        .unwrap();
        let r = PaperResults::load(&path).unwrap();
        assert_eq!(r.zcr_mode.as_deref(), Some("optimal"));
        assert_eq!(r.ks(), vec![5]);
        assert_eq!(r.metrics["Hit@5"], 0.5);
        let summary = EvalSummary {
            compat: Compat::Faithful,
            n_users: 4,
            ks: vec![5, 10],
            values: vec![
                MetricValues {
                    hit: 0.5,
                    ndcg: 0.3,
                    item_hit: 0.25,
                    item_ndcg: 0.2,
                    ..MetricValues::default()
                },
                MetricValues::default(),
            ],
            prefix_hits: Vec::new(),
            anomalies: Default::default(),
            groups: Vec::new(),
            list_width: 0,
        };
        let d = r.disagreements(&summary, 0.1);
        assert_eq!(
            d,
            vec![Disagreement {
                metric: "ItemNDCG@5".into(),
                reported: 0.125,
                computed: 0.2
            }]
        );
        std::fs::write(&path, "[1]").unwrap();
        let err = PaperResults::load(&path).unwrap_err().to_string();
        assert!(err.contains("is not the paper's test.py results"), "{err}");
    }
}
