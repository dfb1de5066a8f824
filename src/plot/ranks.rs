//! A slope chart of each tokenizer's rank by Hit@K (left) and by ItemHit@K (right): crossing
//! lines are the rank flips the collision over-credit causes. Flips that a significance test
//! found real are ringed when the caller has them.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::draw_caption;
use super::style::{
    self, Marker, SMALL_SIZE, TEXT_SIZE, TITLE_SIZE, dash, draw_error, draw_line, draw_marker,
    render_svg,
};
use crate::compare::{Comparison, Flip};
use crate::error::Result;
use crate::usecase::CompareReport;

/// One tokenizer's two ranks.
#[derive(Debug, Clone, PartialEq)]
pub struct RankLine {
    /// The tokenizer.
    pub name: String,
    /// Rank by Hit@K (1 = best; ties share a rank).
    pub rank_hit: usize,
    /// Rank by ItemHit@K.
    pub rank_item_hit: usize,
    /// Hit@K.
    pub hit: f64,
    /// ItemHit@K.
    pub item_hit: f64,
}

/// The figure's data.
#[derive(Debug, Clone, PartialEq)]
pub struct RanksFigure {
    /// The cut-off K.
    pub k: usize,
    /// Evaluated tokenizers, in the comparison's order.
    pub lines: Vec<RankLine>,
    /// Every pair whose order flips.
    pub flips: Vec<Flip>,
    /// The flips a significance test confirmed, when one was run (`None`: not tested).
    pub significant: Option<Vec<Flip>>,
    /// Tokenizers without beams, named in the caption.
    pub left_out: Vec<String>,
}

impl RanksFigure {
    /// The ranks of a comparison at one K, with no significance information.
    pub fn from_comparison(c: &Comparison) -> Self {
        let mut lines = Vec::new();
        let mut left_out = Vec::new();
        for row in &c.rows {
            match (row.rank_hit, row.rank_item_hit, row.values) {
                (Some(rank_hit), Some(rank_item_hit), Some(v)) => lines.push(RankLine {
                    name: row.name.clone(),
                    rank_hit,
                    rank_item_hit,
                    hit: v.hit,
                    item_hit: v.item_hit,
                }),
                _ => left_out.push(row.name.clone()),
            }
        }
        RanksFigure {
            k: c.k,
            lines,
            flips: c.flips.clone(),
            significant: None,
            left_out,
        }
    }

    /// The ranks at the comparison at position `at` of `report`, with the flips its paired
    /// tests found significant ringed (untested when the report has no tests).
    pub fn from_report(report: &CompareReport, at: usize) -> Self {
        let c = &report.comparisons[at];
        let figure = Self::from_comparison(c);
        if report.tests.is_empty() {
            return figure;
        }
        figure.with_significant(c.flips.iter().filter(|f| f.significant).cloned().collect())
    }

    /// Marks `significant` flips (from a paired test over users) as confirmed.
    pub fn with_significant(mut self, significant: Vec<Flip>) -> Self {
        self.significant = Some(significant);
        self
    }

    /// Row of each line on the left and on the right: by rank, ties in the given order.
    fn slots(&self) -> (Vec<usize>, Vec<usize>) {
        let slot = |key: &dyn Fn(&RankLine) -> usize| {
            let mut order: Vec<usize> = (0..self.lines.len()).collect();
            order.sort_by_key(|&i| (key(&self.lines[i]), i));
            let mut slot = vec![0; order.len()];
            for (s, &i) in order.iter().enumerate() {
                slot[i] = s;
            }
            slot
        };
        (slot(&|l| l.rank_hit), slot(&|l| l.rank_item_hit))
    }

    /// The SVG document.
    pub fn svg(&self) -> Result<String> {
        let k = self.k;
        let n = self.lines.len().max(1);
        let row_px = 30;
        let top = 90;
        let mut caption = vec![format!(
            "Crossing lines are rank flips: {} pair(s) rank in opposite order by Hit@{k} and by ItemHit@{k}.",
            self.flips.len()
        )];
        caption.push(match &self.significant {
            None => "Significance of the flips not tested.".to_string(),
            Some(s) => format!(
                "Ringed crossings: the {} flip(s) a paired test over users found significant.",
                s.len()
            ),
        });
        if !self.left_out.is_empty() {
            caption.push(format!(
                "Not ranked (no beams): {}.",
                self.left_out.join(", ")
            ));
        }
        let height = (top + row_px * n as i32 + 30) as u32 + 18 * caption.len() as u32 + 10;
        let (x_left, x_right) = (270, 450);
        let (left_slot, right_slot) = self.slots();
        let y = |slot: usize| top + row_px * slot as i32;
        render_svg(720, height, |root| {
            root.draw(&Text::new(
                format!("Rank by Hit@{k} and by ItemHit@{k} (1 = best)"),
                (360, 14),
                style::text(TITLE_SIZE, BLACK).pos(Pos::new(HPos::Center, VPos::Top)),
            ))
            .map_err(draw_error)?;
            for (x, head) in [
                (x_left, format!("by Hit@{k} (SID-level)")),
                (x_right, format!("by ItemHit@{k} (item-level)")),
            ] {
                root.draw(&Text::new(
                    head,
                    (x, top - 34),
                    style::text(TEXT_SIZE, BLACK).pos(Pos::new(HPos::Center, VPos::Top)),
                ))
                .map_err(draw_error)?;
            }
            for (i, line) in self.lines.iter().enumerate() {
                let colour = style::colour(i);
                let (a, b) = ((x_left, y(left_slot[i])), (x_right, y(right_slot[i])));
                draw_line(
                    root,
                    &[a, b],
                    dash(i),
                    ShapeStyle::from(colour).stroke_width(2),
                )?;
                draw_marker(root, a, Marker::of(i), 4, colour)?;
                draw_marker(root, b, Marker::of(i), 4, colour)?;
                let name = style::label(&line.name, 26);
                root.draw(&Text::new(
                    format!("{name}  {:.4}  #{}", line.hit, line.rank_hit),
                    (a.0 - 12, a.1),
                    style::text(SMALL_SIZE, colour).pos(Pos::new(HPos::Right, VPos::Center)),
                ))
                .map_err(draw_error)?;
                root.draw(&Text::new(
                    format!("#{}  {:.4}  {name}", line.rank_item_hit, line.item_hit),
                    (b.0 + 12, b.1),
                    style::text(SMALL_SIZE, colour).pos(Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(draw_error)?;
            }
            if let Some(significant) = &self.significant {
                for flip in significant {
                    let find = |name: &str| self.lines.iter().position(|l| l.name == name);
                    let (Some(a), Some(b)) =
                        (find(&flip.higher_by_hit), find(&flip.higher_by_item_hit))
                    else {
                        continue;
                    };
                    let (a0, a1) = (y(left_slot[a]) as f64, y(right_slot[a]) as f64);
                    let (b0, b1) = (y(left_slot[b]) as f64, y(right_slot[b]) as f64);
                    let denom = (a1 - a0) - (b1 - b0);
                    if denom.abs() < 1e-9 {
                        continue;
                    }
                    let t = ((b0 - a0) / denom).clamp(0.0, 1.0);
                    let at = (
                        x_left + (t * f64::from(x_right - x_left)).round() as i32,
                        (a0 + t * (a1 - a0)).round() as i32,
                    );
                    root.draw(&Circle::new(at, 8, ShapeStyle::from(BLACK).stroke_width(2)))
                        .map_err(draw_error)?;
                }
            }
            draw_caption(root, &caption)
        })
    }
}
