//! Property tests of the reassignment invariants on random small indexes and vectors: zero
//! collisions after (groups ≤ V), prefixes unchanged, fewest changes, optimal ≤ greedy, and
//! the optimum equal to brute force over every injective item → code map on tiny groups.

use std::path::Path;

use ndarray::{Array2, Array3};
use proptest::prelude::*;
use sidlens::collision::Collisions;
use sidlens::load::{Codebooks, IndexFormat, ItemIds, Latents, SidIndex};
use sidlens::progress::NoProgress;
use sidlens::reassign::{CostModel, GroupPlan, Mode, plan};
use sidlens::sid::Code;

const DIM: usize = 2;

#[derive(Debug, Clone)]
struct Instance {
    v: usize,
    prefixes: Vec<Code>,
    lasts: Vec<Code>,
    latents: Vec<f64>,
    codebooks: Vec<f64>,
}

/// Coarse values make exact ties (duplicate vectors, equal distances) frequent.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![(-3i32..=3).prop_map(|x| f64::from(x) / 2.0), -2.0f64..2.0]
}

fn instance() -> impl Strategy<Value = Instance> {
    (3usize..=6, 1usize..=14).prop_flat_map(|(v, n)| {
        (
            proptest::collection::vec(0..3 as Code, n),
            proptest::collection::vec(0..v as Code, n),
            proptest::collection::vec(value(), n * DIM),
            proptest::collection::vec(value(), 2 * v * DIM),
        )
            .prop_map(move |(prefixes, lasts, latents, codebooks)| Instance {
                v,
                prefixes,
                lasts,
                latents,
                codebooks,
            })
    })
}

fn build(inst: &Instance) -> (SidIndex, CostModel) {
    let n = inst.prefixes.len();
    let mut ids = ItemIds::new();
    // Ids in reverse file order, so id order and position order differ.
    for i in (0..n).rev() {
        ids.push(&i.to_string()).unwrap();
    }
    let codes = (0..n)
        .flat_map(|p| [inst.prefixes[p], inst.lasts[p]])
        .collect();
    let index = SidIndex::from_codes(
        Path::new("prop.json"),
        ids,
        codes,
        2,
        Some(inst.v),
        IndexFormat::Integers,
    )
    .unwrap();
    let latents = Array2::from_shape_vec((n, DIM), inst.latents.clone()).unwrap();
    let latents = Latents::from_f64(Path::new("prop.npy"), latents).unwrap();
    let cb = Array3::from_shape_vec((2, inst.v, DIM), inst.codebooks.clone()).unwrap();
    let cb = Codebooks::from_array(Path::new("cb.npy"), cb).unwrap();
    let cost = CostModel::from_codebooks(&index, latents, &cb).unwrap();
    (index, cost)
}

/// Least (changes, total ΔD) over every injective map of the group's items to codes.
fn brute_force(index: &SidIndex, cost: &CostModel, g: &GroupPlan, v: usize) -> (usize, f64) {
    let all: Vec<Code> = (0..v as Code).collect();
    let dist: Vec<Vec<f64>> = g
        .items
        .iter()
        .map(|&p| {
            let mut r = vec![0.0; DIM];
            cost.residual(index, p as usize, &mut r);
            let mut d = vec![0.0; v];
            cost.sq_distances(&r, &all, &mut d);
            d
        })
        .collect();
    fn walk(
        k: usize,
        g: &GroupPlan,
        dist: &[Vec<f64>],
        used: &mut [bool],
        acc: (usize, f64),
        best: &mut (usize, f64),
    ) {
        if k == g.items.len() {
            if acc.0 < best.0 || (acc.0 == best.0 && acc.1 < best.1) {
                *best = acc;
            }
            return;
        }
        let native = g.native[k] as usize;
        for c in 0..used.len() {
            if !used[c] {
                used[c] = true;
                let step = (usize::from(c != native), dist[k][c] - dist[k][native]);
                walk(k + 1, g, dist, used, (acc.0 + step.0, acc.1 + step.1), best);
                used[c] = false;
            }
        }
    }
    let mut best = (usize::MAX, f64::INFINITY);
    walk(0, g, &dist, &mut vec![false; v], (0, 0.0), &mut best);
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn reassignment_invariants(inst in instance()) {
        let (index, cost) = build(&inst);
        let collisions = Collisions::new(&index);
        let plan = plan(&index, &collisions, Some(&cost), &NoProgress).unwrap();
        for g in &plan.groups {
            let (o, gr) = (g.optimal.as_ref().unwrap(), g.greedy.as_ref().unwrap());
            prop_assert_eq!(o.n_reassigned, g.min_changes);
            prop_assert_eq!(gr.n_reassigned, g.min_changes);
            prop_assert!(o.total_delta <= gr.total_delta + 1e-9 * (1.0 + gr.total_delta.abs()));
            if g.items.len() <= 5 {
                let (changes, delta) = brute_force(&index, &cost, g, inst.v);
                prop_assert_eq!(changes, g.min_changes);
                prop_assert!((o.total_delta - delta).abs() <= 1e-9 * (1.0 + delta.abs()),
                    "optimal {} vs brute force {}", o.total_delta, delta);
            }
        }
        for g in &plan.skipped {
            prop_assert!(g.items.len() > inst.v);
        }
        for mode in [Mode::Optimal, Mode::Greedy] {
            let after = plan.apply(&index, mode, Path::new("after.json")).unwrap();
            for p in 0..index.n_items() {
                prop_assert_eq!(after.codes(p)[0], index.codes(p)[0]);
            }
            let c = Collisions::new(&after);
            for p in c.prefix_groups() {
                if c.prefix_size(p) as usize <= inst.v {
                    prop_assert!(!c.prefix_has_collision(p));
                }
            }
            for g in &plan.skipped {
                for &p in &g.items {
                    prop_assert_eq!(after.codes(p as usize), index.codes(p as usize));
                }
            }
        }
    }
}
