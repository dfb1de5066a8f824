//! The collaborative space of a dataset as a vector file would give it: the PPMI + truncated
//! SVD embedding of its interactions, rows placed by the index like the text embeddings, so
//! both spaces can be projected and compared item by item.

use std::path::Path;

use crate::Result;
use crate::collab::{CfConfig, CfEmbedding, ItemRows, embed};
use crate::load::{Interactions, Latents, SidIndex};
use crate::progress::Progress;

/// Reads `interactions` and embeds them (the paper's recipe, `config`), rows following
/// `index` ([`crate::load::ItemIds::vector_row`]). Returns the vectors as [`Latents`]
/// (labelled with the interactions' path) and the embedding's figures.
pub fn collaborative_space(
    interactions: &Path,
    index: &SidIndex,
    config: &CfConfig,
    progress: &dyn Progress,
) -> Result<(Latents, CfEmbedding)> {
    progress.stage("reading interactions", 0);
    let interactions = Interactions::load(interactions)?;
    let rows = ItemRows::by_index(&interactions, index)?;
    let embedding = embed(&interactions, &rows, config, progress)?;
    let latents = Latents::from_f32(interactions.path(), embedding.vectors.clone())?;
    Ok((latents, embedding))
}
