//! The t-SNE scatter of item embeddings (braille dots), and of the collaborative space beside
//! it (the paper's Figure 5), explorable like an embedding projector: zoom and pan, the picked item `✚` with its nearest neighbours `∘` in the full
//! embedding space, colour by collision group, first-level code or prefix group; the selected
//! group bright and marked `◉`; a legend, and what was sampled and cached.

use crate::projection::CacheOutcome;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Points};
use ratatui::widgets::{Paragraph, Wrap};

use std::collections::HashMap;

use crate::sid;

use super::super::app::{App, ColourBy, HIGHLIGHTED_GROUPS, Slot};
use super::super::data::{Projected, prefix_key};
use super::super::layout::{self, Pane};
use super::super::spaces::{Space, TIGHTEST_MIN_SIZE, apart_text, distance};
use super::{fit, pane_block, slot_lines, thousands, wrap};

/// Draws the scatter pane: one space, or both side by side (tabs when the pane is narrow).
///
/// ```text
/// ┏ Scatter · textual │ collaborative ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
/// ┃ textual · t-SNE of DS.emb.npy        collaborative · DS.inter.json  ┃
/// ┃   ⠁⠂ ⠄1   ⠈⠐                          ⠠ ⢀  1 ⠁                      ┃
/// ┃ legend                               legend                         ┃
/// ┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛
/// ```
pub fn render(app: &App, frame: &mut Frame, rect: Rect) {
    let theme = &app.theme;
    let inner = layout::inner(rect);
    let (tabs, panes) = panes(app, inner);
    // One space shown: its file in the title (the tab bar only says which space it is).
    let title = match (tabs, panes.as_slice()) {
        (_, [_, _]) => Some("· textual and collaborative space side by side".to_string()),
        (None, [(Space::Textual, _)]) => app
            .embeddings
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|f| format!("· t-SNE of {}", f.to_string_lossy())),
        (_, [(space, _)]) => Some(format!("· {}", space_heading(app, *space))),
        _ => None,
    }
    .map(|t| vec![Span::styled(t, theme.dim())]);
    frame.render_widget(
        pane_block(app, Pane::Scatter, title.unwrap_or_default()),
        rect,
    );
    if let Some(bar) = tabs {
        let shown = panes.first().map_or(Space::Textual, |&(s, _)| s);
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
    let side_by_side = panes.len() > 1;
    if side_by_side {
        let shared = shared_lines(app, inner);
        let height = shared.len() as u16;
        frame.render_widget(
            Paragraph::new(shared),
            Rect::new(inner.x, inner.bottom() - height, inner.width, height),
        );
    }
    for (space, area) in panes {
        let area = if side_by_side {
            let heading = Line::styled(
                fit(&space_heading(app, space), area.width as usize),
                theme.header(),
            );
            frame.render_widget(
                Paragraph::new(heading),
                Rect::new(area.x, area.y, area.width, 1),
            );
            Rect::new(
                area.x,
                area.y + 1,
                area.width,
                area.height.saturating_sub(1),
            )
        } else {
            area
        };
        render_space(app, frame, space, area);
    }
}

/// Legends narrower than this (side by side) leave out what the other pane already says.
const COMPACT_LEGEND: usize = 70;

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

/// The tab bar (when the spaces are tabs) and each shown space's area inside the pane.
pub fn panes(app: &App, inner: Rect) -> (Option<Rect>, Vec<(Space, Rect)>) {
    if app.interactions.is_none() {
        return (None, vec![(Space::Textual, inner)]);
    }
    if app.space == Space::Both && inner.width >= MIN_BOTH_WIDTH {
        let left = inner.width.saturating_sub(1) / 2;
        let right = inner.width - left - 1;
        let height = inner.height - shared_lines(app, inner).len() as u16;
        return (
            None,
            vec![
                (Space::Textual, Rect::new(inner.x, inner.y, left, height)),
                (
                    Space::Collaborative,
                    Rect::new(inner.x + left + 1, inner.y, right, height),
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

/// What goes under both panes side by side (the selected group in both spaces), wrapped to
/// `inner`'s width and at most a quarter of its height.
fn shared_lines(app: &App, inner: Rect) -> Vec<Line<'static>> {
    if !side_by_side(app) {
        return Vec::new();
    }
    let mut lines = wrap::wrap_all(
        &selected_line(app, Space::Textual)
            .into_iter()
            .collect::<Vec<_>>(),
        inner.width as usize,
    );
    lines.truncate(inner.height as usize / 4);
    lines
}

/// One space's plot and legend in `area`, or why it is not there yet.
fn render_space(app: &App, frame: &mut Frame, space: Space, area: Rect) {
    let theme = &app.theme;
    let slot = match space {
        Space::Collaborative => &app.collaborative,
        _ => &app.projection,
    };
    let what = match space {
        Space::Collaborative => "the collaborative space",
        _ => "the projection",
    };
    let projected = match slot {
        Slot::Ready(p) => p,
        other => {
            let lines = slot_lines(other, what, theme).unwrap_or_default();
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
            return;
        }
    };
    if projected.projection.points.is_empty() {
        let text = projected.projection.notes.join("; ");
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim())), area);
        return;
    }
    let plot = plot_rect(app, space, projected, area);
    let legend = legend_lines(app, space, projected, area.width as usize);
    let below = Rect::new(
        area.x,
        plot.bottom(),
        area.width,
        area.bottom() - plot.bottom(),
    );
    draw_points(app, space, projected, frame, plot);
    frame.render_widget(Paragraph::new(legend), below);
}

/// The legend wrapped to `width`.
fn legend_lines(
    app: &App,
    space: Space,
    projected: &Projected,
    width: usize,
) -> Vec<Line<'static>> {
    wrap::wrap_all(&legend(app, space, projected, width), width)
}

/// Where the points go inside a space's area: the area minus the legend (at most half).
fn plot_rect(app: &App, space: Space, projected: &Projected, area: Rect) -> Rect {
    let lines = legend_lines(app, space, projected, area.width as usize).len() as u16;
    let legend = lines.min(area.height / 2);
    Rect::new(area.x, area.y, area.width, area.height - legend)
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
    let (_, panes) = panes(app, layout::inner(rect));
    let side_by_side = panes.len() > 1;
    panes
        .into_iter()
        .filter_map(|(space, area)| {
            let projected = app.projection_of(space)?;
            let area = if side_by_side {
                Rect::new(
                    area.x,
                    area.y + 1,
                    area.width,
                    area.height.saturating_sub(1),
                )
            } else {
                area
            };
            Some((
                space,
                plot_rect(app, space, projected, area),
                projected.as_ref(),
            ))
        })
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

/// The category colouring a point in the current mode (collision groups are ranked by size
/// in the library's order; codes and prefixes by how many points they hold).
fn categories(
    app: &App,
    space: Space,
    projected: &Projected,
) -> (Vec<Option<u128>>, Vec<(u128, usize)>) {
    let n = projected.projection.points.len();
    let Some(view) = app
        .scatter_of(space)
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
    let tightest = app
        .spreads
        .as_ref()
        .filter(|s| app.tightest && s.tokenizer == app.selected);
    let top: Vec<(u128, usize)> = match (app.camera.colour_by, data) {
        (ColourBy::Collision, Some(d)) if tightest.is_some() => tightest
            .map(|s| {
                s.tightest
                    .iter()
                    .map(|&g| (u128::from(g), d.collisions.size(g) as usize))
                    .collect()
            })
            .unwrap_or_default(),
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

fn layers(app: &App, space: Space, projected: &Projected) -> Layers {
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
    let (keys, top) = categories(app, space, projected);
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

fn draw_points(app: &App, space: Space, projected: &Projected, frame: &mut Frame, plot: Rect) {
    let theme = &app.theme;
    let points = &projected.projection.points;
    let (x_bounds, y_bounds) = view_bounds(app, space, projected);
    let layers = layers(app, space, projected);
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

/// One line per highlighted group (colour, rank, size, first title), the selected group, and
/// what the projection rests on (sample, method, cache).
fn legend(app: &App, space: Space, projected: &Projected, width: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut out = Vec::new();
    let (_, top) = categories(app, space, projected);
    let tightest = app.tightest && app.camera.colour_by == ColourBy::Collision;
    let heading = if tightest {
        format!(
            "{} tightest groups of {}+ items (t), mean cosine distance here: ",
            top.len(),
            app.spreads
                .as_ref()
                .map_or(TIGHTEST_MIN_SIZE, |s| s.min_size)
        )
    } else {
        format!("by {} (c): ", app.camera.colour_by.label())
    };
    let compact = width < COMPACT_LEGEND;
    let mut spans = vec![Span::styled(heading, theme.dim())];
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
                let apart = app
                    .spreads
                    .as_ref()
                    .filter(|_| tightest)
                    .and_then(|s| s.by_group.get(&(key as u32)))
                    .and_then(|a| match space {
                        Space::Collaborative => a.collaborative,
                        _ => Some(a.textual),
                    })
                    .map_or(String::new(), |d| format!(" {}", distance(d)));
                format!(
                    "{count}×{}{apart}",
                    fit(&title, if compact { 12 } else { 18 })
                )
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
        let pointed = tightest && app.tight_group() == Some(key as u32);
        spans.push(Span::styled(
            format!("{}■{} ", if pointed { "▸" } else { "" }, rank + 1),
            style,
        ));
        spans.push(Span::styled(format!("{name}  "), theme.dim()));
    }
    out.push(Line::from(spans));
    if !compact || space == app.camera_space() {
        out.extend(picked_lines(app, space));
    }
    if !side_by_side(app) {
        out.extend(selected_line(app, space));
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

/// The selected group (`◉`) and how far apart its items are in both spaces, the paper's
/// explanation of the collision in one line: "textually 0.02 apart, 0.71 apart by
/// interactions". Side by side it goes once under both panes, so that it reads as one sentence.
fn selected_line(app: &App, space: Space) -> Option<Line<'static>> {
    let (row, scatter) = (app.selected_row()?, app.scatter_of(space)?);
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
    let apart = app
        .spreads
        .as_ref()
        .filter(|s| s.tokenizer == app.selected)
        .and_then(|s| s.by_group.get(&row.group))
        .map_or(String::new(), |a| format!(": {}", apart_text(a)));
    Some(Line::styled(
        format!("◉ group #{} ({} items{sampled}){apart}", row.rank, row.size),
        app.theme.text(),
    ))
}

/// Whether the scatter shows both spaces side by side now.
fn side_by_side(app: &App) -> bool {
    app.interactions.is_some() && app.space == Space::Both && room_for_both(app)
}

/// The picked item (`✚`) and its nearest neighbours (`∘`) in the embedding space, with their
/// SIDs, marking those that share its SID.
fn picked_lines(app: &App, space: Space) -> Vec<Line<'static>> {
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
    if n.position != position || n.space != app.camera_space() || space != n.space {
        return out;
    }
    let near = &n.near;
    let own = data.index.key(position);
    let heading = match n.space {
        Space::Collaborative => "∘ nearest by interactions: ",
        _ => "∘ nearest: ",
    };
    let mut spans = vec![Span::styled(heading, theme.dim())];
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
