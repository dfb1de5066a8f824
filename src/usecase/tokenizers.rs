//! Several tokenizers loaded and evaluated once, for front ends that show many views of them
//! (the figures, the HTML report): the comparison at any K and the curves come from the same
//! evaluations instead of re-reading the beams for each.

use crate::collision::Collisions;
use crate::compare::seeds::SeededEvaluation;
use crate::compare::{Comparison, Entry, rank};
use crate::error::Result;
use crate::load::SidIndex;
use crate::load::TokenizerFiles;
use crate::metrics::{Compat, Evaluation};
use crate::progress::{Progress, check_cancelled};
use crate::usecase::{EvaluatedTokenizer, evaluate_seeds};

/// One tokenizer with its index, groups and (when it has beams) every user's outcome.
#[derive(Debug)]
pub struct Loaded {
    /// Where it came from.
    pub run: TokenizerFiles,
    /// The SID index.
    pub index: SidIndex,
    /// Its collision groups.
    pub collisions: Collisions,
    /// Every beams file evaluated (one per seed), `None` without beams.
    pub seeds: Option<SeededEvaluation>,
}

impl Loaded {
    /// The first beams file's evaluation (what the figures draw), `None` without beams.
    pub fn evaluation(&self) -> Option<&Evaluation> {
        self.seeds.as_ref().map(SeededEvaluation::first)
    }

    /// The tokenizer as [`compare_evaluated`](crate::usecase::compare_evaluated) takes it.
    pub fn as_evaluated(&self) -> EvaluatedTokenizer<'_> {
        EvaluatedTokenizer {
            name: &self.run.name,
            index: &self.index,
            collisions: &self.collisions,
            seeds: self.seeds.as_ref(),
        }
    }
}

/// Loads every run's index and evaluates its beams (every seed) under `compat`.
pub fn load_runs(
    runs: &[TokenizerFiles],
    compat: Compat,
    codebook_size: Option<usize>,
    progress: &dyn Progress,
) -> Result<Vec<Loaded>> {
    let mut loaded = Vec::with_capacity(runs.len());
    for run in runs {
        check_cancelled(progress)?;
        let index = SidIndex::load(&run.index, codebook_size)?;
        let collisions = Collisions::new(&index);
        let seeds = evaluate_seeds(&run.beams, &index, &collisions, compat, progress)?;
        loaded.push(Loaded {
            run: run.clone(),
            index,
            collisions,
            seeds,
        });
    }
    Ok(loaded)
}

/// The comparison at `k` (what `sidlens compare --k` prints), from the loaded evaluations.
pub fn comparison(loaded: &[Loaded], k: usize, compat: Compat) -> Comparison {
    let entries = loaded
        .iter()
        .map(|l| Entry::new(&l.run.name, &l.collisions, l.evaluation(), k))
        .collect();
    rank(entries, k, compat)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::dataset::Dataset;
    use crate::progress::NoProgress;
    use crate::usecase::compare_tokenizers;

    #[test]
    fn comparison_from_loaded_runs_equals_compare_runs() {
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo_data");
        let runs = Dataset::discover(&demo, None).unwrap().tokenizers();
        let loaded = load_runs(&runs, Compat::Faithful, None, &NoProgress).unwrap();
        for k in [1, 5, 10] {
            let direct = compare_tokenizers(&runs, &[k], Compat::Faithful, None, None, &NoProgress)
                .unwrap()
                .comparisons
                .remove(0);
            assert_eq!(comparison(&loaded, k, Compat::Faithful), direct);
        }
    }
}
