//! The metrics table: the `sidlens compare` rows at the current K (collision rate, Hit@K,
//! ItemHit@K, NDCG@K, ItemNDCG@K, inflation, both ranks), one line per tokenizer in tokenizer
//! order (line n+1 is tokenizer n), rank flips marked `⇅`, and the selected tokenizer's facts.

use crate::report::{self, Align, Table};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::super::app::{App, Slot};
use super::super::layout::{self, Pane};
use super::{pane_block, progress_text, table, thousands};

/// Rank flips spelled out under the table; the rest are counted.
const MAX_FLIP_LINES: usize = 3;

/// Shorter headers for narrow panes, by the library's header.
fn short(header: &str) -> String {
    let k = header.rsplit('@').next().unwrap_or("");
    match header.split('@').next().unwrap_or(header) {
        "collision rate" => "coll.".into(),
        "ItemHit" => format!("IHit@{k}"),
        "ItemNDCG" => format!("INDCG@{k}"),
        "inflation" => "infl.".into(),
        "rank Hit" => "#Hit".into(),
        "rank ItemHit" => "#IHit".into(),
        _ => header.to_string(),
    }
}

/// The library's comparison table with a leading flip marker and one row per tokenizer
/// (tokenizers not loaded yet say why instead of numbers).
fn build(app: &App) -> Table {
    let mut columns: Vec<(String, Align)> = vec![(String::new(), Align::Left)];
    let (library, flipped): (Option<Table>, Vec<String>) = match &app.comparison {
        Some(c) => (
            Some(report::compare::table(c)),
            c.flips
                .iter()
                .flat_map(|f| [f.higher_by_hit.clone(), f.higher_by_item_hit.clone()])
                .collect(),
        ),
        None => (None, Vec::new()),
    };
    match &library {
        Some(t) => columns.extend(t.headers.iter().cloned().zip(t.align.iter().copied())),
        None => columns.extend([
            ("tokenizer".to_string(), Align::Left),
            ("state".to_string(), Align::Left),
        ]),
    }
    let refs: Vec<(&str, Align)> = columns.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut out = Table::new(&refs);
    for t in &app.tokenizers {
        let marker = if flipped.iter().any(|n| n == t.name()) {
            "⇅"
        } else {
            " "
        };
        let library_row = library
            .as_ref()
            .and_then(|l| l.rows.iter().find(|r| r[0] == t.name()));
        let mut cells = vec![marker.to_string()];
        match library_row {
            Some(row) => cells.extend(row.iter().cloned()),
            None => {
                cells.push(t.name().to_string());
                cells.push(state(&t.data, "index"));
                cells.resize(out.headers.len(), String::new());
            }
        }
        out.push(cells);
    }
    out
}

/// A one-cell account of a slot that is not ready.
fn state<T>(slot: &Slot<T>, what: &str) -> String {
    match slot {
        Slot::Ready(_) => String::new(),
        Slot::Loading(p) => format!("{what}: {}", progress_text(p.as_ref())),
        Slot::Missing(why) => why.clone(),
        Slot::Failed(_) => format!("{what}: could not load"),
    }
}

/// Draws the metrics pane.
pub fn render(app: &App, frame: &mut Frame, rect: Rect) {
    let theme = &app.theme;
    let title = vec![Span::styled(
        format!("· K={} · {}", app.k, app.compat.name()),
        theme.dim(),
    )];
    let block = pane_block(app, Pane::Metrics, title);
    let inner = layout::inner(rect);
    frame.render_widget(block, rect);
    let width = inner.width as usize;
    let mut t = build(app);
    let mut headers = t.headers.clone();
    let mut w = table::widths(&t, &headers, width);
    if w.is_none() {
        headers = t.headers.iter().map(|h| short(h)).collect();
        w = table::widths(&t, &headers, width);
    }
    if w.is_none() {
        let keep: Vec<usize> = (0..t.headers.len())
            .filter(|&i| !t.headers[i].contains("NDCG"))
            .collect();
        let pick = |row: &[String]| keep.iter().map(|&i| row[i].clone()).collect::<Vec<_>>();
        t = Table {
            headers: pick(&t.headers),
            align: keep.iter().map(|&i| t.align[i]).collect(),
            rows: t.rows.iter().map(|r| pick(r)).collect(),
        };
        headers = t.headers.iter().map(|h| short(h)).collect();
        w = table::widths(&t, &headers, width);
    }
    let widths = w.unwrap_or_else(|| t.headers.iter().map(|h| h.len().max(4)).collect());
    let selected = app.selected;
    let mut lines = table::lines(&t, &headers, &widths, width, theme.header(), |i| {
        if i == selected {
            theme.selected()
        } else if t.rows[i][0] == "⇅" {
            theme.warn()
        } else {
            Style::new()
        }
    });
    if let Some(c) = &app.comparison {
        let flips = report::compare::flip_lines(c);
        for flip in flips.iter().take(MAX_FLIP_LINES) {
            lines.push(Line::styled(format!("⇅ {flip}"), theme.warn()));
        }
        if flips.len() > MAX_FLIP_LINES {
            lines.push(Line::styled(
                format!(
                    "⇅ … and {} more rank flips (sidlens compare lists them all)",
                    flips.len() - MAX_FLIP_LINES
                ),
                theme.warn(),
            ));
        }
    }
    lines.push(Line::raw(""));
    lines.extend(facts(app));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// What the selected tokenizer's evaluation rests on: users, beam width, corrections.
fn facts(app: &App) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let Some(t) = app.tokenizer() else {
        return Vec::new();
    };
    let text = match &t.metrics {
        Slot::Ready(m) => {
            let a = &m.evaluation.anomalies;
            let file = m
                .path
                .file_name()
                .map_or(String::new(), |f| f.to_string_lossy().to_string());
            format!(
                "{}: {} users, beams up to {} · {file} · invalid SIDs {} · duplicates {} · unknown targets {}",
                t.name(),
                thousands(m.evaluation.n_users()),
                m.beam_width(),
                a.invalid_sids,
                a.duplicate_sids,
                a.unknown_targets
            )
        }
        Slot::Loading(p) => format!(
            "{}: evaluating beams: {}",
            t.name(),
            progress_text(p.as_ref())
        ),
        Slot::Missing(why) => format!("{}: {why}", t.name()),
        Slot::Failed(e) => format!("{}: could not evaluate the beams: {e}", t.name()),
    };
    let style = if matches!(t.metrics, Slot::Failed(_)) {
        theme.error()
    } else {
        theme.dim()
    };
    vec![Line::styled(text, style)]
}
