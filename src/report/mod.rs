//! Reports: the same domain data rendered as a human table, JSON, CSV, Markdown or LaTeX.
//! Builders here decide *what* a report shows (rows and columns), shared by the CLI and the
//! TUI; `text`, `csv`, `markdown`, `latex` and `html` decide *how* a [`Table`] is written, and
//! `document` strings prose and tables together in one of them.

pub mod compare;
pub mod diff;
pub mod document;
pub mod eval;
pub mod format;
pub mod groups;
pub mod item;
pub mod page;
pub mod projection;
pub mod reassign;
pub mod spread;
pub mod stats;

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text columns.
    Left,
    /// Numbers.
    Right,
}

/// A table of already formatted cells: what every output format renders.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// Column headers.
    pub headers: Vec<String>,
    /// Alignment per column.
    pub align: Vec<Align>,
    /// Rows of cells, one per header.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with the given columns.
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Table {
            headers: columns.iter().map(|(h, _)| h.to_string()).collect(),
            align: columns.iter().map(|&(_, a)| a).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (must have one cell per column).
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
    }
}

/// A group-level cell shown only on a group's first line (tables list one line per item).
pub fn on_first_line(first: bool, cell: String) -> String {
    if first { cell } else { String::new() }
}

/// Formats a metric value the way every table shows it: 4 decimals.
pub fn metric(v: f64) -> String {
    format!("{v:.4}")
}

/// A number as CSV writes it: every digit Rust needs to read it back, empty when undefined.
pub fn raw(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or_else(String::new, |v| v.to_string())
}

/// Formats a rate as a percentage with 2 decimals.
pub fn percent(v: f64) -> String {
    format!("{:.2}%", v * 100.0)
}

/// Formats an optional percentage value (already ×100), `n/a` when undefined.
pub fn signed_percent(v: Option<f64>) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v:+.1}%"),
        _ => "n/a".to_string(),
    }
}
