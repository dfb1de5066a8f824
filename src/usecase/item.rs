//! Follow one item through a set of tokenizers: open each one's index and ask
//! [`item_view::across`] where the item lands.

use crate::collision::Collisions;
use crate::error::Result;
use crate::load::{SidIndex, TokenizerFiles};
use crate::usecase::item_view::{self, ItemAcross, Tokenized};

/// The item `item` in every tokenizer of `tokenizers` that holds it, in the order given
/// (indexes are read and grouped one after another; an unreadable one is an error naming it).
pub fn follow_item(tokenizers: &[TokenizerFiles], item: &str) -> Result<ItemAcross> {
    let loaded = tokenizers
        .iter()
        .map(|t| {
            let index = SidIndex::load(&t.index, None)?;
            let collisions = Collisions::new(&index);
            Ok((t.name.as_str(), index, collisions))
        })
        .collect::<Result<Vec<_>>>()?;
    let views: Vec<Tokenized<'_>> = loaded
        .iter()
        .map(|(name, index, collisions)| Tokenized {
            name,
            index,
            collisions,
        })
        .collect();
    Ok(item_view::across(item, &views))
}
