//! Draws the item view (`i`) over the screen, scrolled, its position in the title.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

use crate::tui::view::{Screen, item};

/// Draws the item view over `area`.
pub fn render(screen: &Screen<'_>, frame: &mut Frame, area: Rect) {
    let (rect, inner) = item::geometry(area);
    let lines = item::lines(screen, inner);
    let visible = rect.height.saturating_sub(2) as usize;
    let scroll = screen
        .overlays
        .item_scroll
        .min(lines.len().saturating_sub(visible));
    let id = screen.overlays.item.clone().unwrap_or_default();
    let position = if lines.len() > visible {
        format!(
            " · {}–{} of {}",
            scroll + 1,
            (scroll + visible).min(lines.len()),
            lines.len()
        )
    } else {
        String::new()
    };
    let block = Block::bordered()
        .border_type(BorderType::Thick)
        .border_style(screen.theme.focus_border())
        .title(Line::styled(
            format!(" Item {id}{position} · ←→ groupmates, [ ] tokenizer, Esc closes "),
            screen.theme.header(),
        ));
    frame.render_widget(Clear, rect);
    let shown: Vec<Line> = lines.into_iter().skip(scroll).take(visible).collect();
    frame.render_widget(Paragraph::new(shown).block(block), rect);
}
