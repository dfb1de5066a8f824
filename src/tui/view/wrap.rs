//! Word wrapping done before drawing, so a pane knows exactly how many screen lines its text
//! takes (scrolling and "to the last line" count those) and continuation lines keep an indent.

use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `line` broken at spaces (or, for a word longer than the width, inside it) into lines of at
/// most `width` columns; continuation lines start with `indent` spaces. Styles are kept.
pub fn wrap(line: &Line<'_>, width: usize, indent: usize) -> Vec<Line<'static>> {
    let owned = || Line {
        spans: line
            .spans
            .iter()
            .map(|s| Span::styled(s.content.to_string(), s.style))
            .collect(),
        style: line.style,
        alignment: line.alignment,
    };
    if width == 0 || line.width() <= width {
        return vec![owned()];
    }
    let indent = indent.min(width / 2);
    let mut cells: Vec<(char, usize)> = line
        .spans
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.content.chars().map(move |c| (c, i)))
        .collect();
    while cells.last().is_some_and(|(c, _)| *c == ' ') {
        cells.pop();
    }
    let mut rows: Vec<Vec<(char, usize)>> = Vec::new();
    let mut row: Vec<(char, usize)> = Vec::new();
    let mut used = 0;
    let mut room = width;
    let mut break_at: Option<usize> = None;
    let mut seen_text = false;
    for (c, span) in cells {
        let w = c.width().unwrap_or(0);
        if used + w > room && !row.is_empty() {
            if c == ' ' {
                rows.push(std::mem::take(&mut row));
                used = 0;
                room = width - indent;
                break_at = None;
                continue;
            }
            let rest = match break_at {
                Some(at) => {
                    let rest = row.split_off(at + 1);
                    row.pop();
                    rest
                }
                None => Vec::new(),
            };
            rows.push(std::mem::replace(&mut row, rest));
            used = row.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
            room = width - indent;
            break_at = None;
        }
        if c == ' ' && seen_text {
            break_at = Some(row.len());
        }
        seen_text |= c != ' ';
        row.push((c, span));
        used += w;
    }
    rows.push(row);
    rows.into_iter()
        .enumerate()
        .map(|(n, cells)| {
            let mut spans = Vec::new();
            if n > 0 && indent > 0 {
                spans.push(Span::raw(" ".repeat(indent)));
            }
            let mut text = String::new();
            let mut current = cells.first().map_or(0, |&(_, s)| s);
            for (c, s) in cells {
                if s != current {
                    spans.push(Span::styled(
                        std::mem::take(&mut text),
                        line.spans[current].style,
                    ));
                    current = s;
                }
                text.push(c);
            }
            if !text.is_empty() {
                spans.push(Span::styled(text, line.spans[current].style));
            }
            Line {
                spans,
                style: line.style,
                alignment: line.alignment,
            }
        })
        .collect()
}

/// Every line wrapped to `width`, continuation lines indented like their first line.
pub fn wrap_all(lines: &[Line<'_>], width: usize) -> Vec<Line<'static>> {
    lines
        .iter()
        .flat_map(|l| {
            let text = l.to_string();
            let indent = text.width() - text.trim_start().width();
            wrap(l, width, indent)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn breaks_at_spaces_and_keeps_the_indent() {
        let line = Line::from(vec![
            Span::raw("  G/End   "),
            Span::styled("to the last line of the pane", Style::new().bold()),
        ]);
        let out = wrap(&line, 24, 10);
        assert_eq!(
            texts(&out),
            [
                "  G/End   to the last",
                "          line of the",
                "          pane"
            ]
        );
        assert!(out.iter().all(|l| l.width() <= 24));
        assert_eq!(out[1].spans[1].style, Style::new().bold());
    }

    #[test]
    fn long_words_are_cut_and_short_lines_untouched() {
        let out = wrap(&Line::raw("abcdefghij kl"), 4, 0);
        assert_eq!(texts(&out), ["abcd", "efgh", "ij", "kl"]);
        assert_eq!(texts(&wrap(&Line::raw("ab"), 4, 2)), ["ab"]);
        assert_eq!(texts(&wrap(&Line::raw(""), 4, 0)), [""]);
        let out = wrap_all(&[Line::raw("  one two three")], 9);
        assert_eq!(texts(&out), ["  one two", "  three"]);
    }
}
