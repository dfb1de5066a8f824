//! Columns of a record batch by name, checked against what sidlens expects and brought to
//! one type each (any integer width to int64, any string kind to utf8, strings in lists to
//! utf8 views, large and fixed-size lists to lists), so readers handle one layout whatever
//! pyarrow, polars or Spark wrote.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, Float64Array, Int64Array, ListArray, RecordBatch, StringArray, StringViewArray,
};
use arrow_schema::{DataType, Field};

use super::BatchPlace;
use crate::error::{Error, Result};

/// The columns of one batch, with the file and place for messages.
pub struct Columns<'a> {
    path: &'a Path,
    batch: &'a RecordBatch,
    place: &'a BatchPlace,
}

/// A column of strings (or nulls).
pub struct StringColumn(StringArray);

/// A column of item ids, integers or strings, as text.
pub struct IdColumn(StringArray);

/// A column of lists, each a range of `values`; a null list is `None`.
pub struct Lists<V> {
    list: ListArray,
    /// The flattened values of every list.
    pub values: V,
}

/// Lists of integers.
pub type IntLists = Lists<Int64Array>;
/// Lists of strings, as views: Parquet's reader, asked for views, leaves every string in its
/// decompressed page instead of copying them all into one buffer per batch (4M beam SIDs a
/// run at 1M items).
pub type StringLists = Lists<StringViewArray>;
/// Lists of numbers.
pub type FloatLists = Lists<Float64Array>;
/// Lists of lists of integers (`beam_codes`).
pub type IntListLists = Lists<IntLists>;

impl StringColumn {
    /// The string at `row`; `None` when null.
    pub fn get(&self, row: usize) -> Option<&str> {
        self.0.is_valid(row).then(|| self.0.value(row))
    }
}

impl IdColumn {
    /// The id at `row` as text (`123` for the integer 123); `None` when null.
    pub fn get(&self, row: usize) -> Option<&str> {
        self.0.is_valid(row).then(|| self.0.value(row))
    }
}

impl<V> Lists<V> {
    /// The range of `values` that list `row` holds; `None` when the list is null.
    pub fn get(&self, row: usize) -> Option<Range<usize>> {
        if self.list.is_null(row) {
            return None;
        }
        let offsets = self.list.value_offsets();
        Some(offsets[row] as usize..offsets[row + 1] as usize)
    }
}

/// What a column holds, in words for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Strings,
    Ids,
    IntLists,
    StringLists,
    IdLists,
    FloatLists,
    IntListLists,
}

impl Want {
    fn describe(self) -> &'static str {
        match self {
            Want::Strings => "strings (utf8)",
            Want::Ids => "item ids (integers or strings)",
            Want::IntLists => "lists of integers",
            Want::StringLists => "lists of strings",
            Want::IdLists => "lists of item ids (integers or strings)",
            Want::FloatLists => "lists of numbers",
            Want::IntListLists => "lists of lists of integers",
        }
    }

    fn accepts(self, dt: &DataType) -> bool {
        match self {
            Want::Strings => is_string(dt),
            Want::Ids => is_string(dt) || dt.is_integer(),
            Want::IntLists => list_item(dt).is_some_and(DataType::is_integer),
            Want::StringLists => list_item(dt).is_some_and(is_string),
            Want::IdLists => list_item(dt).is_some_and(|t| is_string(t) || t.is_integer()),
            Want::FloatLists => list_item(dt).is_some_and(|t| t.is_floating() || t.is_integer()),
            Want::IntListLists => list_item(dt)
                .and_then(list_item)
                .is_some_and(DataType::is_integer),
        }
    }

    fn canonical(self) -> DataType {
        let list = |t: DataType| DataType::List(Arc::new(Field::new("item", t, true)));
        match self {
            Want::Strings | Want::Ids => DataType::Utf8,
            Want::IntLists => list(DataType::Int64),
            Want::StringLists | Want::IdLists => list(DataType::Utf8View),
            Want::FloatLists => list(DataType::Float64),
            Want::IntListLists => list(list(DataType::Int64)),
        }
    }
}

fn is_string(dt: &DataType) -> bool {
    match dt {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, v) => is_string(v),
        _ => false,
    }
}

/// The item type of a list type (list, large list, fixed-size list).
pub(super) fn list_item(dt: &DataType) -> Option<&DataType> {
    match dt {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            Some(f.data_type())
        }
        _ => None,
    }
}

impl<'a> Columns<'a> {
    /// The columns of `batch`, at `place` in the file at `path`.
    pub fn new(path: &'a Path, batch: &'a RecordBatch, place: &'a BatchPlace) -> Self {
        Columns { path, batch, place }
    }

    /// Number of rows in the batch.
    pub fn rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// Whether the batch has a column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.batch.schema().index_of(name).is_ok()
    }

    /// An error at row `row` (of the batch) of column `column` (empty: the row).
    pub fn error(&self, row: usize, column: &str, message: impl Into<String>) -> Error {
        Error::data(self.path, self.place.at(row, column), message)
    }

    /// The 0-based file row of batch row `row`.
    pub fn file_row(&self, row: usize) -> usize {
        self.place.file_row(row)
    }

    fn column(&self, name: &str, want: Want) -> Result<Option<ArrayRef>> {
        let Some(array) = self.batch.column_by_name(name) else {
            return Ok(None);
        };
        let found = array.data_type();
        if !want.accepts(found) {
            return Err(Error::data(
                self.path,
                crate::error::Place::Field(format!("column \"{name}\"")),
                format!("is {found}, expected {}", want.describe()),
            ));
        }
        let canonical = want.canonical();
        if *found == canonical {
            return Ok(Some(array.clone()));
        }
        arrow_cast::cast(array, &canonical).map(Some).map_err(|e| {
            Error::data(
                self.path,
                self.place.at(0, name),
                format!("{found} cannot be read as {}: {e}", want.describe()),
            )
        })
    }

    /// Column `name` as strings; `None` when absent.
    pub fn strings(&self, name: &str) -> Result<Option<StringColumn>> {
        Ok(self
            .column(name, Want::Strings)?
            .map(|a| StringColumn(a.as_string::<i32>().clone())))
    }

    /// Column `name` as item ids (integers or strings); `None` when absent.
    pub fn ids(&self, name: &str) -> Result<Option<IdColumn>> {
        Ok(self
            .column(name, Want::Ids)?
            .map(|a| IdColumn(a.as_string::<i32>().clone())))
    }

    /// Column `name` as lists of integers; `None` when absent.
    pub fn int_lists(&self, name: &str) -> Result<Option<IntLists>> {
        Ok(self.column(name, Want::IntLists)?.map(|a| int_lists(&a)))
    }

    /// Column `name` as lists of strings; `None` when absent.
    pub fn string_lists(&self, name: &str) -> Result<Option<StringLists>> {
        Ok(self.column(name, Want::StringLists)?.map(|a| {
            let list = a.as_list::<i32>().clone();
            let values = list.values().as_string_view().clone();
            Lists { list, values }
        }))
    }

    /// Column `name` as lists of item ids (integers or strings) as text; `None` when absent.
    pub fn id_lists(&self, name: &str) -> Result<Option<StringLists>> {
        Ok(self.column(name, Want::IdLists)?.map(|a| {
            let list = a.as_list::<i32>().clone();
            let values = list.values().as_string_view().clone();
            Lists { list, values }
        }))
    }

    /// Column `name` as lists of numbers; `None` when absent.
    pub fn float_lists(&self, name: &str) -> Result<Option<FloatLists>> {
        Ok(self.column(name, Want::FloatLists)?.map(|a| {
            let list = a.as_list::<i32>().clone();
            let values = list.values().as_primitive::<Float64Type>().clone();
            Lists { list, values }
        }))
    }

    /// Column `name` as lists of lists of integers; `None` when absent.
    pub fn int_list_lists(&self, name: &str) -> Result<Option<IntListLists>> {
        Ok(self.column(name, Want::IntListLists)?.map(|a| {
            let list = a.as_list::<i32>().clone();
            let values = int_lists(list.values());
            Lists { list, values }
        }))
    }

    /// The type of column `name`, when present.
    pub fn data_type(&self, name: &str) -> Option<DataType> {
        self.batch
            .column_by_name(name)
            .map(|a| a.data_type().clone())
    }
}

fn int_lists(a: &ArrayRef) -> IntLists {
    let list = a.as_list::<i32>().clone();
    let values = list.values().as_primitive::<Int64Type>().clone();
    Lists { list, values }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_every_width_and_kind_it_documents() {
        let list = |t: DataType| DataType::LargeList(Arc::new(Field::new("x", t, true)));
        assert!(Want::Ids.accepts(&DataType::UInt32));
        assert!(Want::Ids.accepts(&DataType::Utf8View));
        assert!(!Want::Ids.accepts(&DataType::Float64));
        assert!(Want::IntLists.accepts(&list(DataType::Int16)));
        assert!(!Want::IntLists.accepts(&list(DataType::Utf8)));
        assert!(Want::IntListLists.accepts(&list(list(DataType::UInt8))));
        assert!(Want::FloatLists.accepts(&list(DataType::Float32)));
        assert!(Want::StringLists.accepts(&DataType::FixedSizeList(
            Arc::new(Field::new("x", DataType::LargeUtf8, true)),
            3
        )));
    }
}
