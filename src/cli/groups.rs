//! `sidlens groups`: collision groups, largest first — or, with `--embeddings`, with how far
//! apart their items are, tightest first (the paper's Figure 5 view with `--cf`).

use std::path::PathBuf;

use crate::collab::spread::group_spreads;
use crate::load::{ItemTexts, Latents, TokenizerFiles};
use crate::report::document::Document;
use crate::report::groups::{self, GroupFilter};
use crate::report::{Table, spread};
use crate::usecase::Tokenizer;

use super::Globals;
use super::print::print_json;
use super::table_format::{TableFormat, print_csv};

/// Arguments of `sidlens groups`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("index_file").required(true).args(["file", "index"])))]
pub struct Args {
    /// The SID index.
    #[arg(value_name = "INDEX")]
    file: Option<PathBuf>,
    /// The SID index, given as a flag instead of INDEX.
    #[arg(long, value_name = "FILE")]
    index: Option<PathBuf>,
    /// Item metadata (`{"id": {"title": ...}}`) for titles.
    #[arg(long, value_name = "FILE")]
    items: Option<PathBuf>,
    /// Only groups of at least this many items.
    #[arg(long, value_name = "N", default_value_t = 2)]
    min_size: usize,
    /// Only the N largest groups (the N tightest with --embeddings).
    #[arg(long, value_name = "N", value_parser = super::at_least_one, conflicts_with = "tightest")]
    top: Option<usize>,
    /// Item embeddings (.npy, .safetensors or .pt, row i = item id i): each group gets its mean
    /// pairwise cosine distance (`mean_cosine_distance`), and groups are listed tightest first.
    #[arg(long, value_name = "FILE")]
    embeddings: Option<PathBuf>,
    /// A second space, e.g. the collaborative embedding from `sidlens cf`
    /// (`cf_mean_cosine_distance`).
    #[arg(long, value_name = "FILE", requires = "embeddings")]
    cf: Option<PathBuf>,
    /// Only the N groups whose items are closest in the embeddings.
    #[arg(long, value_name = "N", value_parser = super::at_least_one, requires = "embeddings")]
    tightest: Option<usize>,
    #[command(flatten)]
    format: TableFormat,
}

/// Runs `sidlens groups`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let index_path = args.index.clone().or(args.file.clone()).unwrap_or_default();
    let Tokenizer {
        index, collisions, ..
    } = Tokenizer::open(
        TokenizerFiles::index_only("index", &index_path),
        None,
        globals.sid_format,
    )?;
    let texts = args.items.as_deref().map(ItemTexts::load).transpose()?;
    if let Some(path) = &args.embeddings {
        let space = Latents::load(path)?;
        let second = args.cf.as_deref().map(Latents::load).transpose()?;
        let spreads = group_spreads(&index, &collisions, &space, second.as_ref(), args.min_size)?;
        let top = args.tightest.or(args.top);
        let rows = spread::spread_rows(&index, &collisions, texts.as_ref(), &spreads, top);
        if args.format.json {
            return print_json(&rows);
        }
        return print_table(
            &args,
            rows.is_empty(),
            || spread::csv_table(&rows),
            || spread::table(&rows),
        );
    }
    let filter = GroupFilter {
        min_size: args.min_size,
        top: args.top,
    };
    let rows = groups::group_rows(&index, &collisions, texts.as_ref(), filter);
    if args.format.json {
        return print_json(&rows);
    }
    print_table(
        &args,
        rows.is_empty(),
        || groups::csv_table(&rows),
        || groups::table(&rows),
    )
}

/// Prints the CSV or the display table; with no rows, CSV is its header alone (a valid empty
/// table) and the other formats say so on stderr.
fn print_table(
    args: &Args,
    empty: bool,
    csv: impl Fn() -> Table,
    display: impl Fn() -> Table,
) -> anyhow::Result<()> {
    if args.format.csv {
        return print_csv(&csv());
    }
    if empty {
        eprintln!("no collision groups of size >= {}", args.min_size.max(2));
        return Ok(());
    }
    let mut doc = Document::new();
    doc.table(display());
    args.format.print(&doc)
}
