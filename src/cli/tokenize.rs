//! `sidlens tokenize`: build an RK-Means (residual k-means) SID index from item embeddings.

use std::path::{Path, PathBuf};

use crate::collab::fusion::fuse;
use crate::collision::Collisions;
use crate::collision::stats::IndexStats;
use crate::generate::tokenize::{self, Init, RkMeansConfig};
use crate::io::write::{Outputs, ensure_not_input, npy};
use crate::load::{Latents, LatentsView};
use crate::report::format::text;
use crate::report::{self};
use anyhow::Context;
use ndarray::Array2;

use super::Globals;
use super::print::{print_json, print_text};
use super::progress::Bar;

/// Arguments of `sidlens tokenize`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Item embeddings, an N × d float32 or float64 .npy, .safetensors or .pt (row i = item
    /// id i).
    #[arg(long, value_name = "FILE")]
    embeddings: PathBuf,
    /// Fuse a collaborative embedding (.npy, .safetensors or .pt, same rows, e.g. from `sidlens
    /// cf`) into the input as the paper's RK-Means CF variant does: [x/‖x‖; α·x_cf], then PCA to
    /// min(d_text, n − 1, d_text + d_cf) components. The fused rows are written as latents.npy.
    #[arg(long, value_name = "FILE")]
    fuse_cf: Option<PathBuf>,
    /// Weight α of the collaborative part.
    #[arg(long, value_name = "A", default_value_t = 0.5, requires = "fuse_cf")]
    alpha: f64,
    /// Number of levels L (codes per item).
    #[arg(long, value_name = "L", default_value_t = 4,
          value_parser = clap::value_parser!(u8).range(1..=8))]
    levels: u8,
    /// Codebook size V of every level.
    #[arg(long, value_name = "V", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(2..=65536))]
    codebook_size: u32,
    /// Lloyd iterations per level.
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..))]
    iters: u32,
    /// How each level's k-means picks its first centroids: `random` (k distinct items, like
    /// faiss in the reference) or `kmeans++`.
    #[arg(long, value_enum, default_value_t = InitArg::Random)]
    init: InitArg,
    /// Seed of the first level (level l uses seed + l).
    #[arg(long, value_name = "S", default_value_t = 42)]
    seed: u64,
    /// Name of the index file, `<NAME>.index.json` (default: the dataset name of the
    /// embeddings file, e.g. `Scientific` for `Scientific.emb-minilm.npy`).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Output directory (created if missing): the index, `codebooks.npy`, `latents.npy` and
    /// `<NAME>.meta.json`.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// Initialisation choices on the command line.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum InitArg {
    /// k distinct items drawn uniformly (faiss's choice, the reference's).
    Random,
    /// k-means++ seeding.
    #[value(name = "kmeans++")]
    KmeansPlusPlus,
}

/// Runs `sidlens tokenize`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let mut embeddings = read_embeddings(&args.embeddings)?;
    let name = match &args.name {
        Some(name) => name.clone(),
        None => dataset_name(&args.embeddings),
    };
    let config = RkMeansConfig {
        levels: usize::from(args.levels),
        codebook_size: args.codebook_size as usize,
        iters: args.iters as usize,
        init: match args.init {
            InitArg::Random => Init::Random,
            InitArg::KmeansPlusPlus => Init::PlusPlus,
        },
        seed: args.seed,
    };
    let index_path = args.out.join(format!("{name}.index.json"));
    let codebooks_path = args.out.join("codebooks.npy");
    let latents_path = args.out.join("latents.npy");
    let meta_path = args.out.join(format!("{name}.meta.json"));
    let mut inputs = vec![args.embeddings.as_path()];
    if let Some(cf) = &args.fuse_cf {
        inputs.push(cf);
    }
    for out in [&index_path, &codebooks_path, &latents_path, &meta_path] {
        ensure_not_input(out, &inputs)?;
    }
    let bar = Bar::new(globals.quiet);
    let mut fusion = None;
    if let Some(cf_path) = &args.fuse_cf {
        let cf = read_embeddings(cf_path)?;
        let name = cf_path.display().to_string();
        let fused = fuse(embeddings.view(), cf.view(), args.alpha, &name, &bar)?;
        embeddings = fused.latents;
        fusion = Some(fused.summary);
    }
    let result = tokenize::train(embeddings.view(), &config, &bar)?;
    drop(bar);
    let index = result.index(&index_path)?;
    let mut summary = result.summary(&config, &args.embeddings.display().to_string(), &index);
    summary.fusion = fusion;
    // The folder is made once training has succeeded, and its four files appear together.
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut outputs = Outputs::new();
    outputs.add(&index_path, |w| index.write_json(w))?;
    outputs.add(&codebooks_path, |w| npy(&result.model.codebooks(), w))?;
    outputs.add(&latents_path, |w| npy(&embeddings, w))?;
    outputs.add(&meta_path, |w| {
        serde_json::to_writer_pretty(&mut *w, &summary)?;
        w.write_all(b"\n")
    })?;
    outputs.commit()?;
    if args.json {
        return print_json(&summary);
    }
    let stats = IndexStats::compute(&index, &Collisions::new(&index));
    let mut out = text::render(&report::stats::overview(&stats));
    if let Some(f) = &summary.fusion {
        out.push_str(&format!(
            "\nfused with {} (α = {}): {} → {} PCA components, {:.2} % of the variance\n",
            f.cf,
            f.alpha,
            f.concatenated_dim,
            f.components,
            100.0 * f.explained_variance_ratio
        ));
    }
    out.push_str(&format!(
        "\nreconstruction MSE {:.6}; encode differs from training for {} items\nwrote {}, {}, {}, {}\n",
        summary.reconstruction_mse,
        summary.encode_differs_from_training,
        index_path.display(),
        codebooks_path.display(),
        latents_path.display(),
        meta_path.display()
    ));
    print_text(&out)
}

/// The dataset name in a CollisionGenRec embeddings file name (`Scientific.emb-minilm.npy` →
/// `Scientific`), else the file stem.
fn dataset_name(path: &Path) -> String {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match file.split_once(".emb-") {
        Some((name, _)) if !name.is_empty() => name.to_string(),
        _ => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "index".to_string()),
    }
}

/// Reads an N × d float32 or float64 .npy (validated by the library's vector loader) as f32;
/// float64 values are rounded to the nearest float32.
fn read_embeddings(path: &Path) -> crate::Result<Array2<f32>> {
    Ok(match Latents::load(path)?.view() {
        LatentsView::F32(a) => a.to_owned(),
        LatentsView::F64(a) => a.mapv(|v| v as f32),
    })
}
