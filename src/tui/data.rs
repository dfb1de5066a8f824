//! What the background jobs deliver for the panes, built by the library so every pane shows
//! what a subcommand prints: group rows (`sidlens groups`), evaluation (`eval`), reassignment
//! rows (`zcr --groups`) and the projection (`project`).

use std::collections::HashMap;
use std::path::PathBuf;

use sidlens::collision::Collisions;
use sidlens::load::{ItemTexts, SidIndex};
use sidlens::metrics::Evaluation;
use sidlens::projection::{CacheOutcome, Projection};
use sidlens::reassign::Plan;
use sidlens::report::groups::{self, GroupFilter, GroupRow};
use sidlens::report::reassign::{self, ReassignRow, SkippedRow};
use sidlens::sid::{self, Code, SidKey};
use sidlens::stats::IndexStats;

/// One tokenizer, loaded and analysed; read-only and shared with background jobs.
#[derive(Debug)]
pub struct TokenizerData {
    /// The SID index.
    pub index: SidIndex,
    /// Items grouped by SID and by prefix.
    pub collisions: Collisions,
    /// Collision statistics.
    pub stats: IndexStats,
    /// Every collision group, largest first, as `sidlens groups` lists them.
    pub rows: Vec<GroupRow>,
    row_of_group: HashMap<u32, usize>,
}

impl TokenizerData {
    /// Computes statistics and lists the collision groups (with titles) of a grouped index.
    pub fn from_parts(index: SidIndex, collisions: Collisions, texts: Option<&ItemTexts>) -> Self {
        let stats = IndexStats::compute(&index, &collisions);
        let rows = groups::group_rows(&index, &collisions, texts, GroupFilter::default());
        let row_of_group = rows.iter().enumerate().map(|(i, r)| (r.group, i)).collect();
        TokenizerData {
            index,
            collisions,
            stats,
            rows,
            row_of_group,
        }
    }

    /// The row of SID group `group` in [`TokenizerData::rows`] (its rank − 1 by size), when
    /// it is a collision group.
    pub fn row_of(&self, group: u32) -> Option<usize> {
        self.row_of_group.get(&group).copied()
    }
}

/// The key of a SID's prefix group (its first L−1 codes), as [`Reassigned`] looks it up.
pub fn prefix_key(codes: &[Code]) -> SidKey {
    sid::sid_key(&codes[..codes.len().saturating_sub(1)])
}

/// A tokenizer's beams, evaluated: every user's outcome, so any K is computed instantly.
#[derive(Debug)]
pub struct Evaluated {
    /// The library's evaluation.
    pub evaluation: Evaluation,
    /// The longest beam list: the largest K that means anything.
    pub beam_width: usize,
    /// The beams file.
    pub path: PathBuf,
    /// Users by the collision group of their target, so one group's credit at any K costs
    /// only its own users.
    users_by_target: HashMap<u32, Vec<u32>>,
}

/// One group's credit at one K: what [`sidlens::metrics::GroupCredit`] holds, for one group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Credit {
    /// Users whose target item is in the group.
    pub targets: u32,
    /// ΣHit@K over those users: the SID-level credit.
    pub sid: f64,
    /// ΣItemHit@K over those users: the item-level credit.
    pub item: f64,
}

impl Credit {
    /// SID-level minus item-level credit: what the collision over-credits.
    pub fn over(&self) -> f64 {
        self.sid - self.item
    }
}

impl Evaluated {
    /// Indexes the users of `evaluation` by target group.
    pub fn new(evaluation: Evaluation, beam_width: usize, path: PathBuf) -> Self {
        let mut users_by_target: HashMap<u32, Vec<u32>> = HashMap::new();
        for (user, o) in evaluation.outcomes.iter().enumerate() {
            if let Some(g) = o.target_group {
                users_by_target.entry(g).or_default().push(user as u32);
            }
        }
        Evaluated {
            evaluation,
            beam_width,
            path,
            users_by_target,
        }
    }

    /// The credit of SID group `group` at `k`, summed in user order like the library's
    /// `Evaluation::summary`; `None` when no user's target is in it.
    pub fn credit(&self, group: u32, k: usize) -> Option<Credit> {
        let users = self.users_by_target.get(&group)?;
        let mut credit = Credit {
            targets: users.len() as u32,
            sid: 0.0,
            item: 0.0,
        };
        for &u in users {
            let o = &self.evaluation.outcomes[u as usize];
            credit.sid += o.hit(k);
            credit.item += o.item_hit(k);
        }
        Some(credit)
    }

    /// How many users' beam lists contain group `group`'s SID.
    pub fn generated(&self, group: u32) -> u32 {
        self.evaluation
            .generated
            .get(group as usize)
            .copied()
            .unwrap_or(0)
    }
}

/// Where a prefix group with a collision is listed in [`Reassigned`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefixEntry {
    /// Resolved: `rows[i]`.
    Row(usize),
    /// Left unchanged: `skipped[i]`.
    Skipped(usize),
}

/// A tokenizer's reassignment plan as the rows `sidlens zcr --groups` lists.
#[derive(Debug)]
pub struct Reassigned {
    /// The library's plan (totals in `plan.summary`).
    pub plan: Plan,
    /// One row per resolved prefix group with a collision.
    pub rows: Vec<ReassignRow>,
    /// The prefix groups left unchanged, with the reason.
    pub skipped: Vec<SkippedRow>,
    by_prefix: HashMap<SidKey, PrefixEntry>,
}

impl Reassigned {
    /// Builds the rows of `plan` (with titles when given).
    pub fn new(index: &SidIndex, plan: Plan, texts: Option<&ItemTexts>) -> Self {
        let rows = reassign::group_rows(index, &plan, texts);
        let skipped = reassign::skipped_rows(index, &plan);
        let mut by_prefix = HashMap::with_capacity(rows.len() + skipped.len());
        for (i, r) in rows.iter().enumerate() {
            by_prefix.insert(sid::sid_key(&r.prefix), PrefixEntry::Row(i));
        }
        for (i, s) in skipped.iter().enumerate() {
            by_prefix.insert(sid::sid_key(&s.prefix), PrefixEntry::Skipped(i));
        }
        Reassigned {
            plan,
            rows,
            skipped,
            by_prefix,
        }
    }

    /// The entry of the prefix group with this key, when it has a collision.
    pub fn entry(&self, prefix: SidKey) -> Option<PrefixEntry> {
        self.by_prefix.get(&prefix).copied()
    }

    /// The resolved row of a prefix group.
    pub fn row(&self, prefix: SidKey) -> Option<&ReassignRow> {
        match self.entry(prefix)? {
            PrefixEntry::Row(i) => self.rows.get(i),
            PrefixEntry::Skipped(_) => None,
        }
    }

    /// ZCR's saving over greedy in a prefix group (greedy ΔD − ZCR ΔD), with vectors only.
    pub fn saving(&self, prefix: SidKey) -> Option<f64> {
        let row = self.row(prefix)?;
        Some(row.greedy_total? - row.optimal_total?)
    }
}

/// The scatter's points and what the cache did.
#[derive(Debug)]
pub struct Projected {
    /// The library's projection (rows, points, notes).
    pub projection: Projection,
    /// Loaded from the cache, computed and stored, or computed but not stored.
    pub cache: CacheOutcome,
    /// Items of the highlighted groups the sample had to keep.
    pub must_include: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use sidlens::load::beams::BeamRecord;
    use sidlens::metrics::{Compat, Evaluator};
    use std::path::Path;

    /// The per-group credit equals the library's `Evaluation::summary` for every group and K.
    #[test]
    fn credit_matches_the_library_summary() {
        let index = SidIndex::parse(
            br#"{"0": [1, 1], "1": [1, 1], "2": [1, 1], "3": [2, 2], "4": [2, 2], "5": [3, 3]}"#,
            Path::new("t.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        let evaluator = Evaluator::new(&index, &collisions, Compat::Faithful);
        let records = [
            r#"{"beam_sids": ["<a_1><b_1>", "<a_2><b_2>"], "target_item": "0"}"#,
            r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>"], "target_item": "4"}"#,
            r#"{"beam_sids": ["<a_2><b_2>", "<a_1><b_1>"], "target_item": "1"}"#,
            r#"{"beam_sids": ["<a_3><b_3>"], "target_item": "5"}"#,
        ];
        let outcomes = records
            .iter()
            .map(|r| {
                evaluator
                    .evaluate(&BeamRecord::from_json(r).unwrap())
                    .outcome
            })
            .collect();
        let evaluation = Evaluation {
            compat: Compat::Faithful,
            outcomes,
            anomalies: Default::default(),
            generated: evaluator.generated_counts(),
        };
        let ks = [1, 2, 3, 5, 10];
        let summary = evaluation.summary(&ks, &collisions);
        let evaluated = Evaluated::new(evaluation, 2, PathBuf::from("b.json"));
        for (i, &k) in ks.iter().enumerate() {
            for g in &summary.groups {
                let c = evaluated.credit(g.group, k).unwrap();
                assert_eq!(c.targets, g.targets);
                assert_eq!(c.sid, g.sid_credit[i]);
                assert_eq!(c.item, g.item_credit[i]);
                assert_eq!(c.over(), g.over_credit(i));
            }
        }
        assert_eq!(summary.groups.len(), 3);
        assert_eq!(evaluated.credit(collisions.group_of(3) + 100, 1), None);
    }
}
