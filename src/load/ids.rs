//! Item ids as written in the input files, stored compactly (one text arena) with a lookup
//! from id to position. Ids that are plain integers — the usual case — get a dense table, and
//! their text can wait until one is read.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::OnceLock;

use rayon::prelude::*;

/// The item ids of an index, in file order, with O(1) lookup by id.
#[derive(Debug, Clone, Default)]
pub struct ItemIds {
    /// The ids' text. Ids that are all canonical integers can come without it (see
    /// [`ItemIds::from_integers`]): it is then written from `values` when first read, as
    /// most commands never print an id and writing it cost the index reader 15 MB of fresh
    /// memory at 1M items.
    arena: OnceLock<Arena>,
    lookup: IdLookup,
    non_integer_ids: usize,
    /// Every id's integer value, in order, while every id is a canonical integer (emptied at
    /// the first that is not): read by position instead of parsing the id again.
    values: Vec<u64>,
}

/// Ids as one text, `ends[i]` closing id `i`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Arena {
    text: String,
    ends: Vec<usize>,
}

impl Arena {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, position: usize) -> &str {
        let start = if position == 0 {
            0
        } else {
            self.ends[position - 1]
        };
        &self.text[start..self.ends[position]]
    }

    /// Appends an id.
    pub(crate) fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len());
    }

    /// Canonical integers as the text they were read from.
    pub(crate) fn written_out(values: &[u64]) -> Self {
        let mut arena = Arena {
            text: String::with_capacity(values.len() * 8),
            ends: Vec::with_capacity(values.len()),
        };
        let mut digits = itoa::Buffer::new();
        for &v in values {
            arena.push(digits.format(v));
        }
        arena
    }

    /// [`Arena::written_out`] in pieces on every core.
    fn of_integers(values: &[u64]) -> Self {
        Self::joined(values.par_chunks(1 << 16).map(Self::written_out).collect())
    }

    /// Pieces as one arena: the first piece grows in place, the others are appended.
    pub(crate) fn joined(pieces: Vec<Arena>) -> Self {
        let mut pieces = pieces.into_iter();
        let mut arena = pieces.next().unwrap_or_default();
        let rest: Vec<Arena> = pieces.collect();
        arena
            .text
            .reserve_exact(rest.iter().map(|p| p.text.len()).sum());
        arena.ends.reserve_exact(rest.iter().map(Arena::len).sum());
        for piece in &rest {
            let offset = arena.text.len();
            arena.text.push_str(&piece.text);
            arena
                .ends
                .extend(piece.ends.iter().map(|&end| end + offset));
        }
        arena
    }
}

#[derive(Debug, Clone)]
enum IdLookup {
    /// Every id so far is a canonical integer; `table[id]` is its position or `ABSENT`.
    Dense(Vec<u32>),
    Map(HashMap<Box<str>, u32>),
}

impl Default for IdLookup {
    fn default() -> Self {
        IdLookup::Dense(Vec::new())
    }
}

const ABSENT: u32 = u32::MAX;

/// Stands for "not a canonical integer" in [`ItemIds::from_arena`]'s values (above any
/// 19-digit id).
pub(crate) const NOT_AN_INTEGER: u64 = u64::MAX;

/// The integer value of `id` when it is written canonically (`0`, or no leading zero).
/// Read in one pass (it runs once per user on `eval`'s hot path): 19 digits never overflow.
pub fn canonical_integer(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    if b.is_empty() || b.len() > 19 || (b.len() > 1 && b[0] == b'0') {
        return None;
    }
    b.iter().try_fold(0u64, |value, &c| {
        let digit = c.wrapping_sub(b'0');
        (digit < 10).then(|| value * 10 + u64::from(digit))
    })
}

impl ItemIds {
    /// An empty id list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of ids.
    pub fn len(&self) -> usize {
        self.arena.get().map_or(self.values.len(), Arena::len)
    }

    /// Whether there are no ids.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id at `position`.
    pub fn get(&self, position: usize) -> &str {
        self.arena().get(position)
    }

    /// The ids' text, written from their values the first time when they came without it.
    fn arena(&self) -> &Arena {
        self.arena.get_or_init(|| Arena::of_integers(&self.values))
    }

    /// Whether the ids' text has been written (tests of when it is).
    #[cfg(test)]
    pub(crate) fn has_text(&self) -> bool {
        self.arena.get().is_some()
    }

    /// All ids in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let arena = self.arena();
        (0..self.len()).map(|i| arena.get(i))
    }

    /// Appends `id`; when it is already present returns `Err(existing position)`.
    pub fn push(&mut self, id: &str) -> Result<usize, usize> {
        // The text of the ids so far, before their values can be dropped below.
        self.arena();
        let position = self.len();
        if position >= ABSENT as usize {
            // Far beyond any realistic catalog; keep the lookup sound anyway.
            return Err(position);
        }
        if let Some(existing) = self.position(id) {
            return Err(existing);
        }
        let value = canonical_integer(id);
        let dense_slot = match (&self.lookup, value) {
            (IdLookup::Dense(table), Some(v)) => {
                let limit = 4 * (position as u64 + 1) + 1024;
                (v < limit.max(table.len() as u64)).then_some(v as usize)
            }
            _ => None,
        };
        match (&mut self.lookup, dense_slot) {
            (IdLookup::Dense(table), Some(slot)) => {
                if slot >= table.len() {
                    table.resize((slot + 1).max(table.len() * 3 / 2), ABSENT);
                }
                table[slot] = position as u32;
            }
            (IdLookup::Dense(_), None) => {
                let mut map: HashMap<Box<str>, u32> = self
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (Box::from(s), i as u32))
                    .collect();
                map.insert(Box::from(id), position as u32);
                self.lookup = IdLookup::Map(map);
            }
            (IdLookup::Map(map), _) => {
                map.insert(Box::from(id), position as u32);
            }
        }
        match value {
            Some(v) if self.non_integer_ids == 0 => self.values.push(v),
            Some(_) => {}
            None => {
                self.non_integer_ids += 1;
                self.values = Vec::new();
            }
        }
        self.arena.get_mut().expect("written at the start").push(id);
        Ok(position)
    }

    /// Builds the ids from their text and each id's canonical integer value (or
    /// [`NOT_AN_INTEGER`]), as read by the index fast path: every id is parsed once. `None`
    /// when an id repeats (the caller's slow path then reports it).
    pub(crate) fn from_arena(arena: Arena, values: Vec<u64>) -> Option<Self> {
        Self::from_values(Some(arena), values)
    }

    /// Builds the ids from their values alone, every one a canonical integer, as read by the
    /// index fast path; their text is written when first read. `None` when an id repeats.
    pub(crate) fn from_integers(values: Vec<u64>) -> Option<Self> {
        Self::from_values(None, values)
    }

    fn from_values(arena: Option<Arena>, values: Vec<u64>) -> Option<Self> {
        let n = values.len();
        if n >= ABSENT as usize {
            return None;
        }
        let non_integer_ids = values.par_iter().filter(|&&v| v == NOT_AN_INTEGER).count();
        let max = values.par_iter().copied().max().unwrap_or(0);
        let mut ids = ItemIds {
            arena: arena.map_or_else(OnceLock::new, OnceLock::from),
            lookup: IdLookup::default(),
            non_integer_ids,
            values: Vec::new(),
        };
        // Kept when every id is an integer: read by position, and for the text if it is due.
        let values: &[u64] = if non_integer_ids == 0 {
            ids.values = values;
            &ids.values
        } else {
            &values
        };
        if non_integer_ids == 0 && max < 4 * n as u64 + 1024 {
            let mut table = Vec::with_capacity(max as usize + 1);
            table.par_extend(rayon::iter::repeat_n(ABSENT, max as usize + 1));
            // Each core owns one stretch of the table and scans every value for the ids that
            // land in it: the writes are scattered, and one core alone took 15 ms at 1M ids.
            let part_len = table
                .len()
                .div_ceil(rayon::current_num_threads())
                .max(1 << 16);
            let distinct = table.par_chunks_mut(part_len).enumerate().all(|(k, part)| {
                let first = (k * part_len) as u64;
                values.iter().enumerate().all(|(position, &v)| {
                    match v.checked_sub(first).and_then(|o| part.get_mut(o as usize)) {
                        Some(slot) if *slot != ABSENT => false,
                        Some(slot) => {
                            *slot = position as u32;
                            true
                        }
                        None => true,
                    }
                })
            });
            if !distinct {
                return None;
            }
            ids.lookup = IdLookup::Dense(table);
        } else {
            let mut map = HashMap::with_capacity(n);
            for position in 0..n {
                if map
                    .insert(Box::from(ids.get(position)), position as u32)
                    .is_some()
                {
                    return None;
                }
            }
            ids.lookup = IdLookup::Map(map);
        }
        Some(ids)
    }

    /// Starts loading the table entry [`ItemIds::position`] will read for `id` (a hint for
    /// lookups made a little later; no effect on results).
    pub fn warm(&self, id: &str) {
        if let IdLookup::Dense(table) = &self.lookup
            && let Some(slot) = canonical_integer(id).and_then(|v| table.get(v as usize))
        {
            crate::numeric::prefetch::prefetch(slot);
        }
    }

    /// The position of `id`, if present.
    pub fn position(&self, id: &str) -> Option<usize> {
        match &self.lookup {
            IdLookup::Dense(table) => {
                let v = canonical_integer(id)?;
                let p = *table.get(usize::try_from(v).ok()?)?;
                (p != ABSENT).then_some(p as usize)
            }
            IdLookup::Map(map) => map.get(id).map(|&p| p as usize),
        }
    }

    /// Whether every id is a canonical integer: then per-item vector files are addressed by
    /// id (`row i = item id i`), as the CollisionGenRec layout does.
    pub fn rows_are_ids(&self) -> bool {
        self.non_integer_ids == 0
    }

    /// The row of the item at `position` in per-item vector files (latents, embeddings):
    /// the id itself when every id is an integer, else the file position.
    pub fn vector_row(&self, position: usize) -> usize {
        match self.integer_values() {
            Some(values) => values[position] as usize,
            None => position,
        }
    }

    /// Every id's integer value in position order, when every id is a canonical integer.
    pub fn integer_values(&self) -> Option<&[u64]> {
        self.rows_are_ids().then_some(&self.values[..])
    }

    /// Orders two positions by their ids: numerically when both are integers, else as text.
    pub fn cmp_ids(&self, a: usize, b: usize) -> Ordering {
        if let Some(values) = self.integer_values() {
            return values[a].cmp(&values[b]);
        }
        let (x, y) = (self.get(a), self.get(b));
        match (canonical_integer(x), canonical_integer(y)) {
            (Some(p), Some(q)) => p.cmp(&q),
            _ => x.cmp(y),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The one-pass reading is the canonical check followed by Rust's own parse.
        #[test]
        fn canonical_integers_read_as_parsed(id in "[+0-9a ]{0,21}|[0-9]{17,20}") {
            let b = id.as_bytes();
            let parsed = (!b.is_empty()
                && b.len() <= 19
                && b.iter().all(u8::is_ascii_digit)
                && (b.len() == 1 || b[0] != b'0'))
                .then(|| id.parse::<u64>().ok())
                .flatten();
            proptest::prop_assert_eq!(canonical_integer(&id), parsed);
        }
    }

    #[test]
    fn integer_ids_use_the_dense_table() {
        let mut ids = ItemIds::new();
        for i in [3, 0, 2, 1] {
            ids.push(&i.to_string()).unwrap();
        }
        assert!(ids.rows_are_ids());
        assert_eq!(ids.position("2"), Some(2));
        assert_eq!(ids.position("02"), None);
        assert_eq!(ids.position("9"), None);
        assert_eq!(ids.push("3"), Err(0));
        assert_eq!(ids.vector_row(0), 3);
        assert_eq!(ids.cmp_ids(0, 1), Ordering::Greater);
    }

    /// An arena of many integer ids (a dense table filled in parts, one per core) finds every
    /// id, and a repeat is caught wherever its two copies fall.
    #[test]
    fn arena_ids_fill_the_dense_table_in_parts() {
        let n = 300_000u64;
        let values: Vec<u64> = (0..n).map(|i| (i * 7_919) % n).collect();
        let arena = |values: &[u64]| {
            let mut arena = Arena::default();
            for v in values {
                arena.push(&v.to_string());
            }
            ItemIds::from_arena(arena, values.to_vec())
        };
        let ids = arena(&values).expect("distinct ids");
        for (position, v) in values.iter().enumerate().step_by(997) {
            assert_eq!(ids.position(&v.to_string()), Some(position));
            assert_eq!(ids.vector_row(position), *v as usize);
        }
        assert_eq!(ids.integer_values(), Some(&values[..]));
        assert_eq!(ids.position(&n.to_string()), None);
        for (first, second) in [
            (10, 20),
            (5, n as usize - 1),
            (n as usize - 2, n as usize - 1),
        ] {
            let mut repeated = values.clone();
            repeated[second] = repeated[first];
            assert!(arena(&repeated).is_none(), "{first} {second}");
        }
    }

    /// Ids given as values have no text until one is read, are compared and found without
    /// it, and keep every earlier id when a text id is pushed after them.
    #[test]
    fn integer_ids_are_written_out_when_first_read() {
        let values: Vec<u64> = (0..200_000).map(|i| (i * 7_919) % 200_000).collect();
        let ids = ItemIds::from_integers(values.clone()).unwrap();
        assert_eq!(ids.position("7919"), Some(1));
        assert_eq!(ids.cmp_ids(0, 1), Ordering::Less);
        assert!(!ids.has_text());
        let written: Vec<String> = values.iter().map(u64::to_string).collect();
        assert!(ids.iter().eq(written.iter().map(String::as_str)));
        assert!(ids.has_text());
        let mut ids = ItemIds::from_integers(values.clone()).unwrap();
        ids.push("B00X").unwrap();
        assert_eq!(ids.get(199_999), written[199_999]);
        assert_eq!(ids.position("B00X"), Some(200_000));
        assert_eq!(ids.position(&written[5]), Some(5));
        assert_eq!(
            ItemIds::from_integers(vec![3, 1, 3]).map(|ids| ids.len()),
            None
        );
    }

    #[test]
    fn text_ids_switch_to_a_map_and_keep_earlier_ids() {
        let mut ids = ItemIds::new();
        ids.push("10").unwrap();
        ids.push("B00X").unwrap();
        ids.push("99999999999").unwrap();
        assert!(!ids.rows_are_ids());
        assert_eq!(ids.position("10"), Some(0));
        assert_eq!(ids.position("B00X"), Some(1));
        assert_eq!(ids.push("B00X"), Err(1));
        assert_eq!(ids.vector_row(2), 2);
        assert_eq!(ids.integer_values(), None);
        assert_eq!(
            ids.iter().collect::<Vec<_>>(),
            ["10", "B00X", "99999999999"]
        );
    }

    #[test]
    fn sparse_large_integers_fall_back_to_a_map() {
        let mut ids = ItemIds::new();
        ids.push("0").unwrap();
        ids.push("4000000000").unwrap();
        // A repeat is refused before its value is kept.
        assert_eq!(ids.push("0"), Err(0));
        assert!(ids.rows_are_ids());
        assert_eq!(ids.integer_values(), Some(&[0, 4_000_000_000][..]));
        assert_eq!(ids.vector_row(1), 4_000_000_000);
        assert_eq!(ids.position("4000000000"), Some(1));
    }
}
