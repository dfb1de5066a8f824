//! Reassignment reports: the ZCR-vs-greedy summary, one row per prefix group with who keeps
//! which code, and the skipped groups. `sidlens zcr` and the TUI's reassignment table both
//! build their rows here, so they agree.

use serde::Serialize;

use super::{Align, Table, metric, on_first_line, raw};
use crate::load::{ItemTexts, SidIndex};
use crate::reassign::over_capacity::{OverCapacity, TwoLevelPart};
use crate::reassign::{Mode, ModeTotals, Plan, SkipReason, Summary};
use crate::sid::{self, Code};

/// One prefix group with a collision, as listed to a user.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReassignRow {
    /// The shared first L−1 codes.
    pub prefix: Vec<Code>,
    /// The prefix as tokens, `<a_127><b_244><c_179>`.
    pub prefix_sid: String,
    /// Items in the group.
    pub size: usize,
    /// The fewest changes that make the group collision-free.
    pub min_changes: usize,
    /// Total ΔD of ZCR in this group (null without vectors).
    pub optimal_total: Option<f64>,
    /// Total ΔD of greedy in this group (null without vectors).
    pub greedy_total: Option<f64>,
    /// Total ΔD of MQL4GRec's exact rule over this group's items (null when it did not run).
    pub mql4grec_total: Option<f64>,
    /// The items, in id order.
    pub items: Vec<ReassignItem>,
    /// Index of the group in [`Plan::groups`], for front ends that drill down.
    #[serde(skip)]
    pub group: usize,
}

/// One item of a reassigned group: its native code and where each method puts it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReassignItem {
    /// Item id.
    pub id: String,
    /// Title from the item metadata, when loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The native last code.
    pub native: Code,
    /// ZCR's code (equal to `native` when the item keeps it).
    pub optimal: Option<Code>,
    /// ZCR's ΔD for this item.
    pub optimal_delta: Option<f64>,
    /// Greedy's code.
    pub greedy: Option<Code>,
    /// Greedy's ΔD for this item.
    pub greedy_delta: Option<f64>,
    /// MQL4GRec's exact rule: the item's new last code.
    pub mql4grec: Option<Code>,
    /// MQL4GRec's new first L−1 codes, when they differ from the group's prefix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mql4grec_prefix: Option<Vec<Code>>,
    /// MQL4GRec's ΔD for this item.
    pub mql4grec_delta: Option<f64>,
}

impl ReassignItem {
    /// Whether `mode` lets this item keep its native code (`None` without vectors).
    pub fn keeps(&self, mode: Mode) -> Option<bool> {
        let code = match mode {
            Mode::Optimal => self.optimal,
            Mode::Greedy => self.greedy,
            Mode::Mql4grec => self.mql4grec.filter(|_| self.mql4grec_prefix.is_none()),
        };
        match (mode, code) {
            (Mode::Mql4grec, None) if self.mql4grec.is_some() => Some(false),
            _ => code.map(|c| c == self.native),
        }
    }
}

/// A group left unchanged, as listed to a user.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SkippedRow {
    /// The shared first L−1 codes.
    pub prefix: Vec<Code>,
    /// The prefix as tokens.
    pub prefix_sid: String,
    /// Items in the group.
    pub size: usize,
    /// Distinct last codes among them.
    pub n_distinct_native: usize,
    /// Why the group is left unchanged (machine-readable).
    #[serde(flatten)]
    pub reason: SkipReason,
    /// The same in words.
    pub message: String,
    /// Item ids, in id order.
    pub items: Vec<String>,
}

/// One row per prefix group of `plan`, in prefix order.
pub fn group_rows(index: &SidIndex, plan: &Plan, texts: Option<&ItemTexts>) -> Vec<ReassignRow> {
    plan.groups
        .iter()
        .enumerate()
        .map(|(n, g)| {
            let (opt, gre) = (g.optimal.as_ref(), g.greedy.as_ref());
            let mql4grec_total = plan
                .mql4grec
                .as_ref()
                .map(|r| g.items.iter().map(|&p| r.delta[p as usize]).sum());
            let items = g
                .items
                .iter()
                .enumerate()
                .map(|(k, &p)| {
                    let id = index.id(p as usize).to_string();
                    let mq = plan.mql4grec.as_ref().map(|r| r.codes_of(p as usize));
                    ReassignItem {
                        mql4grec: mq.map(|c| c[c.len() - 1]),
                        mql4grec_prefix: mq
                            .map(|c| &c[..c.len() - 1])
                            .filter(|c| *c != g.prefix.as_slice())
                            .map(<[Code]>::to_vec),
                        mql4grec_delta: plan.mql4grec.as_ref().map(|r| r.delta[p as usize]),
                        title: texts.and_then(|t| t.title(&id)).map(str::to_string),
                        id,
                        native: g.native[k],
                        optimal: opt.map(|a| a.codes[k]),
                        optimal_delta: opt.map(|a| a.delta[k]),
                        greedy: gre.map(|a| a.codes[k]),
                        greedy_delta: gre.map(|a| a.delta[k]),
                    }
                })
                .collect();
            ReassignRow {
                prefix: g.prefix.clone(),
                prefix_sid: sid::format_sid(&g.prefix),
                size: g.items.len(),
                min_changes: g.min_changes,
                optimal_total: opt.map(|a| a.total_delta),
                greedy_total: gre.map(|a| a.total_delta),
                mql4grec_total,
                items,
                group: n,
            }
        })
        .collect()
}

/// One row per skipped group of `plan`, in prefix order.
pub fn skipped_rows(index: &SidIndex, plan: &Plan) -> Vec<SkippedRow> {
    plan.skipped
        .iter()
        .map(|s| SkippedRow {
            prefix: s.prefix.clone(),
            prefix_sid: sid::format_sid(&s.prefix),
            size: s.items.len(),
            n_distinct_native: s.n_distinct_native,
            reason: s.reason,
            message: s.reason.describe(s.items.len()),
            items: s
                .items
                .iter()
                .map(|&p| index.id(p as usize).to_string())
                .collect(),
        })
        .collect()
}

/// ZCR next to greedy and MQL4GRec's exact rule: items reassigned, prefixes changed,
/// collisions left, total and mean ΔD.
pub fn summary_table(summary: &Summary) -> Table {
    summary_with(summary, false)
}

/// [`summary_table`] for CSV: ΔD unrounded, empty where undefined.
pub fn summary_csv_table(summary: &Summary) -> Table {
    summary_with(summary, true)
}

fn summary_with(summary: &Summary, as_csv: bool) -> Table {
    let mut columns = vec![
        (if as_csv { "quantity" } else { "" }, Align::Left),
        ("ZCR (optimal)", Align::Right),
        ("greedy", Align::Right),
    ];
    let mut modes = vec![summary.optimal, summary.greedy];
    if let Some(m) = summary.mql4grec {
        columns.push(("MQL4GRec (exact)", Align::Right));
        modes.push(m);
    }
    let over = summary.over_capacity.as_ref().map(|o| {
        let base = match o.base_mode {
            Mode::Greedy => "greedy",
            _ => "ZCR",
        };
        let policy = match o.policy {
            OverCapacity::Keep => "keep",
            OverCapacity::Append => "append",
            OverCapacity::TwoLevel => "two-level",
        };
        format!("{base} + {policy}")
    });
    if let (Some(o), Some(label)) = (&summary.over_capacity, &over) {
        columns.push((label.as_str(), Align::Right));
        modes.push(o.totals);
    }
    let mut t = Table::new(&columns);
    let mut row = |label: &str, cell: &dyn Fn(&ModeTotals) -> String| {
        t.push(
            std::iter::once(label.to_string())
                .chain(modes.iter().map(cell))
                .collect(),
        );
    };
    let opt_cell = |v: Option<f64>| {
        if as_csv {
            raw(v)
        } else {
            v.map_or_else(|| "n/a".to_string(), metric)
        }
    };
    row("items reassigned", &|m| m.n_reassigned.to_string());
    row("prefixes changed", &|m| m.prefixes_changed.to_string());
    row("items in collision after", &|m| {
        m.items_in_collision_after.to_string()
    });
    row("items beyond one per SID after", &|m| {
        m.duplicates_after.to_string()
    });
    row("total ΔD", &|m| opt_cell(m.total_delta));
    row("mean ΔD per moved item", &|m| {
        opt_cell(
            m.total_delta
                .filter(|_| m.n_reassigned > 0)
                .map(|d| d / m.n_reassigned as f64),
        )
    });
    t
}

/// The facts around the totals: groups resolved and skipped, codebook, reduction.
pub fn overview_table(summary: &Summary) -> Table {
    let mut t = Table::new(&[("", Align::Left), ("value", Align::Left)]);
    let mut row = |k: &str, v: String| t.push(vec![k.to_string(), v]);
    row(
        "prefix groups with collisions",
        summary.n_prefix_groups_with_collisions.to_string(),
    );
    row("resolved", summary.n_groups_resolved.to_string());
    row(
        "skipped (over capacity)",
        summary.skipped_over_capacity.to_string(),
    );
    if summary.skipped_too_few_codes > 0 {
        row(
            "skipped (too few codes with a codeword)",
            summary.skipped_too_few_codes.to_string(),
        );
    }
    row("codebook size V", summary.codebook_size.to_string());
    let codebook = if !summary.with_vectors {
        "none (no vectors: ΔD unknown)".to_string()
    } else if summary.codebook_estimated && summary.unavailable_codes > 0 {
        format!(
            "estimated from latents; {} unused last-level codes have no codeword and are never given",
            summary.unavailable_codes
        )
    } else if summary.codebook_estimated {
        "estimated from latents (mean residual per code)".to_string()
    } else {
        "given".to_string()
    };
    row("codebook", codebook);
    row(
        "ΔD reduction vs greedy",
        summary
            .reduction_pct
            .map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}%")),
    );
    t
}

/// The per-group table: one line per item with who keeps its code under ZCR and greedy,
/// then a line with the group totals. Without vectors: items and native codes only.
pub fn groups_table(rows: &[ReassignRow]) -> Table {
    let with_vectors = rows.first().is_some_and(|r| r.optimal_total.is_some());
    let with_mql4grec = rows.first().is_some_and(|r| r.mql4grec_total.is_some());
    let mut columns = vec![
        ("prefix", Align::Left),
        ("size", Align::Right),
        ("item", Align::Right),
        ("native", Align::Right),
    ];
    if with_vectors {
        columns.extend([
            ("ZCR", Align::Left),
            ("ΔD ZCR", Align::Right),
            ("greedy", Align::Left),
            ("ΔD greedy", Align::Right),
        ]);
        if with_mql4grec {
            columns.extend([("MQL4GRec", Align::Left), ("ΔD MQL4GRec", Align::Right)]);
        }
    } else {
        columns.push(("min changes", Align::Right));
    }
    let mut t = Table::new(&columns);
    for row in rows {
        for (k, item) in row.items.iter().enumerate() {
            let first = k == 0;
            let mut cells = vec![
                on_first_line(first, row.prefix_sid.clone()),
                on_first_line(first, row.size.to_string()),
                item.id.clone(),
                item.native.to_string(),
            ];
            if with_vectors {
                cells.extend([
                    code_cell(item.native, item.optimal),
                    item.optimal_delta.map_or_else(String::new, delta_cell),
                    code_cell(item.native, item.greedy),
                    item.greedy_delta.map_or_else(String::new, delta_cell),
                ]);
                if with_mql4grec {
                    cells.extend([
                        mql4grec_cell(item),
                        item.mql4grec_delta.map_or_else(String::new, delta_cell),
                    ]);
                }
            } else {
                cells.push(on_first_line(first, row.min_changes.to_string()));
            }
            t.push(cells);
        }
        if with_vectors {
            let mut cells = vec![
                String::new(),
                String::new(),
                "total".to_string(),
                String::new(),
                format!("{} moved", row.min_changes),
                row.optimal_total.map_or_else(String::new, delta_cell),
                format!("{} moved", row.min_changes),
                row.greedy_total.map_or_else(String::new, delta_cell),
            ];
            if with_mql4grec {
                let moved = row
                    .items
                    .iter()
                    .filter(|i| i.keeps(Mode::Mql4grec) == Some(false))
                    .count();
                cells.extend([
                    format!("{moved} moved"),
                    row.mql4grec_total.map_or_else(String::new, delta_cell),
                ]);
            }
            t.push(cells);
        }
    }
    t
}

/// The per-group table for CSV: one line per item with its group's prefix, size and fewest
/// changes on every line, each method's new last code and ΔD (empty without vectors).
pub fn groups_csv_table(rows: &[ReassignRow]) -> Table {
    let mut t = Table::new(&[
        ("prefix", Align::Left),
        ("size", Align::Right),
        ("min changes", Align::Right),
        ("item", Align::Right),
        ("native", Align::Right),
        ("ZCR", Align::Right),
        ("ΔD ZCR", Align::Right),
        ("greedy", Align::Right),
        ("ΔD greedy", Align::Right),
        ("MQL4GRec", Align::Right),
        ("MQL4GRec prefix", Align::Left),
        ("ΔD MQL4GRec", Align::Right),
    ]);
    let code = |c: Option<Code>| c.map_or_else(String::new, |c| c.to_string());
    for row in rows {
        for item in &row.items {
            t.push(vec![
                row.prefix_sid.clone(),
                row.size.to_string(),
                row.min_changes.to_string(),
                item.id.clone(),
                item.native.to_string(),
                code(item.optimal),
                raw(item.optimal_delta),
                code(item.greedy),
                raw(item.greedy_delta),
                code(item.mql4grec),
                item.mql4grec_prefix
                    .as_deref()
                    .map_or_else(String::new, sid::format_sid),
                raw(item.mql4grec_delta),
            ]);
        }
    }
    t
}

/// What `--over-capacity two-level` did per (L−2)-prefix: movers, room, resolved, the rest.
pub fn two_level_table(parts: &[TwoLevelPart]) -> Table {
    let mut t = Table::new(&[
        ("(L−2)-prefix", Align::Left),
        ("groups over V", Align::Right),
        ("must move", Align::Right),
        ("free pairs", Align::Right),
        ("moved", Align::Right),
        ("left in collision", Align::Right),
        ("problem", Align::Right),
    ]);
    for p in parts {
        let prefix = if p.prefix.is_empty() {
            "(none, L = 2)".to_string()
        } else {
            sid::format_sid(&p.prefix)
        };
        t.push(vec![
            prefix,
            p.n_groups.to_string(),
            p.movers.to_string(),
            p.free_pairs.to_string(),
            p.resolved.to_string(),
            p.unresolved.to_string(),
            format!("{}×{}", p.problem[0], p.problem[1]),
        ]);
    }
    t
}

/// The skipped groups: prefix, size, distinct codes, reason.
pub fn skipped_table(rows: &[SkippedRow]) -> Table {
    let mut t = Table::new(&[
        ("prefix", Align::Left),
        ("size", Align::Right),
        ("distinct codes", Align::Right),
        ("left unchanged because", Align::Left),
    ]);
    for r in rows {
        t.push(vec![
            r.prefix_sid.clone(),
            r.size.to_string(),
            r.n_distinct_native.to_string(),
            r.message.clone(),
        ]);
    }
    t
}

/// `keeps 206` when the item keeps its code, `→ 111` when it moves.
fn code_cell(native: Code, new: Option<Code>) -> String {
    match new {
        Some(c) if c == native => format!("keeps {c}"),
        Some(c) => format!("→ {c}"),
        None => String::new(),
    }
}

/// MQL4GRec's code: like [`code_cell`], with the whole SID when its prefix moved.
fn mql4grec_cell(item: &ReassignItem) -> String {
    match (&item.mql4grec_prefix, item.mql4grec) {
        (Some(prefix), Some(c)) => {
            let mut codes = prefix.clone();
            codes.push(c);
            format!("→ {}", sid::format_sid(&codes))
        }
        _ => code_cell(item.native, item.mql4grec),
    }
}

/// A ΔD with 6 decimals (per-item differences are small).
fn delta_cell(v: f64) -> String {
    format!("{v:.6}")
}

/// What `sidlens zcr --json` prints: the contract totals, the skipped groups, and optional extras.
#[derive(Serialize)]
pub struct ZcrJson<'a> {
    /// The totals (the `sidlens zcr --json` contract keys).
    #[serde(flatten)]
    pub summary: &'a Summary,
    /// Prefix groups left unchanged, and why.
    pub skipped_groups: Vec<SkippedRow>,
    /// Every prefix group's reassignment, with `--groups`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<ReassignRow>>,
    /// The files `--out` wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<ZcrWritten>,
    /// Share of items whose latents' nearest last codeword is the index's last code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latent_agreement: Option<f64>,
    /// Numbers that can mislead, in words (costs priced in another space).
    pub warnings: Vec<String>,
}

/// The files `--out` wrote.
#[derive(Serialize)]
pub struct ZcrWritten {
    /// The reassigned index.
    pub index: String,
    /// Its provenance sidecar.
    pub sidecar: String,
    /// The paper's `<DS>.zcr_provenance.json` and `<DS>.stats.json`.
    pub paper_sidecars: [String; 2],
    /// Which assignment it holds.
    pub mode: Mode,
    /// The token scheme the index is written in (the input's).
    pub sid_format: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::Collisions;
    use crate::load::{Codebooks, Latents};
    use crate::progress::NoProgress;
    use crate::reassign::{CostModel, plan};
    use crate::report::format::text;
    use ndarray::{Array2, Array3};
    use std::path::Path;

    /// Items 14 and 194 share code 2; 14 is nearer code 1, 194 sits on code 2.
    fn fixture() -> (SidIndex, Plan) {
        let index = SidIndex::parse(
            br#"{"14": [3, 2], "194": [3, 2], "7": [3, 0], "8": [1, 1]}"#,
            Path::new("i.json"),
            Some(4),
        )
        .unwrap();
        let mut lat = Array2::<f64>::zeros((195, 1));
        lat[[14, 0]] = 1.2;
        lat[[194, 0]] = 2.0;
        let latents = Latents::from_f64(Path::new("l.npy"), lat).unwrap();
        let mut cb = Array3::<f64>::zeros((2, 4, 1));
        for c in 0..4 {
            cb[[1, c, 0]] = c as f64;
        }
        let cb = Codebooks::from_array(Path::new("c.npy"), cb).unwrap();
        let cost = CostModel::from_codebooks(&index, latents, &cb).unwrap();
        let c = Collisions::new(&index);
        let plan = plan(&index, &c, Some(&cost), &NoProgress).unwrap();
        (index, plan)
    }

    #[test]
    fn rows_show_who_keeps_which_code() {
        let (index, plan) = fixture();
        let rows = group_rows(&index, &plan, None);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(
            (r.prefix_sid.as_str(), r.size, r.min_changes),
            ("<a_3>", 3, 1)
        );
        let ids: Vec<&str> = r.items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["7", "14", "194"]);
        assert_eq!(r.items[1].optimal, Some(1));
        assert_eq!(r.items[2].keeps(Mode::Optimal), Some(true));
        assert!((r.items[1].optimal_delta.unwrap() - (0.04 - 0.64)).abs() < 1e-12);
        insta::assert_snapshot!("reassign_groups_table", text::render(&groups_table(&rows)));
        insta::assert_snapshot!(
            "reassign_summary_table",
            text::render(&summary_table(&plan.summary))
        );
    }
}
