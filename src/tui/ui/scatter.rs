//! The t-SNE scatter of item embeddings (braille dots): the largest groups of the tokenizer
//! shown in their own colours and numbered, the selected group bright and marked `◉`, the rest
//! dim; a legend, and what was sampled and cached.

use crate::projection::CacheOutcome;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::widgets::canvas::{Canvas, Points};

use super::super::app::{App, HIGHLIGHTED_GROUPS, Slot};
use super::super::data::Projected;
use super::super::layout::{self, Pane};
use super::{fit, message, pane_block, slot_lines, thousands};

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
    let legend = legend(app, projected, inner.width as usize);
    let legend_height = (legend.len() as u16).min(inner.height / 3);
    let plot = Rect::new(inner.x, inner.y, inner.width, inner.height - legend_height);
    let below = Rect::new(inner.x, plot.bottom(), inner.width, legend_height);
    draw_points(app, projected, frame, plot);
    frame.render_widget(Paragraph::new(legend), below);
}

/// Points per layer: dim, each highlighted rank, selected; with the centroid of each group.
struct Layers {
    dim: Vec<(f64, f64)>,
    ranked: Vec<Vec<(f64, f64)>>,
    selected: Vec<(f64, f64)>,
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
    let data = app.data();
    let selected = app.selected_row().map(|r| r.group);
    for (i, p) in points.iter().enumerate() {
        let xy = (p[0], p[1]);
        let group = groups.and_then(|g| g.groups[i]);
        if group.is_some() && group == selected {
            out.selected.push(xy);
            continue;
        }
        match group.and_then(|g| data?.row_of(g)) {
            Some(rank) if rank < HIGHLIGHTED_GROUPS => out.ranked[rank].push(xy),
            _ => out.dim.push(xy),
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
    let bound = |axis: usize| {
        let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            (lo.min(p[axis]), hi.max(p[axis]))
        });
        let pad = ((hi - lo) * 0.02).max(1e-9);
        [lo - pad, hi + pad]
    };
    let layers = layers(app, projected);
    let canvas = Canvas::default()
        .marker(Marker::Braille)
        .x_bounds(bound(0))
        .y_bounds(bound(1))
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
                if let Some((x, y)) = centroid(coords) {
                    let style = Style::new().fg(theme.group_colour(rank));
                    ctx.print(x, y, Line::styled((rank + 1).to_string(), style));
                }
            }
            if let Some((x, y)) = centroid(&layers.selected) {
                ctx.print(x, y, Line::styled("◉", theme.header()));
            }
        });
    frame.render_widget(canvas, plot);
}

/// One line per highlighted group (colour, rank, size, first title), the selected group, and
/// what the projection rests on (sample, method, cache).
fn legend(app: &App, projected: &Projected, width: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let mut out = Vec::new();
    if let Some(data) = app.data() {
        let mut spans = Vec::new();
        for (rank, row) in data.rows.iter().take(HIGHLIGHTED_GROUPS).enumerate() {
            let title = row
                .items
                .first()
                .and_then(|i| i.title.clone())
                .unwrap_or_else(|| row.sid.clone());
            let colour = theme.group_colour(rank);
            let style = if colour == Color::Reset {
                theme.text()
            } else {
                Style::new().fg(colour)
            };
            spans.push(Span::styled(format!("■{} ", rank + 1), style));
            spans.push(Span::styled(
                format!("{}×{}  ", row.size, fit(&title, 18)),
                theme.dim(),
            ));
        }
        out.push(Line::from(spans));
    }
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
