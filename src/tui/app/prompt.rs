//! Prompts and search as actions change them: a prompt opened, typed into (the list follows a
//! search as it is typed), submitted (a search, a K, a minimum size) or cancelled; matches
//! kept current as lists change, `n`/`N` between them, and why a search found nothing.

use super::App;
use crate::tui::keys::InputMode;
use crate::tui::search::Query;
use crate::tui::state::prompt::{PromptKind, Search};
use crate::tui::state::status::Notice;

impl App {
    /// Opens an empty prompt for `kind`; keys are text until it closes.
    pub(super) fn open_prompt(&mut self, kind: PromptKind) {
        self.prompt.open(kind);
        self.mode = InputMode::Typing;
    }

    /// Types `c` into the open prompt.
    pub(super) fn type_char(&mut self, c: char) {
        if self.prompt.type_char(c) {
            self.after_typing();
        }
    }

    /// Searches as the user types, so the list follows the query.
    pub(super) fn after_typing(&mut self) {
        let Some(text) = self.prompt.search_typed() else {
            return;
        };
        self.set_search(&text);
        self.jump_to_first_match();
    }

    /// Enter in a prompt: searches, or sets K or the minimum size when the number is valid.
    pub(super) fn submit_prompt(&mut self) {
        let Some(prompt) = self.prompt.open.take() else {
            return;
        };
        self.mode = InputMode::Normal;
        match prompt.kind {
            PromptKind::Search => self.finish_search(&prompt.text),
            PromptKind::K => match prompt.text.parse::<usize>() {
                Ok(k) if (1..=self.tokenizers.max_k()).contains(&k) => self.set_k(k),
                _ => self.say(Notice::warn(format!(
                    "K must be a whole number from 1 to {}",
                    self.tokenizers.max_k()
                ))),
            },
            PromptKind::MinSize => match prompt.text.parse::<usize>() {
                Ok(m) if m >= 2 => self.set_min_size(m),
                Err(_) if prompt.text.is_empty() => self.set_min_size(2),
                _ => self.say(Notice::warn(
                    "the minimum group size is a number of at least 2",
                )),
            },
        }
    }

    /// Esc in a prompt: closes it (a search prompt clears its search).
    pub(super) fn cancel_prompt(&mut self) {
        self.prompt.cancel();
        self.mode = InputMode::Normal;
    }

    fn set_search(&mut self, text: &str) {
        let query = Query::parse(text);
        if query == Query::Empty {
            self.prompt.search = None;
            return;
        }
        let matches = self.find_matches(&query);
        self.prompt.search = Some(Search {
            text: text.to_string(),
            query,
            matches,
        });
    }

    /// Positions in the shown list of the groups `query` matches.
    fn find_matches(&self, query: &Query) -> Vec<usize> {
        let Some(t) = self.tokenizers.shown() else {
            return Vec::new();
        };
        let Some(data) = t.data.ready() else {
            return Vec::new();
        };
        t.list
            .order
            .iter()
            .enumerate()
            .filter(|&(_, &row)| query.matches(&data.rows[row]))
            .map(|(pos, _)| pos)
            .collect()
    }

    /// Finds the active search's matches again, after the list shown changed.
    pub(super) fn refresh_search(&mut self) {
        if let Some(s) = &self.prompt.search {
            let matches = self.find_matches(&s.query);
            if let Some(s) = &mut self.prompt.search {
                s.matches = matches;
            }
        }
    }

    fn finish_search(&mut self, text: &str) {
        self.set_search(text);
        let Some(search) = &self.prompt.search else {
            return;
        };
        if search.matches.is_empty() {
            let msg = self.explain_miss(&search.query, text);
            self.say(Notice::warn(msg));
        } else {
            self.jump_to_first_match();
            self.say_match_position();
        }
    }

    /// Why a search found nothing, naming the item when the query is an id outside any group.
    fn explain_miss(&self, query: &Query, text: &str) -> String {
        if let (Some(id), Some(data)) = (query.as_item_id(), self.tokenizers.data())
            && let Some(pos) = data.index.ids().position(id)
        {
            let group = data.collisions.group_of(pos);
            if data.collisions.size(group) < 2 {
                return format!(
                    "item {id} has SID {} to itself: it is in no collision group",
                    data.index.sid_string(pos)
                );
            }
            return format!(
                "item {id} is in a group of {} items, below the minimum size {}",
                data.collisions.size(group),
                self.groups.min_size
            );
        }
        format!("no group matches \"{text}\"")
    }

    fn jump_to_first_match(&mut self) {
        let Some(first) = self
            .prompt
            .search
            .as_ref()
            .and_then(|s| s.matches.first().copied())
        else {
            return;
        };
        self.set_cursor(first);
        self.select_searched_item();
    }

    /// `n`/`N`: the next or previous match, wrapping around.
    pub(super) fn jump_to_match(&mut self, forward: bool) {
        let Some(search) = &self.prompt.search else {
            self.say(Notice::info("no search: press / to search"));
            return;
        };
        if search.matches.is_empty() {
            let text = format!("no group matches \"{}\"", search.text);
            self.say(Notice::warn(text));
            return;
        }
        let cursor = self.tokenizers.shown().map_or(0, |t| t.list.cursor);
        let matches = &search.matches;
        let target = if forward {
            matches.iter().find(|&&m| m > cursor).unwrap_or(&matches[0])
        } else {
            matches
                .iter()
                .rev()
                .find(|&&m| m < cursor)
                .unwrap_or(&matches[matches.len() - 1])
        };
        self.set_cursor(*target);
        self.select_searched_item();
        self.say_match_position();
    }

    fn say_match_position(&mut self) {
        let Some(search) = &self.prompt.search else {
            return;
        };
        let cursor = self.tokenizers.shown().map_or(0, |t| t.list.cursor);
        if let Some(i) = search.matches.iter().position(|&m| m == cursor) {
            let text = format!(
                "match {} of {} for \"{}\" (n/N for next/previous)",
                i + 1,
                search.matches.len(),
                search.text
            );
            self.say(Notice::info(text));
        }
    }

    /// After a search for an item id, makes that item the selected member of its group.
    fn select_searched_item(&mut self) {
        let id = match self
            .prompt
            .search
            .as_ref()
            .and_then(|s| s.query.as_item_id())
        {
            Some(id) => id.to_string(),
            None => return,
        };
        let Some(at) = self
            .tokenizers
            .selected_row()
            .and_then(|r| r.items.iter().position(|i| i.id == id))
        else {
            return;
        };
        if let Some(t) = self.tokenizers.shown_mut() {
            t.detail.member = at;
        }
    }
}
