//! One error type for the library. Every data error names the file and the place in it
//! (item id, line, record, field), so a user can go straight to the problem.

use std::fmt;
use std::path::{Path, PathBuf};

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while loading or analysing SID artifacts.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be opened, read or written.
    // The OS message is in the text and not chained as a `source`, so `{:#}` printing
    // (anyhow's chain) does not repeat it.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// The file was read but its content is not what sidlens expects.
    #[error("{}{place}: {message}", path.display())]
    Data {
        /// The file concerned.
        path: PathBuf,
        /// Where in the file (empty for the whole file).
        place: Place,
        /// What is wrong, in words a user understands.
        message: String,
    },
    /// Inputs that are each fine but do not fit together, or an impossible request.
    #[error("{0}")]
    Invalid(String),
    /// The caller asked the work to stop (a newer request in the TUI, or Ctrl-C).
    #[error("cancelled")]
    Cancelled,
}

/// A place inside an input file; displayed as `: item "14"`, `: line 3, column 7`, ...
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Place {
    /// The file as a whole.
    #[default]
    File,
    /// A 1-based line and column.
    Line {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// An item id of an index or metadata file.
    Item(String),
    /// A record of a beams file: 0-based record number, with its 1-based line when known.
    Record {
        /// 0-based record number.
        record: usize,
        /// 1-based line, 0 when unknown.
        line: usize,
    },
    /// A field, row or dimension of a structured file.
    Field(String),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::File => Ok(()),
            Place::Line { line, column } => write!(f, ": line {line}, column {column}"),
            Place::Item(id) => write!(f, ": item \"{id}\""),
            Place::Record { record, line: 0 } => write!(f, ": record {record}"),
            Place::Record { record, line } => write!(f, ": record {record} (line {line})"),
            Place::Field(name) => write!(f, ": {name}"),
        }
    }
}

impl Error {
    /// A data error at `place` in the file at `path`.
    pub fn data(path: &Path, place: Place, message: impl Into<String>) -> Self {
        Error::Data {
            path: path.to_path_buf(),
            place,
            message: message.into(),
        }
    }

    /// An I/O error on the file at `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            error: source,
        }
    }

    /// Converts a serde_json error into a data error that keeps its line and column.
    pub fn json(path: &Path, err: &serde_json::Error) -> Self {
        let text = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        let message = text.strip_suffix(&suffix).unwrap_or(&text).to_string();
        let place = if err.line() == 0 {
            Place::File
        } else {
            Place::Line {
                line: err.line(),
                column: err.column(),
            }
        };
        let message = if err.is_eof() {
            format!("unexpected end of file ({message}); is the file truncated?")
        } else {
            message
        };
        Error::data(path, place, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_file_and_place() {
        let e = Error::data(Path::new("x.json"), Place::Item("14".into()), "bad token");
        assert_eq!(e.to_string(), "x.json: item \"14\": bad token");
        let e = Error::data(
            Path::new("b.jsonl"),
            Place::Record { record: 3, line: 4 },
            "oops",
        );
        assert_eq!(e.to_string(), "b.jsonl: record 3 (line 4): oops");
        let e = Error::data(Path::new("f"), Place::File, "empty");
        assert_eq!(e.to_string(), "f: empty");
    }

    #[test]
    fn json_errors_keep_line_and_column_once() {
        let err = serde_json::from_str::<serde_json::Value>("{\n  \"a\": tru }").unwrap_err();
        let e = Error::json(Path::new("i.json"), &err);
        let text = e.to_string();
        assert!(text.starts_with("i.json: line 2, column"), "{text}");
        assert!(!text.contains(" at line "), "{text}");
    }
}
