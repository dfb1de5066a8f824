//! Table-driven robustness test: malformed inputs of every kind, each run through the real
//! binary. Every case must end with exit code 1, one clear error line that names the file and
//! the place, no panic, nothing on stdout, and no output file left behind.

use std::path::{Path, PathBuf};
use std::process::Command;

use ndarray::{Array1, Array2, Array3};
use ndarray_npy::write_npy;

const INDEX: &str =
    r#"{"0": ["<a_1>", "<b_2>"], "1": ["<a_1>", "<b_2>"], "2": ["<a_3>", "<b_1>"]}"#;
const BEAMS: &str =
    r#"[{"beam_sids": ["<a_1><b_2>"], "target": "<a_1><b_2>", "target_item": "0"}]"#;

/// One malformed-input case: files to write, the command (with `{dir}` for the temp dir),
/// and text the error must contain besides the offending file's name.
struct Case {
    name: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    args: &'static [&'static str],
    bad_file: &'static str,
    place: &'static str,
}

fn text(name: &'static str, content: &str) -> (&'static str, Vec<u8>) {
    (name, content.as_bytes().to_vec())
}

fn npy2(name: &'static str, a: Array2<f32>) -> (&'static str, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.npy");
    write_npy(&p, &a).unwrap();
    (name, std::fs::read(p).unwrap())
}

fn npy3(name: &'static str, a: Array3<f32>) -> (&'static str, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.npy");
    write_npy(&p, &a).unwrap();
    (name, std::fs::read(p).unwrap())
}

fn good_latents() -> Array2<f32> {
    Array2::from_shape_fn((3, 2), |(i, j)| (i * 2 + j) as f32 / 10.0)
}

fn good_codebooks() -> Array3<f32> {
    Array3::from_shape_fn((2, 4, 2), |(l, c, j)| (l + c + j) as f32 / 10.0)
}

fn stats(index: &str, place: &'static str, name: &'static str) -> Case {
    Case {
        name,
        files: vec![text("i.json", index)],
        args: &["stats", "--index", "{dir}/i.json"],
        bad_file: "i.json",
        place,
    }
}

fn eval(beams: &str, place: &'static str, name: &'static str) -> Case {
    Case {
        name,
        files: vec![text("i.json", INDEX), text("b.json", beams)],
        args: &[
            "eval",
            "--index",
            "{dir}/i.json",
            "--beams",
            "{dir}/b.json",
            "--per-user",
            "{dir}/out.jsonl",
        ],
        bad_file: "b.json",
        place,
    }
}

fn zcr(
    latents: (&'static str, Vec<u8>),
    codebooks: (&'static str, Vec<u8>),
    bad_file: &'static str,
    place: &'static str,
    name: &'static str,
) -> Case {
    Case {
        name,
        files: vec![text("i.json", INDEX), latents, codebooks],
        args: &[
            "zcr",
            "--index",
            "{dir}/i.json",
            "--latents",
            "{dir}/l.npy",
            "--codebooks",
            "{dir}/c.npy",
            "--out",
            "{dir}/out.json",
        ],
        bad_file,
        place,
    }
}

fn cases() -> Vec<Case> {
    let nan = {
        let mut a = good_latents();
        a[(1, 1)] = f32::NAN;
        a
    };
    let inf = {
        let mut c = good_codebooks();
        c[(1, 2, 0)] = f32::INFINITY;
        c
    };
    let int_latents = {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.npy");
        write_npy(&p, &Array1::<i64>::from(vec![1, 2, 3])).unwrap();
        ("l.npy", std::fs::read(p).unwrap())
    };
    let truncated_npy = {
        let (name, mut bytes) = npy2("l.npy", good_latents());
        bytes.truncate(bytes.len() - 5);
        (name, bytes)
    };
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(INDEX.as_bytes());
    let mut beams_bom = vec![0xEF, 0xBB, 0xBF];
    beams_bom.extend_from_slice(BEAMS.as_bytes());
    vec![
        stats(
            r#"{"0": ["<a_1>", "<b_2>"], "1": ["<a_1>""#,
            "line 1",
            "truncated JSON",
        ),
        stats(r#"[["<a_1>"]]"#, "line 1", "wrong top-level type"),
        stats(r#"{"0": 5}"#, "line 1", "wrong value type"),
        stats("", "empty", "empty file"),
        stats("  \n ", "empty", "whitespace-only file"),
        Case {
            files: vec![("i.json", bom)],
            ..stats("", "byte-order mark", "UTF-8 BOM")
        },
        stats(
            r#"{"0": [1, 2], "7": [99999999999, 2]}"#,
            "item \"7\"",
            "huge code",
        ),
        stats(
            r#"{"0": [1, 2], "7": [1, -4]}"#,
            "item \"7\"",
            "negative code",
        ),
        stats(
            r#"{"0": ["<b_1>", "<a_2>"]}"#,
            "item \"0\"",
            "tokens out of level order",
        ),
        stats(
            r#"{"0": [1, 2], "0": [1, 3]}"#,
            "item \"0\"",
            "duplicate item id",
        ),
        stats(
            r#"{"0": [1, 2], "5": [1, 2, 3]}"#,
            "item \"5\"",
            "inconsistent L",
        ),
        stats(r#"{"0": ["<a-1>"]}"#, "item \"0\"", "malformed token"),
        stats(
            r#"{"0": [1, 2, 3, 4, 5, 6, 7, 8, 9]}"#,
            "item \"0\"",
            "more than 8 levels",
        ),
        stats(r#"{"0": [1, 2], "3": null}"#, "item \"3\"", "null codes"),
        stats(r#"{"0": [1.5, 2]}"#, "item \"0\"", "non-integer code"),
        Case {
            files: vec![(
                "i.json",
                vec![b'{', b'"', 0xFF, b'"', b':', b'[', b'1', b']', b'}'],
            )],
            ..stats("", "line 1", "invalid UTF-8")
        },
        Case {
            args: &["stats", "--index", "{dir}/i.json", "--codebook-size", "2"],
            ..stats(INDEX, "item \"0\"", "code not below the given V")
        },
        Case {
            files: vec![],
            args: &["stats", "--index", "{dir}/missing.json"],
            bad_file: "missing.json",
            place: "No such file",
            name: "missing file",
        },
        Case {
            files: vec![],
            args: &["stats", "--index", "{dir}"],
            bad_file: "",
            place: "directory",
            name: "directory given as a file",
        },
        eval(
            r#"[{"beam_sids": ["<a_1><b_2>"], "target": "<a_1><b_2>""#,
            "record 0",
            "truncated beams array",
        ),
        eval(
            r#"[{"beam_sids": ["<a_1><b_2>"]}]"#,
            "record 0",
            "missing target",
        ),
        eval(
            r#"[{"beam_sids": ["<a_1><b_2>"], "target_item": "0"}, {"beam_sids": [12], "target_item": "1"}]"#,
            "record 1",
            "non-string SID",
        ),
        eval(
            "{\"beam_sids\": [], \"target_item\": \"0\"}\n{\"beam_sids\": [\"<a_1><b_2>\"], \"target_item\": \n{\"beam_sids\": [], \"target_item\": \"1\"}\n",
            "line 2",
            "broken line in JSON Lines",
        ),
        eval(
            r#"[{"beam_sids": ["<a_1><b_2>", "<a_3><b_1>"], "scores": [0.5], "target_item": "0"}]"#,
            "record 0",
            "scores of the wrong length",
        ),
        eval("", "empty", "empty beams file"),
        Case {
            files: vec![text("i.json", INDEX), ("b.json", beams_bom)],
            ..eval("", "byte-order mark", "beams BOM")
        },
        eval(
            "42",
            "expected a JSON array of records",
            "beams not records",
        ),
        eval(
            r#"[{"beam_sids": "<a_1><b_2>", "target_item": "0"}]"#,
            "record 0",
            "beam_sids not a list",
        ),
        zcr(
            npy2("l.npy", nan),
            npy3("c.npy", good_codebooks()),
            "l.npy",
            "row 1",
            "NaN in latents",
        ),
        zcr(
            npy2("l.npy", good_latents()),
            npy3("c.npy", inf),
            "c.npy",
            "level",
            "inf in codebooks",
        ),
        zcr(
            npy2("l.npy", Array2::zeros((3, 5))),
            npy3("c.npy", good_codebooks()),
            "l.npy",
            "5-dimensional",
            "latent and codeword dimensions differ",
        ),
        zcr(
            npy2("l.npy", good_latents()),
            npy3("c.npy", Array3::zeros((3, 4, 2))),
            "c.npy",
            "3 levels",
            "codebook levels differ from L",
        ),
        zcr(
            npy2("l.npy", Array2::zeros((2, 2))),
            npy3("c.npy", good_codebooks()),
            "l.npy",
            "item \"2\"",
            "too few latent rows",
        ),
        zcr(
            text("l.npy", "not an array"),
            npy3("c.npy", good_codebooks()),
            "l.npy",
            "not a numpy .npy file",
            "latents not .npy",
        ),
        zcr(
            int_latents,
            npy3("c.npy", good_codebooks()),
            "l.npy",
            "float32 or float64",
            "integer latents",
        ),
        zcr(
            truncated_npy,
            npy3("c.npy", good_codebooks()),
            "l.npy",
            "",
            "truncated .npy data",
        ),
        Case {
            name: "item metadata entry not an object",
            files: vec![
                text("i.json", INDEX),
                text("items.json", r#"{"0": {"title": "ok"}, "1": "oops"}"#),
            ],
            args: &[
                "groups",
                "--index",
                "{dir}/i.json",
                "--items",
                "{dir}/items.json",
            ],
            bad_file: "items.json",
            place: "item \"1\"",
        },
        Case {
            name: "diff of different item sets",
            files: vec![
                text("i.json", INDEX),
                text("j.json", r#"{"0": [1, 2], "1": [1, 3], "9": [3, 1]}"#),
            ],
            args: &["diff", "{dir}/i.json", "{dir}/j.json"],
            bad_file: "",
            place: "\"2\"",
        },
        Case {
            name: "--out names an input",
            files: vec![
                text("i.json", INDEX),
                npy2("l.npy", good_latents()),
                npy3("c.npy", good_codebooks()),
            ],
            args: &[
                "zcr",
                "--index",
                "{dir}/i.json",
                "--latents",
                "{dir}/l.npy",
                "--codebooks",
                "{dir}/c.npy",
                "--out",
                "{dir}/i.json",
            ],
            bad_file: "i.json",
            place: "input",
        },
    ]
}

fn run_case(case: &Case, dir: &Path) -> std::process::Output {
    for (name, bytes) in &case.files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let d = dir.display().to_string();
    let args: Vec<String> = case.args.iter().map(|a| a.replace("{dir}", &d)).collect();
    Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(&args)
        .output()
        .expect("run sidlens")
}

fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn every_malformed_input_gives_one_clear_error() {
    let cases = cases();
    assert!(cases.len() >= 30, "the issue asks for at least 30 cases");
    let mut failures = Vec::new();
    for case in &cases {
        let dir = tempfile::tempdir().unwrap();
        let out = run_case(case, dir.path());
        let before: Vec<PathBuf> = case.files.iter().map(|(n, _)| dir.path().join(n)).collect();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let error_lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("sidlens: error:"))
            .collect();
        let mut problems = Vec::new();
        if out.status.code() != Some(1) {
            problems.push(format!("exit code {:?}", out.status.code()));
        }
        if !out.stdout.is_empty() {
            problems.push(format!(
                "stdout not empty: {:?}",
                String::from_utf8_lossy(&out.stdout)
            ));
        }
        if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
            problems.push("panic".into());
        }
        if error_lines.len() != 1 {
            problems.push(format!("{} error lines", error_lines.len()));
        }
        let line = error_lines.first().copied().unwrap_or("");
        if !line.contains(case.bad_file) || !line.contains(case.place) {
            problems.push(format!(
                "message lacks {:?} / {:?}",
                case.bad_file, case.place
            ));
        }
        let mut after = listing(dir.path());
        after.retain(|p| !before.contains(p));
        if !after.is_empty() {
            problems.push(format!("left files behind: {after:?}"));
        }
        for (name, bytes) in &case.files {
            if &std::fs::read(dir.path().join(name)).unwrap() != bytes {
                problems.push(format!("input {name} was modified"));
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{}: {} — stderr: {}",
                case.name,
                problems.join("; "),
                stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
