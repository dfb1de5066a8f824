//! One tokenizer evaluated on several beams files, one per generator seed: every metric is the
//! mean over seeds with its sample standard deviation, and each user's value is averaged over
//! seeds before paired tests. Seeds must cover the same users in the same order.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::metrics::{Evaluation, Metric, MetricValues, UserOutcome};

/// The evaluations of one tokenizer's seeds, checked to cover the same users.
#[derive(Debug, Clone)]
pub struct SeededEvaluation {
    /// The beams files, one per seed.
    pub files: Vec<PathBuf>,
    /// Their evaluations, in the same order.
    pub evaluations: Vec<Evaluation>,
}

impl SeededEvaluation {
    /// Pairs files with their evaluations; every seed must have as many users as the first and,
    /// record by record, the same target (item, or SID group without an item).
    pub fn new(files: Vec<PathBuf>, evaluations: Vec<Evaluation>) -> Result<Self> {
        assert_eq!(files.len(), evaluations.len());
        assert!(
            !evaluations.is_empty(),
            "a tokenizer needs at least one beams file"
        );
        let first = &evaluations[0];
        for (file, e) in files.iter().zip(&evaluations).skip(1) {
            if e.n_users() != first.n_users() {
                return Err(Error::Invalid(format!(
                    "{} has {} users but {} has {}: seeds of one tokenizer must cover the same users",
                    file.display(),
                    e.n_users(),
                    files[0].display(),
                    first.n_users()
                )));
            }
            let differs = |(a, b): (&UserOutcome, &UserOutcome)| {
                (a.target_item, a.target_group) != (b.target_item, b.target_group)
            };
            if let Some(r) = first.outcomes.iter().zip(&e.outcomes).position(differs) {
                return Err(Error::Invalid(format!(
                    "{}: record {} has another target than record {} of {}: seeds of one \
                     tokenizer must list the same users in the same order",
                    file.display(),
                    r + 1,
                    r + 1,
                    files[0].display()
                )));
            }
        }
        Ok(SeededEvaluation { files, evaluations })
    }

    /// Seeds evaluated.
    pub fn n_seeds(&self) -> usize {
        self.evaluations.len()
    }

    /// Users (the same in every seed).
    pub fn n_users(&self) -> usize {
        self.evaluations[0].n_users()
    }

    /// Every user's outcome in the first seed (targets are the same in all).
    pub fn first(&self) -> &Evaluation {
        &self.evaluations[0]
    }

    /// The longest beam list of any seed.
    pub fn list_width(&self) -> usize {
        self.evaluations
            .iter()
            .map(|e| e.list_width)
            .max()
            .unwrap_or(0)
    }

    /// Mean over seeds of the mean metrics at `k`, and their sample standard deviation
    /// (ddof = 1; `None` with a single seed).
    pub fn at(&self, k: usize) -> (MetricValues, Option<MetricValues>) {
        let per_seed: Vec<MetricValues> = self.evaluations.iter().map(|e| e.at(k)).collect();
        let fields = |v: &MetricValues| v.named().map(|(_, x)| x);
        let columns: Vec<[f64; 6]> = per_seed.iter().map(fields).collect();
        let s = columns.len() as f64;
        let mean: [f64; 6] = std::array::from_fn(|j| columns.iter().map(|c| c[j]).sum::<f64>() / s);
        let std = (columns.len() > 1).then(|| {
            std::array::from_fn(|j| {
                (columns
                    .iter()
                    .map(|c| (c[j] - mean[j]).powi(2))
                    .sum::<f64>()
                    / (s - 1.0))
                    .sqrt()
            })
        });
        (from_fields(mean), std.map(from_fields))
    }

    /// Each user's `metric` at `k`, averaged over seeds (what paired tests compare).
    pub fn per_user(&self, metric: Metric, k: usize) -> Vec<f64> {
        let s = self.n_seeds() as f64;
        (0..self.n_users())
            .map(|u| {
                self.evaluations
                    .iter()
                    .map(|e| metric.value(&e.outcomes[u], k))
                    .sum::<f64>()
                    / s
            })
            .collect()
    }
}

/// The inverse of [`MetricValues::named`].
fn from_fields(v: [f64; 6]) -> MetricValues {
    MetricValues {
        hit: v[0],
        ndcg: v[1],
        mrr: v[2],
        item_hit: v[3],
        item_ndcg: v[4],
        item_mrr: v[5],
    }
}

/// Checks that two tokenizers' users can be paired by position: the same count and, where
/// both records name a target item, the same item. `ids` give each user's target item id.
pub fn check_paired(a: (&str, &[Option<&str>]), b: (&str, &[Option<&str>])) -> Result<()> {
    if a.1.len() != b.1.len() {
        return Err(Error::Invalid(format!(
            "{} has {} users but {} has {}: paired tests need the same test users in the same order",
            a.0,
            a.1.len(),
            b.0,
            b.1.len()
        )));
    }
    let first =
        a.1.iter()
            .zip(b.1)
            .position(|(x, y)| matches!((x, y), (Some(x), Some(y)) if x != y));
    if let Some(r) = first {
        return Err(Error::Invalid(format!(
            "record {} targets item {} in {} but item {} in {}: paired tests need the same test \
             users in the same order",
            r + 1,
            a.1[r].unwrap_or_default(),
            a.0,
            b.1[r].unwrap_or_default(),
            b.0
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{Anomalies, Compat, ItemBlock};

    fn evaluation(ranks: &[Option<u32>]) -> Evaluation {
        Evaluation {
            compat: Compat::Faithful,
            outcomes: ranks
                .iter()
                .enumerate()
                .map(|(u, &r)| UserOutcome {
                    target_item: Some(u as u32),
                    target_group: Some(u as u32),
                    sid_rank: r,
                    item_block: r.map(|r| ItemBlock { before: r, size: 1 }),
                    ..UserOutcome::default()
                })
                .collect(),
            anomalies: Anomalies::default(),
            generated: Vec::new(),
            list_width: 20,
        }
    }

    #[test]
    fn means_and_sample_std_over_seeds() {
        let seeds = SeededEvaluation::new(
            vec!["s1".into(), "s2".into(), "s3".into()],
            vec![
                evaluation(&[Some(0), None, None, None]),
                evaluation(&[Some(0), Some(1), None, None]),
                evaluation(&[Some(0), Some(1), Some(0), None]),
            ],
        )
        .unwrap();
        // Hit@2 per seed: 0.25, 0.5, 0.75 → mean 0.5, sample std 0.25.
        let (mean, std) = seeds.at(2);
        assert!((mean.hit - 0.5).abs() < 1e-15 && (std.unwrap().hit - 0.25).abs() < 1e-15);
        assert_eq!(
            seeds.per_user(Metric::Hit, 2),
            vec![1.0, 2.0 / 3.0, 1.0 / 3.0, 0.0]
        );
        let one = SeededEvaluation::new(vec!["s".into()], vec![evaluation(&[Some(0)])]).unwrap();
        assert_eq!(one.at(1).1, None);
    }

    #[test]
    fn seeds_must_cover_the_same_users() {
        let err = SeededEvaluation::new(
            vec!["a.json".into(), "b.json".into()],
            vec![evaluation(&[None, None]), evaluation(&[None])],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("b.json has 1 users but a.json has 2"), "{err}");
        let mut other = evaluation(&[None, None, None]);
        other.outcomes[1].target_item = Some(9);
        let err = SeededEvaluation::new(
            vec!["a.json".into(), "b.json".into()],
            vec![evaluation(&[None, None, None]), other],
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("b.json: record 2 has another target than record 2 of a.json"),
            "{err}"
        );
    }

    #[test]
    fn pairing_names_the_first_record_that_differs() {
        let a = [Some("1"), Some("2"), None];
        assert!(check_paired(("x", &a), ("y", &[Some("1"), Some("2"), Some("7")])).is_ok());
        let err = check_paired(("x", &a), ("y", &[Some("1"), Some("3"), None]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("record 2 targets item 2 in x but item 3 in y"),
            "{err}"
        );
        let err = check_paired(("x", &a), ("y", &[None]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("x has 3 users but y has 1"), "{err}");
    }
}
