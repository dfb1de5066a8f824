//! The output flags every table-printing subcommand shares (`--json`, `--csv`, `--markdown`,
//! `--latex`, at most one of them), and printing a report in the one chosen.

use crate::report::Table;
use crate::report::document::{Document, TableStyle};
use crate::report::format::csv;

use super::print::{print_data, print_text};

/// How to print a report: a terminal table by default.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
#[group(id = "output_format", multiple = false)]
pub struct TableFormat {
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Print CSV: one table of plain numbers (fractions, not percentages; the unit in the
    /// header).
    #[arg(long)]
    pub csv: bool,
    /// Print Markdown tables.
    #[arg(long)]
    pub markdown: bool,
    /// Print LaTeX (booktabs) tables.
    #[arg(long)]
    pub latex: bool,
}

impl TableFormat {
    /// The text style of the tables, `None` for JSON and CSV (printed by their own calls).
    pub fn style(&self) -> Option<TableStyle> {
        if self.json || self.csv {
            None
        } else if self.markdown {
            Some(TableStyle::Markdown)
        } else if self.latex {
            Some(TableStyle::Latex)
        } else {
            Some(TableStyle::Text)
        }
    }

    /// Says `warnings` on stderr when the chosen format does not carry them itself: text and
    /// Markdown documents print them under their tables (said once, where the numbers are);
    /// JSON has a `warnings` list but is read by programs, so a person watching still sees
    /// them; CSV and LaTeX have no place for them.
    pub fn warn(&self, warnings: &[String]) {
        if self.json || self.csv || self.latex {
            for w in warnings {
                super::print::message(&format!("warning: {w}"));
            }
        }
    }

    /// Prints `doc` in the chosen text style (text when JSON or CSV was asked for instead,
    /// which callers print before reaching here).
    pub fn print(&self, doc: &Document) -> anyhow::Result<()> {
        print_text(&doc.render(self.style().unwrap_or(TableStyle::Text)))
    }
}

/// Prints `table` as CSV, every byte of its values as given.
pub fn print_csv(table: &Table) -> anyhow::Result<()> {
    print_data(&csv::render(table))
}
