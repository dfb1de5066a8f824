//! `sidlens item`: one item followed through every tokenizer of a dataset folder (its SID,
//! group size, groupmates and what a `*_zcr` variant did to its last code).

use std::path::PathBuf;

use anyhow::bail;

use crate::load::ItemTexts;
use crate::load::dataset::Dataset;
use crate::report::format::text;
use crate::report::item;
use crate::usecase;

use super::Globals;
use super::print::{print_json, print_text};

/// Groupmates the table lists per tokenizer (JSON lists all).
const SHOWN_MATES: usize = 8;

/// Arguments of `sidlens item`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A dataset folder in the CollisionGenRec layout (every variant under DIR/indexes/).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The item id.
    #[arg(value_name = "ITEM")]
    item: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `sidlens item`.
pub fn run(args: Args, _globals: Globals) -> anyhow::Result<()> {
    let dataset = Dataset::discover(&args.dir, None)?;
    let tokenizers = dataset.tokenizers();
    let view = usecase::follow_item(&tokenizers, &args.item)?;
    if view.variants.is_empty() {
        bail!(
            "item \"{}\" is in none of the {} indexes under {}",
            args.item,
            tokenizers.len(),
            dataset.root.join("indexes").display()
        );
    }
    for name in tokenizers.iter().map(|t| &t.name) {
        if !view.variants.iter().any(|v| &v.name == name) {
            eprintln!("note: {name} has no item \"{}\"", args.item);
        }
    }
    if args.json {
        return print_json(&view);
    }
    let texts = dataset.items.as_deref().map(ItemTexts::load).transpose()?;
    let title = texts
        .as_ref()
        .and_then(|t| t.title(&args.item))
        .map_or(String::new(), |t| format!(" · {t}"));
    let mut out = format!("item {}{title}\n", args.item);
    out.push_str(&text::render(&item::table(&view, SHOWN_MATES)));
    print_text(&out)
}
