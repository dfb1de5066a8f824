//! A [`Table`] as an HTML `<table>`, and the escaping every string from a data file goes
//! through before it enters HTML (titles and ids are untrusted input).

use crate::report::{Align, Table};

/// `text` escaped for HTML text and attribute values; control characters other than tab and
/// newline (not allowed in HTML or XML) become U+FFFD.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The table with a header row; right-aligned columns get `class="num"`.
pub fn render(table: &Table) -> String {
    let class = |a: Align| match a {
        Align::Left => "",
        Align::Right => " class=\"num\"",
    };
    let mut out = String::from("<table>\n<thead><tr>");
    for (h, &a) in table.headers.iter().zip(&table.align) {
        out.push_str(&format!("<th{}>{}</th>", class(a), escape(h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for (cell, &a) in row.iter().zip(&table.align) {
            out.push_str(&format!("<td{}>{}</td>", class(a), escape(cell)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>\u{7}"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;\u{FFFD}"
        );
        let mut t = Table::new(&[("a<b", Align::Left), ("n", Align::Right)]);
        t.push(vec!["<i>".into(), "1".into()]);
        assert_eq!(
            render(&t),
            "<table>\n<thead><tr><th>a&lt;b</th><th class=\"num\">n</th></tr></thead>\n<tbody>\n<tr><td>&lt;i&gt;</td><td class=\"num\">1</td></tr>\n</tbody>\n</table>\n"
        );
    }
}
