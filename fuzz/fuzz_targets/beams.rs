//! Fuzzes the beams reader and the metrics on its records (JSON array and JSON Lines, both
//! modes): any bytes give metrics or a clear error naming the file, never a panic; faithful
//! metrics are finite and within [0, 1]. Uses the sequential reader so that each input runs
//! fast; the parallel reader is checked against it by the library's tests.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sidlens::collision::Collisions;
use sidlens::load::SidIndex;
use sidlens::load::beams::for_each_record;
use sidlens::metrics::{Accumulator, Compat, Evaluator};
use sidlens::progress::NoProgress;

const INDEX: &str = r#"{"0": [1, 1], "1": [1, 1], "2": [2, 2], "3": [2, 3], "4": [2, 3], "5": [2, 3]}"#;
const KS: [usize; 3] = [1, 5, 20];

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
    for compat in [Compat::Faithful, Compat::CcePy] {
        let evaluator = Evaluator::new(index, collisions, compat);
        let mut acc = Accumulator::new(&KS, true);
        let read = for_each_record(path, &NoProgress, |rec| {
            let scored = evaluator.evaluate(rec);
            acc.add(&scored.outcome, scored.anomalies);
            Ok(())
        });
        if let Err(e) = read {
            assert!(e.to_string().contains("sidlens-fuzz"), "{e}");
            return;
        }
        let summary = acc.finish(compat, collisions, &evaluator.generated_counts());
        for m in &summary.values {
            for v in [m.hit, m.ndcg, m.item_hit, m.item_ndcg] {
                assert!(v.is_finite() && v >= 0.0, "{compat:?}: {m:?}");
                if compat == Compat::Faithful {
                    assert!(v <= 1.0 + 1e-12, "faithful metric above 1: {m:?}");
                }
            }
        }
    }
});
