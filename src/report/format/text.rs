//! Plain-text tables for terminals: padded columns, a rule under the header.

use unicode_width::UnicodeWidthStr;

use crate::report::{Align, Table};

/// Renders `table` with columns padded to their widest cell.
pub fn render(table: &Table) -> String {
    let n = table.headers.len();
    let mut widths: Vec<usize> = table.headers.iter().map(|h| h.width()).collect();
    for row in &table.rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.width());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(cell.width());
            let last = i + 1 == n;
            match table.align[i] {
                Align::Right => {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(cell);
                }
                Align::Left => {
                    out.push_str(cell);
                    if !last {
                        out.extend(std::iter::repeat_n(' ', pad));
                    }
                }
            }
            if !last {
                out.push_str("  ");
            }
        }
        out.push('\n');
    };
    line(&mut out, &table.headers);
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    line(&mut out, &rule);
    for row in &table.rows {
        line(&mut out, row);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_aligns() {
        let mut t = Table::new(&[("name", Align::Left), ("n", Align::Right)]);
        t.push(vec!["rkmeans".into(), "3".into()]);
        t.push(vec!["é".into(), "12".into()]);
        assert_eq!(
            render(&t),
            "name      n\n-------  --\nrkmeans   3\né        12\n"
        );
    }
}
