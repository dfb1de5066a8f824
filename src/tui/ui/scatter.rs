//! The t-SNE scatter of item embeddings (braille dots), and of the collaborative space beside
//! it (the paper's Figure 5), explorable like an embedding projector: zoom and pan, the picked item `✚` with its nearest neighbours `∘` in the full
//! embedding space, colour by collision group, first-level code or prefix group; the selected
//! group bright and marked `◉`; a legend under the plots, and what was sampled and cached.

mod legend;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Points};
use ratatui::widgets::{Paragraph, Wrap};

use std::collections::HashMap;

use super::super::app::{App, ColourBy, HIGHLIGHTED_GROUPS, Slot};
use super::super::data::{Projected, prefix_key};
use super::super::layout::{self, Pane};
use super::super::spaces::Space;
use super::{fit, pane_block, slot_lines};

/// Draws the scatter pane: one space, or both side by side (tabs when the pane is narrow),
/// with one legend under the plots (never over them).
///
/// ```text
/// ┏ Scatter · textual and collaborative space side by side ━━━━━━━━━━━━━━━━┓
/// ┃textual · t-SNE of DS.emb.npy          collaborative · PPMI + SVD of …  ┃
/// ┃   ⠁⠂ ⠄1   ⠈⠐                            ⠠ ⢀  1 ⠁                       ┃
/// ┃5 tightest groups …: ■1 #3 4×title 0.02 / 0.71  ■2 … (each group once)  ┃
/// ┃✚ picked item · ∘ its nearest · ◉ the selected group · what each rests on┃
/// ┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛
/// ```
pub fn render(app: &App, frame: &mut Frame, rect: Rect) {
    let theme = &app.theme;
    let inner = layout::inner(rect);
    let scene = scene(app, inner);
    // One space shown: its file in the title (the tab bar only says which space it is).
    let title = match (scene.tabs, scene.spaces.as_slice()) {
        (_, [_, _]) => Some("· textual and collaborative space side by side".to_string()),
        (None, [s]) if s.space == Space::Textual => app
            .embeddings
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|f| format!("· t-SNE of {}", f.to_string_lossy())),
        (_, [s]) => Some(format!("· {}", space_heading(app, s.space))),
        _ => None,
    }
    .map(|t| vec![Span::styled(t, theme.dim())]);
    frame.render_widget(
        pane_block(app, Pane::Scatter, title.unwrap_or_default()),
        rect,
    );
    if let Some(bar) = scene.tabs {
        let shown = scene.spaces.first().map_or(Space::Textual, |s| s.space);
        let tab = |space: Space| {
            let style = if space == shown {
                theme.selected()
            } else {
                theme.dim()
            };
            Span::styled(format!(" {} ", space_title(space)), style)
        };
        let line = Line::from(vec![
            tab(Space::Textual),
            Span::styled("│", theme.border()),
            tab(Space::Collaborative),
            Span::styled(" v switches", theme.dim()),
        ]);
        frame.render_widget(Paragraph::new(line), bar);
    }
    for shown in &scene.spaces {
        if let Some(heading) = shown.heading {
            let text = fit(&space_heading(app, shown.space), heading.width as usize);
            frame.render_widget(Paragraph::new(Line::styled(text, theme.header())), heading);
        }
        match shown.projected {
            Some(projected) => {
                draw_points(app, shown.space, projected, &scene.top, frame, shown.plot)
            }
            None => render_missing(app, frame, shown.space, shown.plot),
        }
    }
    frame.render_widget(Paragraph::new(scene.legend_lines), scene.legend);
}

/// The width inside the pane from which both spaces go side by side.
const MIN_BOTH_WIDTH: u16 = 90;

/// Whether the scatter pane, as laid out now, has room for both spaces side by side.
pub fn room_for_both(app: &App) -> bool {
    app.layout()
        .pane(Pane::Scatter)
        .is_some_and(|r| layout::inner(r).width >= MIN_BOTH_WIDTH)
}

/// The space's tab title.
fn space_title(space: Space) -> &'static str {
    match space {
        Space::Textual => "Textual",
        Space::Collaborative => "Collaborative",
        Space::Both => "Both",
    }
}

/// What a side-by-side pane shows, above its plot.
fn space_heading(app: &App, space: Space) -> String {
    let file = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .and_then(|p| p.file_name())
            .map_or(String::new(), |f| f.to_string_lossy().into_owned())
    };
    match space {
        Space::Collaborative => {
            format!("collaborative · PPMI + SVD of {}", file(&app.interactions))
        }
        _ => format!("textual · t-SNE of {}", file(&app.embeddings)),
    }
}

/// Where the scatter pane draws what: rendering draws it and mouse hit-testing reads its
/// plots, so the two cannot disagree.
struct Scene<'a> {
    /// The tab bar, when the spaces are tabs.
    tabs: Option<Rect>,
    /// Each space drawn, left to right.
    spaces: Vec<Shown<'a>>,
    /// The highlighted categories, the same in every space drawn.
    top: Vec<(u128, usize)>,
    /// The legend strip, full width under the plots.
    legend: Rect,
    legend_lines: Vec<Line<'static>>,
}

/// One space drawn: its heading row (side by side), where its points go, and its projection
/// when it has points (else `plot` says why not).
struct Shown<'a> {
    space: Space,
    heading: Option<Rect>,
    plot: Rect,
    projected: Option<&'a Projected>,
}

/// Lays the pane's inside out: tab bar or headings on top, the plots, and under them the
/// legend, which takes at most half of the rows below the headings.
fn scene(app: &App, inner: Rect) -> Scene<'_> {
    let (tabs, areas) = panes(app, inner);
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
                Space::Collaborative => &app.collaborative,
                _ => &app.projection,
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
        .map_or_else(Vec::new, |&(space, p)| top(app, space, p));
    let body = spaces.first().map_or(inner, |s| s.plot);
    let legend_lines = legend::lines(
        app,
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
fn panes(app: &App, inner: Rect) -> (Option<Rect>, Vec<(Space, Rect)>) {
    if app.interactions.is_none() {
        return (None, vec![(Space::Textual, inner)]);
    }
    if app.space == Space::Both && inner.width >= MIN_BOTH_WIDTH {
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
    let shown = match app.space {
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

/// Why a space has no points to draw yet (loading, missing, failed, or nothing projected).
fn render_missing(app: &App, frame: &mut Frame, space: Space, area: Rect) {
    let theme = &app.theme;
    let (slot, what) = match space {
        Space::Collaborative => (&app.collaborative, "the collaborative space"),
        _ => (&app.projection, "the projection"),
    };
    let lines = match slot {
        Slot::Ready(p) => vec![Line::styled(p.projection.notes.join("; "), theme.dim())],
        other => slot_lines(other, what, theme).unwrap_or_default(),
    };
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
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
pub fn view_bounds(app: &App, space: Space, projected: &Projected) -> ([f64; 2], [f64; 2]) {
    let camera = space == app.camera_space();
    let (x, y) = full_bounds(&projected.projection.points);
    let zoom = app.camera.zoom.max(1.0);
    let middle = [(x[0] + x[1]) / 2.0, (y[0] + y[1]) / 2.0];
    let centre = if camera {
        app.camera.centre.unwrap_or(middle)
    } else {
        let picked = app
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
fn plots(app: &App) -> Vec<(Space, Rect, &Projected)> {
    let Some(rect) = app.layout().pane(Pane::Scatter) else {
        return Vec::new();
    };
    scene(app, layout::inner(rect))
        .spaces
        .into_iter()
        .filter_map(|s| Some((s.space, s.plot, s.projected?)))
        .collect()
}

/// The projection coordinates under a screen cell of the camera's plot, if it is on it.
pub fn coordinates_at(app: &App, column: u16, row: u16) -> Option<[f64; 2]> {
    let (_, plot, projected) = plots(app)
        .into_iter()
        .find(|&(space, _, _)| space == app.camera_space())?;
    if !plot.contains(ratatui::layout::Position::new(column, row)) {
        return None;
    }
    let (x, y) = view_bounds(app, app.camera_space(), projected);
    let fx = (f64::from(column - plot.x) + 0.5) / f64::from(plot.width);
    let fy = (f64::from(row - plot.y) + 0.5) / f64::from(plot.height);
    Some([x[0] + fx * (x[1] - x[0]), y[1] - fy * (y[1] - y[0])])
}

/// The point nearest a clicked cell (within two cells): its space and index into that
/// space's points.
pub fn point_at(app: &App, column: u16, row: u16) -> Option<(Space, usize)> {
    let (space, plot, projected) = plots(app)
        .into_iter()
        .find(|(_, plot, _)| plot.contains(ratatui::layout::Position::new(column, row)))?;
    let (x, y) = view_bounds(app, space, projected);
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

/// Points per layer: dim, each highlighted rank, selected; with the centroid of each group.
struct Layers {
    dim: Vec<(f64, f64)>,
    ranked: Vec<Vec<(f64, f64)>>,
    selected: Vec<(f64, f64)>,
}

/// The category of each point of `space` in the current colouring (its collision group,
/// first-level code or prefix group), `None` where the point has none.
fn keys(app: &App, space: Space, projected: &Projected) -> Vec<Option<u128>> {
    let n = projected.projection.points.len();
    let (Some(view), Some(data)) = (
        app.scatter_of(space)
            .filter(|s| s.tokenizer == app.selected && s.positions.len() == n),
        app.data(),
    ) else {
        return vec![None; n];
    };
    (0..n)
        .map(|i| match app.camera.colour_by {
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
fn top(app: &App, space: Space, projected: &Projected) -> Vec<(u128, usize)> {
    let tightest = app
        .spreads
        .as_ref()
        .filter(|s| app.tightest && s.tokenizer == app.selected);
    match (app.camera.colour_by, app.data()) {
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
            for k in keys(app, space, projected).iter().flatten() {
                *counts.entry(*k).or_default() += 1;
            }
            let mut counts: Vec<(u128, usize)> = counts.into_iter().collect();
            counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            counts.truncate(HIGHLIGHTED_GROUPS);
            counts
        }
    }
}

fn layers(app: &App, space: Space, projected: &Projected, top: &[(u128, usize)]) -> Layers {
    let mut out = Layers {
        dim: Vec::new(),
        ranked: vec![Vec::new(); HIGHLIGHTED_GROUPS],
        selected: Vec::new(),
    };
    let points = &projected.projection.points;
    let groups = app
        .scatter_of(space)
        .filter(|s| s.tokenizer == app.selected && s.groups.len() == points.len());
    let selected = app.selected_row().map(|r| r.group);
    let keys = keys(app, space, projected);
    for (i, p) in points.iter().enumerate() {
        let xy = (p[0], p[1]);
        let group = groups.and_then(|g| g.groups[i]);
        if group.is_some() && group == selected {
            out.selected.push(xy);
            continue;
        }
        match keys[i].and_then(|k| top.iter().position(|&(t, _)| t == k)) {
            Some(rank) => out.ranked[rank].push(xy),
            None => out.dim.push(xy),
        }
    }
    out
}

fn centroid(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    (n > 0.0).then(|| {
        let (x, y) = points
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
        (x / n, y / n)
    })
}

fn draw_points(
    app: &App,
    space: Space,
    projected: &Projected,
    top: &[(u128, usize)],
    frame: &mut Frame,
    plot: Rect,
) {
    let theme = &app.theme;
    let points = &projected.projection.points;
    let (x_bounds, y_bounds) = view_bounds(app, space, projected);
    let layers = layers(app, space, projected, top);
    let picked = app.picked_point(space).and_then(|i| points.get(i).copied());
    let view = app.scatter_of(space);
    let neighbours: Vec<[f64; 2]> = match (&app.camera.neighbours, view) {
        (Some(n), Some(view)) => n
            .near
            .iter()
            .filter_map(|&(p, _)| {
                let i = view.positions.iter().position(|&x| x == Some(p))?;
                points.get(i).copied()
            })
            .collect(),
        _ => Vec::new(),
    };
    let inside = |p: &[f64; 2]| {
        (x_bounds[0]..=x_bounds[1]).contains(&p[0]) && (y_bounds[0]..=y_bounds[1]).contains(&p[1])
    };
    let canvas = Canvas::default()
        .marker(Marker::Braille)
        .x_bounds(x_bounds)
        .y_bounds(y_bounds)
        .paint(|ctx| {
            ctx.draw(&Points {
                coords: &layers.dim,
                color: theme.background_points(),
            });
            ctx.layer();
            for (rank, coords) in layers.ranked.iter().enumerate() {
                ctx.draw(&Points {
                    coords,
                    color: theme.group_colour(rank),
                });
            }
            ctx.layer();
            ctx.draw(&Points {
                coords: &layers.selected,
                color: theme.selected_points(),
            });
            for (rank, coords) in layers.ranked.iter().enumerate() {
                if app.camera.colour_by != ColourBy::Collision {
                    continue;
                }
                if let Some((x, y)) = centroid(coords) {
                    let style = Style::new().fg(theme.group_colour(rank));
                    ctx.print(x, y, Line::styled((rank + 1).to_string(), style));
                }
            }
            if let Some((x, y)) = centroid(&layers.selected) {
                ctx.print(x, y, Line::styled("◉", theme.header()));
            }
            for p in neighbours.iter().filter(|p| inside(p)) {
                ctx.print(p[0], p[1], Line::styled("∘", theme.key()));
            }
            if let Some(p) = picked.filter(|p| inside(p)) {
                ctx.print(p[0], p[1], Line::styled("✚", theme.header()));
            }
        });
    frame.render_widget(canvas, plot);
}
