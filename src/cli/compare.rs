//! `sidlens compare`: several tokenizers side by side at one or several K, ranked by Hit@K and
//! by ItemHit@K, with the pairs whose order flips (the paper's ranking reversal), seeds as
//! mean ± std, and paired significance tests between every pair.

use std::path::PathBuf;

use crate::compare::significance::PairedOptions;
use crate::load::Interactions;
use crate::load::TokenizerFiles;
use crate::load::dataset::Dataset;
use crate::load::tokenizer::duplicate_name;
use crate::metrics::Decode;
use crate::report::compare::{CompareReportJson, mark_legend, report_flip_lines, report_table};
use crate::report::document::{Document, TableStyle};
use crate::usecase::compare_tokenizers_decoded;

use super::Globals;
use super::eval::{CompatArg, parse_decode, parse_k};
use super::print::print_json;
use super::progress::Bar;
use super::significance_args::SignificanceArgs;
use super::table_format::{TableFormat, print_csv};

/// Arguments of `sidlens compare`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["dir", "run"])))]
pub struct Args {
    /// A dataset folder in the CollisionGenRec layout: every variant under indexes/ is compared.
    #[arg(value_name = "DIR", conflicts_with = "run")]
    dir: Option<PathBuf>,
    /// With DIR: a folder holding more beams, named `<VARIANT>.per_user.json[l]` or, one per
    /// seed, `<VARIANT>.seed<N>.per_user.json[l]`.
    #[arg(long, value_name = "D", requires = "dir")]
    beams_dir: Option<PathBuf>,
    /// A tokenizer given by its files, `NAME=INDEX[,BEAMS...]` (repeat for each tokenizer;
    /// several BEAMS = one per seed).
    #[arg(long = "run", value_name = "NAME=INDEX[,BEAMS...]", value_parser = TokenizerFiles::parse_spec)]
    run: Vec<TokenizerFiles>,
    /// Cut-offs K (comma-separated): one table with every K.
    #[arg(long, value_name = "K,...", value_delimiter = ',', default_values_t = [10], value_parser = parse_k)]
    k: Vec<usize>,
    /// Semantics: `faithful` (default) or `cce-py` (the reference cce.py exactly).
    #[arg(long, value_enum, default_value_t = CompatArg::Faithful)]
    compat: CompatArg,
    /// Codebook size V of every index (default: each index's largest code + 1).
    #[arg(long, value_name = "V", value_parser = super::at_least_one)]
    codebook_size: Option<usize>,
    /// Random sign flips of the paired randomization test (0 skips it).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    permutations: usize,
    /// Resamples of the paired bootstrap confidence interval (0 skips it).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    bootstrap: usize,
    /// Seed of the randomization test and the bootstrap.
    #[arg(long, value_name = "S", default_value_t = 42)]
    seed: u64,
    #[command(flatten)]
    significance: SignificanceArgs,
    #[command(flatten)]
    format: TableFormat,
    /// Item-level credit shown beside CCE: `cce` (none), `popular` (each SID decodes to its
    /// most popular item in the training interactions) or `random:SEED`.
    #[arg(long, value_name = "MODE", default_value = "cce", value_parser = parse_decode)]
    decode: Decode,
    /// Interactions for `--decode popular` (default: DIR's `<DS>.inter.json`).
    #[arg(long, value_name = "FILE")]
    interactions: Option<PathBuf>,
}

/// Runs `sidlens compare`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let (runs, dataset_interactions, dataset_warnings) = match &args.dir {
        Some(dir) => {
            let ds = Dataset::discover(dir, args.beams_dir.as_deref())?;
            (ds.tokenizers(), ds.interactions.clone(), ds.warnings())
        }
        None => (args.run.clone(), None, Vec::new()),
    };
    let interactions = match args.interactions.clone().or(dataset_interactions) {
        Some(path) if args.decode.needs_popularity() => Some(Interactions::load(&path)?),
        None if args.decode.needs_popularity() => anyhow::bail!(
            "--decode popular needs --interactions FILE (its training part, all but each user's last two items, gives the popularity)"
        ),
        _ => None,
    };
    if let Some(name) = duplicate_name(&runs) {
        anyhow::bail!("two tokenizers are named {name:?}; give each --run its own NAME");
    }
    let mut ks = args.k.clone();
    ks.dedup();
    let settings = args.significance.settings(PairedOptions {
        permutations: args.permutations,
        bootstrap: args.bootstrap,
        seed: args.seed,
    });
    let bar = Bar::new(globals.quiet);
    let mut report = compare_tokenizers_decoded(
        &runs,
        &ks,
        args.compat.into(),
        args.codebook_size,
        settings,
        (args.decode, interactions.as_ref()),
        &bar,
    )?;
    drop(bar);
    report.warnings.extend(dataset_warnings);
    if report.nothing_evaluated() {
        for w in &report.warnings {
            super::print::message(&format!("warning: {w}"));
        }
        anyhow::bail!(
            "nothing to compare: none of the {} tokenizers has beams (see the warnings above)",
            runs.len()
        );
    }
    args.format.warn(&report.warnings);
    if args.format.json {
        return print_json(&CompareReportJson::new(&report));
    }
    if args.format.csv {
        return print_csv(&report_table(&report, true));
    }
    let flips = report_flip_lines(&report);
    let legend = mark_legend(&report);
    let mut doc = Document::new();
    doc.table(report_table(&report, false));
    match args.format.style() {
        Some(TableStyle::Latex) => {}
        Some(TableStyle::Markdown) => {
            if let Some(l) = &legend {
                doc.prose(format!("{l}\n"));
            }
            for w in &report.warnings {
                doc.prose(format!("- warning: {w}\n"));
            }
            if !flips.is_empty() {
                doc.prose(flips.iter().map(|f| format!("- {f}\n")).collect::<String>());
            }
        }
        _ => {
            let mut notes = legend.map(|l| format!("{l}\n")).unwrap_or_default();
            for w in &report.warnings {
                notes.push_str(&format!("warning: {w}\n"));
            }
            notes.push('\n');
            if flips.is_empty() {
                notes.push_str("no rank flips between SID-level and item-level metrics\n");
            }
            for f in &flips {
                notes.push_str(&format!("rank flip: {f}\n"));
            }
            doc.prose(notes);
        }
    }
    args.format.print(&doc)
}
