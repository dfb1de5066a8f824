//! Comparing tokenizers: each one's index and beams loaded and evaluated at K, then ranked by
//! Hit@K and by ItemHit@K (the paper's Table 4).

use crate::collision::Collisions;
use crate::compare::{Comparison, Entry, rank};
use crate::error::Result;
use crate::load::{SidIndex, TokenizerFiles};
use crate::metrics::{Compat, Evaluator};
use crate::progress::{Progress, check_cancelled};

/// Loads and evaluates every tokenizer at K (its first beams file), then ranks them.
pub fn compare_tokenizers(
    tokenizers: &[TokenizerFiles],
    k: usize,
    compat: Compat,
    codebook_size: Option<usize>,
    progress: &dyn Progress,
) -> Result<Comparison> {
    let mut entries = Vec::with_capacity(tokenizers.len());
    for run in tokenizers {
        check_cancelled(progress)?;
        let index = SidIndex::load(&run.index, codebook_size)?;
        let collisions = Collisions::new(&index);
        let mut entry = Entry::new(&run.name, &collisions, None, k);
        if let Some(beams) = run.beams_file() {
            let mut ev = Evaluator::new(&index, &collisions, compat);
            let s = ev.summarize_file(beams, &[k], false, progress, |_, _| Ok(()))?;
            entry.evaluated = Some((s.n_users, s.values[0]));
        }
        entries.push(entry);
    }
    Ok(rank(entries, k, compat))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::dataset::Dataset;

    #[test]
    fn reference_dataset_compares_every_variant() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference");
        if !root.is_dir() {
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                b"skipping: ../shared/reference not found\n",
            );
            return;
        }
        let ds = Dataset::discover(
            &root.join("CollisionGenRec/data/Scientific"),
            Some(&root.join("beams/Scientific")),
        )
        .unwrap();
        let runs: Vec<TokenizerFiles> = ds
            .tokenizers()
            .into_iter()
            .filter(|r| r.name.starts_with("rkmeans"))
            .collect();
        let c = compare_tokenizers(
            &runs,
            10,
            Compat::Faithful,
            None,
            &crate::progress::NoProgress,
        )
        .unwrap();
        let native = &c.rows[0];
        assert_eq!(native.name, "rkmeans_native");
        assert!((native.collision_rate - 0.3052486187845304).abs() < 1e-15);
        let v = native.values.unwrap();
        assert!((v.hit - 0.1533004689190814).abs() < 1e-12);
        assert!((v.item_hit - 0.08544733045633947).abs() < 1e-12);
        assert_eq!(native.g_max, 26);
        let index = SidIndex::load(&runs[0].index, None).unwrap();
        let collisions = Collisions::new(&index);
        let evaluation = Evaluator::new(&index, &collisions, Compat::Faithful)
            .evaluate_file(runs[0].beams_file().unwrap(), &crate::progress::NoProgress)
            .unwrap();
        let entry = Entry::new("rkmeans_native", &collisions, Some(&evaluation), 10);
        assert_eq!(entry.evaluated, Some((native.n_users.unwrap(), v)));
        let zcr_cf = c.rows.iter().find(|r| r.name == "rkmeans_zcr_cf").unwrap();
        assert_eq!((zcr_cf.values, zcr_cf.rank_hit), (None, None));
    }
}
