//! `sidlens beams` end to end with the real binary: formats, determinism and errors.

use crate::common;
use common::sidlens;

#[test]
fn writes_per_user_json_and_jsonl_with_the_same_records() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("D.index.json");
    let inter = dir.path().join("D.inter.json");
    std::fs::write(
        &index,
        r#"{"0": ["<a_0>", "<b_1>"], "1": ["<a_0>", "<b_1>"], "2": ["<a_1>", "<b_0>"], "3": ["<a_2>", "<b_2>"]}"#,
    )
    .unwrap();
    std::fs::write(
        &inter,
        r#"{"u": [0, 1, 2, 3, 2], "v": [1, 2, 0], "w": ["3", 0, 1, 2, 0, 1], "x": [2]}"#,
    )
    .unwrap();
    let json = dir.path().join("b.per_user.json");
    let jsonl = dir.path().join("b.per_user.jsonl");
    for out in [&json, &jsonl] {
        let run = sidlens(&[
            "beams",
            "--index",
            index.to_str().unwrap(),
            "--interactions",
            inter.to_str().unwrap(),
            "--width",
            "3",
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
        assert_eq!(summary["n_users_written"], 3);
        assert_eq!(summary["n_users_too_short"], 1);
    }
    let array: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(array, serde_json::Value::Array(lines));
    let first = &array[0];
    assert_eq!(first["target_item"], "2");
    assert_eq!(first["target"], "<a_1><b_0>");
    assert_eq!(first["user"], "u");
    assert_eq!(first["beam_sids"].as_array().unwrap().len(), 3);
}

#[test]
fn refuses_to_overwrite_inputs_and_reports_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("D.index.json");
    let inter = dir.path().join("D.inter.json");
    std::fs::write(&index, r#"{"0": [1, 2], "1": [1, 3]}"#).unwrap();
    std::fs::write(&inter, "{\"u\": [0, 1],\n \"v\": [0, null]}").unwrap();
    let run = sidlens(&[
        "beams",
        "--index",
        index.to_str().unwrap(),
        "--interactions",
        inter.to_str().unwrap(),
        "--out",
        inter.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("it is an input file"));
    let out = dir.path().join("out.json");
    let run = sidlens(&[
        "beams",
        "--index",
        index.to_str().unwrap(),
        "--interactions",
        inter.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("D.inter.json: line 2") && err.contains("user \"v\""),
        "{err}"
    );
    assert!(!out.exists());
    let usage = sidlens(&[
        "beams",
        "--index",
        index.to_str().unwrap(),
        "--interactions",
        inter.to_str().unwrap(),
        "--width",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(usage.status.code(), Some(2));
}
