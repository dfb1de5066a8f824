//! GitHub-flavoured Markdown tables, for pasting results into notes and pull requests.

use crate::report::{Align, Table};

/// Renders `table` as a Markdown pipe table.
pub fn render(table: &Table) -> String {
    let row = |cells: &[String]| {
        let escaped: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |\n", escaped.join(" | "))
    };
    let mut out = row(&table.headers);
    let rule: Vec<String> = table
        .align
        .iter()
        .map(|a| match a {
            Align::Left => ":---".to_string(),
            Align::Right => "---:".to_string(),
        })
        .collect();
    out.push_str(&format!("|{}|\n", rule.join("|")));
    for r in &table.rows {
        out.push_str(&row(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipes_and_alignment() {
        let mut t = Table::new(&[("run", Align::Left), ("Hit@10", Align::Right)]);
        t.push(vec!["a|b".into(), "0.1000".into()]);
        assert_eq!(
            render(&t),
            "| run | Hit@10 |\n|:---|---:|\n| a\\|b | 0.1000 |\n"
        );
    }
}
