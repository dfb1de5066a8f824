//! Evaluating a tokenizer's beams: every user's outcome, so any K is instant afterwards.

use std::path::Path;

use crate::collision::Collisions;
use crate::error::Result;
use crate::load::SidIndex;
use crate::metrics::{Compat, Evaluation, Evaluator};
use crate::progress::Progress;

/// Every user's outcome of the beams file at `beams` against `index`.
pub fn evaluate_beams(
    index: &SidIndex,
    collisions: &Collisions,
    beams: &Path,
    compat: Compat,
    progress: &dyn Progress,
) -> Result<Evaluation> {
    Evaluator::new(index, collisions, compat).evaluate_file(beams, progress)
}
