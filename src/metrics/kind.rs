//! The metrics by name, so that reports, seeds and paired tests can pick one per user.

use super::UserOutcome;

/// One per-user metric at a cut-off K.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// SID-level Hit@K.
    Hit,
    /// SID-level NDCG@K.
    Ndcg,
    /// SID-level MRR@K.
    Mrr,
    /// Item-level ItemHit@K.
    ItemHit,
    /// Item-level ItemNDCG@K.
    ItemNdcg,
    /// Item-level ItemMRR@K.
    ItemMrr,
}

impl Metric {
    /// The metrics `compare` shows and tests, in table order.
    pub const COMPARED: [Metric; 4] =
        [Metric::Hit, Metric::ItemHit, Metric::Ndcg, Metric::ItemNdcg];

    /// The name reports use, without the `@K`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Hit => "Hit",
            Metric::Ndcg => "NDCG",
            Metric::Mrr => "MRR",
            Metric::ItemHit => "ItemHit",
            Metric::ItemNdcg => "ItemNDCG",
            Metric::ItemMrr => "ItemMRR",
        }
    }

    /// `Hit@10` and the like.
    pub fn at(self, k: usize) -> String {
        format!("{}@{k}", self.name())
    }

    /// One user's value at `k`.
    pub fn value(self, o: &UserOutcome, k: usize) -> f64 {
        match self {
            Metric::Hit => o.hit(k),
            Metric::Ndcg => o.ndcg(k),
            Metric::Mrr => o.mrr(k),
            Metric::ItemHit => o.item_hit(k),
            Metric::ItemNdcg => o.item_ndcg(k),
            Metric::ItemMrr => o.item_mrr(k),
        }
    }

    /// The item-level counterpart of a SID-level metric (itself when already item-level).
    pub fn item_level(self) -> Metric {
        match self {
            Metric::Hit => Metric::ItemHit,
            Metric::Ndcg => Metric::ItemNdcg,
            Metric::Mrr => Metric::ItemMrr,
            other => other,
        }
    }
}
