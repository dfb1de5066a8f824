//! Follow one item through a set of tokenizers: open each one's index and ask
//! [`item_view::across`] where the item lands.

use crate::error::Result;
use crate::load::TokenizerFiles;
use crate::usecase::Tokenizer;
use crate::usecase::item_view::{self, ItemAcross, Tokenized};

/// The item `item` in every tokenizer of `tokenizers` that holds it, in the order given
/// (indexes are read and grouped one after another; an unreadable one is an error naming it).
pub fn follow_item(tokenizers: &[TokenizerFiles], item: &str) -> Result<ItemAcross> {
    let opened = tokenizers
        .iter()
        .map(|t| Tokenizer::open(t.clone(), None, None))
        .collect::<Result<Vec<_>>>()?;
    let views: Vec<Tokenized<'_>> = opened
        .iter()
        .map(|t| Tokenized {
            name: t.name(),
            index: &t.index,
            collisions: &t.collisions,
        })
        .collect();
    Ok(item_view::across(item, &views))
}
