//! The view layer: what the screen shows, computed from the state and drawing nothing. The
//! renderers in `ui` draw from it, and the key and mouse handling in `app` reads the same
//! models for its scroll bounds and hit tests, so the two cannot disagree.

pub mod codebook;
pub mod detail;
pub mod groups;
pub mod help;
pub mod item;
pub mod metrics;
pub mod scatter;
pub mod table;
pub mod text;
pub mod wrap;

use std::sync::Arc;

use ratatui::layout::Rect;
use ratatui::text::Line;

use super::keys::InputMode;
use super::layout::{Header, Layout, Pane};
use super::spaces::Space;
use super::state::groups::GroupOrder;
use super::state::metrics::MetricsState;
use super::state::overlays::Overlays;
use super::state::prompt::PromptState;
use super::state::scatter::ScatterState;
use super::state::slot::Slot;
use super::state::status::Notice;
use super::state::tokenizers::Tokenizers;
use super::theme::Theme;
use crate::load::ItemTexts;

/// The app's state as the screen reads it: borrowed, one field per concern. `App` converts
/// into it (`ui::render(&app, frame)`), so neither the renderers nor the view models need
/// the `App` itself.
#[derive(Debug, Clone, Copy)]
pub struct Screen<'a> {
    /// What the header calls the data.
    pub title: &'a str,
    /// Colours.
    pub theme: &'a Theme,
    /// The terminal area.
    pub area: Rect,
    /// How keys are read now.
    pub mode: InputMode,
    /// The focused pane.
    pub focus: Pane,
    /// Metrics or Scatter, whichever shares a slot in the three-pane layout.
    pub companion: Pane,
    /// Every tokenizer, the one shown, and their group lists and detail positions.
    pub tokenizers: &'a Tokenizers,
    /// Item metadata shared by all tokenizers.
    pub items: &'a Slot<Arc<ItemTexts>>,
    /// How the group lists are ordered and filtered.
    pub groups: &'a GroupOrder,
    /// K, the comparison and the metrics table's order and scroll.
    pub metrics: &'a MetricsState,
    /// The projections and the camera.
    pub scatter: &'a ScatterState,
    /// The open prompt and the active search.
    pub prompt: &'a PromptState,
    /// The help, codebook and item views' state.
    pub overlays: &'a Overlays,
    /// The status-bar message.
    pub notice: Option<&'a Notice>,
}

impl<'a> Screen<'a> {
    /// The layout for the current terminal size.
    pub fn layout(&self) -> Layout {
        self.layout_for(self.area)
    }

    /// The layout for a given area (rendering passes the frame's).
    pub fn layout_for(&self, area: Rect) -> Layout {
        let names = self.tokenizers.names();
        let title = self.header_title();
        let header = Header {
            title: &title,
            tokenizers: &names,
            selected: self.tokenizers.selected,
        };
        Layout::compute(area, self.focus, self.companion, &header)
    }

    /// The header's title, ` sidlens · <data>`.
    pub fn header_title(&self) -> String {
        format!(" sidlens · {}", self.title)
    }

    /// Tokenizers in the order the metrics table lists them (its sort, else key order).
    pub fn metrics_order(&self) -> Vec<usize> {
        self.metrics.order(self.tokenizers)
    }

    /// The index position of the picked item (clicked, else the selected item), even when the
    /// sample left it out of the scatter.
    pub fn picked_position(&self) -> Option<usize> {
        if let Some(p) = self.scatter.camera.pick {
            return Some(p);
        }
        let id = self.tokenizers.member_id()?;
        self.tokenizers.data()?.index.ids().position(id)
    }

    /// The picked point of `space`'s scatter (an index into its points): the item clicked,
    /// else the selected item.
    pub fn picked_point(&self, space: Space) -> Option<usize> {
        let position = self.picked_position()?;
        let view = self.scatter.view_of(space)?;
        view.positions.iter().position(|&p| p == Some(position))
    }

    /// The tightest groups when the scatter highlights them for the tokenizer shown.
    pub fn tight_groups(&self) -> Option<&'a [u32]> {
        self.scatter.tight_groups(self.tokenizers.selected)
    }

    /// The highlighted tightest group the scatter points at (▸ in its legend).
    pub fn tight_group(&self) -> Option<u32> {
        self.scatter.tight_group(self.tokenizers.selected)
    }
}

/// A centred overlay of at most 96 columns over `area`, as tall as the lines `lines_at(inner
/// width)` wraps to allow, with those lines (the help and codebook views): wrapped once.
pub fn centred_overlay(
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
