//! The `eval` report: one row per K (Hit, ItemHit, inflation, NDCG, ItemNDCG, MRR, ItemMRR,
//! prefix hits per SID depth), the groups that collisions over-credit most, the `eval --json`
//! document.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{Align, Table, metric, raw, signed_percent};
use crate::collision::Collisions;
use crate::load::SidIndex;
use crate::metrics::{
    Anomalies, Compat, DecodedSummary, EvalSummary, GroupCredit, MetricValues, recovered_pct,
};
use crate::sid;

/// The metrics table: one row per K.
pub fn table(summary: &EvalSummary) -> Table {
    let mut t = Table::new(&[
        ("K", Align::Right),
        ("Hit", Align::Right),
        ("ItemHit", Align::Right),
        ("inflation", Align::Right),
        ("NDCG", Align::Right),
        ("ItemNDCG", Align::Right),
        ("MRR", Align::Right),
        ("ItemMRR", Align::Right),
    ]);
    let depths = summary.prefix_hits.first().map_or(0, Vec::len);
    for d in 1..=depths {
        t.headers.push(format!("PrefixHit d{d}"));
        t.align.push(Align::Right);
    }
    for (i, (&k, v)) in summary.ks.iter().zip(&summary.values).enumerate() {
        let mut row = vec![
            k.to_string(),
            metric(v.hit),
            metric(v.item_hit),
            signed_percent(v.hit_inflation_pct()),
            metric(v.ndcg),
            metric(v.item_ndcg),
            metric(v.mrr),
            metric(v.item_mrr),
        ];
        if let Some(hits) = summary.prefix_hits.get(i) {
            row.extend(hits.iter().map(|&h| metric(h)));
        }
        t.push(row);
    }
    t
}

/// The metrics table for CSV: one row per K, plain fractions, inflation in percent.
pub fn csv_table(summary: &EvalSummary) -> Table {
    let mut t = Table::new(&[
        ("K", Align::Right),
        ("Hit", Align::Right),
        ("ItemHit", Align::Right),
        ("Hit inflation (%)", Align::Right),
        ("NDCG", Align::Right),
        ("ItemNDCG", Align::Right),
        ("NDCG inflation (%)", Align::Right),
        ("MRR", Align::Right),
        ("ItemMRR", Align::Right),
    ]);
    let depths = summary.prefix_hits.first().map_or(0, Vec::len);
    for d in 1..=depths {
        t.headers.push(format!("PrefixHit depth {d}"));
        t.align.push(Align::Right);
    }
    for (i, (&k, v)) in summary.ks.iter().zip(&summary.values).enumerate() {
        let mut row = vec![k.to_string()];
        row.extend(
            [
                Some(v.hit),
                Some(v.item_hit),
                v.hit_inflation_pct(),
                Some(v.ndcg),
                Some(v.item_ndcg),
                v.ndcg_inflation_pct(),
                Some(v.mrr),
                Some(v.item_mrr),
            ]
            .map(raw),
        );
        if let Some(hits) = summary.prefix_hits.get(i) {
            row.extend(hits.iter().map(|&h| raw(Some(h))));
        }
        t.push(row);
    }
    t
}

/// CCE's item-level credit beside a decoded one, one row per K: ItemHit against DecodedHit
/// and the share of the Hit inflation the decoding recovers, the same for NDCG, and MRR.
pub fn decoded_table(summary: &EvalSummary, decoded: &DecodedSummary) -> Table {
    let d = decoded.decode;
    let mut t = Table::new(&[
        ("K", Align::Right),
        ("Hit", Align::Right),
        ("ItemHit (cce)", Align::Right),
        (&format!("Hit ({d})"), Align::Right),
        ("recovered", Align::Right),
        ("NDCG", Align::Right),
        ("ItemNDCG (cce)", Align::Right),
        (&format!("NDCG ({d})"), Align::Right),
        ("recovered", Align::Right),
        (&format!("MRR ({d})"), Align::Right),
    ]);
    let pct = |p: Option<f64>| p.map_or("-".to_string(), |p| format!("{p:.1}%"));
    for ((&k, v), dv) in summary.ks.iter().zip(&summary.values).zip(&decoded.values) {
        t.push(vec![
            k.to_string(),
            metric(v.hit),
            metric(v.item_hit),
            metric(dv.hit),
            pct(recovered_pct(v.hit, v.item_hit, dv.hit)),
            metric(v.ndcg),
            metric(v.item_ndcg),
            metric(dv.ndcg),
            pct(recovered_pct(v.ndcg, v.item_ndcg, dv.ndcg)),
            metric(dv.mrr),
        ]);
    }
    t
}

/// The decoded credit in `eval --json --decode popular|random:SEED`, beside `metrics`.
#[derive(serde::Serialize)]
pub struct DecodedJson {
    /// `"DecodedHit@K"`, `"DecodedNDCG@K"`, `"DecodedMRR@K"` for every K.
    pub decoded_metrics: MetricMap,
    /// `"Hit@K"` and `"NDCG@K"`: (decoded − CCE item-level) / (SID-level − CCE item-level)
    /// · 100, the share of the inflation the decoding recovers (null without inflation).
    pub decoded_recovered_pct: MetricMap,
    /// Users whose target's SID decodes to the target item.
    pub users_decoded_to_target: u64,
    /// Users whose record names no target item the index has (they score 0 decoded).
    pub users_without_target_item: u64,
}

impl DecodedJson {
    /// Builds the decoded part of the document.
    pub fn new(summary: &EvalSummary, decoded: &DecodedSummary) -> Self {
        let mut metrics = Vec::new();
        for slot in 0..3 {
            for (k, v) in decoded.ks.iter().zip(&decoded.values) {
                let (name, value) = v.named()[slot];
                metrics.push((format!("{name}@{k}"), Some(value)));
            }
        }
        let mut recovered = Vec::new();
        for (k, (v, d)) in summary
            .ks
            .iter()
            .zip(summary.values.iter().zip(&decoded.values))
        {
            recovered.push((format!("Hit@{k}"), recovered_pct(v.hit, v.item_hit, d.hit)));
        }
        for (k, (v, d)) in summary
            .ks
            .iter()
            .zip(summary.values.iter().zip(&decoded.values))
        {
            recovered.push((
                format!("NDCG@{k}"),
                recovered_pct(v.ndcg, v.item_ndcg, d.ndcg),
            ));
        }
        DecodedJson {
            decoded_metrics: MetricMap(metrics),
            decoded_recovered_pct: MetricMap(recovered),
            users_decoded_to_target: decoded.users_decoded_to_target,
            users_without_target_item: decoded.users_without_target_item,
        }
    }
}

/// What had to be corrected, one line each, for the text report.
pub fn anomaly_lines(a: &Anomalies, compat: Compat) -> String {
    let action = match compat {
        Compat::Faithful => "dropped",
        Compat::CcePy => "kept, as cce.py does",
    };
    format!(
        "invalid beam SIDs: {} ({action})\nduplicate beam SIDs: {} ({action})\nunknown targets: {}\nunknown ranked items: {}\ntarget mismatches: {}\n",
        a.invalid_sids, a.duplicate_sids, a.unknown_targets, a.unknown_items, a.target_mismatches
    )
}

/// The groups over-credited most at the largest K, as a table.
pub fn groups_table(
    summary: &EvalSummary,
    groups: &[&GroupCredit],
    index: &SidIndex,
    collisions: &Collisions,
) -> Table {
    let k = summary.largest_k_position().map_or(0, |i| summary.ks[i]);
    let at = summary.largest_k_position().unwrap_or(0);
    let mut t = Table::new(&[
        ("SID", Align::Left),
        ("size", Align::Right),
        ("generated", Align::Right),
        ("targets", Align::Right),
        (&format!("ΣHit@{k}"), Align::Right),
        (&format!("ΣItemHit@{k}"), Align::Right),
        ("over-credit", Align::Right),
        ("items", Align::Left),
    ]);
    for g in groups {
        t.push(vec![
            group_sid(index, collisions, g.group),
            g.size.to_string(),
            g.generated.to_string(),
            g.targets.to_string(),
            metric(g.sid_credit[at]),
            metric(g.item_credit[at]),
            metric(g.over_credit(at)),
            item_list(index, collisions, g.group, 8),
        ]);
    }
    t
}

/// The over-credited groups for CSV: credit at every K, every item id (space-separated).
pub fn groups_csv_table(
    summary: &EvalSummary,
    groups: &[&GroupCredit],
    index: &SidIndex,
    collisions: &Collisions,
) -> Table {
    let at = summary.largest_k_position().unwrap_or(0);
    let mut columns: Vec<String> = ["SID", "size", "generated", "targets"]
        .map(String::from)
        .to_vec();
    for k in &summary.ks {
        columns.push(format!("ΣHit@{k}"));
        columns.push(format!("ΣItemHit@{k}"));
    }
    columns.push(format!(
        "over-credit@{}",
        summary.ks.get(at).copied().unwrap_or(0)
    ));
    columns.push("items".into());
    let refs: Vec<(&str, Align)> = columns
        .iter()
        .map(|c| {
            (
                c.as_str(),
                if c == "SID" || c == "items" {
                    Align::Left
                } else {
                    Align::Right
                },
            )
        })
        .collect();
    let mut t = Table::new(&refs);
    for g in groups {
        let mut row = vec![
            group_sid(index, collisions, g.group),
            g.size.to_string(),
            g.generated.to_string(),
            g.targets.to_string(),
        ];
        for i in 0..summary.ks.len() {
            row.push(raw(Some(g.sid_credit[i])));
            row.push(raw(Some(g.item_credit[i])));
        }
        row.push(raw(Some(g.over_credit(at))));
        row.push(item_list(index, collisions, g.group, usize::MAX));
        t.push(row);
    }
    t
}

fn group_sid(index: &SidIndex, collisions: &Collisions, g: u32) -> String {
    sid::format_sid(index.codes(collisions.items(g)[0] as usize))
}

fn item_list(index: &SidIndex, collisions: &Collisions, g: u32, limit: usize) -> String {
    let items = collisions.items_in_id_order(index, g);
    let mut text: Vec<&str> = items
        .iter()
        .take(limit)
        .map(|&p| index.id(p as usize))
        .collect();
    if items.len() > limit {
        text.push("…");
    }
    text.join(" ")
}

/// A JSON object of metric values keyed like `"Hit@10"`, in a fixed order (Hit, NDCG,
/// ItemHit, ItemNDCG, each for every K), `null` for an undefined value.
pub struct MetricMap(pub Vec<(String, Option<f64>)>);

impl Serialize for MetricMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl MetricMap {
    /// Every metric for every K.
    pub fn metrics(summary: &EvalSummary) -> MetricMap {
        let mut entries = Vec::new();
        for metric in 0..MetricValues::default().named().len() {
            for (k, v) in summary.ks.iter().zip(&summary.values) {
                let (name, value) = v.named()[metric];
                entries.push((format!("{name}@{k}"), Some(value)));
            }
        }
        MetricMap(entries)
    }

    /// Inflation % of Hit over ItemHit (`"Hit@K"`) and of NDCG over ItemNDCG (`"NDCG@K"`).
    pub fn inflation(summary: &EvalSummary) -> MetricMap {
        let mut entries = Vec::new();
        for (k, v) in summary.ks.iter().zip(&summary.values) {
            entries.push((format!("Hit@{k}"), v.hit_inflation_pct()));
        }
        for (k, v) in summary.ks.iter().zip(&summary.values) {
            entries.push((format!("NDCG@{k}"), v.ndcg_inflation_pct()));
        }
        MetricMap(entries)
    }
}

/// The `sidlens eval --json` document. Its keys are a contract.
#[derive(serde::Serialize)]
pub struct EvalJson {
    /// Number of users (records).
    pub n_users: u64,
    /// `faithful` or `cce-py`.
    pub compat: Compat,
    /// The K values.
    pub ks: Vec<usize>,
    /// `"Hit@K"`, `"NDCG@K"`, `"MRR@K"`, `"ItemHit@K"`, `"ItemNDCG@K"`, `"ItemMRR@K"` for
    /// every K.
    pub metrics: MetricMap,
    /// Per SID depth d = 1..L−1: `{"depth": d, "Hit@K": …}`, the share of users with some SID
    /// sharing the target's first d codes among the first K (empty for ranked-item records).
    pub prefix_hit: Vec<PrefixJson>,
    /// `"Hit@K"` and `"NDCG@K"`: (SID-level − item-level) / item-level · 100, or null.
    pub inflation_pct: MetricMap,
    /// Beam SIDs that name no item.
    pub invalid_sids: u64,
    /// Repeated beam SIDs.
    pub duplicate_sids: u64,
    /// Users whose target the index does not have.
    pub unknown_targets: u64,
    /// Users whose target SID disagrees with their target item's SID.
    pub target_mismatches: u64,
    /// `ranked_items` ids that are not in the index's catalog.
    pub unknown_items: u64,
    /// Numbers that can mislead, in words (K beyond the beam width, beams of another index).
    pub warnings: Vec<String>,
    /// The index's collision rate (items in groups of two or more / items).
    pub collision_rate: f64,
    /// With `--groups`: the K the groups are ranked at (the largest), like `"Hit@20"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups_ranked_at: Option<String>,
    /// With `--groups`: the most over-credited groups.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<GroupJson>>,
}

/// PrefixHit@K at one SID depth in `eval --json`.
#[derive(serde::Serialize)]
pub struct PrefixJson {
    /// How many leading codes must match (1..L−1).
    pub depth: usize,
    /// `"Hit@K"` for every K.
    #[serde(flatten)]
    pub hits: MetricMap,
}

impl PrefixJson {
    /// One entry per depth.
    pub fn all(summary: &EvalSummary) -> Vec<PrefixJson> {
        let depths = summary.prefix_hits.first().map_or(0, Vec::len);
        (0..depths)
            .map(|d| PrefixJson {
                depth: d + 1,
                hits: MetricMap(
                    summary
                        .ks
                        .iter()
                        .zip(&summary.prefix_hits)
                        .map(|(k, hits)| (format!("Hit@{k}"), Some(hits[d])))
                        .collect(),
                ),
            })
            .collect()
    }
}

/// One over-credited group in `eval --json --groups N`.
#[derive(serde::Serialize)]
pub struct GroupJson {
    /// The shared SID.
    pub sid: String,
    /// Items sharing it.
    pub size: u32,
    /// Their ids, in id order.
    pub items: Vec<String>,
    /// Users whose beams contain the SID.
    pub generated: u32,
    /// Users whose target is in the group.
    pub targets: u32,
    /// `"Hit@K"` = ΣHit@K and `"ItemHit@K"` = ΣItemHit@K over those users, for every K.
    pub credit: MetricMap,
    /// ΣHit − ΣItemHit at the ranking K.
    pub over_credit: f64,
}

impl EvalJson {
    /// Builds the document; `top_groups` are listed when given, named by their collisions.
    pub fn new(
        summary: &EvalSummary,
        collision_rate: f64,
        top_groups: Option<(&[&GroupCredit], &Collisions)>,
        index: &SidIndex,
    ) -> Self {
        let at = summary.largest_k_position().unwrap_or(0);
        let groups = top_groups.map(|(groups, collisions)| {
            groups
                .iter()
                .map(|g| {
                    let mut credit = Vec::new();
                    for (i, k) in summary.ks.iter().enumerate() {
                        credit.push((format!("Hit@{k}"), Some(g.sid_credit[i])));
                        credit.push((format!("ItemHit@{k}"), Some(g.item_credit[i])));
                    }
                    GroupJson {
                        sid: group_sid(index, collisions, g.group),
                        size: g.size,
                        items: collisions
                            .items_in_id_order(index, g.group)
                            .iter()
                            .map(|&p| index.id(p as usize).to_string())
                            .collect(),
                        generated: g.generated,
                        targets: g.targets,
                        credit: MetricMap(credit),
                        over_credit: g.over_credit(at),
                    }
                })
                .collect()
        });
        EvalJson {
            n_users: summary.n_users,
            compat: summary.compat,
            ks: summary.ks.clone(),
            metrics: MetricMap::metrics(summary),
            prefix_hit: PrefixJson::all(summary),
            inflation_pct: MetricMap::inflation(summary),
            invalid_sids: summary.anomalies.invalid_sids,
            duplicate_sids: summary.anomalies.duplicate_sids,
            unknown_targets: summary.anomalies.unknown_targets,
            target_mismatches: summary.anomalies.target_mismatches,
            unknown_items: summary.anomalies.unknown_items,
            warnings: crate::metrics::eval_warnings(summary),
            collision_rate,
            groups_ranked_at: groups.as_ref().map(|_| format!("Hit@{}", summary.ks[at])),
            groups,
        }
    }
}
