//! `sidlens plot` on the shipped demo: one snapshot per figure (the SVG bytes are deterministic),
//! the figure's computed numbers in it, escaping of names, PNG output and atomic --out.

use crate::common;

use common::sidlens;

const INDEX: &str = "demo_data/indexes/rkmeans_v64_native/Workshop.index.json";
const LATENTS: &str = "demo_data/Workshop.emb-tfidf.npy";
const CODEBOOKS: &str = "demo_data/indexes/rkmeans_v64_native/codebooks.npy";

fn svg(args: &[&str]) -> String {
    let out = sidlens(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg,
        String::from_utf8(sidlens(args).stdout).unwrap(),
        "not deterministic"
    );
    svg
}

#[test]
fn inflation_figure() {
    let s = svg(&["plot", "inflation", "demo_data", "-q"]);
    assert!(s.contains("rkmeans_v32_native") && s.contains("Pearson r = 0.985"));
    insta::assert_snapshot!("plot_inflation", s);
}

#[test]
fn ranks_figure() {
    let s = svg(&["plot", "ranks", "demo_data", "--k", "5", "-q"]);
    let out = sidlens(&["compare", "demo_data", "--k", "5", "--json", "-q"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let zcr = &doc["rows"][2];
    assert_eq!(zcr["name"], "rkmeans_v64_zcr");
    let item_hit = format!("{:.4}", zcr["metrics"]["ItemHit@5"].as_f64().unwrap());
    assert!(
        s.contains("3 pair(s)") && s.contains(&item_hit),
        "{item_hit}"
    );
    insta::assert_snapshot!("plot_ranks", s);
}

/// Rings are drawn where significant flips cross: as many as `compare --json` calls
/// significant, none when the level is too strict, and an "untested" caption with --no-tests.
#[test]
fn ranks_ring_the_significant_flips() {
    let out = sidlens(&["compare", "demo_data", "--k", "10", "--json", "-q"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let significant = doc["flips"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["significant"] == true)
        .count();
    assert!(significant > 0);
    let rings = |s: &str| s.matches(r#"r="8" opacity="1" fill="none""#).count();
    let s = svg(&["plot", "ranks", "demo_data", "-q"]);
    assert_eq!(rings(&s), significant);
    assert!(s.contains(&format!("Ringed crossings: the {significant} flip(s)")));
    let strict = svg(&["plot", "ranks", "demo_data", "-q", "--alpha", "1e-300"]);
    assert_eq!(rings(&strict), 0);
    assert!(strict.contains("Ringed crossings: the 0 flip(s)"));
    let untested = svg(&["plot", "ranks", "demo_data", "-q", "--no-tests"]);
    assert_eq!(rings(&untested), 0);
    assert!(untested.contains("Significance of the flips not tested."));
}

#[test]
fn curves_figure() {
    let s = svg(&["plot", "curves", "demo_data", "-q"]);
    assert!(s.contains("K = 1 … 20"));
    insta::assert_snapshot!("plot_curves", s);
}

#[test]
fn zcr_figure() {
    let s = svg(&[
        "plot",
        "zcr",
        "--index",
        INDEX,
        "--latents",
        LATENTS,
        "--codebooks",
        CODEBOOKS,
        "-q",
    ]);
    assert!(s.contains("total ΔD ZCR 12.3916 vs greedy 13.5914"), "{s}");
    assert!(s.contains("(8.83%)"));
    insta::assert_snapshot!("plot_zcr", s);
}

#[test]
fn names_from_the_command_line_are_escaped() {
    let run = "a<b>&\"c=demo_data/indexes/rkmeans_v64_native/Workshop.index.json,demo_data/indexes/rkmeans_v64_native/rkmeans_v64_native.per_user.json";
    let s = svg(&["plot", "inflation", "--run", run, "-q"]);
    assert!(s.contains("a&lt;b&gt;&amp;&quot;c"));
    assert!(!s.contains("a<b>"));
}

#[test]
fn png_goes_to_a_file_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ranks.png");
    let o = sidlens(&[
        "plot",
        "ranks",
        "demo_data",
        "--png",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let png = std::fs::read(&out).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    let no_out = sidlens(&["plot", "ranks", "demo_data", "--png"]);
    assert_eq!(no_out.status.code(), Some(2));
    let over_input = sidlens(&[
        "plot",
        "zcr",
        "--index",
        INDEX,
        "--latents",
        LATENTS,
        "--out",
        INDEX,
    ]);
    assert_eq!(over_input.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&over_input.stderr).contains("it is an input file"));
}

#[test]
fn missing_source_is_a_usage_error() {
    let o = sidlens(&["plot", "curves"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give a dataset folder"));
}

#[test]
fn scatter_figure_pairs_two_spaces() {
    let v32 = "demo_data/indexes/rkmeans_v32_native/Workshop.index.json";
    let s = svg(&[
        "plot",
        "scatter",
        "--index",
        v32,
        "--embeddings",
        LATENTS,
        "--embeddings",
        "second space=demo_data/Workshop.emb-tfidf.npy",
        "--max-points",
        "300",
        "--no-cache",
        "-q",
    ]);
    assert!(s.contains("width=\"1120\"") && s.contains("second space") && s.contains("tfidf"));
    assert!(s.contains("group #1 (23)") && s.contains("group #6 (13)"));
    assert!(s.contains("300 of 2264 items projected"));
    insta::assert_snapshot!("plot_scatter", s);
}
