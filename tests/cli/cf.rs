//! `sidlens cf` and `sidlens tokenize --fuse-cf` end to end on small files: shapes, the JSON
//! summary, atomic all-or-nothing output, and errors that name the file and the place.

use crate::common;

use ndarray::Array2;
use ndarray_npy::{ReadNpyExt, WriteNpyExt};
use serde_json::Value;

/// 12 users over items 0..30: two tastes (0..15 and 15..30), item 29 never co-occurs.
fn interactions() -> String {
    let mut users = Vec::new();
    for u in 0..12 {
        let base = if u % 2 == 0 { 0 } else { 15 };
        let items: Vec<String> = (0..8)
            .map(|k| ((base + (u * 3 + k * 5) % 14) % 29).to_string())
            .collect();
        users.push(format!("\"u{u}\": [{}, 29, 29]", items.join(", ")));
    }
    format!("{{{}}}", users.join(",\n"))
}

#[test]
fn cf_writes_the_embedding_and_a_json_summary() {
    let dir = tempfile::tempdir().unwrap();
    let inter = dir.path().join("Toy.inter.json");
    std::fs::write(&inter, interactions()).unwrap();
    let out = dir.path().join("toy.emb-ppmi.npy");
    let run = common::sidlens(&[
        "cf",
        "--interactions",
        inter.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["n_items"], 30);
    assert_eq!(summary["dims"], 28);
    assert_eq!(summary["n_users"], 12);
    let e = Array2::<f32>::read_npy(std::fs::File::open(&out).unwrap()).unwrap();
    assert_eq!(e.dim(), (30, 28));
    let zero_rows = e
        .rows()
        .into_iter()
        .filter(|r| r.iter().all(|&v| v == 0.0))
        .count();
    assert_eq!(summary["zero_rows"], zero_rows);
    assert!(
        e.row(29).iter().all(|&v| v == 0.0),
        "item 29 is only ever held out"
    );
    for row in e.rows() {
        let norm: f32 = row.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!(norm == 0.0 || (norm - 1.0).abs() < 1e-5);
    }
    let sv = summary["singular_values"].as_array().unwrap();
    assert!(sv.windows(2).all(|w| w[0].as_f64() >= w[1].as_f64()));
}

#[test]
fn cf_errors_name_the_file_and_item_and_leave_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let inter = dir.path().join("bad.inter.json");
    std::fs::write(
        &inter,
        r#"{"u1": ["1", "B00X", "2", "3"], "u2": ["1", "2"]}"#,
    )
    .unwrap();
    let out = dir.path().join("e.npy");
    let run = common::sidlens(&[
        "cf",
        "--interactions",
        inter.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("bad.inter.json") && err.contains("B00X"),
        "{err}"
    );
    assert!(!out.exists());
    let index = dir.path().join("i.json");
    std::fs::write(&index, r#"{"1": [1, 1], "2": [1, 2], "3": [2, 1]}"#).unwrap();
    let run = common::sidlens(&[
        "cf",
        "--interactions",
        inter.to_str().unwrap(),
        "--index",
        index.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("B00X") && err.contains("i.json"), "{err}");
    assert!(!out.exists());
}

#[test]
fn tokenize_fuses_the_collaborative_embedding() {
    let dir = tempfile::tempdir().unwrap();
    let n = 40;
    let text = Array2::from_shape_fn((n, 8), |(i, j)| (((i * 7 + j * 3) % 11) as f32) - 5.0);
    let cf = Array2::from_shape_fn((n, 4), |(i, j)| (((i * 5 + j) % 7) as f32) / 7.0);
    let text_path = dir.path().join("Toy.emb-text.npy");
    let cf_path = dir.path().join("Toy.emb-ppmi.npy");
    text.write_npy(std::fs::File::create(&text_path).unwrap())
        .unwrap();
    cf.write_npy(std::fs::File::create(&cf_path).unwrap())
        .unwrap();
    let out = dir.path().join("tok");
    let run = common::sidlens(&[
        "tokenize",
        "--embeddings",
        text_path.to_str().unwrap(),
        "--fuse-cf",
        cf_path.to_str().unwrap(),
        "--alpha",
        "0.5",
        "--levels",
        "2",
        "--codebook-size",
        "4",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["fusion"]["components"], 8);
    assert_eq!(summary["fusion"]["concatenated_dim"], 12);
    assert_eq!(summary["fusion"]["alpha"], 0.5);
    let latents =
        Array2::<f32>::read_npy(std::fs::File::open(out.join("latents.npy")).unwrap()).unwrap();
    assert_eq!(latents.dim(), (n, 8));
    assert_eq!(summary["dim"], 8);
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("Toy.meta.json")).unwrap()).unwrap();
    assert_eq!(meta["fusion"], summary["fusion"]);
    let bad = common::sidlens(&[
        "tokenize",
        "--embeddings",
        text_path.to_str().unwrap(),
        "--alpha",
        "0.3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2), "--alpha needs --fuse-cf");
}
