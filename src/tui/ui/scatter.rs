//! The t-SNE scatter of item embeddings, selected and largest groups highlighted.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::super::app::App;
use super::super::layout::Pane;
use super::{message, pane_block};

/// Draws the scatter pane.
pub fn render(app: &App, frame: &mut Frame, rect: Rect) {
    let block = pane_block(app, Pane::Scatter, vec![]);
    let text = "not loaded: the t-SNE projection is not part of this build yet";
    message(
        frame,
        block,
        rect,
        vec![Line::styled(text, app.theme.dim())],
    );
}
