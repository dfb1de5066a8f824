//! Draws the metrics pane: the table from `view::metrics` pinned at the top, the lines under
//! it scrolled, K, the semantics and the scroll position in the title.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

use super::pane_block;
use crate::tui::layout::{self, Pane};
use crate::tui::view::{Screen, metrics};

/// Draws the metrics pane.
pub fn render(screen: &Screen<'_>, frame: &mut Frame, rect: Rect) {
    let theme = screen.theme;
    let inner = layout::inner(rect);
    let v = metrics::view(screen, inner);
    let scroll = screen.metrics.scroll.min(v.max_scroll());
    let mut title = format!(
        "· K={} · {}",
        screen.metrics.k,
        screen.metrics.compat.name()
    );
    if v.max_scroll() > 0 {
        let last = (scroll + v.height).min(v.body.len());
        title.push_str(&format!(
            " · lines {}–{last} of {}",
            scroll + 1,
            v.body.len()
        ));
    }
    let block = pane_block(
        screen,
        Pane::Metrics,
        vec![Span::styled(title, theme.dim())],
    );
    frame.render_widget(block, rect);
    let mut lines = v.table;
    lines.extend(v.body.into_iter().skip(scroll).take(v.height));
    frame.render_widget(Paragraph::new(lines), inner);
}
