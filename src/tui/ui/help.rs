//! Draws the `?` overlay centred over the screen, scrolled, its position in the title.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

use crate::tui::view::{Screen, help};

/// Draws the overlay centred over `area`.
pub fn render(screen: &Screen<'_>, frame: &mut Frame, area: Rect) {
    let (rect, lines) = help::geometry(screen, area);
    let visible = rect.height.saturating_sub(2) as usize;
    let scroll = screen
        .overlays
        .help_scroll
        .min(lines.len().saturating_sub(visible));
    let block = Block::bordered()
        .border_type(BorderType::Thick)
        .border_style(screen.theme.focus_border())
        .title(Line::styled(
            format!(
                " Keys (Esc closes, ↑↓ scroll) · {}–{} of {} ",
                scroll + 1,
                (scroll + visible).min(lines.len()),
                lines.len()
            ),
            screen.theme.header(),
        ));
    frame.render_widget(Clear, rect);
    let shown: Vec<Line> = lines.into_iter().skip(scroll).take(visible).collect();
    frame.render_widget(Paragraph::new(shown).block(block), rect);
}
