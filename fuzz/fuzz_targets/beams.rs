//! Fuzzes the beams reader and the metrics on its records (JSON array and JSON Lines): any bytes
//! give metrics or a clear error naming the file, never a panic; the faithful metrics of any
//! parsed file are finite and within [0, 1], and the sequential and parallel readers agree.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sidlens::collision::Collisions;
use sidlens::load::SidIndex;
use sidlens::load::beams::{for_each_record, map_records};
use sidlens::metrics::{Compat, Evaluator};
use sidlens::progress::NoProgress;

const INDEX: &str = r#"{"0": [1, 1], "1": [1, 1], "2": [2, 2], "3": [2, 3], "4": [2, 3], "5": [2, 3]}"#;

fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("sidlens-fuzz-{}.beams", std::process::id())))
}

fn index() -> &'static (SidIndex, Collisions) {
    static INDEX_DATA: OnceLock<(SidIndex, Collisions)> = OnceLock::new();
    INDEX_DATA.get_or_init(|| {
        let index = SidIndex::parse(INDEX.as_bytes(), Path::new("fuzz.index.json"), Some(4)).unwrap();
        let collisions = Collisions::new(&index);
        (index, collisions)
    })
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    std::fs::write(path, data).unwrap();
    let (index, collisions) = index();
    let sequential = for_each_record(path, &NoProgress, |_| Ok(()));
    let parallel = map_records(path, &NoProgress, |_| (), |()| Ok(()));
    match (&sequential, &parallel) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => {
            assert!(a.to_string().contains("sidlens-fuzz"), "{a}");
            assert_eq!(a.to_string(), b.to_string());
        }
        _ => panic!("readers disagree: {sequential:?} vs {parallel:?}"),
    }
    for compat in [Compat::Faithful, Compat::CcePy] {
        let Ok(evaluation) = Evaluator::new(index, collisions, compat).evaluate_file(path, &NoProgress) else {
            assert!(sequential.is_err());
            continue;
        };
        for k in [1, 5, 20] {
            let m = evaluation.at(k);
            for v in [m.hit, m.ndcg, m.item_hit, m.item_ndcg] {
                assert!(v.is_finite() && v >= 0.0, "{compat:?} @{k}: {m:?}");
                if compat == Compat::Faithful {
                    assert!(v <= 1.0 + 1e-12, "faithful metric above 1 @{k}: {m:?}");
                }
            }
        }
    }
});
