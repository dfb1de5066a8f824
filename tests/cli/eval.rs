//! The real `sidlens` binary: `eval` and `compare` on small files written to a temp dir
//! (JSON keys, exit codes, JSON Lines ≡ JSON array, per-user output, snapshots).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// L = 2. Groups: <a_1><b_1> {0}, <a_2><b_2> {1, 2}, <a_3><b_3> {3, 4, 5}, <a_4><b_4> {6}.
const INDEX: &str = r#"{"0": ["<a_1>", "<b_1>"], "1": ["<a_2>", "<b_2>"], "2": ["<a_2>", "<b_2>"], "3": ["<a_3>", "<b_3>"], "4": ["<a_3>", "<b_3>"], "5": ["<a_3>", "<b_3>"], "6": ["<a_4>", "<b_4>"]}"#;

/// Per user (faithful): (SID rank, P, G) = (0, 0, 1), (1, 3, 2), (0, 0, 3), (0, 0, 1) after
/// dropping an unknown SID and a repeat, and (0, 0, 3).
const RECORDS: [&str; 5] = [
    r#"{"beam_sids": ["<a_1><b_1>", "<a_2><b_2>"], "target": "<a_1><b_1>", "target_item": "0"}"#,
    r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>"], "target": "<a_2><b_2>", "target_item": "2"}"#,
    r#"{"beam_sids": ["<a_3><b_3>"], "target": "<a_3><b_3>", "target_item": "4"}"#,
    r#"{"beam_sids": ["<a_9><b_9>", "<a_4><b_4>", "<a_4><b_4>"], "target": "<a_4><b_4>", "target_item": "6"}"#,
    r#"{"beam_sids": ["<a_3><b_3>"], "target_item": 5}"#,
];

fn sidlens(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .output()
        .unwrap()
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.json"), INDEX).unwrap();
    std::fs::write(
        dir.path().join("beams.json"),
        format!("[\n{}\n]\n", RECORDS.join(",\n")),
    )
    .unwrap();
    std::fs::write(dir.path().join("beams.jsonl"), RECORDS.join("\n") + "\n").unwrap();
    dir
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn eval_json_has_the_contract_keys_and_hand_checked_values() {
    let dir = fixture();
    let v = json_of(&sidlens(
        dir.path(),
        &[
            "eval",
            "--index",
            "index.json",
            "--beams",
            "beams.json",
            "--json",
        ],
    ));
    for key in [
        "n_users",
        "metrics",
        "inflation_pct",
        "invalid_sids",
        "duplicate_sids",
        "collision_rate",
        "unknown_targets",
        "target_mismatches",
        "compat",
        "ks",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["n_users"], 5);
    assert_eq!(v["ks"], serde_json::json!([1, 5, 10, 20]));
    assert_eq!(v["compat"], "faithful");
    assert_eq!(
        (v["invalid_sids"].as_u64(), v["duplicate_sids"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(v["metrics"].as_object().unwrap().len(), 24);
    let m = |k: &str| v["metrics"][k].as_f64().unwrap();
    // Hit@1: users 0, 2, 3, 4. ItemHit@1: 1 + 0 + 1/3 + 1 + 1/3.
    assert!((m("Hit@1") - 0.8).abs() < 1e-12);
    assert!((m("ItemHit@1") - (8.0 / 3.0) / 5.0).abs() < 1e-12);
    // At K = 5 every block fits whole (user 1: P = 3, G = 2), so ItemHit@5 = Hit@5 = 1.
    assert_eq!((m("Hit@5"), m("ItemHit@5")), (1.0, 1.0));
    assert_eq!(v["inflation_pct"]["Hit@5"], 0.0);
    let infl = v["inflation_pct"]["Hit@1"].as_f64().unwrap();
    assert!((infl - (0.8 - 8.0 / 15.0) / (8.0 / 15.0) * 100.0).abs() < 1e-9);
    assert!(v["inflation_pct"]["NDCG@1"].is_number());
    assert!((v["collision_rate"].as_f64().unwrap() - 5.0 / 7.0).abs() < 1e-15);
    assert!(v.get("groups").is_none());
}

#[test]
fn json_lines_and_json_array_agree() {
    let dir = fixture();
    for compat in ["faithful", "cce-py"] {
        let args = |beams: &'static str| {
            vec![
                "eval",
                "--index",
                "index.json",
                "--beams",
                beams,
                "--json",
                "--compat",
                compat,
                "--groups",
                "3",
            ]
        };
        let a = json_of(&sidlens(dir.path(), &args("beams.json")));
        let l = json_of(&sidlens(dir.path(), &args("beams.jsonl")));
        assert_eq!(a, l);
        assert_eq!(a["compat"], compat);
        let groups = a["groups"].as_array().unwrap();
        assert_eq!(groups.len(), 3);
        assert_eq!(a["groups_ranked_at"], "Hit@20");
        assert_eq!(groups[0]["sid"], "<a_3><b_3>");
        assert_eq!(groups[0]["items"], serde_json::json!(["3", "4", "5"]));
        // <a_3><b_3> is among the beams of users 1, 2 and 4, the target of users 2 and 4.
        assert_eq!(
            (
                groups[0]["generated"].as_u64(),
                groups[0]["targets"].as_u64()
            ),
            (Some(3), Some(2))
        );
    }
}

#[test]
fn usage_errors_exit_2_and_runtime_errors_exit_1() {
    let dir = fixture();
    for bad_k in ["0", "x", "5,-1", ""] {
        let out = sidlens(
            dir.path(),
            &[
                "eval",
                "--index",
                "index.json",
                "--beams",
                "beams.json",
                "--k",
                bad_k,
            ],
        );
        assert_eq!(out.status.code(), Some(2), "--k {bad_k:?}");
        assert!(out.stdout.is_empty());
    }
    let out = sidlens(
        dir.path(),
        &[
            "eval",
            "--index",
            "index.json",
            "--beams",
            "missing.json",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.json"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    std::fs::write(
        dir.path().join("broken.jsonl"),
        format!("{}\n{{\"beam_sids\": [\"<a_1><b_1>\"]}}\n", RECORDS[0]),
    )
    .unwrap();
    let out = sidlens(
        dir.path(),
        &[
            "eval",
            "--index",
            "index.json",
            "--beams",
            "broken.jsonl",
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("broken.jsonl: record 1 (line 2): has no target"),
        "{err}"
    );
}

#[test]
fn per_user_writes_json_lines_and_refuses_an_input() {
    let dir = fixture();
    let before = std::fs::read(dir.path().join("beams.json")).unwrap();
    for input in ["beams.json", "./index.json"] {
        let out = sidlens(
            dir.path(),
            &[
                "eval",
                "--index",
                "index.json",
                "--beams",
                "beams.json",
                "--per-user",
                input,
            ],
        );
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("refusing"));
    }
    assert_eq!(
        std::fs::read(dir.path().join("beams.json")).unwrap(),
        before
    );
    let out = sidlens(
        dir.path(),
        &[
            "eval",
            "--index",
            "index.json",
            "--beams",
            "beams.jsonl",
            "--k",
            "1,5",
            "--per-user",
            "users.jsonl",
        ],
    );
    assert!(out.status.success());
    let text = std::fs::read_to_string(dir.path().join("users.jsonl")).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[1]["user"], 1);
    assert_eq!(lines[1]["target_item"], "2");
    assert_eq!(
        (
            lines[1]["rank"].as_u64(),
            lines[1]["items_before"].as_u64(),
            lines[1]["group_size"].as_u64()
        ),
        (Some(2), Some(3), Some(2))
    );
    assert_eq!(lines[1]["Hit@1"], 0.0);
    assert_eq!(lines[1]["ItemHit@5"], 1.0);
    assert!(lines[1].get("Hit@10").is_none());
    let failed = sidlens(
        dir.path(),
        &[
            "eval",
            "--index",
            "index.json",
            "--beams",
            "nope.json",
            "--per-user",
            "nothing.jsonl",
        ],
    );
    assert_eq!(failed.status.code(), Some(1));
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.contains("nothing"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn eval_table_snapshot() {
    let dir = fixture();
    let out = sidlens(
        dir.path(),
        &["eval", "--index", "index.json", "--beams", "beams.jsonl"],
    );
    assert!(out.status.success());
    insta::assert_snapshot!("eval_table", String::from_utf8(out.stdout).unwrap());
    // At K = 1 the G = 3 group is over-credited: users 2 and 4 hit its SID first (ΣHit = 2)
    // but each holds its target with probability 1/3 (ΣItemHit = 2/3).
    let out = sidlens(
        dir.path(),
        &[
            "eval",
            "--index",
            "index.json",
            "--beams",
            "beams.jsonl",
            "--k",
            "1",
            "--groups",
            "2",
        ],
    );
    assert!(out.status.success());
    insta::assert_snapshot!("eval_groups", String::from_utf8(out.stdout).unwrap());
}

/// A dataset folder with two tokenizers whose order flips at K = 1: `native` (collisions)
/// leads by Hit@1 (0.8 vs 0.6) but trails by ItemHit@1 (8/15 vs 0.6).
fn dataset() -> tempfile::TempDir {
    let dir = fixture();
    let root = dir.path().join("Toy");
    std::fs::create_dir_all(root.join("indexes/native")).unwrap();
    std::fs::create_dir_all(root.join("indexes/zcr")).unwrap();
    std::fs::write(root.join("Toy.inter.json"), "{}").unwrap();
    std::fs::write(root.join("indexes/native/Toy.index.json"), INDEX).unwrap();
    std::fs::write(
        root.join("indexes/native.per_user.json"),
        format!("[{}]", RECORDS.join(",")),
    )
    .unwrap();
    std::fs::write(
        root.join("indexes/zcr/Toy.index.json"),
        r#"{"0": [1, 1], "1": [2, 2], "2": [2, 3], "3": [3, 3], "4": [3, 4], "5": [3, 5], "6": [4, 4]}"#,
    )
    .unwrap();
    let zcr = [
        r#"{"beam_sids": ["<a_1><b_1>"], "target_item": "0"}"#,
        r#"{"beam_sids": ["<a_2><b_3>"], "target_item": "2"}"#,
        r#"{"beam_sids": ["<a_3><b_4>"], "target_item": "4"}"#,
        r#"{"beam_sids": ["<a_1><b_1>"], "target_item": "6"}"#,
        r#"{"beam_sids": [], "target_item": "5"}"#,
    ];
    std::fs::write(root.join("indexes/zcr/zcr.per_user.jsonl"), zcr.join("\n")).unwrap();
    dir
}

#[test]
fn compare_markdown_snapshot_and_json_flips() {
    let dir = dataset();
    let out = sidlens(dir.path(), &["compare", "Toy", "--k", "1", "--markdown"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!("compare_markdown", String::from_utf8(out.stdout).unwrap());
    let v = json_of(&sidlens(
        dir.path(),
        &["compare", "Toy", "--k", "1", "--json"],
    ));
    assert_eq!(v["k"], 1);
    assert_eq!(v["rows"][0]["name"], "native");
    assert_eq!(v["rows"][0]["rank_hit"], 1);
    assert_eq!(v["rows"][0]["rank_item_hit"], 2);
    assert_eq!(
        v["flips"],
        serde_json::json!([{"k": 1, "higher_by_hit": "native", "higher_by_item_hit": "zcr",
            "significant": v["tests"].as_array().unwrap().iter()
                .find(|t| t["metric"] == "ItemHit@1").unwrap()["significant"]}])
    );
    assert_eq!(v["correction"], "holm");
    let runs = json_of(&sidlens(
        dir.path(),
        &[
            "compare",
            "--run",
            "a=index.json,beams.jsonl",
            "--run",
            "b=Toy/indexes/zcr/Toy.index.json",
            "--json",
        ],
    ));
    assert_eq!(runs["rows"][1]["metrics"], Value::Null);
    assert_eq!(runs["rows"][1]["g_max"], 1);
    for bad in [
        vec!["compare"],
        vec!["compare", "Toy", "--run", "a=index.json"],
        vec!["compare", "--run", "noequals"],
        vec!["compare", "Toy", "--json", "--csv"],
        vec!["compare", "Toy", "--k", "0"],
    ] {
        assert_eq!(sidlens(dir.path(), &bad).status.code(), Some(2), "{bad:?}");
    }
    let same = sidlens(
        dir.path(),
        &["compare", "--run", "a=index.json", "--run", "a=index.json"],
    );
    assert_eq!(same.status.code(), Some(1));
    let not_dataset = sidlens(dir.path(), &["compare", "."]);
    assert_eq!(not_dataset.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&not_dataset.stderr).contains("no indexes/ folder"));
}
