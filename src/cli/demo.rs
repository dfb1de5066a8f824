//! `sidlens demo`: generate the demo dataset (what `sidlens` opens with no arguments).

use std::path::PathBuf;

use crate::generate::demo::{self, DemoConfig};
use crate::report::format::text;
use crate::report::{self, Align, Table, percent};

use super::Globals;
use super::print::{print_json, print_text};
use super::progress::Bar;

/// Arguments of `sidlens demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory to write (replaced if it holds an earlier demo; a non-empty other directory
    /// is refused).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `sidlens demo`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let bar = Bar::new(globals.quiet);
    let summary = demo::generate(&args.out, &DemoConfig::default(), &bar)?;
    drop(bar);
    if args.json {
        return print_json(&summary);
    }
    let mut table = Table::new(&[
        ("variant", Align::Left),
        ("collision rate", Align::Right),
        ("largest group", Align::Right),
        ("collision groups", Align::Right),
    ]);
    for v in &summary.variants {
        table.push(vec![
            v.variant.clone(),
            percent(v.stats.collision_rate),
            v.stats.g_max.to_string(),
            v.stats.n_collision_groups.to_string(),
        ]);
    }
    let mut out = format!(
        "{}: {} items, {} users, {} interactions\n\n",
        args.out.display(),
        summary.n_items,
        summary.n_users,
        summary.n_interactions
    );
    out.push_str(&text::render(&table));
    out.push('\n');
    out.push_str(&text::render(&report::compare::table(&summary.comparison)));
    for line in report::compare::flip_lines(&summary.comparison) {
        out.push_str(&format!("\nrank flip: {line}"));
    }
    out.push('\n');
    print_text(&out)
}
