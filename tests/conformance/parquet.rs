//! Parquet and Arrow IPC give the same numbers as the JSON path: every reference index and
//! beams file is rewritten as tables with the parquet crate's own writer (several row
//! groups, every accepted column layout), and `eval`, `stats` and `zcr` must print what they
//! print for the JSON files; `eval --per-user` and `zcr --out` written as Parquet hold what
//! their JSON outputs hold. A pyarrow-written fixture proves real files read.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde_json::Value;

use common::{reference, sidlens};

/// Parses `<a_1><b_2>` into its codes.
fn codes_of(sid: &str) -> Vec<i64> {
    sid.split('>')
        .filter(|t| !t.trim().is_empty())
        .map(|t| t.rsplit('_').next().unwrap().trim().parse().unwrap())
        .collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Writes `batch` as Parquet in row groups of `rows` (zstd, as polars writes; snappy is
/// the writer's own default and covered by sidlens's outputs).
fn write_parquet(path: &Path, batch: &RecordBatch, rows: usize) {
    let props = WriterProperties::builder()
        .set_max_row_group_size(rows)
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

fn write_arrow(path: &Path, batch: &RecordBatch) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = arrow_ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
    w.write(batch).unwrap();
    w.finish().unwrap();
}

/// The index as a table, rows in file order: `item_id` int64 + `codes`, or `item_id`
/// string + `sid` (in the index's own token scheme).
fn index_table(index: &Path, as_codes: bool) -> RecordBatch {
    let index = sidlens::load::SidIndex::load(index, None).unwrap();
    let mut ints = Int64Builder::new();
    let mut strs = StringBuilder::new();
    let mut codes = ListBuilder::new(Int64Builder::new());
    let mut sids = StringBuilder::new();
    for i in 0..index.n_items() {
        if as_codes {
            ints.append_value(index.id(i).parse().unwrap());
            let c: Vec<i64> = index.codes(i).iter().map(|&c| i64::from(c)).collect();
            codes.values().append_slice(&c);
            codes.append(true);
        } else {
            strs.append_value(index.id(i));
            sids.append_value(index.sid_string(i));
        }
    }
    let (id, sid): (ArrayRef, ArrayRef) = if as_codes {
        (Arc::new(ints.finish()), Arc::new(codes.finish()))
    } else {
        (Arc::new(strs.finish()), Arc::new(sids.finish()))
    };
    let name = if as_codes { "codes" } else { "sid" };
    RecordBatch::try_from_iter(vec![("item_id", id), (name, sid)]).unwrap()
}

/// How a beams table writes its SIDs.
#[derive(Clone, Copy, PartialEq)]
enum BeamLayout {
    /// `beam_sids` strings, `target` string, `target_item` string.
    Sids,
    /// `beam_codes` lists, `target` codes, `target_item` int64, `user`, decreasing `scores`.
    Codes,
}

fn beams_table(records: &Value, layout: BeamLayout) -> RecordBatch {
    let records = records.as_array().unwrap();
    let mut beam_sids = ListBuilder::new(StringBuilder::new());
    let mut beam_codes = ListBuilder::new(ListBuilder::new(Int64Builder::new()));
    let mut target_s = StringBuilder::new();
    let mut target_c = ListBuilder::new(Int64Builder::new());
    let mut item_s = StringBuilder::new();
    let mut item_i = Int64Builder::new();
    let mut scores = ListBuilder::new(arrow_array::builder::Float64Builder::new());
    let mut users = Int64Builder::new();
    for (u, r) in records.iter().enumerate() {
        let beams = r["beam_sids"].as_array().unwrap();
        let target = r["target"].as_str();
        let item = match &r["target_item"] {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        match layout {
            BeamLayout::Sids => {
                for b in beams {
                    beam_sids.values().append_value(b.as_str().unwrap());
                }
                beam_sids.append(true);
                target_s.append_option(target);
                item_s.append_option(item);
            }
            BeamLayout::Codes => {
                for (rank, b) in beams.iter().enumerate() {
                    beam_codes
                        .values()
                        .values()
                        .append_slice(&codes_of(b.as_str().unwrap()));
                    beam_codes.values().append(true);
                    scores.values().append_value(-(rank as f64));
                }
                beam_codes.append(true);
                scores.append(true);
                match target {
                    Some(t) => {
                        target_c.values().append_slice(&codes_of(t));
                        target_c.append(true);
                    }
                    None => target_c.append(false),
                }
                item_i.append_option(item.map(|s| s.parse::<i64>().unwrap()));
                users.append_value(u as i64 * 7);
            }
        }
    }
    let columns: Vec<(&str, ArrayRef)> = match layout {
        BeamLayout::Sids => vec![
            ("beam_sids", Arc::new(beam_sids.finish())),
            ("target", Arc::new(target_s.finish())),
            ("target_item", Arc::new(item_s.finish())),
        ],
        BeamLayout::Codes => vec![
            ("user", Arc::new(users.finish())),
            ("beam_codes", Arc::new(beam_codes.finish())),
            ("scores", Arc::new(scores.finish())),
            ("target", Arc::new(target_c.finish())),
            ("target_item", Arc::new(item_i.finish())),
        ],
    };
    RecordBatch::try_from_iter(columns).unwrap()
}

fn run_json(args: &[&str]) -> Value {
    let out = sidlens(args);
    assert!(
        out.status.success(),
        "sidlens {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Drops the values that name input files, which differ between the two runs by design.
fn without_paths(mut v: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| {
                    !matches!(
                        k.as_str(),
                        "index" | "beams" | "path" | "file" | "paper_sidecars" | "sidecar"
                    )
                });
                m.values_mut().for_each(walk);
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut v);
    v
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `eval --json` and `stats --json` on JSON and on the tables agree exactly.
fn check_eval(index: &Path, beams: &Path, t_index: &Path, t_beams: &Path, extra: &[&str]) {
    let eval = |i: &Path, b: &Path| {
        let mut args = vec!["eval", "--index", path(i), "--beams", path(b), "--json"];
        args.extend_from_slice(extra);
        without_paths(run_json(&args))
    };
    assert_eq!(
        eval(index, beams),
        eval(t_index, t_beams),
        "{} vs {}",
        beams.display(),
        t_beams.display()
    );
    let stats = |i: &Path| without_paths(run_json(&["stats", "--index", path(i), "--json"]));
    let (a, b) = (stats(index), stats(t_index));
    assert_eq!(a.get("collision_rate"), b.get("collision_rate"));
    assert_eq!(a.get("n_items"), b.get("n_items"));
    assert_eq!(a.get("groups"), b.get("groups"));
}

#[test]
fn every_reference_fixture_gives_the_same_numbers_from_parquet_and_arrow() {
    let Some(root) = reference() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let beams_dir = root.join("beams/Scientific");
    let mut variants: Vec<String> = std::fs::read_dir(&beams_dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().into_string().unwrap();
            n.strip_suffix(".per_user.json").map(str::to_string)
        })
        .collect();
    variants.sort();
    assert_eq!(variants.len(), 6);
    for (k, variant) in variants.iter().enumerate() {
        let index = root.join(format!(
            "CollisionGenRec/data/Scientific/indexes/{variant}/Scientific.index.json"
        ));
        let beams = beams_dir.join(format!("{variant}.per_user.json"));
        let layout = if k % 2 == 0 {
            BeamLayout::Sids
        } else {
            BeamLayout::Codes
        };
        let t_index = tmp.path().join(format!("{variant}.index.parquet"));
        let t_beams = tmp.path().join(format!("{variant}.per_user.parquet"));
        write_parquet(&t_index, &index_table(&index, k % 2 == 1), 1000);
        write_parquet(&t_beams, &beams_table(&read_json(&beams), layout), 1500);
        check_eval(&index, &beams, &t_index, &t_beams, &[]);
        if k == 0 {
            let a_index = tmp.path().join(format!("{variant}.index.arrow"));
            let a_beams = tmp.path().join(format!("{variant}.feather"));
            write_arrow(&a_index, &index_table(&index, true));
            write_arrow(
                &a_beams,
                &beams_table(&read_json(&beams), BeamLayout::Codes),
            );
            check_eval(
                &index,
                &beams,
                &a_index,
                &a_beams,
                &["--decode", "random:7"],
            );
        }
    }
    let tricky = root.join("beams/tricky");
    let (index, beams) = (
        tricky.join("tricky.index.json"),
        tricky.join("tricky.per_user.json"),
    );
    let t_index = tmp.path().join("tricky.index.parquet");
    let t_beams = tmp.path().join("tricky.per_user.parquet");
    write_parquet(&t_index, &index_table(&index, false), 5);
    write_parquet(
        &t_beams,
        &beams_table(&read_json(&beams), BeamLayout::Sids),
        4,
    );
    for compat in ["faithful", "cce-py"] {
        check_eval(&index, &beams, &t_index, &t_beams, &["--compat", compat]);
    }
}

/// Every row of a Parquet file as JSON objects, for comparing with JSON Lines.
fn parquet_rows(path: &Path) -> Vec<serde_json::Map<String, Value>> {
    let file = std::fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        for r in 0..batch.num_rows() {
            let mut row = serde_json::Map::new();
            for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
                let v = if col.is_null(r) {
                    Value::Null
                } else {
                    match field.data_type() {
                        DataType::UInt64 => col.as_primitive::<UInt64Type>().value(r).into(),
                        DataType::UInt32 => col.as_primitive::<UInt32Type>().value(r).into(),
                        DataType::Float64 => {
                            let a: &Float64Array = col.as_primitive();
                            a.value(r).into()
                        }
                        DataType::Utf8 => col.as_string::<i32>().value(r).into(),
                        other => panic!("unexpected column type {other}"),
                    }
                };
                row.insert(field.name().clone(), v);
            }
            rows.push(row);
        }
    }
    rows
}

#[test]
fn per_user_parquet_holds_what_json_lines_holds() {
    let Some(root) = reference() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let index =
        root.join("CollisionGenRec/data/Scientific/indexes/rkmeans_native/Scientific.index.json");
    let beams = root.join("beams/Scientific/rkmeans_native.per_user.json");
    let lines = tmp.path().join("u.jsonl");
    let table = tmp.path().join("u.parquet");
    for out in [&lines, &table] {
        let args = [
            "eval",
            "--index",
            path(&index),
            "--beams",
            path(&beams),
            "--per-user",
            path(out),
            "--decode",
            "random:3",
            "--json",
        ];
        run_json(&args);
    }
    let want: Vec<serde_json::Map<String, Value>> = std::fs::read_to_string(&lines)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got = parquet_rows(&table);
    assert_eq!(got.len(), want.len());
    assert_eq!(got.len(), 8317);
    for (g, w) in got.iter().zip(&want) {
        let keys: Vec<_> = w.keys().collect();
        assert_eq!(
            g.keys().collect::<Vec<_>>(),
            keys,
            "same columns in the same order"
        );
        for (k, v) in w {
            let gv = &g[k];
            match (gv.as_f64(), v.as_f64()) {
                // serde_json's default float parser may be one ulp off the shortest
                // representation the writer printed; the table holds the exact value.
                (Some(a), Some(b)) => {
                    assert!(
                        (a - b).abs() <= 2.0 * f64::EPSILON * b.abs().max(1.0),
                        "{k}: {a} vs {b}"
                    )
                }
                _ => assert_eq!(gv, v, "{k}"),
            }
        }
    }
}

#[test]
fn zcr_out_parquet_holds_the_json_index_and_reads_back() {
    let Some(root) = reference() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = root.join("minilm/Scientific");
    let latents = root.join("embeddings/Scientific.emb-minilm.npy");
    let run = |index: &Path, out: &PathBuf| {
        let out_s = sidlens(&[
            "zcr",
            "--index",
            path(index),
            "--latents",
            path(&latents),
            "--codebooks",
            path(&dir.join("codebooks.npy")),
            "--out",
            path(out),
            "--json",
        ]);
        assert!(
            out_s.status.success(),
            "{}",
            String::from_utf8_lossy(&out_s.stderr)
        );
        without_paths(serde_json::from_slice(&out_s.stdout).unwrap())
    };
    let index = dir.join("rkmeans.index.json");
    let json_out = tmp.path().join("a/Scientific.index.json");
    let pq_out = tmp.path().join("b/Scientific.index.parquet");
    std::fs::create_dir_all(json_out.parent().unwrap()).unwrap();
    std::fs::create_dir_all(pq_out.parent().unwrap()).unwrap();
    let a = run(&index, &json_out);
    // The same reassignment from a Parquet copy of the input, written as Parquet.
    let pq_in = tmp.path().join("rkmeans.index.parquet");
    write_parquet(&pq_in, &index_table(&index, false), 700);
    let b = run(&pq_in, &pq_out);
    assert_eq!(a, b);
    let ja = sidlens::load::SidIndex::load(&json_out, None).unwrap();
    let jb = sidlens::load::SidIndex::load(&pq_out, None).unwrap();
    assert_eq!(ja.n_items(), jb.n_items());
    assert_eq!(ja.scheme(), jb.scheme());
    for i in 0..ja.n_items() {
        let p = jb.ids().position(ja.id(i)).unwrap();
        assert_eq!(ja.codes(i), jb.codes(p), "item {}", ja.id(i));
    }
    // The paper's sidecars are written beside a Parquet index too.
    assert!(
        tmp.path()
            .join("b/Scientific.zcr_provenance.json")
            .is_file()
    );
    // And reading the Parquet output gives the statistics of the JSON one.
    let stats = |i: &Path| without_paths(run_json(&["stats", "--index", path(i), "--json"]));
    assert_eq!(
        stats(&json_out).get("collision_rate"),
        stats(&pq_out).get("collision_rate")
    );
}

/// The committed fixtures written by pyarrow and polars themselves (scripts/make_parquet_fixtures.py)
/// read, and give the numbers of the JSON files they were made from.
#[test]
fn files_written_by_pyarrow_and_polars_read() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parquet");
    let index = dir.join("tiny.index.json");
    let mut checked = 0;
    for (beams, t_index, t_beams) in [
        (
            "tiny.per_user.json",
            "tiny.index.pyarrow.parquet",
            "tiny.beams.pyarrow.parquet",
        ),
        (
            "tiny.per_user.json",
            "tiny.index.pyarrow.feather",
            "tiny.beams.codes.pyarrow.parquet",
        ),
        (
            "tiny.ranked.per_user.json",
            "tiny.index.pyarrow.parquet",
            "tiny.ranked.pyarrow.parquet",
        ),
        (
            "tiny.per_user.json",
            "tiny.index.polars.parquet",
            "tiny.beams.polars.parquet",
        ),
    ] {
        let (beams, t_index, t_beams) = (dir.join(beams), dir.join(t_index), dir.join(t_beams));
        check_eval(&index, &beams, &t_index, &t_beams, &[]);
        checked += 1;
    }
    assert_eq!(checked, 4);
}
