//! RK-Means against the reference tokenizer built with faiss on the same MiniLM embeddings
//! (`../shared/reference/minilm/Scientific/*.meta.json`): collision rate within a few points,
//! reconstruction error as low. The L=4, V=256 run (about 2.3 s of CPU in release) is ignored in
//! unoptimised builds: `cargo test --release --test tokenize_reference`.

use std::path::Path;

use ndarray::Array2;
use sidlens::generate::tokenize::{self, RkMeansConfig};
use sidlens::progress::NoProgress;

use crate::common;
use common::reference;

fn reference_meta(dir: &Path, name: &str) -> serde_json::Value {
    let path = dir.join("minilm/Scientific").join(name);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn check_against_reference(levels: usize, codebook_size: usize, meta_name: &str) {
    let Some(dir) = reference() else { return };
    let embeddings: Array2<f32> =
        ndarray_npy::read_npy(dir.join("embeddings/Scientific.emb-minilm.npy")).unwrap();
    let config = RkMeansConfig {
        levels,
        codebook_size,
        ..RkMeansConfig::default()
    };
    let result = tokenize::train(embeddings.view(), &config, &NoProgress).unwrap();
    let index = result.index(Path::new("Scientific.index.json")).unwrap();
    let summary = result.summary(&config, "Scientific.emb-minilm.npy", &index);
    let meta = reference_meta(&dir, meta_name);
    let want_rate = meta["stats"]["collision_rate"].as_f64().unwrap();
    let want_mse = meta["recon_mse"].as_f64().unwrap();
    let rate = summary.stats.collision_rate;
    eprintln!(
        "L={levels} V={codebook_size}: collision rate {rate:.4} (reference {want_rate:.4}), \
         reconstruction MSE {:.6} (reference {want_mse:.6})",
        summary.reconstruction_mse
    );
    assert!(
        (rate - want_rate).abs() < 0.05,
        "collision rate {rate} is not within 5 points of the reference {want_rate}"
    );
    assert!(
        summary.reconstruction_mse < want_mse * 1.03,
        "reconstruction MSE {} is worse than the reference {want_mse} by more than 3 %",
        summary.reconstruction_mse
    );
    assert_eq!(summary.encode_differs_from_training, 0);
}

#[test]
fn matches_reference_rkmeans_v64() {
    check_against_reference(4, 64, "rkmeans_v64.meta.json");
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "slow without optimisations; run with --release"
)]
fn matches_reference_rkmeans_v256() {
    check_against_reference(4, 256, "rkmeans.meta.json");
}
