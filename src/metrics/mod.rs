//! Collision-corrected evaluation (CCE) of beam outputs: SID-level Hit@K / NDCG@K and
//! item-level ItemHit@K / ItemNDCG@K, per user ([`UserOutcome`], any K in O(1)), in aggregate
//! ([`Accumulator`], flat memory) and per collision group ([`GroupCredit`]). One file per role:
//! `outcome` (the per-user formulas), `evaluator` (a beam list against an index), `aggregate`
//! (means over users, per-group credit), `lookup` (SID → collision group).

mod aggregate;
mod decode;
mod evaluator;
mod kind;
mod lookup;
mod outcome;
pub mod paper_results;
mod warnings;

pub use aggregate::{Accumulator, Credit, CreditIndex, EvalSummary, Evaluation, GroupCredit};
pub use decode::{
    Decode, DecodedAccumulator, DecodedSummary, DecodedValues, Decoder, recovered_pct,
};
pub use evaluator::{Anomalies, Evaluator, Scored};
pub use kind::Metric;
pub use outcome::{ItemBlock, MetricValues, PrefixRanks, UserOutcome, inflation_pct};
pub use warnings::{beyond_width_warning, eval_warnings, fit_warnings, k_warnings};

use serde::Serialize;

/// Which semantics to evaluate with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub enum Compat {
    /// sidlens's default: a beam SID that names no item (not in the index, or with another
    /// number of levels) is dropped, a repeated SID counts at its first occurrence only, and
    /// the target is the SID of `target_item` when the index has that item.
    #[default]
    #[serde(rename = "faithful")]
    Faithful,
    /// Exactly the reference `cce.py` + `test.py`, quirks included (an unknown SID is a group
    /// of one for the item-level metrics and moved to the end for the SID-level ones, repeats
    /// count every time, NDCG can exceed 1), so published numbers can be reproduced.
    #[serde(rename = "cce-py")]
    CcePy,
}

impl Compat {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Faithful => "faithful",
            Compat::CcePy => "cce-py",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::outcome::discount_sum;
    use super::*;
    use crate::collision::Collisions;
    use crate::load::SidIndex;
    use crate::load::beams::BeamRecord;
    use proptest::prelude::*;
    use std::path::Path;

    /// L = 2. Groups: <a_1><b_1> = {0} (G=1), <a_2><b_2> = {1, 2} (G=2),
    /// <a_3><b_3> = {3, 4, 5} (G=3), <a_4><b_4> = {6} (G=1).
    fn fixture() -> (SidIndex, Collisions) {
        let index = SidIndex::parse(
            br#"{"0": [1, 1], "1": [2, 2], "2": [2, 2], "3": [3, 3], "4": [3, 3], "5": [3, 3], "6": [4, 4]}"#,
            Path::new("t.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        (index, collisions)
    }

    fn score(compat: Compat, record: &str) -> Scored {
        let (index, collisions) = fixture();
        let rec = BeamRecord::from_json(record).unwrap();
        Evaluator::new(&index, &collisions, compat).evaluate(&rec)
    }

    fn both(record: &str) -> (Scored, Scored) {
        (
            score(Compat::Faithful, record),
            score(Compat::CcePy, record),
        )
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn disc(rank: u32) -> f64 {
        1.0 / f64::from(rank + 1).log2()
    }

    #[test]
    fn group_straddling_k() {
        // Target group {1, 2} (G = 2) after the G = 3 group: P = 3, so at K = 4 one of its two
        // items fits (ItemHit 1/2) and at K = 5 both do.
        let r = r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>"], "target_item": "1"}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        let o = &f.outcome;
        assert_eq!(o.sid_rank, Some(1));
        assert_eq!(o.item_block, Some(ItemBlock { before: 3, size: 2 }));
        assert_eq!((o.hit(1), o.hit(2)), (0.0, 1.0));
        assert!(close(o.ndcg(2), disc(2)));
        assert_eq!(
            [1, 3, 4, 5, 20].map(|k| o.item_hit(k)),
            [0.0, 0.0, 0.5, 1.0, 1.0]
        );
        assert!(close(o.item_ndcg(4), disc(4) / 2.0));
        assert!(close(o.item_ndcg(5), (disc(4) + disc(5)) / 2.0));
        assert!(close(o.item_ndcg(100), o.item_ndcg(5)));
        assert_eq!(o.target_group, Some(1));
        assert_eq!(o.target_item, Some(1));
    }

    #[test]
    fn reciprocal_ranks_and_prefix_hits() {
        // Target {1, 2} at SID rank 1 behind a G = 3 group: MRR@2 = 1/2; the target item sits
        // uniformly at item rank 4 or 5, so ItemMRR@5 = (1/4 + 1/5)/2 and ItemMRR@4 = (1/4)/2.
        let r = r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>"], "target_item": "1"}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        let o = &f.outcome;
        assert_eq!((o.mrr(1), o.mrr(2)), (0.0, 0.5));
        assert!(close(o.item_mrr(5), (0.25 + 0.2) / 2.0));
        assert!(close(o.item_mrr(4), 0.125));
        assert_eq!(o.item_mrr(3), 0.0);
        assert_eq!(o.values(20).item_mrr, o.item_mrr(5));
        // Depth 1 (<a_2>) is reached at rank 1, like the full SID; depth 2 = L is Hit itself.
        assert_eq!(&*o.prefix_ranks, &[1]);
        assert_eq!(
            (o.prefix_hit(1, 1), o.prefix_hit(1, 2)),
            (Some(0.0), Some(1.0))
        );
        assert_eq!((o.prefix_hit(0, 2), o.prefix_hit(2, 2)), (None, None));
        let miss = score(
            Compat::Faithful,
            r#"{"beam_sids": ["<a_3><b_3>"], "target_item": "0"}"#,
        );
        assert_eq!(miss.outcome.prefix_hit(1, 20), Some(0.0));
        assert_eq!(miss.outcome.values(20).mrr, 0.0);
        let ranked = score(
            Compat::Faithful,
            r#"{"ranked_items": ["5", "0"], "target_item": "0"}"#,
        );
        assert_eq!(ranked.outcome.prefix_hit(1, 20), None);
        assert_eq!(ranked.outcome.values(2).item_mrr, 0.5);
    }

    #[test]
    fn prefix_hits_average_over_users_per_depth() {
        let index = SidIndex::parse(
            br#"{"0": [1, 1, 1], "1": [1, 1, 2], "2": [1, 2, 1], "3": [2, 1, 1]}"#,
            Path::new("t.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        let ev = Evaluator::new(&index, &collisions, Compat::Faithful);
        // User 0 (target 0 = 1,1,1): rank 0 shares 2 codes (1,1,2). User 1 (target 3 = 2,1,1):
        // rank 0 shares nothing, rank 1 is the target.
        let records = [
            r#"{"beam_sids": ["<a_1><b_1><c_2>", "<a_1><b_2><c_1>"], "target_item": "0"}"#,
            r#"{"beam_sids": ["<a_1><b_1><c_1>", "<a_2><b_1><c_1>"], "target_item": "3"}"#,
        ];
        let mut acc = Accumulator::new(&[1, 2], false);
        for r in records {
            let s = ev.evaluate(&BeamRecord::from_json(r).unwrap());
            acc.add(&s.outcome, s.anomalies);
        }
        let summary = acc.finish(
            Compat::Faithful,
            |g| collisions.size(g),
            &ev.generated_counts(),
        );
        assert_eq!(summary.prefix_hits, vec![vec![0.5, 0.5], vec![1.0, 1.0]]);
        assert_eq!(summary.values[1].hit, 0.5);
        assert!(close(summary.values[1].mrr, 0.25));
    }

    #[test]
    fn items_before_beyond_k() {
        // A singleton target at SID rank 2 behind 3 + 2 items: Hit@2 = 1 but ItemHit@2..5 = 0.
        let r = r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>", "<a_4><b_4>"], "target_item": "6"}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        let o = &f.outcome;
        assert_eq!(o.item_block, Some(ItemBlock { before: 5, size: 1 }));
        assert_eq!(o.hit(3), 1.0);
        assert_eq!([3, 5, 6].map(|k| o.item_hit(k)), [0.0, 0.0, 1.0]);
        assert!(close(o.item_ndcg(6), disc(6)));
        assert!(close(o.ndcg(3), disc(3)));
    }

    #[test]
    fn misses_are_positive_zero() {
        let (f, c) = both(r#"{"beam_sids": ["<a_3><b_3>"], "target_item": "0"}"#);
        for v in [f.outcome.values(5), c.outcome.values(5)] {
            for (_, x) in v.named() {
                assert!(x == 0.0 && x.is_sign_positive(), "{v:?}");
            }
        }
    }

    #[test]
    fn short_and_empty_lists() {
        let short = score(
            Compat::Faithful,
            r#"{"beam_sids": ["<a_1><b_1>"], "target_item": "0"}"#,
        );
        assert_eq!(short.outcome.values(1), short.outcome.values(20));
        assert_eq!(short.outcome.values(20).item_ndcg, 1.0);
        let (f, c) = both(r#"{"beam_sids": [], "target_item": "3"}"#);
        assert_eq!(f, c);
        assert_eq!(f.outcome.values(20), MetricValues::default());
        assert_eq!(f.outcome.target_group, Some(2));
        assert_eq!(f.anomalies, Anomalies::default());
    }

    #[test]
    fn duplicates_count_once_faithfully_and_every_time_under_compat() {
        // Faithful: the repeat is dropped, the target is SID rank 1 after 3 items.
        // cce.py: P counts the G = 3 group twice (P = 6); the SID-level rank is 2.
        let r = r#"{"beam_sids": ["<a_3><b_3>", "<a_3><b_3>", "<a_1><b_1>"], "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.duplicate_sids, 1);
        assert_eq!(c.anomalies.duplicate_sids, 1);
        assert_eq!(f.outcome.sid_rank, Some(1));
        assert_eq!(f.outcome.item_block, Some(ItemBlock { before: 3, size: 1 }));
        assert_eq!((f.outcome.hit(2), f.outcome.item_hit(4)), (1.0, 1.0));
        assert_eq!(c.outcome.sid_rank, Some(2));
        assert_eq!(c.outcome.item_block, Some(ItemBlock { before: 6, size: 1 }));
        assert_eq!((c.outcome.hit(2), c.outcome.hit(3)), (0.0, 1.0));
        assert_eq!((c.outcome.item_hit(6), c.outcome.item_hit(7)), (0.0, 1.0));
    }

    #[test]
    fn repeated_target_adds_ndcg_only_under_compat() {
        let r = r#"{"beam_sids": ["<a_1><b_1>", "<a_2><b_2>", "<a_1><b_1>"], "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.outcome.ndcg(3), 1.0);
        assert!(f.outcome.repeat_ranks.is_empty());
        assert_eq!(&*c.outcome.repeat_ranks, &[2]);
        assert!(close(c.outcome.ndcg(3), 1.5));
        assert_eq!(c.outcome.ndcg(2), 1.0);
        assert_eq!(c.outcome.hit(3), 1.0);
        assert_eq!(c.outcome.item_hit(1), 1.0);
    }

    #[test]
    fn unknown_sids_are_dropped_faithfully_and_size_one_under_compat() {
        // "<a_9><b_9>" is in no group, "<a_1>" has one level, "x" is not a SID.
        let r = r#"{"beam_sids": ["<a_9><b_9>", "<a_1>", "x", "<a_1><b_1>"], "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.invalid_sids, 3);
        assert_eq!(f.outcome.sid_rank, Some(0));
        assert_eq!(f.outcome.item_block, Some(ItemBlock { before: 0, size: 1 }));
        assert_eq!(f.outcome.values(1).item_hit, 1.0);
        // cce.py: each unknown SID is a group of one (P = 3); test.py moves them to the end
        // for the SID-level metrics (rank 0).
        assert_eq!(c.anomalies.invalid_sids, 3);
        assert_eq!(c.outcome.item_block, Some(ItemBlock { before: 3, size: 1 }));
        assert_eq!(c.outcome.sid_rank, Some(0));
        assert_eq!((c.outcome.item_hit(3), c.outcome.item_hit(4)), (0.0, 1.0));
        assert!(close(c.outcome.item_ndcg(4), disc(4)));
    }

    #[test]
    fn unknown_target_under_compat_matches_its_string() {
        // The target SID is not in the index: faithful counts a miss; cce.py still finds the
        // string among the beams (G = 1 by its default), behind the other unknown SID.
        let r =
            r#"{"beam_sids": ["<a_8><b_8>", "<a_9><b_9>", "<a_1><b_1>"], "target": "<a_9><b_9>"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.unknown_targets, 1);
        assert_eq!(f.outcome.values(20), MetricValues::default());
        assert_eq!(c.anomalies.unknown_targets, 1);
        assert_eq!(c.outcome.item_block, Some(ItemBlock { before: 1, size: 1 }));
        assert_eq!(c.outcome.sid_rank, Some(2));
        assert_eq!(c.outcome.target_group, None);
    }

    #[test]
    fn target_item_wins_over_a_disagreeing_target_string() {
        let r = r#"{"beam_sids": ["<a_2><b_2>", "<a_1><b_1>"], "target": "<a_2><b_2>", "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.target_mismatches, 1);
        assert_eq!(c.anomalies.target_mismatches, 1);
        assert_eq!(f.outcome.sid_rank, Some(1));
        assert_eq!(f.outcome.target_group, Some(0));
        assert_eq!(c.outcome.sid_rank, Some(0));
        assert_eq!(c.outcome.target_group, Some(1));
        // A target item the index lacks falls back to the target string.
        let f = score(
            Compat::Faithful,
            r#"{"beam_sids": ["<a_2><b_2>"], "target": "<a_2><b_2>", "target_item": "77"}"#,
        );
        assert_eq!(f.outcome.sid_rank, Some(0));
        assert_eq!(f.outcome.target_item, None);
        let listed_once = Anomalies {
            listed: 1,
            ..Anomalies::default()
        };
        assert_eq!(f.anomalies, listed_once);
    }

    #[test]
    fn scores_rank_the_list_and_unknown_sids_sink_under_compat() {
        let r = r#"{"beam_sids": ["<a_1><b_1>", "<a_3><b_3>", "<a_2><b_2>"], "scores": [0.1, 0.9, 0.5], "target_item": "1"}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        assert_eq!(f.outcome.item_block, Some(ItemBlock { before: 3, size: 2 }));
        assert_eq!(f.outcome.sid_rank, Some(1));
        // Equal scores keep list order; the best-scored SID is unknown: cce.py ranks it first
        // for the item metrics (P = 1), test.py gives it −1000 for the SID metrics.
        let r = r#"{"beam_sids": ["<a_9><b_9>", "<a_1><b_1>", "<a_4><b_4>"], "scores": [-0.1, -0.5, -0.5], "target_item": "6"}"#;
        let (f, c) = both(r);
        assert_eq!(f.outcome.sid_rank, Some(1));
        assert_eq!(f.outcome.item_block, Some(ItemBlock { before: 1, size: 1 }));
        assert_eq!(c.outcome.sid_rank, Some(1));
        assert_eq!(c.outcome.item_block, Some(ItemBlock { before: 2, size: 1 }));
    }

    #[test]
    fn ranked_items_use_leave_one_out_hr_and_ndcg() {
        let r = r#"{"ranked_items": ["5", 0, "9"], "target_item": 0}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        let o = &f.outcome;
        assert_eq!((o.hit(1), o.hit(2)), (0.0, 1.0));
        assert!(close(o.ndcg(2), disc(2)));
        assert_eq!(o.values(2).item_hit, o.values(2).hit);
        assert_eq!(o.values(2).item_ndcg, o.values(2).ndcg);
        assert_eq!(o.target_group, Some(0));
        let r = r#"{"ranked_items": ["5", "5", "0"], "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.duplicate_sids, 1);
        assert_eq!(f.outcome.sid_rank, Some(1));
        assert_eq!(c.outcome.sid_rank, Some(2));
        let missing = score(
            Compat::Faithful,
            r#"{"ranked_items": ["5"], "target_item": "x"}"#,
        );
        assert_eq!(missing.outcome.sid_rank, None);
        assert_eq!(missing.outcome.target_group, None);
    }

    #[test]
    fn discount_sums_match_direct_sums() {
        let direct = |from: u64, to: u64| -> f64 {
            (from + 1..=to).map(|n| 1.0 / ((n + 1) as f64).log2()).sum()
        };
        for (a, b) in [
            (0, 1),
            (3, 7),
            (0, 20),
            (4090, 4096),
            (4095, 4100),
            (10_000, 10_010),
        ] {
            assert!(close(discount_sum(a, b), direct(a, b)), "{a}..{b}");
        }
        assert_eq!(discount_sum(5, 5), 0.0);
    }

    #[test]
    fn accumulator_sums_metrics_and_group_credit() {
        let (index, collisions) = fixture();
        let ev = Evaluator::new(&index, &collisions, Compat::Faithful);
        let records = [
            r#"{"beam_sids": ["<a_3><b_3>", "<a_1><b_1>"], "target_item": "3"}"#,
            r#"{"beam_sids": ["<a_1><b_1>", "<a_3><b_3>"], "target_item": "4"}"#,
            r#"{"beam_sids": ["<a_9><b_9>"], "target_item": "0"}"#,
        ];
        let mut acc = Accumulator::new(&[1, 3], true);
        for r in records {
            let s = ev.evaluate(&BeamRecord::from_json(r).unwrap());
            acc.add(&s.outcome, s.anomalies);
        }
        let summary = acc.finish(
            Compat::Faithful,
            |g| collisions.size(g),
            &ev.generated_counts(),
        );
        assert_eq!(summary.n_users, 3);
        assert_eq!(summary.anomalies.invalid_sids, 1);
        // User 0: rank 0, P = 0, G = 3. User 1: rank 1, P = 1, G = 3. User 2: nothing valid.
        // Hit@1 = 1/3; ItemHit@1 = (1/3)/3; Hit@3 = 2/3; ItemHit@3 = (1 + 2/3)/3 = 5/9.
        assert!(close(summary.values[0].hit, 1.0 / 3.0));
        assert!(close(summary.values[0].item_hit, 1.0 / 9.0));
        assert!(close(summary.values[1].hit, 2.0 / 3.0));
        assert!(close(summary.values[1].item_hit, 5.0 / 9.0));
        assert!(close(summary.values[1].hit_inflation_pct().unwrap(), 20.0));
        let top = summary.top_groups(5);
        assert_eq!(top.len(), 2);
        let g3 = top[0];
        assert_eq!((g3.group, g3.size, g3.targets, g3.generated), (2, 3, 2, 2));
        assert_eq!(g3.sid_credit, vec![1.0, 2.0]);
        assert!(close(g3.item_credit[0], 1.0 / 3.0));
        assert!(close(g3.item_credit[1], 5.0 / 3.0));
        assert!(close(g3.over_credit(1), 1.0 / 3.0));
        assert_eq!((top[1].group, top[1].generated), (0, 2));
        assert_eq!(ev.generated_counts(), vec![2, 0, 2, 0]);
    }

    #[test]
    fn inflation_is_undefined_without_item_level_credit() {
        assert_eq!(inflation_pct(0.5, 0.0), None);
        assert_eq!(inflation_pct(0.3, 0.2), Some((0.3 - 0.2) / 0.2 * 100.0));
    }

    fn sid(codes: (u16, u16)) -> String {
        format!("<a_{}><b_{}>", codes.0, codes.1)
    }

    proptest! {
        /// Faithful metrics are probabilities, item-level never exceeds SID-level, both grow
        /// with K, and they meet once K covers the whole block.
        #[test]
        fn faithful_invariants(
            beams in proptest::collection::vec((0u16..6, 0u16..6), 0..25),
            target in 0usize..7,
            k in 1usize..40,
        ) {
            let (index, collisions) = fixture();
            let ev = Evaluator::new(&index, &collisions, Compat::Faithful);
            let list: Vec<String> = beams.iter().map(|&c| sid(c)).collect();
            let record = serde_json::json!({"beam_sids": list, "target_item": target.to_string()});
            let s = ev.evaluate(&BeamRecord::from_json(&record.to_string()).unwrap());
            let (now, next) = (s.outcome.values(k), s.outcome.values(k + 1));
            for v in [now, next] {
                prop_assert!(v.item_hit <= v.hit + 1e-12 && v.hit <= 1.0);
                prop_assert!(v.item_ndcg <= v.ndcg + 1e-12 && v.ndcg <= 1.0 + 1e-12);
                prop_assert!(v.item_hit >= 0.0 && v.item_ndcg >= 0.0);
                prop_assert!(v.item_mrr <= v.mrr + 1e-12 && v.mrr <= v.ndcg + 1e-12);
            }
            prop_assert!(s.outcome.prefix_hit(1, k).unwrap() >= now.hit);
            prop_assert!(next.item_hit >= now.item_hit && next.item_ndcg >= now.item_ndcg - 1e-15);
            if let Some(b) = s.outcome.item_block {
                let all = (b.before + b.size) as usize;
                prop_assert_eq!(s.outcome.item_hit(all), 1.0);
            }
            let valid = beams.iter().filter(|&&(a, b)| a == b && (1..=4).contains(&a)).count() as u64;
            prop_assert_eq!(s.anomalies.invalid_sids, beams.len() as u64 - valid);
        }
    }

    /// An evaluator that groups the items itself scores every record as one built on
    /// `Collisions` does; only the numbers of the target's group may differ.
    #[test]
    fn an_evaluator_without_collisions_scores_the_same() {
        let (index, collisions) = fixture();
        for compat in [Compat::Faithful, Compat::CcePy] {
            let with = Evaluator::new(&index, &collisions, compat);
            let without = Evaluator::without_collisions(&index, compat);
            assert_eq!(with.collision_rate(), without.collision_rate());
            for record in [
                r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>", "<a_9><b_9>"], "target_item": "4"}"#,
                r#"{"beam_sids": ["<a_2><b_2>", "<a_2><b_2>", "<a_1><b_1>"], "target_item": "2"}"#,
                r#"{"beam_sids": ["<a_4><b_4>"], "target_item": "6", "scores": [0.5]}"#,
                r#"{"beam_sids": ["<a_1><b_1>"], "target_item": "77"}"#,
                r#"{"beam_sids": [], "target_item": "0"}"#,
            ] {
                let rec = BeamRecord::from_json(record).unwrap();
                let (mut a, mut b) = (with.evaluate(&rec), without.evaluate(&rec));
                assert_eq!(
                    a.outcome.target_group.is_some(),
                    b.outcome.target_group.is_some()
                );
                (a.outcome.target_group, b.outcome.target_group) = (None, None);
                assert_eq!(a, b, "{record}");
            }
        }
    }

    /// One group's credit from the index equals [`Evaluation::summary`] for every group and K.
    #[test]
    fn credit_index_matches_the_summary() {
        let index = SidIndex::parse(
            br#"{"0": [1, 1], "1": [1, 1], "2": [1, 1], "3": [2, 2], "4": [2, 2], "5": [3, 3]}"#,
            Path::new("t.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        let evaluator = Evaluator::new(&index, &collisions, Compat::Faithful);
        let records = [
            r#"{"beam_sids": ["<a_1><b_1>", "<a_2><b_2>"], "target_item": "0"}"#,
            r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>"], "target_item": "4"}"#,
            r#"{"beam_sids": ["<a_2><b_2>", "<a_1><b_1>"], "target_item": "1"}"#,
            r#"{"beam_sids": ["<a_3><b_3>"], "target_item": "5"}"#,
        ];
        let outcomes = records
            .iter()
            .map(|r| {
                evaluator
                    .evaluate(&BeamRecord::from_json(r).unwrap())
                    .outcome
            })
            .collect();
        let evaluation = Evaluation {
            compat: Compat::Faithful,
            outcomes,
            anomalies: Anomalies::default(),
            generated: evaluator.generated_counts(),
            list_width: 2,
        };
        let ks = [1, 2, 3, 5, 10];
        let summary = evaluation.summary(&ks, &collisions);
        let credits = CreditIndex::new(&evaluation);
        for (i, &k) in ks.iter().enumerate() {
            for g in &summary.groups {
                let c = credits.credit(&evaluation, g.group, k).unwrap();
                assert_eq!(c.targets, g.targets);
                assert_eq!(c.sid, g.sid_credit[i]);
                assert_eq!(c.item, g.item_credit[i]);
                assert_eq!(c.over(), g.over_credit(i));
            }
        }
        assert_eq!(summary.groups.len(), 3);
        assert_eq!(
            credits.credit(&evaluation, collisions.group_of(3) + 100, 1),
            None
        );
    }
}
