//! The t-SNE scatter of item embeddings (braille dots), explorable like an embedding
//! projector: zoom and pan, the picked item `✚` with its nearest neighbours `∘` in the full
//! embedding space, colour by collision group, first-level code or prefix group; the selected
//! group bright and marked `◉`; a legend, and what was sampled and cached.

use crate::projection::CacheOutcome;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::widgets::canvas::{Canvas, Points};

use std::collections::HashMap;

use crate::sid;

use super::super::app::{App, ColourBy, HIGHLIGHTED_GROUPS, Slot};
use super::super::data::{Projected, prefix_key};
use super::super::layout::{self, Pane};
use super::{fit, message, pane_block, slot_lines, thousands, wrap};

/// Draws the scatter pane.
pub fn render(app: &App, frame: &mut Frame, rect: Rect) {
    let theme = &app.theme;
    let file = app
        .embeddings
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|f| {
            vec![Span::styled(
                format!("· t-SNE of {}", f.to_string_lossy()),
                theme.dim(),
            )]
        });
    let block = pane_block(app, Pane::Scatter, file.unwrap_or_default());
    let projected = match &app.projection {
        Slot::Ready(p) => p,
        other => {
            let lines = slot_lines(other, "the projection", theme).unwrap_or_default();
            message(frame, block, rect, lines);
            return;
        }
    };
    let inner = layout::inner(rect);
    frame.render_widget(block, rect);
    if projected.projection.points.is_empty() {
        let text = projected.projection.notes.join("; ");
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim())), inner);
        return;
    }
    let plot = plot_rect(app, projected, inner);
    let legend = legend_lines(app, projected, inner.width as usize);
    let below = Rect::new(
        inner.x,
        plot.bottom(),
        inner.width,
        inner.bottom() - plot.bottom(),
    );
    draw_points(app, projected, frame, plot);
    frame.render_widget(Paragraph::new(legend), below);
}

/// The legend wrapped to `width`.
fn legend_lines(app: &App, projected: &Projected, width: usize) -> Vec<Line<'static>> {
    wrap::wrap_all(&legend(app, projected, width), width)
}

/// Where the points go inside the pane: the pane minus the legend (at most half of it).
pub fn plot_rect(app: &App, projected: &Projected, inner: Rect) -> Rect {
    let lines = legend_lines(app, projected, inner.width as usize).len() as u16;
    let legend = lines.min(inner.height / 2);
    Rect::new(inner.x, inner.y, inner.width, inner.height - legend)
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

/// What the view shows, in projection coordinates: all points, zoomed around the camera.
pub fn view_bounds(app: &App, projected: &Projected) -> ([f64; 2], [f64; 2]) {
    let (x, y) = full_bounds(&projected.projection.points);
    let zoom = app.camera.zoom.max(1.0);
    let centre = app
        .camera
        .centre
        .unwrap_or([(x[0] + x[1]) / 2.0, (y[0] + y[1]) / 2.0]);
    let (hx, hy) = ((x[1] - x[0]) / 2.0 / zoom, (y[1] - y[0]) / 2.0 / zoom);
    (
        [centre[0] - hx, centre[0] + hx],
        [centre[1] - hy, centre[1] + hy],
    )
}

/// The projection coordinates under a screen cell of the plot, if it is on the plot.
pub fn coordinates_at(app: &App, column: u16, row: u16) -> Option<[f64; 2]> {
    let projected = app.projection.ready()?;
    let inner = layout::inner(app.layout().pane(Pane::Scatter)?);
    let plot = plot_rect(app, projected, inner);
    if !plot.contains(ratatui::layout::Position::new(column, row)) {
        return None;
    }
    let (x, y) = view_bounds(app, projected);
    let fx = (f64::from(column - plot.x) + 0.5) / f64::from(plot.width);
    let fy = (f64::from(row - plot.y) + 0.5) / f64::from(plot.height);
    Some([x[0] + fx * (x[1] - x[0]), y[1] - fy * (y[1] - y[0])])
}

/// The point nearest a clicked cell (within two cells), as an index into the points.
pub fn point_at(app: &App, column: u16, row: u16) -> Option<usize> {
    let at = coordinates_at(app, column, row)?;
    let projected = app.projection.ready()?;
    let inner = layout::inner(app.layout().pane(Pane::Scatter)?);
    let plot = plot_rect(app, projected, inner);
    let (x, y) = view_bounds(app, projected);
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
        .map(|(i, _)| i)
}

/// Points per layer: dim, each highlighted rank, selected; with the centroid of each group.
struct Layers {
    dim: Vec<(f64, f64)>,
    ranked: Vec<Vec<(f64, f64)>>,
    selected: Vec<(f64, f64)>,
}

/// The category colouring a point in the current mode (collision groups are ranked by size
/// in the library's order; codes and prefixes by how many points they hold).
fn categories(app: &App, projected: &Projected) -> (Vec<Option<u128>>, Vec<(u128, usize)>) {
    let n = projected.projection.points.len();
    let Some(view) = app
        .scatter
        .as_ref()
        .filter(|s| s.tokenizer == app.selected && s.positions.len() == n)
    else {
        return (vec![None; n], Vec::new());
    };
    let data = app.data();
    let key = |i: usize| -> Option<u128> {
        let data = data?;
        match app.camera.colour_by {
            ColourBy::Collision => view.groups[i].map(u128::from),
            ColourBy::FirstCode => Some(u128::from(data.index.codes(view.positions[i]?)[0])),
            ColourBy::Prefix => Some(prefix_key(data.index.codes(view.positions[i]?))),
        }
    };
    let keys: Vec<Option<u128>> = (0..n).map(key).collect();
    let top: Vec<(u128, usize)> = match (app.camera.colour_by, data) {
        (ColourBy::Collision, Some(d)) => d
            .rows
            .iter()
            .take(HIGHLIGHTED_GROUPS)
            .map(|r| (u128::from(r.group), r.size))
            .collect(),
        _ => {
            let mut counts: HashMap<u128, usize> = HashMap::new();
            for k in keys.iter().flatten() {
                *counts.entry(*k).or_default() += 1;
            }
            let mut counts: Vec<(u128, usize)> = counts.into_iter().collect();
            counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            counts.truncate(HIGHLIGHTED_GROUPS);
            counts
        }
    };
    (keys, top)
}

fn layers(app: &App, projected: &Projected) -> Layers {
    let mut out = Layers {
        dim: Vec::new(),
        ranked: vec![Vec::new(); HIGHLIGHTED_GROUPS],
        selected: Vec::new(),
    };
    let points = &projected.projection.points;
    let groups = app
        .scatter
        .as_ref()
        .filter(|s| s.tokenizer == app.selected && s.groups.len() == points.len());
    let selected = app.selected_row().map(|r| r.group);
    let (keys, top) = categories(app, projected);
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

fn draw_points(app: &App, projected: &Projected, frame: &mut Frame, plot: Rect) {
    let theme = &app.theme;
    let points = &projected.projection.points;
    let (x_bounds, y_bounds) = view_bounds(app, projected);
    let layers = layers(app, projected);
    let picked = app.picked_point().and_then(|i| points.get(i).copied());
    let view = app.scatter.as_ref();
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

/// One line per highlighted group (colour, rank, size, first title), the selected group, and
/// what the projection rests on (sample, method, cache).
fn legend(app: &App, projected: &Projected, width: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut out = Vec::new();
    let (_, top) = categories(app, projected);
    let mut spans = vec![Span::styled(
        format!("by {} (c): ", app.camera.colour_by.label()),
        theme.dim(),
    )];
    for (rank, &(key, count)) in top.iter().enumerate() {
        let colour = theme.group_colour(rank);
        let style = if colour == Color::Reset {
            theme.text()
        } else {
            Style::new().fg(colour)
        };
        let name = match (app.camera.colour_by, app.data()) {
            (ColourBy::Collision, Some(d)) => {
                let row = d.row_of(key as u32).map(|r| &d.rows[r]);
                let title = row
                    .and_then(|r| r.items.first().and_then(|i| i.title.clone()))
                    .or_else(|| row.map(|r| r.sid.clone()))
                    .unwrap_or_default();
                format!("{count}×{}", fit(&title, 18))
            }
            (ColourBy::FirstCode, _) => {
                format!("{} {count}", sid::format_token(0, key as sid::Code))
            }
            (ColourBy::Prefix, Some(d)) => {
                let codes = app
                    .scatter
                    .as_ref()
                    .and_then(|v| {
                        v.positions.iter().flatten().find_map(|&p| {
                            let c = d.index.codes(p);
                            (prefix_key(c) == key).then(|| c[..c.len() - 1].to_vec())
                        })
                    })
                    .unwrap_or_default();
                format!("{} {count}", sid::format_sid(&codes))
            }
            _ => String::new(),
        };
        spans.push(Span::styled(format!("■{} ", rank + 1), style));
        spans.push(Span::styled(format!("{name}  "), theme.dim()));
    }
    out.push(Line::from(spans));
    out.extend(picked_lines(app));
    if let (Some(row), Some(scatter)) = (app.selected_row(), app.scatter.as_ref()) {
        let shown = scatter
            .groups
            .iter()
            .filter(|g| **g == Some(row.group))
            .count();
        let sampled = if shown < row.size {
            format!(", {shown} of them in the sample")
        } else {
            String::new()
        };
        out.push(Line::styled(
            format!(
                "◉ selected group #{}: {} items{sampled}",
                row.rank, row.size
            ),
            theme.text(),
        ));
    }
    let p = &projected.projection;
    let mut facts = Vec::new();
    if app.camera.zoom > 1.0 {
        facts.push(format!(
            "zoom ×{} (+/- zoom, S-arrows pan, 0 all)",
            app.camera.zoom
        ));
    }
    if p.is_sample() {
        facts.push(format!(
            "sample of {} of {} items, always keeping the {} items of the {} largest groups",
            thousands(p.rows.len()),
            thousands(p.total_rows),
            thousands(projected.must_include),
            HIGHLIGHTED_GROUPS
        ));
    } else {
        facts.push(format!("all {} items", thousands(p.rows.len())));
    }
    facts.extend(p.notes.iter().filter(|n| !n.contains("sample")).cloned());
    facts.push(match &projected.cache {
        Some(CacheOutcome::Hit(_)) => "from the cache".into(),
        Some(CacheOutcome::Stored(_)) => "computed and cached".into(),
        Some(CacheOutcome::NotStored(why)) => format!("not cached: {why}"),
        None => "cache off".into(),
    });
    out.push(Line::styled(fit(&facts.join(" · "), width), theme.dim()));
    out
}

/// The picked item (`✚`) and its nearest neighbours (`∘`) in the embedding space, with their
/// SIDs, marking those that share its SID.
fn picked_lines(app: &App) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let (Some(data), Some(position)) = (app.data(), app.picked_position()) else {
        return Vec::new();
    };
    let id = data.index.id(position).to_string();
    let title = app
        .items
        .ready()
        .and_then(|t| t.title(&id))
        .map_or(String::new(), |t| format!(" {}", fit(t, 30)));
    let mut out = vec![Line::styled(
        format!("✚ item {id}{title} {}", data.index.sid_string(position)),
        theme.text(),
    )];
    let Some(n) = &app.camera.neighbours else {
        return out;
    };
    if n.position != position {
        return out;
    }
    let near = &n.near;
    let own = data.index.key(position);
    let mut spans = vec![Span::styled("∘ nearest: ", theme.dim())];
    for (n, &(p, d)) in near.iter().enumerate() {
        let same = data.index.key(p) == own;
        let sid = if same {
            "same SID".to_string()
        } else {
            data.index.sid_string(p)
        };
        spans.push(Span::styled(
            format!("{}{} ", if n > 0 { "· " } else { "" }, data.index.id(p)),
            theme.text(),
        ));
        spans.push(Span::styled(
            format!("{sid} d={d:.3} "),
            if same { theme.warn() } else { theme.dim() },
        ));
    }
    out.push(Line::from(spans));
    out
}
