//! The one key table. Dispatch ([`map`]), the footer hints ([`footer`]) and the `?` overlay
//! ([`help_sections`]) all read [`BINDINGS`], so they can never disagree.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::action::Action;
use super::layout::Pane;

/// What the keyboard is doing right now, which decides how a key is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMode {
    /// Browsing: keys are commands.
    Normal,
    /// A prompt (search, K, minimum size) is open: keys are text.
    Typing,
    /// The help overlay is open.
    Help,
    /// The item view is open.
    Item,
    /// The codebook view is open.
    Codebook,
}

/// One physical key as the table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A printable character, with or without Shift.
    Char(char),
    /// A character with Ctrl held.
    Ctrl(char),
    /// A named key (arrows, Enter, Tab, …); an arrow with Shift held is [`Key::Shift`].
    Code(KeyCode),
    /// An arrow key with Shift held.
    Shift(KeyCode),
    /// Any of the digits 1–9; the action gets the digit's index.
    Digit,
    /// Any printable character (text input).
    AnyChar,
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// In every pane while browsing.
    Global,
    /// Only while one of these panes has the focus.
    Panes(&'static [Pane]),
    /// While a prompt is open.
    Typing,
    /// While the help overlay is open.
    Help,
    /// While the item view is open.
    Item,
    /// While the codebook view is open.
    Codebook,
}

/// One row of the key table.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The keys that trigger it.
    pub keys: &'static [Key],
    /// How the footer and the help overlay write those keys.
    pub label: &'static str,
    /// What it does.
    pub action: Action,
    /// What it does, in words, for the help overlay.
    pub description: &'static str,
    /// Short words for the footer.
    pub hint: &'static str,
    /// Where it applies.
    pub scope: Scope,
    /// Panes whose footer shows it.
    pub footer: &'static [Pane],
}

const ALL: &[Pane] = &Pane::ALL;
const NONE: &[Pane] = &[];
const GROUPISH: &[Pane] = &[Pane::Groups, Pane::Detail, Pane::Scatter];
const OPENABLE: &[Pane] = &[Pane::Groups, Pane::Metrics, Pane::Scatter];
const NOT_SCATTER: &[Pane] = &[Pane::Groups, Pane::Detail, Pane::Metrics];
const LISTED: &[Pane] = &[Pane::Groups, Pane::Detail];
const SCATTER: &[Pane] = &[Pane::Scatter];

/// Every key the TUI understands.
pub const BINDINGS: &[Binding] = &[
    Binding {
        keys: &[Key::Code(KeyCode::Up), Key::Char('k')],
        label: "↑/k",
        action: Action::Up,
        description: "move up (groups, tokenizers; scatter with t: the previous tightest group) or scroll up (detail, flips, help)",
        hint: "move",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Down), Key::Char('j')],
        label: "↓/j",
        action: Action::Down,
        description: "move down or scroll down (metrics: past the last tokenizer into the flips; scatter with t: the next tightest group)",
        hint: "move",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::PageUp), Key::Ctrl('b')],
        label: "PgUp/C-b",
        action: Action::PageUp,
        description: "one page up",
        hint: "page",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::PageDown), Key::Ctrl('f')],
        label: "PgDn/C-f",
        action: Action::PageDown,
        description: "one page down",
        hint: "page",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('g'), Key::Code(KeyCode::Home)],
        label: "g/Home",
        action: Action::Top,
        description: "to the first line",
        hint: "top",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('G'), Key::Code(KeyCode::End)],
        label: "G/End",
        action: Action::Bottom,
        description: "to the last line",
        hint: "bottom",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Enter)],
        label: "Enter",
        action: Action::Drill,
        description: "open the selected group (groups, scatter; with t, the tightest group ▸ marks) or tokenizer (metrics)",
        hint: "open",
        scope: Scope::Panes(OPENABLE),
        footer: OPENABLE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Esc)],
        label: "Esc",
        action: Action::Back,
        description: "back to the group list; clear the search",
        hint: "back",
        scope: Scope::Global,
        footer: &[Pane::Detail],
    },
    Binding {
        keys: &[Key::Char('/')],
        label: "/",
        action: Action::StartSearch,
        description: "search groups: a number is an item id, codes (127 244) or tokens (<a_127>) a SID, other text a title",
        hint: "search",
        scope: Scope::Global,
        footer: GROUPISH,
    },
    Binding {
        keys: &[Key::Char('n')],
        label: "n",
        action: Action::SearchNext,
        description: "next search match",
        hint: "next",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('N')],
        label: "N",
        action: Action::SearchPrev,
        description: "previous search match",
        hint: "prev",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('s')],
        label: "s",
        action: Action::CycleSort,
        description: "sort groups by size, inflation contribution or ZCR saving",
        hint: "sort",
        scope: Scope::Panes(GROUPISH),
        footer: &[Pane::Groups],
    },
    Binding {
        keys: &[Key::Char('s')],
        label: "s",
        action: Action::SortMetrics,
        description: "metrics: sort by the next column (tokenizer, collision rate, seeds, … rank ItemHit, then key order)",
        hint: "sort",
        scope: Scope::Panes(&[Pane::Metrics]),
        footer: &[Pane::Metrics],
    },
    Binding {
        keys: &[Key::Char('S')],
        label: "S",
        action: Action::ReverseMetrics,
        description: "metrics: reverse the order",
        hint: "reverse",
        scope: Scope::Panes(&[Pane::Metrics]),
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('i')],
        label: "i",
        action: Action::OpenItem,
        description: "item view: all text of the selected item, its SID, group and moves in every tokenizer",
        hint: "item",
        scope: Scope::Panes(GROUPISH),
        footer: GROUPISH,
    },
    Binding {
        keys: &[Key::Char('<'), Key::Char(',')],
        label: "</,",
        action: Action::PrevMember,
        description: "previous item of the group (the one i opens and ] follows)",
        hint: "prev item",
        scope: Scope::Panes(GROUPISH),
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('>'), Key::Char('.')],
        label: ">/.",
        action: Action::NextMember,
        description: "next item of the group",
        hint: "item",
        scope: Scope::Panes(GROUPISH),
        footer: &[Pane::Detail],
    },
    Binding {
        keys: &[Key::Char('z')],
        label: "z",
        action: Action::JumpToZcr,
        description: "on a *_native tokenizer: what its *_zcr variant did to this group (in Detail)",
        hint: "zcr",
        scope: Scope::Panes(LISTED),
        footer: &[Pane::Detail],
    },
    Binding {
        keys: &[Key::Char('m')],
        label: "m",
        action: Action::PromptMinSize,
        description: "list only groups of at least this many items",
        hint: "min size",
        scope: Scope::Global,
        footer: &[Pane::Groups],
    },
    Binding {
        keys: &[Key::Char('+'), Key::Char('=')],
        label: "+/=",
        action: Action::KUp,
        description: "next larger K (1, 5, 10, 20)",
        hint: "K up",
        scope: Scope::Panes(NOT_SCATTER),
        footer: &[Pane::Metrics],
    },
    Binding {
        keys: &[Key::Char('-')],
        label: "-",
        action: Action::KDown,
        description: "next smaller K",
        hint: "K down",
        scope: Scope::Panes(NOT_SCATTER),
        footer: &[Pane::Metrics],
    },
    Binding {
        keys: &[Key::Char('K')],
        label: "K",
        action: Action::PromptK,
        description: "type any K up to the beam width",
        hint: "type K",
        scope: Scope::Global,
        footer: &[Pane::Metrics],
    },
    Binding {
        keys: &[Key::Char('v')],
        label: "v",
        action: Action::CycleSpace,
        description: "scatter: textual space, collaborative space (from interactions), both side by side (tabs when narrow)",
        hint: "space",
        scope: Scope::Panes(GROUPISH),
        footer: SCATTER,
    },
    Binding {
        keys: &[Key::Char('t')],
        label: "t",
        action: Action::ToggleTightest,
        description: "scatter: highlight the 5 tightest groups of 3+ items (smallest mean cosine distance in the text) or the 5 largest",
        hint: "tightest",
        scope: Scope::Panes(GROUPISH),
        footer: SCATTER,
    },
    Binding {
        keys: &[Key::Char('+'), Key::Char('=')],
        label: "+/=",
        action: Action::ZoomIn,
        description: "scatter: zoom in around the picked point",
        hint: "zoom",
        scope: Scope::Panes(SCATTER),
        footer: SCATTER,
    },
    Binding {
        keys: &[Key::Char('-')],
        label: "-",
        action: Action::ZoomOut,
        description: "scatter: zoom out",
        hint: "out",
        scope: Scope::Panes(SCATTER),
        footer: SCATTER,
    },
    Binding {
        keys: &[
            Key::Shift(KeyCode::Left),
            Key::Shift(KeyCode::Right),
            Key::Shift(KeyCode::Up),
            Key::Shift(KeyCode::Down),
        ],
        label: "S-arrows",
        action: Action::Pan { dx: 0, dy: 0 },
        description: "scatter: pan the view",
        hint: "pan",
        scope: Scope::Panes(SCATTER),
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('0')],
        label: "0",
        action: Action::ResetView,
        description: "scatter: show every point again",
        hint: "all",
        scope: Scope::Panes(SCATTER),
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('c')],
        label: "c",
        action: Action::CycleColour,
        description: "scatter: colour by collision group, first-level code or prefix group",
        hint: "colour",
        scope: Scope::Panes(SCATTER),
        footer: SCATTER,
    },
    Binding {
        keys: &[Key::Char('r')],
        label: "r",
        action: Action::Reload,
        description: "re-read and re-evaluate the shown tokenizer's beams file",
        hint: "reload",
        scope: Scope::Global,
        footer: &[Pane::Metrics],
    },
    Binding {
        keys: &[Key::Digit],
        label: "1-9",
        action: Action::SelectTokenizer(0),
        description: "show tokenizer 1–9",
        hint: "tokenizer",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('[')],
        label: "[",
        action: Action::PrevTokenizer,
        description: "previous tokenizer",
        hint: "tokenizer",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char(']')],
        label: "]",
        action: Action::NextTokenizer,
        description: "next tokenizer (in Detail and the item view, following the selected item)",
        hint: "tokenizer",
        scope: Scope::Global,
        footer: ALL,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Tab)],
        label: "Tab",
        action: Action::NextPane,
        description: "next pane",
        hint: "pane",
        scope: Scope::Global,
        footer: ALL,
    },
    Binding {
        keys: &[Key::Code(KeyCode::BackTab)],
        label: "S-Tab",
        action: Action::PrevPane,
        description: "previous pane",
        hint: "pane",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Left), Key::Char('h')],
        label: "←/h",
        action: Action::Left,
        description: "pane to the left (previous tab when panes are tabs)",
        hint: "pane",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Right), Key::Char('l')],
        label: "→/l",
        action: Action::Right,
        description: "pane to the right (next tab)",
        hint: "pane",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('b')],
        label: "b",
        action: Action::ToggleCodebook,
        description: "codebook view: per-level perplexity and dead codes, benign collisions, head/mid/tail items over groups, how the index was reassigned",
        hint: "codebook",
        scope: Scope::Global,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('?')],
        label: "?",
        action: Action::ToggleHelp,
        description: "show this help",
        hint: "help",
        scope: Scope::Global,
        footer: ALL,
    },
    Binding {
        keys: &[Key::Char('q'), Key::Ctrl('c')],
        label: "q",
        action: Action::Quit,
        description: "quit (also Ctrl-C, anywhere)",
        hint: "quit",
        scope: Scope::Global,
        footer: ALL,
    },
    Binding {
        keys: &[Key::AnyChar],
        label: "text",
        action: Action::Input(' '),
        description: "type the search, K or minimum size",
        hint: "type",
        scope: Scope::Typing,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Backspace)],
        label: "Bksp",
        action: Action::InputBackspace,
        description: "delete the last character",
        hint: "delete",
        scope: Scope::Typing,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Enter)],
        label: "Enter",
        action: Action::InputSubmit,
        description: "accept",
        hint: "accept",
        scope: Scope::Typing,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Esc)],
        label: "Esc",
        action: Action::InputCancel,
        description: "cancel",
        hint: "cancel",
        scope: Scope::Typing,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Ctrl('c')],
        label: "C-c",
        action: Action::Quit,
        description: "quit",
        hint: "quit",
        scope: Scope::Typing,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Up), Key::Char('k')],
        label: "↑/k",
        action: Action::Up,
        description: "scroll up",
        hint: "scroll",
        scope: Scope::Help,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Down), Key::Char('j')],
        label: "↓/j",
        action: Action::Down,
        description: "scroll down",
        hint: "scroll",
        scope: Scope::Help,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::PageUp)],
        label: "PgUp",
        action: Action::PageUp,
        description: "page up",
        hint: "page",
        scope: Scope::Help,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::PageDown)],
        label: "PgDn",
        action: Action::PageDown,
        description: "page down",
        hint: "page",
        scope: Scope::Help,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('g'), Key::Code(KeyCode::Home)],
        label: "g/Home",
        action: Action::Top,
        description: "to the first line",
        hint: "top",
        scope: Scope::Help,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('G'), Key::Code(KeyCode::End)],
        label: "G/End",
        action: Action::Bottom,
        description: "to the last line",
        hint: "bottom",
        scope: Scope::Help,
        footer: NONE,
    },
    Binding {
        keys: &[
            Key::Code(KeyCode::Esc),
            Key::Char('?'),
            Key::Char('q'),
            Key::Code(KeyCode::Enter),
        ],
        label: "Esc/?/q",
        action: Action::ToggleHelp,
        description: "close the help",
        hint: "close",
        scope: Scope::Help,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Ctrl('c')],
        label: "C-c",
        action: Action::Quit,
        description: "quit",
        hint: "quit",
        scope: Scope::Help,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Up), Key::Char('k')],
        label: "↑/k",
        action: Action::Up,
        description: "scroll up",
        hint: "scroll",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Down), Key::Char('j')],
        label: "↓/j",
        action: Action::Down,
        description: "scroll down",
        hint: "scroll",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::PageUp), Key::Ctrl('b')],
        label: "PgUp/C-b",
        action: Action::PageUp,
        description: "page up",
        hint: "page",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::PageDown), Key::Ctrl('f')],
        label: "PgDn/C-f",
        action: Action::PageDown,
        description: "page down",
        hint: "page",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('g'), Key::Code(KeyCode::Home)],
        label: "g/Home",
        action: Action::Top,
        description: "to the first line",
        hint: "top",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('G'), Key::Code(KeyCode::End)],
        label: "G/End",
        action: Action::Bottom,
        description: "to the last line",
        hint: "bottom",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[
            Key::Char('<'),
            Key::Char(','),
            Key::Code(KeyCode::Left),
            Key::Char('h'),
        ],
        label: "←/h/<",
        action: Action::PrevMember,
        description: "previous item of the group",
        hint: "prev",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[
            Key::Char('>'),
            Key::Char('.'),
            Key::Code(KeyCode::Right),
            Key::Char('l'),
        ],
        label: "→/l/>",
        action: Action::NextMember,
        description: "next item of the group",
        hint: "next item",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('[')],
        label: "[",
        action: Action::PrevTokenizer,
        description: "previous tokenizer, keeping the item",
        hint: "tokenizer",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char(']')],
        label: "]",
        action: Action::NextTokenizer,
        description: "next tokenizer, keeping the item",
        hint: "tokenizer",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[
            Key::Code(KeyCode::Esc),
            Key::Char('i'),
            Key::Char('q'),
            Key::Code(KeyCode::Enter),
        ],
        label: "Esc/i/q",
        action: Action::CloseItem,
        description: "close the item view",
        hint: "close",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Ctrl('c')],
        label: "C-c",
        action: Action::Quit,
        description: "quit",
        hint: "quit",
        scope: Scope::Item,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Up), Key::Char('k')],
        label: "↑/k",
        action: Action::Up,
        description: "scroll up",
        hint: "scroll",
        scope: Scope::Codebook,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Down), Key::Char('j')],
        label: "↓/j",
        action: Action::Down,
        description: "scroll down",
        hint: "scroll",
        scope: Scope::Codebook,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::PageUp)],
        label: "PgUp",
        action: Action::PageUp,
        description: "page up",
        hint: "page",
        scope: Scope::Codebook,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::PageDown)],
        label: "PgDn",
        action: Action::PageDown,
        description: "page down",
        hint: "page",
        scope: Scope::Codebook,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('g'), Key::Code(KeyCode::Home)],
        label: "g/Home",
        action: Action::Top,
        description: "to the first line",
        hint: "top",
        scope: Scope::Codebook,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Char('G'), Key::Code(KeyCode::End)],
        label: "G/End",
        action: Action::Bottom,
        description: "to the last line",
        hint: "bottom",
        scope: Scope::Codebook,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Code(KeyCode::Esc), Key::Char('b'), Key::Char('q')],
        label: "Esc/b/q",
        action: Action::ToggleCodebook,
        description: "close the codebook view",
        hint: "close",
        scope: Scope::Codebook,
        footer: NONE,
    },
    Binding {
        keys: &[Key::Ctrl('c')],
        label: "C-c",
        action: Action::Quit,
        description: "quit",
        hint: "quit",
        scope: Scope::Codebook,
        footer: NONE,
    },
];

/// What mouse input does, for the help overlay (mouse events are not keys, so they are not in
/// [`BINDINGS`]; [`map_mouse`] implements exactly these).
pub const MOUSE_HELP: &[(&str, &str)] = &[
    (
        "click",
        "select a row, focus a pane, pick a tab or a tokenizer; in the scatter, pick the nearest point",
    ),
    (
        "wheel",
        "scroll the pane under the pointer; over the scatter, zoom in or out",
    ),
];

impl Binding {
    fn applies(&self, mode: InputMode, focus: Pane) -> bool {
        match (self.scope, mode) {
            (Scope::Global, InputMode::Normal) => true,
            (Scope::Panes(panes), InputMode::Normal) => panes.contains(&focus),
            (Scope::Typing, InputMode::Typing)
            | (Scope::Help, InputMode::Help)
            | (Scope::Item, InputMode::Item)
            | (Scope::Codebook, InputMode::Codebook) => true,
            _ => false,
        }
    }

    fn action_for(&self, key: &KeyEvent) -> Option<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let arrow = matches!(
            key.code,
            KeyCode::Left | KeyCode::Right | KeyCode::Up | KeyCode::Down
        );
        self.keys.iter().find_map(|k| match (*k, key.code) {
            (Key::Shift(code), got) if shift && code == got => Some(match (self.action, got) {
                (Action::Pan { .. }, KeyCode::Left) => Action::Pan { dx: -1, dy: 0 },
                (Action::Pan { .. }, KeyCode::Right) => Action::Pan { dx: 1, dy: 0 },
                (Action::Pan { .. }, KeyCode::Up) => Action::Pan { dx: 0, dy: 1 },
                (Action::Pan { .. }, KeyCode::Down) => Action::Pan { dx: 0, dy: -1 },
                (action, _) => action,
            }),
            (Key::Code(_), _) if shift && arrow => None,
            (Key::Char(c), KeyCode::Char(got)) if !ctrl && !alt && got == c => Some(self.action),
            (Key::Ctrl(c), KeyCode::Char(got)) if ctrl && got.eq_ignore_ascii_case(&c) => {
                Some(self.action)
            }
            (Key::Code(code), got) if !ctrl && code == got => Some(self.action),
            (Key::Digit, KeyCode::Char(d @ '1'..='9')) if !ctrl && !alt => {
                Some(Action::SelectTokenizer(d as usize - '1' as usize))
            }
            (Key::AnyChar, KeyCode::Char(c)) if !ctrl && !alt => Some(Action::Input(c)),
            _ => None,
        })
    }
}

/// The action a key press asks for in this mode and pane, if any. Releases are ignored (only
/// some terminals report them).
pub fn map(mode: InputMode, focus: Pane, key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    BINDINGS
        .iter()
        .filter(|b| b.applies(mode, focus))
        .find_map(|b| b.action_for(&key))
}

/// The action a mouse event asks for: left click selects, the wheel scrolls. Which pane or
/// row that hits is decided by the app over its layout.
pub fn map_mouse(event: MouseEvent) -> Option<Action> {
    let (column, row) = (event.column, event.row);
    match event.kind {
        MouseEventKind::Down(MouseButton::Left) => Some(Action::Click { column, row }),
        MouseEventKind::ScrollUp => Some(Action::ScrollUp { column, row }),
        MouseEventKind::ScrollDown => Some(Action::ScrollDown { column, row }),
        _ => None,
    }
}

/// Footer hints for the focused pane: `(keys, words)` pairs, most specific first.
pub fn footer(mode: InputMode, focus: Pane) -> Vec<(&'static str, &'static str)> {
    match mode {
        InputMode::Typing => BINDINGS
            .iter()
            .filter(|b| b.scope == Scope::Typing && b.keys[0] != Key::AnyChar)
            .map(|b| (b.label, b.hint))
            .collect(),
        InputMode::Help | InputMode::Item | InputMode::Codebook => {
            let scope = match mode {
                InputMode::Help => Scope::Help,
                InputMode::Item => Scope::Item,
                _ => Scope::Codebook,
            };
            BINDINGS
                .iter()
                .filter(|b| b.scope == scope)
                .map(|b| (b.label, b.hint))
                .collect()
        }
        InputMode::Normal => {
            let mut hints: Vec<_> = BINDINGS
                .iter()
                .filter(|b| b.footer.contains(&focus) && b.footer != ALL)
                .map(|b| (b.label, b.hint))
                .collect();
            hints.extend(
                BINDINGS
                    .iter()
                    .filter(|b| b.footer == ALL)
                    .map(|b| (b.label, b.hint)),
            );
            hints
        }
    }
}

/// The help overlay's sections: a title and the bindings listed under it.
pub fn help_sections() -> Vec<(&'static str, Vec<&'static Binding>)> {
    let pick = |f: &dyn Fn(&Binding) -> bool| BINDINGS.iter().filter(|b| f(b)).collect::<Vec<_>>();
    vec![
        (
            "Anywhere",
            pick(&|b| b.scope == Scope::Global || matches!(b.scope, Scope::Panes(_))),
        ),
        ("While typing", pick(&|b| b.scope == Scope::Typing)),
        ("In the item view", pick(&|b| b.scope == Scope::Item)),
        (
            "In the codebook view",
            pick(&|b| b.scope == Scope::Codebook),
        ),
        ("In this help", pick(&|b| b.scope == Scope::Help)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn every_binding_key_maps_to_its_action() {
        for b in BINDINGS {
            let (mode, focus) = match b.scope {
                Scope::Global => (InputMode::Normal, Pane::Groups),
                Scope::Panes(p) => (InputMode::Normal, p[0]),
                Scope::Typing => (InputMode::Typing, Pane::Groups),
                Scope::Help => (InputMode::Help, Pane::Groups),
                Scope::Item => (InputMode::Item, Pane::Groups),
                Scope::Codebook => (InputMode::Codebook, Pane::Groups),
            };
            for k in b.keys {
                let ev = match *k {
                    Key::Char(c) => press(KeyCode::Char(c)),
                    Key::Ctrl(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
                    Key::Code(c) => press(c),
                    Key::Shift(c) => KeyEvent::new(c, KeyModifiers::SHIFT),
                    Key::Digit => press(KeyCode::Char('3')),
                    Key::AnyChar => press(KeyCode::Char('x')),
                };
                let expected = match *k {
                    Key::Shift(KeyCode::Left) => Action::Pan { dx: -1, dy: 0 },
                    Key::Shift(KeyCode::Right) => Action::Pan { dx: 1, dy: 0 },
                    Key::Shift(KeyCode::Up) => Action::Pan { dx: 0, dy: 1 },
                    Key::Shift(KeyCode::Down) => Action::Pan { dx: 0, dy: -1 },
                    Key::Digit => Action::SelectTokenizer(2),
                    Key::AnyChar => Action::Input('x'),
                    _ => b.action,
                };
                assert_eq!(
                    map(mode, focus, ev),
                    Some(expected),
                    "{} ({:?})",
                    b.label,
                    k
                );
            }
        }
    }

    #[test]
    fn no_two_bindings_claim_one_key_in_one_place() {
        for mode in [
            InputMode::Normal,
            InputMode::Typing,
            InputMode::Help,
            InputMode::Item,
            InputMode::Codebook,
        ] {
            for focus in Pane::ALL {
                let mut seen = Vec::new();
                for b in BINDINGS.iter().filter(|b| b.applies(mode, focus)) {
                    for k in b.keys {
                        assert!(!seen.contains(k), "{k:?} bound twice in {mode:?}/{focus:?}");
                        seen.push(*k);
                    }
                }
            }
        }
    }

    #[test]
    fn typing_takes_letters_as_text_and_ctrl_c_still_quits() {
        let q = press(KeyCode::Char('q'));
        assert_eq!(
            map(InputMode::Typing, Pane::Groups, q),
            Some(Action::Input('q'))
        );
        assert_eq!(map(InputMode::Normal, Pane::Groups, q), Some(Action::Quit));
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        for mode in [InputMode::Normal, InputMode::Typing, InputMode::Help] {
            assert_eq!(map(mode, Pane::Detail, ctrl_c), Some(Action::Quit));
        }
    }

    #[test]
    fn shifted_letters_and_releases() {
        let shifted = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(
            map(InputMode::Normal, Pane::Groups, shifted),
            Some(Action::Bottom)
        );
        let mut release = press(KeyCode::Char('j'));
        release.kind = KeyEventKind::Release;
        assert_eq!(map(InputMode::Normal, Pane::Groups, release), None);
        let enter = press(KeyCode::Enter);
        assert_eq!(map(InputMode::Normal, Pane::Detail, enter), None);
        assert_eq!(
            map(InputMode::Normal, Pane::Groups, enter),
            Some(Action::Drill)
        );
    }

    #[test]
    fn footer_shows_pane_keys_then_essentials() {
        let groups = footer(InputMode::Normal, Pane::Groups);
        assert_eq!(groups[0], ("Enter", "open"));
        assert!(groups.contains(&("s", "sort")));
        assert_eq!(groups.last(), Some(&("q", "quit")));
        let metrics = footer(InputMode::Normal, Pane::Metrics);
        assert!(metrics.contains(&("+/=", "K up")));
        assert!(
            metrics.contains(&("s", "sort")),
            "s sorts the metrics there"
        );
        assert!(!metrics.contains(&("m", "min size")));
    }
}
