//! The lines around the panes: header (title, tokenizer tabs, K), pane tabs, the status line
//! (prompt, progress, notices, summary) and the footer's key hints; and the too-small screen.

use crate::report;
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::keys;
use crate::tui::layout::{Layout, MIN_SIZE};
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::slot::{JobProgress, Slot};
use crate::tui::state::status::Level;
use crate::tui::view::Screen;
use crate::tui::view::text::{fit, pad_left, progress_text, thousands};

/// Title at the left, tokenizer tabs, K at the right.
pub fn header(screen: &Screen<'_>, frame: &mut Frame, layout: &Layout) {
    let theme = screen.theme;
    let area = layout.header;
    let title = screen.header_title();
    let title_w = layout
        .tokenizer_tabs
        .first()
        .map_or(area.width, |(_, r)| r.x - area.x) as usize;
    frame.render_widget(
        Paragraph::new(Line::styled(
            fit(&title, title_w.saturating_sub(1)),
            theme.header(),
        )),
        area,
    );
    let last = layout.tokenizer_tabs.len().saturating_sub(1);
    for (n, &(i, rect)) in layout.tokenizer_tabs.iter().enumerate() {
        let name = screen.tokenizers[i].name();
        let (text, style) = match (layout.tabs_compact, n) {
            (true, 0) => ("‹ ".to_string(), theme.key()),
            (true, n) if n == last => (" ›".to_string(), theme.key()),
            (true, _) => (
                format!(" {}/{} {name} ", i + 1, screen.tokenizers.len()),
                theme.selected(),
            ),
            (false, _) => (
                format!(
                    " {} ",
                    fit(&format!("{} {name}", i + 1), rect.width as usize - 2)
                ),
                if i == screen.tokenizers.selected {
                    theme.selected()
                } else {
                    theme.text()
                },
            ),
        };
        let text = fit(&text, rect.width as usize);
        frame.render_widget(Paragraph::new(Line::styled(text, style)), rect);
    }
    let k = Line::styled(format!("K={} ", screen.metrics.k), theme.header())
        .alignment(Alignment::Right);
    frame.render_widget(Paragraph::new(k), area);
}

/// The pane tabs when not every pane is on screen.
pub fn pane_bar(screen: &Screen<'_>, frame: &mut Frame, layout: &Layout) {
    for &(pane, rect) in &layout.pane_tabs {
        let style = if pane == screen.focus {
            screen.theme.selected()
        } else if layout.shows(pane) {
            screen.theme.text()
        } else {
            screen.theme.dim()
        };
        frame.render_widget(
            Paragraph::new(Line::styled(format!(" {} ", pane.title()), style)),
            rect,
        );
    }
}

/// The open prompt, else the latest notice (or a summary of the tokenizer shown) at the left
/// and, while jobs run, their progress at the right.
pub fn status_line(screen: &Screen<'_>, frame: &mut Frame, area: Rect) {
    let theme = screen.theme;
    if let Some(prompt) = &screen.prompt.open {
        let label = match prompt.kind {
            PromptKind::Search => "/".to_string(),
            PromptKind::K => format!("K (1–{}): ", screen.tokenizers.max_k()),
            PromptKind::MinSize => "minimum group size (≥ 2): ".to_string(),
        };
        let line = Line::from(vec![
            Span::styled(label, theme.key()),
            Span::raw(prompt.text.clone()),
            Span::styled("▏", theme.key()),
        ]);
        frame.render_widget(Paragraph::new(line), area);
        return;
    }
    let (text, style) = match screen.notice {
        Some(notice) => (
            notice.text.clone(),
            match notice.level {
                Level::Info => theme.text(),
                Level::Warn => theme.warn(),
            },
        ),
        None => (summary(screen), theme.dim()),
    };
    let width = area.width as usize;
    let Some(progress) = progress_summary(screen) else {
        frame.render_widget(Paragraph::new(Line::styled(fit(&text, width), style)), area);
        return;
    };
    let left_width = if text.is_empty() {
        0
    } else {
        text.chars()
            .count()
            .min(width.saturating_sub(32).max(width / 2))
    };
    let right_width = width.saturating_sub(left_width + 2);
    let line = Line::from(vec![
        Span::styled(fit(&text, left_width), style),
        Span::raw(" ".repeat(width.saturating_sub(left_width + right_width).min(2))),
        Span::styled(
            pad_left(&fit(&progress, right_width), right_width),
            theme.dim(),
        ),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

/// What is loading, e.g. "loading: rkmeans_native grouping… · items reading item metadata…".
fn progress_summary(screen: &Screen<'_>) -> Option<String> {
    let mut parts = Vec::new();
    if let Slot::Loading(p) = screen.items {
        parts.push(format!("items {}", progress_text(p.as_ref())));
    }
    for t in screen.tokenizers.iter() {
        for (slot_progress, what) in [
            (loading(&t.data), "index"),
            (loading(&t.metrics), "beams"),
            (loading(&t.reassign), "ZCR"),
        ] {
            if let Some(p) = slot_progress {
                parts.push(format!("{} {what} {}", t.name(), progress_text(p)));
            }
        }
    }
    if let Slot::Loading(p) = &screen.scatter.projection {
        parts.push(format!("scatter {}", progress_text(p.as_ref())));
    }
    if let Slot::Loading(p) = &screen.scatter.collaborative {
        parts.push(format!("collaborative {}", progress_text(p.as_ref())));
    }
    (!parts.is_empty()).then(|| format!("loading: {}", parts.join(" · ")))
}

/// The progress of a slot that is loading (`Some(None)` before the first report).
fn loading<T>(slot: &Slot<T>) -> Option<Option<&JobProgress>> {
    match slot {
        Slot::Loading(p) => Some(p.as_ref()),
        _ => None,
    }
}

/// "4,344 items · 1,326 in collisions (30.52%) · 512 groups · g_max 9".
fn summary(screen: &Screen<'_>) -> String {
    match screen.tokenizers.data() {
        Some(d) => {
            let mut s = format!(
                "{} items · {} in collisions ({}) · {} groups · largest {}",
                thousands(d.stats().n_items),
                thousands(d.stats().items_in_collisions),
                report::percent(d.stats().collision_rate),
                thousands(d.stats().n_collision_groups),
                d.stats().g_max
            );
            if let Some(r) = &d.remedy {
                s.push_str(&format!(" · {r}"));
            }
            s
        }
        None => String::new(),
    }
}

/// Key hints for the focused pane, from the key table; when they do not fit, hints before the
/// last two (help and quit) are dropped from the end.
pub fn footer(screen: &Screen<'_>, frame: &mut Frame, area: Rect) {
    let theme = screen.theme;
    let mut hints = keys::footer(screen.mode, screen.focus);
    let width = |h: &[(&str, &str)]| -> usize {
        h.iter()
            .map(|(k, w)| k.chars().count() + w.chars().count() + 3)
            .sum()
    };
    while width(&hints) > area.width as usize && hints.len() > 2 {
        hints.remove(hints.len() - 3);
    }
    let spans: Vec<Span> = hints
        .iter()
        .flat_map(|(key, hint)| {
            [
                Span::styled(format!(" {key}"), theme.key()),
                Span::styled(format!(" {hint} "), theme.dim()),
            ]
        })
        .collect();
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The whole screen when the terminal is smaller than the TUI needs.
pub fn too_small(screen: &Screen<'_>, frame: &mut Frame, area: Rect) {
    let text = format!(
        "terminal too small: {}x{} — sidlens needs at least {}x{} (q quits)",
        area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
    );
    frame.render_widget(
        Paragraph::new(Line::styled(text, screen.theme.warn()))
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        area,
    );
}
