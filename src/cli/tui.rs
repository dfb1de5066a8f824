//! `sidlens tui`: the terminal UI on explicit files, several tokenizers side by side.

use std::path::{Path, PathBuf};

use anyhow::bail;

use super::Globals;
use crate::tui::{self, sources::Sources, sources::TokenizerSource};

/// Arguments of `sidlens tui`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A SID index; repeat as NAME=FILE for several tokenizers side by side.
    #[arg(long, value_name = "[NAME=]FILE", required = true)]
    index: Vec<String>,
    /// Item metadata (`{"id": {"title": ...}}`) for titles, brands and categories.
    #[arg(long, value_name = "FILE")]
    items: Option<PathBuf>,
    /// Codebook size V when the index does not show it (default: largest code + 1).
    #[arg(long, value_name = "V")]
    codebook_size: Option<usize>,
}

/// Runs `sidlens tui`.
pub fn run(args: Args, _globals: Globals) -> anyhow::Result<()> {
    let sources = sources(&args)?;
    tui::run(sources)
}

fn sources(args: &Args) -> anyhow::Result<Sources> {
    let mut tokenizers: Vec<TokenizerSource> = Vec::new();
    for spec in &args.index {
        let (name, path) = named(spec);
        let name = name.unwrap_or_else(|| default_name(&path));
        if tokenizers.iter().any(|t| t.name == name) {
            bail!("two --index share the name {name:?}; name them with --index NAME=FILE");
        }
        tokenizers.push(TokenizerSource::index_only(name, path));
    }
    Ok(Sources {
        title: "files".into(),
        tokenizers,
        items: args.items.clone(),
        codebook_size: args.codebook_size,
    })
}

/// Splits `NAME=FILE`; a spec without `=` (or whose part before `=` looks like a path) is a
/// plain file.
fn named(spec: &str) -> (Option<String>, PathBuf) {
    match spec.split_once('=') {
        Some((name, path)) if !name.is_empty() && !name.contains(['/', '\\']) => {
            (Some(name.to_string()), PathBuf::from(path))
        }
        _ => (None, PathBuf::from(spec)),
    }
}

/// A tokenizer's name from its file: `indexes/rqvae_native/Scientific.index.json` →
/// `rqvae_native` (the CollisionGenRec layout), else the file name without `.index.json`.
fn default_name(path: &Path) -> String {
    let stem = path
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    let stem = stem
        .strip_suffix(".json")
        .unwrap_or(&stem)
        .strip_suffix(".index")
        .unwrap_or(stem.strip_suffix(".json").unwrap_or(&stem))
        .to_string();
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|f| f.to_string_lossy().to_string());
    let in_layout = path
        .parent()
        .and_then(|p| p.parent())
        .and_then(|p| p.file_name())
        .is_some_and(|f| f == "indexes");
    match parent {
        Some(parent) if in_layout => parent,
        _ => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_specs_and_paths() {
        assert_eq!(
            named("zcr=a/b.json"),
            (Some("zcr".into()), PathBuf::from("a/b.json"))
        );
        assert_eq!(named("./x=y.json"), (None, PathBuf::from("./x=y.json")));
        assert_eq!(
            default_name(Path::new("d/indexes/rqvae_native/Scientific.index.json")),
            "rqvae_native"
        );
        assert_eq!(default_name(Path::new("out/rkmeans.index.json")), "rkmeans");
        assert_eq!(default_name(Path::new("idx.json")), "idx");
    }
}
