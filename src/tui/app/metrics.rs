//! K and the metrics as actions change them: the comparison recomputed when K or an
//! evaluation changes (and the group order with it when it is by inflation), K stepped or
//! typed, the table sorted, and ↑/↓ through the metrics pane as one list.

use super::App;
use crate::tui::state::groups::SortKey;
use crate::tui::state::metrics::MetricsState;
use crate::tui::state::status::Notice;
use crate::tui::view;

impl App {
    /// Recomputes what depends on K: the comparison table (at once, without tests; the
    /// tests follow in the background once every evaluation is in), and the group order
    /// when it is by inflation (group credit itself is computed where it is shown).
    pub(super) fn refresh_metrics(&mut self) {
        self.metrics.refresh(&self.tokenizers);
        let most = view::metrics::max_scroll(&self.screen());
        self.metrics.scroll = self.metrics.scroll.min(most);
        if self.groups.sort == SortKey::Inflation {
            self.rebuild_order(self.tokenizers.selected);
            self.refresh_search();
        }
    }

    /// `s` in Metrics: sort by the next column of the table shown; `S`: flip the direction.
    pub(super) fn sort_metrics(&mut self, reverse: bool) {
        let text = self.metrics.cycle_sort(reverse);
        self.say(Notice::info(text));
    }

    /// `+`/`-`: the next K step up or down, or why K stays.
    pub(super) fn step_k(&mut self, up: bool) {
        let steps = MetricsState::k_steps(self.tokenizers.max_k());
        let k = self.metrics.k;
        let next = if up {
            steps.iter().copied().find(|&s| s > k)
        } else {
            steps.iter().rev().copied().find(|&s| s < k)
        };
        match next {
            Some(k) => self.set_k(k),
            None => self.say(Notice::info(format!(
                "K stays {k} (the beams are {} long; K types any K up to that)",
                self.tokenizers.max_k()
            ))),
        }
    }

    /// Sets K and recomputes what depends on it.
    pub(super) fn set_k(&mut self, k: usize) {
        self.metrics.k = k;
        self.refresh_metrics();
    }

    /// Moves through the metrics pane as one list: the tokenizer rows, then the flip lines
    /// under them (down selects the next tokenizer until the last, then scrolls the flips;
    /// up scrolls back first).
    pub(super) fn step_metrics(&mut self, delta: isize) {
        let order = self.screen().metrics_order();
        let selected = self.tokenizers.selected;
        let scrolled = self.metrics.scroll;
        let at = order.iter().position(|&i| i == selected).unwrap_or(0);
        let last = order.len().saturating_sub(1);
        let d = delta.unsigned_abs();
        let (row, scroll) = if delta >= 0 {
            let to_last = last.saturating_sub(at);
            if d <= to_last {
                (at + d, scrolled)
            } else {
                (last, scrolled.saturating_add(d - to_last))
            }
        } else if d <= scrolled {
            (at, scrolled - d)
        } else {
            (at.saturating_sub(d - scrolled), 0)
        };
        if let Some(&i) = order.get(row).filter(|&&i| i != selected) {
            self.select_tokenizer(i);
        }
        // The body's length depends on the selected tokenizer's facts: clamp after selecting.
        let most = view::metrics::max_scroll(&self.screen());
        self.metrics.scroll = scroll.min(most);
    }
}
