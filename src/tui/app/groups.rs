//! The group lists as actions change them: rebuilt after new data, a new sort or a new
//! minimum size (keeping the selected group when it is still listed), the cursor moved, and
//! the selected row kept on screen.

use super::App;
use crate::tui::state::groups::SortKey;
use crate::tui::state::slot::Slot;
use crate::tui::state::status::Notice;
use crate::tui::view;

impl App {
    /// Recomputes tokenizer `i`'s list after new data, a new sort or a new filter, keeping the
    /// selected group selected when it is still listed.
    pub(super) fn rebuild_order(&mut self, i: usize) {
        let Some(t) = self.tokenizers.get(i) else {
            return;
        };
        let Some(data) = t.data.ready() else {
            return;
        };
        let order = self
            .groups
            .order(data, &t.metrics, &t.reassign, self.metrics.k);
        self.tokenizers[i].list.reorder(order);
        if i == self.tokenizers.selected {
            self.scroll_into_view();
        }
    }

    /// `o`: the next group order, in every tokenizer; says what it still waits for.
    pub(super) fn cycle_sort(&mut self) {
        self.groups.sort = self.groups.sort.next();
        for i in 0..self.tokenizers.len() {
            self.rebuild_order(i);
        }
        self.refresh_search();
        let Some(t) = self.tokenizers.shown() else {
            return;
        };
        let missing = match self.groups.sort {
            SortKey::Size => None,
            SortKey::Inflation => t.metrics.missing_why("beams"),
            SortKey::Saving => match &t.reassign {
                Slot::Ready(r) if !r.plan.summary.with_vectors => {
                    Some("needs latents (--latents, --codebooks)".to_string())
                }
                other => other.missing_why("the reassignment"),
            },
        };
        let label = self.groups.sort.label();
        match missing {
            Some(why) => self.say(Notice::warn(format!(
                "sorted by {label}: {why}; largest first meanwhile"
            ))),
            None => self.say(Notice::info(format!("sorted by {label}"))),
        }
    }

    /// `m`: list only groups of at least `min_size` items, in every tokenizer.
    pub(super) fn set_min_size(&mut self, min_size: usize) {
        self.groups.min_size = min_size;
        for i in 0..self.tokenizers.len() {
            self.rebuild_order(i);
        }
        self.refresh_search();
        self.refresh_spreads();
        self.say(Notice::info(format!("groups of at least {min_size} items")));
    }

    /// Moves the cursor of the list shown by `delta` rows; a new group drops the scatter's
    /// pick (the selected item is the picked one again).
    pub(super) fn move_cursor(&mut self, delta: isize) {
        let Some(t) = self.tokenizers.shown_mut() else {
            return;
        };
        if t.move_cursor(delta) {
            self.scatter.camera.pick = None;
        }
        self.scroll_into_view();
    }

    /// Selects the row at `position` of the list shown, when it is listed.
    pub(super) fn set_cursor(&mut self, position: usize) {
        if let Some(t) = self.tokenizers.shown_mut() {
            t.set_cursor(position);
        }
        self.scroll_into_view();
    }

    /// Keeps the selected group row on screen.
    pub(super) fn scroll_into_view(&mut self) {
        let height = view::groups::list_height(&self.screen());
        if let Some(t) = self.tokenizers.shown_mut() {
            t.list.offset = view::groups::visible_offset(t.list.offset, t.list.cursor, height);
        }
    }
}
