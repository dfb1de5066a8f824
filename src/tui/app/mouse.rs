//! The mouse: a click focuses what it lands on (a tokenizer tab, a pane tab, a pane) and in
//! a list selects the row under it, in the scatter picks the point; the wheel scrolls the
//! pane under it, zooms the scatter around the cell under it, and scrolls an open overlay.

use super::App;
use crate::tui::keys::InputMode;
use crate::tui::layout::{Hit, Pane};
use crate::tui::view;

/// Lines the mouse wheel moves.
const WHEEL_LINES: usize = 3;

impl App {
    /// A click at a screen cell; any click closes an open overlay.
    pub(super) fn click(&mut self, column: u16, row: u16) {
        if matches!(
            self.mode,
            InputMode::Help | InputMode::Item | InputMode::Codebook
        ) {
            self.mode = InputMode::Normal;
            return;
        }
        match self.layout().hit(column, row) {
            Some(Hit::Tokenizer(i)) => self.select_tokenizer(i),
            Some(Hit::PaneTab(pane)) => self.set_focus(pane),
            Some(Hit::Pane {
                pane: Pane::Scatter,
                row: Some(_),
            }) => {
                self.set_focus(Pane::Scatter);
                self.pick_at(column, row);
            }
            Some(Hit::Pane { pane, row }) => {
                self.set_focus(pane);
                match (pane, row) {
                    (Pane::Groups, Some(r)) if r >= 1 => {
                        let offset = self.tokenizers.shown().map_or(0, |t| t.list.offset);
                        self.set_cursor(offset + r as usize - 1);
                    }
                    (Pane::Metrics, Some(r)) if r >= 1 && (r as usize) <= self.tokenizers.len() => {
                        let i = self.screen().metrics_order()[r as usize - 1];
                        self.select_tokenizer(i);
                    }
                    _ => {}
                }
            }
            None => {}
        }
    }

    /// The wheel at a screen cell, `direction` −1 up and 1 down.
    pub(super) fn wheel(&mut self, column: u16, row: u16, direction: isize) {
        let delta = direction * WHEEL_LINES as isize;
        if matches!(
            self.mode,
            InputMode::Help | InputMode::Item | InputMode::Codebook
        ) {
            self.step(delta);
            return;
        }
        if let Some(Hit::Pane {
            pane: Pane::Scatter,
            ..
        }) = self.layout().hit(column, row)
        {
            let at = view::scatter::coordinates_at(&self.screen(), column, row);
            self.zoom(if direction < 0 { 2.0 } else { 0.5 }, at);
            return;
        }
        if let Some(Hit::Pane { pane, .. }) = self.layout().hit(column, row) {
            let focus = self.focus;
            self.focus = pane;
            self.step(if pane == Pane::Metrics {
                direction
            } else {
                delta
            });
            self.focus = focus;
        }
    }
}
