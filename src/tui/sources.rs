//! What the TUI opens: tokenizers (an index plus optional beams, latents and codebooks) and the
//! files all of them share (item metadata, embeddings), from a dataset folder or explicit files.

use std::path::PathBuf;

use crate::load::dataset::Dataset;
use crate::metrics::Compat;

/// Everything the TUI should load, as paths; nothing is read until the jobs run.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// What the header calls the data (dataset name or "files").
    pub title: String,
    /// Tokenizers side by side, in the order keys 1–9 select them.
    pub tokenizers: Vec<TokenizerSource>,
    /// Item metadata (titles, brands, categories).
    pub items: Option<PathBuf>,
    /// Item embeddings for the scatter (row i = item id i).
    pub embeddings: Option<PathBuf>,
    /// Codebook size V when the index does not say it.
    pub codebook_size: Option<usize>,
    /// Semantics of the metrics.
    pub compat: Compat,
    /// Reload a tokenizer's metrics when its beams file changes on disk.
    pub watch_beams: bool,
}

/// One tokenizer's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenizerSource {
    /// Short name shown in the tabs and the metrics table.
    pub name: String,
    /// The SID index.
    pub index: PathBuf,
    /// Ranked beam SIDs per user, for the metrics.
    pub beams: Option<PathBuf>,
    /// Item latents the tokenizer encoded, for ZCR costs.
    pub latents: Option<PathBuf>,
    /// The tokenizer's codebooks (L×V×d), for ZCR costs (estimated from the latents without).
    pub codebooks: Option<PathBuf>,
}

impl TokenizerSource {
    /// A tokenizer with only an index.
    pub fn index_only(name: impl Into<String>, index: impl Into<PathBuf>) -> Self {
        TokenizerSource {
            name: name.into(),
            index: index.into(),
            beams: None,
            latents: None,
            codebooks: None,
        }
    }
}

impl Sources {
    /// Every variant of a dataset folder. A variant with codebooks but no latents of its own
    /// encoded the dataset's embeddings (the CollisionGenRec layout), so those are its latents.
    pub fn from_dataset(dataset: &Dataset) -> Sources {
        let embeddings = dataset.embeddings.first().cloned();
        let tokenizers = dataset
            .variants
            .iter()
            .map(|v| TokenizerSource {
                name: v.name.clone(),
                index: v.index.clone(),
                beams: v.beams_file().map(PathBuf::from),
                latents: v
                    .latents
                    .clone()
                    .or_else(|| v.codebooks.as_ref().and(embeddings.clone())),
                codebooks: v.codebooks.clone(),
            })
            .collect();
        Sources {
            title: dataset.name.clone(),
            tokenizers,
            items: dataset.items.clone(),
            embeddings,
            codebook_size: None,
            compat: Compat::Faithful,
            watch_beams: true,
        }
    }

    /// How many beams files there are to watch.
    pub fn beams_files(&self) -> usize {
        self.tokenizers.iter().filter(|t| t.beams.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::dataset::Variant;

    #[test]
    fn dataset_variants_with_codebooks_use_the_dataset_embeddings() {
        let variant = |name: &str, codebooks: bool| Variant {
            name: name.into(),
            index: PathBuf::from(format!("{name}/D.index.json")),
            beams: vec![PathBuf::from(format!("{name}.per_user.json"))],
            codebooks: codebooks.then(|| PathBuf::from(format!("{name}/codebooks.npy"))),
            latents: None,
        };
        let dataset = Dataset {
            name: "D".into(),
            root: PathBuf::from("."),
            items: Some("D.item.json".into()),
            interactions: None,
            embeddings: vec![PathBuf::from("D.emb-a.npy"), PathBuf::from("D.emb-b.npy")],
            variants: vec![variant("rk", true), variant("rq", false)],
        };
        let s = Sources::from_dataset(&dataset);
        assert_eq!(s.embeddings, Some(PathBuf::from("D.emb-a.npy")));
        assert_eq!(s.tokenizers[0].latents, Some(PathBuf::from("D.emb-a.npy")));
        assert_eq!(s.tokenizers[1].latents, None);
        assert_eq!(s.beams_files(), 2);
        assert_eq!(s.title, "D");
    }
}
