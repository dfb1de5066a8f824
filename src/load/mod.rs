//! Loaders for every input sidlens reads: SID indexes, beam outputs, item metadata,
//! interactions, vectors (.npy) and CollisionGenRec dataset directories.

pub mod beams;
pub mod dataset;
pub mod ids;
pub mod index;
pub mod interactions;
pub mod items;
pub mod tensors;
pub mod tokenizer;
pub mod vectors;

pub use ids::ItemIds;
pub use index::{IndexFormat, SidIndex};
pub use interactions::Interactions;
pub use items::{ItemInfo, ItemTexts};
pub use tokenizer::TokenizerFiles;
pub use vectors::{Codebooks, Latents, LatentsView, UncheckedLatents};

use std::path::Path;

use crate::error::{Error, Place, Result};

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

/// `text` with the byte at `at` (modulo its length) replaced by `byte`, as UTF-8 where that
/// still holds: the one-byte damage the readers' proptests feed to the fast paths and serde.
#[cfg(test)]
pub(crate) fn with_byte_changed(text: &str, at: usize, byte: u8) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let at = at % bytes.len();
    bytes[at] = byte;
    String::from_utf8_lossy(&bytes).into_owned()
}
