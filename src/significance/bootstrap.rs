//! The paired bootstrap: users are resampled with replacement and the mean difference
//! recomputed; the interval is the percentile interval of those means.

use rayon::prelude::*;

use super::{CHUNK, chunk_rng};

/// The `level` (e.g. 0.95) percentile bootstrap interval of mean(d) from `resamples` seeded
/// resamples of the users; quantiles interpolate linearly between order statistics (numpy's
/// default). A single user, or identical differences, give the one-point interval.
pub fn bootstrap_ci(d: &[f64], level: f64, resamples: usize, seed: u64, stream: u64) -> [f64; 2] {
    let n = d.len();
    if n == 0 || resamples == 0 {
        return [0.0, 0.0];
    }
    if d.iter().all(|&x| x == d[0]) {
        return [d[0], d[0]];
    }
    let chunks = resamples.div_ceil(CHUNK);
    let mut means: Vec<f64> = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut rng = chunk_rng(seed, stream, c);
            let draws = CHUNK.min(resamples - c * CHUNK);
            (0..draws)
                .map(|_| (0..n).map(|_| d[rng.below(n)]).sum::<f64>() / n as f64)
                .collect::<Vec<_>>()
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    [quantile(&means, tail), quantile(&means, 1.0 - tail)]
}

/// The q-quantile of sorted values, linear between order statistics.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_brackets_the_mean_and_is_seeded() {
        let d: Vec<f64> = (0..300).map(|i| (i % 7) as f64 - 2.5).collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let ci = bootstrap_ci(&d, 0.95, 2_000, 5, 1);
        assert!(ci[0] < mean && mean < ci[1], "{ci:?} {mean}");
        assert_eq!(ci, bootstrap_ci(&d, 0.95, 2_000, 5, 1));
        assert_ne!(ci, bootstrap_ci(&d, 0.95, 2_000, 6, 1));
    }

    #[test]
    fn degenerate_samples_give_a_point() {
        assert_eq!(bootstrap_ci(&[0.0; 5], 0.95, 100, 1, 1), [0.0, 0.0]);
        assert_eq!(bootstrap_ci(&[0.25], 0.95, 100, 1, 1), [0.25, 0.25]);
        assert_eq!(bootstrap_ci(&[], 0.95, 100, 1, 1), [0.0, 0.0]);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
    }
}
