//! The group list's state: each tokenizer's list (its order after sort and filter, the cursor,
//! the first visible row) and the order and minimum size that all lists share.

use std::sync::Arc;

use super::slot::Slot;
use crate::tui::data::{Evaluated, Reassigned, TokenizerData, prefix_key};

/// Orders of the group list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Largest group first (the library's order).
    Size,
    /// Most SID-level credit beyond item-level credit at K first (needs beams).
    Inflation,
    /// Largest ZCR saving over greedy in the group's prefix group first (needs vectors).
    Saving,
}

impl SortKey {
    /// The key's name in the pane title.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Size => "size",
            SortKey::Inflation => "inflation",
            SortKey::Saving => "ZCR saving",
        }
    }

    /// The key `o` switches to.
    pub fn next(self) -> SortKey {
        match self {
            SortKey::Size => SortKey::Inflation,
            SortKey::Inflation => SortKey::Saving,
            SortKey::Saving => SortKey::Size,
        }
    }
}

/// The group list of one tokenizer: order after sort and filter, cursor and scroll.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListView {
    /// Row ids (into `TokenizerData::rows`) in display order.
    pub order: Vec<usize>,
    /// Position of the selected row in `order`.
    pub cursor: usize,
    /// Position of the first visible row.
    pub offset: usize,
}

impl ListView {
    /// The row id under the cursor.
    pub fn selected(&self) -> Option<usize> {
        self.order.get(self.cursor).copied()
    }

    /// Where row `row` is listed, if it is.
    pub fn position_of(&self, row: usize) -> Option<usize> {
        self.order.iter().position(|&r| r == row)
    }

    /// Takes a new order, keeping the selected row selected when it is still listed (else
    /// the first row).
    pub fn reorder(&mut self, order: Vec<usize>) {
        let keep = self.selected();
        self.cursor = keep
            .and_then(|row| order.iter().position(|&r| r == row))
            .unwrap_or(0);
        self.order = order;
    }
}

/// How every tokenizer's group list is ordered and filtered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupOrder {
    /// The group order.
    pub sort: SortKey,
    /// Smallest group size listed.
    pub min_size: usize,
}

impl Default for GroupOrder {
    fn default() -> Self {
        GroupOrder {
            sort: SortKey::Size,
            min_size: 2,
        }
    }
}

impl GroupOrder {
    /// The rows of `data` listed, in this order: by inflation at `k` once `metrics` are in, by
    /// ZCR saving once `reassign` is planned with vectors, else (and meanwhile) by size.
    pub fn order(
        &self,
        data: &TokenizerData,
        metrics: &Slot<Arc<Evaluated>>,
        reassign: &Slot<Arc<Reassigned>>,
        k: usize,
    ) -> Vec<usize> {
        let mut order: Vec<usize> = (0..data.rows.len())
            .filter(|&r| data.rows[r].size >= self.min_size)
            .collect();
        let values: Option<Vec<f64>> = match (self.sort, metrics, reassign) {
            (SortKey::Inflation, Slot::Ready(m), _) => Some(
                data.rows
                    .iter()
                    .map(|row| m.credit(row.group, k).map_or(0.0, |c| c.over()))
                    .collect(),
            ),
            (SortKey::Saving, _, Slot::Ready(r)) if r.plan.summary.with_vectors => Some(
                data.rows
                    .iter()
                    .map(|row| {
                        r.saving(prefix_key(&row.codes))
                            .unwrap_or(f64::NEG_INFINITY)
                    })
                    .collect(),
            ),
            _ => None,
        };
        if let Some(values) = values {
            order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
        }
        order
    }
}
