//! `sidlens groups`: collision groups, largest first.

use std::path::PathBuf;

use crate::collision::Collisions;
use crate::load::{ItemTexts, SidIndex};
use crate::report::groups::{self, GroupFilter};
use crate::report::text;

use super::Globals;
use super::print::{print_json, print_text};

/// Arguments of `sidlens groups`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The SID index.
    #[arg(long, value_name = "FILE")]
    index: PathBuf,
    /// Item metadata (`{"id": {"title": ...}}`) for titles.
    #[arg(long, value_name = "FILE")]
    items: Option<PathBuf>,
    /// Only groups of at least this many items.
    #[arg(long, value_name = "N", default_value_t = 2)]
    min_size: usize,
    /// Only the N largest groups.
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `sidlens groups`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let index = SidIndex::load_as(&args.index, None, globals.sid_format)?;
    let texts = args.items.as_deref().map(ItemTexts::load).transpose()?;
    let collisions = Collisions::new(&index);
    let filter = GroupFilter {
        min_size: args.min_size,
        top: args.top,
    };
    let rows = groups::group_rows(&index, &collisions, texts.as_ref(), filter);
    if args.json {
        return print_json(&rows);
    }
    if rows.is_empty() {
        eprintln!("no collision groups of size >= {}", args.min_size.max(2));
        return Ok(());
    }
    print_text(&text::render(&groups::table(&rows)))
}
