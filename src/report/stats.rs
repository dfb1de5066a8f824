//! The `stats` report: an overview table and a per-level table.

use super::{Align, Table, percent, raw};
use crate::stats::IndexStats;

/// Overview of an index as (field, value) rows.
pub fn overview(s: &IndexStats) -> Table {
    let mut t = Table::new(&[("statistic", Align::Left), ("value", Align::Right)]);
    let v = if s.codebook_size_inferred {
        format!("{} (inferred)", s.codebook_size)
    } else {
        s.codebook_size.to_string()
    };
    let rows: Vec<(&str, String)> = vec![
        ("items", s.n_items.to_string()),
        ("levels (L)", s.n_levels.to_string()),
        ("codebook size (V)", v),
        ("unique SIDs", s.n_unique_sids.to_string()),
        ("collision groups", s.n_collision_groups.to_string()),
        ("items in collisions", s.items_in_collisions.to_string()),
        ("collision rate (paper)", percent(s.collision_rate)),
        ("duplicate rate (LETTER)", percent(s.duplicate_rate)),
        ("largest group (g_max)", s.g_max.to_string()),
        ("prefix groups", s.n_prefix_groups.to_string()),
        ("largest prefix group", s.max_prefix_group_size.to_string()),
        (
            "capacity (prefix group <= V)",
            if s.capacity_ok {
                "ok".to_string()
            } else {
                format!("{} groups over V", s.n_prefix_groups_over_capacity)
            },
        ),
    ];
    for (k, v) in rows {
        t.push(vec![k.to_string(), v]);
    }
    t
}

/// The overview for CSV: (statistic, value) rows of plain numbers, the unit in the name.
pub fn csv_overview(s: &IndexStats) -> Table {
    let mut t = Table::new(&[("statistic", Align::Left), ("value", Align::Right)]);
    let rows: Vec<(&str, String)> = vec![
        ("items", s.n_items.to_string()),
        ("levels (L)", s.n_levels.to_string()),
        ("codebook size (V)", s.codebook_size.to_string()),
        (
            "codebook size inferred",
            s.codebook_size_inferred.to_string(),
        ),
        ("unique SIDs", s.n_unique_sids.to_string()),
        ("collision groups", s.n_collision_groups.to_string()),
        ("items in collisions", s.items_in_collisions.to_string()),
        (
            "collision rate (paper, fraction)",
            raw(Some(s.collision_rate)),
        ),
        (
            "duplicate rate (LETTER, fraction)",
            raw(Some(s.duplicate_rate)),
        ),
        ("largest group (g_max)", s.g_max.to_string()),
        ("prefix groups", s.n_prefix_groups.to_string()),
        ("largest prefix group", s.max_prefix_group_size.to_string()),
        (
            "prefix groups over V",
            s.n_prefix_groups_over_capacity.to_string(),
        ),
    ];
    for (k, v) in rows {
        t.push(vec![k.to_string(), v]);
    }
    t
}

/// Per-level utilisation and prefix collisions.
pub fn levels(s: &IndexStats) -> Table {
    let mut t = Table::new(&[
        ("level", Align::Left),
        ("codes used", Align::Right),
        ("util", Align::Right),
        ("entropy (bits)", Align::Right),
        ("norm. entropy", Align::Right),
        ("gini", Align::Right),
        ("prefixes", Align::Right),
        ("prefix collision rate", Align::Right),
    ]);
    for l in &s.levels {
        t.push(vec![
            l.level.clone(),
            l.codes_used.to_string(),
            percent(l.utilisation),
            format!("{:.3}", l.entropy_bits),
            format!("{:.3}", l.normalized_entropy),
            format!("{:.3}", l.gini),
            l.distinct_prefixes.to_string(),
            percent(l.prefix_collision_rate),
        ]);
    }
    t
}

/// Group sizes and how many SIDs have each.
pub fn histogram(s: &IndexStats) -> Table {
    let mut t = Table::new(&[
        ("group size", Align::Right),
        ("SIDs", Align::Right),
        ("items", Align::Right),
    ]);
    for (&size, &count) in &s.group_size_histogram {
        t.push(vec![
            size.to_string(),
            count.to_string(),
            (size * count).to_string(),
        ]);
    }
    t
}
