//! `sidlens zcr`: zero-collision reassignment (optimal ZCR next to the greedy baseline), its
//! totals and per-group table, and optionally the reassigned index with a provenance sidecar.

use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};

use crate::collision::Collisions;
use crate::collision::stats::IndexStats;
use crate::io::write::{Outputs, ensure_not_input};
use crate::load::SidIndex;
use crate::reassign::over_capacity::{self, OverCapacity, Resolution};
use crate::reassign::paper_sidecars::{self, PaperStats};
use crate::reassign::provenance::{FileInfo, Inputs, Provenance, sidecar_path};
use crate::reassign::{self, Mode, Mql4grecRule};
use crate::report::document::Document;
use crate::report::reassign::{self as rows, ZcrJson, ZcrWritten};
use crate::usecase::{cost_model_of, read_vectors};
use anyhow::Context;

use super::Globals;
use super::print::print_json;
use super::progress::Bar;
use super::table_format::{TableFormat, print_csv};

/// Arguments of `sidlens zcr`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The SID index to make collision-free.
    #[arg(long, value_name = "FILE")]
    index: PathBuf,
    /// Per-item latents or embeddings (.npy, .safetensors or .pt, N×d, row i = item id i), float32
    /// or float64.
    #[arg(long, value_name = "FILE")]
    latents: Option<PathBuf>,
    /// The tokenizer's codebooks (.npy, .safetensors or .pt, L×V×d). Without them they are
    /// estimated from the latents (each codeword = mean residual of its items).
    #[arg(long, value_name = "FILE", requires = "latents")]
    codebooks: Option<PathBuf>,
    /// Codebook size V (default: from the codebooks, else the largest code + 1).
    #[arg(long, value_name = "V", value_parser = super::at_least_one)]
    codebook_size: Option<usize>,
    /// Write the reassigned index here (same format and token scheme as the input), plus
    /// `<FILE>.zcr.json` and the paper's `<DS>.zcr_provenance.json` and `<DS>.stats.json`.
    #[arg(long, value_name = "FILE", requires = "latents")]
    out: Option<PathBuf>,
    /// Which assignment --out writes.
    #[arg(long, value_enum, default_value_t = ModeArg::Optimal)]
    mode: ModeArg,
    /// What to do with prefix groups larger than V: leave them, append TIGER's extra code
    /// (L + 1 levels), or move the items that must move into free (L−1, L) pairs.
    #[arg(long, value_enum, default_value_t = OverCapacityArg::Keep)]
    over_capacity: OverCapacityArg,
    /// Leave out MQL4GRec's exact rule (its column, JSON `mql4grec: null`): ZCR against
    /// greedy only, as the paper's zcr.py computes, in about a third less time on a large index.
    #[arg(long)]
    without_mql4grec: bool,
    /// Also list every prefix group: who keeps which code, ΔD per item.
    #[arg(long)]
    groups: bool,
    #[command(flatten)]
    format: TableFormat,
}

/// `--mode` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ModeArg {
    /// ZCR: fewest changes, then least total ΔD.
    Optimal,
    /// The greedy rule as the paper describes MQL4GRec.
    Greedy,
    /// MQL4GRec's own code, ported literally (may change the last two levels).
    Mql4grec,
}

/// `--over-capacity` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum OverCapacityArg {
    /// Leave groups larger than V unchanged and report them.
    Keep,
    /// TIGER's appended disambiguation code: one more level, numbering each SID's items.
    Append,
    /// Least-cost moves into free (L−1, L) code pairs of the same (L−2)-prefix.
    TwoLevel,
}

impl From<OverCapacityArg> for OverCapacity {
    fn from(m: OverCapacityArg) -> Self {
        match m {
            OverCapacityArg::Keep => OverCapacity::Keep,
            OverCapacityArg::Append => OverCapacity::Append,
            OverCapacityArg::TwoLevel => OverCapacity::TwoLevel,
        }
    }
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Self {
        match m {
            ModeArg::Optimal => Mode::Optimal,
            ModeArg::Greedy => Mode::Greedy,
            ModeArg::Mql4grec => Mode::Mql4grec,
        }
    }
}

/// Runs `sidlens zcr`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let inputs: Vec<&Path> = [
        Some(&args.index),
        args.latents.as_ref(),
        args.codebooks.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(PathBuf::as_path)
    .collect();
    if let Some(out) = &args.out {
        ensure_not_input(out, &inputs)?;
        ensure_not_input(&sidecar_path(out), &inputs)?;
        let (provenance, stats) = paper_sidecars::sidecar_paths(out);
        ensure_not_input(&provenance, &inputs)?;
        ensure_not_input(&stats, &inputs)?;
    }
    if args.without_mql4grec && matches!(args.mode, ModeArg::Mql4grec) {
        anyhow::bail!(
            "--mode mql4grec writes MQL4GRec's rule, which --without-mql4grec leaves out"
        );
    }
    let bar = Bar::new(globals.quiet);
    // The latents need no index to be read: read them while the index is parsed.
    let (index, vectors) = rayon::join(
        || SidIndex::load_as(&args.index, args.codebook_size, globals.sid_format),
        || read_vectors(args.latents.as_deref(), args.codebooks.as_deref(), &bar),
    );
    // The process ends after this command: what it loaded and planned is left to the exit
    // instead of freed piece by piece (40 ms on one core at 1M items, 2 % of the run).
    let (index, vectors) = (ManuallyDrop::new(index?), vectors?);
    let (collisions, cost) = rayon::join(
        || ManuallyDrop::new(Collisions::new(&index)),
        || cost_model_of(&index, vectors, &bar),
    );
    let cost = ManuallyDrop::new(cost?);
    let rule = if args.without_mql4grec {
        Mql4grecRule::Skip
    } else {
        Mql4grecRule::Run
    };
    let planned = reassign::plan_with(&index, &collisions, cost.as_ref(), rule, &bar)?;
    let mut plan = ManuallyDrop::new(planned);
    let mode = Mode::from(args.mode);
    let policy = OverCapacity::from(args.over_capacity);
    let resolution = match (policy, &*cost) {
        (OverCapacity::Keep, _) => None,
        (_, None) => anyhow::bail!("--over-capacity needs --latents to price the moves"),
        (_, Some(cost)) => Some(over_capacity::resolve(
            &index, &plan, mode, policy, cost, &bar,
        )?),
    };
    drop(bar);
    args.format.warn(&plan.warnings);
    plan.summary.over_capacity = resolution.as_ref().map(|r| r.totals.clone());
    let written = match &args.out {
        Some(out) => Some(write_outputs(
            &args,
            &index,
            &collisions,
            &plan,
            resolution.as_ref(),
            mode,
            out,
        )?),
        None => None,
    };
    let skipped = rows::skipped_rows(&index, &plan);
    let groups = args.groups.then(|| rows::group_rows(&index, &plan, None));
    if args.format.json {
        return print_json(&ZcrJson {
            summary: &plan.summary,
            skipped_groups: skipped,
            groups,
            written,
            latent_agreement: plan.latent_agreement,
            warnings: plan.warnings.clone(),
        });
    }
    if args.format.csv {
        print_csv(&match &groups {
            Some(groups) => rows::groups_csv_table(groups),
            None => rows::summary_csv_table(&plan.summary),
        })?;
    } else {
        let mut doc = Document::new();
        doc.prose(format!("{}\n", args.index.display()));
        doc.table(rows::overview_table(&plan.summary));
        doc.prose("\n");
        doc.table(rows::summary_table(&plan.summary));
        if let Some(r) = resolution
            .as_ref()
            .filter(|r| !r.totals.two_level.is_empty())
        {
            doc.prose("\ntwo-level moves (over-capacity groups):\n");
            doc.table(rows::two_level_table(&r.totals.two_level));
        }
        if !skipped.is_empty() {
            let label = match policy {
                OverCapacity::Keep => "left unchanged",
                OverCapacity::Append => "over capacity (resolved by the appended code)",
                OverCapacity::TwoLevel => "over capacity (two-level moves above)",
            };
            doc.prose(format!("\n{label}:\n"));
            doc.table(rows::skipped_table(&skipped));
        }
        if let Some(groups) = &groups {
            doc.prose("\n");
            doc.table(rows::groups_table(groups));
        }
        let mut notes = String::new();
        for w in &plan.warnings {
            notes.push_str(&format!("warning: {w}\n"));
        }
        doc.prose(notes);
        args.format.print(&doc)?;
    }
    if let Some(w) = &written {
        eprintln!(
            "wrote {}, {}, {} and {}",
            w.index, w.sidecar, w.paper_sidecars[0], w.paper_sidecars[1]
        );
    }
    Ok(())
}

/// Writes the reassigned index and its sidecar, both atomically.
fn write_outputs(
    args: &Args,
    index: &SidIndex,
    collisions: &Collisions,
    plan: &reassign::Plan,
    resolution: Option<&Resolution>,
    mode: Mode,
    out: &Path,
) -> anyhow::Result<ZcrWritten> {
    let reassigned = match resolution {
        Some(r) => index.with_codes(out, r.remedy.codes.clone(), r.remedy.n_levels),
        None => plan.apply(index, mode, out)?,
    };
    let latents = args.latents.as_deref().context("--out needs --latents")?;
    let stats_before = IndexStats::compute(index, collisions);
    let stats_after = IndexStats::compute(&reassigned, &Collisions::new(&reassigned));
    let paper = PaperStats::new(mode, &plan.summary, &stats_before, &stats_after);
    let provenance = Provenance {
        tool: "sidlens",
        version: env!("CARGO_PKG_VERSION"),
        mode,
        output: out.display().to_string(),
        inputs: Inputs {
            index: FileInfo::of(&args.index)?,
            latents: FileInfo::of(latents)?,
            codebooks: args.codebooks.as_deref().map(FileInfo::of).transpose()?,
        },
        totals: plan.summary.clone(),
        stats_before,
        stats_after,
    };
    // The index and its sidecar appear together or not at all.
    let sidecar = sidecar_path(out);
    let mut outputs = Outputs::new();
    outputs.add(out, |w| reassigned.write_for(out, w))?;
    outputs.add(&sidecar, |w| {
        serde_json::to_writer_pretty(&mut *w, &provenance)?;
        w.write_all(b"\n")
    })?;
    let (prov_path, stats_path) = paper_sidecars::write(out, &paper, &mut outputs)?;
    outputs.commit()?;
    Ok(ZcrWritten {
        index: out.display().to_string(),
        sidecar: sidecar.display().to_string(),
        paper_sidecars: [
            prov_path.display().to_string(),
            stats_path.display().to_string(),
        ],
        mode,
        sid_format: reassigned.scheme().example(),
    })
}
