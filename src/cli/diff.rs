//! `sidlens diff`: how other indexes of the same items differ from a first one (changed codes
//! per level, collisions left, ΔD with latents), and whether each is a valid zero-collision
//! reassignment of it. Several OTHERs give one row per remedy.

use std::path::PathBuf;

use serde::Serialize;

use crate::load::SidIndex;
use crate::reassign::diff::{IndexDiff, diff_priced};
use crate::report::diff::{changes_table, remedies_csv_table, remedies_table, summary_table};
use crate::report::document::Document;
use crate::usecase::cost_model;

use super::Globals;
use super::print::print_json;
use super::progress::Bar;
use super::table_format::{TableFormat, print_csv};

/// Arguments of `sidlens diff`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first index (e.g. the native one).
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// Indexes of the same items (e.g. after ZCR, greedy, MQL4GRec, append), each `FILE` or
    /// `NAME=FILE`; more than one gives one row per index.
    #[arg(value_name = "OTHER", required = true, num_args = 1..)]
    others: Vec<String>,
    /// Per-item latents of BASE (.npy, .safetensors or .pt, N×d): adds ΔD, the change in
    /// quantisation error.
    #[arg(long, value_name = "FILE")]
    latents: Option<PathBuf>,
    /// BASE's codebooks (.npy, .safetensors or .pt, L×V×d). Without them they are estimated from
    /// the latents.
    #[arg(long, value_name = "FILE", requires = "latents")]
    codebooks: Option<PathBuf>,
    /// Codebook size V of BASE (default: from the codebooks, else the largest code + 1).
    #[arg(long, value_name = "V")]
    codebook_size: Option<usize>,
    /// How many changed items the table lists with one OTHER (JSON lists all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    show: usize,
    #[command(flatten)]
    format: TableFormat,
}

/// `--json` with several OTHERs.
#[derive(Serialize)]
struct ManyJson<'a> {
    base: String,
    diffs: Vec<NamedDiff<'a>>,
}

#[derive(Serialize)]
struct NamedDiff<'a> {
    name: &'a str,
    index: String,
    #[serde(flatten)]
    diff: &'a IndexDiff,
}

/// Runs `sidlens diff`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let base = SidIndex::load_as(&args.base, args.codebook_size, globals.sid_format)?;
    let others: Vec<(String, PathBuf)> = args.others.iter().map(|o| named(o)).collect();
    let bar = Bar::new(globals.quiet);
    let cost = cost_model(
        &base,
        args.latents.as_deref(),
        args.codebooks.as_deref(),
        &bar,
    )?;
    let mut diffs = Vec::with_capacity(others.len());
    for (_, path) in &others {
        let other = SidIndex::load_as(path, None, globals.sid_format)?;
        diffs.push(diff_priced(&base, &other, cost.as_ref())?);
    }
    drop(bar);
    let names: Vec<&str> = others.iter().map(|(n, _)| n.as_str()).collect();
    if args.format.csv {
        return print_csv(&remedies_csv_table(&names, &diffs));
    }
    if let [d] = diffs.as_slice() {
        return print_one(&args, &others[0].1, d);
    }
    if args.format.json {
        return print_json(&ManyJson {
            base: args.base.display().to_string(),
            diffs: others
                .iter()
                .zip(&diffs)
                .map(|((name, path), diff)| NamedDiff {
                    name,
                    index: path.display().to_string(),
                    diff,
                })
                .collect(),
        });
    }
    let mut doc = Document::new();
    doc.prose(format!("base: {}\n", args.base.display()));
    doc.table(remedies_table(&names, &diffs));
    args.format.print(&doc)
}

/// `NAME=FILE`, or `FILE` named by itself.
fn named(arg: &str) -> (String, PathBuf) {
    match arg.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => {
            (name.to_string(), PathBuf::from(file))
        }
        _ => (arg.to_string(), PathBuf::from(arg)),
    }
}

fn print_one(args: &Args, other: &std::path::Path, d: &IndexDiff) -> anyhow::Result<()> {
    if args.format.json {
        return print_json(d);
    }
    let mut doc = Document::new();
    doc.prose(format!("{} -> {}\n", args.base.display(), other.display()));
    doc.table(summary_table(d));
    if !d.changes.is_empty() {
        doc.prose("\n");
        doc.table(changes_table(d, args.show));
        if d.changes.len() > args.show {
            doc.prose(format!(
                "... and {} more (--show N, or --json for all)\n",
                d.changes.len() - args.show
            ));
        }
    }
    args.format.print(&doc)
}
