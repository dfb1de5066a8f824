//! Command-line front end: argument parsing (clap) and one module per subcommand. Each
//! subcommand loads inputs through the library, asks it for a report, and prints it as a
//! table (default), JSON, CSV, Markdown or LaTeX (`table_format`). Data goes to stdout; messages and progress to stderr.

mod beams;
mod cache;
mod cf;
mod compare;
mod completions;
mod demo;
mod diff;
mod eval;
mod groups;
mod item;
mod man;
mod plot;
mod print;
mod progress;
mod project;
mod report;
mod significance_args;
mod stats;
mod synth;
mod table_format;
mod tokenize;
mod tui;
mod zcr;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::sid::scheme::SidScheme;

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
    /// With no subcommand (the demo TUI): do not re-evaluate when a beams file changes.
    #[arg(long)]
    no_watch: bool,
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
    /// One item through every tokenizer of a dataset folder: SID, group, groupmates, moves.
    Item(item::Args),
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
    /// Collaborative embedding of interactions: PPMI of item co-occurrences + truncated SVD.
    Cf(cf::Args),
    /// Generate the demo dataset (what `sidlens` opens with no arguments).
    Demo(demo::Args),
    /// Build an RK-Means (residual k-means) SID index from item embeddings.
    Tokenize(tokenize::Args),
    /// Write a synthetic dataset of any size (index, beams, latents, codebooks).
    Synth(synth::Args),
    /// The terminal UI: collision groups, metrics, reassignment and a t-SNE scatter.
    Tui(tui::Args),
    /// The projection cache: its directory, or clear it.
    Cache(cache::Args),
    /// The paper's figures as SVG or PNG: inflation, ranks, curves, zcr, scatter.
    Plot(plot::Args),
    /// One self-contained HTML report to share: compare tables, figures, ZCR, groups, provenance.
    Report(report::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
    /// Print the man page (or write one per subcommand with --out DIR).
    Man(man::Args),
}

/// A count that must be at least 1 (`--codebook-size`, `--top`, `synth` sizes): 0 is a
/// usage error (exit 2), not a runtime one.
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("expected a whole number of at least 1, not {s:?}")),
    }
}

/// Global options every subcommand sees.
#[derive(Debug, Clone, Copy)]
pub struct Globals {
    /// Draw no progress bars.
    pub quiet: bool,
    /// The SID token scheme of the inputs, when given (`--sid-format`).
    pub sid_format: Option<SidScheme>,
}

/// Removes unfinished outputs' temporary files when SIGINT, SIGTERM or SIGHUP ends the run,
/// then exits as the signal would (128 + its number).
fn remove_temp_files_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            crate::io::write::remove_unfinished();
            std::process::exit(128 + signal);
        }
    });
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
    if !matches!(cli.command, Some(Command::Tui(_)) | None) {
        // The TUI handles its own signals and restores the terminal; elsewhere a signal must
        // not leave a half-written output's temporary file behind. A one-shot command maps
        // its large inputs (see `map_large_inputs` for why the TUI does not).
        remove_temp_files_on_signals();
        crate::io::input::map_large_inputs(true);
    }
    let result = match cli.command {
        Some(Command::Stats(args)) => stats::run(args, globals),
        Some(Command::Groups(args)) => groups::run(args, globals),
        Some(Command::Item(args)) => item::run(args, globals),
        Some(Command::Eval(args)) => eval::run(args, globals),
        Some(Command::Compare(args)) => compare::run(args, globals),
        Some(Command::Project(args)) => project::run(args, globals),
        Some(Command::Zcr(args)) => zcr::run(args, globals),
        Some(Command::Diff(args)) => diff::run(args, globals),
        Some(Command::Tokenize(args)) => tokenize::run(args, globals),
        Some(Command::Beams(args)) => beams::run(args, globals),
        Some(Command::Demo(args)) => demo::run(args, globals),
        Some(Command::Cf(args)) => cf::run(args, globals),
        Some(Command::Synth(args)) => synth::run(args, globals),
        Some(Command::Tui(args)) => tui::run(args, globals),
        Some(Command::Cache(args)) => cache::run(args, globals),
        Some(Command::Plot(args)) => plot::run(args, globals),
        Some(Command::Report(args)) => report::run(args, globals),
        Some(Command::Completions(args)) => completions::run(args),
        Some(Command::Man(args)) => man::run(args),
        None => tui::run_demo(globals, !cli.no_watch),
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
            print::message(&format!("sidlens: error: {e:#}"));
            ExitCode::from(1)
        }
    }
}
