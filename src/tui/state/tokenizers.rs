//! Every tokenizer the TUI opened, in key order, and which one is shown: each with its data as
//! it arrives (index, evaluated beams, reassignment), its group list and its detail position,
//! so switching tokenizers and back finds each where it was left.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::detail::DetailState;
use super::groups::ListView;
use super::offset_by;
use super::slot::Slot;
use crate::load::TokenizerFiles;
use crate::report::groups::GroupRow;
use crate::tui::data::{Evaluated, Reassigned, TokenizerData};

/// The largest K accepted while no beams are loaded.
const K_WITHOUT_BEAMS: usize = 20;

/// One tokenizer as the app tracks it.
#[derive(Debug)]
pub struct TokenizerTab {
    /// Where it comes from.
    pub source: TokenizerFiles,
    /// Its index, groups and rows.
    pub data: Slot<Arc<TokenizerData>>,
    /// Its evaluated beams.
    pub metrics: Slot<Arc<Evaluated>>,
    /// Its reassignment plan.
    pub reassign: Slot<Arc<Reassigned>>,
    /// Its group list.
    pub list: ListView,
    /// Where its detail pane is.
    pub detail: DetailState,
}

impl TokenizerTab {
    /// The tokenizer of `source` before anything is loaded: its index loading, its beams and
    /// reassignment waiting for it (or saying how to give beams).
    pub fn new(source: &TokenizerFiles) -> TokenizerTab {
        TokenizerTab {
            source: source.clone(),
            data: Slot::Loading(None),
            metrics: Slot::Missing(match source.beams_file() {
                Some(_) => "waiting for the index".into(),
                None => source.no_beams_warning(),
            }),
            reassign: Slot::Missing("waiting for the index".into()),
            list: ListView::default(),
            detail: DetailState::default(),
        }
    }

    /// The tokenizer's name.
    pub fn name(&self) -> &str {
        &self.source.name
    }

    /// Moves the cursor by `delta` rows, within the list; a new group starts its detail at
    /// the top with its first item. True when the selected group changed.
    pub fn move_cursor(&mut self, delta: isize) -> bool {
        let last = self.list.order.len().saturating_sub(1);
        let cursor = offset_by(self.list.cursor, delta, last);
        let changed = cursor != self.list.cursor;
        if changed {
            self.list.cursor = cursor;
            self.detail.reset();
        }
        changed
    }

    /// Moves the cursor to `position` when it is listed; a new group starts its detail at the
    /// top with its first item. True when the selected group changed.
    pub fn set_cursor(&mut self, position: usize) -> bool {
        if position >= self.list.order.len() {
            return false;
        }
        let changed = self.list.cursor != position;
        if changed {
            self.detail.reset();
        }
        self.list.cursor = position;
        changed
    }
}

/// Every tokenizer (indexable as a slice) and the one shown.
#[derive(Debug)]
pub struct Tokenizers {
    all: Vec<TokenizerTab>,
    /// The tokenizer shown.
    pub selected: usize,
}

impl Deref for Tokenizers {
    type Target = [TokenizerTab];

    fn deref(&self) -> &[TokenizerTab] {
        &self.all
    }
}

impl DerefMut for Tokenizers {
    fn deref_mut(&mut self) -> &mut [TokenizerTab] {
        &mut self.all
    }
}

impl Tokenizers {
    /// These tokenizers, the first one shown.
    pub fn new(all: Vec<TokenizerTab>) -> Tokenizers {
        Tokenizers { all, selected: 0 }
    }

    /// The tokenizer shown, if there is any.
    pub fn shown(&self) -> Option<&TokenizerTab> {
        self.all.get(self.selected)
    }

    /// The tokenizer shown, to change its list or detail position.
    pub fn shown_mut(&mut self) -> Option<&mut TokenizerTab> {
        self.all.get_mut(self.selected)
    }

    /// The loaded data of the tokenizer shown.
    pub fn data(&self) -> Option<&Arc<TokenizerData>> {
        self.shown().and_then(|t| t.data.ready())
    }

    /// The selected group's row, when the tokenizer shown is loaded and has collisions.
    pub fn selected_row(&self) -> Option<&GroupRow> {
        let t = self.shown()?;
        let row = t.list.selected()?;
        t.data.ready()?.rows.get(row)
    }

    /// The id of the selected item of the selected group.
    pub fn member_id(&self) -> Option<&str> {
        let t = self.shown()?;
        let row = self.selected_row()?;
        row.items
            .get(t.detail.member.min(row.items.len().saturating_sub(1)))
            .map(|i| i.id.as_str())
    }

    /// Collision group `group` of the tokenizer shown (whose data is `data`) as its row id
    /// and its position in the list, when the list shows it.
    pub fn listed(&self, data: &TokenizerData, group: u32) -> Option<(usize, usize)> {
        let row = data.row_of(group)?;
        let position = self.shown()?.list.position_of(row)?;
        Some((row, position))
    }

    /// Every tokenizer's name, in key order.
    pub fn names(&self) -> Vec<&str> {
        self.all.iter().map(TokenizerTab::name).collect()
    }

    /// The largest K the loaded beams allow: the longest beam list.
    pub fn max_k(&self) -> usize {
        self.all
            .iter()
            .filter_map(|t| t.metrics.ready().map(|m| m.beam_width()))
            .max()
            .filter(|&w| w > 0)
            .unwrap_or(K_WITHOUT_BEAMS)
    }

    /// Whether a tokenizer's index, evaluation or reassignment is still being computed.
    pub fn busy(&self) -> bool {
        self.all
            .iter()
            .any(|t| t.data.is_loading() || t.metrics.is_loading() || t.reassign.is_loading())
    }
}
