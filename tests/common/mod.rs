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

/// `../shared/reference` beside the repository, or `None` (with a printed notice) when a fresh
/// clone has no such folder, so reference tests skip instead of failing.
#[allow(dead_code)]
pub fn reference() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
    if dir.is_dir() {
        Some(dir)
    } else {
        skip_notice("../shared/reference not found");
        None
    }
}

/// Runs the `sidlens` binary built for these tests with `args`.
#[allow(dead_code)]
pub fn sidlens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sidlens"))
        .args(args)
        .output()
        .expect("run sidlens")
}
