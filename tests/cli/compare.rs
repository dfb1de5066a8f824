//! `sidlens compare` with seeds and paired tests: three seed beams files derived from a
//! reference fixture (a deterministic reordering of some users' top beams per seed).

use crate::common;

use std::path::PathBuf;

use common::derive_seed;

use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = common::sidlens(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn seeds_give_means_sample_std_and_paired_tests() {
    let Some(root) = common::reference() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let index = |v: &str| {
        root.join(format!(
            "CollisionGenRec/data/Scientific/indexes/{v}/Scientific.index.json"
        ))
    };
    let mut specs = Vec::new();
    let mut seed_files = Vec::new();
    for v in ["rkmeans_native", "rqvae_native"] {
        let fixture = root.join(format!("beams/Scientific/{v}.per_user.json"));
        let files: Vec<PathBuf> = [42, 123, 2026]
            .iter()
            .map(|&s| derive_seed(&fixture, s, tmp.path()))
            .collect();
        let list: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
        specs.push(format!("{v}={},{}", index(v).display(), list.join(",")));
        seed_files.push(files);
    }
    let doc = json(&[
        "compare",
        "-q",
        "--json",
        "--k",
        "5,10",
        "--permutations",
        "2000",
        "--bootstrap",
        "2000",
        "--run",
        &specs[0],
        "--run",
        &specs[1],
    ]);
    assert_eq!(doc["correction"], "holm");
    assert_eq!(doc["ks"], serde_json::json!([5, 10]));
    let row = &doc["rows"][0];
    assert_eq!(row["n_seeds"], 3);
    // Means and ddof = 1 standard deviations against `eval` on each seed file.
    let per_seed: Vec<f64> = seed_files[0]
        .iter()
        .map(|f| {
            json(&[
                "eval",
                "-q",
                "--json",
                "--k",
                "10",
                "--index",
                index("rkmeans_native").to_str().unwrap(),
                "--beams",
                f.to_str().unwrap(),
            ])["metrics"]["ItemHit@10"]
                .as_f64()
                .unwrap()
        })
        .collect();
    let mean = per_seed.iter().sum::<f64>() / 3.0;
    let std = (per_seed.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    assert!((row["metrics"]["ItemHit@10"].as_f64().unwrap() - mean).abs() < 1e-12);
    assert!((row["metrics_std"]["ItemHit@10"].as_f64().unwrap() - std).abs() < 1e-12);
    assert!(std > 0.0, "the derived seeds differ");
    // One test per pair, metric and K, with exactly the contract's keys.
    let tests = doc["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 8);
    let keys: Vec<&str> = tests[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = [
        "a",
        "b",
        "metric",
        "n_users",
        "mean_a",
        "mean_b",
        "diff",
        "p_t",
        "p_randomization",
        "ci95",
        "p_adjusted",
        "significant",
    ];
    let mut got = keys.clone();
    got.sort_unstable();
    expected.sort_unstable();
    assert_eq!(got, expected);
    for t in tests {
        let diff = t["mean_a"].as_f64().unwrap() - t["mean_b"].as_f64().unwrap();
        assert!((t["diff"].as_f64().unwrap() - diff).abs() < 1e-15);
        let ci = t["ci95"].as_array().unwrap();
        assert!(
            ci[0].as_f64().unwrap() <= diff && diff <= ci[1].as_f64().unwrap(),
            "{t}"
        );
        assert!(t["p_adjusted"].as_f64().unwrap() >= t["p_t"].as_f64().unwrap());
    }
    assert!(
        doc["flips"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["significant"].is_boolean())
    );
    // The text table shows mean ± std.
    let out = common::sidlens(&[
        "compare",
        "-q",
        "--k",
        "10",
        "--permutations",
        "0",
        "--bootstrap",
        "0",
        "--run",
        &specs[0],
        "--run",
        &specs[1],
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("{mean:.4} ± {std:.4}")), "{text}");
}

#[test]
fn seeds_and_tokenizers_must_cover_the_same_users() {
    let Some(root) = common::reference() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let fixture = root.join("beams/Scientific/rkmeans_native.per_user.json");
    let index =
        root.join("CollisionGenRec/data/Scientific/indexes/rkmeans_native/Scientific.index.json");
    let mut records: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    records.swap(3, 4);
    let swapped = tmp.path().join("swapped.json");
    std::fs::write(&swapped, serde_json::to_string(&records).unwrap()).unwrap();
    let run = format!(
        "a={},{},{}",
        index.display(),
        fixture.display(),
        swapped.display()
    );
    let out = common::sidlens(&["compare", "-q", "--run", &run]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("swapped.json: record 4 has another target"),
        "{err}"
    );
    let out = common::sidlens(&[
        "compare",
        "-q",
        "--run",
        &format!("a={},{}", index.display(), fixture.display()),
        "--run",
        &format!("b={},{}", index.display(), swapped.display()),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("record 4 targets item"),
        "{err}"
    );
}

#[test]
fn compare_csv_leaves_missing_values_empty_like_every_other_table() {
    let index = |v: &str| format!("demo_data/indexes/{v}/Workshop.index.json");
    let beams = "demo_data/indexes/rkmeans_v64_zcr/rkmeans_v64_zcr.per_user.json";
    let with_beams = format!("zcr={},{beams}", index("rkmeans_v64_zcr"));
    let without = format!("native={}", index("rkmeans_v64_native"));
    let out = common::sidlens(&[
        "compare",
        "-q",
        "--csv",
        "--run",
        &with_beams,
        "--run",
        &without,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let header = &lines[0];
    let native = lines.iter().find(|l| l[0] == "native").unwrap();
    let zcr = lines.iter().find(|l| l[0] == "zcr").unwrap();
    assert_eq!(native.len(), header.len(), "{text}");
    // The index columns hold numbers; every beams-derived cell is empty, never `-`.
    assert!(native[1].parse::<f64>().is_ok() && native[2].parse::<usize>().is_ok());
    assert!(native[3..].iter().all(|c| c.is_empty()), "{text}");
    assert!(zcr[3..].iter().all(|c| c.parse::<f64>().is_ok()), "{text}");
    assert!(!text.contains(",-"), "{text}");
}
