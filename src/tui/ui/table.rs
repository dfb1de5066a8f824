//! Draws a library [`Table`] (the rows `sidlens` prints) as aligned terminal lines, so a pane
//! shows exactly the CLI's cells; text columns shrink first when the pane is narrow.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use sidlens::report::{Align, Table};
use unicode_width::UnicodeWidthStr;

use super::{pad, pad_left};

/// Column widths that fit `width` (with one space between columns), or `None` when even the
/// shrunk text columns do not fit.
pub fn widths(table: &Table, headers: &[String], width: usize) -> Option<Vec<usize>> {
    let mut w: Vec<usize> = headers.iter().map(|h| h.width()).collect();
    for row in &table.rows {
        for (i, cell) in row.iter().enumerate() {
            w[i] = w[i].max(cell.width());
        }
    }
    let total = |w: &[usize]| w.iter().sum::<usize>() + w.len().saturating_sub(1);
    while total(&w) > width {
        let widest_text = (0..w.len())
            .filter(|&i| table.align[i] == Align::Left && w[i] > 6)
            .max_by_key(|&i| w[i])?;
        w[widest_text] -= 1;
    }
    Some(w)
}

/// The header line and one line per row, each padded to `width`; `style(i)` styles row `i`.
pub fn lines(
    table: &Table,
    headers: &[String],
    widths: &[usize],
    width: usize,
    header_style: Style,
    style: impl Fn(usize) -> Style,
) -> Vec<Line<'static>> {
    let cells = |row: &[String]| -> String {
        row.iter()
            .zip(widths)
            .zip(&table.align)
            .map(|((cell, &w), align)| match align {
                Align::Left => pad(cell, w),
                Align::Right => pad_left(cell, w),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = Vec::with_capacity(table.rows.len() + 1);
    out.push(Line::from(Span::styled(
        pad(&cells(headers), width),
        header_style,
    )));
    for (i, row) in table.rows.iter().enumerate() {
        out.push(Line::styled(pad(&cells(row), width), style(i)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_columns_shrink_numbers_do_not() {
        let mut t = Table::new(&[("name", Align::Left), ("value", Align::Right)]);
        t.push(vec!["a rather long tokenizer name".into(), "0.1234".into()]);
        let headers = t.headers.clone();
        assert_eq!(widths(&t, &headers, 80), Some(vec![28, 6]));
        assert_eq!(widths(&t, &headers, 20), Some(vec![13, 6]));
        assert_eq!(widths(&t, &headers, 10), None);
        let w = widths(&t, &headers, 20).unwrap();
        let l = lines(&t, &headers, &w, 20, Style::new(), |_| Style::new());
        assert_eq!(l[1].to_string(), "a rather lon… 0.1234");
        assert_eq!(l[0].to_string(), "name           value");
    }
}
