//! `eval` against the reference: every `beams/Scientific/*.expected.json` (computed with the
//! paper's `cce.py`), the tricky fixture under `--compat cce-py`, and the tricky fixture's
//! faithful values derived by hand below. Skips when ../shared/reference is absent.

use std::path::Path;

use serde_json::Value;
use sidlens::collision::Collisions;
use sidlens::load::SidIndex;
use sidlens::metrics::{Compat, EvalSummary, Evaluation, Evaluator};
use sidlens::progress::NoProgress;

use crate::common;
use common::reference;

const KS: [usize; 4] = [1, 5, 10, 20];
const TOL: f64 = 1e-12;

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn run(index: &Path, beams: &Path, compat: Compat) -> (EvalSummary, Evaluation) {
    let index = SidIndex::load(index, None).unwrap();
    let collisions = Collisions::new(&index);
    let mut ev = Evaluator::new(&index, &collisions, compat);
    let summary = ev
        .summarize_file(beams, &KS, false, &NoProgress, |_, _| Ok(()))
        .unwrap();
    let evaluation = ev.evaluate_file(beams, &NoProgress).unwrap();
    assert_eq!(evaluation.summary(&KS, &collisions).values, summary.values);
    (summary, evaluation)
}

fn value(summary: &EvalSummary, name: &str) -> f64 {
    let (metric, k) = name.split_once('@').unwrap();
    let i = KS.iter().position(|&x| x.to_string() == k).unwrap();
    let v = summary.values[i];
    match metric {
        "Hit" => v.hit,
        "NDCG" => v.ndcg,
        "ItemHit" => v.item_hit,
        "ItemNDCG" => v.item_ndcg,
        _ => panic!("unknown metric {name}"),
    }
}

fn user_value(evaluation: &Evaluation, user: usize, name: &str) -> f64 {
    let (metric, k) = name.split_once('@').unwrap();
    let v = evaluation.outcomes[user].values(k.parse().unwrap());
    match metric {
        "Hit" => v.hit,
        "NDCG" => v.ndcg,
        "ItemHit" => v.item_hit,
        "ItemNDCG" => v.item_ndcg,
        _ => panic!("unknown metric {name}"),
    }
}

#[test]
fn scientific_fixtures_match_cce_py_in_both_modes() {
    let Some(reference) = reference() else { return };
    let dir = reference.join("beams/Scientific");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(variant) = name.strip_suffix(".expected.json") else {
            continue;
        };
        let expected = json(&path);
        let index = dir.join(expected["index_file"].as_str().unwrap());
        let beams = dir.join(format!("{variant}.per_user.json"));
        for compat in [Compat::Faithful, Compat::CcePy] {
            let (summary, evaluation) = run(&index, &beams, compat);
            assert_eq!(summary.n_users, expected["n_users"].as_u64().unwrap());
            for (metric, want) in expected["metrics"].as_object().unwrap() {
                let got = value(&summary, metric);
                let want = want.as_f64().unwrap();
                assert!(
                    (got - want).abs() <= TOL,
                    "{variant} {compat:?} {metric}: {got} vs {want}"
                );
            }
            for (metric, column) in expected["per_user"].as_object().unwrap() {
                let column = column.as_array().unwrap();
                assert_eq!(column.len(), evaluation.n_users());
                for (user, want) in column.iter().enumerate() {
                    let got = user_value(&evaluation, user, metric);
                    let want = want.as_f64().unwrap();
                    assert!(
                        (got - want).abs() <= TOL,
                        "{variant} {compat:?} user {user} {metric}: {got} vs {want}"
                    );
                }
            }
            assert_eq!(summary.anomalies.invalid_sids, 0, "{variant}");
            assert_eq!(summary.anomalies.duplicate_sids, 0, "{variant}");
        }
        checked += 1;
    }
    assert!(
        checked >= 6,
        "only {checked} fixtures found in {}",
        dir.display()
    );
}

#[test]
fn tricky_under_compat_equals_cce_py() {
    let Some(reference) = reference() else { return };
    let dir = reference.join("beams/tricky");
    let expected = json(&dir.join("tricky.expected.json"));
    let (summary, evaluation) = run(
        &dir.join("tricky.index.json"),
        &dir.join("tricky.per_user.json"),
        Compat::CcePy,
    );
    assert_eq!(summary.n_users, 12);
    for (metric, want) in expected["metrics"].as_object().unwrap() {
        let got = value(&summary, metric);
        let want = want.as_f64().unwrap();
        assert!((got - want).abs() <= TOL, "{metric}: {got} vs {want}");
    }
    for user in expected["users"].as_array().unwrap() {
        let u = user["user"].as_u64().unwrap() as usize;
        for (metric, want) in user["values_filter_items"].as_object().unwrap() {
            let got = user_value(&evaluation, u, metric);
            let want = want.as_f64().unwrap();
            assert!(
                (got - want).abs() <= TOL,
                "user {u} {metric}: {got} vs {want}"
            );
        }
        let block = evaluation.outcomes[u].item_block;
        if let Some(b) = block {
            assert_eq!(
                u64::from(b.size),
                user["target_group_size_cce"].as_u64().unwrap(),
                "user {u}"
            );
        }
    }
}

/// The faithful reading of each tricky user, worked out by hand from tricky.index.json and
/// tricky.per_user.json. Groups: A = <a_1><b_1><c_1><d_1> {0} (G=1), B = ...<d_2> {1} (G=1),
/// C = <a_2>... {2, 3} (G=2), D = <a_3>... {4, 5, 6} (G=3), E = <a_5>... {7..11} (G=5).
/// Faithful lists drop SIDs that name no item and repeats; the target is target_item's group.
/// Each entry: (0-based SID rank, P = items before, G) of the target, or None for a miss.
const TRICKY_FAITHFUL: [Option<(u32, u32, u32)>; 12] = [
    // 0: [A, C, D, E, B], target A first.
    Some((0, 0, 1)),
    // 1: [E, A, C, D, B], target E first: ItemHit@1 = 1/5.
    Some((0, 0, 5)),
    // 2: [D, E, ...], target E after D: P = 3, ItemHit@5 = 2/5.
    Some((1, 3, 5)),
    // 3: [D, C, A, B, E, <a_9>..] (the unknown SID after the target is dropped): P = 3+2+1+1.
    Some((4, 7, 5)),
    // 4: [<a_9>.. dropped, C, D]: C becomes rank 0 with P = 0 (cce.py: P = 1).
    Some((0, 0, 2)),
    // 5: [C, A, C (repeat dropped), D]: C at rank 0; NDCG stays 1 (cce.py: 1.5).
    Some((0, 0, 2)),
    // 6: [D, D (repeat dropped), A, E]: A at rank 1 with P = 3 (cce.py: rank 2, P = 6).
    Some((1, 3, 1)),
    // 7: [D, B, C]: C at rank 2, P = 3+1 = 4 (a list shorter than K).
    Some((2, 4, 2)),
    // 8: [D, B]: target E absent.
    None,
    // 9: []: empty list.
    None,
    // 10: target_item null and target <a_9>.. not in the index: an unknown target, a miss
    // (its beams: a 3-level SID and <a_9>.., both dropped, and A).
    None,
    // 11: [A, B, C, D] five times: 16 repeats dropped; target E absent.
    None,
];

fn hand_values(entry: Option<(u32, u32, u32)>, k: usize) -> [f64; 4] {
    let Some((rank, before, size)) = entry else {
        return [0.0; 4];
    };
    let hit = if (rank as usize) < k { 1.0 } else { 0.0 };
    let ndcg = hit / f64::from(rank + 2).log2();
    let e = (k as i64 - i64::from(before)).clamp(0, i64::from(size)) as u32;
    let item_hit = f64::from(e) / f64::from(size);
    let item_ndcg = (1..=e)
        .map(|i| 1.0 / f64::from(before + i + 1).log2())
        .sum::<f64>()
        / f64::from(size);
    [hit, ndcg, item_hit, item_ndcg]
}

#[test]
fn tricky_faithful_equals_hand_derived_values() {
    let Some(reference) = reference() else { return };
    let dir = reference.join("beams/tricky");
    let (summary, evaluation) = run(
        &dir.join("tricky.index.json"),
        &dir.join("tricky.per_user.json"),
        Compat::Faithful,
    );
    // Dropped: user 3's <a_9>.., user 4's <a_9>.., user 10's 3-level SID and <a_9>...
    assert_eq!(summary.anomalies.invalid_sids, 4);
    // Repeats: one in user 5, one in user 6, sixteen in user 11.
    assert_eq!(summary.anomalies.duplicate_sids, 18);
    assert_eq!(summary.anomalies.unknown_targets, 1);
    assert_eq!(summary.anomalies.target_mismatches, 0);
    for (i, &k) in KS.iter().enumerate() {
        let mut sums = [0.0; 4];
        for (user, &entry) in TRICKY_FAITHFUL.iter().enumerate() {
            let want = hand_values(entry, k);
            let got = evaluation.outcomes[user].values(k);
            let got = [got.hit, got.ndcg, got.item_hit, got.item_ndcg];
            for m in 0..4 {
                assert!(
                    (got[m] - want[m]).abs() <= TOL,
                    "user {user} K={k} metric {m}: {got:?} vs {want:?}"
                );
                sums[m] += want[m];
            }
        }
        let v = summary.values[i];
        let got = [v.hit, v.ndcg, v.item_hit, v.item_ndcg];
        for m in 0..4 {
            assert!((got[m] - sums[m] / 12.0).abs() <= TOL, "K={k} metric {m}");
            assert!(got[m] <= 1.0, "a faithful metric above 1 at K={k}");
        }
    }
    // Anchors worked out in full: Hit@5 = 8/12 (users 0-7); ItemHit@5 = (1 + 1 + 2/5 + 0 +
    // 1 + 1 + 1 + 1/2)/12 = 5.9/12; ItemHit@1 = (1 + 1/5 + 1/2 + 1/2)/12 = 2.2/12.
    assert!((summary.values[1].hit - 8.0 / 12.0).abs() <= TOL);
    assert!((summary.values[1].item_hit - 5.9 / 12.0).abs() <= TOL);
    assert!((summary.values[0].item_hit - 2.2 / 12.0).abs() <= TOL);
}
