//! `sidlens project`: the TUI scatter's data, headless — a 2-D t-SNE projection of the item
//! embeddings (item id, x, y, and the rank of the collision group of highlighted items).

use std::path::PathBuf;

use crate::io::write::{ensure_not_input, write_atomically};
use crate::load::{Latents, SidIndex, TokenizerFiles};
use crate::projection::{CacheOutcome, ItemRows, Projection, ProjectionParams};
use crate::report::format::{csv, text};
use crate::report::projection::{PointRow, ProjectionJson, points_table};
use crate::usecase::Tokenizer;
use crate::usecase::project_items;
use anyhow::Context;

use super::Globals;
use super::print::{print_data, print_json, print_text};
use super::progress::Bar;

/// Arguments of `sidlens project`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Item embeddings: a 2-D float32/float64 .npy, .safetensors or .pt file, row i = item id i
    /// (integer ids) or the i-th item of --index.
    #[arg(long, value_name = "FILE")]
    embeddings: PathBuf,
    /// SID index giving item ids and collision groups.
    #[arg(long, value_name = "FILE")]
    index: Option<PathBuf>,
    /// Highlight the N largest collision groups of --index (always kept in the sample).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "index")]
    highlight: usize,
    /// Project a sample of at most N items when there are more.
    #[arg(long, value_name = "N", default_value_t = ProjectionParams::default().max_points)]
    max_points: usize,
    /// Seed of the sample and of the t-SNE start (same seed, same picture).
    #[arg(long, value_name = "S", default_value_t = ProjectionParams::default().seed)]
    seed: u64,
    /// t-SNE perplexity (lowered automatically for small samples).
    #[arg(long, value_name = "P", default_value_t = ProjectionParams::default().perplexity)]
    perplexity: f64,
    /// t-SNE iterations.
    #[arg(long, value_name = "N", default_value_t = ProjectionParams::default().iterations)]
    iterations: usize,
    /// Dimensions kept by PCA before t-SNE.
    #[arg(long, value_name = "N", default_value_t = ProjectionParams::default().pca_dims)]
    pca_dims: usize,
    /// Neither read nor write the projection cache (in $XDG_CACHE_HOME/sidlens or
    /// ~/.cache/sidlens).
    #[arg(long)]
    no_cache: bool,
    /// Write the result to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print CSV instead of a table.
    #[arg(long)]
    csv: bool,
}

/// Items and their embedding rows: from the index when given, else one item per row.
struct Items {
    index: Option<(SidIndex, ItemRows)>,
}

/// Runs `sidlens project`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    if let Some(out) = &args.out {
        let mut inputs = vec![args.embeddings.as_path()];
        inputs.extend(args.index.as_deref());
        ensure_not_input(out, &inputs)?;
    }
    let params = ProjectionParams {
        perplexity: args.perplexity,
        seed: args.seed,
        max_points: args.max_points,
        pca_dims: args.pca_dims,
        iterations: args.iterations,
        ..ProjectionParams::default()
    };
    params.validate()?;
    let embeddings = Latents::load(&args.embeddings)?;
    let items = Items::load(&args, embeddings.n_rows())?;
    let bar = Bar::new(globals.quiet);
    let (result, outcome) = project_items(&embeddings, items.rows(), &params, !args.no_cache, &bar)
        .with_context(|| format!("projecting {}", args.embeddings.display()))?;
    drop(bar);
    for note in &result.notes {
        eprintln!("note: {note}");
    }
    if result.is_sample() && !items.must_include().is_empty() {
        eprintln!(
            "note: the sample keeps all {} items of the {} highlighted groups",
            items.must_include().len(),
            args.highlight
        );
    }
    let cache_word = match &outcome {
        None => "off",
        Some(CacheOutcome::Hit(path)) => {
            eprintln!("note: loaded from the cache {}", path.display());
            "hit"
        }
        Some(CacheOutcome::Stored(_)) => "stored",
        Some(CacheOutcome::NotStored(why)) => {
            eprintln!("warning: could not save the projection cache: {why}");
            "not-stored"
        }
    };
    let text = if args.json {
        let report = ProjectionJson {
            embeddings: &args.embeddings,
            total_rows: result.total_rows,
            projected: result.rows.len(),
            method: result.method,
            perplexity: result.perplexity,
            seed: params.seed,
            cache: cache_word,
            notes: &result.notes,
            points: items.point_rows(&result),
        };
        if args.out.is_none() {
            return print_json(&report);
        }
        let mut json = serde_json::to_string_pretty(&report)?;
        json.push('\n');
        json
    } else {
        let table = points_table(&items.point_rows(&result));
        if args.csv {
            csv::render(&table)
        } else {
            text::render(&table)
        }
    };
    match &args.out {
        Some(out) => Ok(write_atomically(out, |w| w.write_all(text.as_bytes()))?),
        None if args.csv || args.json => print_data(&text),
        None => print_text(&text),
    }
}

impl Items {
    fn load(args: &Args, n_rows: usize) -> anyhow::Result<Items> {
        let index = match &args.index {
            Some(path) => {
                let Tokenizer {
                    index, collisions, ..
                } = Tokenizer::open(TokenizerFiles::index_only("index", path), None, None)?;
                let rows = ItemRows::new(&index, &collisions, n_rows, args.highlight)
                    .with_context(|| format!("placing items on {}", args.embeddings.display()))?;
                Some((index, rows))
            }
            None => None,
        };
        Ok(Items { index })
    }

    /// The index's items on the embedding rows, when an index is given.
    fn rows(&self) -> Option<&ItemRows> {
        self.index.as_ref().map(|(_, rows)| rows)
    }

    fn must_include(&self) -> &[usize] {
        self.index
            .as_ref()
            .map_or(&[], |(_, rows)| rows.highlighted())
    }

    fn id(&self, row: usize) -> String {
        match &self.index {
            Some((index, rows)) => rows
                .position(row)
                .map_or_else(|| row.to_string(), |p| index.id(p).to_string()),
            None => row.to_string(),
        }
    }

    fn group(&self, row: usize) -> Option<usize> {
        self.index
            .as_ref()
            .and_then(|(_, rows)| rows.group_rank(row))
    }

    fn point_rows(&self, result: &Projection) -> Vec<PointRow> {
        result
            .rows
            .iter()
            .zip(&result.points)
            .map(|(&row, point)| PointRow {
                id: self.id(row),
                row,
                x: point[0],
                y: point[1],
                group: self.group(row),
            })
            .collect()
    }
}
