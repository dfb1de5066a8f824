//! The selected group: its SID, its items (id, title, brand, categories) and its prefix
//! group's reassignment table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use sidlens::report::groups::GroupRow;
use sidlens::sid;

use super::super::app::{App, Slot};
use super::super::data::TokenizerData;
use super::super::layout::{self, Pane};
use super::{message, pad, pane_block, slot_lines, thousands};

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
        .min(lines.len().saturating_sub(1))
        .min(u16::MAX as usize) as u16;
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), rect);
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
    out.push(Line::styled(
        format!("Reassignment of prefix {}", sid::format_sid(prefix_codes)),
        theme.header(),
    ));
    out.push(Line::styled(
        "not loaded: the reassignment library is not part of this build yet",
        theme.dim(),
    ));
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
