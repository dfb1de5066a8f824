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
}

const BEAM_SUFFIXES: [&str; 2] = [".per_user.jsonl", ".per_user.json"];

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
    /// `beams_dir` (`<VARIANT>.per_user.json[l]`) when given; beside the variant folder
    /// (`indexes/<VARIANT>.per_user.json[l]`); inside it (`<VARIANT>.per_user.json[l]`, then
    /// any `*_per_user.json[l]` or `*.per_user.json[l]`).
    pub fn discover(root: &Path, beams_dir: Option<&Path>) -> Result<Dataset> {
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
        let mut variants = Vec::new();
        for dir in variant_dirs {
            let index = dir.join(format!("{name}.index.json"));
            if !index.is_file() {
                continue;
            }
            let variant = file_name(&dir);
            let beams = find_beams(&variant, &dir, &indexes, beams_dir)?;
            variants.push(TokenizerFiles {
                codebooks: existing(dir.join("codebooks.npy")),
                latents: existing(dir.join("latents.npy")),
                name: variant,
                index,
                beams,
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
                p.is_file() && n.starts_with(&prefix) && n.ends_with(".npy")
            })
            .collect();
        Ok(Dataset {
            items: existing(root.join(format!("{name}.item.json"))),
            interactions: existing(root.join(format!("{name}.inter.json"))),
            root: root.to_path_buf(),
            name,
            embeddings,
            variants,
        })
    }
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
            if let Some(ds) = file_name(&p).strip_suffix(".index.json") {
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
    let is_beams = |n: &str| {
        [
            "_per_user.jsonl",
            "_per_user.json",
            ".per_user.jsonl",
            ".per_user.json",
        ]
        .iter()
        .any(|s| n.ends_with(s))
    };
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
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/reference/CollisionGenRec/data/Scientific");
        if !root.is_dir() {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"skipping: ../shared/reference not found\n",
            );
            return;
        }
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
}
