//! Helpers shared by the integration tests: where the reference data is, and running the
//! real binary. Each test crate uses the part it needs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Prints why a test is skipped where the user sees it: straight to the process's stderr,
/// which the test harness does not capture (it only captures `eprintln!`).
#[allow(dead_code)]
pub fn skip_notice(reason: &str) {
    let _ = writeln!(std::io::stderr(), "skipping: {reason}");
}

/// `../shared/reference` beside the repository, or `None` when a fresh clone has no such
/// folder, so reference tests skip instead of failing. The first test to find it missing
/// prints the one line of the run that says so; with `SIDLENS_REQUIRE_REFERENCE=1` (as
/// `.ci/run` sets, where the folder is always there) a missing folder fails instead.
#[allow(dead_code)]
pub fn reference() -> Option<PathBuf> {
    static NOTICE: std::sync::Once = std::sync::Once::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("SIDLENS_REQUIRE_REFERENCE").is_none_or(|v| v != "1"),
        "{} not found, and SIDLENS_REQUIRE_REFERENCE=1 says the conformance tests must run",
        dir.display()
    );
    NOTICE.call_once(|| {
        skip_notice(&format!(
            "the tests of {} that read ../shared/reference (not found beside the checkout)",
            env!("CARGO_CRATE_NAME")
        ))
    });
    None
}

/// Runs the `sidlens` binary built for these tests with `args`.
#[allow(dead_code)]
pub fn sidlens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(args)
        .output()
        .expect("run sidlens")
}

/// Seed `seed` of the beams file `fixture`, written into `out` as
/// `<stem>.seed<seed>.per_user.json`: for user u, h = (u·2654435761 + seed·40503) mod 2³²;
/// h mod 3 = 0 swaps beams 1 and 2, = 1 swaps beams 3 and 4, = 2 keeps the list (same users,
/// same targets, slightly different metrics per seed).
#[allow(dead_code)]
pub fn derive_seed(fixture: &Path, seed: u64, out: &Path) -> PathBuf {
    let mut records: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    for (u, r) in records.iter_mut().enumerate() {
        let h = (u as u64 * 2_654_435_761 + seed * 40_503) % (1 << 32);
        let beams = r["beam_sids"].as_array_mut().unwrap();
        match h % 3 {
            0 if beams.len() > 1 => beams.swap(0, 1),
            1 if beams.len() > 3 => beams.swap(2, 3),
            _ => {}
        }
    }
    let stem = fixture
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .replace(".per_user.json", "");
    let path = out.join(format!("{stem}.seed{seed}.per_user.json"));
    std::fs::write(&path, serde_json::to_string(&records).unwrap()).unwrap();
    path
}
