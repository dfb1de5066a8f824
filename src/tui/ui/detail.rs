//! The selected group: its SID, its items (id, title, brand, categories) and its prefix
//! group's reassignment table.

use crate::report::groups::GroupRow;
use crate::report::{self, Align, Table, reassign};
use crate::sid;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::super::app::{App, Slot};
use super::super::data::{PrefixEntry, TokenizerData, prefix_key};
use super::super::layout::{self, Pane};
use super::{message, pad, pane_block, progress_text, slot_lines, table, thousands};

/// Draws the detail of the selected group.
pub fn render(app: &App, frame: &mut Frame, rect: Rect) {
    let theme = &app.theme;
    let Some(tokenizer) = app.tokenizer() else {
        let block = pane_block(app, Pane::Detail, vec![]);
        message(frame, block, rect, vec![Line::raw("no tokenizer given")]);
        return;
    };
    let data = match &tokenizer.data {
        Slot::Ready(data) => data,
        other => {
            let block = pane_block(app, Pane::Detail, vec![]);
            let lines = slot_lines(other, "the index", theme).unwrap_or_default();
            message(frame, block, rect, lines);
            return;
        }
    };
    let Some(row) = app.selected_row() else {
        let block = pane_block(app, Pane::Detail, vec![]);
        let text = "no collision group selected";
        message(frame, block, rect, vec![Line::styled(text, theme.dim())]);
        return;
    };
    let title = vec![Span::styled(
        format!("· group #{} of {}", row.rank, tokenizer.name()),
        theme.dim(),
    )];
    let block = pane_block(app, Pane::Detail, title);
    let inner = layout::inner(rect);
    let lines = lines(app, data, row, inner.width as usize);
    let scroll = tokenizer
        .detail_scroll
        .min(lines.len().saturating_sub(inner.height as usize))
        .min(u16::MAX as usize) as u16;
    let paragraph = Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0));
    frame.render_widget(paragraph, rect);
}

/// Every line of the detail pane, before scrolling.
pub fn lines(app: &App, data: &TokenizerData, row: &GroupRow, width: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let collisions = &data.collisions;
    let prefix = collisions.prefix_of_group(row.group);
    let n_levels = row.codes.len();
    let prefix_codes = &row.codes[..n_levels.saturating_sub(1)];
    let shared_codes = (prefix.first_group..prefix.end_group)
        .filter(|&g| collisions.size(g) > 1)
        .count();
    let mut out = vec![
        Line::from(vec![
            Span::styled("SID ", theme.dim()),
            Span::styled(row.sid.clone(), theme.header()),
            Span::styled(
                format!(
                    "  {} items share it · native codes {}",
                    row.size,
                    codes_text(&row.codes)
                ),
                theme.text(),
            ),
        ]),
        Line::from(vec![
            Span::styled("prefix ", theme.dim()),
            Span::raw(sid::format_sid(prefix_codes)),
            Span::styled(
                format!(
                    "  {} items · {} shared last code{}",
                    thousands(collisions.prefix_size(prefix) as usize),
                    shared_codes,
                    if shared_codes == 1 { "" } else { "s" }
                ),
                theme.dim(),
            ),
        ]),
        Line::raw(""),
    ];
    let texts = app.items.ready();
    let id_width = row
        .items
        .iter()
        .map(|i| i.id.len())
        .max()
        .unwrap_or(2)
        .max(2);
    let rest = width.saturating_sub(id_width + 1);
    let (title_w, brand_w) = if rest >= 60 {
        (rest * 5 / 10, rest * 2 / 10)
    } else {
        (rest, 0)
    };
    let cat_w = rest.saturating_sub(title_w + brand_w + 2);
    let mut header = vec![
        Span::styled(pad("id", id_width) + " ", theme.header()),
        Span::styled(pad("title", title_w), theme.header()),
    ];
    if brand_w > 0 {
        header.push(Span::styled(
            " ".to_string() + &pad("brand", brand_w),
            theme.header(),
        ));
        header.push(Span::styled(
            " ".to_string() + &pad("categories", cat_w),
            theme.header(),
        ));
    }
    out.push(Line::from(header));
    for item in &row.items {
        let info = texts.and_then(|t| t.get(&item.id));
        let title = item.title.clone().unwrap_or_else(|| "—".into());
        let mut spans = vec![
            Span::raw(pad(&item.id, id_width) + " "),
            Span::raw(pad(&title, title_w)),
        ];
        if brand_w > 0 {
            let brand = info.and_then(|i| i.brand.clone()).unwrap_or_default();
            let cats = info.and_then(|i| i.categories.clone()).unwrap_or_default();
            spans.push(Span::styled(
                " ".to_string() + &pad(&brand, brand_w),
                theme.dim(),
            ));
            spans.push(Span::styled(
                " ".to_string() + &pad(&cats, cat_w),
                theme.dim(),
            ));
        }
        out.push(Line::from(spans));
    }
    if let Slot::Missing(how) | Slot::Failed(how) = &app.items {
        out.push(Line::styled(how.clone(), theme.dim()));
    }
    out.push(Line::raw(""));
    out.extend(credit_lines(app, row));
    out.push(Line::raw(""));
    out.push(Line::styled(
        format!(
            "Reassignment of prefix {}: ZCR vs greedy",
            sid::format_sid(prefix_codes)
        ),
        theme.header(),
    ));
    out.extend(reassign_lines(app, row, width));
    out
}

/// How the group fared in the beams at K: generated, targets, SID- vs item-level credit.
fn credit_lines(app: &App, row: &GroupRow) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let Some(t) = app.tokenizer() else {
        return Vec::new();
    };
    let text = match &t.metrics {
        Slot::Ready(m) => {
            let generated = thousands(m.generated(row.group) as usize);
            match m.credit(row.group, app.k) {
                Some(c) => format!(
                    "in {generated} users' beams · target of {} users · at K={}: SID-level credit ΣHit {:.2}, item-level ΣItemHit {:.2}, over-credit {:.2}",
                    thousands(c.targets as usize),
                    app.k,
                    c.sid,
                    c.item,
                    c.over()
                ),
                None => format!("in {generated} users' beams · no user's target is in this group"),
            }
        }
        Slot::Loading(p) => format!("beams: evaluating {}", progress_text(p.as_ref())),
        Slot::Missing(why) => format!("beams: {why}"),
        Slot::Failed(_) => "beams: could not be evaluated (see Metrics)".into(),
    };
    vec![Line::styled(text, theme.dim())]
}

/// The prefix group's reassignment: the `sidlens zcr --groups` rows for it (who keeps which
/// code under ZCR and greedy, ΔD), the group's items marked, and the saving.
fn reassign_lines(app: &App, row: &GroupRow, width: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let Some(t) = app.tokenizer() else {
        return Vec::new();
    };
    let re = match &t.reassign {
        Slot::Ready(re) => re,
        Slot::Loading(p) => {
            let text = format!("planning ZCR and greedy: {}", progress_text(p.as_ref()));
            return vec![Line::styled(text, theme.dim())];
        }
        Slot::Missing(why) => return vec![Line::styled(why.clone(), theme.dim())],
        Slot::Failed(e) => {
            return vec![
                Line::styled("could not plan the reassignment:", theme.error()),
                Line::raw(e.clone()),
            ];
        }
    };
    let key = prefix_key(&row.codes);
    let reassign_row = match re.entry(key) {
        Some(PrefixEntry::Row(i)) => &re.rows[i],
        Some(PrefixEntry::Skipped(i)) => {
            let s = &re.skipped[i];
            return vec![Line::styled(
                format!("left unchanged: {}", s.message),
                theme.warn(),
            )];
        }
        None => {
            return vec![Line::styled(
                "no collision in this prefix group",
                theme.dim(),
            )];
        }
    };
    let library = reassign::groups_table(std::slice::from_ref(reassign_row));
    let members: Vec<&str> = row.items.iter().map(|i| i.id.as_str()).collect();
    let mut columns: Vec<(&str, Align)> = vec![("", Align::Left)];
    columns.extend(
        library.headers[2..]
            .iter()
            .map(String::as_str)
            .zip(library.align[2..].iter().copied()),
    );
    columns.push(("title", Align::Left));
    let mut table = Table::new(&columns);
    for (k, cells) in library.rows.iter().enumerate() {
        let item = reassign_row.items.get(k);
        let marker = match item {
            Some(i) if members.contains(&i.id.as_str()) => "▸",
            _ => "",
        };
        let mut r = vec![marker.to_string()];
        r.extend(cells[2..].iter().cloned());
        r.push(item.and_then(|i| i.title.clone()).unwrap_or_default());
        table.push(r);
    }
    let headers = table.headers.clone();
    let mut out = match table::widths(&table, &headers, width) {
        Some(w) => table::lines(&table, &headers, &w, width, theme.header(), |i| {
            if table.rows[i][0] == "▸" {
                theme.text().add_modifier(Modifier::BOLD)
            } else {
                theme.text()
            }
        }),
        None => vec![Line::styled(
            "(the pane is too narrow for the table)",
            theme.dim(),
        )],
    };
    out.push(Line::styled(
        "▸ items of the selected group; the others share its prefix",
        theme.dim(),
    ));
    let summary = match (reassign_row.optimal_total, reassign_row.greedy_total) {
        (Some(opt), Some(gre)) => {
            let saving = gre - opt;
            let pct = if gre > 0.0 {
                format!(" ({:.1}%)", saving / gre * 100.0)
            } else {
                String::new()
            };
            Line::styled(
                format!(
                    "both move {} item{}: ZCR ΔD {} vs greedy ΔD {} — ZCR saves {}{pct}",
                    reassign_row.min_changes,
                    if reassign_row.min_changes == 1 {
                        ""
                    } else {
                        "s"
                    },
                    report::metric(opt),
                    report::metric(gre),
                    report::metric(saving)
                ),
                if saving > 0.0 {
                    theme.good()
                } else {
                    theme.text()
                },
            )
        }
        _ => Line::styled(
            format!(
                "no vectors loaded, so ΔD is unknown; what is known: at least {} of these {} items must change their last code. Pass --latents FILE (and --codebooks FILE) to compare ZCR with greedy.",
                reassign_row.min_changes, reassign_row.size
            ),
            theme.dim(),
        ),
    };
    out.push(summary);
    if re.plan.summary.codebook_estimated {
        out.push(Line::styled(
            "codebooks estimated from the latents (mean residual per code)",
            theme.dim(),
        ));
    }
    out
}

/// Codes as `127 244 179 206`, the form `/` also searches.
pub fn codes_text(codes: &[sid::Code]) -> String {
    codes
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}
