//! `sidlens stats`: collision statistics of one index.

use std::path::PathBuf;

use crate::collab::interactions::{CollisionInteractions, tier_split_text};
use crate::collision::stats::IndexStats;
use crate::load::TokenizerFiles;
use crate::reassign::paper_sidecars::ZcrMode;
use crate::report;
use crate::report::document::Document;
use crate::usecase::Tokenizer;
use crate::usecase::stats::IndexReport;
use serde::Serialize;

use super::Globals;
use super::print::print_json;
use super::table_format::{TableFormat, print_csv};

/// Arguments of `sidlens stats`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("index_file").required(true).args(["file", "index"])))]
pub struct Args {
    /// The SID index (`{"0": ["<a_1>", "<b_2>", ...], ...}`).
    #[arg(value_name = "INDEX")]
    file: Option<PathBuf>,
    /// The SID index, given as a flag instead of INDEX.
    #[arg(long, value_name = "FILE")]
    index: Option<PathBuf>,
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
    let index_path = args.index.clone().or(args.file.clone()).unwrap_or_default();
    let tokenizer = Tokenizer::open(
        TokenizerFiles::index_only("index", &index_path),
        args.codebook_size,
        globals.sid_format,
    )?;
    let IndexReport {
        stats,
        sid_format,
        zcr_mode,
        interactions,
    } = IndexReport::of(&tokenizer, args.interactions.as_deref())?;
    let diagnostics = interactions.as_ref().map(|(_, d)| d);
    if args.format.json {
        return print_json(&Output {
            stats: &stats,
            sid_format: sid_format.clone(),
            zcr_mode,
            interactions: interactions.as_ref().map(|(p, d)| InteractionsJson {
                path: p.display().to_string(),
                diagnostics: d,
            }),
        });
    }
    if args.format.csv {
        let mut overview = report::stats::csv_overview(&stats);
        overview.push(vec!["SID format".into(), sid_format.clone()]);
        overview.push(vec![
            "zcr_mode (paper sidecar)".into(),
            zcr_mode.to_string(),
        ]);
        return print_csv(&overview);
    }
    let mut doc = Document::new();
    doc.prose(format!("{}\n", index_path.display()));
    let mut overview = report::stats::overview(&stats);
    overview.push(vec!["SID format".into(), sid_format.clone()]);
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
    if let Some(d) = diagnostics {
        doc.prose("\n");
        doc.table(report::stats::interactions_overview(d));
        doc.prose("\n");
        doc.table(report::stats::tiers(d));
        doc.prose(format!("{}\n", tier_split_text()));
    }
    args.format.print(&doc)
}
