//! The prompt and the search: what an open prompt (`/`, `K`, `m`) is for and what has been
//! typed, and the active search over the group list with the positions it matches.

use crate::tui::search::Query;

/// What an open prompt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `/`: a search query.
    Search,
    /// `K`: a cutoff.
    K,
    /// `m`: a minimum group size.
    MinSize,
}

/// An open prompt and what has been typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// What it is for.
    pub kind: PromptKind,
    /// The text so far.
    pub text: String,
}

/// An active search over the group list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// What was typed.
    pub text: String,
    /// The parsed query.
    pub query: Query,
    /// Positions in the list (not row ids) of matching groups, in list order.
    pub matches: Vec<usize>,
}

/// The open prompt and the active search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptState {
    /// The open prompt, if any.
    pub open: Option<Prompt>,
    /// The active search.
    pub search: Option<Search>,
}

/// The longest text a prompt takes.
const MAX_CHARS: usize = 200;

impl PromptState {
    /// Opens an empty prompt for `kind`.
    pub fn open(&mut self, kind: PromptKind) {
        self.open = Some(Prompt {
            kind,
            text: String::new(),
        });
    }

    /// Types `c` into the open prompt (digits only for a number, at most 200 characters).
    /// False when no prompt is open or it refuses the character.
    pub fn type_char(&mut self, c: char) -> bool {
        let Some(p) = &mut self.open else {
            return false;
        };
        let numeric = matches!(p.kind, PromptKind::K | PromptKind::MinSize);
        if numeric && !c.is_ascii_digit() {
            return false;
        }
        if p.text.chars().count() < MAX_CHARS {
            p.text.push(c);
        }
        true
    }

    /// Deletes the last character typed.
    pub fn backspace(&mut self) {
        if let Some(p) = &mut self.open {
            p.text.pop();
        }
    }

    /// The text of an open search prompt (what the list follows as it is typed).
    pub fn search_typed(&self) -> Option<String> {
        match &self.open {
            Some(Prompt {
                kind: PromptKind::Search,
                text,
            }) => Some(text.clone()),
            _ => None,
        }
    }

    /// Closes the prompt; a search prompt's search goes with it.
    pub fn cancel(&mut self) {
        if let Some(p) = self.open.take()
            && p.kind == PromptKind::Search
        {
            self.search = None;
        }
    }
}
