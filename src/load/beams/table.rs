//! Beams in a Parquet or Arrow IPC table, one row per user, with the JSON record's fields
//! as columns: `beam_sids` (list of SID strings) or `beam_codes` (list of lists of
//! integers), `target` (a SID string or a list of codes) and/or `target_item`, optional
//! `scores`; or `ranked_items` with `target_item`. Other columns (`user`, …) are ignored, as
//! the JSON readers ignore other fields. Read a batch of rows at a time, the next one
//! decoded on a second thread while this one's rows are parsed in parallel and handed on in
//! file order.

use std::ops::Range;
use std::path::Path;

use arrow_array::{Array, StringViewArray};
use arrow_data::{ByteView, MAX_INLINE_VIEW_LEN};
use arrow_schema::Schema;
use rayon::prelude::*;

use super::{BATCH_RECORDS, BeamRecord, BeamSid, Stages};
use crate::error::{Error, Place, Result};
use crate::io::Input;
use crate::io::columnar::{
    self, Columns, FloatLists, IdColumn, IntListLists, IntLists, StringColumn, StringLists,
    TableFormat,
};
use crate::progress::Progress;
use crate::sid::grammar::with_avx2_and_bmi;
use crate::sid::{self, Code, MAX_LEVELS};

/// The columns a beams table may have; the reader decodes only these.
const COLUMNS: [&str; 6] = [
    "beam_sids",
    "beam_codes",
    "target",
    "target_item",
    "scores",
    "ranked_items",
];

/// The columns of lists of strings, decoded as views (see [`StringLists`]).
const STRING_LISTS: [&str; 2] = ["beam_sids", "ranked_items"];

/// The target column: SID strings or code lists.
enum Target {
    Sids(StringColumn),
    Codes(IntLists),
}

/// One batch's beam columns, each brought to one type.
struct BeamColumns<'a> {
    cols: Columns<'a>,
    beam_sids: Option<StringLists>,
    beam_codes: Option<IntListLists>,
    target: Option<Target>,
    target_item: Option<IdColumn>,
    scores: Option<FloatLists>,
    ranked_items: Option<StringLists>,
}

/// Checks the file's columns before any row is read.
fn check_schema(path: &Path, schema: &Schema) -> Result<Vec<String>> {
    let has = |n: &str| schema.index_of(n).is_ok();
    if !has("beam_sids") && !has("beam_codes") && !has("ranked_items") {
        return Err(Error::data(
            path,
            Place::File,
            format!(
                "has no \"beam_sids\", \"beam_codes\" or \"ranked_items\" column (is this a beams table?); its columns: {}",
                columnar::describe_columns(schema)
            ),
        ));
    }
    if has("beam_sids") && has("beam_codes") {
        return Err(Error::data(
            path,
            Place::File,
            "has both \"beam_sids\" and \"beam_codes\" columns; give one",
        ));
    }
    if !has("target") && !has("target_item") {
        return Err(Error::data(
            path,
            Place::File,
            format!(
                "has no target: neither a \"target\" nor a \"target_item\" column; its columns: {}",
                columnar::describe_columns(schema)
            ),
        ));
    }
    Ok(COLUMNS.iter().map(ToString::to_string).collect())
}

impl<'a> BeamColumns<'a> {
    fn new(cols: Columns<'a>) -> Result<Self> {
        let target = match cols.data_type("target") {
            None => None,
            Some(t) if columnar_list(&t) => cols.int_lists("target")?.map(Target::Codes),
            Some(_) => cols.strings("target")?.map(Target::Sids),
        };
        let ranked_items = cols.id_lists("ranked_items")?;
        Ok(BeamColumns {
            beam_sids: cols.string_lists("beam_sids")?,
            beam_codes: cols.int_list_lists("beam_codes")?,
            target,
            target_item: cols.ids("target_item")?,
            scores: cols.float_lists("scores")?,
            ranked_items,
            cols,
        })
    }

    /// Reads row `row` of the batch into `rec`; the error names the row and column.
    fn read(&self, row: usize, rec: &mut BeamRecord) -> Result<()> {
        rec.clear(self.cols.file_row(row), 0);
        let err = |column: &str, m: String| self.cols.error(row, column, m);
        if let Some(lists) = &self.beam_sids
            && let Some(range) = lists.get(row)
        {
            rec.has_beams = true;
            if let Err(i) = read_beam_sids(rec, &lists.values, range) {
                return Err(err(
                    "beam_sids",
                    format!("item {i} is null, expected a SID string"),
                ));
            }
        }
        if let Some(lists) = &self.beam_codes
            && let Some(range) = lists.get(row)
        {
            rec.has_beams = true;
            for (i, j) in range.enumerate() {
                let sid = code_sid(&lists.values, j)
                    .map_err(|m| err("beam_codes", format!("item {i} {m}")))?;
                rec.beams.push(sid);
            }
        }
        match &self.target {
            Some(Target::Sids(c)) => {
                if let Some(s) = c.get(row) {
                    rec.target = Some(rec.read_sid(s));
                }
            }
            Some(Target::Codes(c)) if c.get(row).is_some() => {
                rec.target = Some(code_sid(c, row).map_err(|m| err("target", m))?);
            }
            _ => {}
        }
        if let Some(c) = &self.target_item
            && let Some(id) = c.get(row)
        {
            rec.target_item = Some(rec.push_text(id));
        }
        if let Some(lists) = &self.ranked_items
            && let Some(range) = lists.get(row)
        {
            rec.has_ranked_items = true;
            for (i, j) in range.enumerate() {
                if lists.values.is_null(j) {
                    return Err(err(
                        "ranked_items",
                        format!("item {i} is null, expected an item id"),
                    ));
                }
                let span = rec.push_text(lists.values.value(j));
                rec.ranked_items.push(span);
            }
        }
        if let Some(lists) = &self.scores
            && let Some(range) = lists.get(row)
        {
            rec.has_scores = true;
            for (i, j) in range.enumerate() {
                let v = lists.values.value(j);
                if lists.values.is_null(j) || !v.is_finite() {
                    let what = if lists.values.is_null(j) {
                        "null".to_string()
                    } else {
                        v.to_string()
                    };
                    return Err(err(
                        "scores",
                        format!("item {i} is {what}, expected a finite number"),
                    ));
                }
                rec.scores.push(v);
            }
        }
        rec.validate().map_err(|m| err("", m))
    }
}

/// Reads the SIDs at `range` of `values` into `rec.beams`; `Err(i)` when item `i` of the
/// list is null. Compiled for AVX2 and BMI too, as the JSON readers' fast path is.
fn read_beam_sids(
    rec: &mut BeamRecord,
    values: &StringViewArray,
    range: Range<usize>,
) -> std::result::Result<(), usize> {
    with_avx2_and_bmi(
        rec,
        values,
        #[inline(always)]
        move |rec, values| read_beam_sids_inline(rec, values, range),
    )
}

/// The body of [`read_beam_sids`], inlined into each of its builds.
#[inline(always)]
fn read_beam_sids_inline(
    rec: &mut BeamRecord,
    values: &StringViewArray,
    range: Range<usize>,
) -> std::result::Result<(), usize> {
    let (views, pages) = (values.views(), values.data_buffers());
    for (i, j) in range.enumerate() {
        if values.is_null(j) {
            return Err(i);
        }
        // The string and what follows it in its page, when 32 bytes are left (a string of
        // 12 bytes or fewer is kept in its view, with no page).
        let view = ByteView::from(views[j]);
        let window = (view.length > MAX_INLINE_VIEW_LEN)
            .then(|| {
                let start = view.offset as usize;
                pages[view.buffer_index as usize].get(start..start + 32)
            })
            .flatten()
            .and_then(|w| w.try_into().ok());
        let sid = rec.read_sid_in_window(values.value(j), window);
        rec.beams.push(sid);
    }
    Ok(())
}

fn columnar_list(t: &arrow_schema::DataType) -> bool {
    matches!(
        t,
        arrow_schema::DataType::List(_)
            | arrow_schema::DataType::LargeList(_)
            | arrow_schema::DataType::FixedSizeList(..)
    )
}

/// The SID of list `row` of `lists`, checked: 1 to 8 codes, each 0 to 65535, none null.
fn code_sid(lists: &IntLists, row: usize) -> std::result::Result<BeamSid, String> {
    let Some(range) = lists.get(row) else {
        return Err("is null, expected a list of codes".into());
    };
    let n = range.len();
    if n == 0 || n > MAX_LEVELS {
        return Err(format!("has {n} codes, expected 1 to {MAX_LEVELS}"));
    }
    let mut codes = [0 as Code; MAX_LEVELS];
    for (level, j) in range.enumerate() {
        if lists.values.is_null(j) {
            return Err(format!(
                "has a null code at level {}",
                sid::level_letter(level)
            ));
        }
        let v = lists.values.value(j);
        codes[level] = Code::try_from(v).map_err(|_| {
            format!(
                "has code {v} at level {}, expected 0 to {}",
                sid::level_letter(level),
                Code::MAX
            )
        })?;
    }
    Ok(BeamSid::Codes {
        key: sid::sid_key(&codes[..n]),
        n_levels: n as u8,
    })
}

/// Reads every row of the beams table at `path` in file order, `map` running on several
/// threads within a batch and `consume` seeing the results one by one. Returns the rows.
/// A second thread decodes the next batch (pages, decompression, strings) while this one's
/// rows are parsed: decoding and parsing one after the other left each core half idle.
pub(super) fn read<T: Send, P: Default>(
    path: &Path,
    format: TableFormat,
    input: Input,
    progress: &dyn Progress,
    stages: Stages<impl Fn(&BeamRecord, &mut P) + Sync, impl Fn(&BeamRecord, &P) -> T + Sync>,
    consume: &mut impl FnMut(T) -> Result<()>,
) -> Result<usize> {
    columnar::for_each_batch_of_path_ahead(
        path,
        format,
        input,
        progress,
        &STRING_LISTS,
        |schema| check_schema(path, schema),
        |batch, place| {
            let cols = BeamColumns::new(Columns::new(path, batch, place))?;
            let rows: Vec<usize> = (0..batch.num_rows()).collect();
            let results: Vec<Result<Vec<T>>> = rows
                .par_chunks(BATCH_RECORDS)
                .map(|chunk| {
                    let mut out = Vec::with_capacity(chunk.len());
                    let read = |k: usize, rec: &mut BeamRecord| cols.read(chunk[k], rec);
                    match stages.map_ahead(chunk.len(), read, &mut out) {
                        Ok(()) => Ok(out),
                        Err((_, e)) => Err(e),
                    }
                })
                .collect();
            for values in results {
                for value in values? {
                    consume(value)?;
                }
            }
            Ok(())
        },
    )
}

/// Like [`read`], on this thread only, with one reused record (for callers that keep state
/// per record).
pub(super) fn for_each(
    path: &Path,
    format: TableFormat,
    input: Input,
    progress: &dyn Progress,
    on_record: &mut dyn FnMut(&BeamRecord) -> Result<()>,
) -> Result<usize> {
    let mut rec = BeamRecord::default();
    columnar::for_each_batch(
        path,
        format,
        input,
        progress,
        &STRING_LISTS,
        |schema| check_schema(path, schema),
        |batch, place| {
            let cols = BeamColumns::new(Columns::new(path, batch, place))?;
            for row in 0..batch.num_rows() {
                cols.read(row, &mut rec)?;
                on_record(&rec)?;
            }
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The build for CPUs with AVX2 (taken here when the CPU has it) reads every list of
        /// SIDs as the portable build does, strings inline in their views or not.
        #[test]
        fn both_builds_read_the_same_sids(
            sids in prop::collection::vec(
                "(<[a-e]_[0-9]{1,5}>){1,8}|<a_[0-9]{1,4}> <b_[0-9]{1,3}>|[a-z<>_0-9 ]{0,14}",
                0..40,
            ),
        ) {
            let values: StringViewArray = sids.iter().map(|s| Some(s.as_str())).collect();
            let (mut fast, mut portable) = (BeamRecord::default(), BeamRecord::default());
            prop_assert_eq!(read_beam_sids(&mut fast, &values, 0..sids.len()), Ok(()));
            prop_assert_eq!(read_beam_sids_inline(&mut portable, &values, 0..sids.len()), Ok(()));
            prop_assert_eq!(&fast.beams, &portable.beams);
            prop_assert_eq!(&fast.text, &portable.text);
        }
    }

    #[test]
    fn a_null_sid_is_named_by_its_place_in_the_list() {
        let values: StringViewArray = [Some("<a_1><b_2>"), Some("<a_1><b_2><c_3><d_4>"), None]
            .into_iter()
            .collect();
        let mut rec = BeamRecord::default();
        assert_eq!(read_beam_sids(&mut rec, &values, 1..3), Err(1));
        assert_eq!(rec.beams.len(), 1);
    }
}
