//! Table-driven robustness test: malformed inputs of every kind, each run through the real
//! binary. Every case must end with exit code 1 (2 for usage), one clear error line that names
//! the file and the place, no panic, nothing on stdout, and no output file left behind. Then
//! the write path: devices and FIFOs written through, never replaced; multi-file outputs whole
//! or absent, also under signals and concurrent runs; long names; streamed inputs from pipes.

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
    /// 1 for bad data, 2 for a usage error.
    exit: i32,
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
        exit: 1,
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
        exit: 1,
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
        exit: 1,
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
    let mut cases = vec![
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
            exit: 1,
        },
        Case {
            files: vec![],
            args: &["stats", "--index", "{dir}"],
            bad_file: "",
            place: "directory",
            name: "directory given as a file",
            exit: 1,
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
            exit: 1,
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
            exit: 1,
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
            exit: 1,
        },
    ];
    cases.extend(round_two());
    cases
}

/// A `.npy` file whose header is `dict` (padded as numpy pads it) followed by `data` bytes.
fn raw_npy(dict: &str, data: usize) -> Vec<u8> {
    let mut header = dict.as_bytes().to_vec();
    header.resize(117, b' ');
    header.push(b'\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.resize(bytes.len() + data, 0);
    bytes
}

/// The cases of issue 9: lying headers, devices, misleading messages, usage errors.
fn round_two() -> Vec<Case> {
    let lie = raw_npy(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 10), }",
        24,
    );
    let maybe = raw_npy(
        "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3, 2), }",
        24,
    );
    let usage = |name, args, place| Case {
        name,
        files: vec![text("i.json", INDEX)],
        args,
        bad_file: "",
        place,
        exit: 2,
    };
    vec![
        zcr(
            ("l.npy", lie.clone()),
            npy3("c.npy", good_codebooks()),
            "l.npy",
            "announces shape (1000000000, 10)",
            "npy header claiming 40 GB",
        ),
        zcr(
            ("l.npy", maybe),
            npy3("c.npy", good_codebooks()),
            "l.npy",
            "'fortran_order' is \"Maybe\"",
            "npy fortran_order Maybe",
        ),
        Case {
            name: "lying npy header in project",
            files: vec![("l.npy", lie.clone())],
            args: &["project", "--embeddings", "{dir}/l.npy", "--no-cache"],
            bad_file: "l.npy",
            place: "announces shape",
            exit: 1,
        },
        Case {
            name: "lying npy header in tokenize",
            files: vec![("l.npy", lie)],
            args: &[
                "tokenize",
                "--embeddings",
                "{dir}/l.npy",
                "--out",
                "{dir}/tok",
            ],
            bad_file: "l.npy",
            place: "announces shape",
            exit: 1,
        },
        Case {
            name: "index from /dev/zero",
            files: vec![],
            args: &["stats", "--index", "/dev/zero"],
            bad_file: "/dev/zero",
            place: "character device",
            exit: 1,
        },
        Case {
            name: "items from /dev/zero",
            files: vec![text("i.json", INDEX)],
            args: &["groups", "--index", "{dir}/i.json", "--items", "/dev/zero"],
            bad_file: "/dev/zero",
            place: "character device",
            exit: 1,
        },
        Case {
            name: "beams from /dev/zero",
            files: vec![text("i.json", INDEX)],
            args: &["eval", "--index", "{dir}/i.json", "--beams", "/dev/zero"],
            bad_file: "/dev/zero",
            place: "character device",
            exit: 1,
        },
        Case {
            name: "latents from /dev/zero",
            files: vec![text("i.json", INDEX)],
            args: &["zcr", "--index", "{dir}/i.json", "--latents", "/dev/zero"],
            bad_file: "/dev/zero",
            place: "character device",
            exit: 1,
        },
        eval(
            r#"[{"beam_sids": ["<a_1><b_2>"], "target_item": 99999999999999999999}]"#,
            "too large to be an exact item id",
            "20-digit numeric item id",
        ),
        eval(
            r#"[{"beam_sids": ["<a_1><b_2>"], "target_item": "0"}] garbage"#,
            "after the closing ]",
            "garbage after the only record",
        ),
        eval(
            r#"{"beam_sids": []}"#,
            "not a list of records",
            "one object instead of a list",
        ),
        stats(
            r#"{"0": [1.5, 2]}"#,
            "is not a whole number",
            "fractional code named as such",
        ),
        Case {
            name: "perplexity inf",
            files: vec![npy2("l.npy", good_latents())],
            args: &[
                "project",
                "--embeddings",
                "{dir}/l.npy",
                "--perplexity",
                "inf",
                "--no-cache",
            ],
            bad_file: "",
            place: "perplexity must be a finite number",
            exit: 1,
        },
        usage(
            "codebook size 0",
            &["stats", "--index", "{dir}/i.json", "--codebook-size", "0"],
            "--codebook-size",
        ),
        usage(
            "groups --top 0",
            &["groups", "--index", "{dir}/i.json", "--top", "0"],
            "--top",
        ),
        usage(
            "synth --items 0",
            &["synth", "--items", "0", "--out", "{dir}/synth"],
            "--items",
        ),
        Case {
            name: "output directory in the sidecar's way",
            files: vec![
                text("i.json", INDEX),
                npy2("l.npy", good_latents()),
                npy3("c.npy", good_codebooks()),
                text("out.json.zcr.json/keep", "a file inside the directory"),
            ],
            ..zcr(
                npy2("l.npy", good_latents()),
                npy3("c.npy", good_codebooks()),
                "out.json.zcr.json",
                "directory",
                "",
            )
        },
    ]
}

fn run_case(case: &Case, dir: &Path) -> std::process::Output {
    for (name, bytes) in &case.files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
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
    assert!(cases.len() >= 55, "issues 7 and 9 list at least 55 cases");
    let mut failures = Vec::new();
    for case in &cases {
        let dir = tempfile::tempdir().unwrap();
        let out = run_case(case, dir.path());
        let before: Vec<PathBuf> = case
            .files
            .iter()
            .map(|(n, _)| dir.path().join(n.split('/').next().unwrap()))
            .collect();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let prefix = if case.exit == 2 {
            "error:"
        } else {
            "sidlens: error:"
        };
        let error_lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with(prefix)).collect();
        let mut problems = Vec::new();
        if out.status.code() != Some(case.exit) {
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
        if line.matches("(os error").count() > 1 {
            problems.push("the OS message is repeated".into());
        }
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

fn sidlens(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(args)
        .output()
        .expect("run sidlens")
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg("-m")
        .arg("600")
        .arg(path)
        .status();
    assert!(made.expect("run mkfifo").success(), "mkfifo");
}

fn is_char_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

/// A beams fixture: `users` JSON Lines records against [`INDEX`].
fn beams_lines(users: usize) -> String {
    (0..users)
        .map(|u| {
            format!(
                "{{\"beam_sids\": [\"<a_1><b_2>\", \"<a_3><b_1>\"], \"target_item\": \"{}\"}}\n",
                u % 3
            )
        })
        .collect()
}

#[test]
fn devices_and_fifos_are_written_through_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("i.json"), INDEX).unwrap();
    std::fs::write(d.join("b.jsonl"), beams_lines(5)).unwrap();
    let (index, beams) = (d.join("i.json"), d.join("b.jsonl"));
    let fifo = d.join("fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let args = |target: &Path| {
        vec![
            "-q".to_string(),
            "eval".into(),
            "--index".into(),
            index.display().to_string(),
            "--beams".into(),
            beams.display().to_string(),
            "--per-user".into(),
            target.display().to_string(),
        ]
    };
    let run = |target: &Path| {
        let a = args(target);
        sidlens(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let out = run(&fifo);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(reader.join().unwrap().lines().count(), 5);
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
    // A character device of our own (root may make one with mknod; /dev/null's numbers),
    // so that a fault could never replace the machine's /dev/null.
    let device = d.join("null");
    let made = Command::new("mknod")
        .args(["-m", "666"])
        .arg(&device)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let out = run(&device);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(is_char_device(&device), "the device was replaced");
    } else {
        eprintln!("SKIP the character-device target: mknod is not permitted here");
    }
    let mut left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    let mut expected = vec!["b.jsonl", "fifo", "i.json"];
    if made {
        expected.push("null");
    }
    expected.sort();
    assert_eq!(left, expected, "temporary files left behind");
    assert!(
        is_char_device(Path::new("/dev/null")),
        "/dev/null is no longer a device"
    );
}

#[test]
fn beams_stream_from_a_pipe_and_from_dash() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("i.json");
    std::fs::write(&index, INDEX).unwrap();
    let idx = index.display().to_string();
    for beams in ["-", "/dev/stdin"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sidlens"))
            .args(["eval", "--json", "--index", &idx, "--beams", beams])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(beams_lines(7).as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{beams}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["n_users"], 7, "{beams}");
    }
}

#[test]
fn names_of_255_bytes_and_a_blocked_sidecar() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("i.json"), INDEX).unwrap();
    std::fs::write(d.join("b.jsonl"), beams_lines(3)).unwrap();
    let long = d.join("x".repeat(250) + ".json");
    let out = sidlens(&[
        "-q",
        "eval",
        "--index",
        d.join("i.json").to_str().unwrap(),
        "--beams",
        d.join("b.jsonl").to_str().unwrap(),
        "--per-user",
        long.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&long).unwrap().lines().count(), 3);
}

#[test]
fn an_interrupted_write_leaves_nothing_behind() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("i.json"), INDEX).unwrap();
    let fifo = d.join("beams");
    mkfifo(&fifo);
    let out_path = d.join("per_user.jsonl");
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sidlens"))
            .args(["-q", "eval", "--index"])
            .arg(d.join("i.json"))
            .arg("--beams")
            .arg(&fifo)
            .arg("--per-user")
            .arg(&out_path)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Hold the beams open (the run cannot finish) until its temporary output exists.
        let mut beams = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        beams.write_all(beams_lines(50).as_bytes()).unwrap();
        let temp_appeared = (0..200).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(25));
            std::fs::read_dir(d)
                .unwrap()
                .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp"))
        });
        assert!(temp_appeared, "no temporary output appeared");
        // Signalling the child we started, by its pid.
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status();
        assert!(sent.expect("run kill").success(), "kill -{signal}");
        let status = child.wait().unwrap();
        drop(beams);
        assert_eq!(status.code(), Some(128 + signal), "exit status");
        let left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != "i.json" && n != "beams")
            .collect();
        assert!(left.is_empty(), "signal {signal} left {left:?}");
    }
}

#[test]
fn concurrent_zcr_runs_leave_a_consistent_pair() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The committed demo tokenizer, on which greedy and optimal differ.
    let variant = Path::new("demo_data/indexes/rkmeans_v64_native");
    let index = variant.join("Workshop.index.json");
    let latents = Path::new("demo_data/Workshop.emb-tfidf.npy");
    let codebooks = variant.join("codebooks.npy");
    let out = d.join("out.json");
    let args = |mode: &'static str| {
        vec![
            "-q".to_string(),
            "zcr".into(),
            "--index".into(),
            index.display().to_string(),
            "--latents".into(),
            latents.display().to_string(),
            "--codebooks".into(),
            codebooks.display().to_string(),
            "--mode".into(),
            mode.into(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let solo = |mode| {
        let a = args(mode);
        let o = sidlens(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(&out).unwrap()
    };
    let optimal = solo("optimal");
    let greedy = solo("greedy");
    assert_ne!(optimal, greedy, "the fixture must tell the modes apart");
    for _ in 0..12 {
        let children: Vec<_> = ["optimal", "greedy"]
            .into_iter()
            .map(|mode| {
                Command::new(env!("CARGO_BIN_EXE_sidlens"))
                    .args(args(mode))
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success());
        }
        let sidecar: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join("out.json.zcr.json")).unwrap()).unwrap();
        let index = std::fs::read(&out).unwrap();
        let expected = match sidecar["mode"].as_str().unwrap() {
            "optimal" => &optimal,
            _ => &greedy,
        };
        assert_eq!(
            &index, expected,
            "index and sidecar come from different runs"
        );
    }
}

#[test]
fn terminal_controls_in_data_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("i.json"), INDEX).unwrap();
    std::fs::write(
        d.join("items.json"),
        r#"{"0": {"title": "evil\u001b]2;PWNED\u001b\\ one"}, "1": {"title": "clear\u001b[2J two"}}"#,
    )
    .unwrap();
    let items = d.join("items.json");
    let index = d.join("i.json");
    let table = sidlens(&[
        "groups",
        "--index",
        index.to_str().unwrap(),
        "--items",
        items.to_str().unwrap(),
    ]);
    assert!(table.status.success());
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.contains("PWNED") && text.contains("two"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    let json = sidlens(&[
        "groups",
        "--json",
        "--index",
        index.to_str().unwrap(),
        "--items",
        items.to_str().unwrap(),
    ]);
    let json = String::from_utf8(json.stdout).unwrap();
    assert!(
        json.contains(r"\u001b]2;PWNED"),
        "JSON keeps the data, escaped: {json}"
    );
}

#[test]
fn misleading_numbers_come_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("i.json"), INDEX).unwrap();
    // Ranked items partly unknown, one unknown target; and SIDs from another index.
    std::fs::write(
        d.join("ranked.json"),
        r#"[{"ranked_items": ["0", "77", "2"], "target_item": "2"}, {"ranked_items": ["1"], "target_item": "99"}]"#,
    )
    .unwrap();
    std::fs::write(
        d.join("foreign.json"),
        r#"[{"beam_sids": ["<a_7><b_7>", "<a_6><b_6>"], "target_item": "0"}, {"beam_sids": ["<a_5><b_5>"], "target_item": "1"}]"#,
    )
    .unwrap();
    let index = d.join("i.json");
    let eval = |beams: &str, extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--json",
            "--index",
            index.to_str().unwrap(),
            "--beams",
        ];
        let path = d.join(beams);
        args.push(path.to_str().unwrap());
        args.extend(extra);
        let out = sidlens(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (doc, String::from_utf8(out.stderr).unwrap())
    };
    let (doc, _) = eval("ranked.json", &[]);
    assert_eq!(doc["unknown_items"], 1);
    assert_eq!(doc["unknown_targets"], 1);
    let (doc, stderr) = eval("foreign.json", &["--k", "1", "--k", "10"]);
    let warnings: Vec<&str> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("K = 10 exceeds the beam width 2"),
        "{warnings:?}"
    );
    assert!(warnings[1].contains("are not in the index"), "{warnings:?}");
    for w in &warnings {
        assert!(stderr.contains(w), "not on stderr: {w}");
    }
}

#[test]
fn projections_are_cached_in_the_user_cache_only() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cache = dir.path().join("cache");
    std::fs::create_dir(&data).unwrap();
    let latents = Array2::from_shape_fn((30, 3), |(i, j)| ((i * 5 + j * 3) % 7) as f32);
    let emb = data.join("emb.npy");
    write_npy(&emb, &latents).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["project", "--json", "--perplexity", "5", "--embeddings"];
        args.push(emb.to_str().unwrap());
        args.extend(extra);
        let out = Command::new(env!("CARGO_BIN_EXE_sidlens"))
            .args(&args)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let first = run(&[]);
    assert_eq!(
        std::fs::read_dir(&data).unwrap().count(),
        1,
        "wrote into the data folder"
    );
    let cached: Vec<_> = std::fs::read_dir(cache.join("sidlens")).unwrap().collect();
    assert_eq!(cached.len(), 1);
    let again = run(&[]);
    assert_eq!(first["points"], again["points"]);
    assert_ne!(first["cache"], again["cache"]);
    let clear = Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(["cache", "clear", "--json"])
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .unwrap();
    assert!(clear.status.success());
    let cleared: serde_json::Value = serde_json::from_slice(&clear.stdout).unwrap();
    assert_eq!(cleared["removed_files"], 1);
    run(&["--no-cache"]);
    assert_eq!(std::fs::read_dir(cache.join("sidlens")).unwrap().count(), 0);
}
