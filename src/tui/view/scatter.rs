//! The scatter pane's geometry and models: where each space's plot, headings, tab bar and
//! legend go, what part of a projection a plot shows (zoom and pan), which categories are
//! highlighted, and which point or coordinates a screen cell lands on. Drawing and mouse
//! picking both read these, so a click picks the point drawn under it.

mod legend;

use std::collections::HashMap;

use ratatui::layout::Rect;
use ratatui::text::Line;

use super::Screen;
use crate::tui::data::{Projected, prefix_key};
use crate::tui::layout::{self, Pane};
use crate::tui::spaces::Space;
use crate::tui::state::scatter::{ColourBy, HIGHLIGHTED_GROUPS};
use crate::tui::state::slot::Slot;

/// The width inside the pane from which both spaces go side by side.
const MIN_BOTH_WIDTH: u16 = 90;

/// Whether the scatter pane, as laid out now, has room for both spaces side by side.
pub fn room_for_both(screen: &Screen<'_>) -> bool {
    screen
        .layout()
        .pane(Pane::Scatter)
        .is_some_and(|r| layout::inner(r).width >= MIN_BOTH_WIDTH)
}

/// Where the scatter pane draws what: rendering draws it and mouse hit-testing reads its
/// plots, so the two cannot disagree.
pub struct Scene<'a> {
    /// The tab bar, when the spaces are tabs.
    pub tabs: Option<Rect>,
    /// Each space drawn, left to right.
    pub spaces: Vec<Shown<'a>>,
    /// The highlighted categories, the same in every space drawn.
    pub top: Vec<(u128, usize)>,
    /// The legend strip, full width under the plots.
    pub legend: Rect,
    /// The legend's lines, as many as `legend` has rows.
    pub legend_lines: Vec<Line<'static>>,
}

/// One space drawn: its heading row (side by side), where its points go, and its projection
/// when it has points (else `plot` says why not).
pub struct Shown<'a> {
    /// The space.
    pub space: Space,
    /// Its heading row, side by side.
    pub heading: Option<Rect>,
    /// Where its points (or why there are none) go.
    pub plot: Rect,
    /// Its projection, when it has points.
    pub projected: Option<&'a Projected>,
}

/// Lays the pane's inside out: tab bar or headings on top, the plots, and under them the
/// legend, which takes at most half of the rows below the headings.
pub fn scene<'a>(screen: &Screen<'a>, inner: Rect) -> Scene<'a> {
    let (tabs, areas) = panes(screen, inner);
    let side_by_side = areas.len() > 1;
    let mut spaces: Vec<Shown> = areas
        .into_iter()
        .map(|(space, area)| {
            let (heading, plot) = if side_by_side {
                let rows = area.height.min(1);
                (
                    Some(Rect::new(area.x, area.y, area.width, rows)),
                    Rect::new(area.x, area.y + rows, area.width, area.height - rows),
                )
            } else {
                (None, area)
            };
            let projected = match space {
                Space::Collaborative => &screen.scatter.collaborative,
                _ => &screen.scatter.projection,
            };
            let projected = match projected {
                Slot::Ready(p) if !p.projection.points.is_empty() => Some(p.as_ref()),
                _ => None,
            };
            Shown {
                space,
                heading,
                plot,
                projected,
            }
        })
        .collect();
    let drawn: Vec<(Space, &Projected)> = spaces
        .iter()
        .filter_map(|s| Some((s.space, s.projected?)))
        .collect();
    let top = drawn
        .first()
        .map_or_else(Vec::new, |&(space, p)| top(screen, space, p));
    let body = spaces.first().map_or(inner, |s| s.plot);
    let legend_lines = legend::lines(
        screen,
        &drawn,
        &top,
        inner.width as usize,
        body.height as usize / 2,
    );
    let rows = legend_lines.len() as u16;
    for s in &mut spaces {
        s.plot.height -= rows;
    }
    Scene {
        tabs,
        spaces,
        top,
        legend: Rect::new(inner.x, body.bottom() - rows, inner.width, rows),
        legend_lines,
    }
}

/// The tab bar (when the spaces are tabs) and each shown space's area inside the pane.
fn panes(screen: &Screen<'_>, inner: Rect) -> (Option<Rect>, Vec<(Space, Rect)>) {
    if screen.scatter.interactions.is_none() {
        return (None, vec![(Space::Textual, inner)]);
    }
    if screen.scatter.space == Space::Both && inner.width >= MIN_BOTH_WIDTH {
        let left = inner.width.saturating_sub(1) / 2;
        let right = inner.width - left - 1;
        return (
            None,
            vec![
                (
                    Space::Textual,
                    Rect::new(inner.x, inner.y, left, inner.height),
                ),
                (
                    Space::Collaborative,
                    Rect::new(inner.x + left + 1, inner.y, right, inner.height),
                ),
            ],
        );
    }
    let shown = match screen.scatter.space {
        Space::Collaborative => Space::Collaborative,
        Space::Textual | Space::Both => Space::Textual,
    };
    let bar = Rect::new(inner.x, inner.y, inner.width, inner.height.min(1));
    let body = Rect::new(
        inner.x,
        inner.y + bar.height,
        inner.width,
        inner.height - bar.height,
    );
    (Some(bar), vec![(shown, body)])
}

/// The extent of all points, with a 2 % margin.
fn full_bounds(points: &[[f64; 2]]) -> ([f64; 2], [f64; 2]) {
    let bound = |axis: usize| {
        let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            (lo.min(p[axis]), hi.max(p[axis]))
        });
        let pad = ((hi - lo) * 0.02).max(1e-9);
        [lo - pad, hi + pad]
    };
    (bound(0), bound(1))
}

/// What a space's view shows, in its projection coordinates: all points, zoomed around the
/// camera when it is the space the camera looks at (`camera`), else around the picked item.
pub fn view_bounds(
    screen: &Screen<'_>,
    space: Space,
    projected: &Projected,
) -> ([f64; 2], [f64; 2]) {
    let camera = space == screen.scatter.camera_space();
    let (x, y) = full_bounds(&projected.projection.points);
    let zoom = screen.scatter.camera.zoom.max(1.0);
    let middle = [(x[0] + x[1]) / 2.0, (y[0] + y[1]) / 2.0];
    let centre = if camera {
        screen.scatter.camera.centre.unwrap_or(middle)
    } else {
        let picked = screen
            .picked_point(space)
            .and_then(|i| projected.projection.points.get(i).copied());
        picked.filter(|_| zoom > 1.0).unwrap_or(middle)
    };
    let (hx, hy) = ((x[1] - x[0]) / 2.0 / zoom, (y[1] - y[0]) / 2.0 / zoom);
    (
        [centre[0] - hx, centre[0] + hx],
        [centre[1] - hy, centre[1] + hy],
    )
}

/// The plot of each shown space, as laid out now.
fn plots<'a>(screen: &Screen<'a>) -> Vec<(Space, Rect, &'a Projected)> {
    let Some(rect) = screen.layout().pane(Pane::Scatter) else {
        return Vec::new();
    };
    scene(screen, layout::inner(rect))
        .spaces
        .into_iter()
        .filter_map(|s| Some((s.space, s.plot, s.projected?)))
        .collect()
}

/// The projection coordinates under a screen cell of the camera's plot, if it is on it.
pub fn coordinates_at(screen: &Screen<'_>, column: u16, row: u16) -> Option<[f64; 2]> {
    let (_, plot, projected) = plots(screen)
        .into_iter()
        .find(|&(space, _, _)| space == screen.scatter.camera_space())?;
    if !plot.contains(ratatui::layout::Position::new(column, row)) {
        return None;
    }
    let (x, y) = view_bounds(screen, screen.scatter.camera_space(), projected);
    let fx = (f64::from(column - plot.x) + 0.5) / f64::from(plot.width);
    let fy = (f64::from(row - plot.y) + 0.5) / f64::from(plot.height);
    Some([x[0] + fx * (x[1] - x[0]), y[1] - fy * (y[1] - y[0])])
}

/// The point nearest a clicked cell (within two cells): its space and index into that
/// space's points.
pub fn point_at(screen: &Screen<'_>, column: u16, row: u16) -> Option<(Space, usize)> {
    let (space, plot, projected) = plots(screen)
        .into_iter()
        .find(|(_, plot, _)| plot.contains(ratatui::layout::Position::new(column, row)))?;
    let (x, y) = view_bounds(screen, space, projected);
    let fx = (f64::from(column - plot.x) + 0.5) / f64::from(plot.width);
    let fy = (f64::from(row - plot.y) + 0.5) / f64::from(plot.height);
    let at = [x[0] + fx * (x[1] - x[0]), y[1] - fy * (y[1] - y[0])];
    let (cell_x, cell_y) = (
        (x[1] - x[0]) / f64::from(plot.width),
        (y[1] - y[0]) / f64::from(plot.height),
    );
    projected
        .projection
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (dx, dy) = ((p[0] - at[0]) / cell_x, (p[1] - at[1]) / cell_y);
            (i, dx * dx + dy * dy)
        })
        .filter(|&(_, d)| d <= 4.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| (space, i))
}

/// The category of each point of `space` in the current colouring (its collision group,
/// first-level code or prefix group), `None` where the point has none.
pub fn keys(screen: &Screen<'_>, space: Space, projected: &Projected) -> Vec<Option<u128>> {
    let n = projected.projection.points.len();
    let (Some(view), Some(data)) = (
        screen
            .scatter
            .view_of(space)
            .filter(|s| s.tokenizer == screen.tokenizers.selected && s.positions.len() == n),
        screen.tokenizers.data(),
    ) else {
        return vec![None; n];
    };
    (0..n)
        .map(|i| match screen.scatter.camera.colour_by {
            ColourBy::Collision => view.groups[i].map(u128::from),
            ColourBy::FirstCode => Some(u128::from(data.index.codes(view.positions[i]?)[0])),
            ColourBy::Prefix => Some(prefix_key(data.index.codes(view.positions[i]?))),
        })
        .collect()
}

/// The highlighted categories with their sizes, rank first: collision groups ranked by size
/// in the library's order (or the tightest, with `t`); codes and prefixes by how many points
/// of `space` (the first space drawn) they hold, so that both spaces side by side colour the
/// same categories alike.
pub fn top(screen: &Screen<'_>, space: Space, projected: &Projected) -> Vec<(u128, usize)> {
    let tightest = screen
        .scatter
        .spreads
        .as_ref()
        .filter(|s| screen.scatter.tightest && s.tokenizer == screen.tokenizers.selected);
    match (screen.scatter.camera.colour_by, screen.tokenizers.data()) {
        (ColourBy::Collision, Some(d)) => match tightest {
            Some(s) => s
                .tightest
                .iter()
                .map(|&g| (u128::from(g), d.collisions.size(g) as usize))
                .collect(),
            None => d
                .rows
                .iter()
                .take(HIGHLIGHTED_GROUPS)
                .map(|r| (u128::from(r.group), r.size))
                .collect(),
        },
        (ColourBy::Collision, None) => Vec::new(),
        _ => {
            let mut counts: HashMap<u128, usize> = HashMap::new();
            for k in keys(screen, space, projected).iter().flatten() {
                *counts.entry(*k).or_default() += 1;
            }
            let mut counts: Vec<(u128, usize)> = counts.into_iter().collect();
            counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            counts.truncate(HIGHLIGHTED_GROUPS);
            counts
        }
    }
}
