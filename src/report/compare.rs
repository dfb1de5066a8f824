//! The `compare` report: one row per tokenizer (collision rate, g_max, Hit@K, ItemHit@K,
//! NDCG@K, ItemNDCG@K, inflation, both ranks) at one K or at every K with seeds (`± std`) and
//! significance marks, the rank flips (and which are significant), and `compare --json`.

use serde::Serialize;

use super::eval::MetricMap;
use super::{Align, Table, metric, percent, signed_percent};
use crate::compare::pairwise::{PairTest, find};
use crate::compare::significance::Correction;
use crate::compare::{Comparison, Flip, NdcgFlip, Row};
use crate::metrics::{Compat, Decode, DecodedValues, Metric, MetricValues, recovered_pct};
use crate::usecase::CompareReport;

/// Shown where a tokenizer has no beams.
const MISSING: &str = "-";

/// The comparison as a table, rows in the order given.
pub fn table(c: &Comparison) -> Table {
    let k = c.k;
    let mut t = Table::new(&[
        ("tokenizer", Align::Left),
        ("collision rate", Align::Right),
        ("g_max", Align::Right),
        (&format!("Hit@{k}"), Align::Right),
        (&format!("ItemHit@{k}"), Align::Right),
        (&format!("NDCG@{k}"), Align::Right),
        (&format!("ItemNDCG@{k}"), Align::Right),
        ("inflation", Align::Right),
        ("rank Hit", Align::Right),
        ("rank ItemHit", Align::Right),
    ]);
    for r in &c.rows {
        let cell = |f: fn(&crate::metrics::MetricValues) -> f64| {
            r.values
                .as_ref()
                .map_or(MISSING.to_string(), |v| metric(f(v)))
        };
        let rank = |v: Option<usize>| v.map_or(MISSING.to_string(), |r| r.to_string());
        t.push(vec![
            r.name.clone(),
            percent(r.collision_rate),
            r.g_max.to_string(),
            cell(|v| v.hit),
            cell(|v| v.item_hit),
            cell(|v| v.ndcg),
            cell(|v| v.item_ndcg),
            if r.values.is_some() {
                signed_percent(r.inflation_pct)
            } else {
                MISSING.to_string()
            },
            rank(r.rank_hit),
            rank(r.rank_item_hit),
        ]);
    }
    t
}

/// One sentence per rank flip, e.g. `a ranks above b by Hit@10 but below it by ItemHit@10`,
/// marked when K is beyond a beam width.
pub fn flip_lines(c: &Comparison) -> Vec<String> {
    c.flips
        .iter()
        .map(|f| {
            format!(
                "{} ranks above {} by Hit@{k} but below it by ItemHit@{k}{}",
                f.higher_by_hit,
                f.higher_by_item_hit,
                beyond_mark(c),
                k = c.k
            )
        })
        .collect()
}

/// What follows a flip at a K beyond some tokenizer's beam width.
fn beyond_mark(c: &Comparison) -> &'static str {
    if c.beyond_beam_width() {
        " (K beyond a beam width: not comparable)"
    } else {
        ""
    }
}

/// The `sidlens compare --json` document.
#[derive(Serialize)]
pub struct CompareJson<'a> {
    /// The cut-off.
    pub k: usize,
    /// `faithful` or `cce-py`.
    pub compat: Compat,
    /// One object per tokenizer.
    pub rows: Vec<RowJson<'a>>,
    /// Pairs ranked in opposite orders by Hit@K and ItemHit@K.
    pub flips: &'a [Flip],
}

/// One tokenizer in `compare --json`.
#[derive(Serialize)]
pub struct RowJson<'a> {
    /// The tokenizer's name.
    pub name: &'a str,
    /// Items in collision groups / items.
    pub collision_rate: f64,
    /// The largest collision group.
    pub g_max: usize,
    /// Users evaluated, or null without beams.
    pub n_users: Option<u64>,
    /// `"Hit@K"`, `"NDCG@K"`, `"ItemHit@K"`, `"ItemNDCG@K"`, or null without beams.
    pub metrics: Option<MetricMap>,
    /// (Hit − ItemHit) / ItemHit · 100, or null.
    pub inflation_pct: Option<f64>,
    /// Rank by Hit@K (1 = best), or null.
    pub rank_hit: Option<usize>,
    /// Rank by ItemHit@K, or null.
    pub rank_item_hit: Option<usize>,
}

impl<'a> CompareJson<'a> {
    /// Builds the document.
    pub fn new(c: &'a Comparison) -> Self {
        let row = |r: &'a Row| RowJson {
            name: &r.name,
            collision_rate: r.collision_rate,
            g_max: r.g_max,
            n_users: r.n_users,
            metrics: r.values.map(|v| {
                MetricMap(
                    v.named()
                        .iter()
                        .map(|(name, value)| (format!("{name}@{}", c.k), Some(*value)))
                        .collect(),
                )
            }),
            inflation_pct: r.inflation_pct,
            rank_hit: r.rank_hit,
            rank_item_hit: r.rank_item_hit,
        };
        CompareJson {
            k: c.k,
            compat: c.compat,
            rows: c.rows.iter().map(row).collect(),
            flips: &c.flips,
        }
    }
}

/// Row positions of `r`'s tokenizers ordered by column `column` of [`report_table`] (text
/// form: 0 = tokenizer name, compared as text; the others by value, missing values last),
/// largest first when `descending`.
pub fn report_order_by(r: &CompareReport, column: usize, descending: bool) -> Vec<usize> {
    let keys = report_keys(r);
    let Some(first) = r.comparisons.first() else {
        return Vec::new();
    };
    let mut order: Vec<usize> = (0..first.rows.len()).collect();
    order.sort_by(|&a, &b| {
        let by = if column == 0 {
            first.rows[a].name.cmp(&first.rows[b].name)
        } else {
            let value = |i: usize| keys[i].get(column).copied().flatten();
            match (value(a), value(b)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => return std::cmp::Ordering::Less,
                (None, Some(_)) => return std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        };
        if descending { by.reverse() } else { by }
    });
    order
}

/// Per row, the value behind each cell of [`report_table`]'s text form (`None` for the name
/// and for missing values), column for column.
fn report_keys(r: &CompareReport) -> Vec<Vec<Option<f64>>> {
    let Some(first) = r.comparisons.first() else {
        return Vec::new();
    };
    let seeded = first.rows.iter().any(|row| row.n_seeds > 1);
    (0..first.rows.len())
        .map(|i| {
            let row = &first.rows[i];
            let mut keys = vec![None, Some(row.collision_rate), Some(row.g_max as f64)];
            if seeded {
                keys.push(Some(row.n_seeds as f64));
            }
            for (ci, c) in r.comparisons.iter().enumerate() {
                let row = &c.rows[i];
                keys.extend(Metric::COMPARED.map(|m| row.values.map(|v| pick(&v, m))));
                keys.push(row.values.and(row.inflation_pct));
                if r.decode != Decode::Cce {
                    let decoded = decoded_of(r, ci, i);
                    keys.push(decoded.map(|d| d.hit));
                    keys.push(decoded_recovered(row.values, decoded));
                }
                keys.push(row.rank_hit.map(|x| x as f64));
                keys.push(row.rank_item_hit.map(|x| x as f64));
            }
            keys
        })
        .collect()
}

/// Marks a value that differs significantly from the best of its column.
pub const MARK: &str = "†";

/// Every K of a [`CompareReport`] in one table. `raw` writes plain numbers for CSV (rates as
/// fractions, inflation in percent, standard deviations in their own columns, no marks) with
/// the unit in the header; otherwise cells read `0.0854 ± 0.0011†`.
pub fn report_table(r: &CompareReport, raw: bool) -> Table {
    let Some(first) = r.comparisons.first() else {
        return Table::default();
    };
    let seeded = first.rows.iter().any(|row| row.n_seeds > 1);
    let mut columns: Vec<(String, Align)> = vec![
        ("tokenizer".into(), Align::Left),
        (
            if raw {
                "collision_rate (fraction)"
            } else {
                "collision rate"
            }
            .into(),
            Align::Right,
        ),
        ("g_max".into(), Align::Right),
    ];
    if seeded {
        columns.push(("seeds".into(), Align::Right));
    }
    for c in &r.comparisons {
        for m in Metric::COMPARED {
            columns.push((m.at(c.k), Align::Right));
            if raw && seeded {
                columns.push((format!("{} std", m.at(c.k)), Align::Right));
            }
        }
        let inflation = if raw {
            format!("Hit@{} inflation (%)", c.k)
        } else {
            format!("inflation@{}", c.k)
        };
        columns.push((inflation, Align::Right));
        if r.decode != Decode::Cce {
            let (hit, recovered) = if raw {
                (
                    format!("DecodedHit@{} ({})", c.k, r.decode),
                    format!("Hit@{} inflation recovered (%)", c.k),
                )
            } else {
                (
                    format!("{} Hit@{}", r.decode, c.k),
                    format!("recovered@{}", c.k),
                )
            };
            columns.push((hit, Align::Right));
            columns.push((recovered, Align::Right));
        }
        columns.push((format!("rank Hit@{}", c.k), Align::Right));
        columns.push((format!("rank ItemHit@{}", c.k), Align::Right));
    }
    let refs: Vec<(&str, Align)> = columns.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut t = Table::new(&refs);
    // CSV leaves a missing value's cell empty, as every other table's CSV does.
    let missing = if raw { "" } else { MISSING };
    let number = |v: f64| if raw { v.to_string() } else { metric(v) };
    for (i, row) in first.rows.iter().enumerate() {
        let mut cells = vec![
            row.name.clone(),
            if raw {
                row.collision_rate.to_string()
            } else {
                percent(row.collision_rate)
            },
            row.g_max.to_string(),
        ];
        if seeded {
            cells.push(row.n_seeds.to_string());
        }
        for (ci, c) in r.comparisons.iter().enumerate() {
            let row = &c.rows[i];
            for m in Metric::COMPARED {
                let value = row.values.map(|v| pick(&v, m));
                let std = row.std.map(|v| pick(&v, m));
                match (value, raw) {
                    (None, _) => {
                        cells.push(missing.into());
                        if raw && seeded {
                            cells.push(missing.into());
                        }
                    }
                    (Some(v), true) => {
                        cells.push(number(v));
                        if seeded {
                            cells.push(std.map_or(missing.into(), number));
                        }
                    }
                    (Some(v), false) => {
                        let mut cell = metric(v);
                        if let Some(s) = std {
                            cell.push_str(&format!(" ± {}", metric(s)));
                        }
                        if differs_from_best(r, c, i, m) {
                            cell.push_str(MARK);
                        }
                        cells.push(cell);
                    }
                }
            }
            cells.push(match (row.values, raw) {
                (None, _) => missing.into(),
                (Some(_), true) => row.inflation_pct.map_or(missing.into(), |p| p.to_string()),
                (Some(_), false) => signed_percent(row.inflation_pct),
            });
            if r.decode != Decode::Cce {
                let decoded = decoded_of(r, ci, i);
                let recovered = decoded_recovered(row.values, decoded);
                match (decoded, raw) {
                    (None, _) => cells.extend([missing.into(), missing.into()]),
                    (Some(d), true) => {
                        cells.push(d.hit.to_string());
                        cells.push(recovered.map_or(missing.into(), |p| p.to_string()));
                    }
                    (Some(d), false) => {
                        cells.push(metric(d.hit));
                        cells.push(recovered.map_or(missing.into(), |p| format!("{p:.1}%")));
                    }
                }
            }
            let rank = |v: Option<usize>| v.map_or(missing.to_string(), |r| r.to_string());
            cells.push(rank(row.rank_hit));
            cells.push(rank(row.rank_item_hit));
        }
        t.push(cells);
    }
    t
}

/// The decoded credit of tokenizer `row` at comparison `c`.
fn decoded_of(r: &CompareReport, c: usize, row: usize) -> Option<DecodedValues> {
    r.decoded.get(c)?.get(row).copied().flatten()
}

/// Share of the Hit inflation the decoding recovers, in percent.
fn decoded_recovered(values: Option<MetricValues>, decoded: Option<DecodedValues>) -> Option<f64> {
    let (v, d) = (values?, decoded?);
    recovered_pct(v.hit, v.item_hit, d.hit)
}

fn pick(v: &MetricValues, m: Metric) -> f64 {
    match m {
        Metric::Hit => v.hit,
        Metric::Ndcg => v.ndcg,
        Metric::Mrr => v.mrr,
        Metric::ItemHit => v.item_hit,
        Metric::ItemNdcg => v.item_ndcg,
        Metric::ItemMrr => v.item_mrr,
    }
}

/// Row `i` is not the best of its column on `m` and its test against the best is significant.
fn differs_from_best(r: &CompareReport, c: &Comparison, i: usize, m: Metric) -> bool {
    let values: Vec<Option<f64>> = c
        .rows
        .iter()
        .map(|row| row.values.map(|v| pick(&v, m)))
        .collect();
    let best = (0..values.len())
        .filter(|&j| values[j].is_some())
        .max_by(|&a, &b| values[a].unwrap().total_cmp(&values[b].unwrap()));
    match best {
        Some(b) if b != i && values[i].is_some() && values[i] != values[b] => {
            find(&r.tests, &c.rows[i].name, &c.rows[b].name, &m.at(c.k))
                .is_some_and(|t| t.significant)
        }
        _ => false,
    }
}

/// What the mark means, for the line under a table (`None` without tests).
pub fn mark_legend(r: &CompareReport) -> Option<String> {
    let s = r.settings.filter(|_| !r.tests.is_empty())?;
    Some(format!(
        "{MARK} differs from the best value of its column (paired t-test, {} p < {})",
        correction_label(s.correction),
        s.alpha
    ))
}

fn correction_label(c: Correction) -> &'static str {
    match c {
        Correction::Holm => "Holm-adjusted",
        Correction::Bonferroni => "Bonferroni-adjusted",
        Correction::None => "unadjusted",
    }
}

/// One sentence per flip at every K, by Hit and by NDCG, saying whether the item-level order
/// is significant when tests ran.
pub fn report_flip_lines(r: &CompareReport) -> Vec<String> {
    let mut lines = Vec::new();
    let verdict = |a: &str, b: &str, metric: String| -> String {
        match (r.settings, find(&r.tests, a, b, &metric)) {
            (Some(s), Some(t)) => format!(
                " — {} ({metric}: {} p = {})",
                if t.significant {
                    "significant"
                } else {
                    "not significant"
                },
                correction_label(s.correction),
                p_value(t.p_adjusted)
            ),
            _ => String::new(),
        }
    };
    for c in &r.comparisons {
        let k = c.k;
        let beyond = beyond_mark(c);
        for f in &c.flips {
            lines.push(format!(
                "{} ranks above {} by Hit@{k} but below it by ItemHit@{k}{beyond}{}",
                f.higher_by_hit,
                f.higher_by_item_hit,
                verdict(
                    &f.higher_by_hit,
                    &f.higher_by_item_hit,
                    Metric::ItemHit.at(k)
                )
            ));
        }
        for f in &c.ndcg_flips {
            lines.push(format!(
                "{} ranks above {} by NDCG@{k} but below it by ItemNDCG@{k}{beyond}{}",
                f.higher_by_ndcg,
                f.higher_by_item_ndcg,
                verdict(
                    &f.higher_by_ndcg,
                    &f.higher_by_item_ndcg,
                    Metric::ItemNdcg.at(k)
                )
            ));
        }
    }
    lines
}

/// A p-value in 3 significant digits (`1.0` and `2.1e-10` alike).
pub fn p_value(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.2e}")
    }
}

/// Tokenizer `row`'s decoded credit at every K, or `None` with `cce` or without beams.
fn decoded_map(r: &CompareReport, row: usize) -> Option<MetricMap> {
    let values: Vec<DecodedValues> = (0..r.comparisons.len())
        .map(|c| decoded_of(r, c, row))
        .collect::<Option<_>>()?;
    let mut entries = Vec::new();
    for slot in 0..DecodedValues::default().named().len() {
        for (c, v) in r.comparisons.iter().zip(&values) {
            let (name, value) = v.named()[slot];
            entries.push((format!("{name}@{}", c.k), Some(value)));
        }
    }
    Some(MetricMap(entries))
}

/// The `sidlens compare --json` document for several K, seeds and tests.
#[derive(Serialize)]
pub struct CompareReportJson<'a> {
    /// The first cut-off (what `rank_hit` and `rank_item_hit` refer to).
    pub k: usize,
    /// Every cut-off.
    pub ks: Vec<usize>,
    /// `faithful` or `cce-py`.
    pub compat: Compat,
    /// The alternative item-level credit beside CCE: `cce` (none), `popular` or `random:SEED`.
    pub decode: Decode,
    /// One object per tokenizer.
    pub rows: Vec<ReportRowJson<'a>>,
    /// Pairs ranked in opposite orders by Hit@K and ItemHit@K, at every K.
    pub flips: Vec<FlipJson<'a>>,
    /// Pairs ranked in opposite orders by NDCG@K and ItemNDCG@K, at every K.
    pub ndcg_flips: Vec<NdcgFlipJson<'a>>,
    /// `holm`, `bonferroni` or `none` (null without tests).
    pub correction: Option<Correction>,
    /// The significance level (null without tests).
    pub alpha: Option<f64>,
    /// The p-value the correction adjusts.
    pub p_adjusted_from: &'static str,
    /// Every pair on Hit, NDCG, ItemHit and ItemNDCG at every K.
    pub tests: &'a [PairTest],
    /// The cut-offs beyond some tokenizer's beam width, where ranks are not comparable.
    pub k_beyond_beam_width: Vec<usize>,
    /// What a reader must know beside the numbers, as every surface words it.
    pub warnings: &'a [String],
}

/// One tokenizer in `compare --json`.
#[derive(Serialize)]
pub struct ReportRowJson<'a> {
    /// The tokenizer's name.
    pub name: &'a str,
    /// Items in collision groups / items.
    pub collision_rate: f64,
    /// The largest collision group.
    pub g_max: usize,
    /// Users evaluated, or null without beams.
    pub n_users: Option<u64>,
    /// Beams files (seeds) evaluated.
    pub n_seeds: usize,
    /// The longest beam list, or null without beams.
    pub beam_width: Option<usize>,
    /// Means over seeds, `"Hit@K"` … `"ItemMRR@K"` for every K, or null without beams.
    pub metrics: Option<MetricMap>,
    /// Sample standard deviations over seeds (ddof = 1), or null with fewer than two seeds.
    pub metrics_std: Option<MetricMap>,
    /// `"Hit@K"`: (Hit − ItemHit) / ItemHit · 100 for every K.
    pub inflation_pct: MetricMap,
    /// With `--decode popular|random:SEED`: `"DecodedHit@K"`, `"DecodedNDCG@K"`,
    /// `"DecodedMRR@K"` for every K (means over seeds); null with `cce` or without beams.
    pub decoded: Option<MetricMap>,
    /// With a decoding: `"Hit@K"`: (DecodedHit − ItemHit) / (Hit − ItemHit) · 100, the share
    /// of the inflation the decoding recovers (null without inflation); null with `cce`.
    pub decoded_recovered_pct: Option<MetricMap>,
    /// Rank by Hit at the first K (1 = best), or null.
    pub rank_hit: Option<usize>,
    /// Rank by ItemHit at the first K, or null.
    pub rank_item_hit: Option<usize>,
    /// `"Hit@K"` and `"ItemHit@K"` ranks for every K (null without beams).
    pub ranks: serde_json::Map<String, serde_json::Value>,
}

/// A Hit flip at one K in `compare --json`.
#[derive(Serialize)]
pub struct FlipJson<'a> {
    /// The cut-off.
    pub k: usize,
    /// The flip.
    #[serde(flatten)]
    pub flip: &'a Flip,
}

/// An NDCG flip at one K in `compare --json`.
#[derive(Serialize)]
pub struct NdcgFlipJson<'a> {
    /// The cut-off.
    pub k: usize,
    /// The flip.
    #[serde(flatten)]
    pub flip: &'a NdcgFlip,
}

impl<'a> CompareReportJson<'a> {
    /// Builds the document.
    pub fn new(r: &'a CompareReport) -> Self {
        let first = &r.comparisons[0];
        let map = |i: usize, f: &dyn Fn(&Row) -> Option<MetricValues>| -> Option<MetricMap> {
            let mut entries = Vec::new();
            for slot in 0..MetricValues::default().named().len() {
                for c in &r.comparisons {
                    let (name, value) = f(&c.rows[i])?.named()[slot];
                    entries.push((format!("{name}@{}", c.k), Some(value)));
                }
            }
            Some(MetricMap(entries))
        };
        let rows = first
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| ReportRowJson {
                name: &row.name,
                collision_rate: row.collision_rate,
                g_max: row.g_max,
                n_users: row.n_users,
                n_seeds: row.n_seeds,
                beam_width: (row.beam_width > 0).then_some(row.beam_width),
                metrics: map(i, &|row| row.values),
                metrics_std: map(i, &|row| row.std),
                inflation_pct: MetricMap(
                    r.comparisons
                        .iter()
                        .map(|c| (format!("Hit@{}", c.k), c.rows[i].inflation_pct))
                        .collect(),
                ),
                decoded: decoded_map(r, i),
                decoded_recovered_pct: (r.decode != Decode::Cce).then(|| {
                    MetricMap(
                        r.comparisons
                            .iter()
                            .enumerate()
                            .map(|(ci, c)| {
                                (
                                    format!("Hit@{}", c.k),
                                    decoded_recovered(c.rows[i].values, decoded_of(r, ci, i)),
                                )
                            })
                            .collect(),
                    )
                }),
                rank_hit: row.rank_hit,
                rank_item_hit: row.rank_item_hit,
                ranks: r
                    .comparisons
                    .iter()
                    .flat_map(|c| {
                        let rr = &c.rows[i];
                        [
                            (format!("Hit@{}", c.k), rr.rank_hit.into()),
                            (format!("ItemHit@{}", c.k), rr.rank_item_hit.into()),
                        ]
                    })
                    .collect(),
            })
            .collect();
        CompareReportJson {
            k: first.k,
            ks: r.comparisons.iter().map(|c| c.k).collect(),
            compat: first.compat,
            decode: r.decode,
            rows,
            flips: r
                .comparisons
                .iter()
                .flat_map(|c| c.flips.iter().map(|flip| FlipJson { k: c.k, flip }))
                .collect(),
            ndcg_flips: r
                .comparisons
                .iter()
                .flat_map(|c| {
                    c.ndcg_flips
                        .iter()
                        .map(|flip| NdcgFlipJson { k: c.k, flip })
                })
                .collect(),
            k_beyond_beam_width: r
                .comparisons
                .iter()
                .filter(|c| c.beyond_beam_width())
                .map(|c| c.k)
                .collect(),
            warnings: &r.warnings,
            correction: r.settings.map(|s| s.correction),
            alpha: r.settings.map(|s| s.alpha),
            p_adjusted_from: "p_t",
            tests: &r.tests,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::TokenizerFiles;
    use crate::progress::NoProgress;
    use crate::usecase::compare_tokenizers_decoded;

    #[test]
    fn sort_keys_line_up_with_every_column_of_the_text_table() {
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo_data/indexes");
        let run = |v: &str, seeds: usize| TokenizerFiles {
            beams: vec![demo.join(format!("{v}/{v}.per_user.json")); seeds],
            ..TokenizerFiles::index_only(v, demo.join(format!("{v}/Workshop.index.json")))
        };
        let runs = [
            run("rkmeans_v32_native", 2),
            run("rkmeans_v64_zcr", 1),
            run("rkmeans_v64_native", 0),
        ];
        let report = compare_tokenizers_decoded(
            &runs,
            &[5, 10],
            Compat::Faithful,
            None,
            None,
            (Decode::Random { seed: 1 }, None),
            &NoProgress,
        )
        .unwrap();
        let table = report_table(&report, false);
        let keys = report_keys(&report);
        assert_eq!(keys.len(), table.rows.len());
        for (row, k) in table.rows.iter().zip(&keys) {
            assert_eq!(k.len(), table.headers.len(), "{:?}", table.headers);
            // A missing value is a missing key; every shown number has its key.
            for (cell, key) in row.iter().zip(k).skip(1) {
                assert_eq!(cell == MISSING, key.is_none(), "{cell}");
            }
        }
        let item_hit = table
            .headers
            .iter()
            .position(|h| h == "ItemHit@10")
            .unwrap();
        let order = report_order_by(&report, item_hit, true);
        let names: Vec<&str> = order
            .iter()
            .map(|&i| report.comparisons[0].rows[i].name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "rkmeans_v64_zcr",
                "rkmeans_v32_native",
                "rkmeans_v64_native"
            ]
        );
    }
}
