//! SID → collision group lookups for the evaluator: an open-addressing hash table whose
//! slots hold the group (or number it by their place) and its size, with prefetching so that
//! a beam list's cache misses overlap.

use rayon::prelude::*;

use crate::collision::Collisions;
use crate::load::SidIndex;
use crate::load::beams::BeamSid;
use crate::numeric::prefetch::prefetch;
use crate::sid::SidKey;

/// How many collision groups there are and how many items share their SID: from
/// [`Collisions`] (groups in SID order, as every view names them) or counted with the table
/// by [`SidLookup::grouping`] (a group numbered by its slot). An item's group and its size
/// are its SID's, found in the table.
#[derive(Default)]
pub(super) struct ItemGroups {
    n_groups: usize,
    /// Items in groups of more than one.
    in_collisions: usize,
    n_items: usize,
}

impl ItemGroups {
    pub(super) fn of(collisions: &Collisions) -> Self {
        ItemGroups {
            n_groups: collisions.n_groups(),
            in_collisions: collisions.n_in_collisions(),
            n_items: collisions.n_items(),
        }
    }

    pub(super) fn n_groups(&self) -> usize {
        self.n_groups
    }

    /// The share of items in groups of more than one, as [`Collisions::collision_rate`].
    pub(super) fn collision_rate(&self) -> f64 {
        self.in_collisions as f64 / self.n_items.max(1) as f64
    }
}

/// A beam SID found in the index: its collision group, the group's size, and its re-packed
/// key, so that prefix comparisons need no further memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found {
    pub(super) group: u32,
    pub(super) size: u32,
    pub(super) packed: u128,
}

/// SID → (collision group, group size), as an open-addressing hash table: one cache line per
/// beam SID on the hot path. Keys are re-packed with as few bits per level as V needs.
pub(super) struct SidLookup {
    repack: Repack,
    table: Table,
}

/// Each beam SID's re-packed key and home slot, `None` when it cannot be in the index: what
/// [`SidLookup::locate`] works out once for [`SidLookup::probe_all`].
#[derive(Default)]
pub struct Probes(Vec<Option<(u128, usize)>>);

/// How keys are re-packed: `bits` per level, for SIDs of `n_levels` codes below V.
#[derive(Clone, Copy)]
struct Repack {
    n_levels: u8,
    codebook_size: u32,
    bits: u32,
    /// 2^16 − V in each 32-bit lane: added to a code, it carries into bit 16 exactly when
    /// the code is not below V.
    headroom: u64,
}

/// The 16-bit lanes 0 and 2 of a key of at most four levels (lanes 1 and 3 shifted down).
const EVEN_LANES: u64 = 0x0000_FFFF_0000_FFFF;
/// Bit 16 of each 32-bit lane: where a code at or above V carries to.
const LANE_CARRIES: u64 = 0x0001_0000_0001_0000;

impl Repack {
    /// As few bits per level as the index's V needs.
    fn of(index: &SidIndex) -> Self {
        Repack {
            n_levels: index.n_levels() as u8,
            codebook_size: index.codebook_size() as u32,
            bits: crate::sid::bits_per_code(index.codebook_size()),
            headroom: Self::headroom(index.codebook_size()),
        }
    }

    fn headroom(codebook_size: usize) -> u64 {
        0x1_0000u64.saturating_sub(codebook_size as u64) * 0x1_0000_0001
    }

    /// The key with `bits` per level, or `None` when a code is not below V.
    fn apply(self, key: SidKey) -> Option<u128> {
        if self.n_levels <= 4 {
            return self.apply_in_u64(key as u64).map(u128::from);
        }
        let mut packed = 0u128;
        for level in 0..self.n_levels {
            let code = ((key >> (16 * u32::from(self.n_levels - 1 - level))) & 0xFFFF) as u32;
            if code >= self.codebook_size {
                return None;
            }
            packed = (packed << self.bits) | u128::from(code);
        }
        Some(packed)
    }

    /// [`Repack::apply`] for at most four levels, whose 16-bit codes fit one `u64`: the
    /// usual L = 4 on the hot path, where 128-bit shifts cost twice the instructions. The
    /// codes are spread to 32-bit lanes, two by two, and checked and packed there together
    /// rather than one by one.
    #[inline]
    fn apply_in_u64(self, key: u64) -> Option<u64> {
        let (odd, even) = ((key >> 16) & EVEN_LANES, key & EVEN_LANES);
        if ((odd + self.headroom) | (even + self.headroom)) & LANE_CARRIES != 0 {
            return None;
        }
        let pairs = (odd << self.bits) | even;
        Some(((pairs >> 32) << (2 * self.bits)) | (pairs & 0xFFFF_FFFF))
    }
}

/// The table by slot and key width: 32-bit keys (L = 4, V = 256, the usual case) make
/// 12-byte slots naming groups as [`Collisions`] does, and 8-byte slots for the groups a
/// table counts itself (a third less memory to fault in and to miss on); 64-bit keys 16.
enum Table {
    Tight(Buckets<Named<u32>>),
    Narrow(Buckets<Named<u64>>),
    Wide(Buckets<Named<u128>>),
    CountedTight(Buckets<Counted<u32>>),
    CountedNarrow(Buckets<Counted<u64>>),
    CountedWide(Buckets<Counted<u128>>),
}

/// `$body` with `$t` bound to the table's buckets, whatever their key width: the width is
/// matched once, and the generic code behind it runs for that width.
macro_rules! with_buckets {
    ($table:expr, $t:ident => $body:expr) => {
        match $table {
            Table::Tight($t) => $body,
            Table::Narrow($t) => $body,
            Table::Wide($t) => $body,
            Table::CountedTight($t) => $body,
            Table::CountedNarrow($t) => $body,
            Table::CountedWide($t) => $body,
        }
    };
}

struct Buckets<S> {
    shift: u32,
    slots: Vec<S>,
}

/// A slot: empty while its size is 0 (every group has an item), so a table of zeroed
/// memory is an empty table and needs no pass of its own to set it up.
trait Slot: Copy + Send + Sync + bytemuck::Zeroable {
    type Key: SlotKey;
    fn key(&self) -> Self::Key;
    fn size(&self) -> u32;
    /// The group held by the slot at `index`.
    fn group(&self, index: usize) -> u32;
    fn is_empty(&self) -> bool {
        self.size() == 0
    }
}

/// A slot of a table of [`Collisions`]' groups, which it names as they are numbered there.
#[derive(Clone, Copy, bytemuck::Zeroable)]
struct Named<K> {
    key: K,
    group: u32,
    size: u32,
}

impl<K: SlotKey> Slot for Named<K> {
    type Key = K;

    fn key(&self) -> K {
        self.key
    }

    fn size(&self) -> u32 {
        self.size
    }

    fn group(&self, _: usize) -> u32 {
        self.group
    }
}

/// A slot of a table that counts the groups itself ([`SidLookup::grouping`]): a group is
/// numbered by its slot, so no pass numbers them and the slot holds no number.
#[derive(Clone, Copy, bytemuck::Zeroable)]
struct Counted<K> {
    key: K,
    size: u32,
}

impl<K: SlotKey> Slot for Counted<K> {
    type Key = K;

    fn key(&self) -> K {
        self.key
    }

    fn size(&self) -> u32 {
        self.size
    }

    fn group(&self, index: usize) -> u32 {
        index as u32
    }
}

/// Empties a part's slots by writing them before any is read. Reading a page of fresh
/// zeroed memory first maps the shared zero page, and the write after it copies the page
/// and flushes the other cores' TLBs (an interrupt to each, and in a VM an exit): at 1M
/// items the parts took 45–60 ms that way instead of 16 ms.
fn clear<S: Slot>(part: &mut [S]) {
    part.fill(S::zeroed());
}

/// Slots per part of a parallel fill (96 KiB of 12-byte slots, 64 KiB of 8-byte ones). The
/// keys are first sorted by the part their home slot lies in, so that a part's inserts stay
/// within a span of slots that fits a core's L2 cache instead of missing all over a table of
/// tens of megabytes.
#[cfg(not(test))]
const PART_SLOTS: usize = 1 << 13;
/// Unit tests cut tables into parts of 16 slots, so that probes run past parts' ends in
/// small indexes too.
#[cfg(test)]
const PART_SLOTS: usize = 1 << 4;

trait SlotKey: Copy + Eq + Default + Send + Sync + bytemuck::Zeroable {
    fn hash(self) -> u64;
    fn widen(self) -> u128;
    /// A re-packed key that fits this width.
    fn narrow(packed: u128) -> Self;
}

impl SlotKey for u32 {
    fn widen(self) -> u128 {
        u128::from(self)
    }

    fn narrow(packed: u128) -> Self {
        packed as u32
    }

    fn hash(self) -> u64 {
        u64::from(self).hash()
    }
}

impl SlotKey for u64 {
    fn widen(self) -> u128 {
        u128::from(self)
    }

    fn narrow(packed: u128) -> Self {
        packed as u64
    }

    fn hash(self) -> u64 {
        (self ^ (self >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

impl SlotKey for u128 {
    fn widen(self) -> u128 {
        self
    }

    fn narrow(packed: u128) -> Self {
        packed
    }

    fn hash(self) -> u64 {
        ((self as u64) ^ ((self >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)).hash()
    }
}

impl<S: Slot> Buckets<S> {
    /// An empty table for `n` keys, at most half full: zeroed memory straight from the
    /// allocator, whose pages the fills' parts fault in on every core (see [`clear`]).
    fn new(n: usize) -> Self {
        let capacity = (2 * n).next_power_of_two().max(16);
        Buckets {
            shift: 64 - capacity.trailing_zeros(),
            slots: bytemuck::zeroed_vec(capacity),
        }
    }

    fn home(&self, key: S::Key) -> usize {
        (key.hash() >> self.shift) as usize
    }

    /// Slots per part of the parallel fills.
    fn part_len(&self) -> usize {
        PART_SLOTS.min(self.slots.len())
    }

    /// `entry(i)` for `i` in `0..n`, ordered by the part of the table the home slot of its
    /// key (`key(entry)`) lies in and by `i` within a part (a counting sort, on every core),
    /// and where each part's entries start (`starts[q]..starts[q + 1]` are part `q`'s).
    fn by_part<E: Copy + Send + Sync + bytemuck::Zeroable>(
        &self,
        n: usize,
        entry: impl Fn(usize) -> E + Sync,
        key: impl Fn(E) -> S::Key + Sync,
    ) -> (Vec<E>, Vec<usize>) {
        let part_shift = self.part_len().trailing_zeros();
        let n_parts = self.slots.len() >> part_shift;
        let part_of = |e: E| self.home(key(e)) >> part_shift;
        let span = n.div_ceil(rayon::current_num_threads()).max(1);
        let spans: Vec<std::ops::Range<usize>> = (0..n)
            .step_by(span)
            .map(|start| start..(start + span).min(n))
            .collect();
        let counts: Vec<Vec<usize>> = spans
            .par_iter()
            .map(|items| {
                let mut count = vec![0; n_parts];
                for i in items.clone() {
                    count[part_of(entry(i))] += 1;
                }
                count
            })
            .collect();
        // Part-major, span-minor: each span writes its keys of part q after the earlier
        // spans' keys of part q, so a part's keys stay in item order.
        let mut sorted = bytemuck::zeroed_vec::<E>(n);
        let mut pieces: Vec<Vec<&mut [E]>> =
            spans.iter().map(|_| Vec::with_capacity(n_parts)).collect();
        let mut starts = Vec::with_capacity(n_parts + 1);
        let (mut rest, mut at) = (&mut sorted[..], 0);
        for q in 0..n_parts {
            starts.push(at);
            for (count, span_pieces) in counts.iter().zip(&mut pieces) {
                let (piece, tail) = rest.split_at_mut(count[q]);
                span_pieces.push(piece);
                rest = tail;
                at += count[q];
            }
        }
        starts.push(at);
        spans
            .par_iter()
            .zip(pieces)
            .for_each(|(items, mut pieces)| {
                let mut written = vec![0; n_parts];
                for i in items.clone() {
                    let e = entry(i);
                    let q = part_of(e);
                    pieces[q][written[q]] = e;
                    written[q] += 1;
                }
            });
        (sorted, starts)
    }

    #[inline]
    fn probe(&self, key: S::Key, home: usize) -> Option<Found> {
        let mask = self.slots.len() - 1;
        let mut i = home;
        loop {
            let slot = &self.slots[i];
            if slot.is_empty() {
                return None;
            }
            if slot.key() == key {
                return Some(Found {
                    group: slot.group(i),
                    size: slot.size(),
                    packed: key.widen(),
                });
            }
            i = (i + 1) & mask;
        }
    }
}

impl<K: SlotKey> Buckets<Named<K>> {
    /// A table of groups `0..n`, `entry(g)` giving a group's re-packed key and size.
    fn filled(n: usize, entry: impl Fn(u32) -> (u128, u32) + Sync) -> Self {
        let mut t = Self::new(n);
        t.fill(n, |g| {
            let (key, size) = entry(g);
            (K::narrow(key), size)
        });
        t
    }

    /// Inserts groups `0..n` (`entry(g)` gives the key and size) on every core: the keys are
    /// sorted by the part of the table their home slot lies in ([`Buckets::by_part`]), each
    /// part takes its own keys, and a probe that runs past its part's end is inserted
    /// afterwards, across the boundary. Where a key lands differs from one-by-one
    /// insertion, but every probe still walks full slots from its home to its key, so
    /// lookups find the same groups.
    fn fill(&mut self, n: usize, entry: impl Fn(u32) -> (K, u32) + Sync) {
        let (sorted, starts) = self.by_part(n, |g| (entry(g as u32).0, g as u32), |(k, _)| k);
        let (part_len, shift) = (self.part_len(), self.shift);
        let spilled: Vec<Vec<(K, u32)>> = self
            .slots
            .par_chunks_mut(part_len)
            .enumerate()
            .map(|(q, part)| {
                clear(part);
                let first = q * part_len;
                let mut spilled = Vec::new();
                for &(key, g) in &sorted[starts[q]..starts[q + 1]] {
                    let mut i = (key.hash() >> shift) as usize - first;
                    while i < part.len() && !part[i].is_empty() {
                        i += 1;
                    }
                    match part.get_mut(i) {
                        Some(slot) => {
                            *slot = Named {
                                key,
                                group: g,
                                size: entry(g).1,
                            }
                        }
                        None => spilled.push((key, g)),
                    }
                }
                spilled
            })
            .collect();
        let mask = self.slots.len() - 1;
        for (key, g) in spilled.into_iter().flatten() {
            let mut i = self.home(key);
            while !self.slots[i].is_empty() {
                i = (i + 1) & mask;
            }
            self.slots[i] = Named {
                key,
                group: g,
                size: entry(g).1,
            };
        }
    }
}

impl<K: SlotKey> Buckets<Counted<K>> {
    /// Inserts every item's key (`key_of(p)` for positions `0..n`), counting the items of
    /// each distinct key (a group, numbered by its slot), on every core as
    /// [`Buckets::fill`] does: for evaluations that name no group.
    fn group_items(&mut self, n: usize, key_of: impl Fn(usize) -> K + Sync) -> ItemGroups {
        let (sorted, starts) = self.by_part(n, key_of, |k| k);
        let (part_len, shift) = (self.part_len(), self.shift);
        // Each part's groups and items in groups of more than one; an item whose probe
        // runs past its part's end is left for the serial pass below.
        let parts: Vec<(ItemGroups, Vec<K>)> = self
            .slots
            .par_chunks_mut(part_len)
            .enumerate()
            .map(|(q, part)| {
                clear(part);
                let first = q * part_len;
                let (mut groups, mut spilled) = (ItemGroups::default(), Vec::new());
                for &key in &sorted[starts[q]..starts[q + 1]] {
                    let mut i = (key.hash() >> shift) as usize - first;
                    loop {
                        match part.get_mut(i) {
                            None => {
                                spilled.push(key);
                                break;
                            }
                            Some(slot) if slot.is_empty() || slot.key == key => {
                                groups.count(slot, key);
                                break;
                            }
                            Some(_) => i += 1,
                        }
                    }
                }
                (groups, spilled)
            })
            .collect();
        drop(sorted);
        let mut groups = ItemGroups {
            n_items: n,
            ..ItemGroups::default()
        };
        for (part, _) in &parts {
            groups.n_groups += part.n_groups;
            groups.in_collisions += part.in_collisions;
        }
        // A spilled key's home lies in a part that never held it, so it can only meet
        // another spilled item's key on its way.
        let mask = self.slots.len() - 1;
        for &key in parts.iter().flat_map(|(_, spilled)| spilled) {
            let mut i = self.home(key);
            while !self.slots[i].is_empty() && self.slots[i].key != key {
                i = (i + 1) & mask;
            }
            groups.count(&mut self.slots[i], key);
        }
        groups
    }
}

impl ItemGroups {
    /// Counts an item of `key` into its slot: empty (a new group) or holding `key`.
    fn count<K: SlotKey>(&mut self, slot: &mut Counted<K>, key: K) {
        if slot.is_empty() {
            *slot = Counted { key, size: 0 };
            self.n_groups += 1;
        }
        slot.size += 1;
        self.in_collisions += match slot.size {
            1 => 0,
            2 => 2,
            _ => 1,
        };
    }
}

impl SidLookup {
    pub(super) fn new(index: &SidIndex, collisions: &Collisions) -> Self {
        let repack = Repack::of(index);
        let Repack { n_levels, bits, .. } = repack;
        let n = collisions.n_groups();
        let entry = |g: u32| {
            let key = repack
                .apply(collisions.key(g))
                .expect("index codes are below V");
            (key, collisions.size(g))
        };
        let table = match bits * u32::from(n_levels) {
            0..=32 => Table::Tight(Buckets::filled(n, entry)),
            33..=64 => Table::Narrow(Buckets::filled(n, entry)),
            _ => Table::Wide(Buckets::filled(n, entry)),
        };
        SidLookup { repack, table }
    }

    /// The table and the collision groups of `index` built together, without [`Collisions`]
    /// (which also sorts every item by SID): what an evaluation that names no group needs.
    pub(super) fn grouping(index: &SidIndex) -> (Self, ItemGroups) {
        let repack = Repack::of(index);
        let n = index.n_items();
        let key_of = |p: usize| repack.apply(index.key(p)).expect("index codes are below V");
        let (table, groups) = match repack.bits * u32::from(repack.n_levels) {
            0..=32 => {
                let mut t = Buckets::new(n);
                let groups = t.group_items(n, |p| key_of(p) as u32);
                (Table::CountedTight(t), groups)
            }
            33..=64 => {
                let mut t = Buckets::new(n);
                let groups = t.group_items(n, |p| key_of(p) as u64);
                (Table::CountedNarrow(t), groups)
            }
            _ => {
                let mut t = Buckets::new(n);
                let groups = t.group_items(n, key_of);
                (Table::CountedWide(t), groups)
            }
        };
        (SidLookup { repack, table }, groups)
    }

    /// A key re-packed as [`Found::packed`] is, or `None` when a code is not below V.
    #[cfg(test)]
    fn pack(&self, key: SidKey) -> Option<u128> {
        self.repack.apply(key)
    }

    /// How many leading codes two re-packed keys share (at most the number of levels).
    pub(super) fn common_levels(&self, a: u128, b: u128) -> usize {
        let Repack { n_levels, bits, .. } = self.repack;
        let differing = a ^ b;
        if differing == 0 {
            return usize::from(n_levels);
        }
        // Level 0 holds the most significant `bits` of the `n_levels · bits` used.
        let highest = u128::BITS - 1 - differing.leading_zeros();
        ((bits * u32::from(n_levels) - 1 - highest) / bits) as usize
    }

    /// The repacked key of a beam SID and its home slot in `table`, when it can be in the
    /// index.
    #[inline]
    fn home_in<S: Slot>(&self, table: &Buckets<S>, sid: BeamSid) -> Option<(u128, usize)> {
        let BeamSid::Codes { key, n_levels } = sid else {
            return None;
        };
        if n_levels != self.repack.n_levels {
            return None;
        }
        let packed = self.repack.apply(key)?;
        Some((packed, table.home(S::Key::narrow(packed))))
    }

    /// The group of a beam SID, when the index has that SID.
    pub(super) fn find(&self, sid: BeamSid) -> Option<Found> {
        with_buckets!(&self.table, t => self.find_in(t, sid))
    }

    fn find_in<S: Slot>(&self, table: &Buckets<S>, sid: BeamSid) -> Option<Found> {
        let (packed, home) = self.home_in(table, sid)?;
        table.probe(S::Key::narrow(packed), home)
    }

    /// Computes the home slot of every SID and starts loading it, so that the cache misses
    /// of one list overlap instead of queueing; [`SidLookup::probe_all`] then finds them.
    /// The evaluation does this for the next record while it scores this one.
    /// `also` (a record's target), when given, is located after them. The table's width is
    /// matched once a list, not once a SID.
    pub(super) fn locate(&self, sids: &[BeamSid], also: Option<BeamSid>, probes: &mut Probes) {
        with_buckets!(&self.table, t => self.locate_in(t, sids, also, probes))
    }

    fn locate_in<S: Slot>(
        &self,
        table: &Buckets<S>,
        sids: &[BeamSid],
        also: Option<BeamSid>,
        probes: &mut Probes,
    ) {
        probes.0.clear();
        probes
            .0
            .extend(sids.iter().map(|&sid| self.home_in(table, sid)));
        if let Some(sid) = also {
            probes.0.push(self.home_in(table, sid));
        }
        for &(_, home) in probes.0.iter().flatten() {
            prefetch(&table.slots[home]);
        }
    }

    pub(super) fn probe_all(&self, probes: &Probes, out: &mut Vec<Option<Found>>) {
        with_buckets!(&self.table, t => Self::probe_all_in(t, probes, out))
    }

    fn probe_all_in<S: Slot>(table: &Buckets<S>, probes: &Probes, out: &mut Vec<Option<Found>>) {
        out.clear();
        out.extend(
            probes
                .0
                .iter()
                .map(|p| p.and_then(|(packed, home)| table.probe(S::Key::narrow(packed), home))),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sid::{MAX_CODEBOOK_SIZE, sid_key};
    use proptest::prelude::{Just, prop_oneof};
    use std::path::Path;

    fn lookup(text: &str) -> (SidLookup, Collisions) {
        let index = SidIndex::parse(text.as_bytes(), Path::new("t.json"), None).unwrap();
        let collisions = Collisions::new(&index);
        (SidLookup::new(&index, &collisions), collisions)
    }

    fn sid(codes: &[u16]) -> BeamSid {
        BeamSid::Codes {
            key: sid_key(codes),
            n_levels: codes.len() as u8,
        }
    }

    #[test]
    fn tight_narrow_and_wide_keys_find_groups_and_sizes() {
        // V = 9 packs 4 bits per level (tight, 8 bits); V = 60001 needs 48 bits with L = 3
        // (narrow) and 80 bits with L = 5 (wide).
        for (text, member, size, absent, width) in [
            (
                r#"{"0": [1, 8], "1": [1, 8], "2": [3, 0]}"#,
                vec![1, 8],
                2,
                vec![8, 1],
                "tight",
            ),
            (
                r#"{"0": [60000, 1, 2], "1": [5, 1, 2], "2": [60000, 1, 2]}"#,
                vec![60000, 1, 2],
                2,
                vec![60000, 1, 3],
                "narrow",
            ),
            (
                r#"{"0": [60000, 1, 2, 3, 4], "1": [5, 1, 2, 3, 4], "2": [60000, 1, 2, 3, 4]}"#,
                vec![60000, 1, 2, 3, 4],
                2,
                vec![60000, 1, 2, 3, 5],
                "wide",
            ),
        ] {
            let (lookup, collisions) = lookup(text);
            let built = match lookup.table {
                Table::Tight(_) => "tight",
                Table::Narrow(_) => "narrow",
                Table::Wide(_) => "wide",
                _ => "counted",
            };
            assert_eq!(built, width);
            let found = lookup.find(sid(&member)).unwrap();
            assert_eq!(found.size, size);
            assert_eq!(collisions.key(found.group), sid_key(&member));
            assert_eq!(lookup.find(sid(&absent)), None);
            assert_eq!(lookup.find(sid(&member[..member.len() - 1])), None);
            assert_eq!(lookup.find(sid(&[65535; 2])), None);
            let beams = [
                sid(&member),
                sid(&absent),
                BeamSid::Unreadable(Default::default()),
            ];
            let (mut probes, mut out) = (Probes::default(), Vec::new());
            lookup.locate(&beams, None, &mut probes);
            lookup.probe_all(&probes, &mut out);
            assert_eq!(out, vec![Some(found), None, None]);
        }
    }

    /// Whether `SidLookup::grouping` groups `index` as `Collisions` does (up to the numbering)
    /// and its table finds every item's group, on `threads` cores (each sorting its span of
    /// the items by part).
    fn grouping_agrees_with_collisions(index: &SidIndex, threads: usize) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (lookup, groups) = pool.install(|| SidLookup::grouping(index));
        let collisions = Collisions::new(index);
        assert_eq!(groups.n_groups(), collisions.n_groups());
        // One number per group, each taken by exactly one of Collisions' groups.
        let mut renamed = std::collections::HashMap::new();
        for p in 0..index.n_items() {
            let c = collisions.group_of(p);
            let found = lookup.find(sid(index.codes(p))).unwrap();
            let g = found.group;
            assert_eq!(*renamed.entry(g).or_insert(c), c, "item {p}");
            assert_eq!(found.size, collisions.size(c));
        }
        assert_eq!(renamed.len(), collisions.n_groups());
        assert_eq!(
            groups.collision_rate().to_bits(),
            collisions.collision_rate().to_bits()
        );
    }

    #[test]
    fn grouping_without_collisions_finds_the_same_groups() {
        // Tight (V = 9), narrow (V = 60001, L = 3) and wide (L = 5) keys.
        for text in [
            r#"{"0": [1, 8], "1": [1, 8], "2": [3, 0], "3": [1, 8], "4": [3, 0], "5": [2, 2]}"#,
            r#"{"0": [60000, 1, 2], "1": [5, 1, 2], "2": [60000, 1, 2]}"#,
            r#"{"0": [60000, 1, 2, 3, 4], "1": [5, 1, 2, 3, 4], "2": [60000, 1, 2, 3, 4]}"#,
        ] {
            let index = SidIndex::parse(text.as_bytes(), Path::new("t.json"), None).unwrap();
            for threads in [1, 2, 7] {
                grouping_agrees_with_collisions(&index, threads);
            }
        }
    }

    proptest::proptest! {
        /// The lane-wise check and packing of up to four codes is the level-by-level one:
        /// `None` when a code is not below V, else `bits` per code with level 0 highest.
        #[test]
        fn four_codes_are_packed_as_level_by_level(
            codes in proptest::collection::vec(proptest::prelude::any::<u16>(), 1..5),
            v in prop_oneof![1usize..=300, 1usize..=MAX_CODEBOOK_SIZE, Just(MAX_CODEBOOK_SIZE)],
            small in proptest::prelude::any::<bool>(),
        ) {
            // Half the cases with every code below V, so that packing is exercised.
            let codes: Vec<u16> = match small {
                true => codes.iter().map(|&c| (c as usize % v) as u16).collect(),
                false => codes,
            };
            let repack = Repack {
                n_levels: codes.len() as u8,
                codebook_size: v as u32,
                bits: crate::sid::bits_per_code(v),
                headroom: Repack::headroom(v),
            };
            let by_level = codes.iter().try_fold(0u64, |packed, &c| {
                (usize::from(c) < v).then(|| (packed << repack.bits) | u64::from(c))
            });
            proptest::prop_assert_eq!(repack.apply_in_u64(sid_key(&codes) as u64), by_level);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        // 64 threads cut the items into 64 spans for the sort by part.
        #[test]
        fn grouping_agrees_with_collisions_on_any_index(
            items in proptest::collection::vec(proptest::collection::vec(0u16..12, 3), 1..1500),
            threads in prop_oneof![1usize..4, Just(64)],
        ) {
            let body: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(id, codes)| format!("\"{id}\": {codes:?}"))
                .collect();
            let text = format!("{{{}}}", body.join(", "));
            let index = SidIndex::parse(text.as_bytes(), Path::new("t.json"), None).unwrap();
            grouping_agrees_with_collisions(&index, threads);
        }
    }

    #[test]
    fn common_levels_counts_the_shared_leading_codes() {
        // Narrow (V = 9, 4 bits) and wide (V = 60001 with L = 5, 16 bits · 5 = 80 bits).
        for text in [
            r#"{"0": [1, 8, 3], "1": [1, 8, 4], "2": [1, 0, 3], "3": [3, 8, 3], "4": [0, 0, 0]}"#,
            r#"{"0": [60000, 1, 2, 3, 4], "1": [60000, 1, 2, 3, 5], "2": [60000, 0, 2, 3, 4],
                "3": [5, 1, 2, 3, 4], "4": [60000, 1, 9, 3, 4], "5": [60000, 1, 2, 8, 4]}"#,
        ] {
            let index = SidIndex::parse(text.as_bytes(), Path::new("t.json"), None).unwrap();
            let collisions = Collisions::new(&index);
            let lookup = SidLookup::new(&index, &collisions);
            for a in 0..index.n_items() {
                for b in 0..index.n_items() {
                    let expected = index
                        .codes(a)
                        .iter()
                        .zip(index.codes(b))
                        .take_while(|(x, y)| x == y)
                        .count();
                    let packed = |p: usize| lookup.pack(index.key(p)).unwrap();
                    assert_eq!(
                        lookup.common_levels(packed(a), packed(b)),
                        expected,
                        "{a} {b}"
                    );
                    let found = lookup.find(sid(index.codes(b))).unwrap();
                    assert_eq!(found.packed, packed(b));
                }
            }
        }
    }

    #[test]
    fn a_large_table_filled_in_parts_finds_every_group() {
        let mut rng = crate::numeric::random::SeededRng::new(9);
        let text = (0..20_000)
            .map(|i| {
                let codes: Vec<usize> = (0..4).map(|_| rng.below(12)).collect();
                format!("\"{i}\": {codes:?}")
            })
            .collect::<Vec<_>>()
            .join(", ");
        let (lookup, collisions) = lookup(&format!("{{{text}}}"));
        for g in 0..collisions.n_groups() as u32 {
            let key = collisions.key(g);
            let codes: Vec<u16> = (0..4).map(|l| (key >> (16 * (3 - l))) as u16).collect();
            let found = lookup.find(sid(&codes)).unwrap();
            assert_eq!((found.group, found.size), (g, collisions.size(g)));
        }
        let absent = (0..12u16)
            .flat_map(|a| (0..12u16).map(move |b| [a, b, 11, 11]))
            .filter(|c| collisions.find(sid_key(c)).is_none())
            .count();
        assert!(absent > 0);
        for a in 0..12u16 {
            for b in 0..12u16 {
                let c = [a, b, 11, 11];
                let expected = collisions.find(sid_key(&c));
                assert_eq!(lookup.find(sid(&c)).map(|f| f.group), expected);
            }
        }
    }
}
