//! The metrics pane's lines: the `sidlens compare` table at the current K (seeds as
//! mean ± std, † where the paired tests call a difference from the column's best
//! significant), one line per tokenizer with flips marked `⇅`, and under it a scrolling part:
//! the tests' state and legend, the selected tokenizer's facts and every rank flip with its
//! verdict.
//!
//! ```text
//! ┏ Metrics · K=10 · faithful · lines 1–6 of 9 ┓
//! ┃  tokenizer  coll. … Hit@10 IHit@10 …       ┃  table (pinned; row n+1 = nth in order)
//! ┃⇅ alpha     68.75% … 1.0000  0.5000† …      ┃
//! ┃† differs from the best value of its column ┃  body (scrolls below the last row)
//! ┃alpha: 6 users, beams up to 3 · …           ┃
//! ┃rank flips at K=10: 1 (1 significant)       ┃
//! ┃⇅ alpha ranks above beta by Hit@10 but …    ┃
//! ```

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::report::compare::{MARK, mark_legend, report_flip_lines, report_table};
use crate::report::{Align, Table};
use crate::usecase::CompareReport;

use super::text::{progress_text, thousands};
use super::{Screen, table, wrap};
use crate::tui::layout::{self, Pane};
use crate::tui::state::slot::Slot;

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

/// The library's comparison table with a leading flip marker and one row per tokenizer in the
/// pane's order (tokenizers not loaded yet say why instead of numbers).
fn build(screen: &Screen<'_>) -> Table {
    let mut columns: Vec<(String, Align)> = vec![(String::new(), Align::Left)];
    let report = screen.metrics.report();
    let library = report.map(|r| report_table(r, false));
    let flipped: Vec<&str> = report
        .map(|r| {
            r.comparisons
                .iter()
                .flat_map(|c| {
                    let hit = c
                        .flips
                        .iter()
                        .flat_map(|f| [&f.higher_by_hit, &f.higher_by_item_hit]);
                    let ndcg = c
                        .ndcg_flips
                        .iter()
                        .flat_map(|f| [&f.higher_by_ndcg, &f.higher_by_item_ndcg]);
                    hit.chain(ndcg).map(String::as_str)
                })
                .collect()
        })
        .unwrap_or_default();
    match &library {
        Some(t) => columns.extend(t.headers.iter().cloned().zip(t.align.iter().copied())),
        None => columns.extend([
            ("tokenizer".to_string(), Align::Left),
            ("state".to_string(), Align::Left),
        ]),
    }
    let refs: Vec<(&str, Align)> = columns.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut out = Table::new(&refs);
    if let (Some((column, descending)), Some(_)) = (screen.metrics.sort, &library)
        && let Some(header) = out.headers.get_mut(column + 1)
    {
        header.push(if descending { '▼' } else { '▲' });
    }
    for t in screen
        .metrics_order()
        .into_iter()
        .map(|i| &screen.tokenizers[i])
    {
        let marker = if flipped.contains(&t.name()) {
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

/// Columns' total width with one space between them.
fn total(widths: &[usize]) -> usize {
    widths.iter().sum::<usize>() + widths.len().saturating_sub(1)
}

/// Whether the tokenizer column (the second) keeps at least 12 columns, so cut names still
/// read.
fn names_readable(t: &Table, widths: &[usize]) -> bool {
    let longest = t
        .rows
        .iter()
        .map(|r| r[1].chars().count())
        .max()
        .unwrap_or(0);
    widths.get(1).is_some_and(|&w| w >= longest.min(12))
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

/// `0.0854 ± 0.0011†` → `0.0854†`: the mean and its mark, for panes too narrow for the std.
fn without_std(cell: &str) -> String {
    match cell.split_once(" ± ") {
        Some((mean, rest)) if rest.ends_with(MARK) => format!("{mean}{MARK}"),
        Some((mean, _)) => mean.to_string(),
        None => cell.to_string(),
    }
}

/// The table fitted to `width`: whole names with long headers, else short headers, else cut
/// names; failing that the NDCG columns go, then the `± std` part of the cells (the selected
/// tokenizer's facts then list what the table hides). Returns the table, its headers, widths
/// and whether something was hidden.
fn fit(t: Table, width: usize) -> (Table, Vec<String>, Vec<usize>, bool) {
    let keep_ndcg: Vec<usize> = (0..t.headers.len()).collect();
    let no_ndcg: Vec<usize> = keep_ndcg
        .iter()
        .copied()
        .filter(|&i| !t.headers[i].contains("NDCG"))
        .collect();
    let seeded = t.rows.iter().flatten().any(|c| c.contains(" ± "));
    let mut tries = vec![(&keep_ndcg, false), (&no_ndcg, false)];
    if seeded {
        tries.extend([(&keep_ndcg, true), (&no_ndcg, true)]);
    }
    let variant = |keep: &[usize], strip: bool| -> Table {
        let pick = |row: &[String], strip: bool| -> Vec<String> {
            keep.iter()
                .map(|&i| {
                    if strip {
                        without_std(&row[i])
                    } else {
                        row[i].clone()
                    }
                })
                .collect()
        };
        Table {
            headers: pick(&t.headers, false),
            align: keep.iter().map(|&i| t.align[i]).collect(),
            rows: t.rows.iter().map(|r| pick(r, strip)).collect(),
        }
    };
    for (n, (keep, strip)) in tries.iter().enumerate() {
        let v = variant(keep, *strip);
        let long = v.headers.clone();
        let shorts: Vec<String> = v.headers.iter().map(|h| short(h)).collect();
        let uncut = |h: &[String]| table::widths(&v, h, usize::MAX).filter(|w| total(w) <= width);
        let found = match (uncut(&long), uncut(&shorts)) {
            (Some(w), _) => Some((long, w)),
            (None, Some(w)) => Some((shorts, w)),
            (None, None) => table::widths(&v, &shorts, width)
                .filter(|w| names_readable(&v, w))
                .map(|w| (shorts, w)),
        };
        if let Some((headers, w)) = found {
            return (v, headers, w, n > 0);
        }
    }
    let (keep, strip) = tries[tries.len() - 1];
    let v = variant(keep, strip);
    let headers: Vec<String> = v.headers.iter().map(|h| short(h)).collect();
    let w = table::widths(&v, &headers, width)
        .unwrap_or_else(|| headers.iter().map(|h| h.len().max(4)).collect());
    (v, headers, w, true)
}

/// The pane laid out for its inside area: the pinned table, the wrapped lines under it that
/// scroll, and how many of those show.
#[derive(Debug)]
pub struct MetricsView {
    /// The table's header and rows.
    pub table: Vec<Line<'static>>,
    /// Everything under the table, one entry per screen line.
    pub body: Vec<Line<'static>>,
    /// Body lines that show at once.
    pub height: usize,
}

impl MetricsView {
    /// The largest useful scroll: the last body line at the bottom of the pane.
    pub fn max_scroll(&self) -> usize {
        self.body.len().saturating_sub(self.height)
    }
}

/// The metrics pane laid out in `inner`.
pub fn view(screen: &Screen<'_>, inner: Rect) -> MetricsView {
    let theme = screen.theme;
    let width = inner.width as usize;
    let (t, headers, widths, hidden) = fit(build(screen), width);
    let order = screen.metrics_order();
    let selected = order
        .iter()
        .position(|&i| i == screen.tokenizers.selected)
        .unwrap_or(0);
    let table = table::lines(&t, &headers, &widths, width, theme.header(), |i| {
        if i == selected {
            theme.selected()
        } else if t.rows[i][0] == "⇅" {
            theme.warn()
        } else {
            Style::new()
        }
    });
    let mut body = tests_lines(screen);
    body.extend(facts(screen, hidden));
    if let Some(r) = screen.metrics.report() {
        body.extend(
            r.warnings
                .iter()
                .map(|w| Line::styled(format!("warning: {w}"), theme.warn())),
        );
        body.push(Line::raw(""));
        body.extend(flip_lines(screen, r));
    }
    let body = wrap::wrap_all(&body, width);
    let height = (inner.height as usize).saturating_sub(table.len());
    MetricsView {
        table,
        body,
        height,
    }
}

/// The largest scroll of the metrics pane as it is on screen now (0 when hidden).
pub fn max_scroll(screen: &Screen<'_>) -> usize {
    screen
        .layout()
        .pane(Pane::Metrics)
        .map(layout::inner)
        .map_or(0, |inner| view(screen, inner).max_scroll())
}

/// Where the paired tests are: the legend of `†` once done, progress while they run, why
/// there are none, or why they failed.
fn tests_lines(screen: &Screen<'_>) -> Vec<Line<'static>> {
    let theme = screen.theme;
    match &screen.metrics.tested {
        Slot::Ready(r) => mark_legend(r)
            .map(|l| vec![Line::styled(l, theme.dim())])
            .unwrap_or_default(),
        Slot::Loading(p) => vec![Line::styled(
            format!(
                "testing every pair (paired t-test, Holm-adjusted, α 0.05): {} · {MARK} marks follow",
                progress_text(p.as_ref())
            ),
            theme.dim(),
        )],
        Slot::Missing(why) if screen.metrics.comparison.is_some() => {
            vec![Line::styled(format!("{why} ({MARK} marks)"), theme.dim())]
        }
        Slot::Missing(_) => Vec::new(),
        Slot::Failed(e) => vec![Line::styled(
            format!("the paired tests failed: {e}"),
            theme.error(),
        )],
    }
}

/// Every rank flip (by Hit and by NDCG) as `sidlens compare` words it, with its verdict once
/// the tests are done.
fn flip_lines(screen: &Screen<'_>, r: &CompareReport) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let lines = report_flip_lines(r);
    let k = screen.metrics.k;
    if lines.is_empty() {
        return vec![Line::styled(
            format!("no rank flips between SID-level and item-level metrics at K={k}"),
            theme.dim(),
        )];
    }
    let c = &r.comparisons[0];
    let significant = c.flips.iter().filter(|f| f.significant).count()
        + c.ndcg_flips.iter().filter(|f| f.significant).count();
    let verdict = match &screen.metrics.tested {
        Slot::Ready(_) => format!(" · {significant} significant"),
        Slot::Loading(_) => " · testing…".into(),
        _ => String::new(),
    };
    let mut out = vec![Line::styled(
        format!(
            "rank flips at K={k}: {} by Hit, {} by NDCG{verdict}",
            c.flips.len(),
            c.ndcg_flips.len()
        ),
        theme.header(),
    )];
    out.extend(
        lines
            .into_iter()
            .map(|l| Line::styled(format!("⇅ {l}"), theme.warn())),
    );
    out
}

/// What the selected tokenizer's evaluation rests on: users, beam width, seeds, corrections;
/// with `hidden`, also every compared metric as mean ± std (what a narrow table leaves out).
fn facts(screen: &Screen<'_>, hidden: bool) -> Vec<Line<'static>> {
    let theme = screen.theme;
    let Some(t) = screen.tokenizers.shown() else {
        return Vec::new();
    };
    let text = match &t.metrics {
        Slot::Ready(m) => {
            let e = m.evaluation();
            let a = &e.anomalies;
            let files = &m.seeds.files;
            let name = |p: &std::path::Path| {
                p.file_name()
                    .map_or(String::new(), |f| f.to_string_lossy().to_string())
            };
            let file = match files.len() {
                1 => name(&files[0]),
                n => format!(
                    "{n} seeds: {}",
                    files.iter().map(|f| name(f)).collect::<Vec<_>>().join(", ")
                ),
            };
            let mut text = format!(
                "{}: {} users, beams up to {} · {file} · {}invalid SIDs {} · duplicates {} · unknown targets {}",
                t.name(),
                thousands(e.n_users()),
                m.beam_width(),
                if files.len() > 1 { "first seed: " } else { "" },
                a.invalid_sids,
                a.duplicate_sids,
                a.unknown_targets
            );
            let n_users = e.n_users() as u64;
            for w in crate::metrics::fit_warnings(a, n_users) {
                text.push_str(&format!(" · warning: {w}"));
            }
            text
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
    let mut out = vec![Line::styled(text, style)];
    if hidden && let Some(line) = hidden_values(screen) {
        out.push(Line::styled(line, theme.dim()));
    }
    out
}

/// The selected tokenizer's compared metrics in full (`mean ± std` with seeds, `†` marks),
/// for when the table is too narrow to show them all.
fn hidden_values(screen: &Screen<'_>) -> Option<String> {
    let r = screen.metrics.report()?;
    let t = report_table(r, false);
    let name = screen.tokenizers.shown()?.name();
    let row = t.rows.iter().find(|row| row[0] == name)?;
    let n_seeds = r.comparisons[0]
        .rows
        .iter()
        .find(|x| x.name == row[0])?
        .n_seeds;
    let values: Vec<String> = t
        .headers
        .iter()
        .zip(row)
        .filter(|(h, _)| h.contains("Hit@") || h.contains("NDCG@"))
        .filter(|(h, _)| !h.starts_with("rank"))
        .map(|(h, cell)| format!("{h} {cell}"))
        .collect();
    let over = if n_seeds > 1 {
        format!(" (mean ± std over {n_seeds} seeds)")
    } else {
        String::new()
    };
    Some(format!("{}{over}: {}", row[0], values.join(" · ")))
}
