//! The collision-group list: the library's group rows (`report::groups`) in the chosen order,
//! only the visible ones drawn, the selected one in reverse video.

use crate::report::groups::GroupRow;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::report;

use super::{message, pane_block, slot_lines};
use crate::tui::data::prefix_key;
use crate::tui::layout::{self, Pane};
use crate::tui::state::slot::Slot;
use crate::tui::view::Screen;
use crate::tui::view::detail::codes_text;
use crate::tui::view::groups::visible_offset;
use crate::tui::view::text::{cut_apart, fit, pad, pad_left, thousands};

/// A column of the list.
struct Column {
    header: String,
    width: usize,
    right: bool,
}

/// Draws the group list of the selected tokenizer.
pub fn render(screen: &Screen<'_>, frame: &mut Frame, rect: Rect) {
    let theme = screen.theme;
    let Some(tokenizer) = screen.tokenizers.shown() else {
        let block = pane_block(screen, Pane::Groups, vec![]);
        message(frame, block, rect, vec![Line::raw("no tokenizer given")]);
        return;
    };
    let view = &tokenizer.list;
    let mut title = vec![Span::styled(
        format!("· {} ", tokenizer.name()),
        theme.text(),
    )];
    let data = match &tokenizer.data {
        Slot::Ready(data) => data,
        other => {
            let block = pane_block(screen, Pane::Groups, title);
            let lines = slot_lines(other, "the index", theme).unwrap_or_default();
            message(frame, block, rect, lines);
            return;
        }
    };
    title.push(Span::styled(
        format!(
            "· {}/{} groups ≥{} · by {}",
            thousands((view.cursor + 1).min(view.order.len())),
            thousands(view.order.len()),
            screen.groups.min_size,
            screen.groups.sort.label()
        ),
        theme.dim(),
    ));
    let block = pane_block(screen, Pane::Groups, title);
    if data.rows.is_empty() {
        let text = format!(
            "no collisions: all {} items have their own SID",
            thousands(data.index.n_items())
        );
        message(frame, block, rect, vec![Line::styled(text, theme.good())]);
        return;
    }
    if view.order.is_empty() {
        let text = format!(
            "no group has {} or more items (the largest has {}); press m to change",
            screen.groups.min_size,
            data.stats().g_max
        );
        message(frame, block, rect, vec![Line::styled(text, theme.dim())]);
        return;
    }
    let inner = layout::inner(rect);
    frame.render_widget(block, rect);
    let height = (inner.height as usize).saturating_sub(1);
    let offset = visible_offset(view.offset, view.cursor, height);
    let end = (offset + height).min(view.order.len());
    let visible: Vec<&GroupRow> = view.order[offset..end]
        .iter()
        .map(|&r| &data.rows[r])
        .collect();
    let tokens = inner.width >= 130;
    let sid_text = |row: &GroupRow| -> String {
        if tokens {
            row.sid.clone()
        } else {
            codes_text(&row.codes)
        }
    };
    let extra = extra_columns(screen, inner.width as usize);
    let widest = |f: &dyn Fn(&GroupRow) -> usize| visible.iter().map(|r| f(r)).max().unwrap_or(0);
    let mut columns = vec![
        Column {
            header: "#".into(),
            width: widest(&|r| r.rank.to_string().len()).max(1),
            right: true,
        },
        Column {
            header: "size".into(),
            width: widest(&|r| r.size.to_string().len()).max(4),
            right: true,
        },
        Column {
            header: "SID".into(),
            width: widest(&|r| sid_text(r).len()).max(3),
            right: false,
        },
    ];
    let extra_cells: Vec<Vec<String>> = visible
        .iter()
        .map(|r| extra.iter().map(|(_, f)| f(r)).collect())
        .collect();
    for (i, (header, _)) in extra.iter().enumerate() {
        let width = extra_cells
            .iter()
            .map(|c| c[i].len())
            .max()
            .unwrap_or(0)
            .max(header.len());
        columns.push(Column {
            header: header.clone(),
            width,
            right: true,
        });
    }
    let used: usize = columns.iter().map(|c| c.width + 1).sum();
    columns.push(Column {
        header: "first item".into(),
        width: (inner.width as usize).saturating_sub(used),
        right: false,
    });
    let mut lines = Vec::with_capacity(visible.len() + 1);
    lines.push(Line::from(
        columns
            .iter()
            .map(|c| Span::styled(cell(c, &c.header) + " ", theme.header()))
            .collect::<Vec<_>>(),
    ));
    let matches: &[usize] = screen.prompt.search.as_ref().map_or(&[], |s| &s.matches);
    let firsts: Vec<String> = visible
        .iter()
        .map(|row| {
            row.items
                .first()
                .map(|item| match &item.title {
                    Some(t) => t.clone(),
                    None => format!("item {}", item.id),
                })
                .unwrap_or_default()
        })
        .collect();
    let first_width = columns.last().map_or(0, |c| c.width);
    let firsts = cut_apart(
        &firsts.iter().map(String::as_str).collect::<Vec<_>>(),
        first_width,
    );
    for (i, row) in visible.iter().enumerate() {
        let position = offset + i;
        let first = firsts[i].clone();
        let mut cells = vec![row.rank.to_string(), row.size.to_string(), sid_text(row)];
        cells.extend(extra_cells[i].iter().cloned());
        cells.push(first);
        let text: String = columns
            .iter()
            .zip(&cells)
            .map(|(c, v)| cell(c, v))
            .collect::<Vec<_>>()
            .join(" ");
        let style = if position == view.cursor {
            theme.selected()
        } else if matches.contains(&position) {
            theme.matched()
        } else {
            Style::new()
        };
        lines.push(Line::styled(pad(&text, inner.width as usize), style));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// A computed column: header and cell text per row.
type Extra<'a> = (String, Box<dyn Fn(&GroupRow) -> String + 'a>);

/// Columns that appear once beams are evaluated (how often the group's SID was generated, its
/// SID-level against item-level credit at K) and once ZCR is planned with vectors (ΔD of ZCR
/// and greedy in the group's prefix group); fewer when the pane is narrow.
fn extra_columns<'a>(screen: &Screen<'a>, width: usize) -> Vec<Extra<'a>> {
    let mut out: Vec<Extra<'_>> = Vec::new();
    let Some(t) = screen.tokenizers.shown() else {
        return out;
    };
    let wide = width >= 110;
    if let Slot::Ready(m) = &t.metrics {
        let k = screen.metrics.k;
        out.push((
            "gen".into(),
            Box::new(move |r: &GroupRow| m.generated(r.group).to_string()),
        ));
        if wide {
            out.push((
                format!("Hit@{k}"),
                Box::new(move |r: &GroupRow| {
                    m.credit(r.group, k)
                        .map_or_else(|| credit(0.0), |c| credit(c.sid))
                }),
            ));
            out.push((
                format!("IHit@{k}"),
                Box::new(move |r: &GroupRow| {
                    m.credit(r.group, k)
                        .map_or_else(|| credit(0.0), |c| credit(c.item))
                }),
            ));
        }
        out.push((
            "over".into(),
            Box::new(move |r: &GroupRow| {
                m.credit(r.group, k)
                    .map_or_else(|| credit(0.0), |c| credit(c.over()))
            }),
        ));
    }
    if let Slot::Ready(re) = &t.reassign
        && re.plan.summary.with_vectors
    {
        let total = move |r: &GroupRow, zcr: bool| {
            re.row(prefix_key(&r.codes))
                .and_then(|row| {
                    if zcr {
                        row.optimal_total
                    } else {
                        row.greedy_total
                    }
                })
                .map_or("-".into(), report::metric)
        };
        if wide {
            out.push((
                "ΔD ZCR".into(),
                Box::new(move |r: &GroupRow| total(r, true)),
            ));
            out.push((
                "ΔD greedy".into(),
                Box::new(move |r: &GroupRow| total(r, false)),
            ));
        } else {
            out.push((
                "saving".into(),
                Box::new(move |r: &GroupRow| {
                    re.saving(prefix_key(&r.codes))
                        .map_or("-".into(), report::metric)
                }),
            ));
        }
    }
    out
}

/// A credit (a sum of per-user values) with 2 decimals, so a column lines up.
fn credit(v: f64) -> String {
    format!("{v:.2}")
}

fn cell(column: &Column, value: &str) -> String {
    if column.right {
        pad_left(value, column.width)
    } else {
        pad(&fit(value, column.width), column.width)
    }
}
