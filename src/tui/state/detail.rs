//! The detail pane's place in one tokenizer: how far it is scrolled and which item of the
//! selected group is picked (what `i` opens and what `]` follows into the next tokenizer).

use super::offset_by;

/// Where the detail pane is for one tokenizer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DetailState {
    /// Lines the detail pane is scrolled down (screen lines, after wrapping).
    pub scroll: usize,
    /// The selected item of the selected group (position in its id-ordered items).
    pub member: usize,
}

impl DetailState {
    /// Back to the top and the first item, for a newly selected group.
    pub fn reset(&mut self) {
        self.scroll = 0;
        self.member = 0;
    }

    /// Scrolls by `delta` lines, at most to `most` (the pane's last line at its bottom).
    pub fn scroll_by(&mut self, delta: isize, most: usize) {
        self.scroll = offset_by(self.scroll.min(most), delta, most);
    }

    /// Picks the previous or next item of a group of `size` (at least one) items.
    pub fn step_member(&mut self, delta: isize, size: usize) {
        self.member = offset_by(self.member.min(size - 1), delta, size - 1);
    }
}
