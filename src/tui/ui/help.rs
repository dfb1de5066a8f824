//! The `?` overlay: every key, generated from the key table the dispatcher and footer use.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Wrap};

use super::super::app::App;
use super::super::keys;
use super::pad;

/// Every line of the help, before scrolling.
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let key_w = keys::BINDINGS
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(4)
        + 2;
    let mut out = Vec::new();
    for (title, bindings) in keys::help_sections() {
        out.push(Line::styled(title, theme.header()));
        for b in bindings {
            out.push(Line::from(vec![
                Span::styled(format!("  {}", pad(b.label, key_w)), theme.key()),
                Span::raw(b.description),
            ]));
        }
        out.push(Line::raw(""));
    }
    out.push(Line::styled("Mouse", theme.header()));
    for (what, does) in keys::MOUSE_HELP {
        out.push(Line::from(vec![
            Span::styled(format!("  {}", pad(what, key_w)), theme.key()),
            Span::raw(*does),
        ]));
    }
    out
}

/// Draws the overlay centred over `area`.
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let lines = lines(app);
    let width = area.width.saturating_sub(4).min(96);
    let inner = width.saturating_sub(2).max(1) as usize;
    let wrapped: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let height = area.height.saturating_sub(2).min(wrapped as u16 + 2);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let visible = height.saturating_sub(2) as usize;
    let scroll = app
        .help_scroll
        .min(wrapped.saturating_sub(visible))
        .min(u16::MAX as usize) as u16;
    let block = Block::bordered()
        .border_type(BorderType::Thick)
        .border_style(app.theme.focus_border())
        .title(Line::styled(
            " Keys (Esc closes, ↑↓ scroll) ",
            app.theme.header(),
        ));
    frame.render_widget(Clear, rect);
    let help = Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0));
    frame.render_widget(help, rect);
}
