//! The fused tokenizer input and the tightest-groups figure on Scientific, against numbers
//! computed with scikit-learn / numpy by `scripts/cf_reference_numbers.py`
//! (`tests/fixtures/cf_scientific.json`); the inputs come from `../shared/reference`.

use crate::common;

use std::path::Path;

use ndarray::Array2;
use ndarray_npy::ReadNpyExt;
use serde_json::Value;
use sidlens::collab::fusion::fuse;
use sidlens::collab::spread::group_spreads;
use sidlens::collision::Collisions;
use sidlens::load::{Latents, SidIndex};
use sidlens::progress::NoProgress;
use sidlens::sid::format_sid;

fn fixture() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cf_scientific.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn npy(path: &Path) -> Array2<f32> {
    Array2::<f32>::read_npy(std::fs::File::open(path).unwrap()).unwrap()
}

#[test]
fn fused_latents_match_scikit_learn_pca_distances() {
    let Some(reference) = common::reference() else {
        return;
    };
    let text = npy(&reference.join("embeddings/Scientific.emb-minilm.npy"));
    let cf = npy(&reference.join("cf/Scientific.emb-ppmi.npy"));
    let fused = fuse(text.view(), cf.view(), 0.5, "cf", &NoProgress).unwrap();
    let want = &fixture()["fusion"];
    assert_eq!(
        fused.latents.ncols() as u64,
        want["components"].as_u64().unwrap()
    );
    let explained = want["explained_variance_ratio"].as_f64().unwrap();
    assert!((fused.summary.explained_variance_ratio - explained).abs() < 1e-6);
    let pairs = want["pairs"].as_array().unwrap();
    let distances = want["distances_full"].as_array().unwrap();
    let mut worst = 0.0_f64;
    for (pair, d) in pairs.iter().zip(distances) {
        let (i, j) = (
            pair[0].as_u64().unwrap() as usize,
            pair[1].as_u64().unwrap() as usize,
        );
        let got: f64 = fused
            .latents
            .row(i)
            .iter()
            .zip(fused.latents.row(j))
            .map(|(a, b)| (f64::from(*a) - f64::from(*b)).powi(2))
            .sum::<f64>()
            .sqrt();
        let d = d.as_f64().unwrap();
        worst = worst.max((got - d).abs() / d);
    }
    assert!(worst < 1e-4, "fused distances differ by {worst} (relative)");
}

#[test]
fn tightest_groups_match_numpy() {
    let Some(reference) = common::reference() else {
        return;
    };
    let index = SidIndex::load(
        &reference.join("minilm/Scientific/rkmeans.index.json"),
        None,
    )
    .unwrap();
    let text = Latents::load(&reference.join("embeddings/Scientific.emb-minilm.npy")).unwrap();
    let cf = Latents::load(&reference.join("cf/Scientific.emb-ppmi.npy")).unwrap();
    let collisions = Collisions::new(&index);
    let spreads = group_spreads(&index, &collisions, &text, Some(&cf), 3).unwrap();
    let want = &fixture()["tightest"];
    assert_eq!(
        spreads.len() as u64,
        want["n_groups_considered"].as_u64().unwrap()
    );
    for (got, want) in spreads.iter().zip(want["groups"].as_array().unwrap()) {
        let first = collisions.items(got.group)[0] as usize;
        assert_eq!(
            format_sid(index.codes(first)),
            want["sid"].as_str().unwrap()
        );
        let text_d = want["mean_cosine_distance"].as_f64().unwrap();
        let cf_d = want["cf_mean_cosine_distance"].as_f64().unwrap();
        assert!((got.mean_cosine_distance - text_d).abs() < 1e-9);
        assert!((got.cf_mean_cosine_distance.unwrap() - cf_d).abs() < 1e-9);
    }
}

#[test]
fn groups_cli_prints_the_figure_5_keys() {
    let Some(reference) = common::reference() else {
        return;
    };
    let r = |p: &str| reference.join(p).display().to_string();
    let out = common::sidlens(&[
        "groups",
        "--index",
        &r("minilm/Scientific/rkmeans.index.json"),
        "--embeddings",
        &r("embeddings/Scientific.emb-minilm.npy"),
        "--cf",
        &r("cf/Scientific.emb-ppmi.npy"),
        "--tightest",
        "5",
        "--min-size",
        "3",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 5);
    let want = &fixture()["tightest"]["groups"];
    for (row, want) in rows.iter().zip(want.as_array().unwrap()) {
        assert_eq!(row["sid"], want["sid"]);
        assert_eq!(
            row["items"].as_array().unwrap().len(),
            want["items"].as_array().unwrap().len()
        );
        let d = row["mean_cosine_distance"].as_f64().unwrap();
        assert!((d - want["mean_cosine_distance"].as_f64().unwrap()).abs() < 1e-9);
        let c = row["cf_mean_cosine_distance"].as_f64().unwrap();
        assert!((c - want["cf_mean_cosine_distance"].as_f64().unwrap()).abs() < 1e-9);
    }
}
