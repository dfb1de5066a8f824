//! The beams readers' tests: JSON Lines, JSON arrays and tables read into the same records,
//! the fast path against serde (proptests), errors naming the file, record and line, and the
//! parallel pipeline's order.

use super::fast_path::parse_plain_record;
use super::json_lines::parse_with_serde;
use super::*;
use crate::progress::NoProgress;
use crate::sid::sid_key;
use proptest::prelude::*;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn collect(path: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for_each_record(path, &NoProgress, |r| {
        out.push(format!(
            "{}@{} beams={:?} scores={:?} target={:?} item={:?} ranked={:?}",
            r.record(),
            r.line(),
            r.beams()
                .iter()
                .map(|&b| match b {
                    BeamSid::Codes { key, n_levels } => format!("{key:x}/{n_levels}"),
                    BeamSid::Unreadable(s) => format!("?{}", r.span_text(s)),
                })
                .collect::<Vec<_>>(),
            r.scores(),
            r.target().is_some(),
            r.target_item(),
            r.ranked_items().map(Iterator::collect::<Vec<_>>),
        ));
        Ok(())
    })?;
    Ok(out)
}

#[test]
fn sid_strings_parse_into_keys() {
    assert_eq!(
        parse_sid_key("<a_1><b_2><c_3><d_4>"),
        Some((sid_key(&[1, 2, 3, 4]), 4))
    );
    assert_eq!(
        parse_sid_key(" <a_1> <b_ 65535 >\t"),
        Some((sid_key(&[1, 65535]), 2))
    );
    assert_eq!(
        parse_sid_key("<a_000001><b_65535>"),
        Some((sid_key(&[1, 65535]), 2))
    );
    for bad in [
        "",
        "  ",
        "<a_1><c_2>",
        "<b_1>",
        "<a_>",
        "<a_65536>",
        "<a_1",
        "a_1>",
        "<a_1>x",
        "<a_-1>",
        "<a_1><b_70000>",
        "<a_1>>",
        "<a_1><a_1>",
        "<a_1><b_1><c_1><d_1><e_1><f_1><g_1><h_1><i_1>",
    ] {
        assert_eq!(parse_sid_key(bad), None, "{bad:?}");
    }
}

#[test]
fn every_token_scheme_reads_into_the_same_keys_and_a_file_keeps_one() {
    let dir = tempfile::tempdir().unwrap();
    let want = format!("{:x}/3", sid_key(&[340, 6566, 5603]));
    for (name, sid, other) in [
        ("a", "<a_340><b_6566><c_5603>", "<A_1><B_2><C_3>"),
        (
            "o",
            "<|sid_begin|><s_a_340><s_b_6566><s_c_5603><|sid_end|>",
            "<a_1><b_2><c_3>",
        ),
        ("v", "<|sid_340|><|sid_6566|><|sid_5603|>", "1-2-3"),
        ("d", "340-6566-5603", "<|sid_1|><|sid_2|><|sid_3|>"),
    ] {
        let rec = format!(r#"{{"beam_sids": ["{sid}", "junk"], "target": "{sid}"}}"#);
        for (file, text) in [
            (format!("{name}.jsonl"), format!("{rec}\n{rec}\n")),
            (format!("{name}.json"), format!("[{rec}, {rec}]")),
        ] {
            let path = write(&dir, &file, &text);
            let got = collect(&path).unwrap();
            assert!(
                got[1].contains(&format!("beams=[\"{want}\", \"?junk\"]")),
                "{got:?}"
            );
        }
        let mixed = format!("{rec}\n{}\n", rec.replacen(sid, other, 1));
        let path = write(&dir, &format!("{name}.mixed.jsonl"), &mixed);
        let err = collect(&path).unwrap_err().to_string();
        assert!(
            err.contains("record 2 (line 2)") || err.contains("line 2"),
            "{err}"
        );
        assert!(err.contains("one token scheme per file"), "{err}");
        let given = SidScheme::from_name_or_example(other);
        let path = write(&dir, &format!("{name}.one.jsonl"), &format!("{rec}\n"));
        let err = for_each_record_as(&path, given, &NoProgress, |_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("--sid-format says"), "{err}");
    }
}

#[test]
fn array_and_lines_give_the_same_records() {
    let dir = tempfile::tempdir().unwrap();
    let records = [
        r#"{"beam_sids": ["<a_1><b_2>", "<a_1> <b_3>", "junk x"], "target": "<a_1><b_3>", "extra": {"x": [1]}}"#,
        r#"{"beam_sids": [], "target": null, "target_item": 7}"#,
        r#"{"ranked_items": ["5", 6], "target_item": "6", "scores": [0.5, 1]}"#,
        r#"{"beam_sids": ["<a_1><b_2>"], "scores": [-1.5], "target_item": "x"}"#,
    ];
    let array = write(&dir, "b.json", &format!("[\n{}\n]", records.join(",\n")));
    let lines = write(
        &dir,
        "b.jsonl",
        &format!(
            "{}\n\n{}\n",
            records[..2].join("\n"),
            records[2..].join("\n")
        ),
    );
    let a = collect(&array).unwrap();
    let l = collect(&lines).unwrap();
    assert_eq!(a.len(), 4);
    assert_eq!(
        a[0],
        "0@2 beams=[\"10002/2\", \"10003/2\", \"?junkx\"] scores=None target=true item=None ranked=None"
    );
    assert_eq!(
        a[2],
        "2@4 beams=[] scores=Some([0.5, 1.0]) target=false item=Some(\"6\") ranked=Some([\"5\", \"6\"])"
    );
    let strip_line = |v: &[String]| -> Vec<String> {
        v.iter()
            .map(|s| s.split_once(' ').unwrap().1.to_string())
            .collect()
    };
    assert_eq!(strip_line(&a), strip_line(&l));
    assert!(l[2].starts_with("2@4 "), "{}", l[2]);
    assert!(l[3].starts_with("3@5 "), "{}", l[3]);
}

/// Everything a record holds, for comparing two parses.
fn dump(r: &BeamRecord) -> String {
    let sid = |b: BeamSid| match b {
        BeamSid::Codes { key, n_levels } => format!("{key:x}/{n_levels}"),
        BeamSid::Unreadable(s) => format!("?{}", r.span_text(s)),
    };
    format!(
        "{:?} {:?} {:?} {:?} {:?} {}",
        r.beams().iter().map(|&b| sid(b)).collect::<Vec<_>>(),
        r.target().map(sid),
        r.target_item(),
        r.scores(),
        r.ranked_items().map(Iterator::collect::<Vec<_>>),
        r.has_beams
    )
}

/// The fast path either declines or reads exactly what serde reads, and its build for
/// CPUs with AVX2 (taken here when the CPU has it) decides as the portable one does.
fn fast_equals_serde(text: &str) -> std::result::Result<bool, TestCaseError> {
    let mut fast = BeamRecord::default();
    let taken = parse_plain_record(text, &mut fast);
    let mut portable = BeamRecord::default();
    let portable_taken = super::fast_path::parse_plain_record_inline(text, &mut portable);
    prop_assert_eq!(portable_taken, taken, "the builds disagree on {}", text);
    if taken {
        prop_assert_eq!(dump(&portable), dump(&fast), "{}", text);
    }
    let mut slow = BeamRecord::default();
    let serde = parse_with_serde(text, &mut slow);
    if taken {
        prop_assert!(serde.is_ok(), "fast path took what serde rejects: {text}");
        prop_assert_eq!(dump(&fast), dump(&slow), "{}", text);
    }
    Ok(taken)
}

#[test]
fn fast_path_covers_plain_records_and_declines_the_rest() {
    for (text, taken) in [
        (
            r#"{"beam_sids": ["<a_1><b_2>", "x y"], "target": "<a_1>", "target_item": "7"}"#,
            true,
        ),
        (
            r#" { "target_item" : 12 , "beam_sids":[ ] ,"target":null } "#,
            true,
        ),
        (
            r#"{"beam_sids": ["é<a_1>"], "target_item": null, "target": "t"}"#,
            true,
        ),
        (r#"{"beam_sids": ["\u003ca_1>"], "target": "<a_1>"}"#, false),
        (
            r#"{"beam_sids": [], "target": "<a_1>", "scores": []}"#,
            false,
        ),
        (r#"{"beam_sids": [], "target": "<a_1>", "x": 1}"#, false),
        (r#"{"beam_sids": [], "target_item": 012}"#, false),
        (r#"{"beam_sids": [], "target_item": 1.5}"#, false),
        (r#"{"beam_sids": [], "target_item": -1}"#, false),
        (
            r#"{"beam_sids": [], "target_item": 12345678901234567890}"#,
            false,
        ),
        (r#"{"beam_sids": ["a",], "target": "b"}"#, false),
        (r#"{"beam_sids": [], "target": "b",}"#, false),
        (
            r#"{"beam_sids": [], "beam_sids": [], "target": "b"}"#,
            false,
        ),
        (r#"{"beam_sids": [], "target": "b"} x"#, false),
        (r#"{"beam_sids": [], "target": nul}"#, false),
        (r#"{"beam_sids": [], "target": "a	b"}"#, false),
        ("{}", false),
    ] {
        assert_eq!(fast_equals_serde(text).unwrap(), taken, "{text}");
    }
}

proptest::proptest! {
    /// Random plain records in any key order and spacing, and random one-byte damage.
    #[test]
    fn fast_path_agrees_with_serde(
        fields in proptest::sample::subsequence(vec![0usize, 1, 2], 0..=3),
        order in proptest::collection::vec(0usize..3, 3),
        sids in proptest::collection::vec("[<>a-d_0-9 é]{0,12}", 0..4),
        item in proptest::prop_oneof![
            proptest::strategy::Just("null".to_string()),
            "[0-9]{1,21}",
            "\"[a-z0-9 ]{0,5}\"",
        ],
        space in "[ \t]{0,2}",
        damage in proptest::option::of((0usize..200, proptest::num::u8::ANY)),
    ) {
        let mut fields = fields;
        fields.sort_by_key(|&f| order[f]);
        let parts: Vec<String> = fields
            .iter()
            .map(|&f| match f {
                0 => format!(
                    "\"beam_sids\":{space}[{}]",
                    sids.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(&format!(",{space}"))
                ),
                1 => format!("\"target\":{space}{}", sids.first().map_or("null".to_string(), |s| format!("\"{s}\""))),
                _ => format!("\"target_item\"{space}:{item}"),
            })
            .collect();
        let text = format!("{space}{{{}}}{space}", parts.join(&format!("{space},")));
        fast_equals_serde(&text)?;
        if let Some((at, byte)) = damage {
            fast_equals_serde(&crate::load::with_byte_changed(&text, at, byte))?;
        }
    }
}

proptest::proptest! {
    /// Records as json.dumps writes them, read by the dumped-record path: taken whenever
    /// undamaged, the same record (token scheme included) as the any-order reader and as
    /// serde, and with one byte changed still what serde reads, or declined.
    #[test]
    fn dumped_records_read_as_any_order_ones(
        sids in proptest::collection::vec("<a_[0-9]{1,4}><b_[0-9]{1,4}>|[<>A-Ba-d_0-9 é-]{0,12}", 0..5),
        target in proptest::option::of("<a_[0-9]{1,3}><b_[0-9]{1,3}>|[a-z ]{0,4}"),
        item in proptest::option::of(proptest::prop_oneof![
            proptest::strategy::Just("null".to_string()),
            "[1-9][0-9]{0,5}",
            "\"[a-z0-9 ]{0,5}\"",
        ]),
        damage in proptest::option::of((0usize..300, proptest::num::u8::ANY)),
    ) {
        let quoted = |s: &String| format!("\"{s}\"");
        let beams: Vec<String> = sids.iter().map(quoted).collect();
        let mut text = format!(
            "{{\"beam_sids\": [{}], \"target\": {}",
            beams.join(", "),
            target.as_ref().map_or("null".to_string(), quoted)
        );
        if let Some(item) = &item {
            text.push_str(&format!(", \"target_item\": {item}"));
        }
        text.push('}');
        let mut dumped = BeamRecord::default();
        prop_assert!(super::fast_path::parse_dumped_record(&text, &mut dumped), "{}", text);
        let mut any_order = BeamRecord::default();
        prop_assert!(super::fast_path::parse_any_order(&text, &mut any_order));
        prop_assert_eq!(dump(&dumped), dump(&any_order));
        prop_assert_eq!(dumped.scheme(), any_order.scheme());
        let conflict = |r: &BeamRecord| r.scheme_conflict.map(|(s, t)| (s, r.span_text(t).to_string()));
        prop_assert_eq!(conflict(&dumped), conflict(&any_order));
        prop_assert!(fast_equals_serde(&text)?);
        if let Some((at, byte)) = damage {
            fast_equals_serde(&crate::load::with_byte_changed(&text, at, byte))?;
        }
    }
}

proptest::proptest! {
    /// A record reads the same after any other with the same buffers as on its own:
    /// the scheme the record before was in (tried first) changes nothing, on the fast
    /// path or serde's (an escaped `<`), with SIDs of several schemes in one record.
    #[test]
    fn a_record_reads_the_same_after_any_other(
        records in proptest::collection::vec((
            proptest::collection::vec(proptest::prop_oneof![
                "<a_[0-9]{1,3}><b_[0-9]{1,3}>",
                "<s_a_[0-9]{1,3}><s_b_[0-9]{1,3}>",
                "<\\|sid_begin\\|><s_a_[0-9]{1,3}><s_b_[0-9]{1,6}>(<\\|sid_end\\|>)?",
                "<\\|sid_[0-9]{1,3}\\|><\\|sid_[0-9]{1,3}\\|>",
                "<A_[0-9]{1,3}><B_[0-9]{1,3}>",
                "[0-9]{1,3}[-, ][0-9]{1,3}",
                "[0-9]{1,3}",
                "[<>a-d_0-9 |-]{0,10}",
            ], 0..5),
            proptest::bool::ANY,
        ), 1..6),
    ) {
        let mut reused = BeamRecord::default();
        for (k, (sids, escaped)) in records.iter().enumerate() {
            let quoted: Vec<String> = sids.iter().map(|s| format!("\"{s}\"")).collect();
            let mut text = format!(
                "{{\"beam_sids\": [{}], \"target\": {}}}",
                quoted.join(", "),
                quoted.first().map_or("null", String::as_str)
            );
            if *escaped {
                text = text.replacen('<', "\\u003c", 1);
            }
            let mut fresh = BeamRecord::default();
            let alone = json_lines::parse_line(text.as_bytes(), &mut fresh, k, k + 1);
            let after = json_lines::parse_line(text.as_bytes(), &mut reused, k, k + 1);
            prop_assert_eq!(&alone, &after, "{}", text);
            if alone.is_ok() {
                prop_assert_eq!(dump(&fresh), dump(&reused), "{}", text);
                prop_assert_eq!(fresh.scheme(), reused.scheme(), "{}", text);
                let conflict = |r: &BeamRecord| r.scheme_conflict.map(|(s, t)| (s, r.span_text(t).to_string()));
                prop_assert_eq!(conflict(&fresh), conflict(&reused), "{}", text);
            }
        }
    }
}

#[test]
fn unreadable_sids_compare_as_text() {
    let mut rec = BeamRecord::default();
    let a = rec.read_sid(" <a_1> <b_x>");
    let b = rec.read_sid("<a_1><b_x> ");
    let c = rec.read_sid("<a_1><b_y>");
    assert!(rec.same_sid(a, b));
    assert!(!rec.same_sid(a, c));
    assert!(matches!(a, BeamSid::Unreadable(s) if rec.span_text(s) == "<a_1><b_x>"));
}

fn error_of(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = write(dir, name, text);
    collect(&p).unwrap_err().to_string()
}

#[test]
fn errors_name_file_record_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let e = error_of(
        &dir,
        "a.jsonl",
        "{\"beam_sids\": [], \"target\": \"<a_1>\"}\n\n{\"beam_sids\": [3], \"target\": \"<a_1>\"}\n",
    );
    assert!(
        e.contains("a.jsonl: record 1 (line 3): beam_sids[0] is a number, expected a SID string"),
        "{e}"
    );
    let e = error_of(&dir, "b.jsonl", "{\"beam_sids\": []}\n");
    assert!(e.contains("record 0 (line 1): has no target"), "{e}");
    let e = error_of(&dir, "b.json", "{\"beam_sids\": []}\n");
    assert!(
        e.contains("b.json: holds one JSON object, not a list"),
        "{e}"
    );
    let e = error_of(
        &dir,
        "c.json",
        "[{\"beam_sids\": [], \"target\": \"<a_1>\"},\n {\"beam_sids\": []}]",
    );
    assert!(
        e.contains("c.json: record 1 (line 2): has no target"),
        "{e}"
    );
    let e = error_of(
        &dir,
        "d.json",
        "[{\"beam_sids\": [], \"target\": \"<a_1>\"},\n {\"beam_sids\": [\"<a_1>\"",
    );
    assert!(
        e.contains("d.json: record 1 (line 2): unexpected end of file"),
        "{e}"
    );
    let e = error_of(
        &dir,
        "e.jsonl",
        "{\"beam_sids\": [\n\"<a_1>\"], \"target\": \"<a_1>\"}\n",
    );
    assert!(
        e.contains("record 0 (line 1)") && e.contains("must fit on one line"),
        "{e}"
    );
    let e = error_of(
        &dir,
        "f.jsonl",
        "{\"beam_sids\": [\"<a_1>\"], \"scores\": [1, 2], \"target\": \"<a_1>\"}",
    );
    assert!(e.contains("has 2 scores for 1 beam SIDs"), "{e}");
    let e = error_of(&dir, "g.jsonl", "{\"ranked_items\": [1]}");
    assert!(e.contains("no \"target_item\""), "{e}");
    let e = error_of(
        &dir,
        "h.jsonl",
        "{\"beam_sids\": [], \"beam_sids\": [], \"target\": \"<a_1>\"}",
    );
    assert!(e.contains("\"beam_sids\" appears twice"), "{e}");
    let e = error_of(&dir, "i.json", "[]");
    assert!(e.contains("holds no records"), "{e}");
    let e = error_of(&dir, "j.json", "  \n");
    assert!(e.contains("the file is empty"), "{e}");
    let e = error_of(&dir, "k.json", "\u{feff}[]");
    assert!(e.contains("byte-order mark"), "{e}");
    let e = error_of(&dir, "l.json", "\"x\"");
    assert!(e.contains("expected a JSON array"), "{e}");
    let e = error_of(
        &dir,
        "m.jsonl",
        "{\"beam_sids\": [], \"target\": \"<a_1>\"}\n{\"beam_sids\": [], \"target\": 5}",
    );
    assert!(e.contains("record 1 (line 2): target is a number"), "{e}");
    let e = error_of(&dir, "n.jsonl", "{\"beam_sids\": [], \"target_item\": 1.5}");
    assert!(e.contains("target_item is a fractional number"), "{e}");
    let e = error_of(
        &dir,
        "o.jsonl",
        "{\"beam_sids\": [], \"ranked_items\": [], \"target_item\": 1}",
    );
    assert!(e.contains("has both"), "{e}");
    assert!(
        collect(dir.path())
            .unwrap_err()
            .to_string()
            .contains("is a directory")
    );
    let missing = dir.path().join("missing.json");
    assert!(
        collect(&missing)
            .unwrap_err()
            .to_string()
            .contains("missing.json")
    );
}

#[test]
fn errors_in_later_blocks_stop_the_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let pad = "y".repeat(4000);
    let mut text = String::new();
    for i in 0..5000 {
        if i == 3000 {
            text.push_str("{\"beam_sids\": [1]}\n");
        } else {
            text.push_str(&format!(
                "{{\"beam_sids\": [], \"target_item\": {i}, \"pad\": \"{pad}\"}}\n"
            ));
        }
    }
    let p = write(&dir, "bad.jsonl", &text);
    let mut seen = 0;
    let e = map_records(&p, &NoProgress, BeamRecord::record, |_| {
        seen += 1;
        Ok(())
    })
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("record 3000 (line 3001): beam_sids[0] is a number"),
        "{e}"
    );
    assert!(seen <= 3000);
    let e = map_records(&p, &NoProgress, BeamRecord::record, |record| {
        if record == 1234 {
            Err(Error::Invalid("stop here".into()))
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert_eq!(e.to_string(), "stop here");
    struct Stop;
    impl Progress for Stop {
        fn stage(&self, _: &str, _: u64) {}
        fn advance(&self, _: u64) {}
        fn cancelled(&self) -> bool {
            true
        }
    }
    let e = map_records(&p, &Stop, BeamRecord::record, |_| Ok(())).unwrap_err();
    assert!(matches!(e, Error::Cancelled), "{e}");
}

/// The parallel array pipeline against the serial reader, on a file of several blocks,
/// whole and damaged: the same records, or the same error.
#[test]
fn parallel_array_reading_matches_the_serial_reader() {
    let dir = tempfile::tempdir().unwrap();
    let pad = "p".repeat(3000);
    let records: Vec<String> = (0..3200)
        .map(|i| {
            let extra = match i % 500 {
                7 => r#", "x": {"s": "}, {"}"#.to_string(),
                8 => r#", "x": "} ]"#.to_string(),
                _ => String::new(),
            };
            format!(
                "{{\"beam_sids\": [\"<a_{}><b_1>\", \"{pad}\"], \"target_item\": {i}{extra}}}",
                i % 300
            )
        })
        .collect();
    let plain = format!("[{}]", records.join(", "));
    let pretty = format!("[\n  {}\n]\n", records.join(",\n  "));
    assert!(plain.len() > 2 * BLOCK_BYTES);
    let serial = |p: &Path| -> Result<Vec<String>> {
        let mut out = Vec::new();
        for_each_record(p, &NoProgress, |r| {
            out.push(format!("{}@{} {}", r.record(), r.line(), dump(r)));
            Ok(())
        })?;
        Ok(out)
    };
    let parallel = |p: &Path| -> Result<Vec<String>> {
        let mut out = Vec::new();
        map_records(
            p,
            &NoProgress,
            |r| format!("{}@{} {}", r.record(), r.line(), dump(r)),
            |s| {
                out.push(s);
                Ok(())
            },
        )?;
        Ok(out)
    };
    let mut cases = vec![plain.clone(), pretty.clone(), format!("{plain} x")];
    for text in [&plain, &pretty] {
        let n = text.len();
        cases.push(text[..n / 2].to_string());
        cases.push(format!("{}, ]", &text[..text.rfind(']').unwrap()]));
        for at in [3, BLOCK_BYTES - 1, BLOCK_BYTES + 17, n / 2, n - 40] {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = b'x';
            cases.push(String::from_utf8(bytes.clone()).unwrap());
            bytes[at] = b'\n';
            cases.push(String::from_utf8(bytes).unwrap());
        }
    }
    for (k, text) in cases.iter().enumerate() {
        let p = write(&dir, &format!("{k}.json"), text);
        let (a, b) = (serial(&p), parallel(&p));
        match (&a, &b) {
            (Ok(x), Ok(y)) => assert!(x == y, "case {k}: records differ"),
            _ => assert_eq!(
                a.map(|v| v.len()).map_err(|e| e.to_string()),
                b.map(|v| v.len()).map_err(|e| e.to_string()),
                "case {k}"
            ),
        }
    }
}

/// Parquet in many row groups: the next group is decoded while this one is parsed, and
/// still every record arrives in file order, and a failure to consume one record stops
/// the reading with that failure.
#[test]
fn parquet_row_groups_overlap_in_file_order() {
    use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let n = 1000;
    let mut beams = ListBuilder::new(StringBuilder::new());
    let mut items = Int64Builder::new();
    for i in 0..n {
        beams
            .values()
            .append_value(format!("<a_{}><b_{}>", i % 97, i % 13));
        beams.values().append_value(format!("<a_{}><b_1>", i % 5));
        beams.append(true);
        items.append_value(i as i64);
    }
    let batch = arrow_array::RecordBatch::try_from_iter([
        (
            "beam_sids",
            Arc::new(beams.finish()) as arrow_array::ArrayRef,
        ),
        (
            "target_item",
            Arc::new(items.finish()) as arrow_array::ArrayRef,
        ),
    ])
    .unwrap();
    let path = dir.path().join("beams.parquet");
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_size(64)
        .build();
    let file = std::fs::File::create(&path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();

    let mut serial = Vec::new();
    for_each_record(&path, &NoProgress, |r| {
        serial.push(dump(r));
        Ok(())
    })
    .unwrap();
    let mut parallel = Vec::new();
    let rows = map_records(&path, &NoProgress, dump, |d| {
        parallel.push(d);
        Ok(())
    })
    .unwrap();
    assert_eq!((rows, serial.len()), (n, n));
    assert!(serial == parallel, "records differ or come out of order");

    let mut consumed = 0;
    let stopped = map_records(&path, &NoProgress, dump, |_| {
        consumed += 1;
        if consumed == 500 {
            return Err(Error::Invalid("stop at 500".into()));
        }
        Ok(())
    });
    assert_eq!(stopped.unwrap_err().to_string(), "stop at 500");
    assert_eq!(consumed, 500);
}

/// `records` (each a list of SIDs and a target) as JSON Lines and as Parquet with pages
/// of a few strings, so SIDs sit at page ends, where fewer than 32 bytes follow them.
fn lines_and_parquet(
    dir: &tempfile::TempDir,
    records: &[(Vec<String>, String)],
    dictionary: bool,
) -> (std::path::PathBuf, std::path::PathBuf) {
    use arrow_array::builder::{ListBuilder, StringBuilder};
    use std::sync::Arc;
    let text: String = records
        .iter()
        .map(|(beams, target)| {
            serde_json::json!({"beam_sids": beams, "target": target}).to_string() + "\n"
        })
        .collect();
    let lines = write(dir, "b.jsonl", &text);
    let mut beams = ListBuilder::new(StringBuilder::new());
    let mut targets = StringBuilder::new();
    for (sids, target) in records {
        for sid in sids {
            beams.values().append_value(sid);
        }
        beams.append(true);
        targets.append_value(target);
    }
    let batch = arrow_array::RecordBatch::try_from_iter([
        (
            "beam_sids",
            Arc::new(beams.finish()) as arrow_array::ArrayRef,
        ),
        (
            "target",
            Arc::new(targets.finish()) as arrow_array::ArrayRef,
        ),
    ])
    .unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_dictionary_enabled(dictionary)
        .set_data_page_size_limit(64)
        .set_write_batch_size(3)
        .set_max_row_group_size(7)
        .build();
    let table = dir.path().join("b.parquet");
    let file = std::fs::File::create(&table).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    (lines, table)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A Parquet table's SIDs, read as views where they lie in their pages (inline in
    /// the view when 12 bytes or shorter), give the records its JSON Lines twin gives.
    #[test]
    fn parquet_sids_read_as_their_json_lines(
        records in prop::collection::vec(
            (
                prop::collection::vec(
                    "(<[a-e]_[0-9]{1,5}>){1,8}|<a_[0-9]{1,4}> <b_[0-9]{1,3}>|[a-z<>_0-9 ]{0,14}",
                    0..6,
                ),
                "(<[a-d]_[0-9]{1,4}>){1,4}",
            ),
            1..12,
        ),
        dictionary in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (lines, table) = lines_and_parquet(&dir, &records, dictionary);
        match (dumps(&lines), dumps(&table)) {
            (Ok(expected), Ok(read)) => prop_assert_eq!(expected, read),
            // Junk that reads as another token scheme: both refuse the file (a line and
            // a row are named differently). About one case in nine.
            (Err(_), Err(_)) => {}
            (e, r) => prop_assert!(false, "JSON Lines {e:?}, Parquet {r:?}"),
        }
    }
}

/// Every record's [`dump`], in file order, through the parallel reader.
fn dumps(path: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    map_records(path, &NoProgress, dump, |d| {
        out.push(d);
        Ok(())
    })?;
    Ok(out)
}

#[test]
fn records_are_warmed_one_ahead_of_their_map() {
    let events = std::sync::Mutex::new(Vec::new());
    // What `warm` notes for a record is what `map` is given with it.
    let warm = |r: &BeamRecord, noted: &mut usize| {
        events.lock().unwrap().push(format!("warm {}", r.record()));
        *noted = 10 * r.record();
    };
    let map = |r: &BeamRecord, noted: &usize| {
        events.lock().unwrap().push(format!("map {}", r.record()));
        assert_eq!(*noted, 10 * r.record());
        r.record()
    };
    let stages = Stages {
        warm: &warm,
        map: &map,
    };
    let read = |k: usize, rec: &mut BeamRecord| {
        rec.clear(k, k + 1);
        if k == 3 { Err("bad") } else { Ok(()) }
    };
    let mut out = Vec::new();
    assert_eq!(stages.map_ahead(6, read, &mut out), Err((3, "bad")));
    assert_eq!(out, [0, 1, 2]);
    let want = ["warm 0", "warm 1", "map 0", "warm 2", "map 1", "map 2"];
    assert_eq!(*events.lock().unwrap(), want);
    out.clear();
    events.lock().unwrap().clear();
    assert_eq!(stages.map_ahead(3, |k, rec| read(k, rec), &mut out), Ok(()));
    assert_eq!(out, [0, 1, 2]);
    assert_eq!(stages.map_ahead(0, read, &mut out), Ok(()));
    assert_eq!(out, [0, 1, 2]);
}

#[test]
fn parallel_map_keeps_file_order_across_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let n = 3000;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "{{\"beam_sids\": [\"<a_{}><b_1>\"], \"target_item\": {i}, \"pad\": \"{}\"}}\n",
            i % 60000,
            "x".repeat(i % 7 * 1000)
        ));
    }
    let p = write(&dir, "big.jsonl", &text);
    let mut seen = Vec::new();
    let count = map_records(
        &p,
        &NoProgress,
        |r| (r.record(), r.line(), r.target_item().unwrap().to_string()),
        |v| {
            seen.push(v);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(count, n);
    for (i, (record, line, item)) in seen.into_iter().enumerate() {
        assert_eq!((record, line, item), (i, i + 1, i.to_string()));
    }
}
