//! The `zcr` and `diff` subcommands run as a user would (the real binary): outputs written
//! atomically and never over an input, JSON keys, exit codes, and errors naming file and place.

use std::path::{Path, PathBuf};
use std::process::Output;

use ndarray::{Array1, Array2, Array3};
use ndarray_npy::write_npy;
use sidlens::collision::Collisions;
use sidlens::load::SidIndex;

use crate::common;
use common::sidlens;

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Items 0 and 1 collide on `<a_1><b_2>`, items 2 and 3 on `<a_0><b_0>`; V = 4, d = 2.
struct Fixture {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    index: PathBuf,
    latents: PathBuf,
    codebooks: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let index = dir.join("native.index.json");
    std::fs::write(
        &index,
        r#"{"0": ["<a_1>", "<b_2>"], "1": ["<a_1>", "<b_2>"], "2": ["<a_0>", "<b_0>"], "3": ["<a_0>", "<b_0>"], "4": ["<a_0>", "<b_3>"]}"#,
    )
    .unwrap();
    let latents = dir.join("latents.npy");
    let rows: Vec<f32> = vec![1.0, 2.0, 1.5, 2.5, 0.1, 0.0, 0.3, 0.2, 3.0, 3.0];
    write_npy(&latents, &Array2::from_shape_vec((5, 2), rows).unwrap()).unwrap();
    let codebooks = dir.join("codebooks.npy");
    let mut cb = Array3::<f32>::zeros((2, 4, 2));
    for c in 0..4 {
        cb[[0, c, 0]] = c as f32 * 0.5;
        cb[[1, c, 0]] = c as f32 * 0.3;
        cb[[1, c, 1]] = 1.0 - c as f32 * 0.2;
    }
    write_npy(&codebooks, &cb).unwrap();
    Fixture {
        _dir: tmp,
        dir,
        index,
        latents,
        codebooks,
    }
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn json_has_the_contract_keys() {
    let f = fixture();
    let out = sidlens(&[
        "zcr",
        "--index",
        text(&f.index),
        "--latents",
        text(&f.latents),
        "--codebooks",
        text(&f.codebooks),
        "--json",
        "--groups",
    ]);
    let v = json(&out);
    for key in [
        "n_groups_resolved",
        "optimal",
        "greedy",
        "reduction_pct",
        "skipped_over_capacity",
        "codebook_estimated",
        "skipped_groups",
        "groups",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["n_groups_resolved"], 2);
    assert_eq!(v["optimal"]["n_reassigned"], 2);
    assert_eq!(v["greedy"]["n_reassigned"], 2);
    assert_eq!(v["codebook_estimated"], false);
    assert!(
        v["optimal"]["total_delta"].as_f64().unwrap()
            <= v["greedy"]["total_delta"].as_f64().unwrap() + 1e-12
    );
    assert_eq!(v["groups"].as_array().unwrap().len(), 2);
    let est = json(&sidlens(&[
        "zcr",
        "--index",
        text(&f.index),
        "--latents",
        text(&f.latents),
        "--json",
    ]));
    assert_eq!(est["codebook_estimated"], true);
    assert!(est["unavailable_codes"].as_u64().unwrap() > 0);
    let bare = json(&sidlens(&["zcr", "--index", text(&f.index), "--json"]));
    assert_eq!(bare["optimal"]["n_reassigned"], 2);
    assert!(bare["optimal"]["total_delta"].is_null());
}

#[test]
fn without_mql4grec_leaves_its_column_out_and_the_rest_the_same() {
    let f = fixture();
    let zcr = |extra: &[&str]| {
        let mut args = vec![
            "zcr",
            "--index",
            text(&f.index),
            "--latents",
            text(&f.latents),
        ];
        args.extend_from_slice(extra);
        sidlens(&args)
    };
    let with_codebooks = ["--codebooks", text(&f.codebooks), "--json", "--groups"];
    let all = json(&zcr(&with_codebooks));
    let without = json(&zcr(
        &[&with_codebooks[..], &["--without-mql4grec"]].concat()
    ));
    assert!(all["mql4grec"].is_object(), "{all}");
    assert!(without["mql4grec"].is_null(), "{without}");
    assert!(without["mql4grec_passes"].is_null());
    for key in ["optimal", "greedy", "reduction_pct", "n_groups_resolved"] {
        assert_eq!(all[key], without[key], "{key}");
    }
    for (a, w) in all["groups"]
        .as_array()
        .unwrap()
        .iter()
        .zip(without["groups"].as_array().unwrap())
    {
        for (a, w) in a["items"]
            .as_array()
            .unwrap()
            .iter()
            .zip(w["items"].as_array().unwrap())
        {
            for key in [
                "id",
                "native",
                "optimal",
                "optimal_delta",
                "greedy",
                "greedy_delta",
            ] {
                assert_eq!(a[key], w[key], "{key}");
            }
            assert!(a["mql4grec"].is_number(), "{a}");
            assert!(
                w["mql4grec"].is_null() && w["mql4grec_delta"].is_null(),
                "{w}"
            );
        }
    }
    let shown = String::from_utf8(zcr(&["--without-mql4grec"]).stdout).unwrap();
    assert!(
        shown.contains("ZCR (optimal)") && !shown.contains("MQL4GRec"),
        "{shown}"
    );
    let never = f.dir.join("never.index.json");
    let refused = zcr(&[
        "--without-mql4grec",
        "--mode",
        "mql4grec",
        "--out",
        text(&never),
    ]);
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8(refused.stderr).unwrap();
    assert!(message.contains("--without-mql4grec"), "{message}");
    assert!(!never.exists());
}

#[test]
fn out_writes_a_collision_free_index_and_a_sidecar() {
    let f = fixture();
    let out_path = f.dir.join("zcr.index.json");
    let out = sidlens(&[
        "zcr",
        "--index",
        text(&f.index),
        "--latents",
        text(&f.latents),
        "--codebooks",
        text(&f.codebooks),
        "--out",
        text(&out_path),
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = SidIndex::load(&out_path, None).unwrap();
    let c = Collisions::new(&written);
    assert!(c.collision_groups().is_empty());
    assert!(
        std::fs::read_to_string(&out_path)
            .unwrap()
            .starts_with(r#"{"0": ["<a_1>", "#)
    );
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.dir.join("zcr.index.json.zcr.json")).unwrap())
            .unwrap();
    assert_eq!(sidecar["mode"], "optimal");
    assert_eq!(
        sidecar["inputs"]["index"]["sha256"].as_str().unwrap().len(),
        64
    );
    assert_eq!(sidecar["stats_after"]["items_in_collisions"], 0);
    assert_eq!(sidecar["stats_before"]["items_in_collisions"], 4);
    let leftovers: Vec<_> = std::fs::read_dir(&f.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // diff recognises the result as a valid ZCR of the input.
    let d = json(&sidlens(&[
        "diff",
        text(&f.index),
        text(&out_path),
        "--json",
    ]));
    assert_eq!(d["valid_zcr"], true);
    assert_eq!(d["last_changed"], 2);
    assert_eq!(d["changes"].as_array().unwrap().len(), 2);
    let human = sidlens(&["diff", text(&f.index), text(&out_path)]);
    let human = String::from_utf8_lossy(&human.stdout).into_owned();
    let verdict = human
        .lines()
        .find(|l| l.starts_with("valid zero-collision reassignment"))
        .unwrap();
    assert!(verdict.ends_with(" yes"), "{human}");
}

#[test]
fn out_refuses_to_overwrite_an_input() {
    let f = fixture();
    let before = std::fs::read(&f.index).unwrap();
    let out = sidlens(&[
        "zcr",
        "--index",
        text(&f.index),
        "--latents",
        text(&f.latents),
        "--out",
        text(&f.index),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("it is an input file"));
    assert_eq!(std::fs::read(&f.index).unwrap(), before);
    let out = sidlens(&["zcr", "--index", text(&f.index), "--out", "x.json"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--out without --latents is a usage error"
    );
}

#[test]
fn bad_vectors_exit_1_naming_the_file_and_place() {
    let f = fixture();
    let bad = f.dir.join("bad.npy");
    let mut rows = Array2::<f64>::zeros((5, 2));
    rows[[3, 1]] = f64::NAN;
    write_npy(&bad, &rows).unwrap();
    let out = sidlens(&["zcr", "--index", text(&f.index), "--latents", text(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.npy: row 3, column 1: NaN is not a finite number"),
        "{err}"
    );
    write_npy(&bad, &Array1::<i64>::from(vec![1, 2, 3])).unwrap();
    let err = String::from_utf8_lossy(
        &sidlens(&["zcr", "--index", text(&f.index), "--latents", text(&bad)]).stderr,
    )
    .into_owned();
    assert!(
        err.contains("expected a 2-D float32 or float64 array, found <i8 with shape (3,)"),
        "{err}"
    );
    write_npy(&bad, &Array2::<f32>::zeros((3, 2))).unwrap();
    let err = String::from_utf8_lossy(
        &sidlens(&["zcr", "--index", text(&f.index), "--latents", text(&bad)]).stderr,
    )
    .into_owned();
    assert!(
        err.contains("bad.npy has 3 rows, but")
            && err.contains("native.index.json needs row 4 for item \"4\""),
        "{err}"
    );
    write_npy(&bad, &Array3::<f32>::zeros((2, 4, 3))).unwrap();
    let out = sidlens(&[
        "zcr",
        "--index",
        text(&f.index),
        "--latents",
        text(&f.latents),
        "--codebooks",
        text(&bad),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.npy has 3-dimensional codewords, but")
            && err.contains("latents.npy has 2-dimensional rows"),
        "{err}"
    );
}

#[test]
fn diff_of_different_item_sets_names_an_item() {
    let f = fixture();
    let other = f.dir.join("other.json");
    std::fs::write(
        &other,
        r#"{"0": [1, 2], "1": [1, 3], "2": [0, 0], "3": [0, 1], "9": [0, 3]}"#,
    )
    .unwrap();
    let out = sidlens(&["diff", text(&f.index), text(&other)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"4\" is in") && err.contains("native.index.json but not in"),
        "{err}"
    );
}
