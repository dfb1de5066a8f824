//! Item popularity from the training part of the interactions — every user's sequence without
//! its last two items (the leave-one-out split of the paper and its reference code) — and the
//! head / mid / tail tiers it defines. Used to decode an SID to one item and to see how popular
//! and rare items are spread over collision groups.

use std::cmp::Ordering;

use serde::Serialize;

use crate::load::{Interactions, SidIndex};

/// Items held out at the end of each user's sequence (validation and test target).
pub const HELD_OUT: usize = 2;

/// Share of the items (by popularity rank) in the head tier.
pub const HEAD_SHARE: f64 = 0.2;

/// Share of the items after the head that form the mid tier.
pub const MID_SHARE: f64 = 0.3;

/// Training interaction counts of the items of one index (indexed by index position).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Popularity {
    counts: Vec<u32>,
    /// Training interactions counted (those of items the index has).
    pub n_counted: u64,
    /// Training interactions with an item the index does not have (not counted).
    pub n_unknown: u64,
}

/// A popularity tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// The most-interacted 20 % of the items.
    Head,
    /// The next 30 %.
    Mid,
    /// The rest (half of the items, most with few or no training interactions).
    Tail,
}

impl Tier {
    /// The three tiers, most popular first.
    pub const ALL: [Tier; 3] = [Tier::Head, Tier::Mid, Tier::Tail];

    /// `head`, `mid` or `tail`.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Head => "head",
            Tier::Mid => "mid",
            Tier::Tail => "tail",
        }
    }
}

impl Popularity {
    /// Counts every user's training items (all but the last [`HELD_OUT`]) for the items of
    /// `index`; an item of the interactions the index lacks is counted in `n_unknown`.
    pub fn training(index: &SidIndex, interactions: &Interactions) -> Popularity {
        let mut by_number = vec![0u32; interactions.n_items()];
        for u in 0..interactions.n_users() {
            let seq = interactions.sequence(u);
            for &item in &seq[..seq.len().saturating_sub(HELD_OUT)] {
                by_number[item as usize] += 1;
            }
        }
        let mut counts = vec![0u32; index.n_items()];
        let mut n_counted = 0;
        let mut n_unknown = 0;
        for (number, &c) in by_number.iter().enumerate() {
            match index.ids().position(interactions.item(number as u32)) {
                Some(p) => {
                    counts[p] = c;
                    n_counted += u64::from(c);
                }
                None => n_unknown += u64::from(c),
            }
        }
        Popularity {
            counts,
            n_counted,
            n_unknown,
        }
    }

    /// Popularity from counts given per index position (tests, callers with their own counts).
    pub fn from_counts(counts: Vec<u32>) -> Popularity {
        let n_counted = counts.iter().map(|&c| u64::from(c)).sum();
        Popularity {
            counts,
            n_counted,
            n_unknown: 0,
        }
    }

    /// The training count of the item at index position `p`.
    pub fn count(&self, p: usize) -> u32 {
        self.counts[p]
    }

    /// Counts per index position.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// Orders two items most popular first, ties by item id (numerically for integer ids).
    pub fn cmp_popular(&self, index: &SidIndex, a: usize, b: usize) -> Ordering {
        self.counts[b]
            .cmp(&self.counts[a])
            .then_with(|| index.ids().cmp_ids(a, b))
    }

    /// Every item's tier: items ranked by [`Popularity::cmp_popular`]; the first
    /// ⌈20 % · n⌉ are head, up to ⌈50 % · n⌉ mid, the rest tail.
    pub fn tiers(&self, index: &SidIndex) -> Vec<Tier> {
        let n = self.counts.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| self.cmp_popular(index, a, b));
        let head = (n as f64 * HEAD_SHARE).ceil() as usize;
        let mid = (n as f64 * (HEAD_SHARE + MID_SHARE)).ceil() as usize;
        let mut tiers = vec![Tier::Tail; n];
        for (rank, &p) in order.iter().enumerate() {
            tiers[p] = if rank < head {
                Tier::Head
            } else if rank < mid {
                Tier::Mid
            } else {
                Tier::Tail
            };
        }
        tiers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn index(json: &str) -> SidIndex {
        SidIndex::parse(json.as_bytes(), Path::new("t.json"), None).unwrap()
    }

    #[test]
    fn training_counts_leave_out_the_last_two_items() {
        let idx = index(r#"{"1": [1, 1], "2": [1, 2], "3": [2, 1], "10": [2, 2]}"#);
        let inter = Interactions::from_sequences(
            Path::new("i.json"),
            [
                ("u".to_string(), vec!["1", "2", "1", "3", "10"]),
                ("v".to_string(), vec!["3", "2"]),
                ("w".to_string(), vec!["99", "3", "1", "2"]),
            ],
        )
        .unwrap();
        let p = Popularity::training(&idx, &inter);
        // u trains on 1, 2, 1; v on nothing; w on 99 (unknown), 3.
        assert_eq!(p.counts(), &[2, 1, 1, 0]);
        assert_eq!((p.n_counted, p.n_unknown), (4, 1));
    }

    #[test]
    fn tiers_rank_by_count_then_id() {
        let json: String = format!(
            "{{{}}}",
            (0..10)
                .map(|i| format!("\"{i}\": [{i}, 0]"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let idx = index(&json);
        let p = Popularity::from_counts(vec![5, 0, 0, 9, 5, 1, 0, 0, 2, 0]);
        let t = p.tiers(&idx);
        // Ranked: 3 (9), 0 (5), 4 (5), 8 (2), 5 (1), then 1, 2, 6, 7, 9 (0) by id.
        assert_eq!(&t[..], &{
            use Tier::*;
            [Head, Tail, Tail, Head, Mid, Mid, Tail, Tail, Mid, Tail]
        });
        assert_eq!(p.cmp_popular(&idx, 0, 4), Ordering::Less);
        assert_eq!(p.cmp_popular(&idx, 4, 0), Ordering::Greater);
    }
}
