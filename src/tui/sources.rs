//! What the TUI opens: tokenizers (an index each) and the
//! files all of them share (item metadata, embeddings).

use std::path::PathBuf;

/// Everything the TUI should load, as paths; nothing is read until the load job runs.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// What the header calls the data (dataset name or "files").
    pub title: String,
    /// Tokenizers side by side, in the order keys 1–9 select them.
    pub tokenizers: Vec<TokenizerSource>,
    /// Item metadata (titles, brands, categories).
    pub items: Option<PathBuf>,
    /// Codebook size V when the index does not say it.
    pub codebook_size: Option<usize>,
}

/// One tokenizer's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenizerSource {
    /// Short name shown in the tabs and the metrics table.
    pub name: String,
    /// The SID index.
    pub index: PathBuf,
}

impl TokenizerSource {
    /// A tokenizer with only an index.
    pub fn index_only(name: impl Into<String>, index: impl Into<PathBuf>) -> Self {
        TokenizerSource {
            name: name.into(),
            index: index.into(),
        }
    }
}
