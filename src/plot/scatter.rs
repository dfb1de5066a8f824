//! The t-SNE picture the TUI draws, as SVG: items in grey, the largest collision groups each in
//! its own colour and marker. Given two spaces (e.g. text embeddings and the collaborative
//! space) the panels stand side by side with the same groups in the same styles — the paper's
//! Figure 5: colliding items overlap in one space and separate in the other.

use plotters::prelude::*;

use super::axes::{AxesSpec, draw_axes, draw_caption, fixed};
use super::style::{self, GREY, Marker, SMALL_SIZE, draw_error, draw_marker, render_svg};
use std::path::Path;

use crate::collision::Collisions;
use crate::error::Result;
use crate::load::{Latents, LatentsView, SidIndex};
use crate::progress::Progress;
use crate::projection::{self, ItemRows, Projection, ProjectionCache, ProjectionParams};

/// One space's projected items.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterPanel {
    /// The space's name (panel title).
    pub title: String,
    /// 2-D points.
    pub points: Vec<[f64; 2]>,
    /// Per point, the rank of its highlighted collision group (1 = largest).
    pub group: Vec<Option<usize>>,
}

impl ScatterPanel {
    /// The points of `projection`, with group ranks from `items`.
    pub fn from_projection(title: &str, projection: &Projection, items: &ItemRows) -> Self {
        ScatterPanel {
            title: title.to_string(),
            points: projection.points.clone(),
            group: projection
                .rows
                .iter()
                .map(|&r| items.group_rank(r))
                .collect(),
        }
    }
}

/// The figure's data: one panel, or two that share the groups.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterFigure {
    /// The tokenizer whose groups are highlighted.
    pub tokenizer: String,
    /// The panels, left to right.
    pub panels: Vec<ScatterPanel>,
    /// Lines under the panels (sampling, method), written by the caller.
    pub notes: Vec<String>,
}

const PANEL: u32 = 560;

/// Where the figure's spaces come from and how to project them.
pub struct ScatterRequest<'a> {
    /// The tokenizer whose groups are highlighted.
    pub tokenizer: &'a str,
    /// Its index and groups.
    pub index: &'a SidIndex,
    /// Its collision groups.
    pub collisions: &'a Collisions,
    /// One or two spaces: (panel title, embeddings .npy with a row per item).
    pub spaces: &'a [(String, &'a Path)],
    /// How many of the largest groups to highlight.
    pub highlight: usize,
    /// t-SNE settings (the same sample of items is used in every space).
    pub params: &'a ProjectionParams,
    /// Read and write `.sidlens-cache/` beside each embeddings file.
    pub use_cache: bool,
}

impl ScatterFigure {
    /// Projects the same items (all, or a seeded sample that keeps the highlighted groups) in
    /// every space, exactly as `sidlens project` and the TUI do.
    pub fn project(req: &ScatterRequest<'_>, progress: &dyn Progress) -> Result<Self> {
        req.params.validate()?;
        let mut panels = Vec::new();
        let mut notes = Vec::new();
        let mut sample: Option<Vec<usize>> = None;
        for (title, path) in req.spaces {
            let embeddings = Latents::load(path)?;
            let items = ItemRows::new(
                req.index,
                req.collisions,
                embeddings.n_rows(),
                req.highlight,
            )?;
            let rows = match &sample {
                Some(rows) => rows.clone(),
                None => projection::sample_among(
                    items.rows(),
                    req.params.max_points,
                    items.highlighted(),
                    req.params.seed,
                )?,
            };
            let cache = req.use_cache.then(|| ProjectionCache::beside(path));
            let result = match (embeddings.view(), &cache) {
                (LatentsView::F32(a), Some(c)) => {
                    c.load_or_compute(a, &rows, req.params, progress)?.0
                }
                (LatentsView::F64(a), Some(c)) => {
                    c.load_or_compute(a, &rows, req.params, progress)?.0
                }
                (LatentsView::F32(a), None) => projection::project(a, &rows, req.params, progress)?,
                (LatentsView::F64(a), None) => projection::project(a, &rows, req.params, progress)?,
            };
            if sample.is_none() {
                notes.push(format!(
                    "{} of {} items projected (seed {}, perplexity {:.0}, {} iterations).",
                    result.rows.len(),
                    req.index.n_items(),
                    req.params.seed,
                    result.perplexity,
                    req.params.iterations
                ));
            }
            notes.extend(result.notes.iter().map(|n| format!("{title}: {n}")));
            panels.push(ScatterPanel::from_projection(title, &result, &items));
            sample = Some(rows);
        }
        Ok(ScatterFigure {
            tokenizer: req.tokenizer.to_string(),
            panels,
            notes,
        })
    }

    /// Highlighted groups (ranks present in the first panel) with their sizes, by rank.
    pub fn groups(&self) -> Vec<(usize, usize)> {
        let mut sizes: Vec<(usize, usize)> = Vec::new();
        if let Some(p) = self.panels.first() {
            for g in p.group.iter().flatten() {
                match sizes.iter_mut().find(|(r, _)| r == g) {
                    Some((_, n)) => *n += 1,
                    None => sizes.push((*g, 1)),
                }
            }
        }
        sizes.sort_unstable();
        sizes
    }

    /// The SVG document.
    pub fn svg(&self) -> Result<String> {
        let groups = self.groups();
        let mut caption = vec![format!(
            "t-SNE of the item embeddings; grey: all items, in colour and shape: the {} largest collision groups of {}.",
            groups.len(),
            self.tokenizer
        )];
        caption.extend(self.notes.iter().cloned());
        let width = PANEL * self.panels.len().max(1) as u32;
        let height = PANEL + 18 * caption.len() as u32 + 24;
        render_svg(width, height, |root| {
            let panels = root.split_evenly((1, self.panels.len().max(1)));
            for (panel, area) in self.panels.iter().zip(&panels) {
                let (x_lo, x_hi, y_lo, y_hi) = panel.points.iter().fold(
                    (
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                    ),
                    |(a, b, c, d), p| (a.min(p[0]), b.max(p[0]), c.min(p[1]), d.max(p[1])),
                );
                let x = style::padded(x_lo, x_hi, 0.04);
                let y = style::padded(y_lo, y_hi, 0.04);
                let plot = draw_axes(
                    area,
                    &AxesSpec {
                        title: &panel.title,
                        x_label: "t-SNE 1 (no unit: only distances between points matter)",
                        y_label: "t-SNE 2 (no unit)",
                        x,
                        y,
                        x_ticks: &fixed(0),
                        y_ticks: &fixed(0),
                        caption_lines: caption.len() as u32 + 1,
                    },
                )?;
                let (dx, _) = area.get_base_pixel();
                let shift = |(px, py): (i32, i32)| (px - dx, py);
                for (p, g) in panel.points.iter().zip(&panel.group) {
                    if g.is_none() {
                        area.draw(&Circle::new(
                            shift(plot.px(p[0], p[1])),
                            2,
                            ShapeStyle::from(GREY).filled(),
                        ))
                        .map_err(draw_error)?;
                    }
                }
                for &(rank, _) in groups.iter().rev() {
                    for (p, g) in panel.points.iter().zip(&panel.group) {
                        if *g == Some(rank) {
                            draw_marker(
                                area,
                                shift(plot.px(p[0], p[1])),
                                Marker::of(rank - 1),
                                4,
                                style::colour(rank),
                            )?;
                        }
                    }
                }
                for (i, &(rank, n)) in groups.iter().enumerate() {
                    let at = (plot.right() - dx - 110, plot.top() + 10 + 16 * i as i32);
                    draw_marker(area, at, Marker::of(rank - 1), 4, style::colour(rank))?;
                    area.draw(&Text::new(
                        format!("group #{rank} ({n})"),
                        (at.0 + 10, at.1 - 6),
                        style::text(SMALL_SIZE, style::colour(rank)),
                    ))
                    .map_err(draw_error)?;
                }
            }
            draw_caption(root, &caption)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_counted_from_the_first_panel() {
        let panel = ScatterPanel {
            title: "text".into(),
            points: vec![[0.0, 0.0], [1.0, 1.0], [2.0, 0.5], [3.0, 3.0]],
            group: vec![Some(2), None, Some(1), Some(2)],
        };
        let f = ScatterFigure {
            tokenizer: "t".into(),
            panels: vec![panel.clone(), panel],
            notes: vec![],
        };
        assert_eq!(f.groups(), [(1, 1), (2, 2)]);
        let svg = f.svg().unwrap();
        assert!(svg.contains("group #2 (2)") && svg.contains("width=\"1120\""));
    }
}
