//! A report as prose lines and tables in order, written as plain text, Markdown or LaTeX, so
//! every subcommand's `--markdown` and `--latex` keep the same tables its terminal output has.

use super::Table;
use super::format::{latex, markdown, text};

/// Which text format a [`Document`] is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableStyle {
    /// Padded columns for a terminal.
    Text,
    /// GitHub-flavoured pipe tables.
    Markdown,
    /// booktabs `tabular` environments; prose becomes `%` comments so the output pastes as is.
    Latex,
}

/// Prose and tables, in the order a report prints them.
#[derive(Debug, Clone, Default)]
pub struct Document {
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
enum Part {
    /// Lines as the terminal report prints them (may hold blank lines).
    Prose(String),
    Table(Table),
}

impl Document {
    /// An empty document.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends prose: one or more lines, each ending in `\n`.
    pub fn prose(&mut self, text: impl Into<String>) {
        self.parts.push(Part::Prose(text.into()));
    }

    /// Appends a table.
    pub fn table(&mut self, table: Table) {
        self.parts.push(Part::Table(table));
    }

    /// Writes the document in `style`. Text is exactly the prose and the padded tables;
    /// Markdown and LaTeX separate each block by one blank line and drop blank prose lines.
    pub fn render(&self, style: TableStyle) -> String {
        if style == TableStyle::Text {
            return self
                .parts
                .iter()
                .map(|p| match p {
                    Part::Prose(s) => s.clone(),
                    Part::Table(t) => text::render(t),
                })
                .collect();
        }
        let mut blocks: Vec<String> = Vec::new();
        for part in &self.parts {
            let block = match part {
                Part::Table(t) if style == TableStyle::Markdown => markdown::render(t),
                Part::Table(t) => latex::render(t),
                Part::Prose(s) => {
                    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
                    if lines.is_empty() {
                        continue;
                    }
                    match style {
                        TableStyle::Markdown => markdown_lines(&lines),
                        _ => lines.iter().map(|l| format!("% {l}\n")).collect(),
                    }
                }
            };
            blocks.push(block);
        }
        blocks.join("\n")
    }
}

/// Lines of one Markdown paragraph, each on its own line (a hard break, two trailing
/// spaces), except list items, which Markdown already keeps apart.
fn markdown_lines(lines: &[&str]) -> String {
    let item = |l: &str| l.starts_with("- ");
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        out.push_str(l);
        let next_is_item = lines.get(i + 1).is_some_and(|n| item(n));
        if i + 1 < lines.len() && !item(l) && !next_is_item {
            out.push_str("  ");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Align;

    fn doc() -> Document {
        let mut t = Table::new(&[("K", Align::Right), ("Hit", Align::Right)]);
        t.push(vec!["10".into(), "0.1933".into()]);
        let mut d = Document::new();
        d.prose("demo against index\n1200 users\n\n");
        d.table(t);
        d
    }

    #[test]
    fn text_is_prose_then_padded_table() {
        assert_eq!(
            doc().render(TableStyle::Text),
            "demo against index\n1200 users\n\n K     Hit\n--  ------\n10  0.1933\n"
        );
    }

    #[test]
    fn markdown_breaks_lines_and_separates_blocks() {
        assert_eq!(
            doc().render(TableStyle::Markdown),
            "demo against index  \n1200 users\n\n| K | Hit |\n|---:|---:|\n| 10 | 0.1933 |\n"
        );
    }

    #[test]
    fn markdown_list_items_need_no_breaks() {
        assert_eq!(markdown_lines(&["- a", "- b"]), "- a\n- b\n");
        assert_eq!(markdown_lines(&["a", "b", "- c"]), "a  \nb\n- c\n");
    }

    #[test]
    fn latex_turns_prose_into_comments() {
        let s = doc().render(TableStyle::Latex);
        assert!(s.starts_with("% demo against index\n% 1200 users\n\n\\begin{tabular}{rr}\n"));
        assert!(s.contains("10 & 0.1933 \\\\\n"));
    }
}
