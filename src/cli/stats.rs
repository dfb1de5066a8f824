//! `sidlens stats`: collision statistics of one index.

use std::path::PathBuf;

use crate::collab::interactions::{CollisionInteractions, tier_split_text};
use crate::collision::Collisions;
use crate::collision::stats::IndexStats;
use crate::load::{Interactions, SidIndex};
use crate::reassign::paper_sidecars::{ZcrMode, read_zcr_mode};
use crate::report;
use crate::report::document::Document;
use serde::Serialize;

use super::Globals;
use super::print::print_json;
use super::table_format::{TableFormat, print_csv};

/// Arguments of `sidlens stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The SID index (`{"0": ["<a_1>", "<b_2>", ...], ...}`).
    #[arg(long, value_name = "FILE")]
    index: PathBuf,
    /// Codebook size V (default: the largest code + 1).
    #[arg(long, value_name = "V", value_parser = super::at_least_one)]
    codebook_size: Option<usize>,
    /// Interactions `{"user": [items...]}`: adds benign collisions (items of a group that
    /// co-occur in some user's training history) and head/mid/tail items over collision groups.
    #[arg(long, value_name = "FILE")]
    interactions: Option<PathBuf>,
    #[command(flatten)]
    format: TableFormat,
}

/// What `--json` prints: the statistics, the token scheme read, and the paper's `zcr_mode`.
#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    stats: &'a IndexStats,
    sid_format: String,
    zcr_mode: ZcrMode,
    #[serde(skip_serializing_if = "Option::is_none")]
    interactions: Option<InteractionsJson<'a>>,
}

/// `stats --json --interactions FILE`: the file and what it says about the collisions.
#[derive(Serialize)]
struct InteractionsJson<'a> {
    path: String,
    #[serde(flatten)]
    diagnostics: &'a CollisionInteractions,
}

/// Runs `sidlens stats`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let index = SidIndex::load_as(&args.index, args.codebook_size, globals.sid_format)?;
    let collisions = Collisions::new(&index);
    let stats = IndexStats::compute(&index, &collisions);
    let zcr_mode = read_zcr_mode(&args.index);
    let diagnostics = match &args.interactions {
        Some(path) => Some(CollisionInteractions::compute(
            &index,
            &collisions,
            &Interactions::load(path)?,
        )),
        None => None,
    };
    if args.format.json {
        return print_json(&Output {
            stats: &stats,
            sid_format: index.scheme().example(),
            zcr_mode,
            interactions: args
                .interactions
                .as_ref()
                .zip(diagnostics.as_ref())
                .map(|(p, d)| InteractionsJson {
                    path: p.display().to_string(),
                    diagnostics: d,
                }),
        });
    }
    if args.format.csv {
        let mut overview = report::stats::csv_overview(&stats);
        overview.push(vec!["SID format".into(), index.scheme().example()]);
        overview.push(vec![
            "zcr_mode (paper sidecar)".into(),
            zcr_mode.to_string(),
        ]);
        return print_csv(&overview);
    }
    let mut doc = Document::new();
    doc.prose(format!("{}\n", args.index.display()));
    let mut overview = report::stats::overview(&stats);
    overview.push(vec!["SID format".into(), index.scheme().example()]);
    overview.push(vec![
        "zcr_mode (paper sidecar)".into(),
        zcr_mode.to_string(),
    ]);
    doc.table(overview);
    doc.prose("\n");
    doc.table(report::stats::levels(&stats));
    doc.prose(report::stats::dead_code_lines(&stats, 32));
    doc.prose("\n");
    doc.table(report::stats::histogram(&stats));
    if let Some(d) = &diagnostics {
        doc.prose("\n");
        doc.table(report::stats::interactions_overview(d));
        doc.prose("\n");
        doc.table(report::stats::tiers(d));
        doc.prose(format!("{}\n", tier_split_text()));
    }
    args.format.print(&doc)
}
