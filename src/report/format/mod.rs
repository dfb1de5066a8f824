//! How a [`Table`](crate::report::Table) is written: aligned text for a terminal, CSV,
//! Markdown, LaTeX and HTML. Builders elsewhere in `report` decide what the rows are.

pub mod csv;
pub mod html;
pub mod latex;
pub mod markdown;
pub mod text;
