//! The demo dataset `sidlens` opens by default: a synthetic catalog, users, RK-Means tokenizers,
//! a ZCR and proxy beams in the CollisionGenRec layout, computed deterministically (the same
//! bytes on every machine and thread count).

pub mod catalog;
pub mod users;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::collision::Collisions;
use crate::collision::stats::IndexStats;
use crate::compare::Comparison;
use crate::error::{Error, Result};
use crate::generate::proxy_beams;
use crate::generate::text_embedding::HashedTfidf;
use crate::generate::tokenize::{self, IndexSummary, RkMeansConfig};
use crate::io::write::{write_atomically, write_npy};
use crate::load::dataset::Dataset;
use crate::load::{Codebooks, Interactions, Latents, SidIndex};
use crate::metrics::Compat;
use crate::progress::{Progress, check_cancelled};
use crate::reassign::{self, CostModel, Mode};
use crate::usecase;

/// The dataset name of the demo's files (`Workshop.item.json`, ...).
pub const DATASET: &str = "Workshop";

/// The embedding name in `Workshop.emb-<name>.npy`.
pub const EMBEDDING: &str = "tfidf";

/// The first line of the demo's README, by which a directory is recognised as a demo that
/// `sidlens demo` may replace.
const README_TITLE: &str = "# sidlens demo data";

/// One tokenizer of the demo.
#[derive(Debug, Clone, Copy)]
pub struct DemoTokenizer {
    /// Variant directory name under `indexes/`.
    pub variant: &'static str,
    /// How it is trained.
    pub config: RkMeansConfig,
}

/// A zero-collision reassignment (ZCR) of one of the demo's tokenizers.
#[derive(Debug, Clone, Copy)]
pub struct DemoZcr {
    /// Variant directory name under `indexes/`.
    pub variant: &'static str,
    /// The tokenizer variant it reassigns (its codebooks price the moves).
    pub of: &'static str,
}

/// What the demo is made of. [`DemoConfig::default`] is what `sidlens demo` writes.
#[derive(Debug, Clone)]
pub struct DemoConfig {
    /// Seed of the catalog and the users (tokenizers have their own seeds).
    pub seed: u64,
    /// Number of users.
    pub n_users: usize,
    /// Text embedding of titles + descriptions.
    pub embedding: HashedTfidf,
    /// Tokenizers, one variant each.
    pub tokenizers: Vec<DemoTokenizer>,
    /// ZCR variants of some of them.
    pub zcr: Vec<DemoZcr>,
    /// SIDs per user in the beams files.
    pub beam_width: usize,
}

impl Default for DemoConfig {
    fn default() -> Self {
        let rkmeans = RkMeansConfig::default();
        DemoConfig {
            seed: 2026,
            n_users: 2000,
            embedding: HashedTfidf::default(),
            tokenizers: vec![
                DemoTokenizer {
                    variant: "rkmeans_v32_native",
                    config: RkMeansConfig {
                        codebook_size: 32,
                        ..rkmeans
                    },
                },
                DemoTokenizer {
                    variant: "rkmeans_v64_native",
                    config: RkMeansConfig {
                        codebook_size: 64,
                        ..rkmeans
                    },
                },
            ],
            zcr: vec![DemoZcr {
                variant: "rkmeans_v64_zcr",
                of: "rkmeans_v64_native",
            }],
            beam_width: 20,
        }
    }
}

/// One variant of the generated demo.
#[derive(Debug, Clone, Serialize)]
pub struct VariantSummary {
    /// Variant name.
    pub variant: String,
    /// How the index was made.
    pub made_by: String,
    /// Collision statistics of its index.
    pub stats: IndexSummary,
}

/// What was generated, for the CLI and the README.
#[derive(Debug, Clone, Serialize)]
pub struct DemoSummary {
    /// Dataset name.
    pub dataset: String,
    /// Number of items.
    pub n_items: usize,
    /// Number of users.
    pub n_users: usize,
    /// Number of interactions.
    pub n_interactions: usize,
    /// Every variant.
    pub variants: Vec<VariantSummary>,
    /// The variants side by side at K = 10 (what `sidlens compare DIR --k 10` prints).
    pub comparison: Comparison,
}

/// Where the data `sidlens` opens with no arguments comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoLocation {
    /// `demo_data/` in the working directory (a checkout of the repository).
    WorkingDir(PathBuf),
    /// The `demo_data/` of the source tree this binary was built from.
    SourceTree(PathBuf),
    /// A copy generated into the user's cache directory, for an installed binary far from any
    /// checkout. Generation is deterministic, so it equals the committed `demo_data/` byte for
    /// byte (`tests/cli/demo_data.rs` checks that); this is why the binary does not embed a copy
    /// (`include_bytes!` would add megabytes to every binary and a second copy to keep in step).
    Cache(PathBuf),
}

impl DemoLocation {
    /// The directory.
    pub fn path(&self) -> &Path {
        match self {
            DemoLocation::WorkingDir(p) | DemoLocation::SourceTree(p) | DemoLocation::Cache(p) => p,
        }
    }
}

/// The shipped demo, if one exists: `<cwd>/demo_data`, else the source tree's `demo_data`
/// (the crate directory at compile time).
pub fn find_demo_data(cwd: &Path) -> Option<DemoLocation> {
    find_in(cwd, Path::new(env!("CARGO_MANIFEST_DIR")))
}

fn find_in(cwd: &Path, source_tree: &Path) -> Option<DemoLocation> {
    let local = cwd.join("demo_data");
    if local.join("indexes").is_dir() {
        return Some(DemoLocation::WorkingDir(local));
    }
    let source = source_tree.join("demo_data");
    source
        .join("indexes")
        .is_dir()
        .then_some(DemoLocation::SourceTree(source))
}

/// The cache directory a generated demo goes to: `$XDG_CACHE_HOME/sidlens/demo-<version>`,
/// else `$HOME/.cache/sidlens/demo-<version>`.
pub fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(
        base.join("sidlens")
            .join(format!("demo-{}", env!("CARGO_PKG_VERSION"))),
    )
}

/// The directory `sidlens` opens with no arguments: the shipped demo when there is one (see
/// [`find_demo_data`]), else the cached copy, generated first when missing.
pub fn default_data_dir(cwd: &Path, progress: &dyn Progress) -> Result<DemoLocation> {
    locate(
        cwd,
        Path::new(env!("CARGO_MANIFEST_DIR")),
        cache_dir(),
        progress,
    )
}

fn locate(
    cwd: &Path,
    source_tree: &Path,
    cache: Option<PathBuf>,
    progress: &dyn Progress,
) -> Result<DemoLocation> {
    if let Some(found) = find_in(cwd, source_tree) {
        return Ok(found);
    }
    let cache = cache.ok_or_else(|| {
        Error::Invalid(
            "no demo_data/ here and no cache directory (set HOME or XDG_CACHE_HOME) to generate it into; \
             run `sidlens demo --out DIR` and open DIR"
                .to_string(),
        )
    })?;
    if !cache.join("README.md").is_file() {
        generate(&cache, &DemoConfig::default(), progress)?;
    }
    Ok(DemoLocation::Cache(cache))
}

/// Generates the demo into `out`, replacing an earlier demo there. Refuses a non-empty
/// directory that is not a demo. Files are first written to a sibling temporary directory,
/// which then takes `out`'s place, so an interrupted run never leaves a half demo.
pub fn generate(out: &Path, config: &DemoConfig, progress: &dyn Progress) -> Result<DemoSummary> {
    let Some(name) = out.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Err(Error::Invalid(format!(
            "cannot write the demo into {}: name a directory, such as demo_data",
            out.display()
        )));
    };
    if out.exists() && !is_replaceable(out) {
        return Err(Error::Invalid(format!(
            "refusing to write the demo into {}: it is not empty and not an earlier sidlens demo",
            out.display()
        )));
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
    let staging = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
    }
    let result = write_demo(&staging, config, progress);
    let summary = match result {
        Ok(summary) => summary,
        Err(e) => {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    if out.exists() {
        fs::remove_dir_all(out).map_err(|e| Error::io(out, e))?;
    }
    fs::rename(&staging, out).map_err(|e| Error::io(out, e))?;
    Ok(summary)
}

/// Whether `dir` may be replaced by a new demo: empty, or holding an earlier demo's README.
fn is_replaceable(dir: &Path) -> bool {
    let Ok(mut entries) = fs::read_dir(dir) else {
        return false;
    };
    if entries.next().is_none() {
        return true;
    }
    fs::read_to_string(dir.join("README.md"))
        .map(|text| text.starts_with(README_TITLE))
        .unwrap_or(false)
}

/// Writes every file of the demo into the (new) directory `dir`.
fn write_demo(dir: &Path, config: &DemoConfig, progress: &dyn Progress) -> Result<DemoSummary> {
    fs::create_dir_all(dir.join("indexes")).map_err(|e| Error::io(dir, e))?;
    progress.stage("catalog", 0);
    let catalog = catalog::generate(config.seed);
    let texts: Vec<String> = catalog
        .products
        .iter()
        .map(|p| format!("{} {}", p.title, p.description))
        .collect();
    let embeddings = config.embedding.embed(&texts);
    let sequences = users::generate(&catalog, config.n_users, config.seed.wrapping_add(1));
    let interactions = Interactions::from_sequences(
        &dir.join(format!("{DATASET}.inter.json")),
        sequences.iter().enumerate().map(|(u, seq)| {
            (
                u.to_string(),
                seq.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            )
        }),
    )?;
    check_cancelled(progress)?;
    write_atomically(&dir.join(format!("{DATASET}.item.json")), |w| {
        write_items(&catalog, w)
    })?;
    write_atomically(interactions.path(), |w| interactions.write_json(w))?;
    write_npy(
        &dir.join(format!("{DATASET}.emb-{EMBEDDING}.npy")),
        &embeddings,
    )?;
    let mut variants = Vec::new();
    let mut trained_variants = Vec::new();
    for tokenizer in &config.tokenizers {
        let variant_dir = dir.join("indexes").join(tokenizer.variant);
        fs::create_dir_all(&variant_dir).map_err(|e| Error::io(&variant_dir, e))?;
        let trained = tokenize::train(embeddings.view(), &tokenizer.config, progress)?;
        let index_path = variant_dir.join(format!("{DATASET}.index.json"));
        let index = trained.index(&index_path)?;
        let summary = trained.summary(
            &tokenizer.config,
            &format!("../../{DATASET}.emb-{EMBEDDING}.npy"),
            &index,
        );
        index.save(&index_path)?;
        write_npy(
            &variant_dir.join("codebooks.npy"),
            &trained.model.codebooks(),
        )?;
        write_json(&variant_dir.join(format!("{DATASET}.meta.json")), &summary)?;
        write_beams(
            &variant_dir,
            tokenizer.variant,
            &index,
            &interactions,
            config,
            progress,
        )?;
        variants.push(VariantSummary {
            variant: tokenizer.variant.to_string(),
            made_by: format!(
                "RK-Means, L = {}, V = {}, {} iterations, seed {}",
                tokenizer.config.levels,
                tokenizer.config.codebook_size,
                tokenizer.config.iters,
                tokenizer.config.seed
            ),
            stats: summary.stats,
        });
        trained_variants.push((tokenizer.variant, index, trained));
    }
    for zcr in &config.zcr {
        let (_, native, trained) = trained_variants
            .iter()
            .find(|(name, _, _)| *name == zcr.of)
            .ok_or_else(|| Error::Invalid(format!("no demo tokenizer named {}", zcr.of)))?;
        let variant_dir = dir.join("indexes").join(zcr.variant);
        fs::create_dir_all(&variant_dir).map_err(|e| Error::io(&variant_dir, e))?;
        let index_path = variant_dir.join(format!("{DATASET}.index.json"));
        let emb_path = dir.join(format!("{DATASET}.emb-{EMBEDDING}.npy"));
        let latents = Latents::from_f32(&emb_path, embeddings.clone())?;
        let books = Codebooks::from_array(
            &dir.join("indexes").join(zcr.of).join("codebooks.npy"),
            trained.model.codebooks().mapv(f64::from),
        )?;
        let cost = CostModel::from_codebooks(native, latents, &books)?;
        let plan = reassign::plan(native, &Collisions::new(native), Some(&cost), progress)?;
        let index = plan.apply(native, Mode::Optimal, &index_path)?;
        index.save(&index_path)?;
        write_json(
            &variant_dir.join(format!("{DATASET}.zcr.json")),
            &plan.summary,
        )?;
        write_beams(
            &variant_dir,
            zcr.variant,
            &index,
            &interactions,
            config,
            progress,
        )?;
        let collisions = Collisions::new(&index);
        variants.push(VariantSummary {
            variant: zcr.variant.to_string(),
            made_by: format!(
                "ZCR of {}: {} items get a new last code",
                zcr.of, plan.summary.optimal.n_reassigned
            ),
            stats: IndexSummary::from(&IndexStats::compute(&index, &collisions)),
        });
    }
    let tokenizers = Dataset::discover(dir, None)?.tokenizers();
    let comparison =
        usecase::compare_tokenizers(&tokenizers, &[10], Compat::Faithful, None, None, progress)?
            .comparisons
            .remove(0);
    let summary = DemoSummary {
        dataset: DATASET.to_string(),
        n_items: catalog.products.len(),
        n_users: interactions.n_users(),
        n_interactions: interactions.n_interactions(),
        variants,
        comparison,
    };
    write_atomically(&dir.join("README.md"), |w| {
        w.write_all(readme(&summary, config).as_bytes())
    })?;
    Ok(summary)
}

/// Pretty JSON with a final newline.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_atomically(path, |w| {
        serde_json::to_writer_pretty(&mut *w, value)?;
        w.write_all(b"\n")
    })
}

/// Proxy beams of one variant, `<variant>.per_user.json` in its directory.
fn write_beams(
    variant_dir: &Path,
    variant: &str,
    index: &SidIndex,
    interactions: &Interactions,
    config: &DemoConfig,
    progress: &dyn Progress,
) -> Result<()> {
    let beams = proxy_beams::generate(index, interactions, config.beam_width, progress)?;
    write_atomically(&variant_dir.join(format!("{variant}.per_user.json")), |w| {
        beams.write(index, interactions, false, w)
    })
}

/// `{"0": {"title": ..., "description": ..., "brand": ..., "categories": ...}, ...}`, one
/// item per line.
fn write_items(catalog: &catalog::Catalog, out: &mut dyn Write) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Record<'a> {
        title: &'a str,
        description: &'a str,
        brand: &'a str,
        categories: &'a str,
    }
    out.write_all(b"{")?;
    for (i, p) in catalog.products.iter().enumerate() {
        out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        write!(out, "\"{i}\": ")?;
        serde_json::to_writer(
            &mut *out,
            &Record {
                title: &p.title,
                description: &p.description,
                brand: &p.brand,
                categories: &p.categories,
            },
        )?;
    }
    out.write_all(b"\n}\n")
}

/// The demo directory's README: what is in it and how it was made.
fn readme(summary: &DemoSummary, config: &DemoConfig) -> String {
    let mut text = format!(
        "{README_TITLE}\n\n\
         Generated by `sidlens demo --out demo_data` (sidlens {}); do not edit by hand. A test\n\
         (`tests/cli/demo_data.rs`) regenerates it and checks that every file is byte-identical.\n\
         Everything here is synthetic and computed by sidlens's own code; no file is copied from\n\
         a dataset.\n\n",
        env!("CARGO_PKG_VERSION")
    );
    text.push_str(&format!(
        "- `{DATASET}.item.json`: {} made-up workshop, electronics and lab products in product\n  \
         lines (brands x colours, sizes, pack counts), with titles, descriptions, brands and\n  \
         categories (seed {}).\n\
         - `{DATASET}.inter.json`: {} users, {} interactions. Users are of {} kinds:\n  \
         {}.\n  \
         Each follows one or two projects, often buys several products of one line in a row, and\n  \
         mostly the listings meant for its kind (the next colour or size of a line and the same\n  \
         listing of the next brand are for another kind), so near-identical listings that\n  \
         collide in the text are often far apart by interactions (`sidlens cf`).\n\
         - `{DATASET}.emb-{EMBEDDING}.npy`: {} x {} float32 text embeddings of title + description:\n  \
         hashed word, word-bigram and character {}-{}-gram TF-IDF, L2-normalised\n  \
         (`sidlens::generate::text_embedding`). Near-identical listings land close together.\n",
        summary.n_items,
        config.seed,
        summary.n_users,
        summary.n_interactions,
        users::kinds().count(),
        users::kinds().collect::<Vec<_>>().join(", "),
        summary.n_items,
        config.embedding.dim,
        config.embedding.min_ngram,
        config.embedding.max_ngram,
    ));
    text.push_str(
        "- `indexes/<variant>/`: the SID index (`Workshop.index.json`), the codebooks\n  \
         (`codebooks.npy`, L x V x d, with the embeddings as latents) and how it was built\n  \
         (`Workshop.meta.json`), plus `<variant>.per_user.json`: top-20 SIDs per user from the\n  \
         co-occurrence proxy generator (`sidlens beams`, a transparent baseline, not a trained\n  \
         generative model; leave-one-out, last item = target). A `*_zcr` variant is the native\n  \
         index after zero-collision reassignment (`sidlens zcr`, priced with the native\n  \
         codebooks and the embeddings as latents; totals in `Workshop.zcr.json`).\n\n\
         | variant | made by | collision rate | largest group | collision groups |\n\
         |---|---|---:|---:|---:|\n",
    );
    for v in &summary.variants {
        text.push_str(&format!(
            "| {} | {} | {:.2} % | {} | {} |\n",
            v.variant,
            v.made_by,
            100.0 * v.stats.collision_rate,
            v.stats.g_max,
            v.stats.n_collision_groups
        ));
    }
    let c = &summary.comparison;
    text.push_str(&format!(
        "\nSID-level Hit@{k} credits a hit on a shared SID fully; item-level ItemHit@{k} spreads it over\n\
         the group (`sidlens compare demo_data --k {k}`):\n\n\
         | variant | Hit@{k} | ItemHit@{k} | inflation | rank by Hit@{k} | rank by ItemHit@{k} |\n\
         |---|---:|---:|---:|---:|---:|\n",
        k = c.k
    ));
    for row in &c.rows {
        let Some(values) = row.values else { continue };
        text.push_str(&format!(
            "| {} | {:.4} | {:.4} | {} | {} | {} |\n",
            row.name,
            values.hit,
            values.item_hit,
            row.inflation_pct
                .map_or("n/a".to_string(), |p| format!("{p:+.1} %")),
            row.rank_hit.map_or("-".to_string(), |r| r.to_string()),
            row.rank_item_hit.map_or("-".to_string(), |r| r.to_string()),
        ));
    }
    if !c.flips.is_empty() {
        text.push_str("\nRank flips:\n\n");
        for flip in &c.flips {
            text.push_str(&format!(
                "- {} ranks above {} by Hit@{k} but below it by ItemHit@{k}\n",
                flip.higher_by_hit,
                flip.higher_by_item_hit,
                k = c.k
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    #[test]
    fn prefers_the_working_dir_then_the_source_tree_then_a_generated_cache() {
        let dir = tempfile::tempdir().unwrap();
        let (cwd, source, cache) = (
            dir.path().join("cwd"),
            dir.path().join("src"),
            dir.path().join("cache/sidlens/demo-x"),
        );
        fs::create_dir_all(source.join("demo_data/indexes")).unwrap();
        fs::create_dir_all(&cwd).unwrap();
        let found = locate(&cwd, &source, None, &NoProgress).unwrap();
        assert_eq!(found, DemoLocation::SourceTree(source.join("demo_data")));
        fs::create_dir_all(cwd.join("demo_data/indexes")).unwrap();
        let found = locate(&cwd, &source, None, &NoProgress).unwrap();
        assert_eq!(found, DemoLocation::WorkingDir(cwd.join("demo_data")));
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        assert!(locate(&elsewhere, &elsewhere, None, &NoProgress).is_err());
        let generated = locate(&elsewhere, &elsewhere, Some(cache.clone()), &NoProgress).unwrap();
        assert_eq!(generated, DemoLocation::Cache(cache.clone()));
        assert!(
            cache
                .join("indexes/rkmeans_v64_native/Workshop.index.json")
                .is_file()
        );
        assert_eq!(generated.path(), cache);
    }

    #[test]
    fn refuses_to_replace_a_directory_that_is_not_a_demo() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let err = generate(dir.path(), &DemoConfig::default(), &NoProgress).unwrap_err();
        assert!(
            err.to_string().contains("not an earlier sidlens demo"),
            "{err}"
        );
        assert!(dir.path().join("notes.txt").is_file());
        assert!(generate(Path::new(".."), &DemoConfig::default(), &NoProgress).is_err());
    }
}
