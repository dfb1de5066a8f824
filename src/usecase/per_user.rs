//! `eval --per-user FILE`: every user's values as JSON Lines, or as a Parquet / Arrow table
//! when FILE's name asks for one, with the same columns in the same order (`user`,
//! `target_item`, `rank`, `items_before`, `group_size`, then `Hit@K` … `ItemMRR@K` and, with
//! `--decode`, `DecodedHit@K` …). Tables are written a row group at a time.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Float64Builder, StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use crate::io::columnar::{ROWS_PER_GROUP, TableFormat, TableWriter};
use crate::load::SidIndex;
use crate::metrics::{DecodedValues, Decoder, MetricValues, UserOutcome};

/// Where per-user values go: JSON Lines, or a table.
pub enum PerUserSink<'w> {
    /// One JSON object per line.
    Lines(&'w mut (dyn Write + Send)),
    /// A Parquet or Arrow IPC table.
    Table(Box<TableRows<'w>>),
}

/// The per-user table being written, with the rows of its current row group.
pub struct TableRows<'w> {
    writer: TableWriter<'w>,
    schema: Arc<Schema>,
    user: UInt64Builder,
    target_item: StringBuilder,
    rank: UInt32Builder,
    items_before: UInt32Builder,
    group_size: UInt32Builder,
    values: Vec<Float64Builder>,
    rows: usize,
}

/// The names of the value columns, in the order JSON Lines lists them.
fn value_names(ks: &[usize], decoded: bool) -> Vec<String> {
    let mut names = Vec::new();
    for (name, _) in MetricValues::default().named() {
        names.extend(ks.iter().map(|k| format!("{name}@{k}")));
    }
    if decoded {
        for (name, _) in DecodedValues::default().named() {
            names.extend(ks.iter().map(|k| format!("{name}@{k}")));
        }
    }
    names
}

impl<'w> PerUserSink<'w> {
    /// A sink writing to `out`, in the format `target`'s name asks for.
    pub fn new(
        target: &Path,
        out: &'w mut (dyn Write + Send),
        ks: &[usize],
        decoded: bool,
    ) -> io::Result<Self> {
        let Some(format) = TableFormat::from_name(target) else {
            return Ok(PerUserSink::Lines(out));
        };
        let names = value_names(ks, decoded);
        let mut fields = vec![
            Field::new("user", DataType::UInt64, false),
            Field::new("target_item", DataType::Utf8, true),
            Field::new("rank", DataType::UInt32, true),
            Field::new("items_before", DataType::UInt32, true),
            Field::new("group_size", DataType::UInt32, true),
        ];
        fields.extend(
            names
                .iter()
                .map(|n| Field::new(n, DataType::Float64, false)),
        );
        let schema = Arc::new(Schema::new(fields));
        Ok(PerUserSink::Table(Box::new(TableRows {
            writer: TableWriter::new(out, schema.clone(), format)?,
            schema,
            user: UInt64Builder::new(),
            target_item: StringBuilder::new(),
            rank: UInt32Builder::new(),
            items_before: UInt32Builder::new(),
            group_size: UInt32Builder::new(),
            values: names.iter().map(|_| Float64Builder::new()).collect(),
            rows: 0,
        })))
    }

    /// Writes one user's values.
    pub fn write(
        &mut self,
        user: usize,
        o: &UserOutcome,
        index: &SidIndex,
        ks: &[usize],
        decoder: Option<&Decoder>,
    ) -> io::Result<()> {
        let t = match self {
            PerUserSink::Lines(w) => {
                return write_user_line(&mut **w, user, o, index, ks, decoder);
            }
            PerUserSink::Table(t) => t,
        };
        t.user.append_value(user as u64);
        t.target_item
            .append_option(o.target_item.map(|p| index.id(p as usize)));
        t.rank.append_option(o.sid_rank.map(|r| r + 1));
        t.items_before.append_option(o.item_block.map(|b| b.before));
        t.group_size.append_option(o.item_block.map(|b| b.size));
        let mut column = t.values.iter_mut();
        let values: Vec<_> = ks.iter().map(|&k| o.values(k)).collect();
        for metric in 0..MetricValues::default().named().len() {
            for v in &values {
                column
                    .next()
                    .expect("one column per value")
                    .append_value(v.named()[metric].1);
            }
        }
        if let Some(d) = decoder {
            let values: Vec<_> = ks.iter().map(|&k| d.values(o, k)).collect();
            for slot in 0..3 {
                for v in &values {
                    column
                        .next()
                        .expect("one column per value")
                        .append_value(v.named()[slot].1);
                }
            }
        }
        t.rows += 1;
        if t.rows == ROWS_PER_GROUP {
            t.flush()?;
        }
        Ok(())
    }

    /// Completes the file (a table's last row group and footer).
    pub fn finish(self) -> io::Result<()> {
        match self {
            PerUserSink::Lines(_) => Ok(()),
            PerUserSink::Table(mut t) => {
                t.flush()?;
                t.writer.finish()
            }
        }
    }
}

impl TableRows<'_> {
    fn flush(&mut self) -> io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.user.finish()),
            Arc::new(self.target_item.finish()),
            Arc::new(self.rank.finish()),
            Arc::new(self.items_before.finish()),
            Arc::new(self.group_size.finish()),
        ];
        columns.extend(
            self.values
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef),
        );
        let batch = RecordBatch::try_new(self.schema.clone(), columns).map_err(io::Error::other)?;
        self.rows = 0;
        self.writer.write(&batch)
    }
}

/// Writes one user's line of `eval --per-user` JSON Lines: the user's number, target item,
/// rank (1-based) and block (P, G), then Hit, NDCG, MRR, ItemHit, ItemNDCG, ItemMRR at every K
/// and, with a decoder, DecodedHit, DecodedNDCG, DecodedMRR at every K.
pub fn write_user_line(
    out: &mut dyn Write,
    user: usize,
    o: &UserOutcome,
    index: &SidIndex,
    ks: &[usize],
    decoder: Option<&Decoder>,
) -> io::Result<()> {
    write!(out, "{{\"user\": {user}, \"target_item\": ")?;
    match o.target_item {
        Some(p) => serde_json::to_writer(&mut *out, index.id(p as usize))?,
        None => out.write_all(b"null")?,
    }
    let opt = |v: Option<u32>| v.map_or("null".to_string(), |v| v.to_string());
    write!(
        out,
        ", \"rank\": {}, \"items_before\": {}, \"group_size\": {}",
        opt(o.sid_rank.map(|r| r + 1)),
        opt(o.item_block.map(|b| b.before)),
        opt(o.item_block.map(|b| b.size)),
    )?;
    let values: Vec<_> = ks.iter().map(|&k| o.values(k)).collect();
    for metric in 0..MetricValues::default().named().len() {
        for (k, v) in ks.iter().zip(&values) {
            let (name, value) = v.named()[metric];
            write!(out, ", \"{name}@{k}\": ")?;
            serde_json::to_writer(&mut *out, &value)?;
        }
    }
    if let Some(d) = decoder {
        let values: Vec<_> = ks.iter().map(|&k| d.values(o, k)).collect();
        for slot in 0..3 {
            for (k, v) in ks.iter().zip(&values) {
                let (name, value) = v.named()[slot];
                write!(out, ", \"{name}@{k}\": ")?;
                serde_json::to_writer(&mut *out, &value)?;
            }
        }
    }
    out.write_all(b"}\n")
}
