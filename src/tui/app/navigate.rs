//! Moving around: focus between panes, what ↑/↓ move in each pane and overlay, switching
//! tokenizers (following the selected or viewed item into the next one), the items of a
//! group, the item view, `z` to the `*_zcr` sibling's section, Enter and Esc.

use super::App;
use crate::tui::keys::InputMode;
use crate::tui::layout::Pane;
use crate::tui::state::groups::SortKey;
use crate::tui::state::offset_by;
use crate::tui::state::status::Notice;
use crate::tui::view;

impl App {
    /// Focuses `pane`; Metrics and Scatter also take the shared slot of the three-pane layout.
    pub(super) fn set_focus(&mut self, pane: Pane) {
        self.focus = pane;
        if matches!(pane, Pane::Metrics | Pane::Scatter) {
            self.companion = pane;
        }
        self.scroll_into_view();
    }

    /// Moves what the focused pane (or the open overlay) moves by `delta` lines.
    pub(super) fn step(&mut self, delta: isize) {
        if self.mode == InputMode::Help {
            let most = view::help::max_scroll(&self.screen());
            self.overlays.help_scroll = offset_by(self.overlays.help_scroll.min(most), delta, most);
            return;
        }
        if self.mode == InputMode::Codebook {
            let most = view::codebook::max_scroll(&self.screen());
            self.overlays.codebook_scroll =
                offset_by(self.overlays.codebook_scroll.min(most), delta, most);
            return;
        }
        if self.mode == InputMode::Item {
            let most = view::item::max_scroll(&self.screen());
            self.overlays.item_scroll = offset_by(self.overlays.item_scroll.min(most), delta, most);
            return;
        }
        match self.focus {
            Pane::Scatter if self.screen().tight_groups().is_some() => self.step_tight(delta),
            Pane::Groups | Pane::Scatter => self.move_cursor(delta),
            Pane::Detail => {
                let most = view::detail::max_scroll(&self.screen());
                if let Some(t) = self.tokenizers.shown_mut() {
                    t.detail.scroll_by(delta, most);
                }
            }
            Pane::Metrics => self.step_metrics(delta),
        }
    }

    /// Shows tokenizer `i`; in the item view or the detail pane, its item follows.
    pub(super) fn select_tokenizer(&mut self, i: usize) {
        if i >= self.tokenizers.len() {
            let n = self.tokenizers.len();
            self.say(Notice::warn(format!(
                "no tokenizer {} (there {} {n})",
                i + 1,
                if n == 1 { "is" } else { "are" }
            )));
            return;
        }
        let followed = match (self.mode, self.focus) {
            (InputMode::Item, _) => self.overlays.item.clone(),
            (_, Pane::Detail) => self.tokenizers.member_id().map(str::to_string),
            _ => None,
        };
        self.tokenizers.selected = i;
        if self.groups.sort == SortKey::Inflation {
            self.rebuild_order(i);
        }
        self.refresh_search();
        self.refresh_scatter();
        if let Some(id) = followed {
            self.follow(&id);
        }
        self.scroll_into_view();
    }

    /// Selects the group of item `id` in the tokenizer shown, or says why there is none.
    fn follow(&mut self, id: &str) {
        let Some(data) = self.tokenizers.data().cloned() else {
            return;
        };
        let name = self.tokenizers[self.tokenizers.selected].name().to_string();
        let Some(position) = data.index.ids().position(id) else {
            self.say(Notice::warn(format!("{name} has no item {id}")));
            return;
        };
        let group = data.collisions.group_of(position);
        let size = data.collisions.size(group);
        match self.tokenizers.listed(&data, group) {
            Some((row, position)) => {
                self.set_cursor(position);
                if let Some(t) = self.tokenizers.shown_mut() {
                    t.detail.member = data.rows[row].items.iter().position(|i| i.id == id).unwrap_or(0);
                }
                self.say(Notice::info(format!("following item {id} into {name}")));
            }
            None if size < 2 => self.say(Notice::info(format!(
                "in {name} item {id} has SID {} to itself (no collision); i shows it in every tokenizer",
                data.index.sid_string(position)
            ))),
            None => self.say(Notice::info(format!(
                "in {name} item {id} is in a group of {size}, below the minimum size {}",
                self.groups.min_size
            ))),
        }
    }

    /// `i`: the item view of the selected item.
    pub(super) fn open_item(&mut self) {
        match self.tokenizers.member_id().map(str::to_string) {
            Some(id) => {
                self.overlays.show_item(id);
                self.mode = InputMode::Item;
            }
            None => self.say(Notice::warn("no collision group selected")),
        }
    }

    /// The previous or next item of the group: in the item view, of the shown item's group in
    /// the tokenizer shown; elsewhere, of the selected group.
    pub(super) fn step_member(&mut self, delta: isize) {
        if self.mode == InputMode::Item {
            let (Some(id), Some(data)) =
                (self.overlays.item.clone(), self.tokenizers.data().cloned())
            else {
                return;
            };
            let Some(position) = data.index.ids().position(&id) else {
                return;
            };
            let group = data.collisions.group_of(position);
            let members = &data.collisions.items_in_id_order(&data.index, group);
            if members.len() < 2 {
                let name = self.tokenizers[self.tokenizers.selected].name().to_string();
                self.say(Notice::info(format!(
                    "in {name} item {id} has its SID to itself"
                )));
                return;
            }
            let at = members
                .iter()
                .position(|&p| p as usize == position)
                .unwrap_or(0);
            let next = offset_by(at, delta, members.len() - 1);
            self.overlays
                .show_item(data.index.id(members[next] as usize).to_string());
            return;
        }
        let Some(size) = self.tokenizers.selected_row().map(|r| r.items.len()) else {
            self.say(Notice::warn("no collision group selected"));
            return;
        };
        if let Some(t) = self.tokenizers.shown_mut() {
            t.detail.step_member(delta, size);
        }
    }

    /// Scrolls the detail pane to what the `*_zcr` sibling of the tokenizer shown did to the
    /// selected group.
    pub(super) fn jump_to_zcr(&mut self) {
        let name = self
            .tokenizers
            .shown()
            .map(|t| t.name().to_string())
            .unwrap_or_default();
        let Some(zcr) = crate::usecase::item_view::zcr_of(&name) else {
            self.say(Notice::info(format!(
                "{name} is not a *_native variant, so there is no *_zcr one to compare"
            )));
            return;
        };
        if !self.tokenizers.iter().any(|t| t.name() == zcr) {
            self.say(Notice::info(format!("no tokenizer {zcr} is loaded")));
            return;
        }
        self.set_focus(Pane::Detail);
        let screen = self.screen();
        let (line, most) = (
            view::detail::zcr_section_line(&screen),
            view::detail::max_scroll(&screen),
        );
        match line {
            Some(line) => {
                if let Some(t) = self.tokenizers.shown_mut() {
                    t.detail.scroll = line.min(most);
                }
            }
            None => self.say(Notice::warn("no collision group selected")),
        }
    }

    /// Enter: from Metrics to the groups, from the scatter's tightest groups to the one ▸
    /// points at, else into the selected group's detail.
    pub(super) fn drill(&mut self) {
        match self.focus {
            Pane::Metrics => self.set_focus(Pane::Groups),
            Pane::Scatter if self.screen().tight_groups().is_some() => {
                if self.select_tight() {
                    self.set_focus(Pane::Detail);
                }
            }
            _ if self.tokenizers.selected_row().is_some() => self.set_focus(Pane::Detail),
            _ => self.say(Notice::warn("no collision group selected")),
        }
    }

    /// Esc: from the detail back to the groups, else clears the search.
    pub(super) fn back(&mut self) {
        if self.focus == Pane::Detail {
            self.set_focus(Pane::Groups);
        } else if self.prompt.search.take().is_some() {
            self.say(Notice::info("search cleared"));
        }
    }
}
