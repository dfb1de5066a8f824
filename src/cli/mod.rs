//! Command-line front end: argument parsing (clap) and one module per subcommand. Each
//! subcommand loads inputs through the library, asks it for a report, and prints it as a
//! table (default) or JSON (`--json`). Data goes to stdout; messages and progress to stderr.

mod beams;
mod compare;
mod demo;
mod diff;
mod eval;
mod groups;
mod print;
mod progress;
mod project;
mod stats;
mod synth;
mod tokenize;
mod tui;
mod zcr;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::sid_scheme::SidScheme;

/// Inspect Semantic-ID tokenizers for generative recommendation: collision groups,
/// collision-corrected metrics (ItemHit/ItemNDCG) and zero-collision reassignment (ZCR).
#[derive(Debug, Parser)]
#[command(name = "sidlens", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Do not draw progress bars on stderr.
    #[arg(long, short, global = true)]
    quiet: bool,
    /// How SID strings and tokens are written in the inputs: `auto` (detected from each
    /// file), a name (letters, upper, openonerec, vocab, dash, comma, integers) or an
    /// example such as '<A_1><B_2>' or '1-2-3'.
    #[arg(long, global = true, value_name = "SCHEME", default_value = "auto", value_parser = parse_sid_format)]
    sid_format: SidFormatArg,
}

/// A parsed `--sid-format` (`None`: detect from each file).
#[derive(Debug, Clone, Copy)]
struct SidFormatArg(Option<SidScheme>);

fn parse_sid_format(s: &str) -> Result<SidFormatArg, String> {
    if s == "auto" {
        return Ok(SidFormatArg(None));
    }
    SidScheme::from_name_or_example(s)
        .map(|scheme| SidFormatArg(Some(scheme)))
        .ok_or_else(|| {
            format!(
                "{s:?} is no SID scheme: use auto, letters, upper, openonerec, vocab, dash, comma, integers, or an example SID such as '<A_1><B_2>'"
            )
        })
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Collision statistics of an index (collision rate, g_max, capacity, per-level usage).
    Stats(stats::Args),
    /// List collision groups, largest first, with item ids and titles.
    Groups(groups::Args),
    /// Hit@K / NDCG@K against collision-corrected ItemHit@K / ItemNDCG@K for a beams file.
    Eval(eval::Args),
    /// Tokenizers side by side: collision rate, Hit@K vs ItemHit@K, ranks and rank flips.
    Compare(compare::Args),
    /// 2-D t-SNE projection of item embeddings (the TUI's scatter), as a table, CSV or JSON.
    Project(project::Args),
    /// Zero-collision reassignment: optimal ZCR next to the greedy MQL4GRec baseline.
    Zcr(zcr::Args),
    /// Compare two indexes of the same items (is the second a valid ZCR of the first?).
    Diff(diff::Args),
    /// SID lists per user from a co-occurrence proxy generator (a baseline, not a trained model).
    Beams(beams::Args),
    /// Generate the demo dataset (what `sidlens` opens with no arguments).
    Demo(demo::Args),
    /// Build an RK-Means (residual k-means) SID index from item embeddings.
    Tokenize(tokenize::Args),
    /// Write a synthetic dataset of any size (index, beams, latents, codebooks).
    Synth(synth::Args),
    /// The terminal UI: collision groups, metrics, reassignment and a t-SNE scatter.
    Tui(tui::Args),
}

/// Global options every subcommand sees.
#[derive(Debug, Clone, Copy)]
pub struct Globals {
    /// Draw no progress bars.
    pub quiet: bool,
    /// The SID token scheme of the inputs, when given (`--sid-format`).
    pub sid_format: Option<SidScheme>,
}

/// Parses the command line, runs it, and maps the outcome to an exit code:
/// 0 ok, 1 runtime error, 2 usage error.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let globals = Globals {
        quiet: cli.quiet,
        sid_format: cli.sid_format.0,
    };
    let result = match cli.command {
        Some(Command::Stats(args)) => stats::run(args, globals),
        Some(Command::Groups(args)) => groups::run(args, globals),
        Some(Command::Eval(args)) => eval::run(args, globals),
        Some(Command::Compare(args)) => compare::run(args, globals),
        Some(Command::Project(args)) => project::run(args, globals),
        Some(Command::Zcr(args)) => zcr::run(args, globals),
        Some(Command::Diff(args)) => diff::run(args, globals),
        Some(Command::Tokenize(args)) => tokenize::run(args, globals),
        Some(Command::Beams(args)) => beams::run(args, globals),
        Some(Command::Demo(args)) => demo::run(args, globals),
        Some(Command::Synth(args)) => synth::run(args, globals),
        Some(Command::Tui(args)) => tui::run(args, globals),
        None => tui::run_demo(globals),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if print::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if e.is::<clap::Error>() => {
            if let Some(usage) = e.downcast_ref::<clap::Error>() {
                let _ = usage.print();
            }
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("sidlens: error: {e:#}");
            ExitCode::from(1)
        }
    }
}
