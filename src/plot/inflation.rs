//! Inflation of Hit@K over ItemHit@K against the collision rate, one labelled point per
//! tokenizer: the paper's RQ1 (Table 4) in one picture.

use plotters::prelude::*;

use super::axes::{AxesSpec, draw_axes, draw_caption, fixed};
use super::style::{self, Marker, SMALL_SIZE, draw_marker, render_svg};
use crate::compare::Comparison;
use crate::error::Result;

/// One tokenizer's point.
#[derive(Debug, Clone, PartialEq)]
pub struct InflationPoint {
    /// The tokenizer.
    pub name: String,
    /// Items in collision groups / items, as a fraction.
    pub collision_rate: f64,
    /// (Hit@K − ItemHit@K) / ItemHit@K · 100.
    pub inflation_pct: f64,
}

/// The figure's data.
#[derive(Debug, Clone, PartialEq)]
pub struct InflationFigure {
    /// The cut-off K.
    pub k: usize,
    /// Tokenizers with beams and a non-zero ItemHit@K.
    pub points: Vec<InflationPoint>,
    /// Tokenizers that cannot be placed (no beams, or ItemHit@K = 0), named in the caption.
    pub left_out: Vec<String>,
}

impl InflationFigure {
    /// The points of a comparison at one K.
    pub fn from_comparison(c: &Comparison) -> Self {
        let mut points = Vec::new();
        let mut left_out = Vec::new();
        for row in &c.rows {
            match row.inflation_pct {
                Some(inflation_pct) => points.push(InflationPoint {
                    name: row.name.clone(),
                    collision_rate: row.collision_rate,
                    inflation_pct,
                }),
                None => left_out.push(row.name.clone()),
            }
        }
        InflationFigure {
            k: c.k,
            points,
            left_out,
        }
    }

    /// Pearson's correlation of collision rate and inflation, when it is defined.
    pub fn correlation(&self) -> Option<f64> {
        let n = self.points.len();
        if n < 3 {
            return None;
        }
        let mx = self.points.iter().map(|p| p.collision_rate).sum::<f64>() / n as f64;
        let my = self.points.iter().map(|p| p.inflation_pct).sum::<f64>() / n as f64;
        let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
        for p in &self.points {
            let (dx, dy) = (p.collision_rate - mx, p.inflation_pct - my);
            sxy += dx * dy;
            sxx += dx * dx;
            syy += dy * dy;
        }
        (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
    }

    /// The SVG document.
    pub fn svg(&self) -> Result<String> {
        let k = self.k;
        let max_rate = self
            .points
            .iter()
            .map(|p| p.collision_rate * 100.0)
            .fold(0.0, f64::max);
        let (y_lo, y_hi) = self
            .points
            .iter()
            .map(|p| p.inflation_pct)
            .fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let (_, x_hi) = style::padded(0.0, max_rate, 0.12);
        let (y_lo, y_hi) = style::padded(y_lo, y_hi, 0.1);
        let mut caption = vec![format!(
            "Inflation = (Hit@{k} − ItemHit@{k}) / ItemHit@{k}; collision rate = items in groups of ≥ 2 / items."
        )];
        caption.push(match self.correlation() {
            Some(r) => format!(
                "{} tokenizers; Pearson r = {r:.3} between collision rate and inflation.",
                self.points.len()
            ),
            None => format!("{} tokenizers.", self.points.len()),
        });
        if !self.left_out.is_empty() {
            caption.push(format!(
                "Not shown (no beams, or ItemHit@{k} = 0): {}.",
                self.left_out.join(", ")
            ));
        }
        let title = format!("Inflation of Hit@{k} over ItemHit@{k} against collision rate");
        let x_label = "collision rate (% of items)";
        let y_label = format!("inflation of Hit@{k} (%)");
        render_svg(720, 480 + 18 * caption.len() as u32, |root| {
            let plot = draw_axes(
                root,
                &AxesSpec {
                    title: &title,
                    x_label,
                    y_label: &y_label,
                    x: (0.0, x_hi),
                    y: (y_lo, y_hi),
                    x_ticks: &fixed(0),
                    y_ticks: &fixed(0),
                    caption_lines: caption.len() as u32,
                },
            )?;
            for (i, p) in self.points.iter().enumerate() {
                let at = plot.px(p.collision_rate * 100.0, p.inflation_pct);
                draw_marker(root, at, Marker::of(i), 5, style::colour(i))?;
                let name = style::label(&p.name, 28);
                let right_side = at.0 < plot.right() - 170;
                let pos = if right_side {
                    (at.0 + 9, at.1 - 6)
                } else {
                    (at.0 - 9, at.1 - 6)
                };
                let mut text = style::text(SMALL_SIZE, style::colour(i));
                if !right_side {
                    text = text.pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Right,
                        plotters::style::text_anchor::VPos::Top,
                    ));
                }
                root.draw(&Text::new(name, pos, text))
                    .map_err(style::draw_error)?;
            }
            draw_caption(root, &caption)
        })
    }
}
