//! `sidlens diff` as tables: what changed between two indexes of the same items.

use super::{Align, Table, percent};
use crate::diff::IndexDiff;
use crate::sid;

/// The diff's totals: changed codes, collision rates before and after, and whether the
/// second index is a valid zero-collision reassignment of the first.
pub fn summary_table(d: &IndexDiff) -> Table {
    let mut t = Table::new(&[("", Align::Left), ("value", Align::Right)]);
    let mut row = |k: &str, v: String| t.push(vec![k.to_string(), v]);
    row("items", d.n_items.to_string());
    row("prefix changed", d.prefix_changed.to_string());
    row("last code changed", d.last_changed.to_string());
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
