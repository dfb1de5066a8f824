//! The scatter's two spaces (the textual embeddings and the collaborative one built from
//! interactions), which of them is shown, and how far apart each collision group's items are
//! in both — the paper's Figure 5 explanation of a collision in one line.

use std::collections::HashMap;

use crate::collab::spread::group_spreads;
use crate::load::Latents;

use super::data::TokenizerData;

/// Groups the tightest highlight shows (the paper's Figure 5 shows five).
pub const TIGHTEST: usize = 5;
/// The smallest group the tightest highlight considers (the paper's Figure 5: size ≥ 3).
pub const TIGHTEST_MIN_SIZE: usize = 3;

/// Which space the scatter shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// The t-SNE of the item embeddings.
    Textual,
    /// The t-SNE of the collaborative embedding.
    Collaborative,
    /// Both, side by side (as tabs where the pane is too narrow).
    Both,
}

impl Space {
    /// The space's name in titles and tabs.
    pub fn label(self) -> &'static str {
        match self {
            Space::Textual => "textual",
            Space::Collaborative => "collaborative",
            Space::Both => "both side by side",
        }
    }

    /// The next space `v` shows; `Both` only when the pane has room for two plots.
    pub fn next(self, room_for_both: bool) -> Space {
        match self {
            Space::Textual => Space::Collaborative,
            Space::Collaborative if room_for_both => Space::Both,
            Space::Collaborative | Space::Both => Space::Textual,
        }
    }
}

/// One group's mean pairwise cosine distance (1 − cos) in each space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Apart {
    /// In the textual space.
    pub textual: f64,
    /// In the collaborative space, when it is computed.
    pub collaborative: Option<f64>,
    /// Items of the group without any co-occurrence (zero rows of the collaborative space).
    pub without_interactions: usize,
}

/// Every collision group's spread in the tokenizer shown, and its tightest groups.
#[derive(Debug, Clone, PartialEq)]
pub struct Spreads {
    /// The tokenizer these groups belong to.
    pub tokenizer: usize,
    /// Whether the collaborative space was part of it.
    pub with_collaborative: bool,
    /// By SID group.
    pub by_group: HashMap<u32, Apart>,
    /// The [`TIGHTEST`] groups of at least `min_size` items, tightest in the textual space
    /// first.
    pub tightest: Vec<u32>,
    /// The size the tightest groups have at least.
    pub min_size: usize,
}

impl Spreads {
    /// The spreads of `data`'s collision groups in `textual` (and `collaborative`); the
    /// tightest are taken among groups of at least `min_size` items. `None` when a space
    /// does not cover the index (the panes say why elsewhere).
    pub fn compute(
        tokenizer: usize,
        data: &TokenizerData,
        textual: &Latents,
        collaborative: Option<&Latents>,
        min_size: usize,
    ) -> Option<Spreads> {
        let rows = group_spreads(&data.index, &data.collisions, textual, collaborative, 2).ok()?;
        let ids = data.index.ids();
        let zero = |position: u32| {
            collaborative.is_some_and(|c| {
                let mut row = vec![0.0; c.dim()];
                c.row_into(ids.vector_row(position as usize), &mut row);
                row.iter().all(|&v| v == 0.0)
            })
        };
        let by_group = rows
            .iter()
            .map(|r| {
                let without = data
                    .collisions
                    .items(r.group)
                    .iter()
                    .filter(|&&p| zero(p))
                    .count();
                let apart = Apart {
                    textual: r.mean_cosine_distance,
                    collaborative: r.cf_mean_cosine_distance,
                    without_interactions: without,
                };
                (r.group, apart)
            })
            .collect();
        let tightest = rows
            .iter()
            .filter(|r| data.collisions.size(r.group) as usize >= min_size)
            .take(TIGHTEST)
            .map(|r| r.group)
            .collect();
        Some(Spreads {
            tokenizer,
            with_collaborative: collaborative.is_some(),
            by_group,
            tightest,
            min_size,
        })
    }
}

/// A mean cosine distance with two decimals, four below 0.01: the tightest groups of real
/// data are 0.0003–0.0025 apart in text, and "0.00" would hide which is tighter.
pub fn distance(d: f64) -> String {
    if d != 0.0 && d.abs() < 0.01 {
        format!("{d:.4}")
    } else {
        format!("{d:.2}")
    }
}

/// "textually 0.02 apart, 0.71 apart by interactions" (and how many items have none).
pub fn apart_text(apart: &Apart) -> String {
    let mut text = format!("textually {} apart", distance(apart.textual));
    match apart.collaborative {
        Some(c) => {
            text.push_str(&format!(", {} apart by interactions", distance(c)));
            if apart.without_interactions > 0 {
                text.push_str(&format!(
                    " ({} item{} no co-occurrences)",
                    apart.without_interactions,
                    if apart.without_interactions == 1 {
                        " has"
                    } else {
                        "s have"
                    }
                ));
            }
        }
        None => text.push_str(" (no interactions for the collaborative space)"),
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycling_skips_both_without_room() {
        assert_eq!(Space::Textual.next(true), Space::Collaborative);
        assert_eq!(Space::Collaborative.next(true), Space::Both);
        assert_eq!(Space::Both.next(true), Space::Textual);
        assert_eq!(Space::Collaborative.next(false), Space::Textual);
        assert_eq!(Space::Both.next(false), Space::Textual);
    }

    #[test]
    fn the_one_line_explanation() {
        let a = Apart {
            textual: 0.0213,
            collaborative: Some(0.714),
            without_interactions: 0,
        };
        assert_eq!(
            apart_text(&a),
            "textually 0.02 apart, 0.71 apart by interactions"
        );
        let b = Apart {
            without_interactions: 1,
            ..a
        };
        assert!(apart_text(&b).ends_with("(1 item has no co-occurrences)"));
        let tight = Apart {
            textual: 0.00031,
            ..a
        };
        assert!(apart_text(&tight).starts_with("textually 0.0003 apart, 0.71"));
        assert_eq!(distance(0.0), "0.00");
    }
}
