//! What the background jobs deliver for the panes, built by the library so every pane shows
//! what a subcommand prints: group rows (`sidlens groups`), evaluation (`eval`), reassignment
//! rows (`zcr --groups`) and the projection (`project`).

use std::collections::HashMap;
use std::path::Path;

use crate::collab::interactions::CollisionInteractions;
use crate::collision::stats::IndexStats;
use crate::compare::seeds::SeededEvaluation;
use crate::load::{ItemTexts, SidIndex};
use crate::metrics::{Credit, CreditIndex, Evaluation};
use crate::projection::{CacheOutcome, Projection};
use crate::reassign::Plan;
use crate::report::groups::{self, GroupFilter, GroupRow};
use crate::report::reassign::{self, ReassignRow, SkippedRow};
use crate::sid::{self, Code, SidKey};
use crate::usecase::Tokenizer;
use crate::usecase::stats::IndexReport;

/// One tokenizer, opened and analysed; read-only and shared with background jobs. It derefs
/// to the library's [`Tokenizer`] (index, groups), the one type every front end opens.
#[derive(Debug)]
pub struct TokenizerData {
    /// The tokenizer as `usecase::Tokenizer::open` opened it.
    pub tokenizer: Tokenizer,
    /// What `sidlens stats` says of it (statistics, scheme, the paper's sidecar, and benign
    /// collisions and popularity tiers when the dataset's interactions were found).
    pub report: IndexReport,
    /// Every collision group, largest first, as `sidlens groups` lists them.
    pub rows: Vec<GroupRow>,
    /// How the index was reassigned, when a sidecar beside it says so (mode, over-capacity
    /// remedy), as the status line shows it.
    pub remedy: Option<String>,
    row_of_group: HashMap<u32, usize>,
}

impl std::ops::Deref for TokenizerData {
    type Target = Tokenizer;

    fn deref(&self) -> &Tokenizer {
        &self.tokenizer
    }
}

impl TokenizerData {
    /// Lists the collision groups (with titles) of an opened tokenizer beside its report.
    pub fn new(tokenizer: Tokenizer, report: IndexReport, texts: Option<&ItemTexts>) -> Self {
        let rows = groups::group_rows(
            &tokenizer.index,
            &tokenizer.collisions,
            texts,
            GroupFilter::default(),
        );
        let row_of_group = rows.iter().enumerate().map(|(i, r)| (r.group, i)).collect();
        TokenizerData {
            tokenizer,
            report,
            rows,
            remedy: None,
            row_of_group,
        }
    }

    /// Collision statistics.
    pub fn stats(&self) -> &IndexStats {
        &self.report.stats
    }

    /// Benign collisions and popularity tiers, when interactions were found.
    pub fn interactions(&self) -> Option<&CollisionInteractions> {
        self.report.interactions.as_ref().map(|(_, d)| d)
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

/// A tokenizer's beams, evaluated (every seed): every user's outcome, so any K is computed
/// instantly.
#[derive(Debug)]
pub struct Evaluated {
    /// The library's evaluation of every beams file, one per seed.
    pub seeds: SeededEvaluation,
    /// Users by the collision group of their target (the first seed; targets agree in all).
    credits: CreditIndex,
}

impl Evaluated {
    /// Indexes the users of the seeds' evaluations by target group.
    pub fn new(seeds: SeededEvaluation) -> Self {
        let credits = CreditIndex::new(seeds.first());
        Evaluated { seeds, credits }
    }

    /// The first seed's evaluation: what per-group credit and the detail pane show.
    pub fn evaluation(&self) -> &Evaluation {
        self.seeds.first()
    }

    /// The first beams file.
    pub fn path(&self) -> &Path {
        &self.seeds.files[0]
    }

    /// The longest beam list: the largest K that means anything.
    pub fn beam_width(&self) -> usize {
        self.evaluation().list_width
    }

    /// The credit of SID group `group` at `k`; `None` when no user's target is in it.
    pub fn credit(&self, group: u32, k: usize) -> Option<Credit> {
        self.credits.credit(self.evaluation(), group, k)
    }

    /// How many users' beam lists contain group `group`'s SID.
    pub fn generated(&self, group: u32) -> u32 {
        self.evaluation()
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
    pub cache: Option<CacheOutcome>,
    /// Items of the highlighted groups the sample had to keep.
    pub must_include: usize,
    /// The embeddings projected, for nearest neighbours in the full space.
    pub embeddings: std::sync::Arc<crate::load::Latents>,
}
