//! Zero-collision reassignment: give the items of every prefix group distinct last codes,
//! optimally (ZCR, `zcr.rs`) and with the greedy MQL4GRec baseline (`greedy.rs`), pricing
//! moves with `cost.rs`. Prefix groups are independent and planned in parallel.

pub mod cost;
pub mod diff;
mod greedy;
mod hungarian;
pub mod mql4grec;
pub mod over_capacity;
pub mod paper_sidecars;
pub mod provenance;
mod zcr;

use rayon::prelude::*;
use serde::Serialize;

pub use cost::CostModel;

use crate::collision::{Collisions, PrefixGroup};
use crate::error::{Error, Result};
use crate::load::SidIndex;
use crate::progress::{CancelOnly, Progress};
use crate::sid::Code;

/// Which assignment to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// ZCR: fewest changes, then least total ΔD.
    Optimal,
    /// The greedy rule as the paper describes MQL4GRec.
    Greedy,
    /// MQL4GRec's own code, ported literally (may change the last two levels).
    Mql4grec,
}

/// The fewest last-code changes that remove the collisions of prefix group `p`: its size
/// minus its number of distinct last codes (every distinct code keeps one holder).
pub fn min_changes(collisions: &Collisions, p: PrefixGroup) -> usize {
    (collisions.prefix_size(p) - (p.end_group - p.first_group)) as usize
}

/// The reassignment of every prefix group that has a collision, with totals.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Groups that can be made collision-free, in prefix (SID) order.
    pub groups: Vec<GroupPlan>,
    /// Groups left unchanged, and why, in prefix order.
    pub skipped: Vec<SkippedGroup>,
    /// MQL4GRec's exact rule over the whole index (needs vectors and L ≥ 2).
    pub mql4grec: Option<Remedy>,
    /// Totals; its fields are the `sidlens zcr --json` contract.
    pub summary: Summary,
    /// The share of the index's last codes that the latents' own nearest codewords
    /// reproduce (`None` without latents): below [`NATIVE_AGREEMENT`] the costs are priced in
    /// another space than the tokenizer's.
    pub latent_agreement: Option<f64>,
    /// What the costs need said beside them, worded once for every surface.
    pub warnings: Vec<String>,
}

/// A remedy that rewrites whole SIDs (not only last codes within a prefix group): every
/// item's new codes and ΔD.
#[derive(Debug, Clone, PartialEq)]
pub struct Remedy {
    /// Levels per item in `codes` (L, or L + 1 with an appended code).
    pub n_levels: usize,
    /// New codes, row-major by item position.
    pub codes: Vec<Code>,
    /// Change of quantisation error per item position ([`CostModel::delta_of`]).
    pub delta: Vec<f64>,
    /// Passes the rule made (MQL4GRec: at most two).
    pub passes: usize,
    /// Every SID is known to differ from every other, so [`remedy_totals`] need not count.
    pub distinct: bool,
}

impl Remedy {
    /// The new codes of the item at `position`.
    pub fn codes_of(&self, position: usize) -> &[Code] {
        &self.codes[position * self.n_levels..(position + 1) * self.n_levels]
    }
}

/// One prefix group with a collision and its new last codes.
#[derive(Debug, Clone)]
pub struct GroupPlan {
    /// The shared first L−1 codes.
    pub prefix: Vec<Code>,
    /// Item positions, in item id order.
    pub items: Vec<u32>,
    /// Each item's native last code.
    pub native: Vec<Code>,
    /// The fewest changes that make the group collision-free.
    pub min_changes: usize,
    /// ZCR's assignment (needs vectors).
    pub optimal: Option<Assignment>,
    /// The greedy baseline's assignment (needs vectors).
    pub greedy: Option<Assignment>,
}

impl GroupPlan {
    /// The assignment of `mode`, when vectors were given.
    pub fn assignment(&self, mode: Mode) -> Option<&Assignment> {
        match mode {
            Mode::Optimal => self.optimal.as_ref(),
            Mode::Greedy => self.greedy.as_ref(),
            Mode::Mql4grec => None,
        }
    }
}

/// New last codes for the items of one group, aligned with [`GroupPlan::items`].
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// New last code per item (the native one for items that keep it).
    pub codes: Vec<Code>,
    /// `ΔD = D[i,new] − D[i,native]` per item (0 for items that keep their code).
    pub delta: Vec<f64>,
    /// Items whose code changes.
    pub n_reassigned: usize,
    /// Sum of `delta`.
    pub total_delta: f64,
}

/// A prefix group with a collision that is left unchanged.
#[derive(Debug, Clone)]
pub struct SkippedGroup {
    /// The shared first L−1 codes.
    pub prefix: Vec<Code>,
    /// Item positions, in item id order.
    pub items: Vec<u32>,
    /// Distinct last codes among them.
    pub n_distinct_native: usize,
    /// Why it cannot be resolved.
    pub reason: SkipReason,
}

/// Why a group cannot be made collision-free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum SkipReason {
    /// More items than codes in the last codebook.
    OverCapacity {
        /// Codebook size V.
        capacity: usize,
    },
    /// Fewer free codes with a codeword than items that must move (estimated codebooks).
    TooFewCodes {
        /// Items that must move.
        needed: usize,
        /// Free codes that have a codeword.
        available: usize,
    },
}

impl SkipReason {
    /// The reason in words, for a group of `size` items.
    pub fn describe(&self, size: usize) -> String {
        match *self {
            SkipReason::OverCapacity { capacity } => {
                format!("{size} items > V = {capacity} codes")
            }
            SkipReason::TooFewCodes { needed, available } => {
                format!("{needed} items must move but only {available} free codes have a codeword")
            }
        }
    }
}

/// Totals of one mode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ModeTotals {
    /// Items given a new SID.
    pub n_reassigned: usize,
    /// Total ΔD (null without vectors).
    pub total_delta: Option<f64>,
    /// Items still sharing their SID with another item afterwards.
    pub items_in_collision_after: usize,
    /// Items beyond the first of each SID afterwards (`n_items − n_unique_sids`, the
    /// reference's `tot_item − tot_indice`).
    pub duplicates_after: usize,
    /// Items whose first L−1 codes change (0 for ZCR and greedy, which keep prefixes).
    pub prefixes_changed: usize,
}

/// Overall totals. Field names are the `sidlens zcr --json` contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Prefix groups with a collision that are resolved.
    pub n_groups_resolved: usize,
    /// ZCR totals.
    pub optimal: ModeTotals,
    /// Greedy totals.
    pub greedy: ModeTotals,
    /// MQL4GRec's exact rule (null without vectors or with L < 2).
    pub mql4grec: Option<ModeTotals>,
    /// Passes MQL4GRec's rule made (at most 2; null when it did not run).
    pub mql4grec_passes: Option<usize>,
    /// What `--over-capacity` did beyond `keep` (absent with `keep`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_capacity: Option<over_capacity::ResolutionTotals>,
    /// `(greedy − optimal) / greedy · 100` of the total ΔD (null when undefined).
    pub reduction_pct: Option<f64>,
    /// Groups larger than V, left unchanged.
    pub skipped_over_capacity: usize,
    /// Groups left unchanged because too few free codes have a codeword.
    pub skipped_too_few_codes: usize,
    /// Whether the codebooks were estimated from the latents.
    pub codebook_estimated: bool,
    /// Last-level codes without a codeword, never given as new codes.
    pub unavailable_codes: usize,
    /// Codebook size V (the capacity of a prefix group).
    pub codebook_size: usize,
    /// Whether ΔD could be computed (vectors were given).
    pub with_vectors: bool,
    /// Prefix groups that contain a collision (resolved + skipped).
    pub n_prefix_groups_with_collisions: usize,
    /// Items in groups that are resolved.
    pub items_in_resolved_groups: usize,
}

/// The part of one group the solvers see: rows are the holders of shared codes (item id
/// order), columns the candidate codes (the shared ones and the free available ones,
/// ascending), and `D` between them.
#[derive(Debug, Clone)]
pub(crate) struct GroupProblem {
    native_cols: Vec<usize>,
    n_columns: usize,
    dist: Vec<f64>,
}

impl GroupProblem {
    fn n_rows(&self) -> usize {
        self.native_cols.len()
    }

    fn n_columns(&self) -> usize {
        self.n_columns
    }

    fn native_col(&self, row: usize) -> usize {
        self.native_cols[row]
    }

    fn dist(&self, row: usize, col: usize) -> f64 {
        self.dist[row * self.n_columns + col]
    }

    /// `D` from one row to every column.
    fn row(&self, row: usize) -> &[f64] {
        &self.dist[row * self.n_columns..(row + 1) * self.n_columns]
    }

    fn delta(&self, row: usize, col: usize) -> f64 {
        self.dist(row, col) - self.dist(row, self.native_cols[row])
    }
}

/// Whether a plan also runs MQL4GRec's exact rule beside ZCR and greedy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mql4grecRule {
    /// Run it when it can run (vectors given, L ≥ 2): every ZCR view shows its column.
    Run,
    /// Leave it out (its totals are null): it prices every colliding item again in float32
    /// and walks the collision groups in order, about a third of `zcr`'s time on a large
    /// index, which only ZCR against greedy does not need.
    Skip,
}

/// Plans ZCR and greedy for every prefix group of `index` with a collision, and MQL4GRec's
/// exact rule beside them. Without `cost` only what needs no vectors is known (groups,
/// minimum changes, capacity). Reports one progress unit per group and stops with
/// [`Error::Cancelled`] when asked to.
pub fn plan(
    index: &SidIndex,
    collisions: &Collisions,
    cost: Option<&CostModel>,
    progress: &dyn Progress,
) -> Result<Plan> {
    plan_with(index, collisions, cost, Mql4grecRule::Run, progress)
}

/// [`plan`], running MQL4GRec's exact rule or not as `rule` says.
pub fn plan_with(
    index: &SidIndex,
    collisions: &Collisions,
    cost: Option<&CostModel>,
    rule: Mql4grecRule,
    progress: &dyn Progress,
) -> Result<Plan> {
    let capacity = cost.map_or(index.codebook_size(), CostModel::codebook_size);
    let with_collision: Vec<PrefixGroup> = collisions
        .prefix_groups()
        .into_iter()
        .filter(|&p| collisions.prefix_has_collision(p))
        .collect();
    // Sorting by these keys is sorting by id (see `ItemIds::cmp_ids`), with no id parsed again.
    let integer_ids = index.ids().integer_values();
    progress.stage("reassigning", with_collision.len() as u64);
    // MQL4GRec's rule is independent of the groups' plans and its walk is sequential: run
    // alongside, it fills the core the groups leave idle instead of running after them.
    let (outcomes, mql4grec) = rayon::join(
        || {
            with_collision
                .par_iter()
                // Rayon stops splitting work nobody steals: while the other core walks, the
                // groups would run as one long piece, and the core freed by the walk would
                // find nothing to take (0.15 s on one core at 1M items). Small pieces stay
                // on the queue to be taken.
                .with_max_len(GROUPS_PER_PIECE)
                .map_init(RowScratch::default, |scratch, &p| {
                    if progress.cancelled() {
                        return Err(Error::Cancelled);
                    }
                    let outcome =
                        plan_group(index, collisions, integer_ids, p, capacity, cost, scratch);
                    progress.advance(1);
                    outcome
                })
                .collect::<Result<Vec<Outcome>>>()
        },
        || match cost {
            Some(cost) if index.n_levels() >= 2 && rule == Mql4grecRule::Run => {
                mql4grec_remedy(index, collisions, cost, &CancelOnly(progress)).map(Some)
            }
            _ => Ok(None),
        },
    );
    let (outcomes, mql4grec) = (outcomes?, mql4grec?);
    let mut groups = Vec::new();
    let mut skipped = Vec::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Resolved(g) => groups.push(g),
            Outcome::Skipped(s) => skipped.push(s),
        }
    }
    let summary = summarise(index, &groups, &skipped, mql4grec.as_ref(), capacity, cost);
    let latent_agreement = cost.map(|c| c.last_code_agreement(index));
    let warnings = latent_agreement
        .and_then(foreign_latents_warning)
        .into_iter()
        .collect();
    Ok(Plan {
        groups,
        skipped,
        mql4grec,
        summary,
        latent_agreement,
        warnings,
    })
}

/// MQL4GRec's rule as a [`Remedy`], with every changed item's ΔD.
fn mql4grec_remedy(
    index: &SidIndex,
    collisions: &Collisions,
    cost: &CostModel,
    progress: &dyn Progress,
) -> Result<Remedy> {
    let out = mql4grec::run(index, collisions, cost, progress)?;
    let l = index.n_levels();
    let delta = (0..index.n_items())
        .into_par_iter()
        .map(|p| cost.delta_of(index, p, &out.codes[p * l..(p + 1) * l]))
        .collect();
    Ok(Remedy {
        n_levels: l,
        codes: out.codes,
        delta,
        passes: out.passes,
        distinct: out.distinct,
    })
}

enum Outcome {
    Resolved(GroupPlan),
    Skipped(SkippedGroup),
}

fn plan_group(
    index: &SidIndex,
    collisions: &Collisions,
    integer_ids: Option<&[u64]>,
    p: PrefixGroup,
    capacity: usize,
    cost: Option<&CostModel>,
    scratch: &mut RowScratch,
) -> Result<Outcome> {
    let last = index.n_levels() - 1;
    let items = in_id_order(index, integer_ids, collisions.prefix_items(p));
    let native: Vec<Code> = items
        .iter()
        .map(|&i| index.codes(i as usize)[last])
        .collect();
    let prefix = index.codes(items[0] as usize)[..last].to_vec();
    let n_distinct = (p.end_group - p.first_group) as usize;
    let min_changes = items.len() - n_distinct;
    let skip = |reason| {
        Ok(Outcome::Skipped(SkippedGroup {
            prefix: prefix.clone(),
            items: items.clone(),
            n_distinct_native: n_distinct,
            reason,
        }))
    };
    if items.len() > capacity {
        return skip(SkipReason::OverCapacity { capacity });
    }
    let Some(cost) = cost else {
        return Ok(Outcome::Resolved(GroupPlan {
            prefix,
            items,
            native,
            min_changes,
            optimal: None,
            greedy: None,
        }));
    };
    // SID groups of one prefix are in ascending last-code order.
    let mut is_native = vec![false; capacity];
    let mut shared = Vec::new();
    for g in p.first_group..p.end_group {
        let code = index.codes(collisions.items(g)[0] as usize)[last];
        is_native[code as usize] = true;
        if collisions.size(g) > 1 {
            shared.push(code);
        }
    }
    let n_free = (0..capacity)
        .filter(|&c| !is_native[c] && cost.is_available(c as Code))
        .count();
    if n_free < min_changes {
        return skip(SkipReason::TooFewCodes {
            needed: min_changes,
            available: n_free,
        });
    }
    // Codes run up to V − 1 ≤ 65,535: count in usize (V itself may not fit a Code).
    // Filtered ranges are collected into vectors of their full length: grown step by step,
    // each took several reallocations per group.
    let mut columns: Vec<Code> = Vec::with_capacity(capacity);
    columns.extend((0..capacity).map(|c| c as Code).filter(|&c| {
        if is_native[c as usize] {
            shared.binary_search(&c).is_ok()
        } else {
            cost.is_available(c)
        }
    }));
    let mut rows: Vec<usize> = Vec::with_capacity(items.len());
    rows.extend(
        (0..items.len()).filter(|&k| collisions.size(collisions.group_of(items[k] as usize)) > 1),
    );
    let problem = build_problem(index, cost, &items, &native, &rows, &columns, scratch)?;
    let assign = |cols: Vec<usize>| {
        let mut codes = native.clone();
        let mut delta = vec![0.0; items.len()];
        for (r, (&k, &j)) in rows.iter().zip(&cols).enumerate() {
            codes[k] = columns[j];
            delta[k] = problem.delta(r, j);
        }
        let n_reassigned = codes.iter().zip(&native).filter(|(a, b)| a != b).count();
        assert_eq!(n_reassigned, min_changes, "solver changed the fewest items");
        Assignment {
            total_delta: delta.iter().sum(),
            codes,
            delta,
            n_reassigned,
        }
    };
    let optimal = assign(zcr::solve(&problem, &mut scratch.zcr));
    let greedy = assign(greedy::solve(&problem));
    Ok(Outcome::Resolved(GroupPlan {
        prefix,
        items,
        native,
        min_changes,
        optimal: Some(optimal),
        greedy: Some(greedy),
    }))
}

/// The most prefix groups [`plan`] hands a thread at once.
const GROUPS_PER_PIECE: usize = 16;

/// Below this many items, [`in_id_order`] sorts on one thread.
const PARALLEL_SORT_FROM: usize = 1 << 14;

/// `positions` sorted by item id.
pub(crate) fn in_id_order(
    index: &SidIndex,
    integer_ids: Option<&[u64]>,
    positions: &[u32],
) -> Vec<u32> {
    let mut items = positions.to_vec();
    // Indexes usually list their items in id order already: then there is nothing to sort.
    if let Some(keys) = integer_ids
        && items
            .windows(2)
            .all(|w| keys[w[0] as usize] < keys[w[1] as usize])
    {
        return items;
    }
    // Ids are distinct, so an unstable sort is deterministic; a prefix group's few items are
    // sorted on the calling thread (most calls come from inside a parallel loop).
    let by_id = |a: &u32, b: &u32| index.ids().cmp_ids(*a as usize, *b as usize);
    match (integer_ids, items.len() < PARALLEL_SORT_FROM) {
        (Some(keys), true) => items.sort_unstable_by_key(|&p| keys[p as usize]),
        (Some(keys), false) => items.par_sort_unstable_by_key(|&p| keys[p as usize]),
        (None, true) => items.sort_unstable_by(by_id),
        (None, false) => items.par_sort_unstable_by(by_id),
    }
    items
}

/// One thread's buffers for the rows of `D[i,c]` and for ZCR's solver of them, reused from
/// group to group (zeroing them for each of 50k groups cost more than the distances of the
/// smaller ones).
#[derive(Default)]
struct RowScratch {
    residual: Vec<f64>,
    every_code: Vec<f64>,
    zcr: zcr::Buffers,
}

fn build_problem(
    index: &SidIndex,
    cost: &CostModel,
    items: &[u32],
    native: &[Code],
    rows: &[usize],
    columns: &[Code],
    scratch: &mut RowScratch,
) -> Result<GroupProblem> {
    let n_columns = columns.len();
    let mut dist = Vec::with_capacity(rows.len() * n_columns);
    let RowScratch {
        residual,
        every_code,
        ..
    } = scratch;
    residual.resize(cost.dim(), 0.0);
    every_code.resize(cost.codebook_size(), 0.0);
    let mut native_cols = Vec::with_capacity(rows.len());
    for &k in rows {
        let position = items[k] as usize;
        cost.residual(index, position, residual);
        cost.last_level_distances(residual, every_code);
        let start = dist.len();
        dist.extend(columns.iter().map(|&c| every_code[c as usize]));
        // Every value tested (no early exit), so the test is vectorised.
        let finite = dist[start..].iter().fold(true, |ok, d| ok & d.is_finite());
        if !finite {
            return Err(Error::Invalid(format!(
                "{}: squared distances of item \"{}\" overflow (latent or codebook values too large)",
                cost.latents().path().display(),
                index.id(position)
            )));
        }
        let j = columns
            .binary_search(&native[k])
            .expect("a shared native code is a column");
        native_cols.push(j);
    }
    Ok(GroupProblem {
        native_cols,
        n_columns,
        dist,
    })
}

fn summarise(
    index: &SidIndex,
    groups: &[GroupPlan],
    skipped: &[SkippedGroup],
    mql4grec: Option<&Remedy>,
    capacity: usize,
    cost: Option<&CostModel>,
) -> Summary {
    let (left_in_skipped, duplicates_in_skipped) = collisions_left(index, skipped);
    let totals = |mode: Mode| ModeTotals {
        items_in_collision_after: left_in_skipped,
        duplicates_after: duplicates_in_skipped,
        prefixes_changed: 0,
        n_reassigned: groups.iter().map(|g| g.min_changes).sum(),
        total_delta: cost.map(|_| {
            groups
                .iter()
                .filter_map(|g| g.assignment(mode))
                .map(|a| a.total_delta)
                .sum()
        }),
    };
    let (optimal, greedy) = (totals(Mode::Optimal), totals(Mode::Greedy));
    let reduction_pct = match (optimal.total_delta, greedy.total_delta) {
        (Some(o), Some(g)) if g != 0.0 => Some((g - o) / g * 100.0),
        _ => None,
    };
    let count = |f: fn(&SkipReason) -> bool| skipped.iter().filter(|s| f(&s.reason)).count();
    Summary {
        n_groups_resolved: groups.len(),
        optimal,
        greedy,
        reduction_pct,
        skipped_over_capacity: count(|r| matches!(r, SkipReason::OverCapacity { .. })),
        skipped_too_few_codes: count(|r| matches!(r, SkipReason::TooFewCodes { .. })),
        codebook_estimated: cost.is_some_and(CostModel::codebook_estimated),
        unavailable_codes: cost.map_or(0, CostModel::n_unavailable),
        mql4grec: mql4grec.map(|r| remedy_totals(index, r)),
        mql4grec_passes: mql4grec.map(|r| r.passes),
        over_capacity: None,
        codebook_size: capacity,
        with_vectors: cost.is_some(),
        n_prefix_groups_with_collisions: groups.len() + skipped.len(),
        items_in_resolved_groups: groups.iter().map(|g| g.items.len()).sum(),
    }
}

/// Items of the skipped groups that share their whole SID with another item, and how many
/// of them are beyond the first of their SID.
fn collisions_left(index: &SidIndex, skipped: &[SkippedGroup]) -> (usize, usize) {
    let mut counts = std::collections::HashMap::new();
    for s in skipped {
        for &p in &s.items {
            *counts.entry(index.key(p as usize)).or_insert(0usize) += 1;
        }
    }
    let shared = counts.values().filter(|&&c| c > 1);
    (shared.clone().sum(), shared.map(|c| c - 1).sum())
}

/// Totals of a whole-SID remedy against the native `index`.
pub fn remedy_totals(index: &SidIndex, remedy: &Remedy) -> ModeTotals {
    let l = index.n_levels();
    let n_reassigned = (0..index.n_items())
        .into_par_iter()
        .filter(|&p| index.codes(p) != &remedy.codes_of(p)[..l] || remedy.n_levels > l)
        .count();
    let (in_collision, unique) = if remedy.distinct {
        (0, index.n_items())
    } else {
        mql4grec::collision_counts(&remedy.codes, remedy.n_levels)
    };
    ModeTotals {
        n_reassigned,
        total_delta: Some(remedy.delta.iter().sum()),
        items_in_collision_after: in_collision,
        duplicates_after: index.n_items() - unique,
        prefixes_changed: (0..index.n_items())
            .into_par_iter()
            .filter(|&p| index.codes(p)[..l - 1] != remedy.codes_of(p)[..l - 1])
            .count(),
    }
}

impl Plan {
    /// The last code of every item (by position) after applying `mode`; skipped groups and
    /// items outside collisions keep theirs. `None` without vectors.
    pub fn last_codes(&self, index: &SidIndex, mode: Mode) -> Option<Vec<Code>> {
        if !self.summary.with_vectors {
            return None;
        }
        let last = index.n_levels() - 1;
        let mut codes: Vec<Code> = (0..index.n_items()).map(|p| index.codes(p)[last]).collect();
        for g in &self.groups {
            let a = g.assignment(mode)?;
            for (&p, &c) in g.items.iter().zip(&a.codes) {
                codes[p as usize] = c;
            }
        }
        Some(codes)
    }

    /// `index` with `mode`'s new codes, named `path` (written by [`SidIndex::save`]).
    pub fn apply(&self, index: &SidIndex, mode: Mode, path: &std::path::Path) -> Result<SidIndex> {
        if mode == Mode::Mql4grec {
            let remedy = self.mql4grec.as_ref().ok_or_else(|| {
                Error::Invalid(
                    "MQL4GRec's rule needs vectors (--latents) and an index with L ≥ 2".into(),
                )
            })?;
            return Ok(index.with_codes(path, remedy.codes.clone(), remedy.n_levels));
        }
        let codes = self.last_codes(index, mode).ok_or_else(|| {
            Error::Invalid("a reassigned index needs vectors (--latents) to price the moves".into())
        })?;
        Ok(index.with_last_codes(path, &codes))
    }
}

/// Below this share of reproduced last codes, the latents are taken to be another space.
const NATIVE_AGREEMENT: f64 = 0.9;

/// The warning for costs priced with latents that did not produce the index, from the share
/// of last codes the latents reproduce ([`CostModel::last_code_agreement`]); `None` when they
/// reproduce most of them.
pub fn foreign_latents_warning(agreement: f64) -> Option<String> {
    (agreement < NATIVE_AGREEMENT).then(|| {
        format!(
            "the latents reproduce {:.0} % of the native last codes: the costs are estimates in another space than the tokenizer's",
            100.0 * agreement
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Latents;
    use crate::progress::NoProgress;
    use ndarray::Array2;
    use std::path::Path;

    fn index(text: &str, v: Option<usize>) -> SidIndex {
        SidIndex::parse(text.as_bytes(), Path::new("i.json"), v).unwrap()
    }

    #[test]
    fn without_vectors_only_the_minimum_is_known() {
        let idx = index(
            r#"{"0": [1, 2], "1": [1, 2], "2": [1, 2], "3": [1, 3], "4": [0, 0], "5": [0, 1]}"#,
            Some(8),
        );
        let plan = plan(&idx, &Collisions::new(&idx), None, &NoProgress).unwrap();
        assert_eq!(plan.groups.len(), 1);
        assert_eq!(plan.groups[0].min_changes, 2);
        assert_eq!(plan.summary.optimal.n_reassigned, 2);
        assert_eq!(plan.summary.optimal.total_delta, None);
        assert_eq!(plan.summary.reduction_pct, None);
        assert!(plan.last_codes(&idx, Mode::Optimal).is_none());
        assert!(
            plan.apply(&idx, Mode::Optimal, Path::new("o.json"))
                .is_err()
        );
    }

    #[test]
    fn groups_over_capacity_or_short_of_codewords_are_skipped_and_reported() {
        // With V inferred as 2, prefix 1 (3 items) is over capacity. With V = 4 and estimated
        // codebooks only codes 0 and 1 (used somewhere) have codewords: prefix 1 needs a free
        // one and has none; prefix 0 can move one item to code 0.
        let text = r#"{"0": [1, 0], "1": [1, 1], "2": [1, 1], "3": [0, 1], "4": [0, 1]}"#;
        let over = index(text, None);
        let p = plan(&over, &Collisions::new(&over), None, &NoProgress).unwrap();
        assert_eq!(p.summary.skipped_over_capacity, 1);
        assert_eq!(p.skipped[0].prefix, vec![1]);
        assert_eq!(
            p.skipped[0].reason,
            SkipReason::OverCapacity { capacity: 2 }
        );
        let wide = index(text, Some(4));
        let latents = Latents::from_f64(Path::new("l.npy"), Array2::zeros((5, 1))).unwrap();
        let cost = CostModel::estimate(&wide, latents, &NoProgress).unwrap();
        assert_eq!(cost.n_unavailable(), 2);
        let p = plan(&wide, &Collisions::new(&wide), Some(&cost), &NoProgress).unwrap();
        assert_eq!(p.summary.skipped_too_few_codes, 1);
        assert_eq!(
            p.skipped[0].reason,
            SkipReason::TooFewCodes {
                needed: 1,
                available: 0
            }
        );
        assert_eq!(p.summary.n_groups_resolved, 1);
        assert_eq!(p.skipped[0].prefix, vec![1]);
        let last = p.last_codes(&wide, Mode::Optimal).unwrap();
        assert_eq!(&last[..3], &[0, 1, 1], "the skipped group is unchanged");
        let mut resolved = last[3..].to_vec();
        resolved.sort();
        assert_eq!(resolved, vec![0, 1]);
    }

    #[test]
    fn distances_that_overflow_are_an_error_naming_the_latents_and_the_item() {
        let idx = index(r#"{"0": [1, 0], "1": [1, 0], "7": [1, 0]}"#, Some(4));
        let latents = Latents::from_f64(
            Path::new("huge.npy"),
            Array2::from_shape_vec((8, 1), vec![0.0, 1e300, 0.0, 0.0, 0.0, 0.0, 0.0, 1e200])
                .unwrap(),
        )
        .unwrap();
        let cb = crate::load::Codebooks::from_array(
            Path::new("c.npy"),
            ndarray::Array3::zeros((2, 4, 1)),
        )
        .unwrap();
        let cost = CostModel::from_codebooks(&idx, latents, &cb).unwrap();
        let Err(err) = plan(&idx, &Collisions::new(&idx), Some(&cost), &NoProgress) else {
            panic!("an error");
        };
        assert_eq!(
            err.to_string(),
            "huge.npy: squared distances of item \"1\" overflow (latent or codebook values too large)"
        );
    }

    struct CancelAtOnce;

    impl Progress for CancelAtOnce {
        fn stage(&self, _name: &str, _total: u64) {}
        fn advance(&self, _n: u64) {}
        fn cancelled(&self) -> bool {
            true
        }
    }

    #[test]
    fn the_largest_codebook_size_offers_every_code() {
        let idx = index(r#"{"0": [65535], "1": [65535]}"#, Some(65_536));
        let latents = Latents::from_f64(Path::new("l.npy"), Array2::zeros((2, 1))).unwrap();
        let cb = crate::load::Codebooks::from_array(
            Path::new("c.npy"),
            ndarray::Array3::zeros((1, 65_536, 1)),
        )
        .unwrap();
        let cost = CostModel::from_codebooks(&idx, latents, &cb).unwrap();
        let p = plan(&idx, &Collisions::new(&idx), Some(&cost), &NoProgress).unwrap();
        // All distances are equal: item 0 (lower id) keeps 65535, item 1 takes code 0.
        assert_eq!(p.groups[0].optimal.as_ref().unwrap().codes, vec![65_535, 0]);
        assert_eq!(p.groups[0].greedy.as_ref().unwrap().codes, vec![65_535, 0]);
    }

    #[test]
    fn skipping_mql4grec_changes_nothing_else() {
        let idx = index(
            r#"{"0": [1, 2], "1": [1, 2], "2": [1, 2], "3": [0, 3], "4": [0, 3]}"#,
            Some(4),
        );
        let rows = [0.1, 0.2, 0.3, 0.9, 0.8, 0.7, 0.05, 0.4, 0.45, 0.5];
        let latents = || {
            Latents::from_f64(
                Path::new("l.npy"),
                Array2::from_shape_vec((5, 2), rows.to_vec()).unwrap(),
            )
            .unwrap()
        };
        let cost = CostModel::estimate(&idx, latents(), &NoProgress).unwrap();
        let collisions = Collisions::new(&idx);
        let all = plan(&idx, &collisions, Some(&cost), &NoProgress).unwrap();
        let skipped = plan_with(
            &idx,
            &collisions,
            Some(&cost),
            Mql4grecRule::Skip,
            &NoProgress,
        )
        .unwrap();
        assert!(all.mql4grec.is_some() && skipped.mql4grec.is_none());
        assert_eq!(skipped.summary.mql4grec, None);
        assert_eq!(skipped.summary.mql4grec_passes, None);
        let without_rule = Summary {
            mql4grec: None,
            mql4grec_passes: None,
            ..all.summary.clone()
        };
        assert_eq!(skipped.summary, without_rule);
        for mode in [Mode::Optimal, Mode::Greedy] {
            assert_eq!(all.last_codes(&idx, mode), skipped.last_codes(&idx, mode));
        }
    }

    #[test]
    fn cancellation_stops_the_plan() {
        let idx = index(r#"{"0": [1, 2], "1": [1, 2]}"#, Some(4));
        let err = plan(&idx, &Collisions::new(&idx), None, &CancelAtOnce).unwrap_err();
        assert!(matches!(err, Error::Cancelled));
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Random group problems and the lexicographic objective, shared by the solver tests.
    use super::GroupProblem;

    /// A tiny deterministic generator (xorshift64*), enough for test data.
    pub(crate) struct Rng(pub u64);

    impl Rng {
        pub(crate) fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
        }
    }

    /// A problem with 2–5 rows, every native column held by two or more rows, and enough
    /// free columns; distances small integers or arbitrary floats.
    pub(crate) fn random_problem(rng: &mut Rng, integer: bool) -> GroupProblem {
        let h = 2 + rng.below(4);
        let shared = 1 + rng.below(h / 2);
        let n_columns = h + rng.below(3);
        let mut natives: Vec<usize> = (0..n_columns).collect();
        for i in (1..natives.len()).rev() {
            natives.swap(i, rng.below(i + 1));
        }
        natives.truncate(shared);
        let mut native_cols: Vec<usize> = (0..h).map(|r| natives[r % shared]).collect();
        for i in (1..h).rev() {
            native_cols.swap(i, rng.below(i + 1));
        }
        let dist = (0..h * n_columns)
            .map(|_| {
                if integer {
                    rng.below(4) as f64
                } else {
                    rng.below(1_000_000) as f64 / 7_919.0
                }
            })
            .collect();
        GroupProblem {
            native_cols,
            n_columns,
            dist,
        }
    }

    /// (changes, total ΔD, Σ_{moved} w_k, Σ w_k·j_k) with `w_k = h − k`: what ZCR minimises.
    pub(crate) fn objective(p: &GroupProblem, cols: &[usize]) -> (usize, f64, u64, u64) {
        let h = p.n_rows();
        let mut o = (0, 0.0, 0, 0);
        for (k, &j) in cols.iter().enumerate() {
            let w = (h - k) as u64;
            if j != p.native_col(k) {
                o.0 += 1;
                o.2 += w;
            }
            o.1 += p.delta(k, j);
            o.3 += w * j as u64;
        }
        o
    }
}
