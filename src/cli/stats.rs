//! `sidlens stats`: collision statistics of one index.

use std::path::PathBuf;

use crate::collision::Collisions;
use crate::load::SidIndex;
use crate::report::{self, text};
use crate::stats::IndexStats;

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

/// Runs `sidlens stats`.
pub fn run(args: Args, _globals: Globals) -> anyhow::Result<()> {
    let index = SidIndex::load(&args.index, args.codebook_size)?;
    let stats = IndexStats::compute(&index, &Collisions::new(&index));
    if args.json {
        return print_json(&stats);
    }
    let mut out = format!("{}\n", args.index.display());
    out.push_str(&text::render(&report::stats::overview(&stats)));
    out.push('\n');
    out.push_str(&text::render(&report::stats::levels(&stats)));
    out.push('\n');
    out.push_str(&text::render(&report::stats::histogram(&stats)));
    print_text(&out)
}
