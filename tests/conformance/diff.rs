//! `diff` on the paper's Beauty case study (`../shared/reference/CollisionGenRec`): items 14 and
//! 1943 share a SID in `rkmeans_native`; `rkmeans_zcr` moves 14 to code 111, 1943 keeps 206.

use sidlens::load::SidIndex;
use sidlens::reassign::diff::diff;

use crate::common;

#[test]
fn beauty_case_study() {
    let Some(root) = common::reference() else {
        return;
    };
    let dir = root.join("CollisionGenRec/data/Beauty/indexes");
    let native = SidIndex::load(&dir.join("rkmeans_native/Beauty.index.json"), None).unwrap();
    let zcr = SidIndex::load(&dir.join("rkmeans_zcr/Beauty.index.json"), None).unwrap();
    for id in ["14", "1943"] {
        let p = native.ids().position(id).unwrap();
        assert_eq!(native.sid_string(p), "<a_127><b_244><c_179><d_206>");
    }
    let d = diff(&native, &zcr).unwrap();
    let c14 = d.changes.iter().find(|c| c.item == "14").unwrap();
    assert_eq!(
        (c14.from.as_slice(), c14.to.as_slice()),
        (&[127, 244, 179, 206][..], &[127, 244, 179, 111][..])
    );
    assert!(d.changes.iter().all(|c| c.item != "1943"));
    assert_eq!(
        (d.n_items, d.prefix_changed, d.last_changed),
        (12_101, 0, 1574)
    );
    assert_eq!(d.min_changes, 1574);
    assert!(d.valid_zcr);
    assert_eq!(d.collision_rate_after, 0.0);
    assert!(d.collision_rate_before > 0.0);
    // The other way round the prefixes are kept, but the native index has collisions.
    assert!(!diff(&zcr, &native).unwrap().valid_zcr);
}

/// Several remedies of the Scientific MiniLM tokenizer against its native index, priced with
/// its codebooks: the ZCR and greedy rows reproduce the reference's total ΔD and keep every
/// prefix; MQL4GRec's exact rule is a valid ZCR there too (V = 256 has room for every group).
#[test]
fn remedies_side_by_side_reproduce_the_reference_costs() {
    let Some(root) = common::reference() else {
        return;
    };
    let s = root.join("minilm/Scientific");
    let path = |name: &str| s.join(name).to_str().unwrap().to_string();
    let latents = root.join("embeddings/Scientific.emb-minilm.npy");
    let out = common::sidlens(&[
        "diff",
        &path("rkmeans.index.json"),
        &format!("zcr={}", path("rkmeans_zcr.index.json")),
        &format!("greedy={}", path("rkmeans_greedy.index.json")),
        &format!("mql4grec={}", path("mql4grec_exact_rkmeans.index.json")),
        "--latents",
        latents.to_str().unwrap(),
        "--codebooks",
        &path("codebooks.npy"),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.join("zcr_expected_rkmeans.json")).unwrap())
            .unwrap();
    let totals = &expected["totals"];
    let rows = got["diffs"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["zcr", "greedy", "mql4grec"]);
    for (row, key) in rows
        .iter()
        .zip(["total_delta_optimal", "total_delta_greedy"])
    {
        let (d, e) = (
            row["delta_d"].as_f64().unwrap(),
            totals[key].as_f64().unwrap(),
        );
        assert!((d - e).abs() < 1e-6, "{key}: {d} vs {e}");
    }
    for row in rows {
        assert_eq!(row["changed_per_level"], serde_json::json!([0, 0, 0, 658]));
        assert_eq!(row["valid_zcr"], true);
        assert_eq!(row["levels_added"], 0);
    }
    let zcr_cost = rows[0]["delta_d"].as_f64().unwrap();
    assert!(
        rows[1..]
            .iter()
            .all(|r| r["delta_d"].as_f64().unwrap() >= zcr_cost)
    );
}
