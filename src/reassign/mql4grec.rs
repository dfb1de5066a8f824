//! MQL4GRec's own collision rule, ported literally from `index/generate_indices_distance.py`
//! of its repository: per full-SID group an offset start on the last level, a global set of
//! used SIDs, a fallback to the second-to-last level, and at most two passes.

use std::collections::HashSet;

use rayon::prelude::*;

use super::CostModel;
use crate::error::{Error, Result};
use crate::load::SidIndex;
use crate::progress::{Progress, check_cancelled};
use crate::sid::{self, Code, SidKey};

/// Passes over the index the reference makes at most (`tt == 2`).
pub const PASSES: usize = 2;

/// One item's float32 view of its last two levels, as the reference computes it: the code
/// order by distance at level L−1 and L (numpy `argsort`), and its smallest last-level
/// distance (the key its group is sorted by).
struct Orders {
    prev: Vec<Code>,
    last: Vec<Code>,
    min_last: f32,
}

/// The codes of every item (row-major, `n_items × L`, by position) after MQL4GRec's rule,
/// and how many passes it made.
#[derive(Debug, Clone, PartialEq)]
pub struct Mql4grecCodes {
    /// New codes, row-major by item position.
    pub codes: Vec<Code>,
    /// Passes made (1 or 2; 0 when the index had no collision).
    pub passes: usize,
}

/// Runs MQL4GRec's rule on `index`, with the distances of [`Orders`] from `cost`'s codebooks.
/// Items are visited in item id order (the reference's dataset row order); a group's members
/// are ordered by their smallest last-level distance, equal distances in item id order (what
/// numpy's `argsort` does on the small arrays it sorts by insertion; see README for ties).
pub fn run(index: &SidIndex, cost: &CostModel, progress: &dyn Progress) -> Result<Mql4grecCodes> {
    let n_levels = index.n_levels();
    if n_levels < 2 {
        return Err(Error::Invalid(format!(
            "{}: MQL4GRec's rule changes the last two levels and needs L ≥ 2 (this index has L = {n_levels})",
            index.path().display()
        )));
    }
    let all: Vec<u32> = (0..index.n_items() as u32).collect();
    let order = super::in_id_order(index, super::integer_ids(index).as_deref(), &all);
    let order = order.as_slice();
    let v = cost.codebook_size();
    let last = n_levels - 1;
    let mut codes = index.all_codes().to_vec();
    let mut used: HashSet<SidKey> = (0..index.n_items()).map(|p| index.key(p)).collect();
    let mut orders: Vec<Option<Orders>> = (0..index.n_items()).map(|_| None).collect();
    let mut passes = 0;
    progress.stage("MQL4GRec passes", PASSES as u64);
    while passes < PASSES {
        check_cancelled(progress)?;
        let groups = collision_groups(&codes, n_levels, order);
        if groups.is_empty() {
            break;
        }
        let needed: Vec<u32> = groups
            .iter()
            .flatten()
            .copied()
            .filter(|&p| orders[p as usize].is_none())
            .collect();
        let computed: Vec<(u32, Orders)> = needed
            .par_iter()
            .map(|&p| (p, item_orders(index, cost, p as usize)))
            .collect();
        for (p, o) in computed {
            orders[p as usize] = Some(o);
        }
        for group in &groups {
            let of = |p: u32| orders[p as usize].as_ref().expect("computed above");
            let mut ranked: Vec<usize> = (0..group.len()).collect();
            ranked.sort_by(|&a, &b| of(group[a]).min_last.total_cmp(&of(group[b]).min_last));
            for (i, &m) in ranked.iter().enumerate().skip(1) {
                let p = group[m] as usize;
                let o = of(group[m]);
                let current = codes[p * n_levels..(p + 1) * n_levels].to_vec();
                let taken = |c: &[Code]| used.contains(&sid::sid_key(c));
                let mut code = current.clone();
                let mut num = i;
                while taken(&code) && num < v {
                    code[last] = o.last[num];
                    num += 1;
                }
                for k in 1..v {
                    if taken(&code) {
                        code.clone_from(&current);
                        code[last - 1] = o.prev[k];
                    }
                    let mut num = 0;
                    while taken(&code) && num < v {
                        code[last] = o.last[num];
                        num += 1;
                    }
                    if !taken(&code) {
                        break;
                    }
                }
                used.insert(sid::sid_key(&code));
                codes[p * n_levels..(p + 1) * n_levels].copy_from_slice(&code);
            }
        }
        passes += 1;
        progress.advance(1);
    }
    Ok(Mql4grecCodes { codes, passes })
}

/// The groups of items sharing a whole SID, in order of first appearance in `order`, each
/// in that order (the reference's `get_collision_item`).
fn collision_groups(codes: &[Code], n_levels: usize, order: &[u32]) -> Vec<Vec<u32>> {
    let mut slot: std::collections::HashMap<SidKey, usize> = std::collections::HashMap::new();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for &p in order {
        let key = sid::sid_key(&codes[p as usize * n_levels..(p as usize + 1) * n_levels]);
        let g = *slot.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(p);
    }
    groups.retain(|g| g.len() > 1);
    groups
}

/// Float32 residuals along the item's own codes and its distances at the last two levels,
/// as the reference's RQ code has them: `r ← r − e` in float32, `‖r − e_c‖²` rounded to
/// float32.
fn item_orders(index: &SidIndex, cost: &CostModel, position: usize) -> Orders {
    let n_levels = index.n_levels();
    let native = index.codes(position);
    let mut x = vec![0.0f64; cost.dim()];
    cost.latent_into(position, &mut x);
    let mut r: Vec<f32> = x.iter().map(|&a| a as f32).collect();
    for (level, &code) in native.iter().enumerate().take(n_levels - 2) {
        subtract(&mut r, cost.codeword(level, code));
    }
    let prev = distances(&r, cost, n_levels - 2);
    subtract(&mut r, cost.codeword(n_levels - 2, native[n_levels - 2]));
    let last = distances(&r, cost, n_levels - 1);
    let min_last = last.iter().copied().fold(f32::INFINITY, f32::min);
    Orders {
        prev: argsort(&prev),
        last: argsort(&last),
        min_last,
    }
}

fn subtract(r: &mut [f32], codeword: &[f64]) {
    for (a, &c) in r.iter_mut().zip(codeword) {
        *a -= c as f32;
    }
}

/// `‖r − e_c‖²` for every code of `level`, each difference in float32, summed in float64
/// and rounded to float32.
fn distances(r: &[f32], cost: &CostModel, level: usize) -> Vec<f32> {
    (0..cost.codebook_size())
        .map(|c| {
            let e = cost.codeword(level, c as Code);
            r.iter()
                .zip(e)
                .map(|(&a, &b)| {
                    let t = f64::from(a - b as f32);
                    t * t
                })
                .sum::<f64>() as f32
        })
        .collect()
}

/// Codes by ascending distance, equal distances by code.
fn argsort(d: &[f32]) -> Vec<Code> {
    let mut idx: Vec<Code> = (0..d.len() as u32).map(|c| c as Code).collect();
    idx.sort_by(|&a, &b| d[a as usize].total_cmp(&d[b as usize]));
    idx
}

/// Items in groups of size > 1 under `codes` (row-major, `n_levels` per item), and the
/// number of distinct SIDs.
pub fn collision_counts(codes: &[Code], n_levels: usize) -> (usize, usize) {
    let mut counts: std::collections::HashMap<SidKey, usize> = std::collections::HashMap::new();
    for row in codes.chunks_exact(n_levels) {
        *counts.entry(sid::sid_key(row)).or_default() += 1;
    }
    let shared = counts.values().filter(|&&c| c > 1).sum();
    (shared, counts.len())
}
