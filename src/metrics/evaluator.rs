//! One beam list against one index: finds each beam's collision group, applies the faithful
//! or `cce.py` semantics, and yields the user's outcome and what had to be corrected.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::Serialize;

use super::lookup::{Found, ItemGroups, Probes, SidLookup};
use super::{Accumulator, Compat, EvalSummary, Evaluation, ItemBlock, PrefixRanks, UserOutcome};
use crate::collision::Collisions;
use crate::error::{Error, Result};
use crate::load::SidIndex;
use crate::load::beams::{self, BeamRecord, BeamSid};
use crate::numeric::prefetch::prefetch;
use crate::progress::Progress;
use crate::sid::scheme::SidScheme;

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
    /// Ranked item ids (`ranked_items`) that are not in the index's catalog.
    pub unknown_items: u64,
    /// Entries listed over all users (beam SIDs or ranked items), the base of the shares
    /// that warn about beams from another tokenizer.
    pub listed: u64,
}

impl Anomalies {
    pub(super) fn add(&mut self, o: Anomalies) {
        self.invalid_sids += o.invalid_sids;
        self.duplicate_sids += o.duplicate_sids;
        self.unknown_targets += o.unknown_targets;
        self.target_mismatches += o.target_mismatches;
        self.unknown_items += o.unknown_items;
        self.listed += o.listed;
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
    groups: ItemGroups,
    /// The groups as [`Collisions`] numbers them (what group credit names), when the table
    /// was built from them.
    collisions: Option<&'a Collisions>,
    compat: Compat,
    lookup: SidLookup,
    generated: Vec<AtomicU32>,
    count_generated: bool,
    beams_scheme: Option<SidScheme>,
}

/// Reused buffers of one thread's evaluations.
#[derive(Default)]
struct Scratch {
    order: Vec<u32>,
    found: Vec<Option<Found>>,
    probes: Probes,
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
        let lookup = SidLookup::new(index, collisions);
        Self::with_groups(
            index,
            lookup,
            ItemGroups::of(collisions),
            Some(collisions),
            compat,
        )
    }

    /// An evaluator for `index` that groups the items itself, without [`Collisions`] (whose
    /// sort of every item by SID a summary does not need: 40 ms of a 0.3 s `eval` at 1M
    /// items). Its groups are numbered in an order of no meaning, so it cannot credit groups
    /// by name: [`Evaluator::summarize_file`] with `track_groups` needs [`Evaluator::new`].
    pub fn without_collisions(index: &'a SidIndex, compat: Compat) -> Self {
        let (lookup, groups) = SidLookup::grouping(index);
        Self::with_groups(index, lookup, groups, None, compat)
    }

    fn with_groups(
        index: &'a SidIndex,
        lookup: SidLookup,
        groups: ItemGroups,
        collisions: Option<&'a Collisions>,
        compat: Compat,
    ) -> Self {
        // Generated SIDs are counted for views that name groups; without them the counters
        // start when a file is evaluated with counting (at 1M items, 3.4 MB of counters
        // written and copied out for nothing by every summary).
        let generated = match collisions {
            Some(_) => zeroed_counters(groups.n_groups()),
            None => Vec::new(),
        };
        Evaluator {
            index,
            generated,
            groups,
            collisions,
            compat,
            lookup,
            count_generated: collisions.is_some(),
            beams_scheme: None,
        }
    }

    /// The share of the index's items that share their SID (as [`Collisions::collision_rate`]).
    pub fn collision_rate(&self) -> f64 {
        self.groups.collision_rate()
    }

    /// Reads beams files whose SIDs are written in `scheme` (`None`: detected per file).
    pub fn with_beams_scheme(mut self, scheme: Option<SidScheme>) -> Self {
        self.beams_scheme = scheme.filter(|&s| s != SidScheme::Integers);
        self
    }

    /// The semantics in use.
    pub fn compat(&self) -> Compat {
        self.compat
    }

    /// Starts loading what evaluating `rec` will look up (its beams' and its target SID's
    /// table slots, its target id's entry), noting the slots in `probes`; the file readers
    /// call it on the next record while this one is evaluated.
    fn warm(&self, rec: &BeamRecord, probes: &mut Probes) {
        self.lookup.locate(rec.beams(), rec.target(), probes);
        if let Some(id) = rec.target_item() {
            self.index.ids().warm(id);
        }
    }

    /// Evaluates one record.
    pub fn evaluate(&self, rec: &BeamRecord) -> Scored {
        let mut probes = SCRATCH.with(|s| std::mem::take(&mut s.borrow_mut().probes));
        self.warm(rec, &mut probes);
        let scored = self.evaluate_warmed(rec, &probes);
        SCRATCH.with(|s| s.borrow_mut().probes = probes);
        scored
    }

    /// Evaluates one record that [`Evaluator::warm`] has located in `probes`.
    fn evaluate_warmed(&self, rec: &BeamRecord, probes: &Probes) -> Scored {
        SCRATCH.with(|s| {
            let scratch = &mut *s.borrow_mut();
            match rec.ranked_items() {
                Some(_) => self.evaluate_ranked(rec, scratch),
                None => self.evaluate_beams(rec, probes, scratch),
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
        beams::map_records_warmed_as(
            path,
            self.beams_scheme,
            progress,
            &|rec, probes| this.warm(rec, probes),
            |rec, probes| {
                let width = rec.ranked_items().map_or(rec.beams().len(), |r| r.len());
                (this.evaluate_warmed(rec, probes), width)
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
    ) -> Result<EvalSummary> {
        if ks.is_empty() || ks.contains(&0) {
            return Err(Error::Invalid("K values must be at least 1".into()));
        }
        assert!(
            self.collisions.is_some() || !track_groups,
            "group credit needs an evaluator built with Evaluator::new"
        );
        self.restart_counts(track_groups);
        let this = &*self;
        let mut acc = Accumulator::new(ks, track_groups);
        let mut user = 0;
        let mut list_width = 0;
        beams::map_records_warmed_as(
            path,
            self.beams_scheme,
            progress,
            &|rec, probes| this.warm(rec, probes),
            |rec, probes| {
                let width = rec.ranked_items().map_or(rec.beams().len(), |r| r.len());
                (this.evaluate_warmed(rec, probes), width)
            },
            |(scored, width)| {
                acc.add(&scored.outcome, scored.anomalies);
                list_width = list_width.max(width);
                on_user(user, &scored.outcome)?;
                user += 1;
                Ok(())
            },
        )?;
        let generated = match track_groups {
            true => self.generated_counts(),
            false => Vec::new(),
        };
        // Group credit is tracked only with `collisions` (asserted above).
        let size = |g| self.collisions.map_or(0, |c| c.size(g));
        let mut summary = acc.finish(self.compat, size, &generated);
        summary.list_width = list_width;
        Ok(summary)
    }

    /// How many users' beam lists contained each collision group's SID (indexed by group),
    /// over the records evaluated since the last file started; empty from an evaluator
    /// without [`Collisions`] that has not counted.
    pub fn generated_counts(&self) -> Vec<u32> {
        self.generated
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect()
    }

    fn restart_counts(&mut self, count: bool) {
        self.count_generated = count;
        if count && self.generated.len() != self.groups.n_groups() {
            self.generated = zeroed_counters(self.groups.n_groups());
        }
        for c in &mut self.generated {
            *c.get_mut() = 0;
        }
    }

    fn evaluate_beams(&self, rec: &BeamRecord, probes: &Probes, s: &mut Scratch) -> Scored {
        let beams = rec.beams();
        // Every cache miss of this record is started before waiting on any: the beams' and
        // the target SID's table slots (by `warm`), then the target item's id lookup and
        // codes. The target item's group is usually the target SID's, found with the beams.
        let item_pos = rec
            .target_item()
            .and_then(|id| self.index.ids().position(id));
        if let Some(p) = item_pos {
            prefetch(&self.index.codes(p)[0]);
        }
        score_order(rec.scores(), beams.len(), &mut s.order);
        self.lookup.probe_all(probes, &mut s.found);
        let target_found = s.found.get(beams.len()).copied().flatten();
        let found_of = |sid: BeamSid| match rec.target() {
            Some(target) if target == sid => target_found,
            _ => self.lookup.find(sid),
        };

        let mut anomalies = Anomalies {
            listed: beams.len() as u64,
            ..Anomalies::default()
        };
        s.cleaned.clear();
        s.seen.clear();
        // A 256-bit filter of the groups kept so far: a group whose bit is clear is new for
        // sure, so the usual distinct list needs no scan (and no hard-to-predict exit).
        let mut kept = [0u64; 4];
        for &i in &s.order {
            match s.found[i as usize] {
                None => anomalies.invalid_sids += 1,
                Some(f) => {
                    let tag = (f.group.wrapping_mul(0x9E37_79B1) >> 24) as usize;
                    let (word, bit) = (tag >> 6, 1u64 << (tag & 63));
                    let maybe_kept = kept[word] & bit != 0;
                    kept[word] |= bit;
                    let repeated = if !maybe_kept {
                        if !s.seen.is_empty() {
                            s.seen.insert(f.group);
                        }
                        false
                    } else if s.cleaned.len() < LINEAR_SEEN {
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

        let item_sid = item_pos.map(|p| self.item_sid(p));
        if let (Some(item_sid), Some(target)) = (item_sid, rec.target())
            && item_sid != target
        {
            anomalies.target_mismatches += 1;
        }
        let mut outcome = UserOutcome {
            target_item: item_pos.map(|p| p as u32),
            ..UserOutcome::default()
        };
        let target_key: Option<(u32, u128)>;
        match self.compat {
            Compat::Faithful => {
                target_key = item_sid
                    .and_then(found_of)
                    .or_else(|| rec.target().and_then(found_of))
                    .map(|f| (f.group, f.packed));
                let group = target_key.map(|(g, _)| g);
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
                let found = target.and_then(found_of);
                target_key = found.map(|f| (f.group, f.packed));
                outcome.target_group = found.map(|f| f.group);
                if let Some(target) = target {
                    let size = found.map(|f| f.size);
                    self.reference_ranks(rec, target, size, s, &mut outcome);
                }
            }
        }
        if outcome.target_group.is_none() {
            anomalies.unknown_targets += 1;
        }
        outcome.prefix_ranks = self.prefix_ranks(&s.cleaned, target_key.map(|(_, k)| k));
        Scored { outcome, anomalies }
    }

    /// `cce.py` on the list as ranked (unknown SIDs count as groups of one, first occurrence
    /// of the target), and `test.py`'s SID-level ranking (unknown SIDs get score −1000, i.e.
    /// move to the end, stably; every occurrence of the target counts).
    fn reference_ranks(
        &self,
        rec: &BeamRecord,
        target: BeamSid,
        target_size: Option<u32>,
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
                size: target_size.unwrap_or(1),
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
        let mut anomalies = Anomalies {
            listed: ids.len() as u64,
            unknown_targets: u64::from(item_pos.is_none()),
            ..Anomalies::default()
        };
        let mut seen: HashSet<&str> = HashSet::new();
        let mut distinct = 0u32;
        let mut rank = None;
        for (raw, &i) in s.order.iter().enumerate() {
            let id = ids[i as usize];
            if !seen.insert(id) {
                anomalies.duplicate_sids += 1;
                continue;
            }
            if self.index.ids().position(id).is_none() {
                anomalies.unknown_items += 1;
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
            target_group: item_pos.and_then(|p| self.item_group(p)),
            sid_rank: rank,
            repeat_ranks: Box::default(),
            item_block: rank.map(|r| ItemBlock { before: r, size: 1 }),
            prefix_ranks: PrefixRanks::default(),
            ranked_items: true,
        };
        Scored { outcome, anomalies }
    }

    /// For depths 1..L−1, the first rank in the cleaned SID list (both semantics: valid SIDs,
    /// first occurrences) sharing the target's first d codes; ranks only grow with depth.
    /// `target` is the re-packed key of the target's group.
    fn prefix_ranks(&self, cleaned: &[Found], target: Option<u128>) -> PrefixRanks {
        let depths = self.index.n_levels().saturating_sub(1);
        let mut ranks = PrefixRanks::unreached(depths);
        let Some(target) = target else {
            return ranks;
        };
        let mut reached = 0;
        for (r, f) in cleaned.iter().enumerate() {
            let common = self.lookup.common_levels(f.packed, target).min(depths);
            while reached < common {
                ranks[reached] = r as u32;
                reached += 1;
            }
            if reached == depths {
                break;
            }
        }
        ranks
    }

    /// The SID of the item at `position`, as a beam would name it.
    fn item_sid(&self, position: usize) -> BeamSid {
        BeamSid::Codes {
            key: self.index.key(position),
            n_levels: self.index.n_levels() as u8,
        }
    }

    /// The collision group of the item at `position` (its SID's).
    fn item_group(&self, position: usize) -> Option<u32> {
        self.lookup.find(self.item_sid(position)).map(|f| f.group)
    }
}

fn zeroed_counters(n: usize) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
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
