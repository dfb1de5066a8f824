//! `sidlens tokenize` end to end with the real binary: outputs, their shapes, and errors.

use std::path::Path;

use ndarray::{Array2, Array3};

use crate::common;
use common::sidlens;

fn write_embeddings(path: &Path, n: usize, d: usize) {
    let x = Array2::from_shape_fn((n, d), |(i, j)| ((i * 31 + j * 17) % 23) as f32 / 23.0);
    ndarray_npy::write_npy(path, &x).unwrap();
}

#[test]
fn writes_index_codebooks_latents_and_meta() {
    let dir = tempfile::tempdir().unwrap();
    let emb = dir.path().join("Toy.emb-test.npy");
    write_embeddings(&emb, 120, 6);
    let out = dir.path().join("out");
    let run = sidlens(&[
        "tokenize",
        "--embeddings",
        emb.to_str().unwrap(),
        "--levels",
        "3",
        "--codebook-size",
        "8",
        "--iters",
        "5",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["n_items"], 120);
    assert_eq!(summary["config"]["codebook_size"], 8);
    let index = sidlens::load::SidIndex::load(&out.join("Toy.index.json"), Some(8)).unwrap();
    assert_eq!((index.n_items(), index.n_levels()), (120, 3));
    let books: Array3<f32> = ndarray_npy::read_npy(out.join("codebooks.npy")).unwrap();
    assert_eq!(books.dim(), (3, 8, 6));
    let latents: Array2<f32> = ndarray_npy::read_npy(out.join("latents.npy")).unwrap();
    assert_eq!(latents.dim(), (120, 6));
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("Toy.meta.json")).unwrap()).unwrap();
    assert_eq!(meta, summary);
    // Same inputs, same seed: byte-identical index.
    let again = dir.path().join("again");
    let rerun = sidlens(&[
        "tokenize",
        "--embeddings",
        emb.to_str().unwrap(),
        "--levels",
        "3",
        "--codebook-size",
        "8",
        "--iters",
        "5",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(rerun.status.success());
    assert_eq!(
        std::fs::read(out.join("Toy.index.json")).unwrap(),
        std::fs::read(again.join("Toy.index.json")).unwrap()
    );
}

#[test]
fn errors_have_the_right_exit_codes_and_messages() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let missing = dir.path().join("missing.npy");
    let run = sidlens(&[
        "tokenize",
        "--embeddings",
        missing.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("missing.npy"));
    assert!(run.stdout.is_empty());

    let usage = sidlens(&[
        "tokenize",
        "--embeddings",
        missing.to_str().unwrap(),
        "--codebook-size",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(usage.status.code(), Some(2));

    let ints = dir.path().join("ints.npy");
    ndarray_npy::write_npy(&ints, &Array2::<i64>::zeros((10, 3))).unwrap();
    let run = sidlens(&[
        "tokenize",
        "--embeddings",
        ints.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("ints.npy") && err.contains("float32 or float64"),
        "{err}"
    );

    let small = dir.path().join("small.npy");
    write_embeddings(&small, 10, 3);
    let run = sidlens(&[
        "tokenize",
        "--embeddings",
        small.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("at least 256 items"));

    let inside = dir.path().join("latents.npy");
    write_embeddings(&inside, 40, 3);
    let run = sidlens(&[
        "tokenize",
        "--embeddings",
        inside.to_str().unwrap(),
        "--codebook-size",
        "4",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("it is an input file"));
}
