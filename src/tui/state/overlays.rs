//! The overlays' state: how far the help (`?`) and codebook (`b`) views are scrolled, and
//! which item the item view (`i`) shows and how far down.

/// What the overlays show and where they are scrolled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overlays {
    /// Lines the help overlay is scrolled down.
    pub help_scroll: usize,
    /// First line of the codebook view on screen.
    pub codebook_scroll: usize,
    /// The item the item view shows.
    pub item: Option<String>,
    /// Lines the item view is scrolled down.
    pub item_scroll: usize,
}

impl Overlays {
    /// Shows item `id` in the item view, from its top.
    pub fn show_item(&mut self, id: String) {
        self.item = Some(id);
        self.item_scroll = 0;
    }
}
