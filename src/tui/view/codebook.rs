//! The `b` overlay's lines: the shown tokenizer's codebook health, as `sidlens stats` prints
//! it — per level perplexity and dead codes, how it was reassigned (from its sidecar), and
//! with the dataset's interactions the benign collisions and the head/mid/tail spread.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::Screen;
use super::text::pad_left;
use super::wrap;
use crate::collab::interactions::tier_split_text;
use crate::report;

/// The overlay's rectangle over `area`, and its lines wrapped to fit.
pub fn geometry(screen: &Screen<'_>, area: Rect) -> (Rect, Vec<Line<'static>>) {
    super::centred_overlay(area, |inner| lines(screen, inner))
}

/// Every line of the view wrapped to `width`, before scrolling.
pub fn lines(screen: &Screen<'_>, width: usize) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let Some(d) = screen.tokenizers.data() else {
        return vec![Line::styled("the index is still loading", theme.dim())];
    };
    let s = d.stats();
    let mut out = Vec::new();
    let text = |t: String| wrap::wrap(&Line::raw(t), width, 2);
    out.extend(text(format!(
        "L = {}, V = {}{} · reassignment: {}",
        s.n_levels,
        s.codebook_size,
        if s.codebook_size_inferred {
            " (inferred)"
        } else {
            ""
        },
        d.remedy.as_deref().unwrap_or("no sidecar says")
    )));
    out.push(Line::raw(""));
    out.push(Line::styled(
        format!(
            "level {} {} {} {}",
            pad_left("used", 6),
            pad_left("perplexity", 10),
            pad_left("dead", 5),
            pad_left("prefix coll.", 12)
        ),
        theme.header(),
    ));
    for l in &s.levels {
        out.push(Line::raw(format!(
            "{}     {} {} {} {}",
            l.level,
            pad_left(&l.codes_used.to_string(), 6),
            pad_left(&format!("{:.1}", l.perplexity), 10),
            pad_left(&l.dead_codes.len().to_string(), 5),
            pad_left(&report::percent(l.prefix_collision_rate), 12)
        )));
    }
    for l in s.levels.iter().filter(|l| !l.dead_codes.is_empty()) {
        let codes: Vec<String> = l.dead_codes.iter().map(|c| c.to_string()).collect();
        let line = Line::from(vec![
            Span::styled(format!("dead at {}: ", l.level), theme.warn()),
            Span::raw(codes.join(" ")),
        ]);
        out.extend(wrap::wrap(&line, width, 2));
    }
    out.push(Line::raw(""));
    let Some(i) = d.interactions() else {
        out.extend(text(
            "benign collisions and popularity tiers need the dataset's <DS>.inter.json beside indexes/ (sidlens stats --interactions FILE)".into(),
        ));
        return out;
    };
    let b = &i.benign;
    out.push(Line::styled("From the interactions", theme.header()));
    out.extend(text(format!(
        "{} training interactions (last {} per user held out)",
        i.training_interactions, i.held_out
    )));
    out.extend(text(format!(
        "benign: {} of {} items in collisions ({}) co-occur with a group-mate in some user's history; groups all / none co-occurring: {} / {} of {}",
        b.items_cooccurring,
        b.items_in_collisions,
        report::percent(b.cooccurring_share),
        b.groups_all_cooccurring,
        b.groups_none_cooccurring,
        b.n_collision_groups
    )));
    out.push(Line::raw(""));
    out.push(Line::styled(
        format!(
            "tier {} {} {} {} {}",
            pad_left("items", 6),
            pad_left("in coll.", 8),
            pad_left("rate", 7),
            pad_left("mean G", 6),
            pad_left("hidden", 6)
        ),
        theme.header(),
    ));
    for t in &i.popularity_tiers {
        out.push(Line::raw(format!(
            "{:<4} {} {} {} {} {}",
            t.tier.name(),
            pad_left(&t.n_items.to_string(), 6),
            pad_left(&t.items_in_collisions.to_string(), 8),
            pad_left(&report::percent(t.collision_rate), 7),
            pad_left(&format!("{:.2}", t.mean_group_size), 6),
            pad_left(&t.hidden_by_popular_decoding.to_string(), 6)
        )));
    }
    out.extend(text(format!(
        "{}; hidden = never returned by a popularity decoder; {} groups mix head and tail",
        tier_split_text(),
        i.groups_mixing_head_and_tail
    )));
    out
}

/// The largest scroll of the view on the current terminal.
pub fn max_scroll(screen: &Screen<'_>) -> usize {
    let (rect, lines) = geometry(screen, screen.area);
    lines
        .len()
        .saturating_sub(rect.height.saturating_sub(2) as usize)
}
