//! Fuzzes the SID index loader: any bytes must give an index or a clear error, never a panic;
//! a loaded index must survive statistics and a write/read round trip unchanged.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sidlens::collision::Collisions;
use sidlens::load::SidIndex;
use sidlens::collision::stats::IndexStats;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.index.json");
    let Ok(index) = SidIndex::parse(data, path, None) else {
        return;
    };
    let collisions = Collisions::new(&index);
    let stats = IndexStats::compute(&index, &collisions);
    assert_eq!(stats.n_items, index.n_items());
    let mut written = Vec::new();
    index.write_json(&mut written).unwrap();
    let again = SidIndex::parse(&written, path, None).unwrap();
    assert_eq!(again.all_codes(), index.all_codes());
    assert_eq!(again.ids().iter().collect::<Vec<_>>(), index.ids().iter().collect::<Vec<_>>());
});
