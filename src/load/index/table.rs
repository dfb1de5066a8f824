//! A SID index as a Parquet or Arrow IPC table: one row per item, `item_id` (integer or
//! string) with `codes` (a list of integer codes) or `sid` (one SID string in any token
//! scheme sidlens reads). Written back the same way: `codes` for an integer index, `sid` in
//! the index's scheme otherwise.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder, UInt16Builder};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use crate::error::{Error, Place, Result};
use crate::io::columnar::{self, Columns, ROWS_PER_GROUP, TableFormat, TableWriter};
use crate::load::ids::{ItemIds, canonical_integer};
use crate::load::index::{IndexFormat, SidIndex};
use crate::sid::scheme::{self as sid_scheme, SidScheme};
use crate::sid::{self, Code, MAX_LEVELS};

/// Reads the index table at `path` (open as `file`) row group by row group.
pub(super) fn load(
    path: &Path,
    format: TableFormat,
    file: std::fs::File,
    codebook_size: Option<usize>,
    scheme: Option<SidScheme>,
) -> Result<SidIndex> {
    let mut ids = ItemIds::new();
    let mut codes: Vec<Code> = Vec::new();
    let mut n_levels = 0usize;
    let mut by_sid = false;
    let mut scheme = scheme;
    let forced = scheme.is_some();
    columnar::for_each_batch_ahead(
        path,
        format,
        file,
        &crate::progress::NoProgress,
        &[],
        |schema| {
            let has = |n: &str| schema.index_of(n).is_ok();
            if !has("item_id") {
                return Err(Error::data(
                    path,
                    Place::File,
                    format!(
                        "has no \"item_id\" column (is this an index table?); its columns: {}",
                        columnar::describe_columns(schema)
                    ),
                ));
            }
            match (has("codes"), has("sid")) {
                (true, true) => Err(Error::data(
                    path,
                    Place::File,
                    "has both a \"codes\" and a \"sid\" column; give one",
                )),
                (false, false) => Err(Error::data(
                    path,
                    Place::File,
                    format!(
                        "has neither a \"codes\" column (list of integers) nor a \"sid\" column (SID strings); its columns: {}",
                        columnar::describe_columns(schema)
                    ),
                )),
                (_, sid) => {
                    by_sid = sid;
                    Ok(vec![
                        "item_id".into(),
                        if sid { "sid" } else { "codes" }.into(),
                    ])
                }
            }
        },
        |batch, place| {
            let cols = Columns::new(path, batch, place);
            let id_col = cols.ids("item_id")?.expect("checked in the schema");
            let sids = cols.strings("sid")?;
            let lists = cols.int_lists("codes")?;
            let codes_column = if sids.is_some() { "sid" } else { "codes" };
            for row in 0..cols.rows() {
                let Some(id) = id_col.get(row) else {
                    return Err(cols.error(row, "item_id", "is null, expected an item id"));
                };
                if let Err(first) = ids.push(id) {
                    return Err(cols.error(
                        row,
                        "item_id",
                        format!(
                            "item id \"{id}\" appears twice (first in row {first} of the file)"
                        ),
                    ));
                }
                let n = if let Some(sids) = &sids {
                    let Some(s) = sids.get(row) else {
                        return Err(cols.error(row, "sid", "is null, expected a SID string"));
                    };
                    let scheme =
                        *scheme.get_or_insert_with(|| sid_scheme::detect(s).unwrap_or_default());
                    let Some((key, n)) = scheme.parse_sid(s) else {
                        let message = match sid_scheme::detect(s).filter(|&o| o != scheme) {
                            Some(other) => format!(
                                "{s:?} is written like {other}, but {} {scheme} (one token scheme per file)",
                                if forced {
                                    "--sid-format says"
                                } else {
                                    "earlier rows use"
                                }
                            ),
                            None => format!(
                                "malformed SID {s:?} (expected a form like {:?}, codes below 65536)",
                                scheme.format_sid(&[1, 2, 3])
                            ),
                        };
                        return Err(cols.error(row, "sid", message));
                    };
                    let n = usize::from(n);
                    for level in 0..n {
                        codes.push((key >> (16 * (n - 1 - level))) as Code);
                    }
                    n
                } else {
                    let lists = lists.as_ref().expect("checked in the schema");
                    let Some(range) = lists.get(row) else {
                        return Err(cols.error(row, "codes", "is null, expected a list of codes"));
                    };
                    for (level, j) in range.clone().enumerate() {
                        if lists.values.is_null(j) {
                            return Err(cols.error(
                                row,
                                "codes",
                                format!(
                                    "has a null code at level {}",
                                    sid::level_letter(level.min(MAX_LEVELS - 1))
                                ),
                            ));
                        }
                        let v = lists.values.value(j);
                        let code = Code::try_from(v).map_err(|_| {
                            cols.error(
                                row,
                                "codes",
                                format!(
                                    "code {v} at level {} is not a code (0 to {})",
                                    sid::level_letter(level.min(MAX_LEVELS - 1)),
                                    Code::MAX
                                ),
                            )
                        })?;
                        codes.push(code);
                    }
                    range.len()
                };
                if n == 0 || n > MAX_LEVELS {
                    return Err(cols.error(
                        row,
                        codes_column,
                        format!("item \"{id}\" has {n} codes, expected 1 to {MAX_LEVELS}"),
                    ));
                }
                if ids.len() == 1 {
                    n_levels = n;
                } else if n != n_levels {
                    return Err(cols.error(
                        row,
                        codes_column,
                        format!("item \"{id}\" has {n} levels, but earlier items have {n_levels} (inconsistent L)"),
                    ));
                }
            }
            Ok(())
        },
    )?;
    if by_sid {
        let scheme = scheme.unwrap_or_default();
        let index = SidIndex::from_codes(
            path,
            ids,
            codes,
            n_levels,
            codebook_size,
            IndexFormat::SidString,
        )?;
        Ok(index.with_scheme(scheme))
    } else {
        SidIndex::from_codes(
            path,
            ids,
            codes,
            n_levels,
            codebook_size,
            IndexFormat::Integers,
        )
    }
}

/// Writes `index` as a table in `format`: `item_id` (int64 when every id is a plain
/// integer, else a string) and `codes` (list of uint16) for an integer index, `sid` (in
/// the index's scheme) otherwise.
pub(super) fn write(
    index: &SidIndex,
    out: &mut (dyn Write + Send),
    format: TableFormat,
) -> std::io::Result<()> {
    let integer_ids = index
        .ids()
        .iter()
        .all(|id| canonical_integer(id).is_some_and(|v| i64::try_from(v).is_ok()));
    let as_codes = index.format() == IndexFormat::Integers;
    let id_type = if integer_ids {
        DataType::Int64
    } else {
        DataType::Utf8
    };
    let sid_field = if as_codes {
        Field::new(
            "codes",
            DataType::List(Arc::new(Field::new("item", DataType::UInt16, true))),
            false,
        )
    } else {
        Field::new("sid", DataType::Utf8, false)
    };
    let schema = Arc::new(Schema::new(vec![
        Field::new("item_id", id_type, false),
        sid_field,
    ]));
    let mut writer = TableWriter::new(out, schema.clone(), format)?;
    let n = index.n_items();
    let mut start = 0;
    while start < n {
        let end = (start + ROWS_PER_GROUP).min(n);
        let ids: ArrayRef = if integer_ids {
            let mut b = Int64Builder::with_capacity(end - start);
            for i in start..end {
                b.append_value(canonical_integer(index.id(i)).expect("checked") as i64);
            }
            Arc::new(b.finish())
        } else {
            let mut b = StringBuilder::new();
            for i in start..end {
                b.append_value(index.id(i));
            }
            Arc::new(b.finish())
        };
        let sids: ArrayRef =
            if as_codes {
                let mut b = ListBuilder::new(UInt16Builder::new())
                    .with_field(Arc::new(Field::new("item", DataType::UInt16, true)));
                for i in start..end {
                    b.values().append_slice(index.codes(i));
                    b.append(true);
                }
                Arc::new(b.finish())
            } else {
                let mut b = StringBuilder::new();
                for i in start..end {
                    b.append_value(index.scheme().format_sid(index.codes(i)));
                }
                Arc::new(b.finish())
            };
        let batch =
            RecordBatch::try_new(schema.clone(), vec![ids, sids]).map_err(std::io::Error::other)?;
        writer.write(&batch)?;
        start = end;
    }
    writer.finish()
}
