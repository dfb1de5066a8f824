//! `sidlens cf`: the collaborative (PPMI + truncated SVD) embedding of an interactions file.

use std::path::PathBuf;
use std::time::Instant;

use crate::collab::embedding::SolverReport;
use crate::collab::{CfConfig, ItemRows, Window, embed};
use crate::io::write::{ensure_not_input, write_npy};
use crate::load::{Interactions, SidIndex};
use serde::Serialize;

use super::Globals;
use super::print::{print_json, print_text};
use super::progress::Bar;

/// Arguments of `sidlens cf`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Interactions, `{"user": [item ids, oldest first]}`.
    #[arg(long, value_name = "FILE")]
    interactions: PathBuf,
    /// The SID index: rows follow its items (n = its item count). Without it, row i = item
    /// id i and n = the largest id + 1.
    #[arg(long, value_name = "FILE")]
    index: Option<PathBuf>,
    /// Where to write the N × k float32 embedding (.npy).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Dimensions d_cf (the embedding has min(d_cf, n − 2)).
    #[arg(long, value_name = "K", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    dims: u32,
    /// Co-occurrence window: each item pairs with the next W items.
    #[arg(long, value_name = "W", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..))]
    window: u32,
    /// Items held out at the end of each sequence (test and validation targets).
    #[arg(long, value_name = "H", default_value_t = 2)]
    holdout: u32,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// What `sidlens cf --json` prints.
#[derive(Debug, Serialize)]
struct Summary {
    interactions: String,
    out: String,
    n_items: usize,
    dims: usize,
    n_users: usize,
    users_used: usize,
    users_skipped: usize,
    cooccurrence_cells: usize,
    ppmi_cells: usize,
    active_items: usize,
    zero_rows: usize,
    singular_values: Vec<f64>,
    window: Window,
    solver: SolverReport,
    seconds: f64,
}

/// Runs `sidlens cf`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let mut inputs = vec![args.interactions.as_path()];
    if let Some(index) = &args.index {
        inputs.push(index);
    }
    ensure_not_input(&args.out, &inputs)?;
    let interactions = Interactions::load(&args.interactions)?;
    let rows = match &args.index {
        Some(path) => ItemRows::by_index(
            &interactions,
            &SidIndex::load_as(path, None, globals.sid_format)?,
        )?,
        None => ItemRows::by_id(&interactions)?,
    };
    let config = CfConfig {
        window: Window {
            size: args.window as usize,
            holdout: args.holdout as usize,
        },
        dims: args.dims as usize,
    };
    let start = Instant::now();
    let bar = Bar::new(globals.quiet);
    let embedding = embed(&interactions, &rows, &config, &bar)?;
    drop(bar);
    let seconds = start.elapsed().as_secs_f64();
    write_npy(&args.out, &embedding.vectors)?;
    let summary = Summary {
        interactions: args.interactions.display().to_string(),
        out: args.out.display().to_string(),
        n_items: embedding.vectors.nrows(),
        dims: embedding.vectors.ncols(),
        n_users: interactions.n_users(),
        users_used: embedding.counts.users_used,
        users_skipped: embedding.counts.users_skipped,
        cooccurrence_cells: embedding.counts.cooccurrence_cells,
        ppmi_cells: embedding.ppmi_cells,
        active_items: embedding.active_items,
        zero_rows: embedding.zero_rows(),
        singular_values: embedding.singular_values.clone(),
        window: config.window,
        solver: embedding.solver,
        seconds,
    };
    if args.json {
        return print_json(&summary);
    }
    let top: Vec<String> = summary
        .singular_values
        .iter()
        .take(3)
        .map(|s| format!("{s:.4}"))
        .collect();
    let mut text = format!(
        "{} items × {} dims from {} users ({} skipped: fewer than 2 items after the hold-out)\n",
        summary.n_items, summary.dims, summary.n_users, summary.users_skipped
    );
    text.push_str(&format!(
        "co-occurrence cells {}, PPMI cells {}, items without co-occurrence (zero rows) {}\n",
        summary.cooccurrence_cells, summary.ppmi_cells, summary.zero_rows
    ));
    text.push_str(&format!(
        "singular values {} … {:.4}; {} ({} restarts, {} products, residual {:.1e}) in {:.2} s\n",
        top.join(", "),
        summary.singular_values.last().copied().unwrap_or(0.0),
        summary.solver.method,
        summary.solver.restarts,
        summary.solver.products,
        summary.solver.max_residual,
        seconds
    ));
    if !summary.solver.converged {
        text.push_str("warning: the solver stopped before every pair met its tolerance\n");
    }
    text.push_str(&format!("wrote {}\n", summary.out));
    print_text(&text)
}
