//! `sidlens tui`: the terminal UI on a dataset folder (every tokenizer variant side by side) or
//! on explicit files (`--index NAME=FILE` per tokenizer, beams and vectors paired by name).

use std::path::{Path, PathBuf};

use std::io::IsTerminal;

use crate::generate::demo;
use crate::load::dataset::Dataset;
use clap::CommandFactory;
use clap::error::ErrorKind;

use super::Globals;
use super::eval::CompatArg;
use super::progress::Bar;
use crate::load::TokenizerFiles;
use crate::load::tokenizer::duplicate_name;
use crate::tui::{self, sources::Sources};

/// Arguments of `sidlens tui`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A dataset folder in the CollisionGenRec layout (DIR/indexes/<VARIANT>/<DS>.index.json,
    /// DIR/<DS>.item.json, DIR/<DS>.emb-*.npy, beams beside the indexes), a repository
    /// checkout (data/<DS>/ + results/<DS>/), or one index file (its beams, latents,
    /// codebooks, items and embeddings found beside it by name).
    #[arg(value_name = "DIR|INDEX")]
    dir: Option<PathBuf>,
    /// Another folder holding `<VARIANT>.per_user.json[l]` beams for DIR's variants.
    #[arg(long, value_name = "DIR", requires = "dir")]
    beams_dir: Option<PathBuf>,
    /// A tokenizer given by its files, `NAME=INDEX[,BEAMS...]` (repeat for each tokenizer;
    /// several beams files are one per generator seed) — the spelling `compare` uses too.
    #[arg(long = "run", value_name = "NAME=INDEX[,BEAMS...]", value_parser = TokenizerFiles::parse_spec)]
    run: Vec<TokenizerFiles>,
    /// A SID index; repeat as NAME=FILE for several tokenizers side by side.
    #[arg(long, value_name = "[NAME=]FILE")]
    index: Vec<String>,
    /// Beam outputs of the tokenizer NAME (a plain FILE when there is one tokenizer; repeat
    /// for one file per seed).
    #[arg(long, value_name = "[NAME=]FILE")]
    beams: Vec<String>,
    /// Item latents (.npy, .safetensors or .pt, N×d, row i = item id i) for ZCR costs; a plain FILE
    /// applies to every tokenizer (the shared embedding space), NAME=FILE to one.
    #[arg(long, value_name = "[NAME=]FILE")]
    latents: Vec<String>,
    /// A tokenizer's codebooks (.npy, .safetensors or .pt, L×V×d); without them they are estimated
    /// from the latents.
    #[arg(long, value_name = "[NAME=]FILE")]
    codebooks: Vec<String>,
    /// Item metadata (`{"id": {"title": ...}}`) for titles, brands and categories.
    #[arg(long, value_name = "FILE")]
    items: Option<PathBuf>,
    /// Item embeddings (.npy, .safetensors or .pt, N×d, row i = item id i) for the t-SNE scatter.
    #[arg(long, value_name = "FILE")]
    embeddings: Option<PathBuf>,
    /// User interactions (`{"user": [item ids, oldest first]}`): the scatter gets the
    /// collaborative space (PPMI + truncated SVD, as `sidlens cf`) beside the textual one.
    /// A dataset folder's `<DS>.inter.json` is used without it.
    #[arg(long, value_name = "FILE")]
    interactions: Option<PathBuf>,
    /// Codebook size V when the index does not show it (default: largest code + 1).
    #[arg(long, value_name = "V", value_parser = super::at_least_one)]
    codebook_size: Option<usize>,
    /// Metric semantics: sidlens's faithful default, or exactly the reference cce.py.
    #[arg(long, value_enum, default_value_t = CompatArg::Faithful)]
    compat: CompatArg,
    /// Do not re-evaluate when a beams file changes on disk.
    #[arg(long)]
    no_watch: bool,
}

/// Runs `sidlens tui`.
pub fn run(args: Args, _globals: Globals) -> anyhow::Result<()> {
    let sources = sources(&args)?;
    tui::run(sources)
}

/// What `sidlens` with no arguments does: the TUI on the demo dataset (the shipped
/// `demo_data/`, else a copy generated into the cache directory), or, when not in a terminal,
/// the help.
pub fn run_demo(globals: Globals, watch_beams: bool) -> anyhow::Result<()> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        super::Cli::command().print_help()?;
        return Ok(());
    }
    let bar = Bar::new(globals.quiet);
    let location = demo::default_data_dir(&std::env::current_dir()?, &bar)?;
    drop(bar);
    let mut sources = Sources::from_dataset(&Dataset::discover(location.path(), None)?);
    sources.title = format!("{} demo", sources.title);
    sources.watch_beams = watch_beams;
    tui::run(sources)
}

/// A usage error (exit code 2), printed by clap with the usage line.
fn usage(message: String) -> anyhow::Error {
    let mut cmd = super::Cli::command();
    cmd.build();
    let tui = cmd.find_subcommand("tui").cloned();
    tui.unwrap_or(cmd)
        .error(ErrorKind::ArgumentConflict, message)
        .into()
}

fn sources(args: &Args) -> anyhow::Result<Sources> {
    let mut sources = match &args.dir {
        Some(file) if file.is_file() => Sources::from_dataset(&Dataset::of_index(file)?),
        Some(dir) => Sources::from_dataset(&Dataset::discover(dir, args.beams_dir.as_deref())?),
        None => Sources {
            title: "files".into(),
            ..Sources::default()
        },
    };
    for spec in &args.index {
        let (name, path) = named(spec);
        let name = name.unwrap_or_else(|| default_name(&path));
        if sources.tokenizers.iter().any(|t| t.name == name) {
            return Err(usage(format!(
                "two tokenizers are named {name:?}; name them with --index NAME=FILE"
            )));
        }
        sources
            .tokenizers
            .push(TokenizerFiles::index_only(name, path));
    }
    sources.tokenizers.extend(args.run.iter().cloned());
    if let Some(name) = duplicate_name(&sources.tokenizers) {
        return Err(usage(format!(
            "two tokenizers are named {name:?}; give each its own NAME"
        )));
    }
    if sources.tokenizers.is_empty() {
        return Err(usage(
            "nothing to show: give a dataset folder, --run NAME=INDEX or --index FILE".into(),
        ));
    }
    pair(
        &mut sources.tokenizers,
        &args.beams,
        "--beams",
        false,
        |t, p| t.beams.push(p),
    )?;
    pair(
        &mut sources.tokenizers,
        &args.latents,
        "--latents",
        true,
        |t, p| t.latents = Some(p),
    )?;
    pair(
        &mut sources.tokenizers,
        &args.codebooks,
        "--codebooks",
        false,
        |t, p| t.codebooks = Some(p),
    )?;
    if let Some(items) = &args.items {
        sources.items = Some(items.clone());
    }
    if let Some(embeddings) = &args.embeddings {
        sources.embeddings = Some(embeddings.clone());
    }
    if let Some(interactions) = &args.interactions {
        sources.interactions = Some(interactions.clone());
    }
    sources.codebook_size = args.codebook_size;
    sources.compat = args.compat.into();
    sources.watch_beams = !args.no_watch;
    Ok(sources)
}

/// Gives each `[NAME=]FILE` to the tokenizer of that name; a plain FILE goes to the only
/// tokenizer, or to every tokenizer when `shared`.
fn pair(
    tokenizers: &mut [TokenizerFiles],
    specs: &[String],
    flag: &str,
    shared: bool,
    mut set: impl FnMut(&mut TokenizerFiles, PathBuf),
) -> anyhow::Result<()> {
    for spec in specs {
        match named(spec) {
            (Some(name), path) => match tokenizers.iter_mut().find(|t| t.name == name) {
                Some(t) => set(t, path),
                None => {
                    let names: Vec<&str> = tokenizers.iter().map(|t| t.name.as_str()).collect();
                    return Err(usage(format!(
                        "{flag} {name}=...: no tokenizer is named {name:?} (there are: {})",
                        names.join(", ")
                    )));
                }
            },
            (None, path) if shared || tokenizers.len() == 1 => {
                for t in tokenizers.iter_mut() {
                    set(t, path.clone());
                }
            }
            (None, path) => {
                return Err(usage(format!(
                    "{flag} {}: there are {} tokenizers; say which with {flag} NAME=FILE",
                    path.display(),
                    tokenizers.len()
                )));
            }
        }
    }
    Ok(())
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
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    let stem = file.strip_suffix(".json").unwrap_or(&file);
    let stem = stem.strip_suffix(".index").unwrap_or(stem).to_string();
    let in_layout = path
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .is_some_and(|f| f == "indexes");
    match path.parent().and_then(Path::file_name) {
        Some(parent) if in_layout => parent.to_string_lossy().to_string(),
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

    #[test]
    fn files_pair_with_tokenizers_by_name() {
        let mut ts = vec![
            TokenizerFiles::index_only("a", "a.json"),
            TokenizerFiles::index_only("b", "b.json"),
        ];
        let specs = ["b=b.beams".to_string()];
        pair(&mut ts, &specs, "--beams", false, |t, p| t.beams.push(p)).unwrap();
        assert_eq!(ts[1].beams, [PathBuf::from("b.beams")]);
        assert!(ts[0].beams.is_empty());
        let plain = ["x.beams".to_string()];
        let e = pair(&mut ts, &plain, "--beams", false, |t, p| t.beams.push(p)).unwrap_err();
        assert!(
            e.to_string().contains("say which with --beams NAME=FILE"),
            "{e}"
        );
        pair(&mut ts, &plain, "--latents", true, |t, p| {
            t.latents = Some(p)
        })
        .unwrap();
        assert!(ts.iter().all(|t| t.latents.is_some()));
        let wrong = ["c=x".to_string()];
        let e = pair(&mut ts, &wrong, "--beams", false, |t, p| t.beams.push(p)).unwrap_err();
        assert!(e.to_string().contains("there are: a, b"), "{e}");
    }
}
