//! The projection end to end: picture quality on the reference MiniLM embeddings, and the
//! `sidlens project` command (outputs, highlighting, cache, errors).

use std::path::Path;
use std::process::Command;

use ndarray::Array2;
use ndarray_npy::write_npy;
use sidlens::load::{Latents, LatentsView};
use sidlens::progress::NoProgress;
use sidlens::projection::{ProjectionParams, project, sample_rows};

use crate::common;
use common::reference;

/// Mean share of each point's `k` nearest neighbours (Euclidean, full dimension) that are
/// also among its `k` nearest in the 2-D picture.
fn neighbour_preservation(high: &[Vec<f64>], low: &[[f64; 2]], k: usize) -> f64 {
    let nearest = |dist: &dyn Fn(usize, usize) -> f64, i: usize| {
        let mut others: Vec<(f64, usize)> = (0..high.len())
            .filter(|&j| j != i)
            .map(|j| (dist(i, j), j))
            .collect();
        others.sort_by(|a, b| a.0.total_cmp(&b.0));
        others.truncate(k);
        others.into_iter().map(|(_, j)| j).collect::<Vec<_>>()
    };
    let high_dist = |i: usize, j: usize| -> f64 {
        high[i]
            .iter()
            .zip(&high[j])
            .map(|(a, b)| (a - b) * (a - b))
            .sum()
    };
    let low_dist =
        |i: usize, j: usize| (low[i][0] - low[j][0]).powi(2) + (low[i][1] - low[j][1]).powi(2);
    let shared: usize = (0..high.len())
        .map(|i| {
            let a = nearest(&high_dist, i);
            let b = nearest(&low_dist, i);
            a.iter().filter(|j| b.contains(j)).count()
        })
        .sum();
    shared as f64 / (high.len() * k) as f64
}

/// On 1,000 real item embeddings, t-SNE keeps far more of each item's neighbourhood than
/// chance (k / n = 1%) or a random layout would: the picture reflects the data.
#[test]
fn minilm_neighbourhoods_survive_the_projection() {
    let Some(dir) = reference() else { return };
    let matrix = Latents::load(&dir.join("embeddings/Scientific.emb-minilm.npy")).unwrap();
    let LatentsView::F32(data) = matrix.view() else {
        panic!("the reference embeddings are float32")
    };
    let rows = sample_rows(data.nrows(), 1000, &[], 0).unwrap();
    let params = ProjectionParams {
        iterations: 500,
        ..ProjectionParams::default()
    };
    let result = project(data, &rows, &params, &NoProgress).unwrap();
    let high: Vec<Vec<f64>> = rows
        .iter()
        .map(|&r| data.row(r).iter().map(|&v| f64::from(v)).collect())
        .collect();
    let kept = neighbour_preservation(&high, &result.points, 10);
    eprintln!("10-NN preservation: {kept:.3}");
    assert!(kept > 0.30, "10-NN preservation {kept}");
}

/// The full reference run with default params, twice, on one and on two threads: the same
/// points bit for bit, and most neighbourhoods kept. Slow (20–40 s on two busy cores):
/// `cargo test --release --test projection -- --ignored`.
#[test]
#[ignore]
fn full_minilm_projection_is_reproducible_and_faithful() {
    let Some(dir) = reference() else { return };
    let matrix = Latents::load(&dir.join("embeddings/Scientific.emb-minilm.npy")).unwrap();
    let LatentsView::F32(data) = matrix.view() else {
        panic!("the reference embeddings are float32")
    };
    let rows: Vec<usize> = (0..data.nrows()).collect();
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| project(data, &rows, &ProjectionParams::default(), &NoProgress).unwrap())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one, two);
    let high: Vec<Vec<f64>> = rows
        .iter()
        .map(|&r| data.row(r).iter().map(|&v| f64::from(v)).collect())
        .collect();
    let kept = neighbour_preservation(&high, &one.points, 10);
    eprintln!("10-NN preservation on all {} items: {kept:.3}", rows.len());
    assert!(kept > 0.35, "10-NN preservation {kept}");
}

/// Runs the binary with its projection cache in `cache` (a test's own folder).
fn sidlens(cache: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .expect("run sidlens");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// 30 items in three groups of well separated vectors, and an index in which items 0–3 share
/// one SID (the largest collision group) and items 10–11 another.
fn fixture(dir: &Path) -> (String, String) {
    let data = Array2::from_shape_fn((30, 8), |(i, j)| {
        (if j == i / 10 { 10.0 } else { 0.0 }) + ((i * 31 + j * 17) % 13) as f32 / 13.0
    });
    let embeddings = dir.join("emb.npy");
    write_npy(&embeddings, &data).unwrap();
    let entries: Vec<String> = (0..30)
        .map(|i| {
            let last = match i {
                0..=3 => 0,
                10 | 11 => 1,
                _ => i + 2,
            };
            format!("\"{i}\": [\"<a_{}>\", \"<b_{last}>\"]", i / 10)
        })
        .collect();
    let index = dir.join("index.json");
    std::fs::write(&index, format!("{{{}}}", entries.join(", "))).unwrap();
    (
        embeddings.to_string_lossy().into_owned(),
        index.to_string_lossy().into_owned(),
    )
}

#[test]
fn project_command_outputs_highlights_and_caches() {
    let dir = tempfile::tempdir().unwrap();
    let (embeddings, index) = fixture(dir.path());
    let args = [
        "project",
        "--embeddings",
        &embeddings,
        "--index",
        &index,
        "--highlight",
        "1",
        "--max-points",
        "12",
        "--iterations",
        "200",
        "--json",
    ];
    let (ok, stdout, stderr) = sidlens(&dir.path().join("cache"), &args);
    assert!(ok, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["total_rows"], 30);
    assert_eq!(report["projected"], 12);
    assert_eq!(report["cache"], "stored");
    assert_eq!(report["method"], "tsne");
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), 12);
    let highlighted: Vec<&str> = points
        .iter()
        .filter(|p| p["group"] == 1)
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(highlighted, ["0", "1", "2", "3"]);
    assert!(
        stderr.contains("t-SNE on a sample of 12 of 30 rows"),
        "{stderr}"
    );
    assert!(dir.path().join("cache/sidlens").is_dir());
    assert!(!dir.path().join(".sidlens-cache").exists());

    let (ok, again, _) = sidlens(&dir.path().join("cache"), &args);
    assert!(ok);
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(again["cache"], "hit");
    assert_eq!(again["points"], report["points"]);

    let mut fresh = args.to_vec();
    fresh.push("--no-cache");
    let (ok, fresh, _) = sidlens(&dir.path().join("cache"), &fresh);
    assert!(ok);
    let fresh: serde_json::Value = serde_json::from_str(&fresh).unwrap();
    assert_eq!(fresh["cache"], "off");
    assert_eq!(
        fresh["points"], report["points"],
        "recomputing gives the same points"
    );
}

#[test]
fn project_command_writes_csv_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (embeddings, _) = fixture(dir.path());
    let out = dir.path().join("points.csv");
    let out_arg = out.to_string_lossy().into_owned();
    let (ok, stdout, stderr) = sidlens(
        &dir.path().join("cache"),
        &[
            "project",
            "--embeddings",
            &embeddings,
            "--iterations",
            "100",
            "--no-cache",
            "--csv",
            "--out",
            &out_arg,
        ],
    );
    assert!(ok, "{stderr}");
    assert!(stdout.is_empty());
    let csv = std::fs::read_to_string(&out).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("id,row,x,y,group"));
    assert_eq!(lines.count(), 30);
    let (ok, table, _) = sidlens(
        &dir.path().join("cache"),
        &[
            "project",
            "--embeddings",
            &embeddings,
            "--iterations",
            "100",
            "--no-cache",
        ],
    );
    assert!(ok);
    assert!(table.lines().next().unwrap().contains("group"));
    assert_eq!(table.lines().count(), 32, "header, rule and 30 rows");
}

#[test]
fn project_command_rejects_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let (embeddings, index) = fixture(dir.path());
    let (ok, _, stderr) = sidlens(
        &dir.path().join("cache"),
        &["project", "--embeddings", &index],
    );
    assert!(!ok);
    assert!(stderr.contains("index.json"), "{stderr}");
    let (ok, _, stderr) = sidlens(
        &dir.path().join("cache"),
        &["project", "--embeddings", &embeddings, "--out", &embeddings],
    );
    assert!(!ok && stderr.contains("input"), "{stderr}");
    let (ok, _, stderr) = sidlens(
        &dir.path().join("cache"),
        &["project", "--embeddings", &embeddings, "--perplexity", "0"],
    );
    assert!(!ok && stderr.contains("perplexity"), "{stderr}");
    let big = dir.path().join("big.json");
    std::fs::write(&big, r#"{"0": ["<a_1>"], "31": ["<a_2>"]}"#).unwrap();
    let (ok, _, stderr) = sidlens(
        &dir.path().join("cache"),
        &[
            "project",
            "--embeddings",
            &embeddings,
            "--index",
            &big.to_string_lossy(),
        ],
    );
    assert!(!ok && stderr.contains("item \"31\""), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(["project", "--embeddings", &embeddings, "--highlight", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "--highlight needs --index");
}
