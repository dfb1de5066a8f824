//! Synthetic SID datasets of any size, deterministic for a seed: the benchmark suite's data,
//! and a way to try sidlens at industrial scale (millions of items) without real artifacts.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use ndarray::{Array2, Array3};
use ndarray_npy::WriteNpyExt;

use crate::error::{Error, Result};
use crate::io::write::write_atomically;
use crate::load::{IndexFormat, ItemIds, SidIndex};
use crate::numeric::random::SeededRng;
use crate::progress::{Progress, check_cancelled};
use crate::sid::{self, Code};

/// What to generate. Prefix-group sizes follow a power law (exponent 2) capped at
/// `max_prefix_group` (one group has exactly that size); last codes inside a prefix group are
/// drawn as `⌊V·u^skew⌋`, so a larger `skew` gives more collisions (2.4 ≈ 17–18 % of items in
/// collision groups, like the project's reference benchmark set).
#[derive(Debug, Clone)]
pub struct SyntheticSpec {
    /// Number of items.
    pub n_items: usize,
    /// SID levels L (2 to 8).
    pub n_levels: usize,
    /// Codebook size V (a power of two up to 65,536).
    pub codebook_size: usize,
    /// Latent dimension d.
    pub dim: usize,
    /// Largest prefix group.
    pub max_prefix_group: usize,
    /// Concentration of last codes inside a prefix group.
    pub skew: f64,
    /// Number of users in the beams file.
    pub n_users: usize,
    /// Beams per user.
    pub beam_width: usize,
    /// Seed of every random choice.
    pub seed: u64,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        SyntheticSpec {
            n_items: 100_000,
            n_levels: 4,
            codebook_size: 256,
            dim: 32,
            max_prefix_group: 184,
            skew: 2.4,
            n_users: 20_000,
            beam_width: 20,
            seed: 7,
        }
    }
}

/// Paths of a generated dataset.
#[derive(Debug, Clone)]
pub struct SyntheticFiles {
    /// Index JSON (tokens format).
    pub index: PathBuf,
    /// Beams, JSON Lines in the reference per-user format.
    pub beams: PathBuf,
    /// Latents, `n_items × d` float32.
    pub latents: PathBuf,
    /// Codebooks, `L × V × d` float32.
    pub codebooks: PathBuf,
}

/// Generates the SID index of `spec` (item ids `0..n`, shuffled prefix groups).
pub fn generate_index(spec: &SyntheticSpec) -> Result<SidIndex> {
    validate(spec)?;
    let l = spec.n_levels;
    let v = spec.codebook_size as u64;
    let mut rng = SeededRng::for_stream(spec.seed, 1);
    let n_prefixes = v.pow((l - 1) as u32);
    // Sampling a power-law size: inverse CDF over 1..=max.
    let weights: Vec<f64> = (1..=spec.max_prefix_group)
        .map(|s| (s as f64).powf(-2.0))
        .collect();
    let total: f64 = weights.iter().sum();
    let mean_size = weights
        .iter()
        .enumerate()
        .map(|(k, w)| (k + 1) as f64 * w)
        .sum::<f64>()
        / total;
    let mut cdf = Vec::with_capacity(weights.len());
    let mut acc = 0.0;
    for w in weights {
        acc += w / total;
        cdf.push(acc);
    }
    let mut codes: Vec<Code> = Vec::with_capacity(spec.n_items * l);
    let mut prefix_index: u64 = 0;
    // An odd multiplier permutes 0..V^(L-1) (a power of two), so prefixes are distinct.
    let multiplier = 0x9E37_79B9_7F4A_7C15u64 | 1;
    let mut first = true;
    while codes.len() < spec.n_items * l {
        let remaining = spec.n_items - codes.len() / l;
        let size = if first {
            first = false;
            spec.max_prefix_group
        } else {
            let u = rng.unit();
            cdf.partition_point(|&c| c < u) + 1
        }
        .min(remaining);
        if prefix_index >= n_prefixes {
            let levels = if l == 2 { "level" } else { "levels" };
            return Err(Error::Invalid(format!(
                "{} items do not fit {} distinct prefixes ({} {levels} of {} codes): prefix \
                 groups hold {mean_size:.1} items on average, so about {} items fit; raise \
                 --levels or --codebook-size, or lower --items",
                spec.n_items,
                n_prefixes,
                l - 1,
                spec.codebook_size,
                (n_prefixes as f64 * mean_size) as u64
            )));
        }
        let mut p = prefix_index.wrapping_mul(multiplier) & (n_prefixes - 1);
        prefix_index += 1;
        let mut prefix = vec![0 as Code; l - 1];
        for level in (0..l - 1).rev() {
            prefix[level] = (p % v) as Code;
            p /= v;
        }
        for _ in 0..size {
            codes.extend_from_slice(&prefix);
            let u = rng.unit();
            codes.push(((v as f64 * u.powf(spec.skew)) as u64).min(v - 1) as Code);
        }
    }
    let mut ids = ItemIds::new();
    for i in 0..spec.n_items {
        ids.push(&i.to_string())
            .map_err(|_| Error::Invalid("duplicate synthetic id".into()))?;
    }
    SidIndex::from_codes(
        Path::new("synthetic.index.json"),
        ids,
        codes,
        l,
        Some(spec.codebook_size),
        IndexFormat::Tokens,
    )
}

/// Codebooks (`L × V × d`, scale halving per level) and latents (sum of the item's codewords
/// plus small noise), consistent with `index`.
pub fn generate_vectors(spec: &SyntheticSpec, index: &SidIndex) -> (Array2<f32>, Array3<f32>) {
    let (l, v, d) = (spec.n_levels, spec.codebook_size, spec.dim);
    let mut rng = SeededRng::for_stream(spec.seed, 2);
    let mut codebooks = Array3::<f32>::zeros((l, v, d));
    for level in 0..l {
        let scale = 0.5f64.powi(level as i32);
        for x in codebooks.slice_mut(ndarray::s![level, .., ..]).iter_mut() {
            *x = (rng.normal() * scale) as f32;
        }
    }
    let mut latents = Array2::<f32>::zeros((index.n_items(), d));
    for (i, mut row) in latents.rows_mut().into_iter().enumerate() {
        for (level, &c) in index.codes(i).iter().enumerate() {
            row += &codebooks.slice(ndarray::s![level, c as usize, ..]);
        }
        for x in row.iter_mut() {
            *x += (rng.normal() * 0.05) as f32;
        }
    }
    (latents, codebooks)
}

/// Writes beams for `spec.n_users` users as JSON Lines: each user's target is a random item;
/// its SID appears among the beams with probability 1/2, at a random rank; the other beams are
/// SIDs of random items (distinct within a list).
pub fn write_beams(
    spec: &SyntheticSpec,
    index: &SidIndex,
    path: &Path,
    progress: &dyn Progress,
) -> Result<()> {
    let mut rng = SeededRng::for_stream(spec.seed, 3);
    let n = index.n_items();
    let width = spec.beam_width.max(1);
    progress.stage("beams", spec.n_users as u64);
    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut keys = Vec::with_capacity(width);
    let mut line = String::with_capacity(width * 32);
    for user in 0..spec.n_users {
        if user % 10_000 == 0 {
            check_cancelled(progress)?;
            progress.advance(10_000.min(spec.n_users - user) as u64);
        }
        let target = rng.below(n);
        let hit_rank = rng.chance(0.5).then(|| rng.below(width));
        keys.clear();
        line.clear();
        line.push_str("{\"beam_sids\": [");
        for rank in 0..width {
            let item = if Some(rank) == hit_rank {
                target
            } else {
                loop {
                    let candidate = rng.below(n);
                    let key = index.key(candidate);
                    if key != index.key(target) && !keys.contains(&key) {
                        break candidate;
                    }
                }
            };
            keys.push(index.key(item));
            if rank > 0 {
                line.push_str(", ");
            }
            line.push('"');
            line.push_str(&sid::format_sid(index.codes(item)));
            line.push('"');
        }
        line.push_str("], \"target\": \"");
        line.push_str(&index.sid_string(target));
        line.push_str("\", \"target_item\": \"");
        line.push_str(index.id(target));
        line.push_str("\"}\n");
        out.write_all(line.as_bytes())
            .map_err(|e| Error::io(path, e))?;
    }
    out.flush().map_err(|e| Error::io(path, e))
}

/// Generates a whole dataset into `dir` (created if missing): index, beams, latents, codebooks.
pub fn write_dataset(
    spec: &SyntheticSpec,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<SyntheticFiles> {
    // The spec is checked (by generating the index) before any folder is created.
    let index = generate_index(spec)?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let files = SyntheticFiles {
        index: dir.join("synthetic.index.json"),
        beams: dir.join("synthetic.per_user.jsonl"),
        latents: dir.join("latents.npy"),
        codebooks: dir.join("codebooks.npy"),
    };
    progress.stage("index", 0);
    index.save(&files.index)?;
    write_beams(spec, &index, &files.beams, progress)?;
    progress.stage("vectors", 0);
    let (latents, codebooks) = generate_vectors(spec, &index);
    write_atomically(&files.latents, |w| {
        latents.write_npy(w).map_err(std::io::Error::other)
    })?;
    write_atomically(&files.codebooks, |w| {
        codebooks.write_npy(w).map_err(std::io::Error::other)
    })?;
    Ok(files)
}

fn validate(spec: &SyntheticSpec) -> Result<()> {
    let ok = spec.n_items > 0
        && (2..=sid::MAX_LEVELS).contains(&spec.n_levels)
        && spec.codebook_size.is_power_of_two()
        && (2..=sid::MAX_CODEBOOK_SIZE).contains(&spec.codebook_size)
        && spec.max_prefix_group >= 1
        && spec.skew > 0.0
        && (spec.codebook_size as u128).pow((spec.n_levels - 1) as u32) <= u64::MAX as u128;
    if ok {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "invalid synthetic dataset spec: {spec:?}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::Collisions;
    use crate::collision::stats::IndexStats;
    use crate::progress::NoProgress;

    #[test]
    fn deterministic_with_the_requested_shape() {
        let spec = SyntheticSpec {
            n_items: 20_000,
            n_users: 100,
            ..Default::default()
        };
        let a = generate_index(&spec).unwrap();
        let b = generate_index(&spec).unwrap();
        assert_eq!(a.all_codes(), b.all_codes());
        let s = IndexStats::compute(&a, &Collisions::new(&a));
        assert_eq!(s.n_items, 20_000);
        assert_eq!(s.max_prefix_group_size, 184);
        assert!(
            (0.12..0.24).contains(&s.collision_rate),
            "collision rate {}",
            s.collision_rate
        );
    }

    #[test]
    fn too_many_items_for_the_prefixes_says_how_many_fit() {
        let spec = |n_items| SyntheticSpec {
            n_items,
            n_levels: 2,
            max_prefix_group: 16,
            n_users: 10,
            ..Default::default()
        };
        let message = generate_index(&spec(1_000)).unwrap_err().to_string();
        assert!(
            message.contains("do not fit 256 distinct prefixes (1 level of 256 codes)"),
            "{message}"
        );
        let fit: usize = message
            .split("so about ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no estimate in {message:?}"));
        assert!((256..1_000).contains(&fit), "{message}");
        assert!(generate_index(&spec(fit * 3 / 4)).is_ok(), "{message}");
    }

    #[test]
    fn writes_a_loadable_dataset() {
        let dir = tempfile::tempdir().unwrap();
        let spec = SyntheticSpec {
            n_items: 2_000,
            n_users: 50,
            dim: 8,
            ..Default::default()
        };
        let files = write_dataset(&spec, dir.path(), &NoProgress).unwrap();
        let index = SidIndex::load(&files.index, Some(256)).unwrap();
        assert_eq!(index.n_items(), 2_000);
        let beams = std::fs::read_to_string(&files.beams).unwrap();
        assert_eq!(beams.lines().count(), 50);
        assert!(
            beams
                .lines()
                .all(|l| l.starts_with("{\"beam_sids\": [\"<a_"))
        );
    }
}
