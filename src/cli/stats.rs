//! `sidlens stats`: collision statistics of one index.

use std::path::PathBuf;

use crate::collision::Collisions;
use crate::load::SidIndex;
use crate::reassign::paper_sidecars::{ZcrMode, read_zcr_mode};
use crate::report::{self, text};
use crate::stats::IndexStats;
use serde::Serialize;

use super::Globals;
use super::print::{print_json, print_text};

/// Arguments of `sidlens stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The SID index (`{"0": ["<a_1>", "<b_2>", ...], ...}`).
    #[arg(long, value_name = "FILE")]
    index: PathBuf,
    /// Codebook size V (default: the largest code + 1).
    #[arg(long, value_name = "V")]
    codebook_size: Option<usize>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// What `--json` prints: the statistics, the token scheme read, and the paper's `zcr_mode`.
#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    stats: &'a IndexStats,
    sid_format: String,
    zcr_mode: ZcrMode,
}

/// Runs `sidlens stats`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let index = SidIndex::load_as(&args.index, args.codebook_size, globals.sid_format)?;
    let stats = IndexStats::compute(&index, &Collisions::new(&index));
    let zcr_mode = read_zcr_mode(&args.index);
    if args.json {
        return print_json(&Output {
            stats: &stats,
            sid_format: index.scheme().example(),
            zcr_mode,
        });
    }
    let mut out = format!("{}\n", args.index.display());
    let mut overview = report::stats::overview(&stats);
    overview.push(vec!["SID format".into(), index.scheme().example()]);
    overview.push(vec![
        "zcr_mode (paper sidecar)".into(),
        zcr_mode.to_string(),
    ]);
    out.push_str(&text::render(&overview));
    out.push('\n');
    out.push_str(&text::render(&report::stats::levels(&stats)));
    out.push('\n');
    out.push_str(&text::render(&report::stats::histogram(&stats)));
    print_text(&out)
}
