//! The metrics' state: the cutoff K and the semantics, the comparison of every loaded
//! tokenizer at K (computed at once) and the same with its paired tests (a background job),
//! the table's order and how far the flip list under it is scrolled.

use std::sync::Arc;

use super::slot::Slot;
use super::tokenizers::TokenizerTab;
use crate::metrics::{Compat, Decode};
use crate::progress::NoProgress;
use crate::report::compare::{report_order_by, report_table};
use crate::usecase::{self, CompareReport, EvaluatedTokenizer};

/// K values `+` and `-` step through.
pub const K_STEPS: [usize; 4] = [1, 5, 10, 20];
/// K when nothing says otherwise.
pub const DEFAULT_K: usize = 10;

/// What the metrics pane shows and at which K.
#[derive(Debug)]
pub struct MetricsState {
    /// The metrics cutoff.
    pub k: usize,
    /// Semantics of the metrics.
    pub compat: Compat,
    /// The table's order: a column of the library's comparison table and whether largest
    /// first; `None` keeps tokenizer order.
    pub sort: Option<(usize, bool)>,
    /// Every loaded tokenizer ranked by Hit@K and ItemHit@K at the current K, seeds as
    /// mean ± std, without tests (computed at once, so the table never waits for them).
    pub comparison: Option<CompareReport>,
    /// The same comparison with the paired tests `sidlens compare` runs (a background job).
    pub tested: Slot<Arc<CompareReport>>,
    /// Lines the flip list under the table is scrolled down (screen lines, after wrapping).
    pub scroll: usize,
    /// Set when the comparison changed and its tests should start after this update.
    tests_due: bool,
}

impl MetricsState {
    /// Nothing compared yet, at the default K.
    pub fn new(compat: Compat) -> MetricsState {
        MetricsState {
            k: DEFAULT_K,
            compat,
            sort: None,
            comparison: None,
            tested: Slot::Missing("paired tests need two tokenizers with beams".into()),
            scroll: 0,
            tests_due: false,
        }
    }

    /// The comparison the metrics pane shows: with its tests once they are done.
    pub fn report(&self) -> Option<&CompareReport> {
        match &self.tested {
            Slot::Ready(r) => Some(r),
            _ => self.comparison.as_ref(),
        }
    }

    /// Tokenizers (indexes into `tokenizers`) in the order the table lists them: its sort,
    /// else key order.
    pub fn order(&self, tokenizers: &[TokenizerTab]) -> Vec<usize> {
        let all: Vec<usize> = (0..tokenizers.len()).collect();
        let (Some((column, descending)), Some(r)) = (self.sort, self.report()) else {
            return all;
        };
        let rows = &r.comparisons[0].rows;
        let mut order: Vec<usize> = report_order_by(r, column, descending)
            .into_iter()
            .filter_map(|i| tokenizers.iter().position(|t| t.name() == rows[i].name))
            .collect();
        let rest: Vec<usize> = all.into_iter().filter(|i| !order.contains(i)).collect();
        order.extend(rest);
        order
    }

    /// The K values `+` and `-` step through: 1, 5, 10, 20 up to the beam width `max_k`, and
    /// the width itself.
    pub fn k_steps(max_k: usize) -> Vec<usize> {
        let mut steps: Vec<usize> = K_STEPS.iter().copied().filter(|&k| k <= max_k).collect();
        if !steps.contains(&max_k) {
            steps.push(max_k);
        }
        steps
    }

    /// Compares `tokenizers` at the current K (at once, without tests) and decides whether
    /// the paired tests can follow: they need two evaluations and none still running.
    pub fn refresh(&mut self, tokenizers: &[TokenizerTab]) {
        let loaded: Vec<_> = tokenizers
            .iter()
            .filter_map(|t| Some((t, t.data.ready()?, t.metrics.ready())))
            .collect();
        let evaluated: Vec<EvaluatedTokenizer> = loaded
            .iter()
            .map(|(t, data, m)| EvaluatedTokenizer {
                name: t.name(),
                index: &data.index,
                collisions: &data.collisions,
                seeds: m.map(|m| &m.seeds),
                files: Some(&t.source),
            })
            .collect();
        let with_beams = evaluated.iter().filter(|e| e.seeds.is_some()).count();
        self.comparison = (!evaluated.is_empty())
            .then(|| {
                usecase::compare_evaluated(
                    &evaluated,
                    &[self.k],
                    self.compat,
                    None,
                    (Decode::Cce, None),
                    &NoProgress,
                )
                .ok()
            })
            .flatten();
        let waiting = tokenizers
            .iter()
            .filter(|t| t.data.is_loading() || t.metrics.is_loading())
            .count();
        self.tests_due = false;
        self.tested = if with_beams + waiting < 2 {
            Slot::Missing("paired tests need two tokenizers with beams".into())
        } else if waiting > 0 {
            Slot::Missing(format!(
                "paired tests start once {waiting} more evaluation{} {} in",
                if waiting == 1 { "" } else { "s" },
                if waiting == 1 { "is" } else { "are" }
            ))
        } else if with_beams < 2 {
            Slot::Missing("paired tests need two tokenizers with beams".into())
        } else {
            self.tests_due = true;
            Slot::Loading(None)
        };
    }

    /// Whether the paired tests should start now; true once per refresh that made them due.
    pub fn take_tests_due(&mut self) -> bool {
        std::mem::take(&mut self.tests_due)
    }

    /// `s`: sort by the next column of the table shown (after the last, back to tokenizer
    /// order); with `reverse` (`S`), flip the direction. Returns what the status line says.
    pub fn cycle_sort(&mut self, reverse: bool) -> String {
        let headers = self.report().map(|r| report_table(r, false).headers);
        let columns = headers.as_ref().map_or(1, Vec::len);
        // Numbers read best largest first, names and ranks A→Z / 1→n.
        let descending = |c: usize| {
            headers
                .as_ref()
                .is_some_and(|h| c > 0 && !h[c].starts_with("rank"))
        };
        self.sort = match (self.sort, reverse) {
            (None, false) => Some((0, false)),
            (None, true) => Some((0, true)),
            (Some((c, d)), true) => Some((c, !d)),
            (Some((c, _)), false) if c + 1 < columns => Some((c + 1, descending(c + 1))),
            (Some(_), false) => None,
        };
        match (self.sort, &headers) {
            (Some((c, d)), Some(h)) => format!(
                "metrics sorted by {}, {} (s: next column, S: reverse)",
                h[c.min(h.len() - 1)],
                if d { "largest first" } else { "smallest first" }
            ),
            (Some(_), None) => "metrics sorted once they are computed".into(),
            (None, _) => "metrics in tokenizer order".into(),
        }
    }
}
