//! Draws a library [`Table`] (the rows `sidlens` prints) as aligned terminal lines, so a pane
//! shows exactly the CLI's cells; text columns shrink first when the pane is narrow.

use crate::report::{Align, Table};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::text::{fit, fit_middle, pad, pad_left};

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
    // A text column whose cut cells would look alike (tokenizer names sharing a prefix) is
    // cut so that the rows stay distinguishable.
    let shown: Vec<Option<Vec<String>>> = (0..widths.len())
        .map(|i| {
            (table.align[i] == Align::Left && cut_cells_collide(table, i, widths[i]))
                .then(|| distinguishable(table.rows.iter().map(|r| r[i].as_str()), widths[i]))
        })
        .collect();
    let cells = |r: Option<usize>, row: &[String]| -> String {
        row.iter()
            .enumerate()
            .map(|(i, cell)| match (table.align[i], r, &shown[i]) {
                (Align::Left, Some(r), Some(cut)) => pad(&cut[r], widths[i]),
                (Align::Left, _, _) => pad(cell, widths[i]),
                (Align::Right, _, _) => pad_left(cell, widths[i]),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = Vec::with_capacity(table.rows.len() + 1);
    out.push(Line::from(Span::styled(
        pad(&cells(None, headers), width),
        header_style,
    )));
    for (i, row) in table.rows.iter().enumerate() {
        out.push(Line::styled(pad(&cells(Some(i), row), width), style(i)));
    }
    out
}

/// `cells` cut to `width` so that different cells stay different where possible: a prefix
/// shared by all (up to a separator) is replaced by `…` (`…v64_zcr`), else the middle is cut.
fn distinguishable<'a>(cells: impl Iterator<Item = &'a str> + Clone, width: usize) -> Vec<String> {
    let first = cells.clone().next().unwrap_or("");
    let common = cells.clone().fold(first.len(), |n, c| {
        first
            .bytes()
            .zip(c.bytes())
            .take(n)
            .take_while(|(a, b)| a == b)
            .count()
    });
    let prefix = first[..common]
        .rfind(['_', '-', '.', '/', ' '])
        .map_or(0, |at| at + 1);
    if prefix > 0 {
        return cells
            .map(|c| fit(&format!("…{}", &c[prefix..]), width))
            .collect();
    }
    cells.map(|c| fit_middle(c, width)).collect()
}

/// Whether cutting column `i` to `width` makes two different cells equal.
fn cut_cells_collide(table: &Table, i: usize, width: usize) -> bool {
    let mut seen = std::collections::HashMap::new();
    table.rows.iter().any(|row| {
        let cut = fit(&row[i], width);
        seen.insert(cut, &row[i])
            .is_some_and(|other| other != &row[i])
    })
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

    #[test]
    fn names_sharing_a_prefix_stay_distinguishable() {
        let mut t = Table::new(&[("tokenizer", Align::Left), ("Hit", Align::Right)]);
        t.push(vec!["rkmeans_v64_native".into(), "0.1".into()]);
        t.push(vec!["rkmeans_v64_zcr".into(), "0.2".into()]);
        let headers = t.headers.clone();
        let l = lines(&t, &headers, &[12, 3], 16, Style::new(), |_| Style::new());
        assert_eq!(l[1].to_string(), "…native      0.1");
        assert_eq!(l[2].to_string(), "…zcr         0.2");
        let mut t = Table::new(&[("tokenizer", Align::Left)]);
        t.push(vec!["letter_native_long".into()]);
        t.push(vec!["letter_native_longer".into()]);
        t.push(vec!["rqvae".into()]);
        let headers = t.headers.clone();
        let l = lines(&t, &headers, &[12], 12, Style::new(), |_| Style::new());
        assert_eq!(l[1].to_string(), "let…ive_long");
        assert_eq!(l[2].to_string(), "let…e_longer");
    }
}
