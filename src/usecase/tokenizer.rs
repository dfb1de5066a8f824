//! One tokenizer as every use case and front end holds it: its files, its index grouped into
//! collision groups, and (when it has beams) every seed's evaluation. "Load an index, then
//! group it" happens here and nowhere else.

use crate::collision::Collisions;
use crate::compare::seeds::SeededEvaluation;
use crate::compare::{Comparison, Entry, rank};
use crate::error::Result;
use crate::load::{SidIndex, TokenizerFiles};
use crate::metrics::{Compat, Evaluation};
use crate::progress::{Progress, check_cancelled};
use crate::sid::scheme::SidScheme;
use crate::usecase::{EvaluatedTokenizer, evaluate_seeds};

/// A tokenizer opened: its files, its index and groups, and its beams' evaluations.
#[derive(Debug)]
pub struct Tokenizer {
    /// Where it came from.
    pub files: TokenizerFiles,
    /// The SID index.
    pub index: SidIndex,
    /// Its collision groups.
    pub collisions: Collisions,
    /// Every beams file evaluated (one per seed); `None` until evaluated, or without beams.
    pub seeds: Option<SeededEvaluation>,
}

impl Tokenizer {
    /// Loads the index (codes written in `scheme`, `None`: detected) and groups its items.
    pub fn open(
        files: TokenizerFiles,
        codebook_size: Option<usize>,
        scheme: Option<SidScheme>,
    ) -> Result<Self> {
        let index = SidIndex::load_as(&files.index, codebook_size, scheme)?;
        Ok(Self::of_index(files, index))
    }

    /// A tokenizer of an index already loaded (grouped here).
    pub fn of_index(files: TokenizerFiles, index: SidIndex) -> Self {
        let collisions = Collisions::new(&index);
        Tokenizer {
            files,
            index,
            collisions,
            seeds: None,
        }
    }

    /// Evaluates every beams file of the tokenizer under `compat` (none: stays `None`).
    pub fn evaluate(&mut self, compat: Compat, progress: &dyn Progress) -> Result<()> {
        self.seeds = evaluate_seeds(
            &self.files.beams,
            &self.index,
            &self.collisions,
            compat,
            progress,
        )?;
        Ok(())
    }

    /// Opens and evaluates every tokenizer, in order.
    pub fn open_all(
        files: &[TokenizerFiles],
        compat: Compat,
        codebook_size: Option<usize>,
        progress: &dyn Progress,
    ) -> Result<Vec<Tokenizer>> {
        let mut opened = Vec::with_capacity(files.len());
        for f in files {
            check_cancelled(progress)?;
            let mut t = Tokenizer::open(f.clone(), codebook_size, None)?;
            t.evaluate(compat, progress)?;
            opened.push(t);
        }
        Ok(opened)
    }

    /// The name shown in tables and tabs.
    pub fn name(&self) -> &str {
        &self.files.name
    }

    /// The first beams file's evaluation (what the figures draw), `None` without beams.
    pub fn evaluation(&self) -> Option<&Evaluation> {
        self.seeds.as_ref().map(SeededEvaluation::first)
    }

    /// The tokenizer as [`compare_evaluated`](crate::usecase::compare_evaluated) takes it.
    pub fn as_evaluated(&self) -> EvaluatedTokenizer<'_> {
        EvaluatedTokenizer {
            name: &self.files.name,
            index: &self.index,
            collisions: &self.collisions,
            seeds: self.seeds.as_ref(),
            files: Some(&self.files),
        }
    }
}

/// The comparison at `k` (what `sidlens compare --k` prints), from opened tokenizers.
pub fn comparison(tokenizers: &[Tokenizer], k: usize, compat: Compat) -> Comparison {
    let entries = tokenizers
        .iter()
        .map(|t| Entry::new(t.name(), &t.collisions, t.evaluation(), k))
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
    fn comparison_from_opened_tokenizers_equals_compare_tokenizers() {
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo_data");
        let files = Dataset::discover(&demo, None).unwrap().tokenizers();
        let opened = Tokenizer::open_all(&files, Compat::Faithful, None, &NoProgress).unwrap();
        for k in [1, 5, 10] {
            let direct =
                compare_tokenizers(&files, &[k], Compat::Faithful, None, None, &NoProgress)
                    .unwrap()
                    .comparisons
                    .remove(0);
            assert_eq!(comparison(&opened, k, Compat::Faithful), direct);
        }
    }
}
