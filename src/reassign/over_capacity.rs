//! What to do with prefix groups larger than V, which no last-code reassignment can resolve:
//! keep them, append TIGER's disambiguation code (L + 1 levels), or move the items that must
//! move into free (L−1, L) code pairs of the same (L−2)-prefix at least total cost.

use std::collections::{HashMap, HashSet};

use pathfinding::kuhn_munkres::kuhn_munkres_min;
use pathfinding::matrix::Matrix;
use rayon::prelude::*;
use serde::Serialize;

use super::{CostModel, Mode, ModeTotals, Plan, Remedy, SkipReason, remedy_totals};
use crate::error::{Error, Result};
use crate::load::SidIndex;
use crate::progress::{Progress, check_cancelled};
use crate::sid::{self, Code, SidKey};

/// The policy for prefix groups larger than V.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum OverCapacity {
    /// Leave them unchanged and report them.
    #[default]
    Keep,
    /// TIGER's appended code: one more level numbering the items of each SID (0, 1, …, by
    /// item id), so every item gets L + 1 codes and no collision is left.
    Append,
    /// Move the items that must move into free (L−1, L) code pairs of their (L−2)-prefix at
    /// the least total ΔD; what does not fit stays and is reported.
    TwoLevel,
}

/// The whole index after the base mode and the over-capacity policy, with its totals.
#[derive(Debug, Clone)]
pub struct Resolution {
    /// The policy applied.
    pub policy: OverCapacity,
    /// Every item's codes and ΔD afterwards.
    pub remedy: Remedy,
    /// Totals against the native index (`sidlens zcr --json` key `over_capacity`).
    pub totals: ResolutionTotals,
}

/// What an over-capacity policy did. Field names are part of the `zcr --json` contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolutionTotals {
    /// `keep`, `append` or `two-level`.
    pub policy: OverCapacity,
    /// Which mode resolved the groups within capacity.
    pub base_mode: Mode,
    /// Totals of the whole result (base mode plus policy) against the native index.
    #[serde(flatten)]
    pub totals: ModeTotals,
    /// Levels per item afterwards (L + 1 with `append`).
    pub n_levels: usize,
    /// `append`: codes used at the appended level (the largest SID group left by the base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub appended_codes: Option<usize>,
    /// `two-level`: one entry per (L−2)-prefix that holds a group over capacity.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub two_level: Vec<TwoLevelPart>,
}

/// One (L−2)-prefix solved by `two-level`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TwoLevelPart {
    /// The shared first L−2 codes (empty for L = 2).
    pub prefix: Vec<Code>,
    /// Groups over capacity under it.
    pub n_groups: usize,
    /// Items that must move (every holder of a shared code but the nearest one).
    pub movers: usize,
    /// Free (L−1, L) pairs under the prefix after the base mode.
    pub free_pairs: usize,
    /// Movers given a free pair.
    pub resolved: usize,
    /// Movers that stay in collision because the prefix has no room.
    pub unresolved: usize,
    /// Rows × columns of the assignment problem solved (after pruning).
    pub problem: [usize; 2],
}

/// Applies `policy` after `mode` (ZCR or greedy) on `plan`'s groups within capacity.
pub fn resolve(
    index: &SidIndex,
    plan: &Plan,
    mode: Mode,
    policy: OverCapacity,
    cost: &CostModel,
    progress: &dyn Progress,
) -> Result<Resolution> {
    if mode == Mode::Mql4grec {
        return Err(Error::Invalid(
            "--over-capacity applies to ZCR and greedy; MQL4GRec's rule has its own fallback"
                .into(),
        ));
    }
    let l = index.n_levels();
    let last = plan.last_codes(index, mode).ok_or_else(|| {
        Error::Invalid("resolving groups over capacity needs vectors (--latents)".into())
    })?;
    let mut codes = index
        .with_last_codes(index.path(), &last)
        .all_codes()
        .to_vec();
    let mut appended_codes = None;
    let mut two_level = Vec::new();
    let n_levels = match policy {
        OverCapacity::Keep => l,
        OverCapacity::Append => {
            let (c, width) = append(index, &codes);
            codes = c;
            appended_codes = Some(width);
            l + 1
        }
        OverCapacity::TwoLevel => {
            if l < 2 {
                return Err(Error::Invalid(format!(
                    "{}: two-level reassignment needs L ≥ 2",
                    index.path().display()
                )));
            }
            two_level = two_level_moves(index, plan, cost, &mut codes, progress)?;
            l
        }
    };
    let delta = (0..index.n_items())
        .into_par_iter()
        .map(|p| cost.delta_of(index, p, &codes[p * n_levels..(p + 1) * n_levels]))
        .collect();
    let remedy = Remedy {
        n_levels,
        codes,
        delta,
        passes: 1,
        distinct: false,
    };
    let totals = ResolutionTotals {
        policy,
        base_mode: mode,
        totals: remedy_totals(index, &remedy),
        n_levels,
        appended_codes,
        two_level,
    };
    Ok(Resolution {
        policy,
        remedy,
        totals,
    })
}

/// Every item's codes plus its rank among the items of its SID (item id order), and the
/// number of appended codes used.
fn append(index: &SidIndex, codes: &[Code]) -> (Vec<Code>, usize) {
    let l = index.n_levels();
    let all: Vec<u32> = (0..index.n_items() as u32).collect();
    let order = super::in_id_order(index, index.ids().integer_values(), &all);
    let mut next: HashMap<SidKey, usize> = HashMap::new();
    let mut rank = vec![0usize; index.n_items()];
    for &p in &order {
        let n = next
            .entry(sid::sid_key(&codes[p as usize * l..(p as usize + 1) * l]))
            .or_default();
        rank[p as usize] = *n;
        *n += 1;
    }
    let width = next.values().copied().max().unwrap_or(1);
    let out = (0..index.n_items())
        .flat_map(|p| {
            codes[p * l..(p + 1) * l]
                .iter()
                .copied()
                .chain(std::iter::once(rank[p] as Code))
        })
        .collect();
    (out, width)
}

/// Moves the movers of every group over capacity into free (L−1, L) pairs of its
/// (L−2)-prefix, one Kuhn–Munkres problem per (L−2)-prefix, and reports each.
fn two_level_moves(
    index: &SidIndex,
    plan: &Plan,
    cost: &CostModel,
    codes: &mut [Code],
    progress: &dyn Progress,
) -> Result<Vec<TwoLevelPart>> {
    let l = index.n_levels();
    let v = cost.codebook_size();
    let mut by_outer: Vec<(Vec<Code>, Vec<usize>)> = Vec::new();
    for (k, s) in plan.skipped.iter().enumerate() {
        if !matches!(s.reason, SkipReason::OverCapacity { .. }) {
            continue;
        }
        let outer = s.prefix[..l - 2].to_vec();
        match by_outer.iter_mut().find(|(o, _)| *o == outer) {
            Some((_, ks)) => ks.push(k),
            None => by_outer.push((outer, vec![k])),
        }
    }
    let mut parts = Vec::new();
    progress.stage("two-level assignment", by_outer.len() as u64);
    for (outer, skipped) in by_outer {
        check_cancelled(progress)?;
        let mut movers: Vec<usize> = Vec::new();
        for &k in &skipped {
            movers.extend(movers_of(index, cost, &plan.skipped[k].items));
        }
        let used: HashSet<(Code, Code)> = (0..index.n_items())
            .map(|p| &codes[p * l..(p + 1) * l])
            .filter(|c| c[..l - 2] == outer[..])
            .map(|c| (c[l - 2], c[l - 1]))
            .collect();
        let free: Vec<(Code, Code)> = (0..v)
            .flat_map(|a| (0..v).map(move |b| (a as Code, b as Code)))
            .filter(|pair| cost.is_available(pair.1) && !used.contains(pair))
            .collect();
        let (assigned, problem) = assign(index, cost, &movers, &free, codes);
        let resolved = assigned.iter().filter(|a| a.is_some()).count();
        for (&p, a) in movers.iter().zip(&assigned) {
            if let Some(j) = a {
                codes[p * l + l - 2] = free[*j].0;
                codes[p * l + l - 1] = free[*j].1;
            }
        }
        parts.push(TwoLevelPart {
            prefix: outer,
            n_groups: skipped.len(),
            movers: movers.len(),
            free_pairs: free.len(),
            resolved,
            unresolved: movers.len() - resolved,
            problem,
        });
        progress.advance(1);
    }
    Ok(parts)
}

/// The items of a group that must leave their code: every holder of a shared code except
/// the nearest one (equal distances: lower item id; `items` are in id order).
fn movers_of(index: &SidIndex, cost: &CostModel, items: &[u32]) -> Vec<usize> {
    let l = index.n_levels();
    let mut r = vec![0.0; cost.dim()];
    let mut keeper: HashMap<Code, (f64, usize)> = HashMap::new();
    for &p in items {
        let p = p as usize;
        let code = index.codes(p)[l - 1];
        cost.residual(index, p, &mut r);
        let mut d = [0.0];
        cost.sq_distances(&r, &[code], &mut d);
        keeper
            .entry(code)
            .and_modify(|k| {
                if d[0] < k.0 {
                    *k = (d[0], p);
                }
            })
            .or_insert((d[0], p));
    }
    let keepers: HashSet<usize> = keeper.values().map(|k| k.1).collect();
    items
        .iter()
        .map(|&p| p as usize)
        .filter(|p| !keepers.contains(p))
        .collect()
}

/// The least-ΔD injective map of movers to free pairs, by Kuhn–Munkres on quantised ΔD.
/// With more pairs than movers each mover keeps only its `movers` cheapest pairs (some
/// optimum uses only those, as in ZCR's pruning); with more movers than pairs the problem
/// is transposed, every pair gets a mover and the rest stay. Returns each mover's pair and
/// the solved problem's shape.
fn assign(
    index: &SidIndex,
    cost: &CostModel,
    movers: &[usize],
    free: &[(Code, Code)],
    codes: &[Code],
) -> (Vec<Option<usize>>, [usize; 2]) {
    let l = index.n_levels();
    if movers.is_empty() || free.is_empty() {
        return (vec![None; movers.len()], [movers.len(), 0]);
    }
    let deltas: Vec<Vec<f64>> = movers
        .par_iter()
        .map(|&p| {
            let mut c = codes[p * l..(p + 1) * l].to_vec();
            free.iter()
                .map(|&(a, b)| {
                    c[l - 2] = a;
                    c[l - 1] = b;
                    cost.delta_of(index, p, &c)
                })
                .collect()
        })
        .collect();
    let max_abs = deltas
        .iter()
        .flatten()
        .fold(0.0f64, |m, d| m.max(d.abs()))
        .max(f64::MIN_POSITIVE);
    // 2^40 quanta over the largest |ΔD| keeps any sum of ≤ 2^20 entries far inside i64.
    let q = |d: f64| (d / max_abs * (1u64 << 40) as f64).round() as i64;
    if movers.len() <= free.len() {
        let mut keep = vec![false; free.len()];
        let mut ranked: Vec<usize> = Vec::with_capacity(free.len());
        for row in &deltas {
            ranked.clear();
            ranked.extend(0..free.len());
            let k = movers.len() - 1;
            ranked.select_nth_unstable_by(k, |&a, &b| row[a].total_cmp(&row[b]).then(a.cmp(&b)));
            ranked[..=k].iter().for_each(|&j| keep[j] = true);
        }
        let kept: Vec<usize> = (0..free.len()).filter(|&j| keep[j]).collect();
        let mut w = Matrix::new(movers.len(), kept.len(), 0i64);
        for (r, row) in deltas.iter().enumerate() {
            for (k, &j) in kept.iter().enumerate() {
                w[(r, k)] = q(row[j]);
            }
        }
        let (_, a) = kuhn_munkres_min(&w);
        (
            a.into_iter().map(|k| Some(kept[k])).collect(),
            [movers.len(), kept.len()],
        )
    } else {
        let mut w = Matrix::new(free.len(), movers.len(), 0i64);
        for (r, row) in deltas.iter().enumerate() {
            for (j, &d) in row.iter().enumerate() {
                w[(j, r)] = q(d);
            }
        }
        let (_, a) = kuhn_munkres_min(&w);
        let mut out = vec![None; movers.len()];
        for (j, r) in a.into_iter().enumerate() {
            out[r] = Some(j);
        }
        (out, [free.len(), movers.len()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::Collisions;
    use crate::load::{Codebooks, Latents};
    use crate::progress::NoProgress;
    use crate::reassign::plan;
    use ndarray::{Array2, Array3};
    use std::path::Path;

    /// V = 2, L = 2: prefix 0 holds three items on code 0 (over capacity), prefix 1 one item.
    fn fixture() -> (SidIndex, CostModel) {
        let index = SidIndex::parse(
            br#"{"0": [0, 0], "1": [0, 0], "2": [0, 0], "3": [1, 0]}"#,
            Path::new("i.json"),
            Some(2),
        )
        .unwrap();
        let lat = Array2::from_shape_vec((4, 1), vec![0.0, 0.1, 0.9, 1.0]).unwrap();
        let latents = Latents::from_f64(Path::new("l.npy"), lat).unwrap();
        let mut cb = Array3::<f64>::zeros((2, 2, 1));
        cb[[0, 1, 0]] = 1.0;
        cb[[1, 1, 0]] = 0.5;
        let cb = Codebooks::from_array(Path::new("c.npy"), cb).unwrap();
        let cost = CostModel::from_codebooks(&index, latents, &cb).unwrap();
        (index, cost)
    }

    #[test]
    fn append_numbers_the_items_of_each_sid_and_leaves_no_collision() {
        let (index, cost) = fixture();
        let p = plan(&index, &Collisions::new(&index), Some(&cost), &NoProgress).unwrap();
        assert_eq!(p.summary.skipped_over_capacity, 1);
        let r = resolve(
            &index,
            &p,
            Mode::Optimal,
            OverCapacity::Append,
            &cost,
            &NoProgress,
        )
        .unwrap();
        assert_eq!(r.remedy.codes, vec![0, 0, 0, 0, 0, 1, 0, 0, 2, 1, 0, 0]);
        assert_eq!(r.totals.appended_codes, Some(3));
        assert_eq!(r.totals.totals.items_in_collision_after, 0);
        assert_eq!(r.totals.totals.total_delta, Some(0.0));
    }

    #[test]
    fn two_level_moves_the_movers_to_the_cheapest_free_pairs_and_reports_the_rest() {
        let (index, cost) = fixture();
        let p = plan(&index, &Collisions::new(&index), Some(&cost), &NoProgress).unwrap();
        let r = resolve(
            &index,
            &p,
            Mode::Optimal,
            OverCapacity::TwoLevel,
            &cost,
            &NoProgress,
        )
        .unwrap();
        // Item 0 (nearest to code 0) keeps (0, 0); free pairs are (0, 1) and (1, 1). Item 1
        // on (0, 1) and item 2 on (1, 1) cost (0.16 − 0.01) + (0.36 − 0.81) = −0.30; the
        // swap would cost (1.96 − 0.01) + (0.16 − 0.81) = 1.30.
        assert_eq!(r.remedy.codes, vec![0, 0, 0, 1, 1, 1, 1, 0]);
        let part = &r.totals.two_level[0];
        assert_eq!(
            (part.movers, part.free_pairs, part.resolved, part.unresolved),
            (2, 2, 2, 0)
        );
        let expected = (0.16 - 0.01) + (0.36 - 0.81);
        assert!((r.totals.totals.total_delta.unwrap() - expected).abs() < 1e-12);
        assert_eq!(r.totals.totals.items_in_collision_after, 0);
        assert_eq!(r.totals.totals.prefixes_changed, 1);
    }

    #[test]
    fn mql4grec_has_its_own_fallback() {
        let (index, cost) = fixture();
        let p = plan(&index, &Collisions::new(&index), Some(&cost), &NoProgress).unwrap();
        let e = resolve(
            &index,
            &p,
            Mode::Mql4grec,
            OverCapacity::Append,
            &cost,
            &NoProgress,
        );
        assert!(e.is_err());
    }
}
