//! `sidlens compare`: several tokenizers side by side at one K, ranked by Hit@K and by
//! ItemHit@K, with the pairs whose order flips (the paper's ranking reversal).

use std::path::PathBuf;

use crate::load::TokenizerFiles;
use crate::load::dataset::Dataset;
use crate::load::tokenizer::duplicate_name;
use crate::report::compare::{CompareJson, flip_lines, table};
use crate::report::{csv, latex, markdown, text};
use crate::usecase::compare_tokenizers;

use super::Globals;
use super::eval::{CompatArg, parse_k};
use super::print::{print_json, print_text};
use super::progress::Bar;

/// Arguments of `sidlens compare`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["dir", "run"])))]
#[command(group(clap::ArgGroup::new("format").args(["json", "csv", "markdown", "latex"])))]
pub struct Args {
    /// A dataset folder in the CollisionGenRec layout: every variant under indexes/ is compared.
    #[arg(value_name = "DIR", conflicts_with = "run")]
    dir: Option<PathBuf>,
    /// With DIR: a folder holding more beams, named `<VARIANT>.per_user.json[l]`.
    #[arg(long, value_name = "D", requires = "dir")]
    beams_dir: Option<PathBuf>,
    /// A tokenizer given by its files, `NAME=INDEX[,BEAMS...]` (repeat for each tokenizer).
    #[arg(long = "run", value_name = "NAME=INDEX[,BEAMS...]", value_parser = TokenizerFiles::parse_spec)]
    run: Vec<TokenizerFiles>,
    /// The cut-off K.
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = parse_k)]
    k: usize,
    /// Semantics: `faithful` (default) or `cce-py` (the reference cce.py exactly).
    #[arg(long, value_enum, default_value_t = CompatArg::Faithful)]
    compat: CompatArg,
    /// Codebook size V of every index (default: each index's largest code + 1).
    #[arg(long, value_name = "V")]
    codebook_size: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Print CSV.
    #[arg(long)]
    csv: bool,
    /// Print a Markdown table.
    #[arg(long)]
    markdown: bool,
    /// Print a LaTeX (booktabs) table.
    #[arg(long)]
    latex: bool,
}

/// Runs `sidlens compare`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let runs = match &args.dir {
        Some(dir) => Dataset::discover(dir, args.beams_dir.as_deref())?.tokenizers(),
        None => args.run.clone(),
    };
    if let Some(name) = duplicate_name(&runs) {
        anyhow::bail!("two tokenizers are named {name:?}; give each --run its own NAME");
    }
    let bar = Bar::new(globals.quiet);
    let comparison =
        compare_tokenizers(&runs, args.k, args.compat.into(), args.codebook_size, &bar)?;
    drop(bar);
    if args.json {
        return print_json(&CompareJson::new(&comparison));
    }
    let t = table(&comparison);
    let flips = flip_lines(&comparison);
    let out = if args.csv {
        csv::render(&t)
    } else if args.latex {
        latex::render(&t)
    } else if args.markdown {
        let mut out = markdown::render(&t);
        if !flips.is_empty() {
            out.push('\n');
            for f in &flips {
                out.push_str(&format!("- {f}\n"));
            }
        }
        out
    } else {
        let mut out = text::render(&t);
        out.push('\n');
        if flips.is_empty() {
            out.push_str(&format!(
                "no rank flips between Hit@{k} and ItemHit@{k}\n",
                k = comparison.k
            ));
        }
        for f in &flips {
            out.push_str(&format!("rank flip: {f}\n"));
        }
        out
    };
    print_text(&out)
}
