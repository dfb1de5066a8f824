//! Deterministic text embeddings without a model: hashed word, word-bigram and character
//! n-gram TF-IDF features, L2-normalised. Near-identical texts land close; the same text gives
//! the same bits on every machine (integer hashing, IEEE arithmetic, no platform `ln`).

use std::collections::HashMap;

use ndarray::Array2;

/// How texts are turned into vectors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HashedTfidf {
    /// Output dimension (number of hash buckets).
    pub dim: usize,
    /// Shortest character n-gram.
    pub min_ngram: usize,
    /// Longest character n-gram.
    pub max_ngram: usize,
    /// Weight of character n-grams relative to words (they are many more per text).
    pub ngram_weight: f64,
}

impl Default for HashedTfidf {
    fn default() -> Self {
        HashedTfidf {
            dim: 128,
            min_ngram: 3,
            max_ngram: 5,
            ngram_weight: 0.35,
        }
    }
}

/// One feature of a text: its hash and its kind's weight.
#[derive(Debug, Clone, Copy)]
struct Feature {
    hash: u64,
    weight: f64,
}

impl HashedTfidf {
    /// Embeds every text; row i is text i. TF is sublinear (1 + ln tf), IDF smooth
    /// (ln((1 + n) / (1 + df)) + 1), each feature lands in bucket `hash % dim` with the sign of
    /// another hash bit, and rows are L2-normalised (an empty text gives a zero row).
    pub fn embed<S: AsRef<str>>(&self, texts: &[S]) -> Array2<f32> {
        assert!(self.dim > 0, "embedding dimension must be positive");
        let per_text: Vec<Vec<(Feature, u32)>> =
            texts.iter().map(|t| self.term_counts(t.as_ref())).collect();
        let mut df: HashMap<u64, u32> = HashMap::new();
        for features in &per_text {
            for (f, _) in features {
                *df.entry(f.hash).or_default() += 1;
            }
        }
        let n = texts.len() as f64;
        let mut out = Array2::<f32>::zeros((texts.len(), self.dim));
        let mut row = vec![0f64; self.dim];
        for (features, mut target) in per_text.iter().zip(out.rows_mut()) {
            row.iter_mut().for_each(|v| *v = 0.0);
            for &(f, tf) in features {
                let idf = portable_ln((1.0 + n) / (1.0 + f64::from(df[&f.hash]))) + 1.0;
                let value = (1.0 + portable_ln(f64::from(tf))) * idf * f.weight;
                let bucket = (f.hash % self.dim as u64) as usize;
                if f.hash >> 63 == 1 {
                    row[bucket] -= value;
                } else {
                    row[bucket] += value;
                }
            }
            let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > 0.0 {
                for (t, v) in target.iter_mut().zip(&row) {
                    *t = (v / norm) as f32;
                }
            }
        }
        out
    }

    /// The distinct features of `text` with their counts, in order of first appearance.
    fn term_counts(&self, text: &str) -> Vec<(Feature, u32)> {
        let lower = text.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let mut order: Vec<(Feature, u32)> = Vec::new();
        let mut seen: HashMap<u64, usize> = HashMap::new();
        let mut add = |hash: u64, weight: f64| match seen.get(&hash) {
            Some(&i) => order[i].1 += 1,
            None => {
                seen.insert(hash, order.len());
                order.push((Feature { hash, weight }, 1));
            }
        };
        for (i, w) in words.iter().enumerate() {
            add(fnv1a(&[b"w:", w.as_bytes()]), 1.0);
            if let Some(next) = words.get(i + 1) {
                add(fnv1a(&[b"b:", w.as_bytes(), b" ", next.as_bytes()]), 1.0);
            }
            let chars: Vec<char> = format!("<{w}>").chars().collect();
            for n in self.min_ngram..=self.max_ngram {
                for gram in chars.windows(n) {
                    let s: String = gram.iter().collect();
                    add(fnv1a(&[b"c:", s.as_bytes()]), self.ngram_weight);
                }
            }
        }
        order
    }
}

/// 64-bit FNV-1a over the concatenated parts, finished with a SplitMix64 mix so that the low
/// bits (the bucket) and the top bit (the sign) are well spread.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

/// Natural logarithm from IEEE operations only (exponent split plus an atanh series), so it
/// returns the same bits on every platform; accurate to a few ulps for positive normal inputs.
pub fn portable_ln(x: f64) -> f64 {
    assert!(
        x > 0.0 && x.is_finite(),
        "portable_ln needs a positive finite input"
    );
    let bits = x.to_bits();
    let mut exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut mantissa = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if mantissa > std::f64::consts::SQRT_2 {
        mantissa /= 2.0;
        exponent += 1;
    }
    // ln(m) = 2·atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.172: 12 odd terms reach 1e-19.
    let s = (mantissa - 1.0) / (mantissa + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut series = 0.0;
    for k in 0..12 {
        series += term / f64::from(2 * k + 1);
        term *= s2;
    }
    exponent as f64 * std::f64::consts::LN_2 + 2.0 * series
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: ndarray::ArrayView1<f32>, b: ndarray::ArrayView1<f32>) -> f32 {
        a.dot(&b)
    }

    #[test]
    fn portable_ln_matches_std() {
        for x in [1.0, 1.5, 2.0, 3.0, 0.1, 7.25, 1e-5, 12345.678, 1e300] {
            let (got, want) = (portable_ln(x), x.ln());
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(1.0),
                "{x}: {got} vs {want}"
            );
        }
        assert_eq!(portable_ln(1.0), 0.0);
    }

    #[test]
    fn near_identical_texts_are_closer_than_unrelated_ones() {
        let texts = [
            "Voxelcraft Mini 3D Printer, 180 x 180 x 180 mm build volume",
            "Voxelcraft Standard 3D Printer, 220 x 220 x 250 mm build volume",
            "Nitrile exam gloves, powder free, size large, box of 100",
            "",
        ];
        let e = HashedTfidf::default().embed(&texts);
        assert_eq!(e.dim(), (4, 128));
        for i in 0..3 {
            let norm = cosine(e.row(i), e.row(i));
            assert!((norm - 1.0).abs() < 1e-5);
        }
        assert!(e.row(3).iter().all(|&v| v == 0.0));
        let close = cosine(e.row(0), e.row(1));
        let far = cosine(e.row(0), e.row(2));
        assert!(close > 0.35 && far.abs() < 0.15, "close {close}, far {far}");
    }

    #[test]
    fn embedding_is_deterministic() {
        let texts = ["a b c", "b c d", "Ünïcode wörds"];
        let cfg = HashedTfidf::default();
        assert_eq!(cfg.embed(&texts), cfg.embed(&texts));
    }
}
