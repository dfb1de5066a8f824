//! Decoded item credit (`--decode popular|random:SEED`) and the interaction diagnostics on the
//! shared Scientific data, against an independent Python count (`scripts/check_decode.py`).

use crate::common;

use std::path::{Path, PathBuf};

use sidlens::collab::interactions::CollisionInteractions;
use sidlens::collision::Collisions;
use sidlens::collision::popularity::Popularity;
use sidlens::load::{Interactions, SidIndex};
use sidlens::metrics::{Compat, Decode, Decoder, Evaluator};
use sidlens::progress::NoProgress;

fn scientific(reference: &Path, variant: &str) -> (PathBuf, PathBuf, PathBuf) {
    let data = reference.join("CollisionGenRec/data/Scientific");
    (
        data.join(format!("indexes/{variant}/Scientific.index.json")),
        reference.join(format!("beams/Scientific/{variant}.per_user.json")),
        data.join("Scientific.inter.json"),
    )
}

#[test]
fn popular_decoding_matches_an_independent_count() {
    let Some(reference) = common::reference() else {
        return;
    };
    let (index_path, beams, inter) = scientific(&reference, "rkmeans_native");
    let index = SidIndex::load(&index_path, None).unwrap();
    let collisions = Collisions::new(&index);
    let interactions = Interactions::load(&inter).unwrap();
    let popularity = Popularity::training(&index, &interactions);
    assert_eq!((popularity.n_counted, popularity.n_unknown), (41858, 0));
    let decoder = Decoder::popular(&index, &collisions, &popularity);
    let evaluation = Evaluator::new(&index, &collisions, Compat::Faithful)
        .evaluate_file(&beams, &NoProgress)
        .unwrap();
    let ks = [1, 5, 10, 20];
    let s = decoder.summarize(&evaluation.outcomes, &ks);
    let expected = [
        0.024648310688950344,
        0.05242274858723097,
        0.06985691956234219,
        0.09210051701334616,
    ];
    for (v, e) in s.values.iter().zip(expected) {
        assert!((v.hit - e).abs() < 1e-12, "{v:?} vs {e}");
    }
    assert_eq!(s.users_decoded_to_target, 6683);
    // Popularity does not recover the inflation on these beams: below CCE's ItemHit@10.
    assert!(s.values[2].hit < evaluation.at(10).item_hit);

    let d = CollisionInteractions::compute(&index, &collisions, &interactions);
    assert_eq!(
        (d.benign.items_cooccurring, d.benign.items_in_collisions),
        (762, 1326)
    );
    let tiers: Vec<usize> = d.popularity_tiers.iter().map(|t| t.n_items).collect();
    assert_eq!(tiers, [869, 1303, 2172]);
}

#[test]
fn a_collision_free_index_credits_alike_under_every_decoding() {
    let Some(reference) = common::reference() else {
        return;
    };
    let (index_path, beams, inter) = scientific(&reference, "rkmeans_zcr");
    let index = SidIndex::load(&index_path, None).unwrap();
    let collisions = Collisions::new(&index);
    let popularity = Popularity::training(&index, &Interactions::load(&inter).unwrap());
    let evaluation = Evaluator::new(&index, &collisions, Compat::Faithful)
        .evaluate_file(&beams, &NoProgress)
        .unwrap();
    for decode in [Decode::Popular, Decode::Random { seed: 3 }] {
        let decoder = Decoder::new(decode, &index, &collisions, Some(&popularity)).unwrap();
        let s = decoder.summarize(&evaluation.outcomes, &[1, 10, 20]);
        for (v, k) in s.values.iter().zip([1, 10, 20]) {
            let cce = evaluation.at(k);
            assert_eq!((v.hit, cce.item_hit), (cce.hit, cce.hit), "{decode} K={k}");
            assert!((v.ndcg - cce.item_ndcg).abs() < 1e-12);
        }
    }
}

#[test]
fn cli_eval_decodes_with_the_dataset_interactions() {
    let Some(reference) = common::reference() else {
        return;
    };
    let (index, beams, _) = scientific(&reference, "rkmeans_native");
    let out = common::sidlens(&[
        "eval",
        "--index",
        index.to_str().unwrap(),
        "--beams",
        beams.to_str().unwrap(),
        "--k",
        "10",
        "--decode",
        "popular",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["decode"], "popular");
    let hit = doc["decoded_metrics"]["DecodedHit@10"].as_f64().unwrap();
    assert!((hit - 0.06985691956234219).abs() < 1e-12);
    // CCE stays: ItemHit@10 is the reference value.
    assert!((doc["metrics"]["ItemHit@10"].as_f64().unwrap() - 0.08544733045633947).abs() < 1e-12);
    let recovered = doc["decoded_recovered_pct"]["Hit@10"].as_f64().unwrap();
    assert!(recovered < 0.0, "{recovered}");
    assert_eq!(doc["users_decoded_to_target"], 6683);
}

#[test]
fn cli_stats_reports_benign_collisions_and_tiers() {
    let Some(reference) = common::reference() else {
        return;
    };
    let (index, _, inter) = scientific(&reference, "rkmeans_native");
    let out = common::sidlens(&[
        "stats",
        "--index",
        index.to_str().unwrap(),
        "--interactions",
        inter.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let i = &doc["interactions"];
    assert_eq!(i["benign"]["items_cooccurring"], 762);
    assert_eq!(i["popularity_tiers"][0]["tier"], "head");
    assert_eq!(i["benign"]["groups"].as_array().unwrap().len(), 451);
    assert_eq!(doc["levels"][0]["dead_codes"].as_array().unwrap().len(), 0);
    assert!(doc["levels"][3]["perplexity"].as_f64().unwrap() > 1.0);
}

#[test]
fn popular_decoding_without_interactions_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("x.index.json");
    let beams = dir.path().join("b.json");
    std::fs::write(&index, r#"{"0": [1, 1], "1": [1, 1]}"#).unwrap();
    std::fs::write(
        &beams,
        r#"[{"beam_sids": ["<a_1><b_1>"], "target_item": "0"}]"#,
    )
    .unwrap();
    let args = |decode: &str| {
        common::sidlens(&[
            "eval",
            "--index",
            index.to_str().unwrap(),
            "--beams",
            beams.to_str().unwrap(),
            "--decode",
            decode,
        ])
    };
    let out = args("popular");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--interactions"));
    let out = args("random");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("random:SEED"));
    let out = args("random:4");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Hit (random:4)"), "{text}");
}
