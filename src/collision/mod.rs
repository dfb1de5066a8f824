//! Collision groups (items sharing a whole SID) and prefix groups (items sharing the first
//! L−1 codes). One sort of the items by SID gives both: groups are runs of equal keys, and
//! prefix groups are runs of groups with equal prefixes.

pub mod popularity;
pub mod stats;

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::load::SidIndex;
use crate::sid::{self, SidKey};

/// Items grouped by SID. Group ids are dense (`0..n_groups`) in ascending SID order; every
/// distinct SID is a group, and a *collision group* is a group of two or more items.
#[derive(Debug, Clone)]
pub struct Collisions {
    n_levels: usize,
    order: Vec<u32>,
    starts: Vec<u32>,
    keys: Vec<SidKey>,
    group_of: Vec<u32>,
}

/// SID groups per parallel piece of [`Collisions::run_sizes`].
const RUN_PIECE: usize = 1 << 14;

/// The sizes of the runs of SID groups that share their first `depth` codes, summed up
/// ([`Collisions::run_sizes`]): what the index statistics need, without a list of the runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunSizes {
    /// Number of runs (distinct prefixes of that depth).
    pub runs: usize,
    /// Items in runs of two or more items.
    pub items_in_shared_runs: usize,
    /// Items in the largest run.
    pub largest: usize,
    /// Runs of more items than the limit asked for.
    pub over_limit: usize,
}

impl RunSizes {
    fn add(mut self, size: usize, limit: usize) -> Self {
        self.runs += 1;
        if size > 1 {
            self.items_in_shared_runs += size;
        }
        self.largest = self.largest.max(size);
        self.over_limit += usize::from(size > limit);
        self
    }

    fn merge(self, other: Self) -> Self {
        RunSizes {
            runs: self.runs + other.runs,
            items_in_shared_runs: self.items_in_shared_runs + other.items_in_shared_runs,
            largest: self.largest.max(other.largest),
            over_limit: self.over_limit + other.over_limit,
        }
    }
}

/// Items sharing the first L−1 codes: the unit ZCR works on. Covers the SID groups
/// `first_group..end_group`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixGroup {
    /// First SID group of this prefix.
    pub first_group: u32,
    /// One past the last SID group of this prefix.
    pub end_group: u32,
}

impl Collisions {
    /// The items of SID group `g` in id order (the order every listing shows them in).
    pub fn items_in_id_order(&self, index: &SidIndex, g: u32) -> Vec<u32> {
        let mut items = self.items(g).to_vec();
        items.sort_by(|&a, &b| index.ids().cmp_ids(a as usize, b as usize));
        items
    }

    /// Groups the items of `index` by SID.
    pub fn new(index: &SidIndex) -> Self {
        let n_levels = index.n_levels();
        let bits = sid::bits_per_code(index.codebook_size()) as usize;
        let key_bits = bits * n_levels;
        // The SID of a compact key (`bits` per level) as a `SidKey` (16 bits per level).
        let expand = move |compact: u128| -> SidKey {
            (0..n_levels).fold(0, |key, level| {
                let shift = bits * (n_levels - 1 - level);
                (key << 16) | ((compact >> shift) & ((1 << bits) - 1))
            })
        };
        let compact = |p: usize| -> u128 {
            index
                .codes(p)
                .iter()
                .fold(0u128, |k, &c| (k << bits) | u128::from(c))
        };
        let n = index.n_items();
        // Sorting (SID, position) packed into one integer keeps the common case on `u64`s.
        if key_bits + 32 <= 64 {
            let mut v: Vec<u64> = (0..n)
                .into_par_iter()
                .map(|p| ((compact(p) as u64) << 32) | p as u64)
                .collect();
            v.par_sort_unstable();
            Self::from_sorted(n_levels, &v, |x| u128::from(x >> 32), expand, |x| x as u32)
        } else if key_bits + 32 <= 128 {
            let mut v: Vec<u128> = (0..n)
                .into_par_iter()
                .map(|p| (compact(p) << 32) | p as u128)
                .collect();
            v.par_sort_unstable();
            Self::from_sorted(n_levels, &v, |x| x >> 32, expand, |x| x as u32)
        } else {
            let mut v: Vec<(SidKey, u32)> = (0..n)
                .into_par_iter()
                .map(|p| (index.key(p), p as u32))
                .collect();
            v.par_sort_unstable();
            Self::from_sorted(n_levels, &v, |x| x.0, |k| k, |x| x.1)
        }
    }

    /// Builds the groups from the items sorted by (SID, position), on every core: group
    /// starts are where the compact SID (`sid_of`) changes, `key_of` turns a start's compact
    /// SID into its key, and each group writes its members' `group_of`.
    fn from_sorted<T: Copy + Send + Sync>(
        n_levels: usize,
        sorted: &[T],
        sid_of: impl Fn(T) -> u128 + Sync,
        key_of: impl Fn(u128) -> SidKey + Sync,
        position_of: impl Fn(T) -> u32 + Sync,
    ) -> Self {
        let n = sorted.len();
        let order: Vec<u32> = sorted.par_iter().map(|&x| position_of(x)).collect();
        let mut starts: Vec<u32> = (0..n)
            .into_par_iter()
            .filter(|&r| r == 0 || sid_of(sorted[r]) != sid_of(sorted[r - 1]))
            .map(|r| r as u32)
            .collect();
        let keys: Vec<SidKey> = starts
            .par_iter()
            .map(|&r| key_of(sid_of(sorted[r as usize])))
            .collect();
        starts.push(n as u32);
        let group_of: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
        starts.par_windows(2).enumerate().for_each(|(g, w)| {
            for &p in &order[w[0] as usize..w[1] as usize] {
                group_of[p as usize].store(g as u32, Ordering::Relaxed);
            }
        });
        Collisions {
            n_levels,
            order,
            starts,
            keys,
            // Collected in place (the same size and alignment): no second array to fault in.
            group_of: group_of.into_iter().map(AtomicU32::into_inner).collect(),
        }
    }

    /// Number of distinct SIDs (groups, singletons included).
    pub fn n_groups(&self) -> usize {
        self.keys.len()
    }

    /// Number of items.
    pub fn n_items(&self) -> usize {
        self.group_of.len()
    }

    /// Number of levels of the SIDs.
    pub fn n_levels(&self) -> usize {
        self.n_levels
    }

    /// The item positions of group `g`, in file order.
    pub fn items(&self, g: u32) -> &[u32] {
        &self.order[self.starts[g as usize] as usize..self.starts[g as usize + 1] as usize]
    }

    /// The number of items sharing group `g`'s SID.
    pub fn size(&self, g: u32) -> u32 {
        self.starts[g as usize + 1] - self.starts[g as usize]
    }

    /// The SID key of group `g`.
    pub fn key(&self, g: u32) -> SidKey {
        self.keys[g as usize]
    }

    /// The SID group of the item at `position`.
    pub fn group_of(&self, position: usize) -> u32 {
        self.group_of[position]
    }

    /// The group whose SID has `key`, if any item has that SID.
    pub fn find(&self, key: SidKey) -> Option<u32> {
        self.keys.binary_search(&key).ok().map(|g| g as u32)
    }

    /// The paper's collision rate: items in groups of two or more, divided by all items.
    pub fn collision_rate(&self) -> f64 {
        self.n_in_collisions() as f64 / self.n_items().max(1) as f64
    }

    /// Items in groups of two or more.
    pub fn n_in_collisions(&self) -> usize {
        (0..self.n_groups() as u32)
            .map(|g| self.size(g) as usize)
            .filter(|&size| size > 1)
            .sum()
    }

    /// Collision groups (size > 1), largest first, then in SID order.
    pub fn collision_groups(&self) -> Vec<u32> {
        let mut groups: Vec<u32> = (0..self.n_groups() as u32)
            .filter(|&g| self.size(g) > 1)
            .collect();
        groups.sort_by_key(|&g| std::cmp::Reverse(self.size(g)));
        groups
    }

    /// Prefix groups (first L−1 codes; for L = 1 every item shares the empty prefix), in SID order.
    pub fn prefix_groups(&self) -> Vec<PrefixGroup> {
        self.runs_at_depth(self.n_levels - 1)
    }

    /// Runs of groups sharing their first `depth` codes, in SID order.
    pub fn runs_at_depth(&self, depth: usize) -> Vec<PrefixGroup> {
        let prefix = |g: usize| sid::prefix_key(self.keys[g], self.n_levels, depth);
        let mut bounds: Vec<u32> = (0..self.n_groups())
            .into_par_iter()
            .filter(|&g| g == 0 || prefix(g) != prefix(g - 1))
            .map(|g| g as u32)
            .collect();
        bounds.push(self.n_groups() as u32);
        bounds
            .windows(2)
            .map(|w| PrefixGroup {
                first_group: w[0],
                end_group: w[1],
            })
            .collect()
    }

    /// [`Collisions::runs_at_depth`] summed up, on every core and without listing the runs
    /// (at depth L that list has an entry per SID group): how many, how large, and how many
    /// hold more than `limit` items.
    pub fn run_sizes(&self, depth: usize, limit: usize) -> RunSizes {
        let n_groups = self.n_groups();
        let prefix = |g: usize| sid::prefix_key(self.keys[g], self.n_levels, depth);
        let items = |from: usize, to: usize| (self.starts[to] - self.starts[from]) as usize;
        // Each piece of groups sums the runs that start in it, reading on past its end for
        // the last one; every key's prefix is computed once (and one before the piece).
        (0..n_groups.div_ceil(RUN_PIECE))
            .into_par_iter()
            .map(|piece| {
                let (first, end) = (piece * RUN_PIECE, ((piece + 1) * RUN_PIECE).min(n_groups));
                let mut sizes = RunSizes::default();
                let mut previous = (first > 0).then(|| prefix(first - 1));
                let mut open: Option<usize> = None;
                for g in first..n_groups {
                    let p = prefix(g);
                    if previous != Some(p) {
                        if let Some(start) = open.take() {
                            sizes = sizes.add(items(start, g), limit);
                        }
                        if g >= end {
                            break;
                        }
                        open = Some(g);
                    }
                    previous = Some(p);
                }
                if let Some(start) = open {
                    sizes = sizes.add(items(start, n_groups), limit);
                }
                sizes
            })
            .reduce(RunSizes::default, RunSizes::merge)
    }

    /// The item positions of a prefix group, grouped by SID (a SID group's items are contiguous).
    pub fn prefix_items(&self, p: PrefixGroup) -> &[u32] {
        &self.order[self.starts[p.first_group as usize] as usize
            ..self.starts[p.end_group as usize] as usize]
    }

    /// Number of items in a prefix group.
    pub fn prefix_size(&self, p: PrefixGroup) -> u32 {
        self.starts[p.end_group as usize] - self.starts[p.first_group as usize]
    }

    /// Whether a prefix group contains a collision (two items with the same last code).
    pub fn prefix_has_collision(&self, p: PrefixGroup) -> bool {
        (p.first_group..p.end_group).any(|g| self.size(g) > 1)
    }

    /// The prefix group that contains SID group `g`.
    pub fn prefix_of_group(&self, g: u32) -> PrefixGroup {
        let depth = self.n_levels - 1;
        let prefix = sid::prefix_key(self.keys[g as usize], self.n_levels, depth);
        let same = |h: usize| sid::prefix_key(self.keys[h], self.n_levels, depth) == prefix;
        let mut first = g as usize;
        while first > 0 && same(first - 1) {
            first -= 1;
        }
        let mut end = g as usize + 1;
        while end < self.n_groups() && same(end) {
            end += 1;
        }
        PrefixGroup {
            first_group: first as u32,
            end_group: end as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    pub(crate) fn index(text: &str) -> SidIndex {
        SidIndex::parse(text.as_bytes(), Path::new("t.json"), None).unwrap()
    }

    /// What `run_sizes` must give for runs of these sizes.
    fn summed(sizes: &[usize], limit: usize) -> RunSizes {
        RunSizes {
            runs: sizes.len(),
            items_in_shared_runs: sizes.iter().filter(|&&s| s > 1).sum(),
            largest: sizes.iter().copied().max().unwrap_or(0),
            over_limit: sizes.iter().filter(|&&s| s > limit).count(),
        }
    }

    /// Enough groups for several of `run_sizes`' pieces, with runs across their edges.
    #[test]
    fn run_sizes_sum_up_the_runs_across_pieces() {
        let items: Vec<String> = (0..60_000u64)
            .map(|i| {
                let codes = [i * 7919 % 5, i * 104_729 % 97, i % 251, i % 3];
                format!(
                    "\"{i}\": [{}, {}, {}, {}]",
                    codes[0], codes[1], codes[2], codes[3]
                )
            })
            .collect();
        let c = Collisions::new(&index(&format!("{{{}}}", items.join(", "))));
        assert!(c.n_groups() > 2 * RUN_PIECE);
        for depth in 0..=4 {
            let runs = c.runs_at_depth(depth);
            let sizes: Vec<usize> = runs.iter().map(|&r| c.prefix_size(r) as usize).collect();
            for limit in [1, 3, 700] {
                let want = summed(&sizes, limit);
                assert_eq!(
                    c.run_sizes(depth, limit),
                    want,
                    "depth {depth}, limit {limit}"
                );
            }
        }
    }

    #[test]
    fn groups_and_prefix_groups() {
        let idx = index(
            r#"{"0": [1, 1, 1], "1": [1, 1, 2], "2": [2, 2, 2], "3": [2, 2, 2],
                "4": [1, 1, 1], "5": [0, 9, 9], "6": [2, 2, 2]}"#,
        );
        let c = Collisions::new(&idx);
        assert_eq!(c.n_groups(), 4);
        let cg = c.collision_groups();
        assert_eq!(cg.len(), 2);
        assert_eq!(c.size(cg[0]), 3);
        assert_eq!(c.items(cg[0]), &[2, 3, 6]);
        assert_eq!(c.items(cg[1]), &[0, 4]);
        assert_eq!(c.find(sid::sid_key(&[1, 1, 2])), Some(c.group_of(1)));
        assert_eq!(c.find(sid::sid_key(&[1, 1, 3])), None);
        let pg = c.prefix_groups();
        assert_eq!(pg.len(), 3);
        let sizes: Vec<u32> = pg.iter().map(|&p| c.prefix_size(p)).collect();
        assert_eq!(sizes, vec![1, 3, 3]);
        assert!(c.prefix_has_collision(pg[1]));
        assert_eq!(c.prefix_items(pg[1]), &[0, 4, 1]);
        assert_eq!(c.prefix_of_group(c.group_of(1)), pg[1]);
        assert_eq!(c.runs_at_depth(0).len(), 1);
        assert_eq!(c.collision_rate(), 5.0 / 7.0);
    }

    #[test]
    fn wide_codebooks_and_many_levels_sort_the_same() {
        let a = index(
            r#"{"0": [60000, 5, 5, 5, 5, 5, 5, 5], "1": [3, 5, 5, 5, 5, 5, 5, 5], "2": [60000, 5, 5, 5, 5, 5, 5, 5]}"#,
        );
        let c = Collisions::new(&a);
        assert_eq!(c.n_groups(), 2);
        assert_eq!(c.items(0), &[1]);
        assert_eq!(c.items(1), &[0, 2]);
    }

    #[test]
    fn groups_equal_a_naive_grouping_for_every_key_width() {
        // Narrow keys (u64 sort), wide keys (u128 sort) and 8 levels of 16 bits (pairs).
        for (n_levels, v, seed) in [(4, 5, 1), (4, 60000, 2), (8, 3, 3), (8, 60000, 4)] {
            let mut rng = crate::numeric::random::SeededRng::new(seed);
            let items: Vec<Vec<u16>> = (0..3000)
                .map(|_| {
                    let mut codes: Vec<u16> = (0..n_levels).map(|_| rng.below(3) as u16).collect();
                    codes[0] = if rng.below(2) == 0 { v - 1 } else { 0 };
                    codes
                })
                .collect();
            let text = items
                .iter()
                .enumerate()
                .map(|(i, c)| format!("\"{i}\": {c:?}"))
                .collect::<Vec<_>>()
                .join(", ");
            let c = Collisions::new(&index(&format!("{{{text}}}")));
            let mut naive: std::collections::BTreeMap<&[u16], Vec<u32>> = Default::default();
            for (p, codes) in items.iter().enumerate() {
                naive.entry(codes).or_default().push(p as u32);
            }
            assert_eq!(c.n_groups(), naive.len());
            for (g, (codes, members)) in naive.iter().enumerate() {
                assert_eq!(c.items(g as u32), members.as_slice());
                assert_eq!(c.find(sid::sid_key(codes)), Some(g as u32));
                assert!(members.iter().all(|&p| c.group_of(p as usize) == g as u32));
            }
            for depth in 0..n_levels {
                let runs: Vec<u32> = c
                    .runs_at_depth(depth)
                    .iter()
                    .map(|r| c.prefix_size(*r))
                    .collect();
                let mut by_prefix: std::collections::BTreeMap<&[u16], u32> = Default::default();
                for codes in &items {
                    *by_prefix.entry(&codes[..depth]).or_default() += 1;
                }
                assert_eq!(
                    runs,
                    by_prefix.into_values().collect::<Vec<_>>(),
                    "depth {depth}"
                );
                let sizes: Vec<usize> = runs.iter().map(|&s| s as usize).collect();
                for limit in [0, 1, 2, 5] {
                    let want = summed(&sizes, limit);
                    assert_eq!(
                        c.run_sizes(depth, limit),
                        want,
                        "depth {depth}, limit {limit}"
                    );
                }
            }
        }
    }
}
