//! Drawing: a pure function of the app state onto a frame; one module per screen region.
//! Nothing here reads files or changes state.

pub mod codebook;
pub mod detail;
pub mod groups;
pub mod help;
pub mod item;
pub mod metrics;
pub mod scatter;
pub mod status;
pub mod table;
pub mod wrap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use super::app::{App, JobProgress, Slot};
use super::keys::InputMode;
use super::layout::{Arrangement, Pane};
use super::theme::Theme;

/// Draws the whole screen.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let layout = app.layout_for(area);
    if layout.arrangement == Arrangement::TooSmall {
        status::too_small(app, frame, area);
        return;
    }
    status::header(app, frame, &layout);
    status::pane_bar(app, frame, &layout);
    for &(pane, rect) in &layout.panes {
        match pane {
            Pane::Groups => groups::render(app, frame, rect),
            Pane::Detail => detail::render(app, frame, rect),
            Pane::Metrics => metrics::render(app, frame, rect),
            Pane::Scatter => scatter::render(app, frame, rect),
        }
    }
    status::status_line(app, frame, layout.status);
    status::footer(app, frame, layout.footer);
    match app.mode {
        InputMode::Help => help::render(app, frame, area),
        InputMode::Item => item::render(app, frame, area),
        InputMode::Codebook => codebook::render(app, frame, area),
        InputMode::Normal | InputMode::Typing => {}
    }
}

/// A pane's frame: thick and bright when focused, thin and dim otherwise (visible without
/// colour too).
pub fn pane_block<'a>(app: &App, pane: Pane, title: Vec<Span<'a>>) -> Block<'a> {
    let focused = app.focus == pane;
    let theme = &app.theme;
    let mut spans = vec![Span::styled(
        format!(" {} ", pane.title()),
        if focused {
            theme.focus_border()
        } else {
            theme.header()
        },
    )];
    if !title.is_empty() {
        spans.extend(title);
        spans.push(Span::raw(" "));
    }
    Block::bordered()
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(if focused {
            theme.focus_border()
        } else {
            theme.border()
        })
        .title(Line::from(spans))
}

/// A message in place of a pane's content, wrapped.
pub fn message(frame: &mut Frame, block: Block<'_>, rect: Rect, lines: Vec<Line<'_>>) {
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        rect,
    );
}

/// The lines a pane shows while its data is not ready: loading with progress, missing with
/// how to provide it, or failed with the error.
pub fn slot_lines<T>(slot: &Slot<T>, what: &str, theme: &Theme) -> Option<Vec<Line<'static>>> {
    match slot {
        Slot::Ready(_) => None,
        Slot::Loading(progress) => Some(vec![Line::styled(
            format!("loading {what}: {}", progress_text(progress.as_ref())),
            theme.dim(),
        )]),
        Slot::Missing(how) => Some(vec![Line::styled(how.clone(), theme.dim())]),
        Slot::Failed(e) => Some(vec![
            Line::styled(format!("could not load {what}:"), theme.error()),
            Line::raw(e.clone()),
        ]),
    }
}

/// "reading index", "grouping 45%", "t-SNE 300/1000".
pub fn progress_text(progress: Option<&JobProgress>) -> String {
    match progress {
        None => "starting…".into(),
        Some(p) if p.total > 0 => {
            let pct = (p.done as f64 / p.total as f64 * 100.0).min(100.0);
            format!("{} {pct:.0}%", p.stage)
        }
        Some(p) if p.done > 0 => format!("{} {}…", p.stage, thousands(p.done as usize)),
        Some(p) => format!("{}…", p.stage),
    }
}

/// `12345` → `12,345`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 user`, `2,000 users`: the count with its noun, singular for one (`counted(1, "user")`).
pub fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{} {noun}s", thousands(n)),
    }
}

/// `s` cut to `width` terminal columns, with `…` when cut.
pub fn fit(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `s` cut to `width` columns in the middle (`rkm…v64_zcr`), keeping the end, where names
/// that share a prefix differ.
pub fn fit_middle(s: &str, width: usize) -> String {
    if s.width() <= width || width < 5 {
        return fit(s, width);
    }
    let head_width = (width - 1) / 3;
    let head = fit(s, head_width + 1);
    let head = head.trim_end_matches('…');
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width - 1 - head.width() {
            break;
        }
        tail.push(c);
        used += w;
    }
    tail.reverse();
    format!("{head}…{}", tail.into_iter().collect::<String>())
}

/// Texts cut to `width` so that different texts stay different where a cut can do it: from
/// the right when that keeps them apart (`Voxelcraft Mini 3D…`), else in the middle, keeping
/// the end where near-identical titles differ (`HATCHBOX PLA…1.75mm, Red`).
pub fn cut_apart(texts: &[&str], width: usize) -> Vec<String> {
    let distinct = |cut: &[String]| {
        let mut seen = std::collections::HashMap::new();
        texts
            .iter()
            .zip(cut)
            .all(|(t, c)| *seen.entry(c.clone()).or_insert(*t) == *t)
    };
    let right: Vec<String> = texts.iter().map(|t| fit(t, width)).collect();
    if distinct(&right) {
        return right;
    }
    let middle: Vec<String> = texts.iter().map(|t| fit_middle(t, width)).collect();
    if distinct(&middle) { middle } else { right }
}

/// `s` cut or padded to exactly `width` columns, left-aligned.
pub fn pad(s: &str, width: usize) -> String {
    let s = fit(s, width);
    let w = s.width();
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

/// `s` cut or padded to exactly `width` columns, right-aligned.
pub fn pad_left(s: &str, width: usize) -> String {
    let s = fit(s, width);
    let w = s.width();
    format!("{}{s}", " ".repeat(width.saturating_sub(w)))
}

/// A centred overlay of at most 96 columns over `area`, as tall as the lines `lines_at(inner
/// width)` wraps to allow, with those lines (the help and codebook views): wrapped once.
fn centred_overlay(
    area: Rect,
    lines_at: impl FnOnce(usize) -> Vec<Line<'static>>,
) -> (Rect, Vec<Line<'static>>) {
    let width = area.width.saturating_sub(4).min(96);
    let inner = width.saturating_sub(2).max(1) as usize;
    let lines = lines_at(inner);
    let height = area.height.saturating_sub(2).min(lines.len() as u16 + 2);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    (rect, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn middle_elision_keeps_the_distinguishing_end() {
        assert_eq!(fit_middle("rkmeans_v64_native", 12), "rkm…4_native");
        assert_eq!(fit_middle("rkmeans_v64_zcr", 12), "rkm…_v64_zcr");
        assert_eq!(fit_middle("short", 12), "short");
        assert_eq!(fit_middle("rkmeans_v64_zcr", 12).width(), 12);
    }

    #[test]
    fn text_helpers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(counted(1, "user"), "1 user");
        assert_eq!(counted(0, "user"), "0 users");
        assert_eq!(counted(2000, "user"), "2,000 users");
        assert_eq!(fit("Mini 3D Printer", 8), "Mini 3D…");
        assert_eq!(fit("abc", 3), "abc");
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad_left("ab", 4), "  ab");
        assert_eq!(pad("日本語", 4), "日… ");
    }
}
