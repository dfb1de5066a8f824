//! Pricing a tokenizer's reassignment: its cost model from the latents (with its codebooks,
//! or codebooks estimated from the latents) and the ZCR-against-greedy plan.

use std::path::Path;

use crate::collision::Collisions;
use crate::error::Result;
use crate::load::{Codebooks, Latents, SidIndex, UncheckedLatents};
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

/// A tokenizer's latents and, when given, its codebooks, read but not yet checked: reading
/// them needs no index, so it can run beside the index's parse, and the pass over every
/// latent (are they finite) runs in [`cost_model_of`], where both cores are free.
#[derive(Debug)]
pub struct Vectors {
    latents: UncheckedLatents,
    /// The codebooks, or the error reading them: reported after the latents' check, as when
    /// the latents were checked as they were read.
    codebooks: Option<Result<Codebooks>>,
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
    let latents = Latents::read(latents)?;
    let codebooks = codebooks.map(|path| {
        progress.stage("reading codebooks", 0);
        Codebooks::load(path)
    });
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
    let latents = latents.check()?;
    let model = match codebooks {
        Some(codebooks) => CostModel::from_codebooks(index, latents, &codebooks?)?,
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
