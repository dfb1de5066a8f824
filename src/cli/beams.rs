//! `sidlens beams`: SID lists from the co-occurrence proxy generator (a simple, transparent
//! baseline, not a trained generative model), in the reference per-user format.

use std::path::PathBuf;

use crate::generate::proxy_beams;
use crate::io::write::{ensure_not_input, write_atomically};
use crate::load::{Interactions, SidIndex};
use crate::report::format::text;
use crate::report::{Align, Table};

use super::Globals;
use super::print::{print_json, print_text};
use super::progress::Bar;

/// Arguments of `sidlens beams`.
#[derive(Debug, clap::Args)]
#[command(
    long_about = "Writes top-WIDTH SID lists per user from a co-occurrence proxy generator: \
    leave-one-out (last item = target, second-to-last = validation), item-to-item co-occurrence \
    counted on the sequences without their last two items, item scores summed into SID scores. \
    A simple baseline for quick tokenizer checks without a GPU, not a trained generative model."
)]
pub struct Args {
    /// The SID index.
    #[arg(long, value_name = "FILE")]
    index: PathBuf,
    /// Interactions, `{"user": [item ids in time order], ...}`.
    #[arg(long, value_name = "FILE")]
    interactions: PathBuf,
    /// SIDs per user.
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    width: u32,
    /// Codebook size V (default: the largest code + 1).
    #[arg(long, value_name = "V", value_parser = super::at_least_one)]
    codebook_size: Option<usize>,
    /// Output file: a JSON array of per-user records, or JSON Lines when it ends in `.jsonl`.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Print the run summary as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `sidlens beams`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    ensure_not_input(&args.out, &[&args.index, &args.interactions])?;
    let index = SidIndex::load_as(&args.index, args.codebook_size, globals.sid_format)?;
    let interactions = Interactions::load(&args.interactions)?;
    let bar = Bar::new(globals.quiet);
    let beams = proxy_beams::generate(&index, &interactions, args.width as usize, &bar)?;
    drop(bar);
    let jsonl = args.out.extension().is_some_and(|e| e == "jsonl");
    write_atomically(&args.out, |w| beams.write(&index, &interactions, jsonl, w))?;
    let s = &beams.summary;
    if args.json {
        return print_json(s);
    }
    let mut table = Table::new(&[("", Align::Left), ("value", Align::Right)]);
    for (label, value) in [
        ("users", s.n_users),
        ("users written", s.n_users_written),
        ("users with < 2 items (skipped)", s.n_users_too_short),
        ("targets not in the index", s.n_targets_not_in_index),
        ("items not in the index", s.n_items_not_in_index),
        ("co-occurring item pairs", s.n_cooccurrence_pairs),
        ("SIDs per user", s.width),
    ] {
        table.push(vec![label.to_string(), value.to_string()]);
    }
    let mut out = text::render(&table);
    out.push_str(&format!("\nwrote {}\n", args.out.display()));
    print_text(&out)
}
