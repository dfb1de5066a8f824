//! What the TUI opens: tokenizers (an index plus optional beams, latents and codebooks) and the
//! files all of them share (item metadata, embeddings, interactions), from a dataset folder or explicit files.

use std::path::PathBuf;

use crate::load::TokenizerFiles;
use crate::load::dataset::Dataset;
use crate::metrics::Compat;

/// Everything the TUI should load, as paths; nothing is read until the jobs run.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// What the header calls the data (dataset name or "files").
    pub title: String,
    /// Tokenizers side by side, in the order keys 1–9 select them.
    pub tokenizers: Vec<TokenizerFiles>,
    /// Item metadata (titles, brands, categories).
    pub items: Option<PathBuf>,
    /// Item embeddings for the scatter (row i = item id i).
    pub embeddings: Option<PathBuf>,
    /// User interactions, for the scatter's collaborative space.
    pub interactions: Option<PathBuf>,
    /// Codebook size V when the index does not say it.
    pub codebook_size: Option<usize>,
    /// Semantics of the metrics.
    pub compat: Compat,
    /// Reload a tokenizer's metrics when its beams file changes on disk.
    pub watch_beams: bool,
}

impl Sources {
    /// Every variant of a dataset folder, as [`Dataset::tokenizers`] opens them.
    pub fn from_dataset(dataset: &Dataset) -> Sources {
        Sources {
            title: dataset.name.clone(),
            tokenizers: dataset.tokenizers(),
            items: dataset.items.clone(),
            embeddings: dataset.embeddings.first().cloned(),
            interactions: dataset.interactions.clone(),
            codebook_size: None,
            compat: Compat::Faithful,
            watch_beams: true,
        }
    }

    /// How many beams files there are to watch (every seed's).
    pub fn beams_files(&self) -> usize {
        self.tokenizers.iter().map(|t| t.beams.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataset_variants_with_codebooks_use_the_dataset_embeddings() {
        let variant = |name: &str, codebooks: bool| TokenizerFiles {
            name: name.into(),
            index: PathBuf::from(format!("{name}/D.index.json")),
            beams: vec![PathBuf::from(format!("{name}.per_user.json"))],
            codebooks: codebooks.then(|| PathBuf::from(format!("{name}/codebooks.npy"))),
            latents: None,
            beams_sought: Vec::new(),
        };
        let dataset = Dataset {
            name: "D".into(),
            root: PathBuf::from("."),
            items: Some("D.item.json".into()),
            interactions: Some("D.inter.json".into()),
            embeddings: vec![PathBuf::from("D.emb-a.npy"), PathBuf::from("D.emb-b.npy")],
            variants: vec![variant("rk", true), variant("rq", false)],
            unmatched_beams: Vec::new(),
        };
        let s = Sources::from_dataset(&dataset);
        assert_eq!(s.embeddings, Some(PathBuf::from("D.emb-a.npy")));
        assert_eq!(s.interactions, Some(PathBuf::from("D.inter.json")));
        assert_eq!(s.tokenizers[0].latents, Some(PathBuf::from("D.emb-a.npy")));
        assert_eq!(s.tokenizers[1].latents, None);
        assert_eq!(s.beams_files(), 2);
        assert_eq!(s.title, "D");
    }
}
