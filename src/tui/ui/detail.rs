//! Draws the detail pane: the selected group's lines from `view::detail`, scrolled, with the
//! verdict pinned under them.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{message, pane_block, slot_lines};
use crate::tui::layout::{self, Pane};
use crate::tui::state::slot::Slot;
use crate::tui::view::{Screen, detail};

/// Draws the detail of the selected group.
pub fn render(screen: &Screen<'_>, frame: &mut Frame, rect: Rect) {
    let theme = screen.theme;
    let Some(tokenizer) = screen.tokenizers.shown() else {
        let block = pane_block(screen, Pane::Detail, vec![]);
        message(frame, block, rect, vec![Line::raw("no tokenizer given")]);
        return;
    };
    match &tokenizer.data {
        Slot::Ready(_) => {}
        other => {
            let block = pane_block(screen, Pane::Detail, vec![]);
            let lines = slot_lines(other, "the index", theme).unwrap_or_default();
            message(frame, block, rect, lines);
            return;
        }
    };
    let Some(row) = screen.tokenizers.selected_row() else {
        let block = pane_block(screen, Pane::Detail, vec![]);
        let text = "no collision group selected";
        message(frame, block, rect, vec![Line::styled(text, theme.dim())]);
        return;
    };
    let title = vec![Span::styled(
        format!("· group #{} of {}", row.rank, tokenizer.name()),
        theme.dim(),
    )];
    let inner = layout::inner(rect);
    let Some(view) = detail::view(screen, inner) else {
        return;
    };
    let scroll = tokenizer.detail.scroll.min(view.max_scroll());
    let mut title = title;
    if view.max_scroll() > 0 {
        let last = (scroll + view.height).min(view.body.len());
        title.push(Span::styled(
            format!(" · lines {}–{last} of {}", scroll + 1, view.body.len()),
            theme.dim(),
        ));
    }
    frame.render_widget(pane_block(screen, Pane::Detail, title), rect);
    let body = Rect::new(inner.x, inner.y, inner.width, view.height as u16);
    let shown: Vec<Line> = view
        .body
        .into_iter()
        .skip(scroll)
        .take(view.height)
        .collect();
    frame.render_widget(Paragraph::new(shown), body);
    if !view.pinned.is_empty() {
        let pinned = Rect::new(
            inner.x,
            body.bottom(),
            inner.width,
            inner.height - view.height as u16,
        );
        frame.render_widget(Paragraph::new(view.pinned), pinned);
    }
}
