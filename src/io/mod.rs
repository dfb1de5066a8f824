//! Files in and out, by one set of rules: what an input may be (regular file, pipe, `-`) and
//! when it is mapped, all-or-nothing writing, Parquet/Arrow tables, and text made safe for a
//! terminal.

pub mod columnar;
pub mod input;
pub mod terminal_text;
pub mod write;

pub use input::{Input, read_input};
