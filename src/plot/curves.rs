//! Hit@K (solid) and ItemHit@K (dashed) against K = 1 … beam width, one colour and marker per
//! tokenizer: the gap between a tokenizer's two curves is what its collisions over-credit.

use crate::usecase::Tokenizer;
use plotters::prelude::*;

use super::axes::{AxesSpec, draw_axes, draw_caption, fixed};
use super::style::{self, Marker, SMALL_SIZE, draw_line, draw_marker, render_svg};
use crate::error::Result;
use crate::metrics::Evaluation;

/// One tokenizer's curves.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The tokenizer.
    pub name: String,
    /// Hit@K for K = 1, 2, …
    pub hit: Vec<f64>,
    /// ItemHit@K for K = 1, 2, …
    pub item_hit: Vec<f64>,
}

impl Curve {
    /// Both metrics at every K from 1 to the beam width of `evaluation`.
    pub fn of(name: &str, evaluation: &Evaluation) -> Self {
        let (hit, item_hit) = (1..=evaluation.list_width.max(1))
            .map(|k| {
                let v = evaluation.at(k);
                (v.hit, v.item_hit)
            })
            .unzip();
        Curve {
            name: name.to_string(),
            hit,
            item_hit,
        }
    }
}

/// The figure's data.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvesFigure {
    /// One entry per tokenizer with beams.
    pub curves: Vec<Curve>,
}

impl CurvesFigure {
    /// Hit@K and ItemHit@K for K = 1 … beam width of every tokenizer with beams.
    pub fn of(loaded: &[Tokenizer]) -> Self {
        CurvesFigure {
            curves: loaded
                .iter()
                .filter_map(|l| Some(Curve::of(&l.files.name, l.evaluation()?)))
                .collect(),
        }
    }

    /// The SVG document.
    pub fn svg(&self) -> Result<String> {
        let max_k = self.curves.iter().map(|c| c.hit.len()).max().unwrap_or(1);
        let max_v = self
            .curves
            .iter()
            .flat_map(|c| c.hit.iter().chain(&c.item_hit))
            .copied()
            .fold(0.0, f64::max);
        let (_, y_hi) = style::padded(0.0, max_v, 0.08);
        let caption = vec![
            "Solid: Hit@K (SID-level, a hit on the group counts); dashed: ItemHit@K (collision-corrected).".to_string(),
            format!("{} tokenizers, K = 1 … {max_k} (the beam width).", self.curves.len()),
        ];
        render_svg(760, 480 + 18 * caption.len() as u32, |root| {
            let plot = draw_axes(
                root,
                &AxesSpec {
                    title: "Hit@K and ItemHit@K against K",
                    x_label: "K (cut-off, beams)",
                    y_label: "metric (fraction of users)",
                    x: (0.5, max_k as f64 + 0.5),
                    y: (0.0, y_hi),
                    x_ticks: &fixed(0),
                    y_ticks: &fixed(2),
                    caption_lines: caption.len() as u32,
                },
            )?;
            for (i, c) in self.curves.iter().enumerate() {
                let colour = style::colour(i);
                for (values, dashed) in [(&c.hit, None), (&c.item_hit, Some((7, 4)))] {
                    let points: Vec<(i32, i32)> = values
                        .iter()
                        .enumerate()
                        .map(|(k, &v)| plot.px(k as f64 + 1.0, v))
                        .collect();
                    draw_line(
                        root,
                        &points,
                        dashed,
                        ShapeStyle::from(colour).stroke_width(2),
                    )?;
                    for &p in &points {
                        draw_marker(root, p, Marker::of(i), 3, colour)?;
                    }
                }
            }
            let x = plot.left() + 14;
            for (i, c) in self.curves.iter().enumerate() {
                let y = plot.top() + 12 + 18 * i as i32;
                let colour = style::colour(i);
                draw_line(
                    root,
                    &[(x, y), (x + 26, y)],
                    None,
                    ShapeStyle::from(colour).stroke_width(2),
                )?;
                draw_marker(root, (x + 13, y), Marker::of(i), 3, colour)?;
                root.draw(&Text::new(
                    style::label(&c.name, 30),
                    (x + 34, y - 7),
                    style::text(SMALL_SIZE, colour),
                ))
                .map_err(style::draw_error)?;
            }
            draw_caption(root, &caption)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::dataset::Dataset;
    use crate::metrics::Compat;
    use crate::progress::NoProgress;
    use crate::usecase::Tokenizer;
    use crate::usecase::tokenizer::comparison;

    #[test]
    fn curves_at_k_equal_the_comparison_at_k() {
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo_data");
        let runs = Dataset::discover(&demo, None).unwrap().tokenizers();
        let loaded = Tokenizer::open_all(&runs, Compat::Faithful, None, &NoProgress).unwrap();
        let curves = CurvesFigure::of(&loaded);
        assert_eq!(curves.curves.len(), 3);
        let c10 = comparison(&loaded, 10, Compat::Faithful);
        let v = c10.rows[0].values.unwrap();
        assert_eq!(curves.curves[0].hit[9], v.hit);
        assert_eq!(curves.curves[0].item_hit[9], v.item_hit);
    }
}
