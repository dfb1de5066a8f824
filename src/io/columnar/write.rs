//! Writing a table as Parquet (snappy-compressed, as pyarrow writes by default) or as an
//! Arrow IPC file, batch by batch into any writer, so it goes through the all-or-nothing
//! outputs of `crate::io::write` like every other output.

use std::io::Write;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::Schema;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::TableFormat;

/// Rows a writer buffers before it writes them out (a Parquet row group, an IPC batch).
pub const ROWS_PER_GROUP: usize = 65_536;

/// A table being written; [`TableWriter::finish`] writes the footer.
pub enum TableWriter<'w> {
    /// Parquet, one row group per batch written.
    Parquet(ArrowWriter<&'w mut (dyn Write + Send)>),
    /// An Arrow IPC file.
    Arrow(arrow_ipc::writer::FileWriter<&'w mut (dyn Write + Send)>),
}

impl<'w> TableWriter<'w> {
    /// Starts a table of `schema` in `format` (an IPC stream is written as an IPC file).
    pub fn new(
        out: &'w mut (dyn Write + Send),
        schema: Arc<Schema>,
        format: TableFormat,
    ) -> std::io::Result<Self> {
        Ok(match format {
            TableFormat::Parquet => {
                let props = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .set_max_row_group_size(ROWS_PER_GROUP)
                    .set_created_by(format!("sidlens {}", env!("CARGO_PKG_VERSION")))
                    .build();
                TableWriter::Parquet(
                    ArrowWriter::try_new(out, schema, Some(props))
                        .map_err(std::io::Error::other)?,
                )
            }
            TableFormat::ArrowFile | TableFormat::ArrowStream => TableWriter::Arrow(
                arrow_ipc::writer::FileWriter::try_new(out, &schema)
                    .map_err(std::io::Error::other)?,
            ),
        })
    }

    /// Writes one batch of rows.
    pub fn write(&mut self, batch: &RecordBatch) -> std::io::Result<()> {
        match self {
            TableWriter::Parquet(w) => w.write(batch).map_err(std::io::Error::other),
            TableWriter::Arrow(w) => w.write(batch).map_err(std::io::Error::other),
        }
    }

    /// Writes the footer; the table is complete.
    pub fn finish(self) -> std::io::Result<()> {
        match self {
            TableWriter::Parquet(w) => w.close().map(|_| ()).map_err(std::io::Error::other),
            TableWriter::Arrow(mut w) => w.finish().map_err(std::io::Error::other),
        }
    }
}
