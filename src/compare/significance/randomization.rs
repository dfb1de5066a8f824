//! The paired sign-flip randomization test: under the null hypothesis that the two tokenizers
//! are exchangeable for every user, each per-user difference is as likely to have either sign.

use rayon::prelude::*;

use super::{CHUNK, chunk_rng};

/// Two-sided p-value of `|mean(d)|` against random sign flips of `d`. Users with a zero
/// difference do not move the statistic and are left out. With m non-zero differences and
/// 2^m ≤ `permutations` every sign pattern is enumerated (exact p); otherwise `permutations`
/// seeded random patterns give p = (1 + #{|S*| ≥ |S|}) / (1 + permutations), which never
/// reports 0. Sums within 1e-10 · Σ|d| of the observed one count as ties (as extreme).
pub fn sign_flip_p(d: &[f64], permutations: usize, seed: u64, stream: u64) -> f64 {
    let nonzero: Vec<f64> = d.iter().copied().filter(|&x| x != 0.0).collect();
    let m = nonzero.len();
    if m == 0 || permutations == 0 {
        return 1.0;
    }
    let total: f64 = nonzero.iter().sum();
    let scale: f64 = nonzero.iter().map(|x| x.abs()).sum();
    let observed = total.abs() - 1e-10 * scale;
    // Σ sᵢdᵢ = 2·Σ_{sᵢ=+1} dᵢ − Σ dᵢ: one pass over the values with a sign bit each.
    let extreme = |positive_sum: f64| (2.0 * positive_sum - total).abs() >= observed;
    if m < 63 && (1u64 << m) <= permutations as u64 {
        let count = (0..1u64 << m)
            .into_par_iter()
            .filter(|&bits| {
                let s: f64 = (0..m)
                    .filter(|&i| bits >> i & 1 == 1)
                    .map(|i| nonzero[i])
                    .sum();
                extreme(s)
            })
            .count();
        return count as f64 / (1u64 << m) as f64;
    }
    let chunks = permutations.div_ceil(CHUNK);
    let count: usize = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut rng = chunk_rng(seed, stream, c);
            let draws = CHUNK.min(permutations - c * CHUNK);
            (0..draws)
                .filter(|_| extreme(random_subset_sum(&nonzero, &mut rng)))
                .count()
        })
        .sum();
    (1 + count) as f64 / (1 + permutations) as f64
}

/// Σ of the values whose random sign bit is set (64 bits per draw).
fn random_subset_sum(values: &[f64], rng: &mut crate::numeric::random::SeededRng) -> f64 {
    let mut sum = 0.0;
    for block in values.chunks(64) {
        let bits = rng.next_u64();
        for (j, &v) in block.iter().enumerate() {
            sum += v * ((bits >> j) & 1) as f64;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_enumeration_on_tiny_samples() {
        // d = (1, 2, 3): |S| = 6; of the 8 sign patterns only (+,+,+) and (−,−,−) reach 6.
        assert_eq!(sign_flip_p(&[1.0, 2.0, 3.0, 0.0], 10_000, 1, 0), 0.25);
        // d = (1, −1): |S| = 0, every pattern is as extreme.
        assert_eq!(sign_flip_p(&[1.0, -1.0], 10_000, 1, 0), 1.0);
        // Ties with rounding noise still count: 0.1 + 0.2 vs 0.3.
        assert_eq!(sign_flip_p(&[0.1, 0.2, -0.3], 10_000, 1, 0), 1.0);
        assert_eq!(sign_flip_p(&[0.0, 0.0], 10_000, 1, 0), 1.0);
    }

    #[test]
    fn monte_carlo_is_seeded_and_never_zero() {
        let d: Vec<f64> = (0..200)
            .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
            .collect();
        let p = sign_flip_p(&d, 2_000, 7, 3);
        assert_eq!(p, sign_flip_p(&d, 2_000, 7, 3));
        assert!(p > 0.0 && p <= 1.0 / 2_001.0 * 5.0, "{p}");
        let balanced: Vec<f64> = (0..200)
            .map(|i| if i % 2 == 0 { -1.0 } else { 1.0 })
            .collect();
        assert_eq!(sign_flip_p(&balanced, 2_000, 7, 3), 1.0);
    }
}
