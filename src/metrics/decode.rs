//! Item-level credit by decoding each SID to one item, as OpenOneRec's evaluator does
//! (`most_popular` or `random`), shown beside CCE's 1/G share, never instead of it: a decoded
//! beam list ranks one item per SID, so the target scores only when its SID decodes to it.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

use super::UserOutcome;
use crate::collision::Collisions;
use crate::collision::popularity::Popularity;
use crate::load::SidIndex;
use crate::numeric::random::SeededRng;

/// How items inside a collision group are credited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Decode {
    /// Collision-corrected evaluation only: the target is uniform in its group's block.
    #[default]
    Cce,
    /// Each SID decodes to its most popular item in the training interactions (ties: the
    /// smallest item id).
    Popular,
    /// Each SID decodes to one of its items drawn once with the seeded generator.
    Random {
        /// The generator's seed.
        seed: u64,
    },
}

impl Decode {
    /// `cce`, `popular` or `random:SEED`: the spelling of `--decode` and of JSON.
    pub fn name(self) -> String {
        match self {
            Decode::Cce => "cce".into(),
            Decode::Popular => "popular".into(),
            Decode::Random { seed } => format!("random:{seed}"),
        }
    }

    /// Whether the credit needs training interactions.
    pub fn needs_popularity(self) -> bool {
        self == Decode::Popular
    }
}

impl fmt::Display for Decode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Decode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "cce" => Ok(Decode::Cce),
            "popular" => Ok(Decode::Popular),
            other => match other.strip_prefix("random:") {
                Some(seed) => seed
                    .parse()
                    .map(|seed| Decode::Random { seed })
                    .map_err(|_| {
                        format!(
                            "random:SEED needs a whole number of at least 0 as seed, not {seed:?}"
                        )
                    }),
                None if other == "random" => {
                    Err("random decoding needs a seed: random:SEED, e.g. random:0".into())
                }
                None => Err(format!(
                    "expected cce, popular or random:SEED, not {other:?}"
                )),
            },
        }
    }
}

impl Serialize for Decode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// The item each SID decodes to (by collision group), for one index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoder {
    decode: Decode,
    picks: Vec<u32>,
}

impl Decoder {
    /// Decodes every SID of `index` to its most popular item (ties: smallest id).
    pub fn popular(index: &SidIndex, collisions: &Collisions, popularity: &Popularity) -> Self {
        let picks = (0..collisions.n_groups() as u32)
            .map(|g| {
                let items = collisions.items(g);
                *items
                    .iter()
                    .min_by(|&&a, &&b| popularity.cmp_popular(index, a as usize, b as usize))
                    .expect("a collision group has an item")
            })
            .collect();
        Decoder {
            decode: Decode::Popular,
            picks,
        }
    }

    /// Decodes every SID to one of its items, drawn uniformly from the group's items in id
    /// order with the stream of the group's number under `seed`.
    pub fn random(index: &SidIndex, collisions: &Collisions, seed: u64) -> Self {
        let picks = (0..collisions.n_groups() as u32)
            .map(|g| {
                let items = collisions.items(g);
                if items.len() == 1 {
                    return items[0];
                }
                let mut sorted = items.to_vec();
                sorted.sort_by(|&a, &b| index.ids().cmp_ids(a as usize, b as usize));
                sorted[SeededRng::for_stream(seed, u64::from(g)).below(sorted.len())]
            })
            .collect();
        Decoder {
            decode: Decode::Random { seed },
            picks,
        }
    }

    /// The decoder for `decode`; `None` for CCE, and for popular decoding without popularity.
    pub fn new(
        decode: Decode,
        index: &SidIndex,
        collisions: &Collisions,
        popularity: Option<&Popularity>,
    ) -> Option<Self> {
        match decode {
            Decode::Cce => None,
            Decode::Popular => popularity.map(|p| Decoder::popular(index, collisions, p)),
            Decode::Random { seed } => Some(Decoder::random(index, collisions, seed)),
        }
    }

    /// Which decoding this is.
    pub fn decode(&self) -> Decode {
        self.decode
    }

    /// The index position of the item collision group `group` decodes to.
    pub fn item_of(&self, group: u32) -> u32 {
        self.picks[group as usize]
    }

    /// Whether the user's target is the item its SID decodes to (ranked-item records are
    /// already items: always); `None` when the record names no target item the index has.
    pub fn target_decoded(&self, o: &UserOutcome) -> Option<bool> {
        if o.ranked_items {
            return Some(o.target_item.is_some());
        }
        let (g, item) = (o.target_group?, o.target_item?);
        Some(self.item_of(g) == item)
    }

    /// DecodedHit, DecodedNDCG and DecodedMRR at `k`: the SID-level value when the target's
    /// SID decodes to the target item, else 0 (the decoded list has one item per SID, so the
    /// target's item rank is its SID rank).
    pub fn values(&self, o: &UserOutcome, k: usize) -> DecodedValues {
        if self.target_decoded(o) != Some(true) {
            return DecodedValues::default();
        }
        DecodedValues {
            hit: o.hit(k),
            ndcg: o.ndcg(k),
            mrr: o.mrr(k),
        }
    }
}

/// Item-level Hit, NDCG and MRR of a decoded list at one K (per user, or averaged).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct DecodedValues {
    /// DecodedHit@K.
    pub hit: f64,
    /// DecodedNDCG@K.
    pub ndcg: f64,
    /// DecodedMRR@K.
    pub mrr: f64,
}

impl DecodedValues {
    /// The values with their names, in report order.
    pub fn named(&self) -> [(&'static str, f64); 3] {
        [
            ("DecodedHit", self.hit),
            ("DecodedNDCG", self.ndcg),
            ("DecodedMRR", self.mrr),
        ]
    }

    fn add(&mut self, o: DecodedValues) {
        self.hit += o.hit;
        self.ndcg += o.ndcg;
        self.mrr += o.mrr;
    }
}

/// Mean decoded credit over users at a list of K.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecodedSummary {
    /// The decoding.
    pub decode: Decode,
    /// The K values.
    pub ks: Vec<usize>,
    /// Means over all users, one per K.
    pub values: Vec<DecodedValues>,
    /// Users counted.
    pub n_users: u64,
    /// Users whose record names no target item the index has (they score 0).
    pub users_without_target_item: u64,
    /// Users whose target's SID decodes to the target item.
    pub users_decoded_to_target: u64,
}

/// Sums decoded credit user by user (flat memory), like [`super::Accumulator`].
pub struct DecodedAccumulator<'a> {
    decoder: &'a Decoder,
    ks: Vec<usize>,
    sums: Vec<DecodedValues>,
    n_users: u64,
    without_target: u64,
    decoded: u64,
}

impl<'a> DecodedAccumulator<'a> {
    /// An empty sum for `ks`.
    pub fn new(decoder: &'a Decoder, ks: &[usize]) -> Self {
        DecodedAccumulator {
            decoder,
            ks: ks.to_vec(),
            sums: vec![DecodedValues::default(); ks.len()],
            n_users: 0,
            without_target: 0,
            decoded: 0,
        }
    }

    /// Adds one user.
    pub fn add(&mut self, o: &UserOutcome) {
        self.n_users += 1;
        match self.decoder.target_decoded(o) {
            None => self.without_target += 1,
            Some(true) => self.decoded += 1,
            Some(false) => {}
        }
        for (sum, &k) in self.sums.iter_mut().zip(&self.ks) {
            sum.add(self.decoder.values(o, k));
        }
    }

    /// The means.
    pub fn finish(self) -> DecodedSummary {
        let n = self.n_users.max(1) as f64;
        DecodedSummary {
            decode: self.decoder.decode,
            values: self
                .sums
                .iter()
                .map(|s| DecodedValues {
                    hit: s.hit / n,
                    ndcg: s.ndcg / n,
                    mrr: s.mrr / n,
                })
                .collect(),
            ks: self.ks,
            n_users: self.n_users,
            users_without_target_item: self.without_target,
            users_decoded_to_target: self.decoded,
        }
    }
}

impl Decoder {
    /// Mean decoded credit of every user in `outcomes` at `ks`.
    pub fn summarize(&self, outcomes: &[UserOutcome], ks: &[usize]) -> DecodedSummary {
        let mut acc = DecodedAccumulator::new(self, ks);
        for o in outcomes {
            acc.add(o);
        }
        acc.finish()
    }
}

/// Share of the inflation a decoding wins back, in percent: (decoded − CCE item-level) /
/// (SID-level − CCE item-level) · 100. 100 means the decoded credit reaches the SID-level
/// value, 0 that it is no better than CCE, below 0 that it is worse; `None` without inflation
/// (a gap within rounding of the two means, 1e-12, is none).
pub fn recovered_pct(sid_level: f64, item_level: f64, decoded: f64) -> Option<f64> {
    let gap = sid_level - item_level;
    (gap.abs() > 1e-12).then(|| (decoded - item_level) / gap * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::beams::BeamRecord;
    use crate::metrics::{Compat, Evaluator};
    use std::path::Path;

    /// Groups: <a_1><b_1> = {0}, <a_2><b_2> = {1, 2}, <a_3><b_3> = {3, 4, 5}.
    fn fixture() -> (SidIndex, Collisions) {
        let index = SidIndex::parse(
            br#"{"0": [1, 1], "1": [2, 2], "2": [2, 2], "3": [3, 3], "4": [3, 3], "5": [3, 3]}"#,
            Path::new("t.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        (index, collisions)
    }

    fn outcome(index: &SidIndex, collisions: &Collisions, record: &str) -> UserOutcome {
        Evaluator::new(index, collisions, Compat::Faithful)
            .evaluate(&BeamRecord::from_json(record).unwrap())
            .outcome
    }

    #[test]
    fn names_parse_and_print_alike() {
        for d in [Decode::Cce, Decode::Popular, Decode::Random { seed: 7 }] {
            assert_eq!(d.name().parse::<Decode>(), Ok(d));
        }
        assert!("random".parse::<Decode>().unwrap_err().contains("seed"));
        assert!("random:x".parse::<Decode>().unwrap_err().contains("\"x\""));
        assert!("first".parse::<Decode>().unwrap_err().contains("popular"));
        assert_eq!(
            serde_json::to_string(&Decode::Random { seed: 3 }).unwrap(),
            "\"random:3\""
        );
    }

    #[test]
    fn popular_decoding_credits_only_the_most_popular_member() {
        let (index, collisions) = fixture();
        // Item 2 beats 1; 4 and 5 tie (3 each) and 4 has the smaller id.
        let pop = Popularity::from_counts(vec![0, 1, 5, 0, 3, 3]);
        let d = Decoder::popular(&index, &collisions, &pop);
        let g = |p: usize| collisions.group_of(p);
        assert_eq!(
            (d.item_of(g(1)), d.item_of(g(3)), d.item_of(g(0))),
            (2, 4, 0)
        );
        let beams = r#""beam_sids": ["<a_3><b_3>", "<a_2><b_2>"]"#;
        let hit = outcome(
            &index,
            &collisions,
            &format!("{{{beams}, \"target_item\": \"2\"}}"),
        );
        let miss = outcome(
            &index,
            &collisions,
            &format!("{{{beams}, \"target_item\": \"1\"}}"),
        );
        let v = d.values(&hit, 2);
        assert_eq!((v.hit, v.mrr), (1.0, 0.5));
        assert!((v.ndcg - 1.0 / 3f64.log2()).abs() < 1e-15);
        assert_eq!(d.values(&hit, 1), DecodedValues::default());
        assert_eq!(d.values(&miss, 20), DecodedValues::default());
        // CCE gives both users half a hit at K = 5 (P = 3, G = 2); popularity all or nothing.
        assert_eq!((hit.item_hit(4), miss.item_hit(4)), (0.5, 0.5));
        let s = d.summarize(&[hit, miss], &[1, 2]);
        assert_eq!((s.values[0].hit, s.values[1].hit), (0.0, 0.5));
        assert_eq!(
            (s.users_decoded_to_target, s.users_without_target_item),
            (1, 0)
        );
    }

    #[test]
    fn random_decoding_is_fixed_by_its_seed_and_picks_a_member() {
        let (index, collisions) = fixture();
        let a = Decoder::random(&index, &collisions, 11);
        assert_eq!(a, Decoder::random(&index, &collisions, 11));
        for g in 0..collisions.n_groups() as u32 {
            assert!(collisions.items(g).contains(&a.item_of(g)));
        }
        // Over many seeds, every member of the three-item group is picked sometimes.
        let g = collisions.group_of(3);
        let picked: std::collections::BTreeSet<u32> = (0..64)
            .map(|s| Decoder::random(&index, &collisions, s).item_of(g))
            .collect();
        assert_eq!(picked.into_iter().collect::<Vec<_>>(), [3, 4, 5]);
    }

    #[test]
    fn ranked_items_and_missing_targets() {
        let (index, collisions) = fixture();
        let d = Decoder::random(&index, &collisions, 0);
        let ranked = outcome(
            &index,
            &collisions,
            r#"{"ranked_items": ["4", "1"], "target_item": "1"}"#,
        );
        assert_eq!(d.values(&ranked, 2).hit, 1.0);
        let no_item = outcome(
            &index,
            &collisions,
            r#"{"beam_sids": ["<a_1><b_1>"], "target": "<a_1><b_1>"}"#,
        );
        assert_eq!(no_item.hit(1), 1.0);
        assert_eq!(d.target_decoded(&no_item), None);
        let s = d.summarize(&[ranked, no_item], &[5]);
        assert_eq!((s.values[0].hit, s.users_without_target_item), (0.5, 1));
    }

    #[test]
    fn recovered_share_of_the_inflation() {
        assert!((recovered_pct(0.2, 0.1, 0.15).unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(recovered_pct(0.2, 0.1, 0.2), Some(100.0));
        assert_eq!(recovered_pct(0.1, 0.1, 0.1), None);
        assert_eq!(recovered_pct(0.0643 + 1e-17, 0.0643, 0.0643), None);
        assert!(recovered_pct(0.2, 0.1, 0.05).unwrap() < 0.0);
    }
}
