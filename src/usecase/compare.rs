//! Comparing tokenizers: each one's index and beams (one file per seed) loaded and evaluated,
//! then ranked at every K by Hit@K and by ItemHit@K (the paper's Table 4), with paired tests
//! between every pair of tokenizers on every compared metric.

use crate::collision::Collisions;
use crate::compare::{Comparison, Entry, rank};
use std::path::PathBuf;

use crate::collision::popularity::Popularity;
use crate::compare::pairwise::{PairTest, TestSettings, find, test_pairs};
use crate::compare::seeds::{SeededEvaluation, check_paired};
use crate::error::Result;
use crate::load::{Interactions, SidIndex, TokenizerFiles};
use crate::metrics::{Compat, Decode, DecodedValues, Decoder, Evaluator, Metric};
use crate::progress::{Progress, check_cancelled};
use crate::usecase::Tokenizer;

/// A comparison at several K with its paired tests.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareReport {
    /// One comparison per K, in the order asked.
    pub comparisons: Vec<Comparison>,
    /// Every pair on every compared metric at every K (empty when tests were not asked for
    /// or fewer than two tokenizers have beams).
    pub tests: Vec<PairTest>,
    /// How the tests ran (`None`: not asked for).
    pub settings: Option<TestSettings>,
    /// The alternative item-level credit beside CCE (`cce`: none).
    pub decode: Decode,
    /// Per comparison (K), per tokenizer: the decoded credit averaged over seeds (`None`
    /// without beams or with `cce`).
    pub decoded: Vec<Vec<Option<DecodedValues>>>,
    /// What a reader must know beside the numbers (tokenizers without beams and where their
    /// beams were looked for, K beyond a beam width, beams files that matched nothing),
    /// worded once here for every surface.
    pub warnings: Vec<String>,
}

impl CompareReport {
    /// Whether no tokenizer had beams, so there is nothing to rank (front ends fail then).
    pub fn nothing_evaluated(&self) -> bool {
        self.comparisons
            .iter()
            .all(|c| c.rows.iter().all(|r| r.values.is_none()))
    }
}

/// Loads and evaluates every tokenizer (all its beams files, one per seed) and ranks them at
/// each K; with `settings`, tests every pair and marks which flips are significant.
pub fn compare_tokenizers(
    tokenizers: &[TokenizerFiles],
    ks: &[usize],
    compat: Compat,
    codebook_size: Option<usize>,
    settings: Option<TestSettings>,
    progress: &dyn Progress,
) -> Result<CompareReport> {
    compare_tokenizers_decoded(
        tokenizers,
        ks,
        compat,
        codebook_size,
        settings,
        (Decode::Cce, None),
        progress,
    )
}

/// [`compare_tokenizers`] with an alternative item-level credit beside CCE: `decoding` is the
/// decoding and, for `popular`, the interactions whose training part gives the popularity.
pub fn compare_tokenizers_decoded(
    tokenizers: &[TokenizerFiles],
    ks: &[usize],
    compat: Compat,
    codebook_size: Option<usize>,
    settings: Option<TestSettings>,
    decoding: (Decode, Option<&Interactions>),
    progress: &dyn Progress,
) -> Result<CompareReport> {
    check_decoding(decoding)?;
    let opened = Tokenizer::open_all(tokenizers, compat, codebook_size, progress)?;
    let evaluated: Vec<EvaluatedTokenizer> = opened.iter().map(Tokenizer::as_evaluated).collect();
    compare_evaluated(&evaluated, ks, compat, settings, decoding, progress)
}

/// Popular decoding needs the interactions; said before any file is read.
fn check_decoding((decode, interactions): (Decode, Option<&Interactions>)) -> Result<()> {
    if decode.needs_popularity() && interactions.is_none() {
        return Err(crate::Error::Invalid(
            "popular decoding needs the interactions (their training part gives each item's popularity)".into(),
        ));
    }
    Ok(())
}

/// Every beams file of a tokenizer (one per seed) evaluated against its loaded index and
/// checked to cover the same users; `None` without beams.
pub fn evaluate_seeds(
    beams: &[PathBuf],
    index: &SidIndex,
    collisions: &Collisions,
    compat: Compat,
    progress: &dyn Progress,
) -> Result<Option<SeededEvaluation>> {
    if beams.is_empty() {
        return Ok(None);
    }
    let mut evaluations = Vec::with_capacity(beams.len());
    for file in beams {
        evaluations.push(Evaluator::new(index, collisions, compat).evaluate_file(file, progress)?);
    }
    SeededEvaluation::new(beams.to_vec(), evaluations).map(Some)
}

/// One tokenizer already loaded and evaluated, as [`compare_evaluated`] takes it (front ends
/// that keep their evaluations, like the TUI and the HTML report, compare without re-reading).
#[derive(Debug, Clone, Copy)]
pub struct EvaluatedTokenizer<'a> {
    /// The tokenizer's name.
    pub name: &'a str,
    /// Its SID index.
    pub index: &'a SidIndex,
    /// Its collision groups.
    pub collisions: &'a Collisions,
    /// Its seeds' evaluations (`None`: no beams).
    pub seeds: Option<&'a SeededEvaluation>,
    /// Its files, when known: a tokenizer whose files name no beams gets the warning that
    /// says where they were looked for (one still being evaluated gets none).
    pub files: Option<&'a TokenizerFiles>,
}

/// [`compare_tokenizers_decoded`] on tokenizers already evaluated: ranks them at each K and,
/// with `settings`, tests every pair (progress counts the pairs tested; cancellable between
/// metrics).
pub fn compare_evaluated(
    tokenizers: &[EvaluatedTokenizer],
    ks: &[usize],
    compat: Compat,
    settings: Option<TestSettings>,
    decoding: (Decode, Option<&Interactions>),
    progress: &dyn Progress,
) -> Result<CompareReport> {
    check_decoding(decoding)?;
    let (decode, interactions) = decoding;
    let mut decoded = vec![Vec::with_capacity(tokenizers.len()); ks.len()];
    let mut loaded = Vec::with_capacity(tokenizers.len());
    for run in tokenizers {
        let (index, collisions, seeds) = (run.index, run.collisions, run.seeds);
        let popularity = interactions.map(|i| Popularity::training(index, i));
        let decoder = Decoder::new(decode, index, collisions, popularity.as_ref());
        for (i, &k) in ks.iter().enumerate() {
            decoded[i].push(seeds.zip(decoder.as_ref()).map(|(s, d)| {
                let n = s.evaluations.len() as f64;
                let mut mean = DecodedValues::default();
                for e in &s.evaluations {
                    let v = d.summarize(&e.outcomes, &[k]).values[0];
                    mean.hit += v.hit / n;
                    mean.ndcg += v.ndcg / n;
                    mean.mrr += v.mrr / n;
                }
                mean
            }));
        }
        let targets: Vec<Option<String>> = seeds.map_or_else(Vec::new, |s| {
            s.first()
                .outcomes
                .iter()
                .map(|o| o.target_item.map(|p| index.id(p as usize).to_string()))
                .collect()
        });
        loaded.push((run, collisions, seeds, targets));
    }
    let comparisons: Vec<Comparison> = ks
        .iter()
        .map(|&k| {
            let entries = loaded
                .iter()
                .map(|(run, collisions, seeds, _)| {
                    let mut entry = Entry::new(run.name, collisions, None, k);
                    if let Some(s) = seeds {
                        let (mean, std) = s.at(k);
                        entry.evaluated = Some((s.n_users() as u64, mean));
                        entry.std = std;
                        entry.n_seeds = s.n_seeds();
                        entry.beam_width = s.list_width();
                    }
                    entry
                })
                .collect();
            rank(entries, k, compat)
        })
        .collect();
    let evaluated: Vec<_> = loaded
        .iter()
        .filter_map(|(run, _, seeds, targets)| seeds.map(|s| (run.name, s, targets)))
        .collect();
    let mut warnings: Vec<String> = tokenizers
        .iter()
        .filter(|t| t.seeds.is_none())
        .filter_map(|t| t.files.filter(|f| f.beams.is_empty()))
        .map(TokenizerFiles::no_beams_warning)
        .collect();
    for w in comparisons.iter().flat_map(|c| &c.warnings) {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    let mut report = CompareReport {
        comparisons,
        tests: Vec::new(),
        settings,
        decode,
        decoded,
        warnings,
    };
    let Some(settings) = settings.filter(|_| evaluated.len() >= 2) else {
        return Ok(report);
    };
    fn ids(t: &[Option<String>]) -> Vec<Option<&str>> {
        t.iter().map(Option::as_deref).collect()
    }
    let (first, _, first_targets) = evaluated[0];
    for (name, _, targets) in &evaluated[1..] {
        check_paired((first, &ids(first_targets)), (name, &ids(targets)))?;
    }
    let pairs = evaluated.len() * (evaluated.len() - 1) / 2;
    progress.stage(
        "paired tests",
        (ks.len() * Metric::COMPARED.len() * pairs) as u64,
    );
    for &k in ks {
        for metric in Metric::COMPARED {
            check_cancelled(progress)?;
            let samples: Vec<(&str, Vec<f64>)> = evaluated
                .iter()
                .map(|(name, s, _)| (*name, s.per_user(metric, k)))
                .collect();
            report
                .tests
                .extend(test_pairs(&metric.at(k), &samples, settings));
            progress.advance(pairs as u64);
        }
    }
    for c in &mut report.comparisons {
        let (hit, ndcg) = (Metric::ItemHit.at(c.k), Metric::ItemNdcg.at(c.k));
        for f in &mut c.flips {
            f.significant = find(&report.tests, &f.higher_by_hit, &f.higher_by_item_hit, &hit)
                .is_some_and(|t| t.significant);
        }
        for f in &mut c.ndcg_flips {
            f.significant = find(
                &report.tests,
                &f.higher_by_ndcg,
                &f.higher_by_item_ndcg,
                &ndcg,
            )
            .is_some_and(|t| t.significant);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::dataset::Dataset;

    #[test]
    fn reference_dataset_compares_every_variant() {
        let Some(root) = crate::load::dataset::reference_for_tests() else {
            return;
        };
        let ds = Dataset::discover(
            &root.join("CollisionGenRec/data/Scientific"),
            Some(&root.join("beams/Scientific")),
        )
        .unwrap();
        let runs: Vec<TokenizerFiles> = ds
            .tokenizers()
            .into_iter()
            .filter(|r| r.name.starts_with("rkmeans"))
            .collect();
        let report = compare_tokenizers(
            &runs,
            &[10],
            Compat::Faithful,
            None,
            Some(TestSettings::default()),
            &crate::progress::NoProgress,
        )
        .unwrap();
        let c = &report.comparisons[0];
        let native = &c.rows[0];
        assert_eq!(native.name, "rkmeans_native");
        assert!((native.collision_rate - 0.3052486187845304).abs() < 1e-15);
        let v = native.values.unwrap();
        assert!((v.hit - 0.1533004689190814).abs() < 1e-12);
        assert!((v.item_hit - 0.08544733045633947).abs() < 1e-12);
        assert_eq!((native.g_max, native.n_seeds, native.std), (26, 1, None));
        let index = SidIndex::load(&runs[0].index, None).unwrap();
        let collisions = Collisions::new(&index);
        let evaluation = Evaluator::new(&index, &collisions, Compat::Faithful)
            .evaluate_file(runs[0].beams_file().unwrap(), &crate::progress::NoProgress)
            .unwrap();
        let entry = Entry::new("rkmeans_native", &collisions, Some(&evaluation), 10);
        assert_eq!(entry.evaluated, Some((native.n_users.unwrap(), v)));
        let zcr_cf = c.rows.iter().find(|r| r.name == "rkmeans_zcr_cf").unwrap();
        assert_eq!((zcr_cf.values, zcr_cf.rank_hit), (None, None));
        // rkmeans_native vs rkmeans_zcr: one pair per metric, ItemHit@10 p as scipy gives it.
        assert_eq!(report.tests.len(), 4);
        let t = find(&report.tests, "rkmeans_native", "rkmeans_zcr", "ItemHit@10").unwrap();
        assert!((t.p_t - 2.0832392552809766e-10).abs() < 1e-17, "{t:?}");
        assert!(t.significant && t.diff < 0.0);
        assert!(c.flips.iter().all(|f| f.significant));
    }
}
