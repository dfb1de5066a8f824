//! Index statistics: collision rate (the paper's definition), duplicate rate (LETTER's and
//! MQL4GRec's), group sizes, prefix-group capacity, and per-level code utilisation.

use std::collections::BTreeMap;

use rayon::prelude::*;

use serde::Serialize;

use crate::collision::{Collisions, RunSizes};
use crate::load::SidIndex;
use crate::sid;

/// Statistics of one index. Field names are the `sidlens stats --json` contract.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IndexStats {
    /// Number of items.
    pub n_items: usize,
    /// Number of levels L.
    pub n_levels: usize,
    /// Codebook size V.
    pub codebook_size: usize,
    /// True when V was inferred as the largest code + 1 rather than given.
    pub codebook_size_inferred: bool,
    /// Number of distinct SIDs.
    pub n_unique_sids: usize,
    /// Number of SIDs shared by two or more items.
    pub n_collision_groups: usize,
    /// Items whose SID is shared with another item.
    pub items_in_collisions: usize,
    /// `items_in_collisions / n_items` — the paper's collision rate.
    pub collision_rate: f64,
    /// `(n_items − n_unique_sids) / n_items` — the rate LETTER and MQL4GRec print.
    pub duplicate_rate: f64,
    /// Size of the largest collision group (1 when there is no collision).
    pub g_max: usize,
    /// Number of SIDs of each group size, `{"1": 3000, "2": 300, ...}`.
    pub group_size_histogram: BTreeMap<usize, usize>,
    /// Number of distinct first-(L−1)-code prefixes.
    pub n_prefix_groups: usize,
    /// Size of the largest prefix group.
    pub max_prefix_group_size: usize,
    /// Whether every prefix group fits the last codebook (size ≤ V), the condition for a
    /// zero-collision reassignment to exist.
    pub capacity_ok: bool,
    /// Prefix groups larger than V.
    pub n_prefix_groups_over_capacity: usize,
    /// Per-level utilisation and collisions at each prefix depth.
    pub levels: Vec<LevelStats>,
}

/// Utilisation of one level's codebook and collisions of the prefix ending at that level.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LevelStats {
    /// Level letter, `a` for the first.
    pub level: String,
    /// Distinct codes used at this level.
    pub codes_used: usize,
    /// `codes_used / V`.
    pub utilisation: f64,
    /// Shannon entropy of the code usage, in bits.
    pub entropy_bits: f64,
    /// Entropy divided by log2(V): 1 means perfectly uniform usage.
    pub normalized_entropy: f64,
    /// Perplexity of the code usage, 2^entropy: the number of equally used codes that would
    /// give the same entropy (V when usage is uniform, 1 when every item has one code).
    pub perplexity: f64,
    /// Gini coefficient of usage over all V codes (unused codes count as 0): 0 is uniform.
    pub gini: f64,
    /// The codes in 0..V no item uses at this level (dead codes, codebook collapse), ascending.
    pub dead_codes: Vec<usize>,
    /// Distinct prefixes made of the codes up to and including this level.
    pub distinct_prefixes: usize,
    /// Items whose prefix up to this level is shared with another item.
    pub items_in_prefix_collisions: usize,
    /// `items_in_prefix_collisions / n_items`.
    pub prefix_collision_rate: f64,
}

impl IndexStats {
    /// Computes the statistics of `index` from its grouping.
    pub fn compute(index: &SidIndex, collisions: &Collisions) -> Self {
        let n = index.n_items();
        let v = index.codebook_size();
        // Groups counted by size in a plain array (a map entry per group was 25 ms at 1M).
        let mut by_size: Vec<usize> = Vec::new();
        let mut items_in_collisions = 0;
        let mut n_collision_groups = 0;
        for g in 0..collisions.n_groups() as u32 {
            let s = collisions.size(g) as usize;
            if s >= by_size.len() {
                by_size.resize(s + 1, 0);
            }
            by_size[s] += 1;
            if s > 1 {
                items_in_collisions += s;
                n_collision_groups += 1;
            }
        }
        let histogram: BTreeMap<usize, usize> = by_size
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(s, &count)| (s, count))
            .collect();
        let g_max = histogram.keys().next_back().copied().unwrap_or(0);
        let n_levels = index.n_levels();
        // Runs at depths 1..=L, one pass each: level l's prefixes are depth l + 1, and ZCR's
        // prefix groups (depth L − 1) are level L − 2's.
        let runs: Vec<RunSizes> = (1..=n_levels)
            .into_par_iter()
            .map(|depth| collisions.run_sizes(depth, v))
            .collect();
        let prefixes = match n_levels {
            2.. => runs[n_levels - 2],
            _ => collisions.run_sizes(n_levels.saturating_sub(1), v),
        };
        let levels = (0..n_levels)
            .into_par_iter()
            .map(|level| level_stats(index, runs[level], level))
            .collect();
        IndexStats {
            n_items: n,
            n_levels: index.n_levels(),
            codebook_size: v,
            codebook_size_inferred: !index.codebook_size_given(),
            n_unique_sids: collisions.n_groups(),
            n_collision_groups,
            items_in_collisions,
            collision_rate: items_in_collisions as f64 / n as f64,
            duplicate_rate: (n - collisions.n_groups()) as f64 / n as f64,
            g_max,
            group_size_histogram: histogram,
            n_prefix_groups: prefixes.runs,
            max_prefix_group_size: prefixes.largest,
            capacity_ok: prefixes.over_limit == 0,
            n_prefix_groups_over_capacity: prefixes.over_limit,
            levels,
        }
    }
}

/// Level `level`'s statistics; `runs` are the runs of its prefixes (depth `level + 1`).
fn level_stats(index: &SidIndex, runs: RunSizes, level: usize) -> LevelStats {
    let n = index.n_items();
    let v = index.codebook_size();
    let l = index.n_levels();
    let mut counts = vec![0usize; v];
    for row in index.all_codes().chunks_exact(l) {
        counts[row[level] as usize] += 1;
    }
    let codes_used = counts.iter().filter(|&&c| c > 0).count();
    let entropy_bits: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n as f64;
            -p * p.log2()
        })
        .sum();
    let dead_codes = (0..v).filter(|&c| counts[c] == 0).collect();
    let items_in_prefix_collisions = runs.items_in_shared_runs;
    LevelStats {
        level: sid::level_letter(level).to_string(),
        codes_used,
        utilisation: codes_used as f64 / v as f64,
        entropy_bits,
        normalized_entropy: if v > 1 {
            entropy_bits / (v as f64).log2()
        } else {
            0.0
        },
        perplexity: entropy_bits.exp2(),
        gini: gini(&mut counts),
        dead_codes,
        distinct_prefixes: runs.runs,
        items_in_prefix_collisions,
        prefix_collision_rate: items_in_prefix_collisions as f64 / n as f64,
    }
}

/// Gini coefficient of non-negative counts (0 = all equal, → 1 = all in one).
fn gini(counts: &mut [usize]) -> f64 {
    let total: usize = counts.iter().sum();
    if total == 0 || counts.len() < 2 {
        return 0.0;
    }
    counts.sort_unstable();
    let n = counts.len() as f64;
    let weighted: f64 = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| (i as f64 + 1.0) * c as f64)
        .sum();
    (2.0 * weighted) / (n * total as f64) - (n + 1.0) / n
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn paper_and_letter_rates_differ_as_defined() {
        let idx = SidIndex::parse(
            br#"{"0": [1, 1], "1": [1, 1], "2": [1, 1], "3": [1, 2], "4": [2, 0]}"#,
            Path::new("t.json"),
            Some(4),
        )
        .unwrap();
        let s = IndexStats::compute(&idx, &Collisions::new(&idx));
        assert_eq!(s.n_unique_sids, 3);
        assert_eq!(s.items_in_collisions, 3);
        assert_eq!(s.collision_rate, 3.0 / 5.0);
        assert_eq!(s.duplicate_rate, 2.0 / 5.0);
        assert_eq!(s.g_max, 3);
        assert_eq!(s.group_size_histogram, BTreeMap::from([(1, 2), (3, 1)]));
        assert_eq!((s.n_prefix_groups, s.max_prefix_group_size), (2, 4));
        assert!(s.capacity_ok);
        assert_eq!(s.levels[0].codes_used, 2);
        assert_eq!(s.levels[0].items_in_prefix_collisions, 4);
        assert_eq!(s.levels[1].items_in_prefix_collisions, 3);
        assert!((s.levels[0].entropy_bits - 0.7219280948873623).abs() < 1e-12);
        // Level a uses codes 1 (4 items) and 2 (1 item) of V = 4: perplexity 2^0.722 ≈ 1.65.
        assert!((s.levels[0].perplexity - 0.7219280948873623f64.exp2()).abs() < 1e-12);
        assert_eq!(s.levels[0].dead_codes, [0, 3]);
        assert_eq!(s.levels[1].dead_codes, [3]);
    }

    #[test]
    fn capacity_fails_when_a_prefix_group_exceeds_v() {
        let idx = SidIndex::parse(
            br#"{"0": [0, 0], "1": [0, 0], "2": [0, 1]}"#,
            Path::new("t"),
            Some(2),
        )
        .unwrap();
        let s = IndexStats::compute(&idx, &Collisions::new(&idx));
        assert!(!s.capacity_ok);
        assert_eq!(s.n_prefix_groups_over_capacity, 1);
    }

    #[test]
    fn gini_extremes() {
        assert_eq!(gini(&mut [5, 5, 5, 5]), 0.0);
        assert!((gini(&mut [0, 0, 0, 8]) - 0.75).abs() < 1e-12);
    }
}
