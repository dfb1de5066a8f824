//! Paired significance tests between two tokenizers evaluated on the same users: the paired
//! t-test (as `scipy.stats.ttest_rel`), a sign-flip randomization test, a bootstrap confidence
//! interval of the mean difference, and Holm / Bonferroni adjustment over a family of pairs.
//! One file per role; every Monte-Carlo step is seeded through [`crate::numeric::random`].

mod bootstrap;
mod correction;
mod randomization;
mod ttest;

pub use bootstrap::bootstrap_ci;
pub use correction::Correction;
pub use randomization::sign_flip_p;
pub use ttest::{TTest, paired_t};

use serde::Serialize;

/// How many resamples the Monte-Carlo parts draw, and from which seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairedOptions {
    /// Random sign flips of the randomization test (0 = skip it).
    pub permutations: usize,
    /// Bootstrap resamples of the confidence interval (0 = skip it).
    pub bootstrap: usize,
    /// The user's seed; each test draws from its own stream under it.
    pub seed: u64,
}

impl Default for PairedOptions {
    fn default() -> Self {
        PairedOptions {
            permutations: 10_000,
            bootstrap: 10_000,
            seed: 42,
        }
    }
}

/// Everything the paired tests say about `a − b` on one metric.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairedResult {
    /// Users paired.
    pub n_users: usize,
    /// Mean of `a`.
    pub mean_a: f64,
    /// Mean of `b`.
    pub mean_b: f64,
    /// mean_a − mean_b (the mean of the per-user differences).
    pub diff: f64,
    /// The paired t statistic (±∞ when every difference is the same non-zero value).
    pub t: f64,
    /// Two-sided paired t-test p-value.
    pub p_t: f64,
    /// Two-sided sign-flip randomization p-value (`None` when skipped).
    pub p_randomization: Option<f64>,
    /// 95 % percentile bootstrap interval of the mean difference (`None` when skipped).
    pub ci95: Option<[f64; 2]>,
}

/// Runs every paired test on `a` and `b` (one value per user, same order). `stream` separates
/// this comparison's random numbers from every other's under the same seed (see
/// [`stream_of`]), so adding a tokenizer never changes another pair's p-values.
pub fn paired(a: &[f64], b: &[f64], options: PairedOptions, stream: u64) -> PairedResult {
    assert_eq!(
        a.len(),
        b.len(),
        "paired samples must have one value per user each"
    );
    let n = a.len();
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let t = paired_t(&d);
    PairedResult {
        n_users: n,
        mean_a: mean(a),
        mean_b: mean(b),
        diff: t.mean,
        t: t.t,
        p_t: t.p,
        p_randomization: (options.permutations > 0)
            .then(|| sign_flip_p(&d, options.permutations, options.seed, stream)),
        ci95: (options.bootstrap > 0).then(|| {
            bootstrap_ci(
                &d,
                0.95,
                options.bootstrap,
                options.seed,
                stream ^ BOOTSTRAP_STREAM,
            )
        }),
    }
}

/// Keeps the bootstrap's draws apart from the randomization test's under one stream.
const BOOTSTRAP_STREAM: u64 = 0xB005_7A4F;

/// A stable stream number for a label such as `"a|b|ItemHit@10"` (FNV-1a, then mixed).
pub fn stream_of(label: &str) -> u64 {
    let hash = label.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, byte| {
        (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3)
    });
    crate::numeric::random::mix64(hash)
}

/// Draws of one Monte-Carlo procedure are made in chunks of this many, each chunk from its own
/// stream, so the result is the same whatever the number of threads.
const CHUNK: usize = 250;

/// The generator of chunk `chunk` of the procedure seeded `seed` on stream `stream`.
fn chunk_rng(seed: u64, stream: u64, chunk: usize) -> crate::numeric::random::SeededRng {
    crate::numeric::random::SeededRng::for_stream(
        seed,
        crate::numeric::random::mix64(stream) ^ chunk as u64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_runs_are_not_different() {
        let a = [0.0, 1.0, 0.5, 0.25, 1.0];
        let r = paired(&a, &a, PairedOptions::default(), 1);
        assert_eq!((r.diff, r.t, r.p_t), (0.0, 0.0, 1.0));
        assert_eq!(r.p_randomization, Some(1.0));
        assert_eq!(r.ci95, Some([0.0, 0.0]));
        assert_eq!((r.mean_a, r.mean_b, r.n_users), (0.55, 0.55, 5));
    }

    #[test]
    fn a_single_user_gives_no_evidence() {
        let r = paired(&[1.0], &[0.0], PairedOptions::default(), 1);
        assert_eq!((r.n_users, r.diff, r.p_t), (1, 1.0, 1.0));
        assert_eq!(r.p_randomization, Some(1.0));
        assert_eq!(r.ci95, Some([1.0, 1.0]));
        let r = paired(&[], &[], PairedOptions::default(), 1);
        assert_eq!(
            (r.n_users, r.diff, r.p_t, r.p_randomization),
            (0, 0.0, 1.0, Some(1.0))
        );
    }

    #[test]
    fn skipped_parts_are_none_and_streams_are_stable() {
        let options = PairedOptions {
            permutations: 0,
            bootstrap: 0,
            seed: 1,
        };
        let r = paired(&[1.0, 0.0], &[0.0, 0.0], options, 3);
        assert_eq!((r.p_randomization, r.ci95), (None, None));
        assert_eq!(stream_of("a|b|Hit@10"), stream_of("a|b|Hit@10"));
        assert_ne!(stream_of("a|b|Hit@10"), stream_of("b|a|Hit@10"));
    }
}
