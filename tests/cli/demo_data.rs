//! The committed `demo_data/` is exactly what `sidlens demo` generates (so the demo never drifts
//! from the code), generation does not depend on the thread count, and the demo shows what
//! sidlens is about: collision groups of several items, among them a "Mini 3D Printer" and a
//! "Standard 3D Printer" sharing one SID, inflated Hit@10, and tokenizers whose order by Hit@10
//! flips by ItemHit@10. Regenerate with
//! `cargo run --release -- demo --out demo_data`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sidlens::collision::Collisions;
use sidlens::generate::demo::{self, DemoConfig};
use sidlens::load::dataset::Dataset;
use sidlens::load::{ItemTexts, SidIndex};
use sidlens::metrics::Compat;
use sidlens::progress::NoProgress;
use sidlens::usecase::compare_tokenizers;

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo_data")
}

/// Every file under `root` (hidden entries such as caches skipped), by relative path.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap().to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn generate_with_threads(threads: usize, out: &Path) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| demo::generate(out, &DemoConfig::default(), &NoProgress).unwrap());
}

fn assert_same_tree(want: &Path, got: &Path) {
    let (want_files, got_files) = (tree(want), tree(got));
    let names = |t: &BTreeMap<String, Vec<u8>>| t.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&want_files),
        names(&got_files),
        "{} and {} hold different files; regenerate with `cargo run --release -- demo --out demo_data`",
        want.display(),
        got.display()
    );
    for (name, bytes) in &want_files {
        assert!(
            bytes == &got_files[name],
            "{name} differs between {} and {}; regenerate with `cargo run --release -- demo --out demo_data`",
            want.display(),
            got.display()
        );
    }
}

#[test]
fn committed_demo_data_is_what_the_generator_writes() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("demo_data");
    generate_with_threads(2, &fresh);
    assert_same_tree(&committed(), &fresh);
}

#[test]
fn generation_does_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let (one, three) = (dir.path().join("one"), dir.path().join("three"));
    generate_with_threads(1, &one);
    generate_with_threads(3, &three);
    assert_same_tree(&one, &three);
}

#[test]
fn demo_has_large_groups_and_the_two_printers_share_a_sid() {
    let root = committed();
    let texts = ItemTexts::load(&root.join("Workshop.item.json")).unwrap();
    let mut largest = 0;
    for variant in ["rkmeans_v32_native", "rkmeans_v64_native"] {
        let index = SidIndex::load(
            &root
                .join("indexes")
                .join(variant)
                .join("Workshop.index.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        let groups = collisions.collision_groups();
        largest = largest.max(collisions.size(groups[0]));
        let printer = |size: &str| {
            (0..index.n_items())
                .find(|&p| {
                    texts
                        .title(index.id(p))
                        .is_some_and(|t| t.starts_with(&format!("Voxelcraft {size} 3D Printer")))
                })
                .unwrap()
        };
        assert_eq!(
            index.key(printer("Mini")),
            index.key(printer("Standard")),
            "{variant}: the Mini and Standard 3D printers should share one SID"
        );
    }
    assert!(largest >= 5, "largest demo group has {largest} items");
}

#[test]
fn demo_shows_inflation_and_a_rank_flip_at_10() {
    let dataset = Dataset::discover(&committed(), None).unwrap();
    assert_eq!(dataset.name, "Workshop");
    let runs = dataset.tokenizers();
    assert!(runs.len() >= 3 && runs.iter().all(|r| r.beams_file().is_some()));
    let c = compare_tokenizers(&runs, &[10], Compat::Faithful, None, None, &NoProgress)
        .unwrap()
        .comparisons
        .remove(0);
    assert!(
        c.rows
            .iter()
            .any(|r| r.inflation_pct.is_some_and(|p| p > 0.0)),
        "no tokenizer has Hit@10 inflated over ItemHit@10"
    );
    assert!(
        !c.flips.is_empty(),
        "no rank flip between Hit@10 and ItemHit@10"
    );
    let zcr = c.rows.iter().find(|r| r.name == "rkmeans_v64_zcr").unwrap();
    assert_eq!(zcr.collision_rate, 0.0);
    assert_eq!(zcr.inflation_pct, Some(0.0));
}
