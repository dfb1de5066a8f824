//! LaTeX `tabular` (booktabs rules), for dropping a comparison straight into a paper. The
//! symbols sidlens's tables use (<, >, ±, †, Δ, Σ, →, −, ×, …) become math so pdflatex compiles them.

use crate::report::{Align, Table};

/// Renders `table` as a booktabs `tabular` environment.
pub fn render(table: &Table) -> String {
    let spec: String = table
        .align
        .iter()
        .map(|a| match a {
            Align::Left => 'l',
            Align::Right => 'r',
        })
        .collect();
    let row = |cells: &[String]| {
        let escaped: Vec<String> = cells.iter().map(|c| escape(c)).collect();
        format!("{} \\\\\n", escaped.join(" & "))
    };
    let mut out = format!("\\begin{{tabular}}{{{spec}}}\n\\toprule\n");
    out.push_str(&row(&table.headers));
    out.push_str("\\midrule\n");
    for r in &table.rows {
        out.push_str(&row(r));
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n");
    out
}

fn escape(cell: &str) -> String {
    let mut s = String::with_capacity(cell.len());
    for ch in cell.chars() {
        match ch {
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                s.push('\\');
                s.push(ch);
            }
            '~' => s.push_str("\\textasciitilde{}"),
            '^' => s.push_str("\\textasciicircum{}"),
            '\\' => s.push_str("\\textbackslash{}"),
            '<' => s.push_str("\\textless{}"),
            '>' => s.push_str("\\textgreater{}"),
            '±' => s.push_str("$\\pm$"),
            '†' => s.push_str("\\textsuperscript{\\dag}"),
            'Δ' => s.push_str("$\\Delta$"),
            'Σ' => s.push_str("$\\Sigma$"),
            '→' => s.push_str("$\\to$"),
            '−' => s.push_str("$-$"),
            '×' => s.push_str("$\\times$"),
            '…' => s.push_str("\\ldots{}"),
            _ => s.push(ch),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_specials() {
        let mut t = Table::new(&[("run", Align::Left), ("Δ%", Align::Right)]);
        t.push(vec!["rq_vae".into(), "+12.5%".into()]);
        let s = render(&t);
        assert!(s.contains("{lr}"));
        assert!(s.contains("rq\\_vae & +12.5\\% \\\\"));
        assert!(s.contains("run & $\\Delta$\\% \\\\"));
        let mut t = Table::new(&[("Hit@10", Align::Right)]);
        t.push(vec!["0.0854 ± 0.0011†".into()]);
        assert!(render(&t).contains("0.0854 $\\pm$ 0.0011\\textsuperscript{\\dag} \\\\"));
        let mut t = Table::new(&[("SID", Align::Left)]);
        t.push(vec!["<a_9>".into()]);
        assert!(render(&t).contains("\\textless{}a\\_9\\textgreater{} \\\\"));
    }
}
