//! CSV (RFC 4180): fields with commas, quotes or newlines are quoted.

use crate::report::Table;

/// Renders `table` as CSV with a header row.
pub fn render(table: &Table) -> String {
    let mut out = String::new();
    for row in std::iter::once(&table.headers).chain(&table.rows) {
        let cells: Vec<String> = row.iter().map(|c| field(c)).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

fn field(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Align;

    #[test]
    fn quotes_when_needed() {
        let mut t = Table::new(&[("a", Align::Left), ("b", Align::Left)]);
        t.push(vec!["x,y".into(), "say \"hi\"".into()]);
        assert_eq!(render(&t), "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n");
    }
}
