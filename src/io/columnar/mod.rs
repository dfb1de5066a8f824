//! Parquet and Arrow IPC tables, the files industrial pipelines keep catalogs and model
//! outputs in: told by their magic bytes (or name), read one row group (or IPC batch) at a
//! time, columns checked by name and type with messages that name the file and the place.

mod columns;
mod read;
mod write;

pub use columns::{
    Columns, FloatLists, IdColumn, IntListLists, IntLists, Lists, StringColumn, StringLists,
};
pub use read::{
    BatchPlace, for_each_batch, for_each_batch_ahead, for_each_batch_in,
    for_each_batch_of_path_ahead,
};
pub use write::{ROWS_PER_GROUP, TableWriter};

use std::path::Path;

use arrow_schema::Schema;

/// A table's columns with their types, `name (type), …`, for messages that say what a file
/// holds instead of what it lacks.
pub fn describe_columns(schema: &Schema) -> String {
    schema
        .fields()
        .iter()
        .map(|f| format!("{} ({})", f.name(), f.data_type()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The two columnar layouts sidlens reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Apache Parquet (magic `PAR1`), what pyarrow, polars, Spark and HF datasets write.
    Parquet,
    /// The Arrow IPC file format (magic `ARROW1`; `.arrow`, `.feather` v2).
    ArrowFile,
    /// The Arrow IPC stream format (`.arrows`), which starts with a continuation marker.
    ArrowStream,
}

impl TableFormat {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            TableFormat::Parquet => "Parquet",
            TableFormat::ArrowFile => "Arrow IPC file",
            TableFormat::ArrowStream => "Arrow IPC stream",
        }
    }

    /// The format of a file that starts with `head`, if it is one of the columnar ones.
    pub fn from_magic(head: &[u8]) -> Option<TableFormat> {
        if head.starts_with(b"PAR1") {
            Some(TableFormat::Parquet)
        } else if head.starts_with(b"ARROW1") {
            Some(TableFormat::ArrowFile)
        } else if head.starts_with(&[0xFF, 0xFF, 0xFF, 0xFF]) {
            Some(TableFormat::ArrowStream)
        } else {
            None
        }
    }

    /// The format a file name asks for (`.parquet`, `.pq`, `.arrow`, `.feather`, `.ipc`,
    /// `.arrows`), for outputs and for inputs whose bytes cannot be looked at first.
    pub fn from_name(path: &Path) -> Option<TableFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "parquet" | "pq" => Some(TableFormat::Parquet),
            "arrow" | "feather" | "ipc" => Some(TableFormat::ArrowFile),
            "arrows" => Some(TableFormat::ArrowStream),
            _ => None,
        }
    }
}

/// The columnar format of the file at `path`: by its first bytes when it is a regular file,
/// else (standard input, a pipe) by its name. `None`: not a columnar file.
pub fn sniff(path: &Path) -> Option<TableFormat> {
    use std::io::Read;
    if path.as_os_str() != "-"
        && std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && let Ok(mut f) = std::fs::File::open(path)
    {
        let mut head = [0u8; 8];
        let mut n = 0;
        while n < head.len() {
            match f.read(&mut head[n..]) {
                Ok(0) | Err(_) => break,
                Ok(k) => n += k,
            }
        }
        return TableFormat::from_magic(&head[..n]).or_else(|| TableFormat::from_name(path));
    }
    TableFormat::from_name(path)
}
