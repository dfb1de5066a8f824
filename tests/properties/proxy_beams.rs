//! The proxy generator equals a naive, literal implementation of its documented recipe on
//! random small catalogs and users.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use proptest::prelude::*;
use sidlens::collision::Collisions;
use sidlens::generate::proxy_beams;
use sidlens::load::{Interactions, SidIndex};
use sidlens::progress::NoProgress;

/// The recipe of `src/proxy_beams.rs`, written as plainly as possible.
fn naive(index: &SidIndex, seqs: &[Vec<usize>], width: usize) -> Vec<Vec<u32>> {
    let collisions = Collisions::new(index);
    let group = |item: usize| -> Option<u32> {
        index
            .ids()
            .position(&item.to_string())
            .map(|p| collisions.group_of(p))
    };
    let mut cooc: HashMap<(usize, usize), u64> = HashMap::new();
    let mut popularity: HashMap<usize, u64> = HashMap::new();
    for seq in seqs {
        let training: BTreeSet<usize> =
            seq[..seq.len().saturating_sub(2)].iter().copied().collect();
        for &a in &training {
            *popularity.entry(a).or_default() += 1;
            for &b in &training {
                if a != b {
                    *cooc.entry((a, b)).or_default() += 1;
                }
            }
        }
    }
    let n_groups = collisions.n_groups() as u32;
    let mut group_pop = vec![0u64; n_groups as usize];
    for (&item, &p) in &popularity {
        if let Some(g) = group(item) {
            group_pop[g as usize] += p;
        }
    }
    let mut out = Vec::new();
    for seq in seqs {
        if seq.len() < 2 {
            continue;
        }
        let history: BTreeSet<usize> = seq[..seq.len() - 1].iter().copied().collect();
        let mut item_score: HashMap<usize, u64> = HashMap::new();
        for (&(a, b), &c) in &cooc {
            if history.contains(&a) && !history.contains(&b) {
                *item_score.entry(b).or_default() += c;
            }
        }
        let mut group_score: HashMap<u32, u64> = HashMap::new();
        for (&item, &s) in &item_score {
            if let Some(g) = group(item) {
                *group_score.entry(g).or_default() += s;
            }
        }
        let mut scored: Vec<u32> = group_score.keys().copied().collect();
        scored.sort_by_key(|&g| {
            (
                std::cmp::Reverse(group_score[&g]),
                std::cmp::Reverse(group_pop[g as usize]),
                g,
            )
        });
        scored.truncate(width);
        let mut rest: Vec<u32> = (0..n_groups).filter(|g| !scored.contains(g)).collect();
        rest.sort_by_key(|&g| (std::cmp::Reverse(group_pop[g as usize]), g));
        let fill = width - scored.len();
        scored.extend(rest.into_iter().take(fill));
        out.push(scored);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn generator_follows_its_recipe(
        codes in prop::collection::vec((0u16..3, 0u16..3), 4..30),
        seqs in prop::collection::vec(prop::collection::vec(0usize..35, 0..9), 1..25),
        width in 1usize..12,
    ) {
        // Items 0..codes.len() are in the index; items up to 34 may appear only in sequences.
        let text = format!(
            "{{{}}}",
            codes.iter().enumerate()
                .map(|(i, (a, b))| format!("\"{i}\": [{a}, {b}]"))
                .collect::<Vec<_>>().join(", ")
        );
        let index = SidIndex::parse(text.as_bytes(), Path::new("p.index.json"), None).unwrap();
        let inter = Interactions::from_sequences(
            Path::new("p.inter.json"),
            seqs.iter().enumerate().map(|(u, s)| {
                (u.to_string(), s.iter().map(|i| i.to_string()).collect::<Vec<_>>())
            }),
        ).unwrap();
        let beams = proxy_beams::generate(&index, &inter, width, &NoProgress).unwrap();
        let got: Vec<Vec<u32>> = beams.users.iter().map(|u| u.groups.clone()).collect();
        prop_assert_eq!(got, naive(&index, &seqs, width));
    }
}
