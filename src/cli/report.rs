//! `sidlens report DIR --out report.html`: one self-contained HTML page to share — the compare
//! tables at K = 5 and 10, the figures, the ZCR totals, the largest collision groups with
//! titles, and the provenance of every input. Written atomically.

use std::path::{Path, PathBuf};

use crate::io::write::{ensure_not_input, write_atomically};
use crate::load::ItemTexts;
use crate::load::dataset::Dataset;
use crate::metrics::Decode;
use crate::plot::curves::CurvesFigure;
use crate::plot::inflation::InflationFigure;
use crate::plot::ranks::RanksFigure;
use crate::plot::scatter::{ScatterFigure, ScatterRequest};
use crate::plot::zcr::ZcrFigure;
use crate::projection::ProjectionParams;
use crate::report::groups::{GroupFilter, group_rows};
use crate::report::page::{self, Figure, Provenance, ReportContent, TokenizerGroups};
use crate::usecase::Tokenizer;
use crate::usecase::{compare_evaluated, plan_reassignment};

use super::Globals;
use super::eval::CompatArg;
use super::plot::T_TEST_ONLY;
use super::progress::Bar;
use super::significance_args::SignificanceArgs;

/// Arguments of `sidlens report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A dataset folder in the CollisionGenRec layout: every variant under indexes/ is reported.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// A folder holding more beams, named `<VARIANT>.per_user.json[l]`.
    #[arg(long, value_name = "D")]
    beams_dir: Option<PathBuf>,
    /// Write the report here (an .html file).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Latents for every tokenizer's ZCR costs (default: each variant's latents.npy, else the
    /// dataset's embeddings for variants with codebooks — what the TUI uses).
    #[arg(long, value_name = "FILE")]
    latents: Option<PathBuf>,
    /// Item metadata for the titles (default: DIR/<DS>.item.json).
    #[arg(long, value_name = "FILE")]
    items: Option<PathBuf>,
    /// List this many of each tokenizer's largest collision groups.
    #[arg(long, value_name = "N", default_value_t = 10)]
    groups: usize,
    /// Semantics: `faithful` (default) or `cce-py` (the reference cce.py exactly).
    #[arg(long, value_enum, default_value_t = CompatArg::Faithful)]
    compat: CompatArg,
    /// Leave out the t-SNE scatter (the slowest part: seconds for thousands of items).
    #[arg(long)]
    no_scatter: bool,
    /// Item embeddings for the scatter (default: the dataset's first DIR/<DS>.emb-*.npy).
    #[arg(long, value_name = "FILE")]
    embeddings: Option<PathBuf>,
    /// Codebook size V of every index (default: each index's largest code + 1).
    #[arg(long, value_name = "V")]
    codebook_size: Option<usize>,
    #[command(flatten)]
    significance: SignificanceArgs,
}

/// The K of the compare table.
const KS: [usize; 2] = [5, 10];
/// The K of the inflation and ranks figures.
const FIGURE_K: usize = 10;

/// Runs `sidlens report`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let dataset = Dataset::discover(&args.dir, args.beams_dir.as_deref())?;
    let runs = dataset.tokenizers();
    let items_path = args.items.clone().or_else(|| dataset.items.clone());
    let latents: Vec<Option<PathBuf>> = runs
        .iter()
        .map(|t| args.latents.clone().or_else(|| t.latents.clone()))
        .collect();
    let mut inputs: Vec<&Path> = Vec::new();
    for (v, l) in runs.iter().zip(&latents) {
        inputs.push(&v.index);
        inputs.extend(v.beams_file());
        inputs.extend(l.as_deref());
        inputs.extend(v.codebooks.as_deref().filter(|_| l.is_some()));
    }
    inputs.extend(items_path.as_deref());
    let embeddings = args
        .embeddings
        .clone()
        .or_else(|| dataset.embeddings.first().cloned())
        .filter(|_| !args.no_scatter);
    inputs.extend(embeddings.as_deref());
    ensure_not_input(&args.out, &inputs)?;

    let compat = args.compat.into();
    let bar = Bar::new(globals.quiet);
    let loaded = Tokenizer::open_all(&runs, compat, args.codebook_size, &bar)?;
    let texts = items_path.as_deref().map(ItemTexts::load).transpose()?;
    let mut figures = Vec::new();
    let mut zcr = Vec::new();
    let mut zcr_missing = Vec::new();
    for ((l, v), latents) in loaded.iter().zip(&runs).zip(&latents) {
        let Some(path) = latents else {
            zcr_missing.push((l.files.name.clone(), "no latents, so no ΔD".to_string()));
            continue;
        };
        let plan = plan_reassignment(
            &l.index,
            &l.collisions,
            Some(path),
            v.codebooks.as_deref(),
            &bar,
        )?;
        if plan.summary.n_prefix_groups_with_collisions == 0 {
            zcr_missing.push((l.files.name.clone(), "no collisions to resolve".to_string()));
            continue;
        }
        zcr.push(ZcrFigure::from_plan(&l.files.name, &plan)?);
    }
    let scatter = match &embeddings {
        Some(path) => scatter_figure(&loaded, path, &bar)?,
        None => None,
    };
    let evaluated: Vec<_> = loaded.iter().map(Tokenizer::as_evaluated).collect();
    let mut compare = compare_evaluated(
        &evaluated,
        &KS,
        compat,
        args.significance.settings(T_TEST_ONLY),
        (Decode::Cce, None),
        &bar,
    )?;
    drop(bar);
    compare.warnings.extend(dataset.warnings());
    for w in &compare.warnings {
        super::print::message(&format!("warning: {w}"));
    }
    let figure_at = KS.iter().position(|&k| k == FIGURE_K).unwrap_or(0);
    let at_k = &compare.comparisons[figure_at];
    if loaded.iter().any(|l| l.evaluation().is_some()) {
        figures.push(Figure {
            title: format!("Inflation against collision rate (K = {FIGURE_K})"),
            note: "One point per tokenizer: the more items share a SID, the more the SID-level metric over-credits.".into(),
            svg: InflationFigure::from_comparison(at_k).svg()?,
        });
        figures.push(Figure {
            title: format!("Ranks by Hit@{FIGURE_K} and by ItemHit@{FIGURE_K}"),
            note: "Crossing lines are tokenizers whose order the collision correction reverses; ringed crossings are significant (paired t-test, adjusted)."
                .into(),
            svg: RanksFigure::from_report(&compare, figure_at).svg()?,
        });
        figures.push(Figure {
            title: "Hit@K and ItemHit@K against K".into(),
            note: "The gap between a tokenizer's solid and dashed curve is its over-credit.".into(),
            svg: CurvesFigure::of(&loaded).svg()?,
        });
    }
    for z in &zcr {
        figures.push(Figure {
            title: format!("ZCR against greedy · {}", z.name),
            note: "One point per prefix group; on the diagonal both cost the same, below it ZCR is cheaper.".into(),
            svg: z.svg()?,
        });
    }
    figures.extend(scatter);
    let groups = loaded
        .iter()
        .map(|l| TokenizerGroups {
            name: l.files.name.clone(),
            n_items: l.index.n_items(),
            n_groups: l.collisions.collision_groups().len(),
            rows: group_rows(
                &l.index,
                &l.collisions,
                texts.as_ref(),
                GroupFilter {
                    min_size: 2,
                    top: Some(args.groups),
                },
            ),
        })
        .collect();
    let content = ReportContent {
        title: dataset.name.clone(),
        compat,
        compare,
        figures,
        zcr,
        zcr_missing,
        groups,
        provenance: Provenance::new(env!("CARGO_PKG_VERSION"), command_line(), &inputs)?,
    };
    let html = page::render(&content);
    write_atomically(&args.out, |w| w.write_all(html.as_bytes()))?;
    eprintln!("wrote {} ({} bytes)", args.out.display(), html.len());
    Ok(())
}

/// The scatter of the tokenizer with the most collisions (the most telling picture), with its
/// six largest groups highlighted; `None` when no tokenizer has collisions.
fn scatter_figure(
    loaded: &[Tokenizer],
    embeddings: &Path,
    progress: &Bar,
) -> anyhow::Result<Option<Figure>> {
    let Some(l) = loaded
        .iter()
        .filter(|l| l.collisions.collision_rate() > 0.0)
        .max_by(|a, b| {
            a.collisions
                .collision_rate()
                .total_cmp(&b.collisions.collision_rate())
        })
    else {
        return Ok(None);
    };
    let title = embeddings
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let figure = ScatterFigure::project(
        &ScatterRequest {
            tokenizer: &l.files.name,
            index: &l.index,
            collisions: &l.collisions,
            spaces: &[(title, embeddings)],
            highlight: 6,
            params: &ProjectionParams::default(),
            use_cache: true,
        },
        progress,
    )?;
    Ok(Some(Figure {
        title: format!("Collision groups in the embedding space · {}", l.files.name),
        note: "Items that share a SID sit together here: the tokenizer could not tell them apart."
            .into(),
        svg: figure.svg()?,
    }))
}

/// The command line, with the program as `sidlens` rather than the absolute path of the binary
/// (which says nothing about the data and would make reports differ between machines).
fn command_line() -> Vec<String> {
    let mut args: Vec<String> = std::env::args().collect();
    if let Some(program) = args.first_mut() {
        *program = Path::new(program.as_str())
            .file_name()
            .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
    }
    args
}
