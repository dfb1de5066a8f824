//! Malformed Parquet and Arrow inputs, in the style of malformed_inputs.rs: each case runs
//! the real binary and must end with exit code 1, one error line naming the file and the
//! place (row group, row, column, expected type), no panic, nothing on stdout, and no output
//! file (`--per-user out.parquet`) left behind.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use arrow_array::builder::{Float64Builder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, Float64Array, RecordBatch};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

/// A table's bytes as Parquet, two rows per row group.
fn parquet(columns: Vec<(&str, ArrayRef)>) -> Vec<u8> {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let mut buf = Vec::new();
    let props = WriterProperties::builder()
        .set_max_row_group_size(2)
        .build();
    let mut w = ArrowWriter::try_new(&mut buf, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    buf
}

fn arrow_file(columns: Vec<(&str, ArrayRef)>) -> Vec<u8> {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let mut buf = Vec::new();
    let mut w = arrow_ipc::writer::FileWriter::try_new(&mut buf, &batch.schema()).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    buf
}

fn strings(v: &[Option<&str>]) -> ArrayRef {
    Arc::new(arrow_array::StringArray::from(v.to_vec()))
}

fn ints(v: &[i64]) -> ArrayRef {
    Arc::new(arrow_array::Int64Array::from(v.to_vec()))
}

fn string_lists(v: &[&[Option<&str>]]) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new());
    for list in v {
        for s in *list {
            b.values().append_option(*s);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

fn int_lists(v: &[&[i64]]) -> ArrayRef {
    let mut b = ListBuilder::new(Int64Builder::new());
    for list in v {
        b.values().append_slice(list);
        b.append(true);
    }
    Arc::new(b.finish())
}

fn int_list_lists(v: &[&[&[i64]]]) -> ArrayRef {
    let mut b = ListBuilder::new(ListBuilder::new(Int64Builder::new()));
    for list in v {
        for codes in *list {
            b.values().values().append_slice(codes);
            b.values().append(true);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

fn float_lists(v: &[&[f64]]) -> ArrayRef {
    let mut b = ListBuilder::new(Float64Builder::new());
    for list in v {
        b.values().append_slice(list);
        b.append(true);
    }
    Arc::new(b.finish())
}

/// A good index table of three items, the first two colliding.
fn good_index() -> Vec<u8> {
    parquet(vec![
        ("item_id", ints(&[0, 1, 2])),
        ("codes", int_lists(&[&[1, 2], &[1, 2], &[3, 1]])),
    ])
}

const A: Option<&str> = Some("<a_1><b_2>");
const B: Option<&str> = Some("<a_3><b_1>");

/// A good beams table of three users.
fn beams_with(extra: Vec<(&'static str, ArrayRef)>) -> Vec<u8> {
    let mut cols = vec![
        ("beam_sids", string_lists(&[&[A, B], &[B, A], &[A]])),
        ("target", strings(&[A, B, A])),
    ];
    cols.extend(extra);
    parquet(cols)
}

struct Case {
    name: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    /// `eval` with these files (`stats` when there is no beams file).
    bad_file: &'static str,
    place: &'static str,
}

fn beams_case(name: &'static str, beams: Vec<u8>, place: &'static str) -> Case {
    Case {
        name,
        files: vec![("i.parquet", good_index()), ("b.parquet", beams)],
        bad_file: "b.parquet",
        place,
    }
}

fn index_case(name: &'static str, index: Vec<u8>, place: &'static str) -> Case {
    Case {
        name,
        files: vec![("i.parquet", index)],
        bad_file: "i.parquet",
        place,
    }
}

fn cases() -> Vec<Case> {
    let mut truncated = beams_with(vec![]);
    truncated.truncate(truncated.len() - 20);
    let mut arrow_cut = arrow_file(vec![
        ("beam_sids", string_lists(&[&[A]])),
        ("target", strings(&[A])),
    ]);
    arrow_cut.truncate(arrow_cut.len() / 2);
    vec![
        beams_case(
            "beam_sids of integers",
            parquet(vec![
                ("beam_sids", int_lists(&[&[1]])),
                ("target", strings(&[A])),
            ]),
            "column \"beam_sids\": is List(Int64), expected lists of strings",
        ),
        beams_case(
            "no beam column",
            parquet(vec![
                ("sids", string_lists(&[&[A]])),
                ("target", strings(&[A])),
            ]),
            "has no \"beam_sids\", \"beam_codes\" or \"ranked_items\" column",
        ),
        beams_case(
            "no target column",
            parquet(vec![("beam_sids", string_lists(&[&[A]]))]),
            "has no target",
        ),
        beams_case(
            "both beam columns",
            beams_with(vec![(
                "beam_codes",
                int_list_lists(&[&[&[1, 2]], &[], &[]]),
            )]),
            "has both \"beam_sids\" and \"beam_codes\"",
        ),
        beams_case(
            "a null SID in the second row group",
            parquet(vec![
                ("beam_sids", string_lists(&[&[A], &[B], &[A, None]])),
                ("target", strings(&[A, B, A])),
            ]),
            "row group 1, row 0 (row 2 of the file), column \"beam_sids\": item 1 is null",
        ),
        beams_case(
            "a code above 65535",
            parquet(vec![
                ("beam_codes", int_list_lists(&[&[&[1, 2]], &[&[1, 70000]]])),
                ("target", int_lists(&[&[1, 2], &[1, 2]])),
            ]),
            "row 1 of the file), column \"beam_codes\": item 0 has code 70000 at level b",
        ),
        beams_case(
            "too few scores",
            beams_with(vec![(
                "scores",
                float_lists(&[&[1.0, 0.5], &[1.0], &[1.0]]),
            )]),
            "row group 0, row 1 (row 1 of the file): has 1 scores for 2 beam SIDs",
        ),
        beams_case(
            "a NaN score",
            beams_with(vec![(
                "scores",
                float_lists(&[&[1.0, 0.5], &[1.0, f64::NAN], &[1.0]]),
            )]),
            "column \"scores\": item 1 is NaN, expected a finite number",
        ),
        beams_case(
            "scores of strings",
            beams_with(vec![("scores", string_lists(&[&[A], &[A], &[A]]))]),
            "column \"scores\": is List(Utf8), expected lists of numbers",
        ),
        beams_case(
            "target_item of floats",
            beams_with(vec![(
                "target_item",
                Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0])) as ArrayRef,
            )]),
            "column \"target_item\": is Float64, expected item ids",
        ),
        beams_case(
            "a truncated Parquet file",
            truncated,
            "is not a readable Parquet file",
        ),
        beams_case(
            "JSON named .parquet",
            br#"[{"beam_sids": ["<a_1><b_2>"], "target": "<a_1><b_2>"}]"#.to_vec(),
            "is not a readable Parquet file",
        ),
        Case {
            name: "a truncated Arrow file",
            files: vec![("i.parquet", good_index()), ("b.arrow", arrow_cut)],
            bad_file: "b.arrow",
            place: "Arrow IPC",
        },
        index_case(
            "a duplicate item id",
            parquet(vec![
                ("item_id", ints(&[0, 1, 0])),
                ("codes", int_lists(&[&[1, 2], &[1, 2], &[3, 1]])),
            ]),
            "row group 1, row 0 (row 2 of the file), column \"item_id\": item id \"0\" appears twice",
        ),
        index_case(
            "a negative code",
            parquet(vec![
                ("item_id", ints(&[0, 1])),
                ("codes", int_lists(&[&[1, 2], &[1, -2]])),
            ]),
            "column \"codes\": code -2 at level b",
        ),
        index_case(
            "inconsistent levels",
            parquet(vec![
                ("item_id", ints(&[0, 1, 2])),
                ("codes", int_lists(&[&[1, 2], &[1, 2], &[3]])),
            ]),
            "inconsistent L",
        ),
        index_case(
            "a malformed SID",
            parquet(vec![
                ("item_id", ints(&[0, 1])),
                ("sid", strings(&[A, Some("<a_1><b_x>")])),
            ]),
            "column \"sid\": malformed SID",
        ),
        index_case(
            "a null item id",
            parquet(vec![
                ("item_id", strings(&[Some("a"), None])),
                ("sid", strings(&[A, B])),
            ]),
            "column \"item_id\": is null",
        ),
        index_case(
            "no codes column",
            parquet(vec![("item_id", ints(&[0])), ("tokens", strings(&[A]))]),
            "has neither a \"codes\" column",
        ),
        index_case(
            "codes of floats",
            parquet(vec![
                ("item_id", ints(&[0])),
                ("codes", float_lists(&[&[1.0, 2.0]])),
            ]),
            "column \"codes\": is List(Float64), expected lists of integers",
        ),
    ]
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
fn every_malformed_table_gives_one_clear_error() {
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in &case.files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        let p = |n: &str| dir.path().join(n).display().to_string();
        let args: Vec<String> = match case.files.get(1) {
            Some((beams, _)) => vec![
                "eval".into(),
                "--index".into(),
                p("i.parquet"),
                "--beams".into(),
                p(beams),
                "--per-user".into(),
                p("out.parquet"),
            ],
            None => vec!["stats".into(), "--index".into(), p("i.parquet")],
        };
        let before = listing(dir.path());
        let out = Command::new(env!("CARGO_BIN_EXE_sidlens"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("sidlens: error:"))
            .collect();
        let mut problems = Vec::new();
        if out.status.code() != Some(1) {
            problems.push(format!("exit code {:?}", out.status.code()));
        }
        if !out.stdout.is_empty() {
            problems.push("stdout not empty".to_string());
        }
        if stderr.contains("panicked") {
            problems.push("panic".into());
        }
        if errors.len() != 1 {
            problems.push(format!("{} error lines", errors.len()));
        }
        let line = errors.first().copied().unwrap_or("");
        if !line.contains(case.bad_file) || !line.contains(case.place) {
            problems.push(format!(
                "message lacks {:?} / {:?}",
                case.bad_file, case.place
            ));
        }
        if listing(dir.path()) != before {
            problems.push("left files behind".into());
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
