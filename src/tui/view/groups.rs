//! The group list's window: how many rows it shows, how far a page moves, and which rows are
//! visible so that the cursor is. Drawing and the cursor keys read the same numbers.

use super::Screen;
use crate::tui::layout::{self, Pane};

/// Lines of group rows the group pane shows (its inside minus the header line); when the
/// pane is not on screen, as many as the pane shown instead has.
pub fn list_height(screen: &Screen<'_>) -> usize {
    let layout = screen.layout();
    let pane = if layout.shows(Pane::Groups) {
        Pane::Groups
    } else {
        layout.panes.first().map_or(Pane::Groups, |&(p, _)| p)
    };
    (layout.inner_height(pane) as usize)
        .saturating_sub(1)
        .max(1)
}

/// Lines PgUp and PgDn move in the focused pane (the group pane's when it is hidden): as many
/// as it shows, so a page skips no line. The detail and metrics panes pin lines (the verdict,
/// the table) that do not scroll, so their page is their scrolling part's height.
pub fn page(screen: &Screen<'_>) -> usize {
    let layout = screen.layout();
    let pane = if layout.shows(screen.focus) {
        screen.focus
    } else {
        Pane::Groups
    };
    let scrolling = layout
        .pane(pane)
        .map(layout::inner)
        .and_then(|inner| match pane {
            Pane::Detail => super::detail::view(screen, inner).map(|v| v.height),
            Pane::Metrics => Some(super::metrics::view(screen, inner).height),
            _ => None,
        });
    scrolling
        .unwrap_or_else(|| (layout.inner_height(pane) as usize).saturating_sub(2))
        .max(1)
}

/// The first visible line so that `cursor` is visible in a window of `height` lines, moving
/// the window as little as possible from `offset`.
pub fn visible_offset(offset: usize, cursor: usize, height: usize) -> usize {
    let height = height.max(1);
    if cursor < offset {
        cursor
    } else if cursor >= offset + height {
        cursor + 1 - height
    } else {
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_the_cursor() {
        assert_eq!(visible_offset(0, 3, 10), 0);
        assert_eq!(visible_offset(0, 12, 10), 3);
        assert_eq!(visible_offset(5, 2, 10), 2);
        assert_eq!(visible_offset(5, 7, 0), 7);
    }
}
