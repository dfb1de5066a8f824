//! Pricing a tokenizer's reassignment: its cost model from the latents (with its codebooks,
//! or codebooks estimated from the latents) and the ZCR-against-greedy plan.

use std::path::Path;

use crate::collision::Collisions;
use crate::error::Result;
use crate::load::{Codebooks, Latents, SidIndex};
use crate::progress::Progress;
use crate::reassign::{self, CostModel, Plan};

/// The cost model of `index`'s reassignment, `None` without latents (then only the number of
/// changes is known). Without codebooks each codeword is estimated as its items' mean residual.
pub fn cost_model(
    index: &SidIndex,
    latents: Option<&Path>,
    codebooks: Option<&Path>,
    progress: &dyn Progress,
) -> Result<Option<CostModel>> {
    let vectors = read_vectors(latents, codebooks, progress)?;
    cost_model_of(index, vectors, progress)
}

/// A tokenizer's latents and, when given, its codebooks, read but not yet checked against an
/// index: reading them needs no index, so it can run beside the index's parse.
#[derive(Debug)]
pub struct Vectors {
    latents: Latents,
    codebooks: Option<Codebooks>,
}

/// Reads the latents and codebooks of [`cost_model`]; `None` without latents.
pub fn read_vectors(
    latents: Option<&Path>,
    codebooks: Option<&Path>,
    progress: &dyn Progress,
) -> Result<Option<Vectors>> {
    let Some(latents) = latents else {
        return Ok(None);
    };
    progress.stage("reading latents", 0);
    let latents = Latents::load(latents)?;
    let codebooks = match codebooks {
        Some(path) => {
            progress.stage("reading codebooks", 0);
            Some(Codebooks::load(path)?)
        }
        None => None,
    };
    Ok(Some(Vectors { latents, codebooks }))
}

/// [`cost_model`] from vectors already read.
pub fn cost_model_of(
    index: &SidIndex,
    vectors: Option<Vectors>,
    progress: &dyn Progress,
) -> Result<Option<CostModel>> {
    let Some(Vectors { latents, codebooks }) = vectors else {
        return Ok(None);
    };
    let model = match codebooks {
        Some(codebooks) => CostModel::from_codebooks(index, latents, &codebooks)?,
        None => CostModel::estimate(index, latents, progress)?,
    };
    Ok(Some(model))
}

/// ZCR and greedy for every prefix group with a collision, priced by [`cost_model`].
pub fn plan_reassignment(
    index: &SidIndex,
    collisions: &Collisions,
    latents: Option<&Path>,
    codebooks: Option<&Path>,
    progress: &dyn Progress,
) -> Result<Plan> {
    let cost = cost_model(index, latents, codebooks, progress)?;
    reassign::plan(index, collisions, cost.as_ref(), progress)
}
