//! Paired tests between every pair of tokenizers on every compared metric, with the p-values
//! of each metric adjusted over its pairs, and which rank flips survive that adjustment.

use serde::Serialize;

use crate::compare::significance::{Correction, PairedOptions, paired, stream_of};

/// How the tests run and decide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TestSettings {
    /// Monte-Carlo sizes and seed.
    pub options: PairedOptions,
    /// Adjustment over the pairs of one metric.
    pub correction: Correction,
    /// A difference is significant when its adjusted p-value is below this.
    pub alpha: f64,
}

impl Default for TestSettings {
    fn default() -> Self {
        TestSettings {
            options: PairedOptions::default(),
            correction: Correction::Holm,
            alpha: 0.05,
        }
    }
}

/// One pair of tokenizers on one metric (`compare --json` `tests`; the keys are a contract).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairTest {
    /// The first tokenizer.
    pub a: String,
    /// The second tokenizer.
    pub b: String,
    /// The metric with its K, like `ItemHit@10`.
    pub metric: String,
    /// Users paired.
    pub n_users: usize,
    /// Mean of `a` (over users, of the per-user means over seeds).
    pub mean_a: f64,
    /// Mean of `b`.
    pub mean_b: f64,
    /// mean_a − mean_b.
    pub diff: f64,
    /// Paired t-test, two-sided.
    pub p_t: f64,
    /// Sign-flip randomization test, two-sided (null when `--permutations 0`).
    pub p_randomization: Option<f64>,
    /// 95 % paired bootstrap interval of the difference (null when `--bootstrap 0`).
    pub ci95: Option<[f64; 2]>,
    /// `p_t` adjusted over every pair of this metric.
    pub p_adjusted: f64,
    /// `p_adjusted < alpha`.
    pub significant: bool,
}

/// Tests every pair (in the order given: a before b) of `samples` — per tokenizer its name and
/// one value per user of `metric` — and adjusts the p-values over those pairs.
pub fn test_pairs(
    metric: &str,
    samples: &[(&str, Vec<f64>)],
    settings: TestSettings,
) -> Vec<PairTest> {
    let mut tests = Vec::new();
    for i in 0..samples.len() {
        for j in i + 1..samples.len() {
            let (a, b) = (&samples[i], &samples[j]);
            let stream = stream_of(&format!("{}|{}|{metric}", a.0, b.0));
            let r = paired(&a.1, &b.1, settings.options, stream);
            tests.push(PairTest {
                a: a.0.to_string(),
                b: b.0.to_string(),
                metric: metric.to_string(),
                n_users: r.n_users,
                mean_a: r.mean_a,
                mean_b: r.mean_b,
                diff: r.diff,
                p_t: r.p_t,
                p_randomization: r.p_randomization,
                ci95: r.ci95,
                p_adjusted: r.p_t,
                significant: false,
            });
        }
    }
    let raw: Vec<f64> = tests.iter().map(|t| t.p_t).collect();
    for (t, p) in tests.iter_mut().zip(settings.correction.adjust(&raw)) {
        t.p_adjusted = p;
        t.significant = p < settings.alpha;
    }
    tests
}

/// The test of `a` against `b` (either order) on `metric`, if there is one.
pub fn find<'a>(tests: &'a [PairTest], a: &str, b: &str, metric: &str) -> Option<&'a PairTest> {
    tests
        .iter()
        .find(|t| t.metric == metric && ((t.a == a && t.b == b) || (t.a == b && t.b == a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_once_with_holm_over_the_family() {
        let n = 400;
        let strong: Vec<f64> = (0..n).map(|u| f64::from(u8::from(u % 2 == 0))).collect();
        let weak: Vec<f64> = (0..n).map(|u| f64::from(u8::from(u % 5 == 0))).collect();
        let samples = [("x", strong.clone()), ("y", weak), ("z", strong)];
        let tests = test_pairs("Hit@10", &samples, TestSettings::default());
        let pairs: Vec<(&str, &str)> = tests.iter().map(|t| (t.a.as_str(), t.b.as_str())).collect();
        assert_eq!(pairs, [("x", "y"), ("x", "z"), ("y", "z")]);
        let xz = find(&tests, "z", "x", "Hit@10").unwrap();
        assert_eq!(
            (xz.diff, xz.p_t, xz.p_adjusted, xz.significant),
            (0.0, 1.0, 1.0, false)
        );
        let xy = &tests[0];
        assert!((xy.diff - 0.3).abs() < 1e-12 && xy.significant);
        let raw: Vec<f64> = tests.iter().map(|t| t.p_t).collect();
        let holm = Correction::Holm.adjust(&raw);
        assert_eq!(tests.iter().map(|t| t.p_adjusted).collect::<Vec<_>>(), holm);
        assert!(find(&tests, "x", "y", "ItemHit@10").is_none());
    }
}
