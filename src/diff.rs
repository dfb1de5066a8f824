//! Comparing two indexes of the same items: which items changed prefix or last code,
//! collisions before and after, and whether the second is a valid zero-collision
//! reassignment (ZCR) of the first.

use serde::Serialize;

use crate::collision::Collisions;
use crate::error::{Error, Result};
use crate::load::SidIndex;
use crate::reassign;
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

/// Compares `other` with `base`, matching items by id. Fails when the item sets or the
/// number of levels differ, naming an example.
pub fn diff(base: &SidIndex, other: &SidIndex) -> Result<IndexDiff> {
    let (bp, op) = (base.path().display(), other.path().display());
    if base.n_levels() != other.n_levels() {
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
    let last = base.n_levels() - 1;
    let mut order: Vec<usize> = (0..base.n_items()).collect();
    order.sort_by(|&a, &b| base.ids().cmp_ids(a, b));
    let (mut prefix_changed, mut last_changed) = (0, 0);
    let mut changes = Vec::new();
    for p in order {
        let (from, to) = (base.codes(p), other.codes(matched[p]));
        prefix_changed += usize::from(from[..last] != to[..last]);
        last_changed += usize::from(from[last] != to[last]);
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
    Ok(IndexDiff {
        n_items: base.n_items(),
        prefix_changed,
        last_changed,
        collision_rate_before: items_in_collisions(&before) as f64 / base.n_items() as f64,
        collision_rate_after: after_collisions as f64 / base.n_items() as f64,
        min_changes,
        valid_zcr: prefix_changed == 0 && after_collisions == 0 && last_changed == min_changes,
        base_over_capacity,
        changes,
    })
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
}
