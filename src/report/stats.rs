//! The `stats` report: an overview table and a per-level table.

use super::{Align, Table, percent, raw};
use crate::collab::interactions::CollisionInteractions;
use crate::collision::stats::IndexStats;

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
        ("perplexity", Align::Right),
        ("dead codes", Align::Right),
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
            format!("{:.1}", l.perplexity),
            l.dead_codes.len().to_string(),
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

/// The dead codes of each level that has some, one line each (at most `limit` codes listed).
pub fn dead_code_lines(s: &IndexStats, limit: usize) -> String {
    let mut out = String::new();
    for l in s.levels.iter().filter(|l| !l.dead_codes.is_empty()) {
        let mut codes: Vec<String> = l
            .dead_codes
            .iter()
            .take(limit)
            .map(|c| c.to_string())
            .collect();
        if l.dead_codes.len() > limit {
            codes.push(format!("… ({} more)", l.dead_codes.len() - limit));
        }
        out.push_str(&format!(
            "dead codes at level {} ({} of {}): {}\n",
            l.level,
            l.dead_codes.len(),
            s.codebook_size,
            codes.join(" ")
        ));
    }
    out
}

/// Benign collisions and the popularity tiers as (field, value) rows.
pub fn interactions_overview(d: &CollisionInteractions) -> Table {
    let mut t = Table::new(&[
        ("from the interactions", Align::Left),
        ("value", Align::Right),
    ]);
    let b = &d.benign;
    let rows = [
        (
            "training interactions".to_string(),
            format!(
                "{} (last {} per user held out)",
                d.training_interactions, d.held_out
            ),
        ),
        (
            "items in collisions co-occurring (benign)".to_string(),
            format!(
                "{} of {} ({})",
                b.items_cooccurring,
                b.items_in_collisions,
                percent(b.cooccurring_share)
            ),
        ),
        (
            "groups all / none co-occurring".to_string(),
            format!(
                "{} / {} of {}",
                b.groups_all_cooccurring, b.groups_none_cooccurring, b.n_collision_groups
            ),
        ),
        (
            "groups mixing head and tail".to_string(),
            d.groups_mixing_head_and_tail.to_string(),
        ),
    ];
    for (k, v) in rows {
        t.push(vec![k, v]);
    }
    t
}

/// Head, mid and tail items over collision groups, one row per tier.
pub fn tiers(d: &CollisionInteractions) -> Table {
    let mut t = Table::new(&[
        ("tier", Align::Left),
        ("items", Align::Right),
        ("interactions", Align::Right),
        ("in collisions", Align::Right),
        ("collision rate", Align::Right),
        ("mean group size", Align::Right),
        ("hidden by popular decoding", Align::Right),
    ]);
    for s in &d.popularity_tiers {
        t.push(vec![
            s.tier.name().to_string(),
            s.n_items.to_string(),
            format!("{}–{}", s.min_interactions, s.max_interactions),
            s.items_in_collisions.to_string(),
            percent(s.collision_rate),
            format!("{:.2}", s.mean_group_size),
            s.hidden_by_popular_decoding.to_string(),
        ]);
    }
    t
}
