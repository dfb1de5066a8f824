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
    // Users with a zero difference add nothing to a resample's sum: draw how many of the n
    // draws land on the m others (Binomial(n, m/n)), then only those — O(m) per resample.
    let nonzero: Vec<f64> = d.iter().copied().filter(|&x| x != 0.0).collect();
    let m = nonzero.len();
    let chunks = resamples.div_ceil(CHUNK);
    let mut means: Vec<f64> = (0..chunks)
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut rng = chunk_rng(seed, stream, c);
            let draws = CHUNK.min(resamples - c * CHUNK);
            let nonzero = &nonzero;
            (0..draws)
                .map(|_| {
                    let hits = binomial(&mut rng, n, m);
                    (0..hits).map(|_| nonzero[rng.below(m)]).sum::<f64>() / n as f64
                })
                .collect::<Vec<_>>()
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    [quantile(&means, tail), quantile(&means, 1.0 - tail)]
}

/// A Binomial(n, m/n) draw by inversion searched outward from the mode (exact in law; about
/// √m steps), so that a resample costs its non-zero draws only.
fn binomial(rng: &mut crate::numeric::random::SeededRng, n: usize, m: usize) -> usize {
    if m == 0 || m == n {
        return m;
    }
    let p = m as f64 / n as f64;
    let mode = ((n + 1) as f64 * p).floor().min(n as f64) as usize;
    let ln_pmf = statrs::function::factorial::ln_binomial(n as u64, mode as u64)
        + mode as f64 * p.ln()
        + (n - mode) as f64 * (1.0 - p).ln();
    let odds = p / (1.0 - p);
    let mut u = rng.unit();
    let (mut lo, mut hi) = (mode, mode);
    let (mut p_lo, mut p_hi) = (ln_pmf.exp(), ln_pmf.exp());
    if u < p_hi {
        return mode;
    }
    u -= p_hi;
    while lo > 0 || hi < n {
        if hi < n {
            p_hi *= (n - hi) as f64 / (hi + 1) as f64 * odds;
            hi += 1;
            if u < p_hi {
                return hi;
            }
            u -= p_hi;
        }
        if lo > 0 {
            p_lo *= lo as f64 / (n - lo + 1) as f64 / odds;
            lo -= 1;
            if u < p_lo {
                return lo;
            }
            u -= p_lo;
        }
    }
    mode
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
    fn binomial_draws_have_the_right_moments() {
        let mut rng = crate::numeric::random::SeededRng::new(3);
        let (n, m, draws) = (8_000, 600, 20_000);
        let xs: Vec<f64> = (0..draws)
            .map(|_| binomial(&mut rng, n, m) as f64)
            .collect();
        let mean = xs.iter().sum::<f64>() / draws as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (draws - 1) as f64;
        let p = m as f64 / n as f64;
        let (mu, sigma2) = (n as f64 * p, n as f64 * p * (1.0 - p));
        assert!(
            (mean - mu).abs() < 4.0 * (sigma2 / draws as f64).sqrt(),
            "{mean} vs {mu}"
        );
        assert!((var / sigma2 - 1.0).abs() < 0.05, "{var} vs {sigma2}");
        assert_eq!((binomial(&mut rng, 5, 0), binomial(&mut rng, 5, 5)), (0, 5));
    }

    #[test]
    fn degenerate_samples_give_a_point() {
        assert_eq!(bootstrap_ci(&[0.0; 5], 0.95, 100, 1, 1), [0.0, 0.0]);
        assert_eq!(bootstrap_ci(&[0.25], 0.95, 100, 1, 1), [0.25, 0.25]);
        assert_eq!(bootstrap_ci(&[], 0.95, 100, 1, 1), [0.0, 0.0]);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
    }
}
