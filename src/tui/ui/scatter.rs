//! Draws the t-SNE scatter of item embeddings (braille dots), and of the collaborative space
//! beside it (the paper's Figure 5), explorable like an embedding projector: zoom and pan, the
//! picked item `✚` with its nearest neighbours `∘` in the full embedding space, colour by
//! collision group, first-level code or prefix group; the selected group bright and marked
//! `◉`; the legend from `view::scatter` under the plots.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Points};
use ratatui::widgets::{Paragraph, Wrap};

use super::{pane_block, slot_lines};
use crate::tui::data::Projected;
use crate::tui::layout::{self, Pane};
use crate::tui::spaces::Space;
use crate::tui::state::scatter::{ColourBy, HIGHLIGHTED_GROUPS};
use crate::tui::state::slot::Slot;
use crate::tui::view::Screen;
use crate::tui::view::scatter::{keys, scene, view_bounds};
use crate::tui::view::text::fit;

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
pub fn render(screen: &Screen<'_>, frame: &mut Frame, rect: Rect) {
    let theme = screen.theme;
    let inner = layout::inner(rect);
    let scene = scene(screen, inner);
    // One space shown: its file in the title (the tab bar only says which space it is).
    let title = match (scene.tabs, scene.spaces.as_slice()) {
        (_, [_, _]) => Some("· textual and collaborative space side by side".to_string()),
        (None, [s]) if s.space == Space::Textual => screen
            .scatter
            .embeddings
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|f| format!("· t-SNE of {}", f.to_string_lossy())),
        (_, [s]) => Some(format!("· {}", space_heading(screen, s.space))),
        _ => None,
    }
    .map(|t| vec![Span::styled(t, theme.dim())]);
    frame.render_widget(
        pane_block(screen, Pane::Scatter, title.unwrap_or_default()),
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
            let text = fit(&space_heading(screen, shown.space), heading.width as usize);
            frame.render_widget(Paragraph::new(Line::styled(text, theme.header())), heading);
        }
        match shown.projected {
            Some(projected) => draw_points(
                screen,
                shown.space,
                projected,
                &scene.top,
                frame,
                shown.plot,
            ),
            None => render_missing(screen, frame, shown.space, shown.plot),
        }
    }
    frame.render_widget(Paragraph::new(scene.legend_lines), scene.legend);
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
fn space_heading(screen: &Screen<'_>, space: Space) -> String {
    let file = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .and_then(|p| p.file_name())
            .map_or(String::new(), |f| f.to_string_lossy().into_owned())
    };
    match space {
        Space::Collaborative => {
            format!(
                "collaborative · PPMI + SVD of {}",
                file(&screen.scatter.interactions)
            )
        }
        _ => format!("textual · t-SNE of {}", file(&screen.scatter.embeddings)),
    }
}

/// Why a space has no points to draw yet (loading, missing, failed, or nothing projected).
fn render_missing(screen: &Screen<'_>, frame: &mut Frame, space: Space, area: Rect) {
    let theme = screen.theme;
    let (slot, what) = match space {
        Space::Collaborative => (&screen.scatter.collaborative, "the collaborative space"),
        _ => (&screen.scatter.projection, "the projection"),
    };
    let lines = match slot {
        Slot::Ready(p) => vec![Line::styled(p.projection.notes.join("; "), theme.dim())],
        other => slot_lines(other, what, theme).unwrap_or_default(),
    };
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// Points per layer: dim, each highlighted rank, selected; with the centroid of each group.
struct Layers {
    dim: Vec<(f64, f64)>,
    ranked: Vec<Vec<(f64, f64)>>,
    selected: Vec<(f64, f64)>,
}

fn layers(
    screen: &Screen<'_>,
    space: Space,
    projected: &Projected,
    top: &[(u128, usize)],
) -> Layers {
    let mut out = Layers {
        dim: Vec::new(),
        ranked: vec![Vec::new(); HIGHLIGHTED_GROUPS],
        selected: Vec::new(),
    };
    let points = &projected.projection.points;
    let groups = screen
        .scatter
        .view_of(space)
        .filter(|s| s.tokenizer == screen.tokenizers.selected && s.groups.len() == points.len());
    let selected = screen.tokenizers.selected_row().map(|r| r.group);
    let keys = keys(screen, space, projected);
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
    screen: &Screen<'_>,
    space: Space,
    projected: &Projected,
    top: &[(u128, usize)],
    frame: &mut Frame,
    plot: Rect,
) {
    let theme = screen.theme;
    let points = &projected.projection.points;
    let (x_bounds, y_bounds) = view_bounds(screen, space, projected);
    let layers = layers(screen, space, projected, top);
    let picked = screen
        .picked_point(space)
        .and_then(|i| points.get(i).copied());
    let view = screen.scatter.view_of(space);
    let neighbours: Vec<[f64; 2]> = match (&screen.scatter.camera.neighbours, view) {
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
                if screen.scatter.camera.colour_by != ColourBy::Collision {
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
