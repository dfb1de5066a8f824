//! What one user's beam list achieved ([`UserOutcome`]) and the formulas that turn it into
//! Hit, NDCG, MRR, ItemHit, ItemNDCG, ItemMRR and the prefix hits at any K.

use std::sync::OnceLock;

use serde::Serialize;

use crate::sid::MAX_LEVELS;

/// Where the target's collision group sits in a user's item-level ranking: after `before`
/// items, as a block of `size` items (the target is equally likely anywhere in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemBlock {
    /// P: items ranked before the target's SID (sum of the group sizes of earlier beams).
    pub before: u32,
    /// G: the size of the target's group.
    pub size: u32,
}

/// What one user's beam list achieved, compact enough to keep for every user, so that a front
/// end can recompute every metric at any K instantly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserOutcome {
    /// Index position of the target item, when the record names one the index has.
    pub target_item: Option<u32>,
    /// Collision group of the target, when the index has its SID.
    pub target_group: Option<u32>,
    /// 0-based rank of the target's SID in the SID-level list (first occurrence).
    pub sid_rank: Option<u32>,
    /// Later ranks where the target's SID appears again (only `--compat cce-py` keeps repeats).
    pub repeat_ranks: Box<[u32]>,
    /// The target's block in the item-level ranking; `None` when its SID was not generated.
    pub item_block: Option<ItemBlock>,
    /// For each SID depth d = 1..L−1, the first rank whose SID shares the target's first d
    /// codes (`u32::MAX`: none does); empty for ranked-item records, which have no SIDs.
    pub prefix_ranks: PrefixRanks,
    /// The record ranked items, not SIDs: its list is already decoded.
    pub ranked_items: bool,
}

/// The first ranks of [`UserOutcome::prefix_ranks`], held inline (at most L − 1 of them):
/// one heap allocation a user less on the evaluation's hot path, and smaller than a boxed
/// slice and its allocation together. Reads as a slice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrefixRanks {
    ranks: [u32; MAX_LEVELS - 1],
    len: u8,
}

impl PrefixRanks {
    /// `depths` ranks of `u32::MAX` (no SID shares the target's prefix yet).
    pub fn unreached(depths: usize) -> Self {
        assert!(depths < MAX_LEVELS, "at most L − 1 prefix depths");
        PrefixRanks {
            ranks: [u32::MAX; MAX_LEVELS - 1],
            len: depths as u8,
        }
    }
}

impl std::ops::Deref for PrefixRanks {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.ranks[..usize::from(self.len)]
    }
}

impl std::ops::DerefMut for PrefixRanks {
    fn deref_mut(&mut self) -> &mut [u32] {
        &mut self.ranks[..usize::from(self.len)]
    }
}

impl UserOutcome {
    /// Hit@K: the target's SID is among the first K.
    pub fn hit(&self, k: usize) -> f64 {
        match self.sid_rank {
            Some(r) if (r as usize) < k => 1.0,
            _ => 0.0,
        }
    }

    /// NDCG@K with one relevant SID: 1/log2(rank + 1) (1-based rank); under `cce-py` every
    /// repeat of the target's SID within K adds its own term.
    pub fn ndcg(&self, k: usize) -> f64 {
        self.sid_rank
            .iter()
            .chain(self.repeat_ranks.iter())
            .filter(|&&r| (r as usize) < k)
            .fold(0.0, |sum, &r| sum + 1.0 / ((r as f64) + 2.0).log2())
    }

    /// ItemHit@K = e/G with e = min(G, max(0, K − P)): the chance that the target item itself
    /// is among the first K items when its group's block is expanded.
    pub fn item_hit(&self, k: usize) -> f64 {
        match self.item_block {
            Some(b) => effective(b, k) as f64 / f64::from(b.size),
            None => 0.0,
        }
    }

    /// MRR@K: 1/(rank + 1) of the target's SID (1-based rank) when it is among the first K.
    pub fn mrr(&self, k: usize) -> f64 {
        match self.sid_rank {
            Some(r) if (r as usize) < k => 1.0 / (f64::from(r) + 1.0),
            _ => 0.0,
        }
    }

    /// ItemMRR@K = (1/G)·Σ_{i=1..e} 1/(P + i): the expected reciprocal rank of the target item
    /// placed uniformly inside its group's block, truncated at K like ItemHit@K.
    pub fn item_mrr(&self, k: usize) -> f64 {
        match self.item_block {
            Some(b) => {
                let from = u64::from(b.before);
                harmonic_sum(from, from + effective(b, k)) / f64::from(b.size)
            }
            None => 0.0,
        }
    }

    /// PrefixHit@K at depth d (1..L−1): some SID among the first K shares the target's first
    /// d codes (did the model reach the right prefix group?); `None` without SIDs or for a
    /// depth the index does not have. Depth L is Hit@K itself.
    pub fn prefix_hit(&self, depth: usize, k: usize) -> Option<f64> {
        let r = *self.prefix_ranks.get(depth.checked_sub(1)?)?;
        Some(if (r as usize) < k { 1.0 } else { 0.0 })
    }

    /// ItemNDCG@K = (1/G)·Σ_{i=1..e} 1/log2(P + i + 1).
    pub fn item_ndcg(&self, k: usize) -> f64 {
        match self.item_block {
            Some(b) => {
                let from = u64::from(b.before);
                discount_sum(from, from + effective(b, k)) / f64::from(b.size)
            }
            None => 0.0,
        }
    }

    /// The least K at which some metric is not 0 (`usize::MAX`: none ever is): the target's
    /// SID, a repeat of it or its group's block must be among the first K. Below it every
    /// value is +0.0, which leaves a sum of non-negative values as it is, so sums skip it (half
    /// the users of a typical run miss at every K).
    pub fn first_scoring_k(&self) -> usize {
        let ranks = self.sid_rank.iter().chain(self.repeat_ranks.iter());
        let block = self.item_block.map(|b| match b.size {
            // An empty block's ItemHit is 0/0 at every K.
            0 => 0,
            _ => b.before as usize + 1,
        });
        ranks
            .map(|&r| r as usize + 1)
            .chain(block)
            .min()
            .unwrap_or(usize::MAX)
    }

    /// All six metrics at K.
    pub fn values(&self, k: usize) -> MetricValues {
        MetricValues {
            hit: self.hit(k),
            ndcg: self.ndcg(k),
            mrr: self.mrr(k),
            item_hit: self.item_hit(k),
            item_ndcg: self.item_ndcg(k),
            item_mrr: self.item_mrr(k),
        }
    }
}

/// e = min(G, max(0, K − P)): how many of the group's items fall within the first K.
fn effective(b: ItemBlock, k: usize) -> u64 {
    (k as u64)
        .saturating_sub(u64::from(b.before))
        .min(u64::from(b.size))
}

/// Positions up to which discount sums come from a table (beyond: summed directly).
const DISCOUNT_TABLE: usize = 4096;

/// Σ_{n=from+1..=to} 1/log2(n + 1), in O(1) from a prefix-sum table for ranks within it.
pub(super) fn discount_sum(from: u64, to: u64) -> f64 {
    static PREFIX: OnceLock<Vec<f64>> = OnceLock::new();
    if to <= from {
        return 0.0;
    }
    if to as usize <= DISCOUNT_TABLE {
        let prefix = PREFIX.get_or_init(|| {
            let mut sums = Vec::with_capacity(DISCOUNT_TABLE + 1);
            let mut total = 0.0;
            sums.push(total);
            for n in 1..=DISCOUNT_TABLE {
                total += 1.0 / ((n + 1) as f64).log2();
                sums.push(total);
            }
            sums
        });
        return prefix[to as usize] - prefix[from as usize];
    }
    (from + 1..=to).map(|n| 1.0 / ((n + 1) as f64).log2()).sum()
}

/// Σ_{n=from+1..=to} 1/n, in O(1) from a prefix-sum table for ranks within it.
pub(super) fn harmonic_sum(from: u64, to: u64) -> f64 {
    static PREFIX: OnceLock<Vec<f64>> = OnceLock::new();
    if to <= from {
        return 0.0;
    }
    if to as usize <= DISCOUNT_TABLE {
        let prefix = PREFIX.get_or_init(|| {
            let mut sums = Vec::with_capacity(DISCOUNT_TABLE + 1);
            let mut total = 0.0;
            sums.push(total);
            for n in 1..=DISCOUNT_TABLE {
                total += 1.0 / n as f64;
                sums.push(total);
            }
            sums
        });
        return prefix[to as usize] - prefix[from as usize];
    }
    (from + 1..=to).map(|n| 1.0 / n as f64).sum()
}

/// Hit, NDCG, MRR and their item-level counterparts at one K (per user, or averaged).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MetricValues {
    /// SID-level Hit@K.
    pub hit: f64,
    /// SID-level NDCG@K.
    pub ndcg: f64,
    /// SID-level MRR@K.
    pub mrr: f64,
    /// Item-level ItemHit@K.
    pub item_hit: f64,
    /// Item-level ItemNDCG@K.
    pub item_ndcg: f64,
    /// Item-level ItemMRR@K.
    pub item_mrr: f64,
}

impl MetricValues {
    /// How much Hit@K overstates ItemHit@K, in percent; `None` when ItemHit@K is 0.
    pub fn hit_inflation_pct(&self) -> Option<f64> {
        inflation_pct(self.hit, self.item_hit)
    }

    /// How much NDCG@K overstates ItemNDCG@K, in percent; `None` when ItemNDCG@K is 0.
    pub fn ndcg_inflation_pct(&self) -> Option<f64> {
        inflation_pct(self.ndcg, self.item_ndcg)
    }

    /// The values with their names (`Hit`, `NDCG`, `MRR`, `ItemHit`, `ItemNDCG`, `ItemMRR`),
    /// in the order reports list them.
    pub fn named(&self) -> [(&'static str, f64); 6] {
        [
            ("Hit", self.hit),
            ("NDCG", self.ndcg),
            ("MRR", self.mrr),
            ("ItemHit", self.item_hit),
            ("ItemNDCG", self.item_ndcg),
            ("ItemMRR", self.item_mrr),
        ]
    }

    pub(super) fn add(&mut self, other: MetricValues) {
        self.hit += other.hit;
        self.ndcg += other.ndcg;
        self.item_hit += other.item_hit;
        self.item_ndcg += other.item_ndcg;
        self.mrr += other.mrr;
        self.item_mrr += other.item_mrr;
    }

    pub(super) fn divided_by(self, n: f64) -> MetricValues {
        MetricValues {
            hit: self.hit / n,
            ndcg: self.ndcg / n,
            item_hit: self.item_hit / n,
            item_ndcg: self.item_ndcg / n,
            mrr: self.mrr / n,
            item_mrr: self.item_mrr / n,
        }
    }
}

/// (SID-level − item-level) / item-level · 100; `None` when the item-level value is 0.
pub fn inflation_pct(sid_level: f64, item_level: f64) -> Option<f64> {
    (item_level != 0.0).then(|| (sid_level - item_level) / item_level * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Below `first_scoring_k` every metric is +0.0 (what lets sums skip it), and at it
        /// some metric is not.
        #[test]
        fn first_scoring_k_is_where_credit_starts(
            sid_rank in prop::option::of(0u32..30),
            repeats in prop::collection::vec(0u32..30, 0..3),
            block in prop::option::of((0u32..40, 0u32..5)),
        ) {
            let o = UserOutcome {
                sid_rank,
                repeat_ranks: repeats.into_boxed_slice(),
                item_block: block.map(|(before, size)| ItemBlock { before, size }),
                ..UserOutcome::default()
            };
            let first = o.first_scoring_k();
            for k in 0..first.min(80) {
                for (name, v) in o.values(k).named() {
                    prop_assert_eq!(v.to_bits(), 0f64.to_bits(), "{} at K = {}", name, k);
                }
            }
            if first < 80 {
                prop_assert!(o.values(first).named().iter().any(|&(_, v)| v != 0.0));
            }
        }
    }
}
