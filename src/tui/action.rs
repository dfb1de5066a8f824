//! Everything a user can ask the TUI to do, as one flat enum: keys and mouse events map to an
//! [`Action`] (in `keys`), and `App::update` carries it out.

/// One user request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the TUI.
    Quit,
    /// Move the cursor (or scroll) one line up in the focused pane.
    Up,
    /// Move the cursor (or scroll) one line down.
    Down,
    /// One page up.
    PageUp,
    /// One page down.
    PageDown,
    /// To the first line.
    Top,
    /// To the last line.
    Bottom,
    /// Focus the pane to the left (the previous tab when panes are tabs).
    Left,
    /// Focus the pane to the right (the next tab).
    Right,
    /// Focus the next pane.
    NextPane,
    /// Focus the previous pane.
    PrevPane,
    /// Show tokenizer number n (0-based).
    SelectTokenizer(usize),
    /// Show the previous tokenizer.
    PrevTokenizer,
    /// Show the next tokenizer.
    NextTokenizer,
    /// Open the selected group (or tokenizer) in more detail.
    Drill,
    /// Go back from a drill-down, or close what is open.
    Back,
    /// Start typing a search.
    StartSearch,
    /// Jump to the next search match.
    SearchNext,
    /// Jump to the previous search match.
    SearchPrev,
    /// Cycle the group order: size, inflation contribution, ZCR saving.
    CycleSort,
    /// Type a minimum group size.
    PromptMinSize,
    /// Next larger K (1, 5, 10, 20).
    KUp,
    /// Next smaller K.
    KDown,
    /// Type any K up to the beam width.
    PromptK,
    /// Re-read and re-evaluate the shown tokenizer's beams file.
    Reload,
    /// Show or hide the list of keys.
    ToggleHelp,
    /// Show or hide the codebook view of the shown tokenizer.
    ToggleCodebook,
    /// Open the item view of the selected item: all its text, and its SID, group and moves in
    /// every tokenizer.
    OpenItem,
    /// Close the item view.
    CloseItem,
    /// Select the previous item of the group.
    PrevMember,
    /// Select the next item of the group.
    NextMember,
    /// Scroll the detail pane to what the `*_zcr` variant did to the group.
    JumpToZcr,
    /// Scatter: zoom in (around the picked point).
    ZoomIn,
    /// Scatter: zoom out.
    ZoomOut,
    /// Scatter: move the view by a quarter of its width (`dx`) or height (`dy`).
    Pan {
        /// −1 left, 1 right.
        dx: i8,
        /// −1 down, 1 up.
        dy: i8,
    },
    /// Scatter: show every point again.
    ResetView,
    /// Scatter: colour by collision group, first-level code or prefix group.
    CycleColour,
    /// Scatter: show the textual space, the collaborative one, or both side by side.
    CycleSpace,
    /// Scatter: highlight the five tightest groups (or the five largest again).
    ToggleTightest,
    /// Sort the metrics table by its next column.
    SortMetrics,
    /// Reverse the metrics table's order.
    ReverseMetrics,
    /// A typed character while a prompt is open.
    Input(char),
    /// Delete the last typed character.
    InputBackspace,
    /// Accept what was typed.
    InputSubmit,
    /// Close the prompt without accepting.
    InputCancel,
    /// A mouse click at a screen cell.
    Click {
        /// Screen column.
        column: u16,
        /// Screen row.
        row: u16,
    },
    /// Mouse wheel up over a screen cell.
    ScrollUp {
        /// Screen column.
        column: u16,
        /// Screen row.
        row: u16,
    },
    /// Mouse wheel down over a screen cell.
    ScrollDown {
        /// Screen column.
        column: u16,
        /// Screen row.
        row: u16,
    },
    /// The terminal has a new size.
    Resize {
        /// Columns.
        width: u16,
        /// Rows.
        height: u16,
    },
}
