//! `sidlens cache`: where cached projections live, and dropping them.

use serde::Serialize;

use crate::projection::ProjectionCache;

use super::Globals;
use super::print::{print_json, print_text};

/// Arguments of `sidlens cache`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Print the cache directory ($XDG_CACHE_HOME/sidlens, else ~/.cache/sidlens).
    Dir,
    /// Remove every cached projection (nothing else in the directory).
    Clear,
}

#[derive(Serialize)]
struct Cleared {
    dirs: Vec<String>,
    removed_files: usize,
    removed_bytes: u64,
}

/// Runs `sidlens cache`.
pub fn run(args: Args, _globals: Globals) -> anyhow::Result<()> {
    let cache = ProjectionCache::for_user();
    let dirs: Vec<String> = cache
        .dirs()
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    if dirs.is_empty() {
        anyhow::bail!("no cache directory: neither XDG_CACHE_HOME nor HOME is an absolute path");
    }
    match args.action {
        Action::Dir if args.json => print_json(&serde_json::json!({ "dirs": dirs })),
        Action::Dir => print_text(&format!("{}\n", dirs.join("\n"))),
        Action::Clear => {
            let (removed_files, removed_bytes) = cache.clear()?;
            let cleared = Cleared {
                dirs,
                removed_files,
                removed_bytes,
            };
            if args.json {
                return print_json(&cleared);
            }
            print_text(&format!(
                "removed {removed_files} cached projections ({removed_bytes} bytes) from {}\n",
                cleared.dirs.join(", ")
            ))
        }
    }
}
