//! `proxy_beams` on the shared Scientific interactions and indexes writes files that `eval`
//! reads: every user, no anomaly, in both output formats; SID-level Hit@10 is inflated over
//! ItemHit@10 on the native index and equal to it on the zero-collision one.

use std::path::PathBuf;

use sidlens::collision::Collisions;
use sidlens::generate::proxy_beams;
use sidlens::io::write::write_atomically;
use sidlens::load::{Interactions, SidIndex};
use sidlens::metrics::{Compat, Evaluator};
use sidlens::progress::NoProgress;

use crate::common;

fn scientific() -> Option<PathBuf> {
    common::reference().map(|r| r.join("CollisionGenRec/data/Scientific"))
}

#[test]
fn eval_reads_proxy_beams_of_the_reference_indexes() {
    let Some(data) = scientific() else { return };
    let interactions = Interactions::load(&data.join("Scientific.inter.json")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for variant in ["rkmeans_native", "rkmeans_zcr"] {
        let index = SidIndex::load(
            &data
                .join("indexes")
                .join(variant)
                .join("Scientific.index.json"),
            None,
        )
        .unwrap();
        let beams = proxy_beams::generate(&index, &interactions, 20, &NoProgress).unwrap();
        assert_eq!(beams.summary.n_users_written, interactions.n_users());
        assert_eq!(beams.summary.n_targets_not_in_index, 0);
        let collisions = Collisions::new(&index);
        let mut results = Vec::new();
        for name in ["b.per_user.json", "b.per_user.jsonl"] {
            let path = tmp.path().join(format!("{variant}.{name}"));
            let jsonl = name.ends_with("jsonl");
            write_atomically(&path, |w| beams.write(&index, &interactions, jsonl, w)).unwrap();
            let mut evaluator = Evaluator::new(&index, &collisions, Compat::Faithful);
            let evaluation = evaluator.evaluate_file(&path, &NoProgress).unwrap();
            assert_eq!(evaluation.n_users(), interactions.n_users());
            let a = evaluation.anomalies;
            assert_eq!(
                (
                    a.invalid_sids,
                    a.duplicate_sids,
                    a.unknown_targets,
                    a.target_mismatches
                ),
                (0, 0, 0, 0)
            );
            results.push(evaluation.at(10));
        }
        assert_eq!(
            results[0], results[1],
            "JSON and JSON Lines evaluate the same"
        );
        let at10 = results[0];
        eprintln!(
            "{variant}: Hit@10 {:.4}, ItemHit@10 {:.4}",
            at10.hit, at10.item_hit
        );
        assert!(at10.item_hit > 0.0);
        if collisions.collision_rate() > 0.0 {
            assert!(at10.hit > at10.item_hit);
        } else {
            assert_eq!(at10.hit, at10.item_hit);
        }
    }
}
