//! Means over users (flat memory, in file order as the reference sums), every user's outcome
//! kept for instant re-evaluation at any K, and per-collision-group credit.

use std::collections::HashMap;

use serde::Serialize;

use super::{Anomalies, Compat, MetricValues, UserOutcome};
use crate::collision::Collisions;

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
    prefix: PrefixSums,
}

/// ΣPrefixHit@K per K and depth, over the users whose records have SIDs.
#[derive(Default)]
struct PrefixSums {
    depths: usize,
    users: u64,
    sums: Vec<f64>,
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
            prefix: PrefixSums::default(),
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
        if !o.prefix_ranks.is_empty() && self.prefix.depths <= o.prefix_ranks.len() {
            let p = &mut self.prefix;
            if p.depths < o.prefix_ranks.len() {
                p.depths = o.prefix_ranks.len();
                p.sums = vec![0.0; self.ks.len() * p.depths];
            }
            p.users += 1;
            for (i, &k) in self.ks.iter().enumerate() {
                for (d, &r) in o.prefix_ranks.iter().enumerate() {
                    p.sums[i * p.depths + d] += f64::from(u8::from((r as usize) < k));
                }
            }
        }
        let first_scoring_k = o.first_scoring_k();
        for (i, &k) in self.ks.iter().enumerate() {
            if k < first_scoring_k {
                continue;
            }
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
    pub fn finish(
        self,
        compat: Compat,
        group_size: impl Fn(u32) -> u32,
        generated: &[u32],
    ) -> EvalSummary {
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
                            size: group_size(g),
                            generated: generated.get(g as usize).copied().unwrap_or(0),
                            targets: gs.targets[slot],
                            sid_credit: credit.iter().map(|c| c[0]).collect(),
                            item_credit: credit.iter().map(|c| c[1]).collect(),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let prefix = &self.prefix;
        let prefix_hits = if prefix.users == 0 {
            Vec::new()
        } else {
            prefix
                .sums
                .chunks(prefix.depths)
                .map(|c| c.iter().map(|s| s / prefix.users as f64).collect())
                .collect()
        };
        EvalSummary {
            compat,
            n_users: self.n_users,
            prefix_hits,
            values: self.sums.iter().map(|s| s.divided_by(n)).collect(),
            ks: self.ks,
            anomalies: self.anomalies,
            groups,
            list_width: 0,
        }
    }
}

/// The result of evaluating a beams file at a list of K.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalSummary {
    /// Semantics used.
    pub compat: Compat,
    /// Number of users (records).
    pub n_users: u64,
    /// The K values, as requested.
    pub ks: Vec<usize>,
    /// Mean metrics, one entry per K.
    pub values: Vec<MetricValues>,
    /// Mean PrefixHit@K, per K one value per SID depth 1..L−1 (empty without SID records).
    pub prefix_hits: Vec<Vec<f64>>,
    /// What had to be corrected.
    pub anomalies: Anomalies,
    /// Credit per collision group that is some user's target (empty unless tracked).
    pub groups: Vec<GroupCredit>,
    /// The longest ranked list of any user (beam width); 0 when not measured.
    pub list_width: usize,
}

impl EvalSummary {
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
    pub fn summary(&self, ks: &[usize], collisions: &Collisions) -> EvalSummary {
        let mut acc = Accumulator::new(ks, true);
        for o in &self.outcomes {
            acc.add(o, Anomalies::default());
        }
        let mut summary = acc.finish(self.compat, |g| collisions.size(g), &self.generated);
        summary.anomalies = self.anomalies;
        summary.list_width = self.list_width;
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
