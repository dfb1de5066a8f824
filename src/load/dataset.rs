//! Dataset directories in the CollisionGenRec layout (`DIR/<DS>.inter.json`,
//! `DIR/indexes/<VARIANT>/<DS>.index.json`, ...): finds every tokenizer variant and the files
//! that go with it. Only paths are returned; nothing is loaded.

use std::path::{Path, PathBuf};

use super::TokenizerFiles;
use crate::error::{Error, Place, Result};

/// A dataset directory: the shared files and one [`TokenizerFiles`] per tokenizer variant
/// (`DIR/indexes/<VARIANT>/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dataset {
    /// The dataset name `<DS>` (e.g. `Scientific`).
    pub name: String,
    /// The directory.
    pub root: PathBuf,
    /// `DIR/<DS>.item.json`, item metadata, when present.
    pub items: Option<PathBuf>,
    /// `DIR/<DS>.inter.json`, user interaction sequences, when present.
    pub interactions: Option<PathBuf>,
    /// `DIR/<DS>.emb-*.npy`, item embeddings, sorted by name.
    pub embeddings: Vec<PathBuf>,
    /// The tokenizer variants, sorted by name.
    pub variants: Vec<TokenizerFiles>,
    /// Files in the beams folder that no variant's name matched.
    pub unmatched_beams: Vec<PathBuf>,
}

/// Where the paper's `model/test.py` writes its aggregates for a beams file it wrote:
/// `results/<DS>/<VARIANT>.json` beside `<VARIANT>_per_user.json` (it derives one name from
/// the other with `replace(".json", "_per_user.json")`); `None` when there is none.
pub fn paper_results_of(beams: &Path) -> Option<PathBuf> {
    let name = beams.file_name()?.to_str()?;
    let variant = name.strip_suffix("_per_user.json")?;
    existing(beams.with_file_name(format!("{variant}.json")))
}

/// The interactions of the dataset an index belongs to in the CollisionGenRec layout:
/// `ROOT/<DS>.inter.json` for an index at `ROOT/indexes/<VARIANT>/<DS>.index.json`.
pub fn interactions_of_index(index: &Path) -> Option<PathBuf> {
    let ds = strip_index_suffix(index.file_name()?.to_str()?)?;
    let indexes = index.parent()?.parent()?;
    if indexes.file_name()? != "indexes" {
        return None;
    }
    existing(indexes.parent()?.join(format!("{ds}.inter.json")))
}

/// Beams file names of a variant: sidlens's and the reference fixtures' `.per_user`, and
/// the paper's `test.py --save_per_user` `_per_user`.
const BEAM_SUFFIXES: [&str; 6] = [
    ".per_user.jsonl",
    ".per_user.json",
    ".per_user.parquet",
    "_per_user.jsonl",
    "_per_user.json",
    "_per_user.parquet",
];

/// Index file endings, in the order they are looked for: JSON, then a Parquet table.
const INDEX_SUFFIXES: [&str; 2] = [".index.json", ".index.parquet"];

/// Tensor file endings for latents, codebooks and embeddings, in the order they are tried.
const TENSOR_EXTENSIONS: [&str; 4] = ["npy", "safetensors", "pt", "pth"];

/// `DIR/BASE.npy`, else `.safetensors`, `.pt`, `.pth`, whichever exists first.
fn tensor_file(dir: &Path, base: &str) -> Option<PathBuf> {
    TENSOR_EXTENSIONS
        .iter()
        .find_map(|e| existing(dir.join(format!("{base}.{e}"))))
}

/// Whether `name` is a tensor file name (`.npy`, `.safetensors`, `.pt`, `.pth`).
fn is_tensor_name(name: &str) -> bool {
    TENSOR_EXTENSIONS
        .iter()
        .any(|e| name.ends_with(&format!(".{e}")))
}

/// `name` without its index ending (`.index.json`, `.index.parquet`).
fn strip_index_suffix(name: &str) -> Option<&str> {
    INDEX_SUFFIXES.iter().find_map(|s| name.strip_suffix(s))
}

impl Dataset {
    /// Every variant as the front ends open it. A variant with codebooks but no latents of
    /// its own encoded the dataset's embeddings (the CollisionGenRec layout), so those are its
    /// latents.
    pub fn tokenizers(&self) -> Vec<TokenizerFiles> {
        let embeddings = self.embeddings.first();
        self.variants
            .iter()
            .map(|v| TokenizerFiles {
                latents: v
                    .latents
                    .clone()
                    .or_else(|| v.codebooks.as_ref().and(embeddings.cloned())),
                ..v.clone()
            })
            .collect()
    }

    /// Discovers the dataset at `root`. Beams of a variant are looked for, in this order: in
    /// `beams_dir` (`<VARIANT>.per_user.json[l]` or the paper's `<VARIANT>_per_user.json`)
    /// when given, else in a repository checkout's `results/<DS>/` (`root` being
    /// `REPO/data/<DS>`); beside the variant folder (`indexes/<VARIANT>.per_user.json[l]`);
    /// inside it (the same names, then any `*_per_user.json[l]` or `*.per_user.json[l]`).
    /// A repository checkout itself (`REPO/data/<DS>/` + `REPO/results/<DS>/`) opens as its
    /// one dataset.
    pub fn discover(root: &Path, beams_dir: Option<&Path>) -> Result<Dataset> {
        let data = root.join("data");
        if !root.join("indexes").is_dir() && data.is_dir() {
            let datasets: Vec<PathBuf> = list(&data)?
                .into_iter()
                .filter(|p| p.join("indexes").is_dir())
                .collect();
            return match &datasets[..] {
                [one] => Self::discover(one, beams_dir),
                [] => Err(Error::data(
                    &data,
                    Place::File,
                    "holds no dataset folder with indexes/ (expected data/<DS>/indexes/<VARIANT>/<DS>.index.json)",
                )),
                several => Err(Error::data(
                    root,
                    Place::File,
                    format!(
                        "is a repository with several datasets ({}); open one, e.g. {}",
                        several
                            .iter()
                            .map(|p| file_name(p))
                            .collect::<Vec<_>>()
                            .join(", "),
                        several[0].display()
                    ),
                )),
            };
        }
        if !root.is_dir() {
            return Err(Error::data(
                root,
                Place::File,
                "is not a directory (expected a dataset folder in the CollisionGenRec layout)",
            ));
        }
        if let Some(d) = beams_dir
            && !d.is_dir()
        {
            return Err(Error::data(
                d,
                Place::File,
                "is not a directory (--beams-dir)",
            ));
        }
        let indexes = root.join("indexes");
        if !indexes.is_dir() {
            return Err(Error::data(
                root,
                Place::File,
                "is not a CollisionGenRec dataset folder: it has no indexes/ folder (expected DIR/indexes/<VARIANT>/<DS>.index.json)",
            ));
        }
        let variant_dirs: Vec<PathBuf> =
            list(&indexes)?.into_iter().filter(|p| p.is_dir()).collect();
        let name = dataset_name(root, &variant_dirs)?;
        let repo_results = repository_results(root, &name);
        let beams_dir = beams_dir.or(repo_results.as_deref());
        let mut variants = Vec::new();
        for dir in variant_dirs {
            let Some(index) = INDEX_SUFFIXES
                .iter()
                .find_map(|s| existing(dir.join(format!("{name}{s}"))))
            else {
                continue;
            };
            let variant = file_name(&dir);
            let beams = find_beams(&variant, &dir, &indexes, beams_dir)?;
            let beams_sought = if beams.is_empty() {
                beams_sought(&variant, &dir, &indexes, beams_dir)
            } else {
                Vec::new()
            };
            variants.push(TokenizerFiles {
                codebooks: tensor_file(&dir, "codebooks"),
                latents: tensor_file(&dir, "latents"),
                name: variant,
                index,
                beams,
                beams_sought,
            });
        }
        if variants.is_empty() {
            return Err(Error::data(
                &indexes,
                Place::File,
                format!("holds no tokenizer variant: expected <VARIANT>/{name}.index.json"),
            ));
        }
        let prefix = format!("{name}.emb-");
        let embeddings = list(root)?
            .into_iter()
            .filter(|p| {
                let n = file_name(p);
                p.is_file() && n.starts_with(&prefix) && is_tensor_name(&n)
            })
            .collect();
        let unmatched_beams = match beams_dir {
            Some(d) => list(d)?
                .into_iter()
                .filter(|p| p.is_file() && !variants.iter().any(|v| v.beams.contains(p)))
                .collect(),
            None => Vec::new(),
        };
        Ok(Dataset {
            items: existing(root.join(format!("{name}.item.json"))),
            interactions: existing(root.join(format!("{name}.inter.json"))),
            root: root.to_path_buf(),
            name,
            embeddings,
            variants,
            unmatched_beams,
        })
    }
}

impl Dataset {
    /// One index file as a dataset of one variant, its files found beside it by name:
    /// beams `<STEM>.per_user.json[l]` / `<STEM>_per_user.json[l]` (or the folder's only
    /// beams file), `latents.npy` / `<STEM>.latents.npy`, `codebooks.npy`, and the item file
    /// and embeddings `<DS>.item.json` / `<DS>.emb-*.npy` in its folder or, for
    /// `DIR/indexes/<VARIANT>/<DS>.index.json`, in `DIR`. `<DS>` is the name up to its
    /// first dot; `<STEM>` the name without `.index.json` / `.json`.
    pub fn of_index(index: &Path) -> Result<Dataset> {
        if !index.is_file() {
            return Err(Error::data(index, Place::File, "is not a file"));
        }
        let dir = index.parent().unwrap_or(Path::new(".")).to_path_buf();
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let file = file_name(index);
        let stem = strip_index_suffix(&file)
            .or_else(|| file.strip_suffix(".json"))
            .or_else(|| file.strip_suffix(".parquet"))
            .unwrap_or(&file)
            .to_string();
        let ds = file.split('.').next().unwrap_or("").to_string();
        let in_layout = dir.parent().filter(|p| file_name(p) == "indexes");
        let root = in_layout.and_then(Path::parent).map(Path::to_path_buf);
        let name = match in_layout {
            Some(_) => file_name(&dir),
            None => stem.clone(),
        };
        let mut beams = Vec::new();
        for s in BEAM_SUFFIXES {
            for base in [&stem, &name] {
                let p = dir.join(format!("{base}{s}"));
                if p.is_file() && !beams.contains(&p) {
                    beams.push(p);
                }
            }
        }
        if beams.is_empty() {
            let all: Vec<PathBuf> = list(&dir)?
                .into_iter()
                .filter(|p| BEAM_SUFFIXES.iter().any(|s| file_name(p).ends_with(s)))
                .collect();
            if let [one] = &all[..] {
                beams.push(one.clone());
            }
        }
        let shared = root.clone().unwrap_or_else(|| dir.clone());
        let find = |n: String| existing(dir.join(&n)).or_else(|| existing(shared.join(&n)));
        let prefix = format!("{ds}.emb-");
        let mut embeddings: Vec<PathBuf> = Vec::new();
        for d in [&dir, &shared] {
            for p in list(d)? {
                let n = file_name(&p);
                if n.starts_with(&prefix) && is_tensor_name(&n) && !embeddings.contains(&p) {
                    embeddings.push(p);
                }
            }
        }
        let items = find(format!("{ds}.item.json"));
        let interactions = find(format!("{ds}.inter.json"));
        let beams_sought = if beams.is_empty() {
            [&stem, &name]
                .iter()
                .map(|base| format!("{}/{base}[._]per_user.json[l]", dir.display()))
                .collect()
        } else {
            Vec::new()
        };
        Ok(Dataset {
            name: ds.clone(),
            root: shared,
            items,
            interactions,
            embeddings,
            variants: vec![TokenizerFiles {
                name,
                index: index.to_path_buf(),
                beams,
                codebooks: tensor_file(&dir, &format!("{stem}.codebooks"))
                    .or_else(|| tensor_file(&dir, "codebooks")),
                latents: tensor_file(&dir, &format!("{stem}.latents"))
                    .or_else(|| tensor_file(&dir, "latents")),
                beams_sought,
            }],
            unmatched_beams: Vec::new(),
        })
    }
}

/// `REPO/results/<DS>/` for a dataset at `REPO/data/<DS>/`, when it exists.
fn repository_results(root: &Path, name: &str) -> Option<PathBuf> {
    let data = root.parent()?;
    if file_name(data) != "data" {
        return None;
    }
    let results = data.parent()?.join("results").join(name);
    results.is_dir().then_some(results)
}

/// `<DS>`: from the one `*.inter.json`, else from the index files (`<DS>.index.json`).
fn dataset_name(root: &Path, variant_dirs: &[PathBuf]) -> Result<String> {
    let inter: Vec<String> = list(root)?
        .iter()
        .filter_map(|p| file_name(p).strip_suffix(".inter.json").map(str::to_string))
        .collect();
    let mut from_indexes: Vec<String> = Vec::new();
    for dir in variant_dirs {
        for p in list(dir)? {
            if let Some(ds) = strip_index_suffix(&file_name(&p)) {
                from_indexes.push(ds.to_string());
            }
        }
    }
    from_indexes.sort();
    from_indexes.dedup();
    if let [one] = &inter[..] {
        return Ok(one.clone());
    }
    match &from_indexes[..] {
        [one] => Ok(one.clone()),
        [] => Err(Error::data(
            root,
            Place::File,
            "is not a CollisionGenRec dataset folder: no indexes/<VARIANT>/<DS>.index.json found",
        )),
        several => {
            let dir_name = file_name(root);
            if several.contains(&dir_name) {
                Ok(dir_name)
            } else {
                Err(Error::data(
                    root,
                    Place::File,
                    format!(
                        "holds indexes of several datasets ({}); add a <DS>.inter.json to say which",
                        several.join(", ")
                    ),
                ))
            }
        }
    }
}

/// The beams of `variant`: the files of the most specific place that has any (`beams_dir`,
/// then `indexes/`, then the variant's folder), all of them, one per seed. A place's files are
/// `<VARIANT>.per_user.json[l]` and `<VARIANT>.seed<N>.per_user.json[l]`; in the variant's
/// folder any `*per_user.json[l]` beside the index.
fn find_beams(
    variant: &str,
    dir: &Path,
    indexes: &Path,
    beams_dir: Option<&Path>,
) -> Result<Vec<PathBuf>> {
    let is_beams = |n: &str| BEAM_SUFFIXES.iter().any(|s| n.ends_with(s));
    let of_variant = |p: &PathBuf| {
        let n = file_name(p);
        BEAM_SUFFIXES.iter().any(|s| n == format!("{variant}{s}"))
            || n.strip_prefix(&format!("{variant}.seed"))
                .is_some_and(|rest| {
                    let digits = rest.chars().take_while(char::is_ascii_digit).count();
                    digits > 0 && BEAM_SUFFIXES.contains(&&rest[digits..])
                })
    };
    let mut places: Vec<Vec<PathBuf>> = Vec::new();
    if let Some(d) = beams_dir {
        places.push(
            list(d)?
                .into_iter()
                .filter(|p| p.is_file() && of_variant(p))
                .collect(),
        );
    }
    places.push(
        list(indexes)?
            .into_iter()
            .filter(|p| p.is_file() && of_variant(p))
            .collect(),
    );
    places.push(
        list(dir)?
            .into_iter()
            .filter(|p| p.is_file() && is_beams(&file_name(p)))
            .collect(),
    );
    Ok(places
        .into_iter()
        .find(|p| !p.is_empty())
        .unwrap_or_default())
}

/// Where [`find_beams`] looked for `variant`'s beams, as patterns a user can match a file
/// name against.
fn beams_sought(
    variant: &str,
    dir: &Path,
    indexes: &Path,
    beams_dir: Option<&Path>,
) -> Vec<String> {
    let named = |place: &Path| {
        [
            format!("{}/{variant}.per_user.json[l]", place.display()),
            format!("{}/{variant}_per_user.json[l]", place.display()),
            format!("{}/{variant}.seed<N>.per_user.json[l]", place.display()),
        ]
    };
    let mut sought = Vec::new();
    if let Some(d) = beams_dir {
        sought.extend(named(d));
    }
    sought.extend(named(indexes));
    sought.push(format!("{}/*per_user.json[l]", dir.display()));
    sought
}

impl Dataset {
    /// What a reader of anything computed from this dataset must know: beams files in the
    /// beams folder that matched no variant (a naming slip leaves a tokenizer without
    /// metrics), worded once for every surface.
    pub fn warnings(&self) -> Vec<String> {
        if self.unmatched_beams.is_empty() {
            return Vec::new();
        }
        let names: Vec<String> = self.unmatched_beams.iter().map(|p| file_name(p)).collect();
        let variants: Vec<&str> = self.variants.iter().map(|v| v.name.as_str()).collect();
        vec![format!(
            "{} in the beams folder matched no tokenizer ({}): beams are named <VARIANT>.per_user.json[l], <VARIANT>_per_user.json[l] or <VARIANT>.seed<N>.per_user.json[l]",
            names.join(", "),
            variants.join(", ")
        )]
    }
}

/// The entries of a directory, sorted by name.
fn list(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        entries.push(entry.map_err(|e| Error::io(dir, e))?.path());
    }
    entries.sort();
    Ok(entries)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn existing(p: PathBuf) -> Option<PathBuf> {
    p.is_file().then_some(p)
}

/// `../shared/reference` for the unit tests that read it, or `None` (with one line for the
/// whole run) where a fresh clone has none; `SIDLENS_REQUIRE_REFERENCE=1` makes it required.
#[cfg(test)]
pub(crate) fn reference_for_tests() -> Option<PathBuf> {
    static NOTICE: std::sync::Once = std::sync::Once::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("SIDLENS_REQUIRE_REFERENCE").is_none_or(|v| v != "1"),
        "{} not found, and SIDLENS_REQUIRE_REFERENCE=1 says the tests that read it must run",
        dir.display()
    );
    NOTICE.call_once(|| {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"skipping: the unit tests that read ../shared/reference (not found beside the checkout)\n",
        );
    });
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn touch(p: &Path) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, "{}").unwrap();
    }

    #[test]
    fn finds_variants_files_and_beams() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("Toys");
        for f in [
            "Toys.inter.json",
            "Toys.item.json",
            "Toys.emb-minilm.npy",
            "Toys.emb-t5.npy",
            "other.npy",
            "indexes/b_native/Toys.index.json",
            "indexes/b_native/codebooks.npy",
            "indexes/b_native/latents.npy",
            "indexes/b_native/run3_per_user.json",
            "indexes/b_native/b_native.per_user.jsonl",
            "indexes/b_native.per_user.json",
            "indexes/a_zcr/Toys.index.json",
            "indexes/empty/readme.txt",
            "extra/a_zcr.per_user.json",
        ] {
            touch(&root.join(f));
        }
        let ds = Dataset::discover(&root, Some(&root.join("extra"))).unwrap();
        assert_eq!(ds.name, "Toys");
        assert_eq!(ds.items, Some(root.join("Toys.item.json")));
        assert_eq!(ds.interactions, Some(root.join("Toys.inter.json")));
        assert_eq!(
            ds.embeddings,
            vec![
                root.join("Toys.emb-minilm.npy"),
                root.join("Toys.emb-t5.npy")
            ]
        );
        let names: Vec<&str> = ds.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["a_zcr", "b_native"]);
        let a = &ds.variants[0];
        assert_eq!(a.beams, vec![root.join("extra/a_zcr.per_user.json")]);
        assert_eq!((a.codebooks.as_ref(), a.latents.as_ref()), (None, None));
        let b = &ds.variants[1];
        assert_eq!(b.index, root.join("indexes/b_native/Toys.index.json"));
        // The most specific place with beams wins; its files are the seeds.
        assert_eq!(b.beams, vec![root.join("indexes/b_native.per_user.json")]);
        assert_eq!(b.beams_file(), Some(b.beams[0].as_path()));
        assert_eq!(
            b.codebooks,
            Some(root.join("indexes/b_native/codebooks.npy"))
        );
        assert_eq!(b.latents, Some(root.join("indexes/b_native/latents.npy")));
    }

    #[test]
    fn seed_files_are_one_tokenizer() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for f in [
            "indexes/v/D.index.json",
            "indexes/v/run_a_per_user.json",
            "indexes/v/run_b_per_user.json",
            "indexes/w/D.index.json",
            "beams/v.seed123.per_user.json",
            "beams/v.seed42.per_user.jsonl",
            "beams/v.seedx.per_user.json",
            "beams/vv.per_user.json",
        ] {
            touch(&root.join(f));
        }
        let ds = Dataset::discover(root, Some(&root.join("beams"))).unwrap();
        assert_eq!(
            ds.variants[0].beams,
            vec![
                root.join("beams/v.seed123.per_user.json"),
                root.join("beams/v.seed42.per_user.jsonl")
            ]
        );
        let ds = Dataset::discover(root, None).unwrap();
        assert_eq!(
            ds.variants[0].beams,
            vec![
                root.join("indexes/v/run_a_per_user.json"),
                root.join("indexes/v/run_b_per_user.json")
            ]
        );
        assert!(ds.variants[1].beams.is_empty());
    }

    #[test]
    fn a_repository_checkout_opens_with_its_results() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("CollisionGenRec");
        for f in [
            "data/Toys/Toys.inter.json",
            "data/Toys/indexes/rk_native/Toys.index.json",
            "data/Toys/indexes/rk_zcr/Toys.index.json",
            "data/Other/readme.txt",
            "results/Toys/rk_native.json",
            "results/Toys/rk_native_per_user.json",
            "results/Toys/rk_zcr_per_user.json",
        ] {
            touch(&repo.join(f));
        }
        for root in [repo.clone(), repo.join("data/Toys")] {
            let ds = Dataset::discover(&root, None).unwrap();
            assert_eq!(ds.root, repo.join("data/Toys"));
            let beams: Vec<_> = ds.variants.iter().map(|v| v.beams_file()).collect();
            let results = repo.join("results/Toys");
            assert_eq!(
                beams,
                [
                    Some(results.join("rk_native_per_user.json").as_path()),
                    Some(results.join("rk_zcr_per_user.json").as_path())
                ]
            );
            assert_eq!(
                paper_results_of(beams[0].unwrap()),
                Some(results.join("rk_native.json"))
            );
            assert_eq!(paper_results_of(beams[1].unwrap()), None);
        }
        touch(&repo.join("data/Other/indexes/x/Other.index.json"));
        let err = Dataset::discover(&repo, None).unwrap_err().to_string();
        assert!(err.contains("several datasets (Other, Toys)"), "{err}");
    }

    #[test]
    fn one_index_file_finds_its_files_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("Toys");
        for f in [
            "Toys.item.json",
            "Toys.emb-t5.npy",
            "indexes/rk/Toys.index.json",
            "indexes/rk/codebooks.npy",
            "indexes/rk/rk.per_user.jsonl",
            "loose/mine.json",
            "loose/mine_per_user.json",
            "loose/mine.latents.npy",
        ] {
            touch(&root.join(f));
        }
        let ds = Dataset::of_index(&root.join("indexes/rk/Toys.index.json")).unwrap();
        let v = &ds.variants[0];
        assert_eq!(v.name, "rk");
        assert_eq!(v.beams, vec![root.join("indexes/rk/rk.per_user.jsonl")]);
        assert_eq!(v.codebooks, Some(root.join("indexes/rk/codebooks.npy")));
        assert_eq!(ds.items, Some(root.join("Toys.item.json")));
        assert_eq!(ds.embeddings, vec![root.join("Toys.emb-t5.npy")]);
        let ds = Dataset::of_index(&root.join("loose/mine.json")).unwrap();
        let v = &ds.variants[0];
        assert_eq!(v.name, "mine");
        assert_eq!(v.beams, vec![root.join("loose/mine_per_user.json")]);
        assert_eq!(v.latents, Some(root.join("loose/mine.latents.npy")));
        assert_eq!(ds.items, None);
    }

    #[test]
    fn name_comes_from_indexes_without_interactions() {
        let tmp = tempfile::tempdir().unwrap();
        touch(&tmp.path().join("indexes/v/Beauty.index.json"));
        let ds = Dataset::discover(tmp.path(), None).unwrap();
        assert_eq!(ds.name, "Beauty");
        assert_eq!((ds.items, ds.interactions), (None, None));
        assert!(ds.variants[0].beams.is_empty());
    }

    #[test]
    fn clear_errors_for_other_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let e = Dataset::discover(tmp.path(), None).unwrap_err().to_string();
        assert!(e.contains("no indexes/ folder"), "{e}");
        let file = tmp.path().join("f.json");
        touch(&file);
        let e = Dataset::discover(&file, None).unwrap_err().to_string();
        assert!(e.contains("is not a directory"), "{e}");
        fs::create_dir_all(tmp.path().join("indexes/v")).unwrap();
        let e = Dataset::discover(tmp.path(), None).unwrap_err().to_string();
        assert!(e.contains("no indexes/<VARIANT>/<DS>.index.json"), "{e}");
        touch(&tmp.path().join("indexes/v/A.index.json"));
        touch(&tmp.path().join("indexes/w/B.index.json"));
        let e = Dataset::discover(tmp.path(), None).unwrap_err().to_string();
        assert!(e.contains("several datasets (A, B)"), "{e}");
        let e = Dataset::discover(tmp.path(), Some(&tmp.path().join("nope")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--beams-dir"), "{e}");
    }

    #[test]
    fn reads_the_reference_layout() {
        let Some(root) = crate::load::dataset::reference_for_tests() else {
            return;
        };
        let root = root.join("CollisionGenRec/data/Scientific");
        let beams = root.join("../../../beams/Scientific");
        let ds = Dataset::discover(&root, Some(&beams)).unwrap();
        assert_eq!(ds.name, "Scientific");
        assert!(ds.items.is_some() && ds.interactions.is_some());
        assert_eq!(ds.variants.len(), 10);
        let with_beams: Vec<&str> = ds
            .variants
            .iter()
            .filter(|v| v.beams_file().is_some())
            .map(|v| v.name.as_str())
            .collect();
        assert_eq!(
            with_beams,
            [
                "letter_native",
                "mql4grec",
                "quasid_native",
                "rkmeans_native",
                "rkmeans_zcr",
                "rqvae_native"
            ]
        );
    }

    #[test]
    fn finds_parquet_indexes_and_beams_and_torch_tensors() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("Toys");
        for f in [
            "Toys.inter.json",
            "Toys.emb-t5.safetensors",
            "Toys.emb-minilm.pt",
            "indexes/v/Toys.index.parquet",
            "indexes/v/codebooks.safetensors",
            "indexes/v/latents.pt",
            "indexes/v/run_per_user.parquet",
            "indexes/w/Toys.index.json",
            "indexes/w/latents.npy",
            "indexes/w/latents.pt",
        ] {
            touch(&root.join(f));
        }
        let ds = Dataset::discover(&root, None).unwrap();
        assert_eq!(
            ds.embeddings,
            vec![
                root.join("Toys.emb-minilm.pt"),
                root.join("Toys.emb-t5.safetensors")
            ]
        );
        let v = &ds.variants[0];
        assert_eq!(v.index, root.join("indexes/v/Toys.index.parquet"));
        assert_eq!(v.beams, vec![root.join("indexes/v/run_per_user.parquet")]);
        assert_eq!(
            v.codebooks,
            Some(root.join("indexes/v/codebooks.safetensors"))
        );
        assert_eq!(v.latents, Some(root.join("indexes/v/latents.pt")));
        // .npy is preferred when both are there.
        assert_eq!(
            ds.variants[1].latents,
            Some(root.join("indexes/w/latents.npy"))
        );
        let one = Dataset::of_index(&root.join("indexes/v/Toys.index.parquet")).unwrap();
        assert_eq!(
            one.variants[0].latents,
            Some(root.join("indexes/v/latents.pt"))
        );
        assert_eq!(
            one.variants[0].beams,
            vec![root.join("indexes/v/run_per_user.parquet")]
        );
    }
}
