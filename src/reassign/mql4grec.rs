//! MQL4GRec's own collision rule, ported literally from `index/generate_indices_distance.py`
//! of its repository: per full-SID group an offset start on the last level, a global set of
//! used SIDs, a fallback to the second-to-last level, and at most two passes.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::CostModel;
use crate::collision::Collisions;
use crate::error::{Error, Result};
use crate::load::SidIndex;
use crate::numeric::kernels::sq_distances_transposed_f32;
use crate::progress::{Progress, check_cancelled};
use crate::sid::{self, Code, SidKey};

/// Passes over the index the reference makes at most (`tt == 2`).
pub const PASSES: usize = 2;

/// The items met so far, one slot each, with the float32 view of their last level that the
/// reference computes: the start of the code order by distance at level L (numpy `argsort`;
/// the rest only when a walk goes past it) and the smallest last-level distance (the key a
/// group is sorted by). The residuals behind them are not kept: the rare walk that needs a
/// whole order, or the order at level L−1, computes its item's again ([`Residuals`]), which
/// saves writing and joining 2·d values per item (45 MB at 1M items). Flat, so that a pass
/// makes a few arrays rather than three per item (freeing those took one core 0.05 s at 1M).
#[derive(Default)]
struct OrderTable {
    /// Per slot [`NEAREST`] codes, of which the first `nearest_len[slot]` are set.
    nearest: Vec<Code>,
    nearest_len: Vec<u16>,
    min_last: Vec<f32>,
    /// The item of each slot.
    position: Vec<u32>,
}

/// One slot of an [`OrderTable`].
struct Orders<'a> {
    nearest_last: &'a [Code],
    min_last: f32,
}

impl OrderTable {
    fn len(&self) -> usize {
        self.min_last.len()
    }

    fn get(&self, slot: usize) -> Orders<'_> {
        let nearest = &self.nearest[slot * NEAREST..];
        Orders {
            nearest_last: &nearest[..usize::from(self.nearest_len[slot])],
            min_last: self.min_last[slot],
        }
    }

    fn reserve(&mut self, slots: usize) {
        self.nearest.reserve_exact(slots * NEAREST);
        self.nearest_len.reserve_exact(slots);
        self.min_last.reserve_exact(slots);
        self.position.reserve_exact(slots);
    }

    fn append(&mut self, other: &mut OrderTable) {
        self.nearest.append(&mut other.nearest);
        self.nearest_len.append(&mut other.nearest_len);
        self.min_last.append(&mut other.min_last);
        self.position.append(&mut other.position);
    }
}

/// One thread's buffers for [`group_orders`].
#[derive(Default)]
struct OrderScratch {
    residuals: Residuals,
    /// The last-level distances of a group's new members, `V` each.
    distances: Vec<f32>,
    nearest: NearestScratch,
    codes: Vec<Code>,
    /// A group's members as (smallest distance, new slot from the group's first).
    members: Vec<(f32, Option<usize>)>,
    /// Codes to sort up front per new slot.
    wanted: Vec<usize>,
}

/// How much of each item's last-level code order is sorted up front: a walk that needs more
/// (a crowded prefix) sorts all V codes then. On the 1M-item synthetic set, 0.06 % of the
/// codes the walks read lie past the 32nd, none past the 44th.
const NEAREST: usize = 32;

/// Codes sorted up front past a member's start code (see [`sorted_start`]).
const AHEAD: usize = 8;

/// The codewords of the last two levels in float32, transposed (`d × V`), so that the
/// distances to every code are computed side by side, each in the reference's order.
struct LastTwoLevels {
    prev: Vec<f32>,
    last: Vec<f32>,
    codebook_size: usize,
}

impl LastTwoLevels {
    fn new(cost: &CostModel, n_levels: usize) -> Self {
        let v = cost.codebook_size();
        let transposed = |level: usize| {
            let mut t = vec![0.0f32; cost.dim() * v];
            for c in 0..v {
                for (j, &e) in cost.codeword(level, c as Code).iter().enumerate() {
                    t[j * v + c] = e as f32;
                }
            }
            t
        };
        LastTwoLevels {
            prev: transposed(n_levels - 2),
            last: transposed(n_levels - 1),
            codebook_size: v,
        }
    }
}

/// The codes of every item (row-major, `n_items × L`, by position) after MQL4GRec's rule,
/// and how many passes it made.
#[derive(Debug, Clone, PartialEq)]
pub struct Mql4grecCodes {
    /// New codes, row-major by item position.
    pub codes: Vec<Code>,
    /// Passes made (1 or 2; 0 when the index had no collision).
    pub passes: usize,
    /// Every SID differs from every other: the last pass's walks all ended on unused SIDs
    /// (or nothing collided), so there are no collisions left to count.
    pub distinct: bool,
}

/// Runs MQL4GRec's rule on `index`, with the distances of [`Orders`] from `cost`'s codebooks.
/// Items are visited in item id order (the reference's dataset row order); a group's members
/// are ordered by their smallest last-level distance, equal distances in item id order (what
/// numpy's `argsort` does on the small arrays it sorts by insertion; see README for ties).
/// `collisions` are `index`'s SID groups: they give the first pass its groups and stand for
/// the set of used SIDs the reference starts from, so no pass hashes every item.
pub fn run(
    index: &SidIndex,
    collisions: &Collisions,
    cost: &CostModel,
    progress: &dyn Progress,
) -> Result<Mql4grecCodes> {
    let n_levels = index.n_levels();
    if n_levels < 2 {
        return Err(Error::Invalid(format!(
            "{}: MQL4GRec's rule changes the last two levels and needs L ≥ 2 (this index has L = {n_levels})",
            index.path().display()
        )));
    }
    let all: Vec<u32> = (0..index.n_items() as u32).collect();
    let order = super::in_id_order(index, index.ids().integer_values(), &all);
    let order = order.as_slice();
    let v = cost.codebook_size();
    let last = n_levels - 1;
    let mut codes = index.all_codes().to_vec();
    // The used SIDs: the index's own (found in `collisions`) and those given out since.
    let mut given: FxHashSet<SidKey> = FxHashSet::default();
    // Walk orders of the items met in a group so far: `slot_of[p]` indexes `orders`.
    let mut slot_of: Vec<u32> = vec![u32::MAX; index.n_items()];
    let mut orders = OrderTable::default();
    let codewords = LastTwoLevels::new(cost, n_levels);
    let mut passes = 0;
    // A walk that ends on a used SID leaves a collision for the next pass; when none does,
    // every SID is distinct (leaders keep theirs, the others took unused ones).
    let mut left_collisions = true;
    progress.stage("MQL4GRec passes", PASSES as u64);
    while passes < PASSES {
        check_cancelled(progress)?;
        let groups = if passes == 0 {
            native_collision_groups(collisions, order)
        } else if left_collisions {
            collision_groups(&codes, n_levels, order)
        } else {
            Vec::new()
        };
        left_collisions = false;
        if groups.is_empty() {
            break;
        }
        let (known, known_slot) = (&orders, &slot_of);
        let mut tables: Vec<OrderTable> = groups
            .par_iter()
            .fold(
                || (OrderTable::default(), OrderScratch::default()),
                |(mut table, mut scratch), group| {
                    let known = |p: u32| {
                        let slot = known_slot[p as usize];
                        (slot != u32::MAX).then(|| known.get(slot as usize).min_last)
                    };
                    let inputs = (index, cost, &codewords);
                    group_orders(inputs, group, known, &mut table, &mut scratch);
                    (table, scratch)
                },
            )
            .map(|(table, _)| table)
            .collect();
        orders.reserve(tables.iter().map(OrderTable::len).sum());
        for table in &mut tables {
            for (k, &p) in table.position.iter().enumerate() {
                slot_of[p as usize] = (orders.len() + k) as u32;
            }
            orders.append(table);
        }
        let (mut current, mut code) = (vec![0; n_levels], vec![0; n_levels]);
        let mut ranked: Vec<usize> = Vec::new();
        for group in &groups {
            let of = |p: u32| orders.get(slot_of[p as usize] as usize);
            ranked.clear();
            ranked.extend(0..group.len());
            ranked.sort_by(|&a, &b| of(group[a]).min_last.total_cmp(&of(group[b]).min_last));
            for (i, &m) in ranked.iter().enumerate().skip(1) {
                let p = group[m] as usize;
                let o = of(group[m]);
                current.copy_from_slice(&codes[p * n_levels..(p + 1) * n_levels]);
                let taken = |c: &[Code]| {
                    let key = sid::sid_key(c);
                    collisions.find(key).is_some() || given.contains(&key)
                };
                code.copy_from_slice(&current);
                // Only a walk past the sorted start of its order, or onto level L−1, needs the
                // item's residuals again (rare); they are computed once, then.
                let residuals = std::cell::OnceCell::new();
                let residuals = || {
                    residuals.get_or_init(|| {
                        let mut r = Residuals::default();
                        r.compute(index, cost, p);
                        r
                    })
                };
                let mut whole_order: Option<Vec<Code>> = None;
                let mut last_code = |num: usize| match o.nearest_last.get(num) {
                    Some(&c) => c,
                    None => whole_order.get_or_insert_with(|| {
                        argsort(&distances(&residuals().last, &codewords.last, v))
                    })[num],
                };
                let mut num = i;
                while taken(&code) && num < v {
                    code[last] = last_code(num);
                    num += 1;
                }
                let mut prev: Option<Vec<Code>> = None;
                for k in 1..v {
                    if taken(&code) {
                        let prev = prev.get_or_insert_with(|| {
                            argsort(&distances(&residuals().prev, &codewords.prev, v))
                        });
                        code.clone_from(&current);
                        code[last - 1] = prev[k];
                    }
                    let mut num = 0;
                    while taken(&code) && num < v {
                        code[last] = last_code(num);
                        num += 1;
                    }
                    if !taken(&code) {
                        break;
                    }
                }
                if taken(&code) {
                    left_collisions = true;
                } else {
                    given.insert(sid::sid_key(&code));
                }
                codes[p * n_levels..(p + 1) * n_levels].copy_from_slice(&code);
            }
        }
        passes += 1;
        progress.advance(1);
    }
    Ok(Mql4grecCodes {
        codes,
        passes,
        distinct: !left_collisions,
    })
}

/// [`collision_groups`] of the index's own codes, from its SID groups: members and groups
/// put in `order` without hashing every item.
fn native_collision_groups(collisions: &Collisions, order: &[u32]) -> Vec<Vec<u32>> {
    let mut rank = vec![0u32; order.len()];
    for (r, &p) in order.iter().enumerate() {
        rank[p as usize] = r as u32;
    }
    let mut groups: Vec<Vec<u32>> = collisions
        .collision_groups()
        .into_iter()
        .map(|g| {
            let mut members = collisions.items(g).to_vec();
            members.sort_unstable_by_key(|&p| rank[p as usize]);
            members
        })
        .collect();
    groups.sort_unstable_by_key(|members| rank[members[0] as usize]);
    groups
}

/// The groups of items sharing a whole SID, in order of first appearance in `order`, each
/// in that order (the reference's `get_collision_item`).
fn collision_groups(codes: &[Code], n_levels: usize, order: &[u32]) -> Vec<Vec<u32>> {
    let mut slot: FxHashMap<SidKey, u32> = FxHashMap::default();
    slot.reserve(order.len());
    let mut sizes: Vec<u32> = Vec::new();
    let group_of: Vec<u32> = order
        .iter()
        .map(|&p| {
            let key = sid::sid_key(&codes[p as usize * n_levels..(p as usize + 1) * n_levels]);
            let g = *slot.entry(key).or_insert_with(|| {
                sizes.push(0);
                sizes.len() as u32 - 1
            });
            sizes[g as usize] += 1;
            g
        })
        .collect();
    let mut kept = vec![u32::MAX; sizes.len()];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (g, &size) in sizes.iter().enumerate() {
        if size > 1 {
            kept[g] = groups.len() as u32;
            groups.push(Vec::with_capacity(size as usize));
        }
    }
    for (&p, &g) in order.iter().zip(&group_of) {
        if let Some(group) = groups.get_mut(kept[g as usize] as usize) {
            group.push(p);
        }
    }
    groups
}

/// Adds to `table` the orders of `group`'s members it does not know yet (`known` gives the
/// smallest last-level distance of those met in an earlier pass). Float32 residuals along
/// each item's own codes and its distances at the last level, as the reference's RQ code has
/// them: `r ← r − e` in float32, `‖r − e_c‖²` rounded to float32. The group's leader (the
/// first member of least distance, the one the walk leaves alone) gets no code order: should
/// a later pass walk it, the walk sorts its codes then.
fn group_orders(
    (index, cost, codewords): (&SidIndex, &CostModel, &LastTwoLevels),
    group: &[u32],
    known: impl Fn(u32) -> Option<f32>,
    table: &mut OrderTable,
    scratch: &mut OrderScratch,
) {
    let v = codewords.codebook_size;
    let first_slot = table.len();
    scratch.distances.clear();
    // Each member's smallest distance and, for a new one, its slot: ranked as the walk ranks
    // them (by distance, ties in group order), the member of rank r starts its walk at code
    // r of its order.
    scratch.members.clear();
    for &p in group {
        let member = match known(p) {
            Some(min_last) => (min_last, None),
            None => {
                scratch.residuals.compute(index, cost, p as usize);
                let start = scratch.distances.len();
                scratch.distances.resize(start + v, 0.0);
                let last = &mut scratch.distances[start..];
                sq_distances_transposed_f32(&scratch.residuals.last, &codewords.last, last);
                let min_last = last.iter().copied().fold(f32::INFINITY, f32::min);
                table.min_last.push(min_last);
                table.position.push(p);
                (min_last, Some(table.len() - 1 - first_slot))
            }
        };
        scratch.members.push(member);
    }
    scratch.members.sort_by(|a, b| a.0.total_cmp(&b.0));
    scratch.wanted.clear();
    scratch.wanted.resize(table.len() - first_slot, 0);
    for (rank, &(_, new)) in scratch.members.iter().enumerate() {
        if let Some(k) = new {
            scratch.wanted[k] = sorted_start(rank);
        }
    }
    for (last, &wanted) in scratch
        .distances
        .chunks_exact(v.max(1))
        .zip(&scratch.wanted)
    {
        nearest_into(last, wanted, &mut scratch.nearest, &mut scratch.codes);
        table.nearest_len.push(scratch.codes.len() as u16);
        scratch.codes.resize(NEAREST, 0);
        table.nearest.extend_from_slice(&scratch.codes);
    }
}

/// How many codes of its order a member of rank `rank` gets sorted up front: none for the
/// leader (rank 0, which the walk leaves alone), else its start code and [`AHEAD`] more, at
/// most [`NEAREST`]. A walk that reads past them sorts its whole order then.
fn sorted_start(rank: usize) -> usize {
    if rank == 0 {
        0
    } else {
        (rank + 1 + AHEAD).min(NEAREST)
    }
}

/// An item's float32 residuals before levels L−1 (`prev`) and L (`last`), along its own
/// (native) codes, as the reference's RQ code has them: `r ← r − e` in float32.
#[derive(Default)]
struct Residuals {
    latent: Vec<f64>,
    prev: Vec<f32>,
    last: Vec<f32>,
}

impl Residuals {
    fn compute(&mut self, index: &SidIndex, cost: &CostModel, position: usize) {
        let n_levels = index.n_levels();
        let native = index.codes(position);
        self.latent.resize(cost.dim(), 0.0);
        cost.latent_into(position, &mut self.latent);
        self.prev.clear();
        self.prev.extend(self.latent.iter().map(|&a| a as f32));
        for (level, &code) in native.iter().enumerate().take(n_levels - 2) {
            subtract(&mut self.prev, cost.codeword(level, code));
        }
        self.last.clone_from(&self.prev);
        subtract(
            &mut self.last,
            cost.codeword(n_levels - 2, native[n_levels - 2]),
        );
    }
}

fn subtract(r: &mut [f32], codeword: &[f64]) {
    for (a, &c) in r.iter_mut().zip(codeword) {
        *a -= c as f32;
    }
}

fn distances(r: &[f32], transposed: &[f32], v: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; v];
    sq_distances_transposed_f32(r, transposed, &mut out);
    out
}

/// Codes by ascending distance, equal distances by code: one sort of (distance in total
/// order, code) keys, the same order as a stable sort by distance.
fn argsort(d: &[f32]) -> Vec<Code> {
    nearest(d, d.len())
}

/// The first `k` codes of [`argsort`].
fn nearest(d: &[f32], k: usize) -> Vec<Code> {
    let mut codes = Vec::new();
    nearest_into(d, k, &mut NearestScratch::default(), &mut codes);
    codes
}

/// Buffers for [`nearest_into`], kept by the caller between calls.
#[derive(Default)]
struct NearestScratch {
    bits: Vec<u32>,
    minima: Vec<u32>,
    keys: Vec<u64>,
}

/// [`nearest`] into `codes`. The (distance in total order, code) keys are distinct, so the `k`
/// smallest in order are exactly [`argsort`]'s prefix. Split the codes into `k` disjoint sets
/// (code `c` in set `c mod k`, the last partial block left out): each set's least distance is
/// at most the largest of those minima, so at least `k` codes lie at or below it and only
/// those are sorted (about a quarter of them). The minima are taken block against block,
/// which vectorises.
fn nearest_into(d: &[f32], k: usize, scratch: &mut NearestScratch, codes: &mut Vec<Code>) {
    codes.clear();
    if k == 0 {
        return;
    }
    let NearestScratch { bits, minima, keys } = scratch;
    bits.clear();
    bits.extend(d.iter().map(|&x| total_order_bits(x)));
    let bound = if k < bits.len() {
        minima.clear();
        minima.extend_from_slice(&bits[..k]);
        for block in bits[k..].chunks_exact(k) {
            for (m, &b) in minima.iter_mut().zip(block) {
                *m = (*m).min(b);
            }
        }
        minima.iter().copied().max().unwrap_or(u32::MAX)
    } else {
        u32::MAX
    };
    keys.clear();
    keys.extend(
        bits.iter()
            .enumerate()
            .filter(|&(_, &b)| b <= bound)
            .map(|(c, &b)| (u64::from(b) << 32) | c as u64),
    );
    keys.sort_unstable();
    keys.truncate(k);
    codes.extend(keys.iter().map(|&key| key as Code));
}

/// `x`'s bits mapped so that unsigned comparison is `f32::total_cmp`.
fn total_order_bits(x: f32) -> u32 {
    let b = x.to_bits();
    if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
}

/// Items in groups of size > 1 under `codes` (row-major, `n_levels` per item), and the
/// number of distinct SIDs.
pub fn collision_counts(codes: &[Code], n_levels: usize) -> (usize, usize) {
    let mut keys: Vec<SidKey> = codes.par_chunks_exact(n_levels).map(sid::sid_key).collect();
    keys.par_sort_unstable();
    let (mut shared, mut distinct) = (0, 0);
    for run in keys.chunk_by(|a, b| a == b) {
        distinct += 1;
        if run.len() > 1 {
            shared += run.len();
        }
    }
    (shared, distinct)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stable_argsort(d: &[f32]) -> Vec<Code> {
        let mut idx: Vec<Code> = (0..d.len() as Code).collect();
        idx.sort_by(|&a, &b| d[a as usize].total_cmp(&d[b as usize]));
        idx
    }

    /// A random index of `n` items over a tiny codebook (so walks run out of codes), with
    /// random latents and codebooks.
    fn tiny_tokenizer(seed: u64, n: usize) -> (SidIndex, CostModel) {
        use crate::load::{Codebooks, Latents};
        let (l, v, d) = (3, 3, 2);
        let mut rng = crate::numeric::random::SeededRng::new(seed);
        let mut code = || (rng.unit() * v as f64) as usize % v;
        let entries: Vec<String> = (0..n)
            .map(|i| format!("\"{i}\": [{}, {}, {}]", code(), code(), code()))
            .collect();
        let path = std::path::Path::new("tiny.index.json");
        let index = SidIndex::parse(format!("{{{}}}", entries.join(", ")).as_bytes(), path, None)
            .expect("a valid index");
        let mut rng = crate::numeric::random::SeededRng::new(seed ^ 0x5EED);
        let latents = ndarray::Array2::from_shape_fn((n, d), |_| rng.unit() * 2.0 - 1.0);
        let codebooks = ndarray::Array3::from_shape_fn((l, v, d), |_| rng.unit() - 0.5);
        let latents = Latents::from_f64(std::path::Path::new("tiny.npy"), latents).unwrap();
        let codebooks = Codebooks::from_array(std::path::Path::new("cb.npy"), codebooks).unwrap();
        let cost = CostModel::from_codebooks(&index, latents, &codebooks).unwrap();
        (index, cost)
    }

    #[test]
    fn distinct_means_no_collision_is_left() {
        let (mut distinct, mut not_distinct) = (0, 0);
        for seed in 0..300 {
            let (index, cost) = tiny_tokenizer(seed, 2 + seed as usize % 25);
            let collisions = Collisions::new(&index);
            let out = run(&index, &collisions, &cost, &crate::progress::NoProgress).unwrap();
            let (shared, unique) = collision_counts(&out.codes, index.n_levels());
            if out.distinct {
                assert_eq!((shared, unique), (0, index.n_items()), "seed {seed}");
                distinct += 1;
            } else {
                not_distinct += 1;
            }
        }
        assert!(
            distinct > 30 && not_distinct > 30,
            "{distinct} / {not_distinct}"
        );
    }

    proptest! {
        #[test]
        fn argsort_is_a_stable_sort_by_total_order(
            d in prop::collection::vec(
                prop_oneof![Just(0.0f32), Just(-0.0f32), Just(1.5f32), any::<f32>()],
                0..64,
            ),
        ) {
            prop_assert_eq!(argsort(&d), stable_argsort(&d));
        }

        #[test]
        fn nearest_is_the_start_of_argsort(
            d in prop::collection::vec(
                prop_oneof![Just(0.0f32), Just(-0.0f32), Just(1.5f32), any::<f32>()],
                0..300,
            ),
            k in 0usize..70,
        ) {
            let whole = stable_argsort(&d);
            prop_assert_eq!(nearest(&d, k), whole[..k.min(d.len())].to_vec());
        }

        #[test]
        fn transposed_distances_equal_the_sum_in_dimension_order(
            r in prop::collection::vec(-4.0f32..4.0, 1..12),
            seed in any::<u64>(),
        ) {
            let d = r.len();
            let v = 5;
            let mut rng = crate::numeric::random::SeededRng::new(seed);
            let codebook: Vec<Vec<f32>> =
                (0..v).map(|_| (0..d).map(|_| rng.unit() as f32 * 3.0).collect()).collect();
            let mut transposed = vec![0.0f32; d * v];
            for (c, e) in codebook.iter().enumerate() {
                for (j, &x) in e.iter().enumerate() {
                    transposed[j * v + c] = x;
                }
            }
            let direct: Vec<f32> = codebook
                .iter()
                .map(|e| {
                    r.iter()
                        .zip(e)
                        .map(|(&a, &b)| {
                            let t = f64::from(a - b);
                            t * t
                        })
                        .sum::<f64>() as f32
                })
                .collect();
            let got = distances(&r, &transposed, v);
            prop_assert_eq!(
                got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                direct.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
    }
}
