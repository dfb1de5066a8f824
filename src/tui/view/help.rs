//! The `?` overlay's lines: every key, generated from the key table the dispatcher and footer
//! use, and what the columns and marks mean. Lines are wrapped here with a hanging indent, so
//! a long description stays in its column and scrolling counts screen lines exactly.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::Screen;
use super::text::pad;
use super::wrap;
use crate::tui::keys;

/// What the columns and marks the panes show mean (the same words show on selection).
pub const LEGEND: &[(&str, &str)] = &[
    (
        "over",
        "Groups: SID-level credit beyond item-level credit at K (ΣHit − ΣItemHit of the users whose target is in the group): what the collision inflates",
    ),
    (
        "gen",
        "Groups: how many users' beam lists contain the group's SID",
    ),
    (
        "saving",
        "Groups: greedy ΔD − ZCR ΔD in the group's prefix group: the embedding distortion ZCR avoids",
    ),
    (
        "ΔD",
        "Detail: squared distance to the new last codeword minus to the native one",
    ),
    (
        "⇅",
        "Metrics: a rank flip: this tokenizer's order against another by Hit@K is the reverse of their order by ItemHit@K",
    ),
    (
        "›  =",
        "Detail: the selected item; items with the same title",
    ),
];

/// The overlay's rectangle over `area`, and its lines wrapped to fit.
pub fn geometry(screen: &Screen<'_>, area: Rect) -> (Rect, Vec<Line<'static>>) {
    super::centred_overlay(area, |inner| lines(screen, inner))
}

/// Every line of the help wrapped to `width`, before scrolling.
pub fn lines(screen: &Screen<'_>, width: usize) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let key_w = keys::BINDINGS
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(4)
        + 2;
    let entry = |what: &str, does: &str| {
        let line = Line::from(vec![
            Span::styled(format!("  {}", pad(what, key_w)), theme.key()),
            Span::raw(does.to_string()),
        ]);
        wrap::wrap(&line, width, key_w + 2)
    };
    let mut out = Vec::new();
    for (title, bindings) in keys::help_sections() {
        out.push(Line::styled(title, theme.header()));
        for b in bindings {
            out.extend(entry(b.label, b.description));
        }
        out.push(Line::raw(""));
    }
    out.push(Line::styled("Mouse", theme.header()));
    for (what, does) in keys::MOUSE_HELP {
        out.extend(entry(what, does));
    }
    out.push(Line::raw(""));
    out.push(Line::styled("Columns and marks", theme.header()));
    for (what, does) in LEGEND {
        out.extend(entry(what, does));
    }
    out
}

/// The largest scroll of the overlay on the current terminal.
pub fn max_scroll(screen: &Screen<'_>) -> usize {
    let (rect, lines) = geometry(screen, screen.area);
    lines
        .len()
        .saturating_sub(rect.height.saturating_sub(2) as usize)
}
