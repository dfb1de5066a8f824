//! MQL4GRec's own beam outputs (`{"all_outputs", "all_scores", "all_targets", "all_users"}`,
//! as its test_ddp_save.py writes them) evaluate to the same numbers as the reference
//! per-user JSON: on a byte-true sample (scripts/make_mql4grec_fixture.py) and on the paper's
//! Scientific beams rewritten in that layout.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mql4grec")
        .join(name)
}

fn eval(index: &Path, beams: &Path) -> Value {
    let out = common::sidlens(&[
        "eval",
        "--index",
        index.to_str().unwrap(),
        "--beams",
        beams.to_str().unwrap(),
        "--json",
        "-q",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_object_mut()
        .unwrap()
        .retain(|k, _| k != "beams" && k != "index");
    v
}

#[test]
fn the_save_file_evaluates_like_the_per_user_json() {
    let index = fixture("Tiny.index.json");
    let want = eval(&index, &fixture("Tiny.per_user.json"));
    assert_eq!(want["n_users"], 12, "{want}");
    assert!(want["metrics"]["Hit@5"].as_f64().unwrap() > 0.0, "{want}");
    assert_eq!(eval(&index, &fixture("save_seqrec_5.json")), want);
}

#[test]
fn the_save_file_streams_from_standard_input() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(["eval", "--index"])
        .arg(fixture("Tiny.index.json"))
        .args(["--beams", "-", "--json", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(fixture("save_seqrec_5.json")).unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = eval(&fixture("Tiny.index.json"), &fixture("Tiny.per_user.json"));
    assert_eq!(got["metrics"], want["metrics"]);
}

#[test]
fn the_papers_beams_in_mql4grec_layout_give_the_reference_metrics() {
    let Some(reference) = common::reference() else {
        return;
    };
    let per_user: Value = serde_json::from_slice(
        &std::fs::read(reference.join("beams/Scientific/rkmeans_native.per_user.json")).unwrap(),
    )
    .unwrap();
    let expected: Value = serde_json::from_slice(
        &std::fs::read(reference.join("beams/Scientific/rkmeans_native.expected.json")).unwrap(),
    )
    .unwrap();
    let (mut outputs, mut scores, mut targets, mut users) = (vec![], vec![], vec![], vec![]);
    for (u, rec) in per_user.as_array().unwrap().iter().enumerate() {
        let beams = rec["beam_sids"].as_array().unwrap();
        assert_eq!(beams.len(), 20);
        // Listed in rank order; MQL4GRec's scores are log-probabilities, highest first.
        for (rank, b) in beams.iter().enumerate() {
            outputs.push(b.clone());
            scores.push(json!(-0.125 * rank as f64));
        }
        targets.push(rec["target"].clone());
        users.push(json!(u));
    }
    let save = json!({"all_outputs": outputs, "all_scores": scores, "all_targets": targets, "all_users": users});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("save_seqrec_20.json");
    let mut text = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(
        &mut text,
        serde_json::ser::PrettyFormatter::with_indent(b"    "),
    );
    serde::Serialize::serialize(&save, &mut ser).unwrap();
    std::fs::write(&path, text).unwrap();
    let got = eval(
        &reference
            .join("CollisionGenRec/data/Scientific/indexes/rkmeans_native/Scientific.index.json"),
        &path,
    );
    for (metric, want) in expected["metrics"].as_object().unwrap() {
        let v = got["metrics"][metric].as_f64().unwrap();
        assert!(
            (v - want.as_f64().unwrap()).abs() < 1e-12,
            "{metric}: {v} vs {want}"
        );
    }
}

#[test]
fn inconsistent_save_files_name_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let index = fixture("Tiny.index.json");
    let check = |name: &str, text: &str, want: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let out = common::sidlens(&[
            "eval",
            "--index",
            index.to_str().unwrap(),
            "--beams",
            p.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("{}{want}", p.display())),
            "{name}: {err}"
        );
    };
    check(
        "scores.json",
        r#"{"all_outputs": ["<a_0><b_0><c_0>", "<a_1><b_0><c_0>"], "all_scores": [-1.0], "all_targets": ["<a_0><b_0><c_0>"]}"#,
        ": \"all_scores\": has 1 scores for 2 outputs",
    );
    check(
        "beams.json",
        r#"{"all_outputs": ["<a_0><b_0><c_0>", "<a_1><b_0><c_0>", "<a_2><b_0><c_0>"], "all_scores": [-1.0, -2.0, -3.0], "all_targets": ["<a_0><b_0><c_0>", "<a_0><b_0><c_0>"]}"#,
        ": \"all_outputs\": has 3 outputs for 2 targets, not a whole number of beams per user",
    );
    check(
        "users.json",
        r#"{"all_outputs": ["<a_0><b_0><c_0>"], "all_scores": [-1.0], "all_targets": ["<a_0><b_0><c_0>"], "all_users": [0, 1]}"#,
        ": \"all_users\": has 2 users for 1 targets",
    );
    check(
        "broken.json",
        "{\n    \"all_outputs\": [\n        \"<a_0><b_0><c_0>\",\n        7\n    ]\n}",
        ": line 4, column",
    );
    check(
        "missing.json",
        r#"{"all_outputs": [], "all_scores": []}"#,
        ": line 1, column 37: missing field `all_targets`",
    );
}
