//! Drawing: the view models of `view` onto a frame; one module per screen region. Nothing
//! here reads files, changes state or knows the `App`: it draws a [`Screen`].

pub mod codebook;
pub mod detail;
pub mod groups;
pub mod help;
pub mod item;
pub mod metrics;
pub mod scatter;
pub mod status;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};

use super::keys::InputMode;
use super::layout::{Arrangement, Pane};
use super::state::slot::Slot;
use super::theme::Theme;
use super::view::Screen;
use super::view::text::progress_text;

/// Draws the whole screen (`ui::render(&app, frame)`: the app converts into a [`Screen`]).
pub fn render<'a>(screen: impl Into<Screen<'a>>, frame: &mut Frame) {
    let screen = screen.into();
    let area = frame.area();
    let layout = screen.layout_for(area);
    if layout.arrangement == Arrangement::TooSmall {
        status::too_small(&screen, frame, area);
        return;
    }
    status::header(&screen, frame, &layout);
    status::pane_bar(&screen, frame, &layout);
    for &(pane, rect) in &layout.panes {
        match pane {
            Pane::Groups => groups::render(&screen, frame, rect),
            Pane::Detail => detail::render(&screen, frame, rect),
            Pane::Metrics => metrics::render(&screen, frame, rect),
            Pane::Scatter => scatter::render(&screen, frame, rect),
        }
    }
    status::status_line(&screen, frame, layout.status);
    status::footer(&screen, frame, layout.footer);
    match screen.mode {
        InputMode::Help => help::render(&screen, frame, area),
        InputMode::Item => item::render(&screen, frame, area),
        InputMode::Codebook => codebook::render(&screen, frame, area),
        InputMode::Normal | InputMode::Typing => {}
    }
}

/// A pane's frame: thick and bright when focused, thin and dim otherwise (visible without
/// colour too).
pub fn pane_block<'a>(screen: &Screen<'_>, pane: Pane, title: Vec<Span<'a>>) -> Block<'a> {
    let focused = screen.focus == pane;
    let theme = screen.theme;
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
