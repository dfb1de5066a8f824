//! Loaders for every input sidlens reads: SID indexes, beam outputs, item metadata,
//! interactions, vectors (.npy) and CollisionGenRec dataset directories.

pub mod beams;
pub mod dataset;
pub mod ids;
pub mod index;
pub mod interactions;
pub mod items;
pub mod paper_results;
pub mod tokenizer;
pub mod vectors;

pub use ids::ItemIds;
pub use index::{IndexFormat, SidIndex};
pub use interactions::Interactions;
pub use items::{ItemInfo, ItemTexts};
pub use tokenizer::TokenizerFiles;
pub use vectors::{Codebooks, Latents, LatentsView};

use std::path::Path;

use crate::error::{Error, Place, Result};

/// Reads a whole input file, with messages for the usual mistakes (a directory, a missing
/// file, an empty file).
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    if path.is_dir() {
        return Err(Error::data(path, Place::File, "is a directory, not a file"));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::data(path, Place::File, "the file is empty"));
    }
    Ok(bytes)
}

/// Rejects a UTF-8 byte-order mark, which JSON forbids, with a message that says so.
pub fn reject_bom(bytes: &[u8], path: &Path) -> Result<()> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(Error::data(
            path,
            Place::File,
            "the file starts with a UTF-8 byte-order mark, which JSON does not allow; save it without BOM",
        ));
    }
    Ok(())
}
