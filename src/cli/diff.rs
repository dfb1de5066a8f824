//! `sidlens diff`: how a second index of the same items differs from a first one, and
//! whether it is a valid zero-collision reassignment of it.

use std::path::PathBuf;

use crate::diff::diff;
use crate::load::SidIndex;
use crate::report::diff::{changes_table, summary_table};
use crate::report::text;

use super::Globals;
use super::print::{print_json, print_text};

/// Arguments of `sidlens diff`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first index (e.g. the native one).
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// The second index, of the same items (e.g. after ZCR).
    #[arg(value_name = "OTHER")]
    other: PathBuf,
    /// How many changed items the table lists (JSON lists all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    show: usize,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// Runs `sidlens diff`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let base = SidIndex::load_as(&args.base, None, globals.sid_format)?;
    let other = SidIndex::load_as(&args.other, None, globals.sid_format)?;
    let d = diff(&base, &other)?;
    if args.json {
        return print_json(&d);
    }
    let mut out = format!("{} -> {}\n", args.base.display(), args.other.display());
    out.push_str(&text::render(&summary_table(&d)));
    if !d.changes.is_empty() {
        out.push('\n');
        out.push_str(&text::render(&changes_table(&d, args.show)));
        if d.changes.len() > args.show {
            out.push_str(&format!(
                "... and {} more (--show N, or --json for all)\n",
                d.changes.len() - args.show
            ));
        }
    }
    print_text(&out)
}
