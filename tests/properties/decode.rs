//! Property tests of the decoded item credit on random small indexes and beam lists: a decoded
//! SID stands for exactly one item, so per user the decoded hit is 0 or 1, never above the
//! SID-level hit, and over the members of a group exactly one is credited; on a collision-free
//! index CCE, popular and random decoding all agree with the SID-level metrics.

use std::path::Path;

use proptest::prelude::*;
use sidlens::collision::Collisions;
use sidlens::collision::popularity::Popularity;
use sidlens::load::SidIndex;
use sidlens::load::beams::BeamRecord;
use sidlens::metrics::{Compat, Decoder, Evaluator, UserOutcome};

#[derive(Debug, Clone)]
struct Case {
    codes: Vec<(u8, u8)>,
    counts: Vec<u32>,
    beams: Vec<(u8, u8)>,
    seed: u64,
}

fn case(max_code: u8) -> impl Strategy<Value = Case> {
    (1usize..=12).prop_flat_map(move |n| {
        (
            proptest::collection::vec((0..max_code, 0..max_code), n),
            proptest::collection::vec(0u32..4, n),
            proptest::collection::vec((0..max_code, 0..max_code), 0..8),
            any::<u64>(),
        )
            .prop_map(|(codes, counts, beams, seed)| Case {
                codes,
                counts,
                beams,
                seed,
            })
    })
}

fn index_of(codes: &[(u8, u8)]) -> SidIndex {
    let body: Vec<String> = codes
        .iter()
        .enumerate()
        .map(|(i, (a, b))| format!("\"{i}\": [{a}, {b}]"))
        .collect();
    SidIndex::parse(
        format!("{{{}}}", body.join(", ")).as_bytes(),
        Path::new("p.json"),
        Some(8),
    )
    .unwrap()
}

fn outcomes(index: &SidIndex, collisions: &Collisions, beams: &[(u8, u8)]) -> Vec<UserOutcome> {
    let sids: Vec<String> = beams
        .iter()
        .map(|(a, b)| format!("\"<a_{a}><b_{b}>\""))
        .collect();
    let ev = Evaluator::new(index, collisions, Compat::Faithful);
    (0..index.n_items())
        .map(|t| {
            let rec = format!(
                "{{\"beam_sids\": [{}], \"target_item\": \"{t}\"}}",
                sids.join(", ")
            );
            ev.evaluate(&BeamRecord::from_json(&rec).unwrap()).outcome
        })
        .collect()
}

proptest! {
    #[test]
    fn one_item_per_sid(c in case(3)) {
        let index = index_of(&c.codes);
        let collisions = Collisions::new(&index);
        let popular = Decoder::popular(&index, &collisions, &Popularity::from_counts(c.counts.clone()));
        let random = Decoder::random(&index, &collisions, c.seed);
        let users = outcomes(&index, &collisions, &c.beams);
        for d in [&popular, &random] {
            for g in 0..collisions.n_groups() as u32 {
                prop_assert!(collisions.items(g).contains(&d.item_of(g)));
            }
            for k in [1, 2, 5, 20] {
                for o in &users {
                    let v = d.values(o, k);
                    prop_assert!(v.hit == 0.0 || v.hit == 1.0);
                    prop_assert!(v.hit <= o.hit(k) && v.ndcg <= o.ndcg(k) && v.mrr <= o.mrr(k));
                    prop_assert!(d.values(o, k + 1).hit >= v.hit);
                }
                // Every target of one group shares the beam list: exactly one is credited.
                for g in 0..collisions.n_groups() as u32 {
                    let credited: f64 = collisions
                        .items(g)
                        .iter()
                        .map(|&p| d.values(&users[p as usize], k).hit)
                        .sum();
                    let sid_hit = users[collisions.items(g)[0] as usize].hit(k);
                    prop_assert_eq!(credited, sid_hit);
                }
            }
        }
        // The popular pick is never less popular than another member.
        for g in 0..collisions.n_groups() as u32 {
            let pick = popular.item_of(g) as usize;
            prop_assert!(collisions.items(g).iter().all(|&p| c.counts[p as usize] <= c.counts[pick]));
        }
    }

    #[test]
    fn collision_free_credits_agree(c in case(6)) {
        let mut seen = std::collections::HashSet::new();
        let codes: Vec<(u8, u8)> = c.codes.iter().copied().filter(|s| seen.insert(*s)).collect();
        let index = index_of(&codes);
        let collisions = Collisions::new(&index);
        let counts = c.counts[..codes.len()].to_vec();
        let decoders = [
            Decoder::popular(&index, &collisions, &Popularity::from_counts(counts)),
            Decoder::random(&index, &collisions, c.seed),
        ];
        for o in outcomes(&index, &collisions, &c.beams) {
            for k in [1, 3, 20] {
                prop_assert_eq!(o.item_hit(k), o.hit(k));
                for d in &decoders {
                    let v = d.values(&o, k);
                    prop_assert_eq!(v.hit, o.hit(k));
                    prop_assert!((v.ndcg - o.item_ndcg(k)).abs() < 1e-12);
                }
            }
        }
    }
}
