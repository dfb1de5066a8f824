//! Comparing two indexes of the same items: which items changed prefix or last code,
//! collisions before and after, and whether the second is a valid zero-collision
//! reassignment (ZCR) of the first. Several remedies of one BASE side by side are several
//! diffs against it, priced by one cost model.

use serde::Serialize;

use crate::collision::Collisions;
use crate::error::{Error, Result};
use crate::load::SidIndex;
use crate::reassign::{self, CostModel};
use crate::sid::Code;

/// How OTHER differs from BASE. Field names are the `sidlens diff --json` contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexDiff {
    /// Number of items (the same in both).
    pub n_items: usize,
    /// Items whose first L−1 codes differ.
    pub prefix_changed: usize,
    /// Items whose last code differs.
    pub last_changed: usize,
    /// Items whose code differs, per level of BASE (the last entry is `last_changed`).
    pub changed_per_level: Vec<usize>,
    /// Levels OTHER has beyond BASE's (1 for TIGER's appended disambiguation code).
    pub levels_added: usize,
    /// BASE's collision rate (items in groups of size > 1 / n_items).
    pub collision_rate_before: f64,
    /// OTHER's collision rate.
    pub collision_rate_after: f64,
    /// The fewest last-code changes that remove every collision of BASE.
    pub min_changes: usize,
    /// OTHER keeps every prefix, has no collision, and changes exactly `min_changes` items.
    pub valid_zcr: bool,
    /// Prefix groups of BASE larger than V (no zero-collision reassignment exists for them).
    pub base_over_capacity: usize,
    /// Total change in quantisation error of the moved items (BASE's cost model; appended
    /// levels cost nothing). Only when priced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_d: Option<f64>,
    /// Every item whose SID differs, in item id order.
    pub changes: Vec<Change>,
}

/// One item whose SID differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// Item id.
    pub item: String,
    /// Codes in BASE.
    pub from: Vec<Code>,
    /// Codes in OTHER.
    pub to: Vec<Code>,
}

/// Compares `other` with `base`, matching items by id. Fails when the item sets differ,
/// naming an example, or when `other` has fewer levels; extra levels of `other` are an
/// appended code (its first L levels are compared with BASE's).
pub fn diff(base: &SidIndex, other: &SidIndex) -> Result<IndexDiff> {
    diff_priced(base, other, None)
}

/// [`diff`] plus the total ΔD of the moves under `cost`, BASE's cost model (see
/// [`crate::usecase::cost_model`]). Fails when `other` gives an item a code that has no
/// codeword (beyond the codebooks, or, with estimated codebooks, used by no BASE item).
pub fn diff_priced(
    base: &SidIndex,
    other: &SidIndex,
    cost: Option<&CostModel>,
) -> Result<IndexDiff> {
    let (bp, op) = (base.path().display(), other.path().display());
    if other.n_levels() < base.n_levels() {
        return Err(Error::Invalid(format!(
            "{bp} has {} levels but {op} has {}",
            base.n_levels(),
            other.n_levels()
        )));
    }
    let mut matched = Vec::with_capacity(base.n_items());
    for p in 0..base.n_items() {
        match other.ids().position(base.id(p)) {
            Some(q) => matched.push(q),
            None => {
                return Err(Error::Invalid(format!(
                    "the indexes hold different items: \"{}\" is in {bp} but not in {op}",
                    base.id(p)
                )));
            }
        }
    }
    if other.n_items() != base.n_items() {
        let extra = (0..other.n_items())
            .find(|&q| base.ids().position(other.id(q)).is_none())
            .map_or_else(String::new, |q| other.id(q).to_string());
        return Err(Error::Invalid(format!(
            "the indexes hold different items: \"{extra}\" is in {op} but not in {bp}"
        )));
    }
    let n_levels = base.n_levels();
    let last = n_levels - 1;
    let levels_added = other.n_levels() - n_levels;
    let pricer = cost.map(|c| Pricer::new(base, c)).transpose()?;
    let mut order: Vec<usize> = (0..base.n_items()).collect();
    order.sort_by(|&a, &b| base.ids().cmp_ids(a, b));
    let mut prefix_changed = 0;
    let mut changed_per_level = vec![0; n_levels];
    let mut delta_d = pricer.as_ref().map(|_| 0.0);
    let mut changes = Vec::new();
    for p in order {
        let (from, to) = (base.codes(p), other.codes(matched[p]));
        prefix_changed += usize::from(from[..last] != to[..last]);
        for (n, (a, b)) in changed_per_level.iter_mut().zip(from.iter().zip(to)) {
            *n += usize::from(a != b);
        }
        if let (Some(pricer), Some(total)) = (&pricer, delta_d.as_mut())
            && from != &to[..n_levels]
        {
            *total += pricer.delta(base, p, to, other)?;
        }
        if from != to {
            changes.push(Change {
                item: base.id(p).to_string(),
                from: from.to_vec(),
                to: to.to_vec(),
            });
        }
    }
    let before = Collisions::new(base);
    let after = Collisions::new(other);
    let prefixes = before.prefix_groups();
    let min_changes = prefixes
        .iter()
        .map(|&p| reassign::min_changes(&before, p))
        .sum();
    let base_over_capacity = prefixes
        .iter()
        .filter(|&&p| before.prefix_size(p) as usize > base.codebook_size())
        .count();
    let after_collisions = items_in_collisions(&after);
    let last_changed = changed_per_level[last];
    Ok(IndexDiff {
        n_items: base.n_items(),
        prefix_changed,
        last_changed,
        changed_per_level,
        levels_added,
        collision_rate_before: items_in_collisions(&before) as f64 / base.n_items() as f64,
        collision_rate_after: after_collisions as f64 / base.n_items() as f64,
        min_changes,
        valid_zcr: levels_added == 0
            && prefix_changed == 0
            && after_collisions == 0
            && last_changed == min_changes,
        base_over_capacity,
        delta_d,
        changes,
    })
}

/// BASE's cost model with the codes that have a codeword at each level.
struct Pricer<'a> {
    cost: &'a CostModel,
    /// `L × V`: whether `code` at `level` has a codeword.
    has_codeword: Vec<bool>,
}

impl<'a> Pricer<'a> {
    fn new(base: &SidIndex, cost: &'a CostModel) -> Result<Self> {
        let (n_levels, v) = (base.n_levels(), cost.codebook_size());
        if cost.n_levels() != n_levels {
            return Err(Error::Invalid(format!(
                "the codebooks have {} levels but {} has {n_levels}",
                cost.n_levels(),
                base.path().display()
            )));
        }
        let mut has_codeword = vec![!cost.codebook_estimated(); n_levels * v];
        if cost.codebook_estimated() {
            for p in 0..base.n_items() {
                for (level, &code) in base.codes(p).iter().enumerate() {
                    has_codeword[level * v + code as usize] = true;
                }
            }
        }
        Ok(Pricer { cost, has_codeword })
    }

    /// ΔD of BASE's item at `position` taking `to` (OTHER's codes, maybe longer).
    fn delta(
        &self,
        base: &SidIndex,
        position: usize,
        to: &[Code],
        other: &SidIndex,
    ) -> Result<f64> {
        let v = self.cost.codebook_size();
        for (level, &code) in to[..base.n_levels()].iter().enumerate() {
            if (code as usize) >= v || !self.has_codeword[level * v + code as usize] {
                let why = if (code as usize) >= v {
                    format!("beyond the codebook size {v}")
                } else {
                    "used by no item of the base index, so its codeword cannot be estimated \
                     (give --codebooks)"
                        .to_string()
                };
                return Err(Error::Invalid(format!(
                    "{}: item \"{}\" has code {code} at level {}, {why}",
                    other.path().display(),
                    base.id(position),
                    level + 1
                )));
            }
        }
        Ok(self.cost.delta_of(base, position, to))
    }
}

fn items_in_collisions(c: &Collisions) -> usize {
    (0..c.n_groups() as u32)
        .map(|g| c.size(g) as usize)
        .filter(|&s| s > 1)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Codebooks, Latents};
    use crate::progress::NoProgress;
    use ndarray::{Array2, Array3};
    use std::path::Path;

    fn index(text: &str, name: &str) -> SidIndex {
        SidIndex::parse(text.as_bytes(), Path::new(name), None).unwrap()
    }

    #[test]
    fn recognises_a_valid_zero_collision_reassignment() {
        let base = index(r#"{"1": [1, 5], "2": [1, 5], "3": [2, 5]}"#, "a.json");
        let zcr = index(r#"{"2": [1, 5], "1": [1, 7], "3": [2, 5]}"#, "b.json");
        let d = diff(&base, &zcr).unwrap();
        assert_eq!((d.prefix_changed, d.last_changed, d.min_changes), (0, 1, 1));
        assert!(d.valid_zcr);
        assert!((d.collision_rate_before - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(d.collision_rate_after, 0.0);
        assert_eq!(
            d.changes,
            vec![Change {
                item: "1".into(),
                from: vec![1, 5],
                to: vec![1, 7]
            }]
        );
        let moved_both = index(r#"{"1": [1, 6], "2": [1, 7], "3": [2, 5]}"#, "c.json");
        assert!(!diff(&base, &moved_both).unwrap().valid_zcr);
        let new_prefix = index(r#"{"1": [3, 5], "2": [1, 5], "3": [2, 5]}"#, "d.json");
        let d = diff(&base, &new_prefix).unwrap();
        assert_eq!((d.prefix_changed, d.valid_zcr), (1, false));
    }

    #[test]
    fn different_items_or_levels_are_errors() {
        let base = index(r#"{"1": [1, 5], "2": [1, 5]}"#, "a.json");
        let err = diff(&base, &index(r#"{"1": [1, 5], "9": [1, 5]}"#, "b.json")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the indexes hold different items: \"2\" is in a.json but not in b.json"
        );
        let err = diff(
            &base,
            &index(r#"{"1": [1, 5], "2": [1, 5], "4": [1, 1]}"#, "b.json"),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("\"4\" is in b.json but not in a.json")
        );
        let err = diff(&base, &index(r#"{"1": [1], "2": [1]}"#, "b.json")).unwrap_err();
        assert_eq!(err.to_string(), "a.json has 2 levels but b.json has 1");
    }

    /// Two items in 1-d, V = 3: codewords a = {0, 10, 20}, b = {0, 1, 2}.
    fn priced() -> (SidIndex, CostModel) {
        let base = index(r#"{"0": [1, 1], "1": [1, 1]}"#, "a.json");
        let lat = Latents::from_f64(
            Path::new("l.npy"),
            Array2::from_shape_vec((2, 1), vec![11.0, 12.0]).unwrap(),
        )
        .unwrap();
        let cb = Array3::from_shape_vec((2, 3, 1), vec![0.0, 10.0, 20.0, 0.0, 1.0, 2.0]).unwrap();
        let cb = Codebooks::from_array(Path::new("c.npy"), cb).unwrap();
        let cost = CostModel::from_codebooks(&base, lat, &cb).unwrap();
        (base, cost)
    }

    #[test]
    fn priced_diff_sums_the_change_in_quantisation_error() {
        let (base, cost) = priced();
        // Item 1 (residual 2) moves from b=1 to b=2: ΔD = 0 − 1.
        let zcr = index(r#"{"0": [1, 1], "1": [1, 2]}"#, "z.json");
        let d = diff_priced(&base, &zcr, Some(&cost)).unwrap();
        assert_eq!(
            (d.changed_per_level.clone(), d.delta_d),
            (vec![0, 1], Some(-1.0))
        );
        assert!(d.valid_zcr);
        // Item 0 (latent 11) moves to a=2, b=0: error (11 − 20)² = 81, native (1 − 1)² = 0.
        let moved = index(r#"{"0": [2, 0], "1": [1, 1]}"#, "m.json");
        let d = diff_priced(&base, &moved, Some(&cost)).unwrap();
        assert_eq!(
            (d.prefix_changed, d.changed_per_level.clone()),
            (1, vec![1, 1])
        );
        assert_eq!(d.delta_d, Some(81.0));
        assert_eq!(diff(&base, &moved).unwrap().delta_d, None);
    }

    #[test]
    fn an_appended_level_is_free_and_not_a_zcr() {
        let (base, cost) = priced();
        let appended = index(r#"{"0": [1, 1, 0], "1": [1, 1, 1]}"#, "t.json");
        let d = diff_priced(&base, &appended, Some(&cost)).unwrap();
        assert_eq!(
            (d.levels_added, d.changed_per_level.clone()),
            (1, vec![0, 0])
        );
        assert_eq!((d.delta_d, d.collision_rate_after), (Some(0.0), 0.0));
        assert_eq!(d.changes.len(), 2);
        assert!(!d.valid_zcr);
    }

    #[test]
    fn codes_without_a_codeword_cannot_be_priced() {
        let (base, cost) = priced();
        let beyond = index(r#"{"0": [1, 1], "1": [1, 7]}"#, "x.json");
        let err = diff_priced(&base, &beyond, Some(&cost)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.json: item \"1\" has code 7 at level 2, beyond the codebook size 3"
        );
        let base = SidIndex::parse(
            br#"{"0": [1, 1], "1": [1, 1]}"#,
            Path::new("a.json"),
            Some(3),
        )
        .unwrap();
        let lat = cost.latents().clone();
        let estimated = CostModel::estimate(&base, lat, &NoProgress).unwrap();
        let unused = index(r#"{"0": [1, 1], "1": [1, 2]}"#, "u.json");
        let err = diff_priced(&base, &unused, Some(&estimated)).unwrap_err();
        assert!(
            err.to_string()
                .contains("used by no item of the base index")
        );
    }
}
