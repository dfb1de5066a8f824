//! The metrics table: one row per tokenizer (header line first, so row n+1 is tokenizer n),
//! the selected tokenizer in reverse video.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use sidlens::report;

use super::super::app::{App, Slot};
use super::super::layout::{self, Pane};
use super::{pad, pad_left, pane_block, progress_text, thousands};

/// Draws the metrics table.
pub fn render(app: &App, frame: &mut Frame, rect: Rect) {
    let theme = &app.theme;
    let title = vec![Span::styled(format!("· K={}", app.k), theme.dim())];
    let block = pane_block(app, Pane::Metrics, title);
    let inner = layout::inner(rect);
    frame.render_widget(block, rect);
    let name_w = app
        .tokenizers
        .iter()
        .map(|t| t.name().chars().count())
        .max()
        .unwrap_or(9)
        .clamp(9, 24);
    let numbers = [("items", 8), ("coll.rate", 9), ("g_max", 5)];
    let mut header = vec![Span::styled(
        pad("  tokenizer", name_w + 2) + " ",
        theme.header(),
    )];
    for (h, w) in numbers {
        header.push(Span::styled(pad_left(h, w) + " ", theme.header()));
    }
    let mut lines = vec![Line::from(header)];
    for (i, t) in app.tokenizers.iter().enumerate() {
        let label = format!("{} {}", i + 1, t.name());
        let cells = match &t.data {
            Slot::Ready(d) => vec![
                thousands(d.stats.n_items),
                report::percent(d.stats.collision_rate),
                d.stats.g_max.to_string(),
            ],
            Slot::Loading(p) => vec![progress_text(p.as_ref())],
            Slot::Failed(_) => vec!["could not load (see Groups)".into()],
            Slot::Missing(how) => vec![how.clone()],
        };
        let mut text = pad(&label, name_w + 2) + " ";
        if cells.len() == numbers.len() {
            for (c, (_, w)) in cells.iter().zip(numbers) {
                text += &(pad_left(c, w) + " ");
            }
        } else {
            text += &cells.join(" ");
        }
        let style = if i == app.selected {
            theme.selected()
        } else {
            Style::new()
        };
        lines.push(Line::styled(pad(&text, inner.width as usize), style));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Hit@K / ItemHit@K: not loaded — beam evaluation is not part of this build yet",
        theme.dim(),
    ));
    frame.render_widget(Paragraph::new(lines), inner);
}
