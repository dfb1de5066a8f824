//! Groups over capacity on `rkmeans_l2_v64` (30 prefix groups larger than V = 64) in
//! `../shared/reference/minilm/Scientific`: `append` leaves no collision, `two-level` fills
//! every free (a, b) pair and reports the 4,344 − 64² items it has no room for. Skipped when
//! the folder is absent.

use sidlens::collision::Collisions;
use sidlens::load::{Codebooks, Latents, SidIndex};
use sidlens::progress::NoProgress;
use sidlens::reassign::over_capacity::{OverCapacity, resolve};
use sidlens::reassign::{CostModel, Mode, plan};

use crate::common;
use common::reference;

#[test]
fn append_resolves_everything_and_two_level_says_what_it_cannot() {
    let Some(reference) = reference() else { return };
    let dir = reference.join("minilm/Scientific");
    let index = SidIndex::load(&dir.join("rkmeans_l2_v64.index.json"), None).unwrap();
    let latents = Latents::load(&reference.join("embeddings/Scientific.emb-minilm.npy")).unwrap();
    let cb = Codebooks::load(&dir.join("codebooks_l2_v64.npy")).unwrap();
    let cost = CostModel::from_codebooks(&index, latents, &cb).unwrap();
    let p = plan(&index, &Collisions::new(&index), Some(&cost), &NoProgress).unwrap();
    assert_eq!(p.summary.skipped_over_capacity, 30);
    let zcr = p.summary.optimal;

    let append = resolve(
        &index,
        &p,
        Mode::Optimal,
        OverCapacity::Append,
        &cost,
        &NoProgress,
    )
    .unwrap();
    let t = append.totals.totals;
    assert_eq!(append.totals.n_levels, 3);
    assert_eq!(
        (
            t.items_in_collision_after,
            t.duplicates_after,
            t.prefixes_changed
        ),
        (0, 0, 0)
    );
    assert_eq!(
        t.total_delta, zcr.total_delta,
        "the appended code costs nothing"
    );

    let two = resolve(
        &index,
        &p,
        Mode::Optimal,
        OverCapacity::TwoLevel,
        &cost,
        &NoProgress,
    )
    .unwrap();
    let part = &two.totals.two_level[0];
    assert!(part.prefix.is_empty());
    assert_eq!(part.n_groups, 30);
    assert_eq!(part.resolved, part.free_pairs, "every free pair is used");
    assert_eq!(part.unresolved, 4344 - 64 * 64);
    assert_eq!(two.totals.totals.duplicates_after, 4344 - 64 * 64);
    // Prefixes kept outside the moved items; every moved item's SID is its own.
    let l = 2;
    let mut seen = std::collections::HashMap::new();
    for p in 0..index.n_items() {
        *seen
            .entry(two.remedy.codes[p * l..(p + 1) * l].to_vec())
            .or_insert(0) += 1;
    }
    assert_eq!(
        seen.len(),
        64 * 64,
        "every pair is used once the room is filled"
    );
    assert!(two.totals.totals.total_delta.unwrap() >= zcr.total_delta.unwrap());
}
