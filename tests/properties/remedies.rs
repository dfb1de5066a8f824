//! Property tests of the collision remedies on random small three-level indexes: MQL4GRec's
//! rule keeps the first L−2 codes and, where it matches ZCR's change count without leaving a
//! collision or moving a prefix, costs at least ZCR's ΔD; `append` leaves no collision and
//! keeps the base codes; `two-level` keeps the first L−2 codes and items outside groups over
//! capacity, and leaves no collision wherever its (L−2)-prefix has room. `diff` of each
//! remedy's index against the base prices it as the remedy itself does.

use std::collections::HashMap;
use std::path::Path;

use ndarray::{Array2, Array3};
use proptest::prelude::*;
use sidlens::collision::Collisions;
use sidlens::load::{Codebooks, IndexFormat, ItemIds, Latents, SidIndex};
use sidlens::progress::NoProgress;
use sidlens::reassign::diff::diff_priced;
use sidlens::reassign::over_capacity::{OverCapacity, resolve};
use sidlens::reassign::{CostModel, Mode, plan};
use sidlens::sid::Code;

const DIM: usize = 2;
const L: usize = 3;

#[derive(Debug, Clone)]
struct Instance {
    v: usize,
    codes: Vec<Code>,
    latents: Vec<f64>,
    codebooks: Vec<f64>,
}

/// Coarse values make exact ties frequent.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![(-3i32..=3).prop_map(|x| f64::from(x) / 2.0), -2.0f64..2.0]
}

fn instance() -> impl Strategy<Value = Instance> {
    (2usize..=3, 1usize..=16).prop_flat_map(|(v, n)| {
        (
            proptest::collection::vec(0..2 as Code, n * 2),
            proptest::collection::vec(0..v as Code, n),
            proptest::collection::vec(value(), n * DIM),
            proptest::collection::vec(value(), L * v * DIM),
        )
            .prop_map(move |(prefixes, lasts, latents, codebooks)| Instance {
                v,
                codes: (0..lasts.len())
                    .flat_map(|p| [prefixes[2 * p], prefixes[2 * p + 1] % v as Code, lasts[p]])
                    .collect(),
                latents,
                codebooks,
            })
    })
}

fn build(inst: &Instance) -> (SidIndex, CostModel) {
    let n = inst.codes.len() / L;
    let mut ids = ItemIds::new();
    for i in 0..n {
        ids.push(&i.to_string()).unwrap();
    }
    let index = SidIndex::from_codes(
        Path::new("prop.json"),
        ids,
        inst.codes.clone(),
        L,
        Some(inst.v),
        IndexFormat::Integers,
    )
    .unwrap();
    let latents = Array2::from_shape_vec((n, DIM), inst.latents.clone()).unwrap();
    let latents = Latents::from_f64(Path::new("prop.npy"), latents).unwrap();
    let cb = Array3::from_shape_vec((L, inst.v, DIM), inst.codebooks.clone()).unwrap();
    let cb = Codebooks::from_array(Path::new("cb.npy"), cb).unwrap();
    let cost = CostModel::from_codebooks(&index, latents, &cb).unwrap();
    (index, cost)
}

fn in_collision(codes: &[Code], l: usize) -> usize {
    let mut seen: HashMap<&[Code], usize> = HashMap::new();
    for row in codes.chunks_exact(l) {
        *seen.entry(row).or_default() += 1;
    }
    seen.values().filter(|&&c| c > 1).sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mql4grec_keeps_outer_codes_and_never_beats_zcr(inst in instance()) {
        let (index, cost) = build(&inst);
        let p = plan(&index, &Collisions::new(&index), Some(&cost), &NoProgress).unwrap();
        let m = p.mql4grec.as_ref().unwrap();
        for q in 0..index.n_items() {
            prop_assert_eq!(&m.codes_of(q)[..L - 2], &index.codes(q)[..L - 2]);
        }
        let t = p.summary.mql4grec.unwrap();
        prop_assert_eq!(t.items_in_collision_after, in_collision(&m.codes, L));
        let zcr = p.summary.optimal;
        if p.skipped.is_empty() && t.items_in_collision_after == 0 && t.prefixes_changed == 0
            && t.n_reassigned == zcr.n_reassigned
        {
            prop_assert!(t.total_delta.unwrap() >= zcr.total_delta.unwrap() - 1e-9);
        }
    }

    #[test]
    fn append_leaves_no_collision_and_keeps_the_base(inst in instance()) {
        let (index, cost) = build(&inst);
        let p = plan(&index, &Collisions::new(&index), Some(&cost), &NoProgress).unwrap();
        let base = p.last_codes(&index, Mode::Optimal).unwrap();
        let r = resolve(&index, &p, Mode::Optimal, OverCapacity::Append, &cost, &NoProgress).unwrap();
        prop_assert_eq!(in_collision(&r.remedy.codes, L + 1), 0);
        prop_assert_eq!(r.totals.totals.items_in_collision_after, 0);
        for (q, &b) in base.iter().enumerate() {
            let c = r.remedy.codes_of(q);
            prop_assert_eq!(&c[..L - 1], &index.codes(q)[..L - 1]);
            prop_assert_eq!(c[L - 1], b);
        }
        // The same per-item ΔD, summed by item instead of by group.
        let (a, b) = (r.totals.totals.total_delta.unwrap(), p.summary.optimal.total_delta.unwrap());
        prop_assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{} vs {}", a, b);
    }

    #[test]
    fn two_level_keeps_what_it_claims_and_resolves_where_there_is_room(inst in instance()) {
        let (index, cost) = build(&inst);
        let p = plan(&index, &Collisions::new(&index), Some(&cost), &NoProgress).unwrap();
        let base = p.last_codes(&index, Mode::Optimal).unwrap();
        let r = resolve(&index, &p, Mode::Optimal, OverCapacity::TwoLevel, &cost, &NoProgress).unwrap();
        let over: Vec<u32> = p.skipped.iter().flat_map(|s| s.items.clone()).collect();
        for (q, &b) in base.iter().enumerate() {
            let c = r.remedy.codes_of(q);
            prop_assert_eq!(&c[..L - 2], &index.codes(q)[..L - 2]);
            if !over.contains(&(q as u32)) {
                prop_assert_eq!(&c[..L - 1], &index.codes(q)[..L - 1]);
                prop_assert_eq!(c[L - 1], b);
            }
        }
        let unresolved: usize = r.totals.two_level.iter().map(|t| t.unresolved).sum();
        for t in &r.totals.two_level {
            prop_assert_eq!(t.resolved, t.movers.min(t.free_pairs));
        }
        if unresolved == 0 {
            prop_assert_eq!(in_collision(&r.remedy.codes, L), 0);
        }
        prop_assert_eq!(r.totals.totals.duplicates_after, unresolved);
    }

    #[test]
    fn diff_prices_every_remedy_as_the_remedy_does(inst in instance()) {
        let (index, cost) = build(&inst);
        let p = plan(&index, &Collisions::new(&index), Some(&cost), &NoProgress).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + b.abs());
        for mode in [Mode::Optimal, Mode::Greedy] {
            let other = p.apply(&index, mode, Path::new("o.json")).unwrap();
            let d = diff_priced(&index, &other, Some(&cost)).unwrap();
            let t = if mode == Mode::Optimal { &p.summary.optimal } else { &p.summary.greedy };
            prop_assert_eq!(d.changed_per_level[L - 1], t.n_reassigned);
            prop_assert_eq!(d.prefix_changed, 0);
            prop_assert!(close(d.delta_d.unwrap(), t.total_delta.unwrap()));
            if mode == Mode::Optimal {
                prop_assert_eq!(d.valid_zcr, p.skipped.is_empty());
            }
        }
        let zcr = diff_priced(&index, &p.apply(&index, Mode::Optimal, Path::new("z.json")).unwrap(), Some(&cost)).unwrap();
        for policy in [OverCapacity::Append, OverCapacity::TwoLevel] {
            let r = resolve(&index, &p, Mode::Optimal, policy, &cost, &NoProgress).unwrap();
            let other = index.with_codes(Path::new("r.json"), r.remedy.codes.clone(), r.remedy.n_levels);
            let d = diff_priced(&index, &other, Some(&cost)).unwrap();
            prop_assert!(close(d.delta_d.unwrap(), r.totals.totals.total_delta.unwrap()));
            prop_assert_eq!(d.levels_added, r.remedy.n_levels - L);
            let after = in_collision(&r.remedy.codes, r.remedy.n_levels);
            prop_assert!(close(d.collision_rate_after, after as f64 / index.n_items() as f64));
            if policy == OverCapacity::Append {
                prop_assert!(close(d.delta_d.unwrap(), zcr.delta_d.unwrap()));
            }
        }
    }
}
