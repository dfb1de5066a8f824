//! `sidlens plot FIGURE`: the paper's figures for the user's own tokenizers as SVG (stdout or
//! `--out FILE`), drawn by the library from the same results `compare`, `eval` and `zcr` print.

use std::path::{Path, PathBuf};

use crate::compare::significance::PairedOptions;
use crate::io::write::{ensure_not_input, write_atomically};
use crate::load::TokenizerFiles;
use crate::load::dataset::Dataset;
use crate::load::tokenizer::duplicate_name;
use crate::plot::curves::CurvesFigure;
use crate::plot::inflation::InflationFigure;
use crate::plot::png::to_png;
use crate::plot::ranks::RanksFigure;
use crate::plot::scatter::{ScatterFigure, ScatterRequest};
use crate::plot::zcr::ZcrFigure;
use crate::projection::ProjectionParams;
use crate::usecase::Tokenizer;
use crate::usecase::tokenizer;
use crate::usecase::{compare_tokenizers, plan_reassignment};
use clap::CommandFactory;
use clap::error::ErrorKind;

use super::Globals;
use super::eval::{CompatArg, parse_k};
use super::print::print_text;
use super::progress::Bar;
use super::significance_args::SignificanceArgs;

/// Arguments of `sidlens plot`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    figure: Figure,
}

#[derive(Debug, clap::Subcommand)]
enum Figure {
    /// Inflation % of Hit@K over ItemHit@K against collision rate, one point per tokenizer.
    Inflation(RunsArgs),
    /// Slope chart of each tokenizer's rank by Hit@K and by ItemHit@K (crossings = rank flips,
    /// ringed when a paired test finds the item-level order significant).
    Ranks(RanksArgs),
    /// Hit@K and ItemHit@K against K = 1 … beam width, per tokenizer.
    Curves(RunsArgs),
    /// Per prefix group, greedy ΔD against ZCR ΔD (every point on or under the diagonal).
    Zcr(ZcrArgs),
    /// t-SNE of the items with the largest collision groups highlighted; two spaces side by side.
    Scatter(ScatterArgs),
}

/// Arguments of `sidlens plot scatter`.
#[derive(Debug, clap::Args)]
struct ScatterArgs {
    /// The SID index whose collision groups are highlighted.
    #[arg(long, value_name = "FILE")]
    index: PathBuf,
    /// Item embeddings (.npy, .safetensors or .pt, row i = item id i), `[TITLE=]FILE`; give two
    /// (e.g. text and collaborative) for panels side by side with the same groups in the same
    /// styles.
    #[arg(long, value_name = "[TITLE=]FILE", required = true, num_args = 1)]
    embeddings: Vec<String>,
    /// Highlight the N largest collision groups.
    #[arg(long, value_name = "N", default_value_t = 6)]
    highlight: usize,
    /// Project a sample of at most N items when there are more (highlighted groups are kept).
    #[arg(long, value_name = "N", default_value_t = ProjectionParams::default().max_points)]
    max_points: usize,
    /// Seed of the sample and of the t-SNE start (same seed, same picture).
    #[arg(long, value_name = "S", default_value_t = ProjectionParams::default().seed)]
    seed: u64,
    /// t-SNE perplexity (lowered automatically for small samples).
    #[arg(long, value_name = "P", default_value_t = ProjectionParams::default().perplexity)]
    perplexity: f64,
    /// Neither read nor write the projection cache (.sidlens-cache/ beside the embeddings).
    #[arg(long)]
    no_cache: bool,
    /// The tokenizer's name in the caption (default: the index's folder).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    #[command(flatten)]
    output: OutputArgs,
}

/// Tokenizers to draw, as `sidlens compare` takes them.
#[derive(Debug, clap::Args)]
struct RunsArgs {
    /// A dataset folder in the CollisionGenRec layout: every variant under indexes/.
    #[arg(value_name = "DIR", conflicts_with = "run")]
    dir: Option<PathBuf>,
    /// With DIR: a folder holding more beams, named `<VARIANT>.per_user.json[l]`.
    #[arg(long, value_name = "D", requires = "dir")]
    beams_dir: Option<PathBuf>,
    /// A tokenizer given by its files, `NAME=INDEX[,BEAMS...]` (repeat for each tokenizer).
    #[arg(long = "run", value_name = "NAME=INDEX[,BEAMS...]", value_parser = TokenizerFiles::parse_spec)]
    run: Vec<TokenizerFiles>,
    /// The cut-off K (inflation, ranks).
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = parse_k)]
    k: usize,
    /// Semantics: `faithful` (default) or `cce-py` (the reference cce.py exactly).
    #[arg(long, value_enum, default_value_t = CompatArg::Faithful)]
    compat: CompatArg,
    /// Codebook size V of every index (default: each index's largest code + 1).
    #[arg(long, value_name = "V")]
    codebook_size: Option<usize>,
    #[command(flatten)]
    output: OutputArgs,
}

/// Arguments of `sidlens plot ranks`.
#[derive(Debug, clap::Args)]
struct RanksArgs {
    #[command(flatten)]
    runs: RunsArgs,
    #[command(flatten)]
    significance: SignificanceArgs,
}

/// Arguments of `sidlens plot zcr`.
#[derive(Debug, clap::Args)]
struct ZcrArgs {
    /// The SID index.
    #[arg(long, value_name = "FILE")]
    index: PathBuf,
    /// Per-item latents (.npy, .safetensors or .pt, N×d, row i = item id i).
    #[arg(long, value_name = "FILE")]
    latents: PathBuf,
    /// The tokenizer's codebooks (.npy, .safetensors or .pt, L×V×d); estimated from the latents
    /// without them.
    #[arg(long, value_name = "FILE")]
    codebooks: Option<PathBuf>,
    /// Codebook size V (default: from the codebooks, else the largest code + 1).
    #[arg(long, value_name = "V")]
    codebook_size: Option<usize>,
    /// The name in the title (default: the index's folder).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    #[command(flatten)]
    output: OutputArgs,
}

/// Where a figure goes.
#[derive(Debug, clap::Args)]
struct OutputArgs {
    /// Write the figure to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write a PNG (rasterised with a bundled font, 2× the SVG's size) instead of SVG; needs --out.
    #[arg(long, requires = "out")]
    png: bool,
}

/// Runs `sidlens plot`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    match args.figure {
        Figure::Inflation(a) => runs_figure(&a, globals, |loaded, a| {
            let c = tokenizer::comparison(loaded, a.k, a.compat.into());
            Ok(InflationFigure::from_comparison(&c).svg()?)
        }),
        Figure::Ranks(a) => ranks(&a, globals),
        Figure::Curves(a) => {
            runs_figure(&a, globals, |loaded, _| Ok(CurvesFigure::of(loaded).svg()?))
        }
        Figure::Zcr(a) => zcr(&a, globals),
        Figure::Scatter(a) => scatter(&a, globals),
    }
}

/// The runs of a dataset folder or of `--run`s, named uniquely.
pub(super) fn runs_of(
    dir: Option<&Path>,
    beams_dir: Option<&Path>,
    run: &[TokenizerFiles],
) -> anyhow::Result<Vec<TokenizerFiles>> {
    let runs = match dir {
        Some(dir) => Dataset::discover(dir, beams_dir)?.tokenizers(),
        None if run.is_empty() => {
            return Err(usage(
                "give a dataset folder DIR or --run NAME=INDEX[,BEAMS]",
            ));
        }
        None => run.to_vec(),
    };
    if let Some(name) = duplicate_name(&runs) {
        anyhow::bail!("two tokenizers are named {name:?}; give each --run its own NAME");
    }
    Ok(runs)
}

fn usage(message: &str) -> anyhow::Error {
    super::Cli::command()
        .error(ErrorKind::MissingRequiredArgument, message)
        .into()
}

/// Only the t-test decides significance (its adjusted p-value), so figures skip the
/// Monte-Carlo tests.
pub(super) const T_TEST_ONLY: PairedOptions = PairedOptions {
    permutations: 0,
    bootstrap: 0,
    seed: 42,
};

/// `plot ranks`: the comparison with its paired tests, so significant flips are ringed.
fn ranks(args: &RanksArgs, globals: Globals) -> anyhow::Result<()> {
    let a = &args.runs;
    let runs = runs_of(a.dir.as_deref(), a.beams_dir.as_deref(), &a.run)?;
    let inputs: Vec<&Path> = runs
        .iter()
        .flat_map(|r| {
            std::iter::once(r.index.as_path()).chain(r.beams.iter().map(PathBuf::as_path))
        })
        .collect();
    check_out(&a.output, &inputs)?;
    let bar = Bar::new(globals.quiet);
    let report = compare_tokenizers(
        &runs,
        &[a.k],
        a.compat.into(),
        a.codebook_size,
        args.significance.settings(T_TEST_ONLY),
        &bar,
    )?;
    drop(bar);
    emit(&RanksFigure::from_report(&report, 0).svg()?, &a.output)
}

fn runs_figure(
    args: &RunsArgs,
    globals: Globals,
    draw: impl FnOnce(&[Tokenizer], &RunsArgs) -> anyhow::Result<String>,
) -> anyhow::Result<()> {
    let runs = runs_of(args.dir.as_deref(), args.beams_dir.as_deref(), &args.run)?;
    let inputs: Vec<&Path> = runs
        .iter()
        .flat_map(|r| std::iter::once(r.index.as_path()).chain(r.beams_file()))
        .collect();
    check_out(&args.output, &inputs)?;
    let bar = Bar::new(globals.quiet);
    let loaded = Tokenizer::open_all(&runs, args.compat.into(), args.codebook_size, &bar)?;
    drop(bar);
    emit(&draw(&loaded, args)?, &args.output)
}

fn zcr(args: &ZcrArgs, globals: Globals) -> anyhow::Result<()> {
    let inputs: Vec<&Path> = [
        Some(&args.index),
        Some(&args.latents),
        args.codebooks.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(PathBuf::as_path)
    .collect();
    check_out(&args.output, &inputs)?;
    let Tokenizer {
        index, collisions, ..
    } = Tokenizer::open(
        TokenizerFiles::index_only("index", &args.index),
        args.codebook_size,
        None,
    )?;
    let bar = Bar::new(globals.quiet);
    let plan = plan_reassignment(
        &index,
        &collisions,
        Some(&args.latents),
        args.codebooks.as_deref(),
        &bar,
    )?;
    drop(bar);
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| default_name(&args.index));
    emit(&ZcrFigure::from_plan(&name, &plan)?.svg()?, &args.output)
}

fn scatter(args: &ScatterArgs, globals: Globals) -> anyhow::Result<()> {
    if args.embeddings.len() > 2 {
        return Err(usage("give one or two --embeddings"));
    }
    let spaces: Vec<(String, PathBuf)> = args
        .embeddings
        .iter()
        .map(|spec| match spec.split_once('=') {
            Some((title, file)) if !title.is_empty() && !file.is_empty() => {
                (title.to_string(), PathBuf::from(file))
            }
            _ => (default_title(Path::new(spec)), PathBuf::from(spec)),
        })
        .collect();
    let mut inputs: Vec<&Path> = vec![&args.index];
    inputs.extend(spaces.iter().map(|(_, p)| p.as_path()));
    check_out(&args.output, &inputs)?;
    let params = ProjectionParams {
        perplexity: args.perplexity,
        seed: args.seed,
        max_points: args.max_points,
        ..ProjectionParams::default()
    };
    let Tokenizer {
        index, collisions, ..
    } = Tokenizer::open(TokenizerFiles::index_only("index", &args.index), None, None)?;
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| default_name(&args.index));
    let space_refs: Vec<(String, &Path)> = spaces
        .iter()
        .map(|(t, p)| (t.clone(), p.as_path()))
        .collect();
    let bar = Bar::new(globals.quiet);
    let figure = ScatterFigure::project(
        &ScatterRequest {
            tokenizer: &name,
            index: &index,
            collisions: &collisions,
            spaces: &space_refs,
            highlight: args.highlight,
            params: &params,
            use_cache: !args.no_cache,
        },
        &bar,
    )?;
    drop(bar);
    emit(&figure.svg()?, &args.output)
}

/// A panel title from an embeddings file name: `Workshop.emb-tfidf.npy` → `tfidf`.
fn default_title(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    match stem.split_once(".emb-") {
        Some((_, kind)) => kind.to_string(),
        None => stem,
    }
}

/// A tokenizer's name from its index path: the folder holding it (the variant).
pub(super) fn default_name(index: &Path) -> String {
    index
        .parent()
        .and_then(Path::file_name)
        .or_else(|| index.file_stem())
        .map_or_else(
            || index.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
}

fn check_out(output: &OutputArgs, inputs: &[&Path]) -> anyhow::Result<()> {
    if let Some(out) = &output.out {
        ensure_not_input(out, inputs)?;
    }
    Ok(())
}

fn emit(svg: &str, output: &OutputArgs) -> anyhow::Result<()> {
    match &output.out {
        Some(out) if output.png => {
            let png = to_png(svg, 2.0)?;
            write_atomically(out, |w| w.write_all(&png))?;
            eprintln!("wrote {}", out.display());
            Ok(())
        }
        Some(out) => {
            write_atomically(out, |w| w.write_all(svg.as_bytes()))?;
            eprintln!("wrote {}", out.display());
            Ok(())
        }
        None => print_text(svg),
    }
}
