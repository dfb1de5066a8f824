//! Collision-corrected evaluation (CCE) of beam outputs: SID-level Hit@K / NDCG@K and
//! item-level ItemHit@K / ItemNDCG@K, per user ([`UserOutcome`], any K in O(1)), in aggregate
//! ([`Accumulator`], flat memory) and per collision group ([`GroupCredit`]).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::Serialize;

use crate::collision::Collisions;
use crate::error::{Error, Result};
use crate::load::SidIndex;
use crate::load::beams::{self, BeamRecord, BeamSid};
use crate::progress::Progress;

mod lookup;

use lookup::{Found, SidLookup, prefetch};

/// Which semantics to evaluate with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub enum Compat {
    /// sidlens's default: a beam SID that names no item (not in the index, or with another
    /// number of levels) is dropped, a repeated SID counts at its first occurrence only, and
    /// the target is the SID of `target_item` when the index has that item.
    #[default]
    #[serde(rename = "faithful")]
    Faithful,
    /// Exactly the reference `cce.py` + `test.py`, quirks included (an unknown SID is a group
    /// of one for the item-level metrics and moved to the end for the SID-level ones, repeats
    /// count every time, NDCG can exceed 1), so published numbers can be reproduced.
    #[serde(rename = "cce-py")]
    CcePy,
}

impl Compat {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Faithful => "faithful",
            Compat::CcePy => "cce-py",
        }
    }
}

/// Where the target's collision group sits in a user's item-level ranking: after `before`
/// items, as a block of `size` items (the target is equally likely anywhere in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemBlock {
    /// P: items ranked before the target's SID (sum of the group sizes of earlier beams).
    pub before: u32,
    /// G: the size of the target's group.
    pub size: u32,
}

/// What one user's beam list achieved, compact enough to keep for every user, so that a front
/// end can recompute every metric at any K instantly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserOutcome {
    /// Index position of the target item, when the record names one the index has.
    pub target_item: Option<u32>,
    /// Collision group of the target, when the index has its SID.
    pub target_group: Option<u32>,
    /// 0-based rank of the target's SID in the SID-level list (first occurrence).
    pub sid_rank: Option<u32>,
    /// Later ranks where the target's SID appears again (only `--compat cce-py` keeps repeats).
    pub repeat_ranks: Box<[u32]>,
    /// The target's block in the item-level ranking; `None` when its SID was not generated.
    pub item_block: Option<ItemBlock>,
}

impl UserOutcome {
    /// Hit@K: the target's SID is among the first K.
    pub fn hit(&self, k: usize) -> f64 {
        match self.sid_rank {
            Some(r) if (r as usize) < k => 1.0,
            _ => 0.0,
        }
    }

    /// NDCG@K with one relevant SID: 1/log2(rank + 1) (1-based rank); under `cce-py` every
    /// repeat of the target's SID within K adds its own term.
    pub fn ndcg(&self, k: usize) -> f64 {
        self.sid_rank
            .iter()
            .chain(self.repeat_ranks.iter())
            .filter(|&&r| (r as usize) < k)
            .fold(0.0, |sum, &r| sum + 1.0 / ((r as f64) + 2.0).log2())
    }

    /// ItemHit@K = e/G with e = min(G, max(0, K − P)): the chance that the target item itself
    /// is among the first K items when its group's block is expanded.
    pub fn item_hit(&self, k: usize) -> f64 {
        match self.item_block {
            Some(b) => effective(b, k) as f64 / f64::from(b.size),
            None => 0.0,
        }
    }

    /// ItemNDCG@K = (1/G)·Σ_{i=1..e} 1/log2(P + i + 1).
    pub fn item_ndcg(&self, k: usize) -> f64 {
        match self.item_block {
            Some(b) => {
                let from = u64::from(b.before);
                discount_sum(from, from + effective(b, k)) / f64::from(b.size)
            }
            None => 0.0,
        }
    }

    /// All four metrics at K.
    pub fn values(&self, k: usize) -> MetricValues {
        MetricValues {
            hit: self.hit(k),
            ndcg: self.ndcg(k),
            item_hit: self.item_hit(k),
            item_ndcg: self.item_ndcg(k),
        }
    }
}

/// e = min(G, max(0, K − P)): how many of the group's items fall within the first K.
fn effective(b: ItemBlock, k: usize) -> u64 {
    (k as u64)
        .saturating_sub(u64::from(b.before))
        .min(u64::from(b.size))
}

/// Positions up to which discount sums come from a table (beyond: summed directly).
const DISCOUNT_TABLE: usize = 4096;

/// Σ_{n=from+1..=to} 1/log2(n + 1), in O(1) from a prefix-sum table for ranks within it.
fn discount_sum(from: u64, to: u64) -> f64 {
    static PREFIX: OnceLock<Vec<f64>> = OnceLock::new();
    if to <= from {
        return 0.0;
    }
    if to as usize <= DISCOUNT_TABLE {
        let prefix = PREFIX.get_or_init(|| {
            let mut sums = Vec::with_capacity(DISCOUNT_TABLE + 1);
            let mut total = 0.0;
            sums.push(total);
            for n in 1..=DISCOUNT_TABLE {
                total += 1.0 / ((n + 1) as f64).log2();
                sums.push(total);
            }
            sums
        });
        return prefix[to as usize] - prefix[from as usize];
    }
    (from + 1..=to).map(|n| 1.0 / ((n + 1) as f64).log2()).sum()
}

/// Hit, NDCG, ItemHit and ItemNDCG at one K (per user, or averaged over users).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct MetricValues {
    /// SID-level Hit@K.
    pub hit: f64,
    /// SID-level NDCG@K.
    pub ndcg: f64,
    /// Item-level ItemHit@K.
    pub item_hit: f64,
    /// Item-level ItemNDCG@K.
    pub item_ndcg: f64,
}

impl MetricValues {
    /// How much Hit@K overstates ItemHit@K, in percent; `None` when ItemHit@K is 0.
    pub fn hit_inflation_pct(&self) -> Option<f64> {
        inflation_pct(self.hit, self.item_hit)
    }

    /// How much NDCG@K overstates ItemNDCG@K, in percent; `None` when ItemNDCG@K is 0.
    pub fn ndcg_inflation_pct(&self) -> Option<f64> {
        inflation_pct(self.ndcg, self.item_ndcg)
    }

    /// The four values with their names (`Hit`, `NDCG`, `ItemHit`, `ItemNDCG`), in the order
    /// reports list them.
    pub fn named(&self) -> [(&'static str, f64); 4] {
        [
            ("Hit", self.hit),
            ("NDCG", self.ndcg),
            ("ItemHit", self.item_hit),
            ("ItemNDCG", self.item_ndcg),
        ]
    }

    fn add(&mut self, other: MetricValues) {
        self.hit += other.hit;
        self.ndcg += other.ndcg;
        self.item_hit += other.item_hit;
        self.item_ndcg += other.item_ndcg;
    }

    fn divided_by(self, n: f64) -> MetricValues {
        MetricValues {
            hit: self.hit / n,
            ndcg: self.ndcg / n,
            item_hit: self.item_hit / n,
            item_ndcg: self.item_ndcg / n,
        }
    }
}

/// (SID-level − item-level) / item-level · 100; `None` when the item-level value is 0.
pub fn inflation_pct(sid_level: f64, item_level: f64) -> Option<f64> {
    (item_level != 0.0).then(|| (sid_level - item_level) / item_level * 100.0)
}

/// Things in the beams that the faithful evaluation had to correct, counted in both modes so
/// a user sees them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Anomalies {
    /// Beam SIDs that name no item: not in the index, unreadable, or with another L.
    pub invalid_sids: u64,
    /// Repeats of a SID (or ranked item) already listed earlier for the same user.
    pub duplicate_sids: u64,
    /// Users whose target is in neither `target_item` (via the index) nor the index's SIDs.
    pub unknown_targets: u64,
    /// Users whose `target` string is not the SID the index gives `target_item`.
    pub target_mismatches: u64,
}

impl Anomalies {
    fn add(&mut self, o: Anomalies) {
        self.invalid_sids += o.invalid_sids;
        self.duplicate_sids += o.duplicate_sids;
        self.unknown_targets += o.unknown_targets;
        self.target_mismatches += o.target_mismatches;
    }
}

/// One evaluated record: its outcome and what had to be corrected in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scored {
    /// The user's outcome.
    pub outcome: UserOutcome,
    /// What was corrected or could not be resolved in this record.
    pub anomalies: Anomalies,
}

/// Evaluates records against one index. Shared by the threads that parse a beams file; it
/// can also count, per collision group, how many users' beam lists contain the group's SID.
pub struct Evaluator<'a> {
    index: &'a SidIndex,
    collisions: &'a Collisions,
    compat: Compat,
    lookup: SidLookup,
    generated: Vec<AtomicU32>,
    count_generated: bool,
}

/// Reused buffers of one thread's evaluations.
#[derive(Default)]
struct Scratch {
    order: Vec<u32>,
    found: Vec<Option<Found>>,
    probes: Vec<Option<(u128, usize)>>,
    cleaned: Vec<Found>,
    sid_order: Vec<u32>,
    seen: HashSet<u32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Beyond this many entries a duplicate check uses a hash set instead of a scan.
const LINEAR_SEEN: usize = 64;

impl<'a> Evaluator<'a> {
    /// An evaluator for `index` (grouped as `collisions`) with the given semantics.
    pub fn new(index: &'a SidIndex, collisions: &'a Collisions, compat: Compat) -> Self {
        Evaluator {
            index,
            collisions,
            compat,
            lookup: SidLookup::new(index, collisions),
            generated: (0..collisions.n_groups())
                .map(|_| AtomicU32::new(0))
                .collect(),
            count_generated: true,
        }
    }

    /// The semantics in use.
    pub fn compat(&self) -> Compat {
        self.compat
    }

    /// Evaluates one record.
    pub fn evaluate(&self, rec: &BeamRecord) -> Scored {
        SCRATCH.with(|s| {
            let scratch = &mut *s.borrow_mut();
            match rec.ranked_items() {
                Some(_) => self.evaluate_ranked(rec, scratch),
                None => self.evaluate_beams(rec, scratch),
            }
        })
    }

    /// Evaluates a beams file and keeps every user's outcome (what the TUI holds to change K
    /// instantly). Records are parsed and evaluated in parallel.
    pub fn evaluate_file(&mut self, path: &Path, progress: &dyn Progress) -> Result<Evaluation> {
        self.restart_counts(true);
        let this = &*self;
        let mut outcomes = Vec::new();
        let mut anomalies = Anomalies::default();
        let mut list_width = 0;
        beams::map_records(
            path,
            progress,
            |rec| {
                let width = rec.ranked_items().map_or(rec.beams().len(), |r| r.len());
                (this.evaluate(rec), width)
            },
            |(scored, width)| {
                anomalies.add(scored.anomalies);
                outcomes.push(scored.outcome);
                list_width = list_width.max(width);
                Ok(())
            },
        )?;
        Ok(Evaluation {
            compat: self.compat,
            outcomes,
            anomalies,
            generated: self.generated_counts(),
            list_width,
        })
    }

    /// Evaluates a beams file at `ks` in one streaming pass, memory flat in the number of
    /// users; `on_user` sees each user's number and outcome in file order (per-user output).
    /// `track_groups` adds per-group credit (and counts generated SIDs, which costs time).
    pub fn summarize_file(
        &mut self,
        path: &Path,
        ks: &[usize],
        track_groups: bool,
        progress: &dyn Progress,
        mut on_user: impl FnMut(usize, &UserOutcome) -> Result<()>,
    ) -> Result<Summary> {
        if ks.is_empty() || ks.contains(&0) {
            return Err(Error::Invalid("K values must be at least 1".into()));
        }
        self.restart_counts(track_groups);
        let this = &*self;
        let mut acc = Accumulator::new(ks, track_groups);
        let mut user = 0;
        beams::map_records(
            path,
            progress,
            |rec| this.evaluate(rec),
            |scored| {
                acc.add(&scored.outcome, scored.anomalies);
                on_user(user, &scored.outcome)?;
                user += 1;
                Ok(())
            },
        )?;
        Ok(acc.finish(self.compat, self.collisions, &self.generated_counts()))
    }

    /// How many users' beam lists contained each collision group's SID (indexed by group),
    /// over the records evaluated since the last file started.
    pub fn generated_counts(&self) -> Vec<u32> {
        self.generated
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect()
    }

    fn restart_counts(&mut self, count: bool) {
        self.count_generated = count;
        for c in &mut self.generated {
            *c.get_mut() = 0;
        }
    }

    fn evaluate_beams(&self, rec: &BeamRecord, s: &mut Scratch) -> Scored {
        let beams = rec.beams();
        // Start every cache miss of this record before waiting on any: the beams' table
        // slots, then the target item's id lookup, group and codes.
        self.lookup.prefetch_all(beams, &mut s.probes);
        let item_pos = rec
            .target_item()
            .and_then(|id| self.index.ids().position(id));
        if let Some(p) = item_pos {
            prefetch(&self.index.codes(p)[0]);
        }
        let item_group = item_pos.map(|p| self.collisions.group_of(p));
        score_order(rec.scores(), beams.len(), &mut s.order);
        self.lookup.probe_all(&s.probes, &mut s.found);

        let mut anomalies = Anomalies::default();
        s.cleaned.clear();
        s.seen.clear();
        for &i in &s.order {
            match s.found[i as usize] {
                None => anomalies.invalid_sids += 1,
                Some(f) => {
                    let repeated = if s.cleaned.len() < LINEAR_SEEN {
                        s.cleaned.iter().any(|c| c.group == f.group)
                    } else {
                        if s.seen.is_empty() {
                            s.seen.extend(s.cleaned.iter().map(|c| c.group));
                        }
                        !s.seen.insert(f.group)
                    };
                    if repeated {
                        anomalies.duplicate_sids += 1;
                    } else {
                        s.cleaned.push(f);
                        if self.count_generated {
                            self.generated[f.group as usize].fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }
        }

        let item_sid = item_pos.map(|p| BeamSid::Codes {
            key: self.index.key(p),
            n_levels: self.index.n_levels() as u8,
        });
        if let (Some(item_sid), Some(target)) = (item_sid, rec.target())
            && item_sid != target
        {
            anomalies.target_mismatches += 1;
        }
        let mut outcome = UserOutcome {
            target_item: item_pos.map(|p| p as u32),
            ..UserOutcome::default()
        };
        match self.compat {
            Compat::Faithful => {
                let group = item_group.or_else(|| rec.target().and_then(|t| self.group_of_sid(t)));
                outcome.target_group = group;
                if let Some(g) = group
                    && let Some(r) = s.cleaned.iter().position(|c| c.group == g)
                {
                    outcome.sid_rank = Some(r as u32);
                    outcome.item_block = Some(ItemBlock {
                        before: s.cleaned[..r].iter().map(|c| c.size).sum(),
                        size: s.cleaned[r].size,
                    });
                }
            }
            Compat::CcePy => {
                let target = rec.target().or(item_sid);
                outcome.target_group = target.and_then(|t| self.group_of_sid(t));
                if let Some(target) = target {
                    self.reference_ranks(rec, target, outcome.target_group, s, &mut outcome);
                }
            }
        }
        if outcome.target_group.is_none() {
            anomalies.unknown_targets += 1;
        }
        Scored { outcome, anomalies }
    }

    /// `cce.py` on the list as ranked (unknown SIDs count as groups of one, first occurrence
    /// of the target), and `test.py`'s SID-level ranking (unknown SIDs get score −1000, i.e.
    /// move to the end, stably; every occurrence of the target counts).
    fn reference_ranks(
        &self,
        rec: &BeamRecord,
        target: BeamSid,
        target_group: Option<u32>,
        s: &mut Scratch,
        outcome: &mut UserOutcome,
    ) {
        let beams = rec.beams();
        let size_or_one = |f: Option<Found>| f.map_or(1, |f| f.size);
        if let Some(t) = s
            .order
            .iter()
            .position(|&i| rec.same_sid(beams[i as usize], target))
        {
            outcome.item_block = Some(ItemBlock {
                before: s.order[..t]
                    .iter()
                    .map(|&i| size_or_one(s.found[i as usize]))
                    .sum(),
                size: target_group.map_or(1, |g| self.collisions.size(g)),
            });
        }
        s.sid_order.clear();
        s.sid_order.extend(0..beams.len() as u32);
        let known = |i: u32| s.found[i as usize].is_some();
        match rec.scores() {
            Some(scores) => {
                let filtered = |i: u32| {
                    if known(i) {
                        scores[i as usize]
                    } else {
                        -1000.0
                    }
                };
                s.sid_order.sort_by(|&a, &b| {
                    filtered(b)
                        .partial_cmp(&filtered(a))
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
            }
            None => s.sid_order.sort_by_key(|&i| !known(i)),
        }
        let mut ranks = s
            .sid_order
            .iter()
            .enumerate()
            .filter(|&(_, &i)| rec.same_sid(beams[i as usize], target))
            .map(|(r, _)| r as u32);
        outcome.sid_rank = ranks.next();
        outcome.repeat_ranks = ranks.collect();
    }

    fn evaluate_ranked(&self, rec: &BeamRecord, s: &mut Scratch) -> Scored {
        let ids: Vec<&str> = rec.ranked_items().into_iter().flatten().collect();
        score_order(rec.scores(), ids.len(), &mut s.order);
        let target = rec.target_item().unwrap_or_default();
        let item_pos = self.index.ids().position(target);
        let mut anomalies = Anomalies::default();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut distinct = 0u32;
        let mut rank = None;
        for (raw, &i) in s.order.iter().enumerate() {
            let id = ids[i as usize];
            if !seen.insert(id) {
                anomalies.duplicate_sids += 1;
                continue;
            }
            if rank.is_none() && id == target {
                rank = Some(match self.compat {
                    Compat::Faithful => distinct,
                    Compat::CcePy => raw as u32,
                });
            }
            distinct += 1;
        }
        let outcome = UserOutcome {
            target_item: item_pos.map(|p| p as u32),
            target_group: item_pos.map(|p| self.collisions.group_of(p)),
            sid_rank: rank,
            repeat_ranks: Box::default(),
            item_block: rank.map(|r| ItemBlock { before: r, size: 1 }),
        };
        Scored { outcome, anomalies }
    }

    fn group_of_sid(&self, sid: BeamSid) -> Option<u32> {
        self.lookup.find(sid).map(|f| f.group)
    }
}

/// The positions of a list in ranked order: by score, highest first, ties in list order
/// (Python's stable `sorted(..., reverse=True)`), or as listed without scores.
fn score_order(scores: Option<&[f64]>, n: usize, order: &mut Vec<u32>) {
    order.clear();
    order.extend(0..n as u32);
    if let Some(scores) = scores {
        order.sort_by(|&a, &b| {
            scores[b as usize]
                .partial_cmp(&scores[a as usize])
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    }
}

/// How much credit one collision group's targets received at each K of a request: the
/// SID-level credit (ΣHit@K over users whose target is in the group) against the item-level
/// credit (ΣItemHit@K). The difference is what the collision over-credits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupCredit {
    /// The collision group (dense id, see [`Collisions`]).
    pub group: u32,
    /// Items sharing the group's SID.
    pub size: u32,
    /// Users whose beam list contains the group's SID.
    pub generated: u32,
    /// Users whose target item is in the group.
    pub targets: u32,
    /// ΣHit@K over those users, one value per K.
    pub sid_credit: Vec<f64>,
    /// ΣItemHit@K over those users, one value per K.
    pub item_credit: Vec<f64>,
}

impl GroupCredit {
    /// SID-level minus item-level credit at the `i`-th K.
    pub fn over_credit(&self, i: usize) -> f64 {
        self.sid_credit[i] - self.item_credit[i]
    }
}

/// Sums outcomes over users in file order (as the reference does) for a fixed list of K;
/// memory does not grow with the number of users.
pub struct Accumulator {
    ks: Vec<usize>,
    sums: Vec<MetricValues>,
    n_users: u64,
    anomalies: Anomalies,
    groups: Option<GroupSums>,
}

/// Per-target-group sums: slot per group seen as a target.
#[derive(Default)]
struct GroupSums {
    slot_of: HashMap<u32, usize>,
    groups: Vec<u32>,
    targets: Vec<u32>,
    credit: Vec<[f64; 2]>,
}

impl Accumulator {
    /// An empty sum for `ks`; `track_groups` also keeps per-group credit.
    pub fn new(ks: &[usize], track_groups: bool) -> Self {
        Accumulator {
            ks: ks.to_vec(),
            sums: vec![MetricValues::default(); ks.len()],
            n_users: 0,
            anomalies: Anomalies::default(),
            groups: track_groups.then(GroupSums::default),
        }
    }

    /// Adds one user's outcome and what was corrected in the user's record.
    pub fn add(&mut self, o: &UserOutcome, anomalies: Anomalies) {
        self.n_users += 1;
        self.anomalies.add(anomalies);
        let mut credit_slot = None;
        if let (Some(groups), Some(g)) = (self.groups.as_mut(), o.target_group) {
            let n_ks = self.ks.len();
            let slot = *groups.slot_of.entry(g).or_insert_with(|| {
                groups.groups.push(g);
                groups.targets.push(0);
                groups.credit.extend(std::iter::repeat_n([0.0; 2], n_ks));
                groups.groups.len() - 1
            });
            groups.targets[slot] += 1;
            credit_slot = Some(slot);
        }
        for (i, &k) in self.ks.iter().enumerate() {
            let v = o.values(k);
            self.sums[i].add(v);
            if let (Some(groups), Some(slot)) = (self.groups.as_mut(), credit_slot) {
                let c = &mut groups.credit[slot * self.ks.len() + i];
                c[0] += v.hit;
                c[1] += v.item_hit;
            }
        }
    }

    /// The means, counts and (when tracked) group credits. `generated` gives per-group beam
    /// counts (see [`Evaluator::generated_counts`]).
    pub fn finish(self, compat: Compat, collisions: &Collisions, generated: &[u32]) -> Summary {
        let n = self.n_users.max(1) as f64;
        let n_ks = self.ks.len();
        let groups = self
            .groups
            .map(|gs| {
                gs.groups
                    .iter()
                    .enumerate()
                    .map(|(slot, &g)| {
                        let credit = &gs.credit[slot * n_ks..(slot + 1) * n_ks];
                        GroupCredit {
                            group: g,
                            size: collisions.size(g),
                            generated: generated.get(g as usize).copied().unwrap_or(0),
                            targets: gs.targets[slot],
                            sid_credit: credit.iter().map(|c| c[0]).collect(),
                            item_credit: credit.iter().map(|c| c[1]).collect(),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        Summary {
            compat,
            n_users: self.n_users,
            values: self.sums.iter().map(|s| s.divided_by(n)).collect(),
            ks: self.ks,
            anomalies: self.anomalies,
            groups,
        }
    }
}

/// The result of evaluating a beams file at a list of K.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Semantics used.
    pub compat: Compat,
    /// Number of users (records).
    pub n_users: u64,
    /// The K values, as requested.
    pub ks: Vec<usize>,
    /// Mean metrics, one entry per K.
    pub values: Vec<MetricValues>,
    /// What had to be corrected.
    pub anomalies: Anomalies,
    /// Credit per collision group that is some user's target (empty unless tracked).
    pub groups: Vec<GroupCredit>,
}

impl Summary {
    /// The `n` groups over-credited most at the largest K (ties: larger SID credit, then
    /// group id), as `sidlens eval --groups` lists them.
    pub fn top_groups(&self, n: usize) -> Vec<&GroupCredit> {
        let Some(at) = self.largest_k_position() else {
            return Vec::new();
        };
        let mut groups: Vec<&GroupCredit> = self.groups.iter().collect();
        groups.sort_by(|a, b| {
            b.over_credit(at)
                .total_cmp(&a.over_credit(at))
                .then(b.sid_credit[at].total_cmp(&a.sid_credit[at]))
                .then(a.group.cmp(&b.group))
        });
        groups.truncate(n);
        groups
    }

    /// Position in `ks` of the largest K (ties: the first).
    pub fn largest_k_position(&self) -> Option<usize> {
        (0..self.ks.len()).rev().max_by_key(|&i| self.ks[i])
    }
}

/// Every user's outcome, kept so that a front end can recompute any K instantly.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Semantics used.
    pub compat: Compat,
    /// One outcome per user, in file order.
    pub outcomes: Vec<UserOutcome>,
    /// What had to be corrected, over all users.
    pub anomalies: Anomalies,
    /// Per collision group, how many users' beam lists contain its SID.
    pub generated: Vec<u32>,
    /// The longest ranked list of any user (beam width): the largest K that means anything.
    pub list_width: usize,
}

impl Evaluation {
    /// Number of users.
    pub fn n_users(&self) -> usize {
        self.outcomes.len()
    }

    /// Mean metrics at `k`.
    pub fn at(&self, k: usize) -> MetricValues {
        let mut sum = MetricValues::default();
        for o in &self.outcomes {
            sum.add(o.values(k));
        }
        sum.divided_by(self.outcomes.len().max(1) as f64)
    }

    /// Means, counts and per-group credit at `ks`, exactly as [`Evaluator::summarize_file`]
    /// gives them.
    pub fn summary(&self, ks: &[usize], collisions: &Collisions) -> Summary {
        let mut acc = Accumulator::new(ks, true);
        for o in &self.outcomes {
            acc.add(o, Anomalies::default());
        }
        let mut summary = acc.finish(self.compat, collisions, &self.generated);
        summary.anomalies = self.anomalies;
        summary
    }
}

/// One collision group's credit at one K (see [`GroupCredit`], which holds it for a list of K).
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

/// Users indexed by the collision group of their target, so that one group's credit at any K
/// costs only that group's users — what an interactive front end needs on every change of K.
#[derive(Debug, Clone, Default)]
pub struct CreditIndex {
    users: HashMap<u32, Vec<u32>>,
}

impl CreditIndex {
    /// Indexes the users of `evaluation` by target group.
    pub fn new(evaluation: &Evaluation) -> Self {
        let mut users: HashMap<u32, Vec<u32>> = HashMap::new();
        for (user, o) in evaluation.outcomes.iter().enumerate() {
            if let Some(g) = o.target_group {
                users.entry(g).or_default().push(user as u32);
            }
        }
        CreditIndex { users }
    }

    /// The credit of SID group `group` at `k`, summed in user order exactly like
    /// [`Evaluation::summary`]; `None` when no user's target is in it.
    pub fn credit(&self, evaluation: &Evaluation, group: u32, k: usize) -> Option<Credit> {
        let users = self.users.get(&group)?;
        let mut credit = Credit {
            targets: users.len() as u32,
            sid: 0.0,
            item: 0.0,
        };
        for &u in users {
            let o = &evaluation.outcomes[u as usize];
            credit.sid += o.hit(k);
            credit.item += o.item_hit(k);
        }
        Some(credit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// L = 2. Groups: <a_1><b_1> = {0} (G=1), <a_2><b_2> = {1, 2} (G=2),
    /// <a_3><b_3> = {3, 4, 5} (G=3), <a_4><b_4> = {6} (G=1).
    fn fixture() -> (SidIndex, Collisions) {
        let index = SidIndex::parse(
            br#"{"0": [1, 1], "1": [2, 2], "2": [2, 2], "3": [3, 3], "4": [3, 3], "5": [3, 3], "6": [4, 4]}"#,
            Path::new("t.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        (index, collisions)
    }

    fn score(compat: Compat, record: &str) -> Scored {
        let (index, collisions) = fixture();
        let rec = BeamRecord::from_json(record).unwrap();
        Evaluator::new(&index, &collisions, compat).evaluate(&rec)
    }

    fn both(record: &str) -> (Scored, Scored) {
        (
            score(Compat::Faithful, record),
            score(Compat::CcePy, record),
        )
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn disc(rank: u32) -> f64 {
        1.0 / f64::from(rank + 1).log2()
    }

    #[test]
    fn group_straddling_k() {
        // Target group {1, 2} (G = 2) after the G = 3 group: P = 3, so at K = 4 one of its two
        // items fits (ItemHit 1/2) and at K = 5 both do.
        let r = r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>"], "target_item": "1"}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        let o = &f.outcome;
        assert_eq!(o.sid_rank, Some(1));
        assert_eq!(o.item_block, Some(ItemBlock { before: 3, size: 2 }));
        assert_eq!((o.hit(1), o.hit(2)), (0.0, 1.0));
        assert!(close(o.ndcg(2), disc(2)));
        assert_eq!(
            [1, 3, 4, 5, 20].map(|k| o.item_hit(k)),
            [0.0, 0.0, 0.5, 1.0, 1.0]
        );
        assert!(close(o.item_ndcg(4), disc(4) / 2.0));
        assert!(close(o.item_ndcg(5), (disc(4) + disc(5)) / 2.0));
        assert!(close(o.item_ndcg(100), o.item_ndcg(5)));
        assert_eq!(o.target_group, Some(1));
        assert_eq!(o.target_item, Some(1));
    }

    #[test]
    fn items_before_beyond_k() {
        // A singleton target at SID rank 2 behind 3 + 2 items: Hit@2 = 1 but ItemHit@2..5 = 0.
        let r = r#"{"beam_sids": ["<a_3><b_3>", "<a_2><b_2>", "<a_4><b_4>"], "target_item": "6"}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        let o = &f.outcome;
        assert_eq!(o.item_block, Some(ItemBlock { before: 5, size: 1 }));
        assert_eq!(o.hit(3), 1.0);
        assert_eq!([3, 5, 6].map(|k| o.item_hit(k)), [0.0, 0.0, 1.0]);
        assert!(close(o.item_ndcg(6), disc(6)));
        assert!(close(o.ndcg(3), disc(3)));
    }

    #[test]
    fn misses_are_positive_zero() {
        let (f, c) = both(r#"{"beam_sids": ["<a_3><b_3>"], "target_item": "0"}"#);
        for v in [f.outcome.values(5), c.outcome.values(5)] {
            for (_, x) in v.named() {
                assert!(x == 0.0 && x.is_sign_positive(), "{v:?}");
            }
        }
    }

    #[test]
    fn short_and_empty_lists() {
        let short = score(
            Compat::Faithful,
            r#"{"beam_sids": ["<a_1><b_1>"], "target_item": "0"}"#,
        );
        assert_eq!(short.outcome.values(1), short.outcome.values(20));
        assert_eq!(short.outcome.values(20).item_ndcg, 1.0);
        let (f, c) = both(r#"{"beam_sids": [], "target_item": "3"}"#);
        assert_eq!(f, c);
        assert_eq!(f.outcome.values(20), MetricValues::default());
        assert_eq!(f.outcome.target_group, Some(2));
        assert_eq!(f.anomalies, Anomalies::default());
    }

    #[test]
    fn duplicates_count_once_faithfully_and_every_time_under_compat() {
        // Faithful: the repeat is dropped, the target is SID rank 1 after 3 items.
        // cce.py: P counts the G = 3 group twice (P = 6); the SID-level rank is 2.
        let r = r#"{"beam_sids": ["<a_3><b_3>", "<a_3><b_3>", "<a_1><b_1>"], "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.duplicate_sids, 1);
        assert_eq!(c.anomalies.duplicate_sids, 1);
        assert_eq!(f.outcome.sid_rank, Some(1));
        assert_eq!(f.outcome.item_block, Some(ItemBlock { before: 3, size: 1 }));
        assert_eq!((f.outcome.hit(2), f.outcome.item_hit(4)), (1.0, 1.0));
        assert_eq!(c.outcome.sid_rank, Some(2));
        assert_eq!(c.outcome.item_block, Some(ItemBlock { before: 6, size: 1 }));
        assert_eq!((c.outcome.hit(2), c.outcome.hit(3)), (0.0, 1.0));
        assert_eq!((c.outcome.item_hit(6), c.outcome.item_hit(7)), (0.0, 1.0));
    }

    #[test]
    fn repeated_target_adds_ndcg_only_under_compat() {
        let r = r#"{"beam_sids": ["<a_1><b_1>", "<a_2><b_2>", "<a_1><b_1>"], "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.outcome.ndcg(3), 1.0);
        assert!(f.outcome.repeat_ranks.is_empty());
        assert_eq!(&*c.outcome.repeat_ranks, &[2]);
        assert!(close(c.outcome.ndcg(3), 1.5));
        assert_eq!(c.outcome.ndcg(2), 1.0);
        assert_eq!(c.outcome.hit(3), 1.0);
        assert_eq!(c.outcome.item_hit(1), 1.0);
    }

    #[test]
    fn unknown_sids_are_dropped_faithfully_and_size_one_under_compat() {
        // "<a_9><b_9>" is in no group, "<a_1>" has one level, "x" is not a SID.
        let r = r#"{"beam_sids": ["<a_9><b_9>", "<a_1>", "x", "<a_1><b_1>"], "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.invalid_sids, 3);
        assert_eq!(f.outcome.sid_rank, Some(0));
        assert_eq!(f.outcome.item_block, Some(ItemBlock { before: 0, size: 1 }));
        assert_eq!(f.outcome.values(1).item_hit, 1.0);
        // cce.py: each unknown SID is a group of one (P = 3); test.py moves them to the end
        // for the SID-level metrics (rank 0).
        assert_eq!(c.anomalies.invalid_sids, 3);
        assert_eq!(c.outcome.item_block, Some(ItemBlock { before: 3, size: 1 }));
        assert_eq!(c.outcome.sid_rank, Some(0));
        assert_eq!((c.outcome.item_hit(3), c.outcome.item_hit(4)), (0.0, 1.0));
        assert!(close(c.outcome.item_ndcg(4), disc(4)));
    }

    #[test]
    fn unknown_target_under_compat_matches_its_string() {
        // The target SID is not in the index: faithful counts a miss; cce.py still finds the
        // string among the beams (G = 1 by its default), behind the other unknown SID.
        let r =
            r#"{"beam_sids": ["<a_8><b_8>", "<a_9><b_9>", "<a_1><b_1>"], "target": "<a_9><b_9>"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.unknown_targets, 1);
        assert_eq!(f.outcome.values(20), MetricValues::default());
        assert_eq!(c.anomalies.unknown_targets, 1);
        assert_eq!(c.outcome.item_block, Some(ItemBlock { before: 1, size: 1 }));
        assert_eq!(c.outcome.sid_rank, Some(2));
        assert_eq!(c.outcome.target_group, None);
    }

    #[test]
    fn target_item_wins_over_a_disagreeing_target_string() {
        let r = r#"{"beam_sids": ["<a_2><b_2>", "<a_1><b_1>"], "target": "<a_2><b_2>", "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.target_mismatches, 1);
        assert_eq!(c.anomalies.target_mismatches, 1);
        assert_eq!(f.outcome.sid_rank, Some(1));
        assert_eq!(f.outcome.target_group, Some(0));
        assert_eq!(c.outcome.sid_rank, Some(0));
        assert_eq!(c.outcome.target_group, Some(1));
        // A target item the index lacks falls back to the target string.
        let f = score(
            Compat::Faithful,
            r#"{"beam_sids": ["<a_2><b_2>"], "target": "<a_2><b_2>", "target_item": "77"}"#,
        );
        assert_eq!(f.outcome.sid_rank, Some(0));
        assert_eq!(f.outcome.target_item, None);
        assert_eq!(f.anomalies, Anomalies::default());
    }

    #[test]
    fn scores_rank_the_list_and_unknown_sids_sink_under_compat() {
        let r = r#"{"beam_sids": ["<a_1><b_1>", "<a_3><b_3>", "<a_2><b_2>"], "scores": [0.1, 0.9, 0.5], "target_item": "1"}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        assert_eq!(f.outcome.item_block, Some(ItemBlock { before: 3, size: 2 }));
        assert_eq!(f.outcome.sid_rank, Some(1));
        // Equal scores keep list order; the best-scored SID is unknown: cce.py ranks it first
        // for the item metrics (P = 1), test.py gives it −1000 for the SID metrics.
        let r = r#"{"beam_sids": ["<a_9><b_9>", "<a_1><b_1>", "<a_4><b_4>"], "scores": [-0.1, -0.5, -0.5], "target_item": "6"}"#;
        let (f, c) = both(r);
        assert_eq!(f.outcome.sid_rank, Some(1));
        assert_eq!(f.outcome.item_block, Some(ItemBlock { before: 1, size: 1 }));
        assert_eq!(c.outcome.sid_rank, Some(1));
        assert_eq!(c.outcome.item_block, Some(ItemBlock { before: 2, size: 1 }));
    }

    #[test]
    fn ranked_items_use_leave_one_out_hr_and_ndcg() {
        let r = r#"{"ranked_items": ["5", 0, "9"], "target_item": 0}"#;
        let (f, c) = both(r);
        assert_eq!(f, c);
        let o = &f.outcome;
        assert_eq!((o.hit(1), o.hit(2)), (0.0, 1.0));
        assert!(close(o.ndcg(2), disc(2)));
        assert_eq!(o.values(2).item_hit, o.values(2).hit);
        assert_eq!(o.values(2).item_ndcg, o.values(2).ndcg);
        assert_eq!(o.target_group, Some(0));
        let r = r#"{"ranked_items": ["5", "5", "0"], "target_item": "0"}"#;
        let (f, c) = both(r);
        assert_eq!(f.anomalies.duplicate_sids, 1);
        assert_eq!(f.outcome.sid_rank, Some(1));
        assert_eq!(c.outcome.sid_rank, Some(2));
        let missing = score(
            Compat::Faithful,
            r#"{"ranked_items": ["5"], "target_item": "x"}"#,
        );
        assert_eq!(missing.outcome.sid_rank, None);
        assert_eq!(missing.outcome.target_group, None);
    }

    #[test]
    fn discount_sums_match_direct_sums() {
        let direct = |from: u64, to: u64| -> f64 {
            (from + 1..=to).map(|n| 1.0 / ((n + 1) as f64).log2()).sum()
        };
        for (a, b) in [
            (0, 1),
            (3, 7),
            (0, 20),
            (4090, 4096),
            (4095, 4100),
            (10_000, 10_010),
        ] {
            assert!(close(discount_sum(a, b), direct(a, b)), "{a}..{b}");
        }
        assert_eq!(discount_sum(5, 5), 0.0);
    }

    #[test]
    fn accumulator_sums_metrics_and_group_credit() {
        let (index, collisions) = fixture();
        let ev = Evaluator::new(&index, &collisions, Compat::Faithful);
        let records = [
            r#"{"beam_sids": ["<a_3><b_3>", "<a_1><b_1>"], "target_item": "3"}"#,
            r#"{"beam_sids": ["<a_1><b_1>", "<a_3><b_3>"], "target_item": "4"}"#,
            r#"{"beam_sids": ["<a_9><b_9>"], "target_item": "0"}"#,
        ];
        let mut acc = Accumulator::new(&[1, 3], true);
        for r in records {
            let s = ev.evaluate(&BeamRecord::from_json(r).unwrap());
            acc.add(&s.outcome, s.anomalies);
        }
        let summary = acc.finish(Compat::Faithful, &collisions, &ev.generated_counts());
        assert_eq!(summary.n_users, 3);
        assert_eq!(summary.anomalies.invalid_sids, 1);
        // User 0: rank 0, P = 0, G = 3. User 1: rank 1, P = 1, G = 3. User 2: nothing valid.
        // Hit@1 = 1/3; ItemHit@1 = (1/3)/3; Hit@3 = 2/3; ItemHit@3 = (1 + 2/3)/3 = 5/9.
        assert!(close(summary.values[0].hit, 1.0 / 3.0));
        assert!(close(summary.values[0].item_hit, 1.0 / 9.0));
        assert!(close(summary.values[1].hit, 2.0 / 3.0));
        assert!(close(summary.values[1].item_hit, 5.0 / 9.0));
        assert!(close(summary.values[1].hit_inflation_pct().unwrap(), 20.0));
        let top = summary.top_groups(5);
        assert_eq!(top.len(), 2);
        let g3 = top[0];
        assert_eq!((g3.group, g3.size, g3.targets, g3.generated), (2, 3, 2, 2));
        assert_eq!(g3.sid_credit, vec![1.0, 2.0]);
        assert!(close(g3.item_credit[0], 1.0 / 3.0));
        assert!(close(g3.item_credit[1], 5.0 / 3.0));
        assert!(close(g3.over_credit(1), 1.0 / 3.0));
        assert_eq!((top[1].group, top[1].generated), (0, 2));
        assert_eq!(ev.generated_counts(), vec![2, 0, 2, 0]);
    }

    #[test]
    fn inflation_is_undefined_without_item_level_credit() {
        assert_eq!(inflation_pct(0.5, 0.0), None);
        assert_eq!(inflation_pct(0.3, 0.2), Some((0.3 - 0.2) / 0.2 * 100.0));
    }

    fn sid(codes: (u16, u16)) -> String {
        format!("<a_{}><b_{}>", codes.0, codes.1)
    }

    proptest! {
        /// Faithful metrics are probabilities, item-level never exceeds SID-level, both grow
        /// with K, and they meet once K covers the whole block.
        #[test]
        fn faithful_invariants(
            beams in proptest::collection::vec((0u16..6, 0u16..6), 0..25),
            target in 0usize..7,
            k in 1usize..40,
        ) {
            let (index, collisions) = fixture();
            let ev = Evaluator::new(&index, &collisions, Compat::Faithful);
            let list: Vec<String> = beams.iter().map(|&c| sid(c)).collect();
            let record = serde_json::json!({"beam_sids": list, "target_item": target.to_string()});
            let s = ev.evaluate(&BeamRecord::from_json(&record.to_string()).unwrap());
            let (now, next) = (s.outcome.values(k), s.outcome.values(k + 1));
            for v in [now, next] {
                prop_assert!(v.item_hit <= v.hit + 1e-12 && v.hit <= 1.0);
                prop_assert!(v.item_ndcg <= v.ndcg + 1e-12 && v.ndcg <= 1.0 + 1e-12);
                prop_assert!(v.item_hit >= 0.0 && v.item_ndcg >= 0.0);
            }
            prop_assert!(next.item_hit >= now.item_hit && next.item_ndcg >= now.item_ndcg - 1e-15);
            if let Some(b) = s.outcome.item_block {
                let all = (b.before + b.size) as usize;
                prop_assert_eq!(s.outcome.item_hit(all), 1.0);
            }
            let valid = beams.iter().filter(|&&(a, b)| a == b && (1..=4).contains(&a)).count() as u64;
            prop_assert_eq!(s.anomalies.invalid_sids, beams.len() as u64 - valid);
        }
    }

    /// One group's credit from the index equals [`Evaluation::summary`] for every group and K.
    #[test]
    fn credit_index_matches_the_summary() {
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
            anomalies: Anomalies::default(),
            generated: evaluator.generated_counts(),
            list_width: 2,
        };
        let ks = [1, 2, 3, 5, 10];
        let summary = evaluation.summary(&ks, &collisions);
        let credits = CreditIndex::new(&evaluation);
        for (i, &k) in ks.iter().enumerate() {
            for g in &summary.groups {
                let c = credits.credit(&evaluation, g.group, k).unwrap();
                assert_eq!(c.targets, g.targets);
                assert_eq!(c.sid, g.sid_credit[i]);
                assert_eq!(c.item, g.item_credit[i]);
                assert_eq!(c.over(), g.over_credit(i));
            }
        }
        assert_eq!(summary.groups.len(), 3);
        assert_eq!(
            credits.credit(&evaluation, collisions.group_of(3) + 100, 1),
            None
        );
    }
}
