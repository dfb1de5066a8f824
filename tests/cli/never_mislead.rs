//! Facts every surface must agree on, checked through the binary: a K beyond the beam width
//! is marked wherever a comparison at that K is shown (JSON, text, Markdown, the HTML
//! report), beams that were not found are named with where they were looked for, and a
//! comparison with nothing to compare fails instead of printing dashes.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo_data")
}

fn run(args: &[&str]) -> (Output, String, String) {
    let out = common::sidlens(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

/// The demo's beams are 20 wide.
const BEYOND: &str = "K = 50 exceeds the beam width of rkmeans_v32_native (20), rkmeans_v64_native (20), rkmeans_v64_zcr (20)";

#[test]
fn k_beyond_the_beam_width_is_marked_on_every_surface() {
    let dir = demo();
    let dir = dir.to_str().unwrap();
    let (out, stdout, stderr) = run(&["compare", dir, "--k", "10,50", "--json", "--quiet"]);
    assert!(out.status.success(), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["k_beyond_beam_width"], serde_json::json!([50]));
    let warnings: Vec<&str> = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with(BEYOND), "{}", warnings[0]);
    assert!(
        stderr.contains(&format!("warning: {}", warnings[0])),
        "{stderr}"
    );
    for row in json["rows"].as_array().unwrap() {
        assert_eq!(row["beam_width"], 20);
    }

    for format in [&[][..], &["--markdown"][..]] {
        let mut args = vec!["compare", dir, "--k", "10,50", "--quiet"];
        args.extend_from_slice(format);
        let (out, stdout, stderr) = run(&args);
        assert!(out.status.success(), "{stderr}");
        assert!(stdout.contains(warnings[0]), "{format:?}: {stdout}");
        assert!(!stderr.contains(warnings[0]), "said twice: {stderr}");
        for line in stdout.lines().filter(|l| l.contains("@50 but below")) {
            assert!(line.contains("not comparable"), "{line}");
        }
    }

    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("report.html");
    let (out, _, stderr) = run(&[
        "report",
        dir,
        "--out",
        page.to_str().unwrap(),
        "--no-scatter",
        "--quiet",
    ]);
    assert!(out.status.success(), "{stderr}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("not computed by this version"),
        "the report denies the tests it ran"
    );
}

#[test]
fn eval_says_what_happens_past_the_beam_width() {
    let dir = demo().join("indexes/rkmeans_v64_native");
    let (out, stdout, stderr) = run(&[
        "eval",
        "--index",
        dir.join("Workshop.index.json").to_str().unwrap(),
        "--beams",
        dir.join("rkmeans_v64_native.per_user.json")
            .to_str()
            .unwrap(),
        "--k",
        "20,50",
        "--json",
        "--quiet",
    ]);
    assert!(out.status.success(), "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let w = json["warnings"][0].as_str().unwrap();
    assert!(
        w.starts_with("K = 50 exceeds the beam width 20: Hit@K and NDCG@K stop at the beam width while ItemHit@K"),
        "{w}"
    );
    assert!(!w.contains("equal their value"), "{w}");
    assert!(
        stderr.contains(w),
        "JSON's warnings are said on stderr too: {stderr}"
    );
}

#[test]
fn beams_not_found_are_named_and_nothing_to_compare_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("D");
    std::fs::create_dir_all(root.join("indexes/rk")).unwrap();
    std::fs::copy(
        demo().join("indexes/rkmeans_v32_native/Workshop.index.json"),
        root.join("indexes/rk/D.index.json"),
    )
    .unwrap();
    let beams = tmp.path().join("beams");
    std::fs::create_dir(&beams).unwrap();
    std::fs::copy(
        demo().join("indexes/rkmeans_v32_native/rkmeans_v32_native.per_user.json"),
        beams.join("rk_beams.json"),
    )
    .unwrap();

    let (out, stdout, stderr) = run(&[
        "compare",
        root.to_str().unwrap(),
        "--beams-dir",
        beams.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("warning: rk: no beams found, so it has no metrics; looked for "),
        "{stderr}"
    );
    assert!(stderr.contains("/beams/rk.per_user.json[l]"), "{stderr}");
    assert!(
        stderr.contains("warning: rk_beams.json in the beams folder matched no tokenizer (rk)"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing to compare"), "{stderr}");

    let (out, _, stderr) = run(&["compare", root.to_str().unwrap(), "--quiet"]);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("/indexes/rk.per_user.json[l]"), "{stderr}");
}

#[test]
fn every_eval_surface_carries_the_same_numbers_and_warnings() {
    let dir = demo().join("indexes/rkmeans_v64_native");
    let index = dir.join("Workshop.index.json");
    let beams = dir.join("rkmeans_v64_native.per_user.json");
    let eval = |format: &[&str]| {
        let mut args = vec![
            "eval",
            "--index",
            index.to_str().unwrap(),
            "--beams",
            beams.to_str().unwrap(),
            "--k",
            "20,50",
            "--quiet",
        ];
        args.extend_from_slice(format);
        let (out, stdout, stderr) = run(&args);
        assert!(out.status.success(), "{stderr}");
        (stdout, stderr)
    };
    let (json, _) = eval(&["--json"]);
    let json: Value = serde_json::from_str(&json).unwrap();
    let warning = json["warnings"][0].as_str().unwrap().to_string();
    let item_hit = json["metrics"]["ItemHit@50"].as_f64().unwrap();
    let inflation = json["inflation_pct"]["Hit@50"].as_f64().unwrap();
    for format in [&[][..], &["--markdown"][..]] {
        let (stdout, stderr) = eval(format);
        assert!(stdout.contains(&format!("{item_hit:.4}")), "{stdout}");
        assert!(stdout.contains(&format!("+{inflation:.1}%")), "{stdout}");
        assert!(stdout.contains(&warning), "{format:?}: {stdout}");
        assert!(!stderr.contains(&warning), "said twice: {stderr}");
    }
    let (csv, stderr) = eval(&["--csv"]);
    assert!(csv.contains(&format!(",{item_hit},")), "{csv}");
    assert!(stderr.contains(&warning), "{stderr}");
}

#[test]
fn stats_and_groups_take_the_index_as_the_other_subcommands_take_their_input() {
    let index = demo().join("indexes/rkmeans_v64_native/Workshop.index.json");
    let index = index.to_str().unwrap();
    for command in ["stats", "groups"] {
        let (out, positional, stderr) = run(&[command, index, "--json"]);
        assert!(out.status.success(), "{command}: {stderr}");
        let (_, flag, _) = run(&[command, "--index", index, "--json"]);
        assert_eq!(positional, flag, "{command}");
        let (out, _, stderr) = run(&[command, index, "--index", index]);
        assert_eq!(out.status.code(), Some(2), "{command}: both forms at once");
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
}
