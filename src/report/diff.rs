//! `sidlens diff` as tables: what changed between two indexes of the same items.

use super::{Align, Table, metric, percent, raw};
use crate::reassign::diff::IndexDiff;
use crate::sid;

/// The diff's totals: changed codes, collision rates before and after, and whether the
/// second index is a valid zero-collision reassignment of the first.
pub fn summary_table(d: &IndexDiff) -> Table {
    let mut t = Table::new(&[("", Align::Left), ("value", Align::Right)]);
    let mut row = |k: &str, v: String| t.push(vec![k.to_string(), v]);
    row("items", d.n_items.to_string());
    row("prefix changed", d.prefix_changed.to_string());
    row("last code changed", d.last_changed.to_string());
    if d.levels_added > 0 {
        row("levels added", d.levels_added.to_string());
    }
    row("collision rate before", percent(d.collision_rate_before));
    row("collision rate after", percent(d.collision_rate_after));
    row(
        "fewest changes for zero collisions",
        d.min_changes.to_string(),
    );
    if d.base_over_capacity > 0 {
        row(
            "base prefix groups larger than V",
            d.base_over_capacity.to_string(),
        );
    }
    row(
        "valid zero-collision reassignment",
        if d.valid_zcr { "yes" } else { "no" }.to_string(),
    );
    if let Some(delta) = d.delta_d {
        row("total ΔD", metric(delta));
    }
    t
}

/// One row per OTHER index against the same BASE: changed codes per level, levels added,
/// collisions left, whether it is a valid ZCR, and ΔD when priced.
pub fn remedies_table(names: &[&str], diffs: &[IndexDiff]) -> Table {
    let n_levels = diffs.first().map_or(0, |d| d.changed_per_level.len());
    let priced = diffs.iter().any(|d| d.delta_d.is_some());
    let level_names: Vec<String> = (0..n_levels)
        .map(|l| format!("{} changed", sid::level_letter(l)))
        .collect();
    let mut columns = vec![("index", Align::Left), ("prefix changed", Align::Right)];
    columns.extend(level_names.iter().map(|n| (n.as_str(), Align::Right)));
    columns.extend([
        ("levels added", Align::Right),
        ("collision rate after", Align::Right),
        ("valid ZCR", Align::Left),
    ]);
    if priced {
        columns.push(("total ΔD", Align::Right));
    }
    let mut t = Table::new(&columns);
    for (name, d) in names.iter().zip(diffs) {
        let mut row = vec![name.to_string(), d.prefix_changed.to_string()];
        row.extend(d.changed_per_level.iter().map(usize::to_string));
        row.extend([
            d.levels_added.to_string(),
            percent(d.collision_rate_after),
            if d.valid_zcr { "yes" } else { "no" }.to_string(),
        ]);
        if priced {
            row.push(d.delta_d.map_or_else(|| "-".to_string(), metric));
        }
        t.push(row);
    }
    t
}

/// One row per OTHER index for CSV, with one OTHER as with several: every total of
/// [`summary_table`] and the changes per level, rates as fractions, ΔD empty when unpriced.
pub fn remedies_csv_table(names: &[&str], diffs: &[IndexDiff]) -> Table {
    let n_levels = diffs.first().map_or(0, |d| d.changed_per_level.len());
    let level_names: Vec<String> = (0..n_levels)
        .map(|l| format!("{} changed", sid::level_letter(l)))
        .collect();
    let mut columns = vec![
        ("index", Align::Left),
        ("items", Align::Right),
        ("prefix changed", Align::Right),
    ];
    columns.extend(level_names.iter().map(|n| (n.as_str(), Align::Right)));
    columns.extend([
        ("levels added", Align::Right),
        ("collision rate before (fraction)", Align::Right),
        ("collision rate after (fraction)", Align::Right),
        ("fewest changes for zero collisions", Align::Right),
        ("base prefix groups larger than V", Align::Right),
        ("valid ZCR", Align::Left),
        ("total ΔD", Align::Right),
    ]);
    let mut t = Table::new(&columns);
    for (name, d) in names.iter().zip(diffs) {
        let mut row = vec![
            name.to_string(),
            d.n_items.to_string(),
            d.prefix_changed.to_string(),
        ];
        row.extend(d.changed_per_level.iter().map(usize::to_string));
        row.extend([
            d.levels_added.to_string(),
            raw(Some(d.collision_rate_before)),
            raw(Some(d.collision_rate_after)),
            d.min_changes.to_string(),
            d.base_over_capacity.to_string(),
            d.valid_zcr.to_string(),
            raw(d.delta_d),
        ]);
        t.push(row);
    }
    t
}

/// The first `show` changed items, old SID and new.
pub fn changes_table(d: &IndexDiff, show: usize) -> Table {
    let mut t = Table::new(&[
        ("item", Align::Right),
        ("from", Align::Left),
        ("to", Align::Left),
    ]);
    for c in d.changes.iter().take(show) {
        t.push(vec![
            c.item.clone(),
            sid::format_sid(&c.from),
            sid::format_sid(&c.to),
        ]);
    }
    t
}
