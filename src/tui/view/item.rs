//! The item view's lines (`i`): every text field of one item, wrapped, then the paper's case
//! study for it: its SID, group and groupmates in every loaded tokenizer (the `sidlens item`
//! rows), what a `*_zcr` variant did to its last code, and what sidlens's own ZCR and greedy
//! do to it.

use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::report::{self, item as item_report};
use crate::sid;
use crate::usecase::item_view::{self, Tokenized};

use super::Screen;
use super::text::{fit_middle, pad};
use super::wrap;
use crate::tui::data::prefix_key;
use crate::tui::state::slot::Slot;

/// Groupmates named per tokenizer; the rest are counted.
const SHOWN_MATES: usize = 6;
/// Width of the field-name column.
const LABEL_WIDTH: usize = 13;

/// The view's rectangle over `area` and its inside width.
pub fn geometry(area: Rect) -> (Rect, usize) {
    let width = area.width.saturating_sub(2).min(120);
    let height = area.height.saturating_sub(2);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    (rect, width.saturating_sub(2).max(1) as usize)
}

/// Every line of the item view wrapped to `width`.
pub fn lines(screen: &Screen<'_>, width: usize) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let Some(id) = screen.overlays.item.as_deref() else {
        return Vec::new();
    };
    let field = |name: &str, text: &str| {
        let line = Line::from(vec![
            Span::styled(pad(name, LABEL_WIDTH), theme.dim()),
            Span::raw(text.to_string()),
        ]);
        wrap::wrap(&line, width, LABEL_WIDTH)
    };
    let mut out = Vec::new();
    match screen.items {
        Slot::Ready(texts) => match texts.get(id) {
            Some(info) => {
                let known = [
                    ("title", &info.title),
                    ("brand", &info.brand),
                    ("categories", &info.categories),
                    ("description", &info.description),
                ];
                for (name, value) in known {
                    if let Some(v) = value {
                        out.extend(field(name, v));
                    }
                }
                for (name, value) in &info.other {
                    out.extend(field(name, value));
                }
                if out.is_empty() {
                    out.extend(field("text", "— (the item metadata has no text for it)"));
                }
            }
            None => out.extend(field("text", "— (not in the item metadata)")),
        },
        Slot::Loading(_) => out.extend(field("text", "loading the item metadata…")),
        Slot::Missing(why) | Slot::Failed(why) => out.extend(field("text", why)),
    }
    out.push(Line::raw(""));
    out.push(Line::styled("In every tokenizer", theme.header()));
    out.extend(across_lines(screen, id, width));
    out.push(Line::raw(""));
    out.extend(reassign_lines(screen, id, width));
    out
}

/// One entry per loaded tokenizer: SID, group, what a `*_zcr` variant did, groupmates.
fn across_lines(screen: &Screen<'_>, id: &str, width: usize) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let loaded: Vec<(usize, Tokenized<'_>)> = screen
        .tokenizers
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let d = t.data.ready()?;
            Some((
                i,
                Tokenized {
                    name: t.name(),
                    index: &d.index,
                    collisions: &d.collisions,
                },
            ))
        })
        .collect();
    let tokenizers: Vec<Tokenized<'_>> = loaded.iter().map(|(_, t)| *t).collect();
    let view = item_view::across(id, &tokenizers);
    let name_w = view
        .variants
        .iter()
        .map(|v| v.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(width / 3);
    let texts = screen.items.ready();
    let mut out = Vec::new();
    for v in &view.variants {
        let shown = screen
            .tokenizers
            .shown()
            .is_some_and(|t| t.name() == v.name);
        let group = if v.group_size == 1 {
            "alone".to_string()
        } else {
            format!("group of {}", v.group_size)
        };
        let change = item_report::last_code_text(&view, v);
        let mut spans = vec![
            Span::styled(format!("{} ", if shown { "▶" } else { " " }), theme.key()),
            Span::styled(
                pad(&fit_middle(&v.name, name_w), name_w) + "  ",
                if shown { theme.header() } else { theme.text() },
            ),
            Span::raw(format!("{}  ", v.sid)),
            Span::styled(group, theme.text().add_modifier(Modifier::BOLD)),
        ];
        if !change.is_empty() {
            spans.push(Span::styled(format!(" · {change}"), theme.warn()));
        }
        out.extend(wrap::wrap(&Line::from(spans), width, name_w + 4));
        let mates: Vec<String> = v
            .group
            .iter()
            .filter(|m| m.as_str() != id)
            .map(|m| match texts.and_then(|t| t.title(m)) {
                Some(title) => format!("{m} {title}"),
                None => m.clone(),
            })
            .collect();
        if !mates.is_empty() {
            let mut text = mates[..mates.len().min(SHOWN_MATES)].join(" · ");
            if mates.len() == 1 {
                text = mates[0].clone();
            }
            if mates.len() > SHOWN_MATES {
                text.push_str(&format!(" · … {} more", mates.len() - SHOWN_MATES));
            }
            let line = Line::styled(
                format!("{}with {text}", " ".repeat(name_w + 4)),
                theme.dim(),
            );
            out.extend(wrap::wrap(&line, width, name_w + 4));
        }
    }
    let missing: Vec<&str> = screen
        .tokenizers
        .iter()
        .filter(|t| !view.variants.iter().any(|v| v.name == t.name()))
        .map(|t| t.name())
        .collect();
    if !missing.is_empty() {
        let line = Line::styled(
            format!("not loaded or without this item: {}", missing.join(", ")),
            theme.dim(),
        );
        out.extend(wrap::wrap(&line, width, 2));
    }
    out
}

/// What sidlens's own ZCR and greedy do to the item in the tokenizer shown.
fn reassign_lines(screen: &Screen<'_>, id: &str, width: usize) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let Some(t) = screen.tokenizers.shown() else {
        return Vec::new();
    };
    let mut out = vec![Line::styled(
        format!("sidlens's ZCR and greedy in {}", t.name()),
        theme.header(),
    )];
    let say = |text: String| wrap::wrap(&Line::styled(text, theme.dim()), width, 2);
    let (Some(data), Some(re)) = (t.data.ready(), t.reassign.ready()) else {
        out.extend(say("the reassignment is not planned yet".into()));
        return out;
    };
    let Some(position) = data.index.ids().position(id) else {
        out.extend(say(format!("{} has no item {id}", t.name())));
        return out;
    };
    let codes = data.index.codes(position);
    let level = codes.len().saturating_sub(1);
    let Some(row) = re.row(prefix_key(codes)) else {
        out.extend(say(format!(
            "its prefix {} holds no shared SID or is left unchanged: nothing to reassign",
            sid::format_sid(&codes[..level])
        )));
        return out;
    };
    let Some(item) = row.items.iter().find(|i| i.id == id) else {
        out.extend(say("its last code is not shared: both keep it".into()));
        return out;
    };
    for (method, code, delta) in [
        ("ZCR", item.optimal, item.optimal_delta),
        ("greedy", item.greedy, item.greedy_delta),
    ] {
        let text = match code {
            Some(c) if c == item.native => format!(
                "{method:<7} keeps {}",
                sid::format_token(level, item.native)
            ),
            Some(c) => format!(
                "{method:<7} moves it {}→{}{}",
                sid::format_token(level, item.native),
                sid::format_token(level, c),
                delta.map_or(String::new(), |d| format!(", ΔD {}", report::metric(d)))
            ),
            None => format!("{method:<7} needs vectors (--latents) to decide"),
        };
        out.extend(wrap::wrap(&Line::styled(text, theme.text()), width, 8));
    }
    out
}

/// The largest scroll of the item view on the current terminal.
pub fn max_scroll(screen: &Screen<'_>) -> usize {
    let (rect, inner) = geometry(screen.area);
    lines(screen, inner)
        .len()
        .saturating_sub(rect.height.saturating_sub(2) as usize)
}
