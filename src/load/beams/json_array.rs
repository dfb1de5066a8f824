//! The reference's JSON array of records (`test.py --save_per_user`), streamed through a serde
//! `SeqAccess` visitor one record at a time, so memory does not grow with users.

use std::cell::Cell;
use std::fmt;
use std::io::{self, BufReader, Read};
use std::path::Path;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{BeamRecord, record_error};
use crate::error::{Error, Place, Result};
use crate::progress::Progress;

/// Where the serial reader starts: at the file's start, or (taking over from the parallel
/// pipeline) right after the `}` of record `record − 1`, at `line` and `column` of the file.
#[derive(Debug, Clone, Copy)]
pub(super) struct SerialStart {
    pub(super) record: usize,
    pub(super) line: usize,
    pub(super) column: usize,
    /// Bytes of the stream that progress has already been told about.
    pub(super) reported: u64,
}

impl SerialStart {
    /// The start of the file.
    pub(super) const FILE: SerialStart = SerialStart {
        record: 0,
        line: 1,
        column: 1,
        reported: 0,
    };
}

/// Reads a JSON array of records with a `SeqAccess` visitor, one record at a time, from
/// `input`, which holds the file from `start` on. Taking over mid-array, the parser is fed
/// `[0` first, which leaves it where it was after record `start.record − 1` (the `0` is
/// skipped), so every message and position is the one reading the whole file would give.
pub(super) fn read_array(
    path: &Path,
    input: impl Read,
    start: SerialStart,
    progress: &dyn Progress,
    on_record: &mut dyn FnMut(&BeamRecord) -> Result<()>,
) -> Result<usize> {
    let lines = Cell::new(start.line);
    let resumed = start.record > 0;
    let prefix: &[u8] = if resumed { b"[0" } else { b"" };
    let reader = CountingReader {
        inner: BufReader::with_capacity(1 << 16, prefix.chain(input)),
        lines: &lines,
        unreported: -(start.reported as i64 + prefix.len() as i64),
        progress,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut rec = BeamRecord::default();
    let mut failure = None;
    let mut count = start.record;
    let result = ArraySeed {
        path,
        rec: &mut rec,
        on_record,
        failure: &mut failure,
        count: &mut count,
        lines: &lines,
        progress,
        skip_first: resumed,
    }
    .deserialize(&mut de);
    // An error after the closing `]` is about the file, not about a record.
    let after_list = result.is_ok();
    let result = result.and_then(|()| de.end());
    if let Some(e) = failure {
        return Err(e);
    }
    if let Err(e) = result {
        if e.is_io() {
            return Err(Error::io(path, io::Error::other(e.to_string())));
        }
        if after_list {
            return Err(Error::data(
                path,
                Place::Line {
                    line: e.line(),
                    column: e.column(),
                },
                "unexpected text after the closing ] of the list of records",
            ));
        }
        let text = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = text.strip_suffix(&suffix).unwrap_or(&text);
        let line = e.line() + start.line - 1;
        let column = if e.line() == 1 {
            e.column() + start.column - 1 - prefix.len()
        } else {
            e.column()
        };
        let message = if e.is_eof() {
            format!("unexpected end of file ({message}); is the file truncated?")
        } else {
            format!("{message} (column {column})")
        };
        return Err(record_error(path, count, line, message));
    }
    if count == 0 {
        return Err(Error::data(path, Place::File, "holds no records"));
    }
    Ok(count)
}

/// Passes bytes through, counting newlines (for record line numbers) and reporting progress.
struct CountingReader<'a, R> {
    inner: R,
    lines: &'a Cell<usize>,
    /// Negative while re-reading bytes progress was already told about.
    unreported: i64,
    progress: &'a dyn Progress,
}

impl<R: Read> Read for CountingReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let newlines = buf[..n].iter().filter(|&&b| b == b'\n').count();
        self.lines.set(self.lines.get() + newlines);
        self.unreported += n as i64;
        if self.unreported >= 1 << 20 {
            self.progress.advance(self.unreported as u64);
            self.unreported = 0;
        }
        Ok(n)
    }
}

struct ArraySeed<'a, 'f> {
    path: &'a Path,
    rec: &'a mut BeamRecord,
    on_record: &'a mut (dyn FnMut(&BeamRecord) -> Result<()> + 'f),
    failure: &'a mut Option<Error>,
    count: &'a mut usize,
    lines: &'a Cell<usize>,
    progress: &'a dyn Progress,
    /// Skips the `0` fed before a takeover (see [`read_array`]).
    skip_first: bool,
}

impl<'de> DeserializeSeed<'de> for ArraySeed<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ArraySeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON array of records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.skip_first {
            seq.next_element::<IgnoredAny>()?;
        }
        loop {
            let record = *self.count;
            self.rec.clear(record, self.lines.get());
            let seed = RecordSeed {
                rec: &mut *self.rec,
                lines: Some(self.lines),
            };
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            let outcome = if self.progress.cancelled() {
                Err(Error::Cancelled)
            } else {
                self.rec
                    .validate()
                    .map_err(|m| record_error(self.path, record, self.rec.line, m))
                    .and_then(|()| (self.on_record)(self.rec))
            };
            if let Err(e) = outcome {
                *self.failure = Some(e);
                return Err(de::Error::custom("stopped"));
            }
            *self.count += 1;
        }
    }
}

/// Deserialises one record object into a [`BeamRecord`].
pub(super) struct RecordSeed<'a> {
    pub(super) rec: &'a mut BeamRecord,
    pub(super) lines: Option<&'a Cell<usize>>,
}

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    BeamSids,
    Target,
    TargetItem,
    Scores,
    RankedItems,
    Other,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::BeamSids => "beam_sids",
            Field::Target => "target",
            Field::TargetItem => "target_item",
            Field::Scores => "scores",
            Field::RankedItems => "ranked_items",
            Field::Other => "",
        }
    }
}

impl<'de> Visitor<'de> for RecordSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a record object such as {\"beam_sids\": [...], \"target\": \"<a_1>...\"}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let rec = self.rec;
        if let Some(lines) = self.lines {
            rec.line = lines.get();
        }
        let mut seen = 0u8;
        while let Some(field) = map.next_key_seed(FieldSeed)? {
            if field != Field::Other {
                let bit = 1 << field as u8;
                if seen & bit != 0 {
                    return Err(de::Error::custom(format_args!(
                        "field \"{}\" appears twice",
                        field.name()
                    )));
                }
                seen |= bit;
            }
            match field {
                Field::BeamSids => {
                    rec.has_beams = true;
                    map.next_value_seed(ListSeed {
                        rec: &mut *rec,
                        field,
                    })?;
                }
                Field::RankedItems => {
                    rec.has_ranked_items = true;
                    map.next_value_seed(ListSeed {
                        rec: &mut *rec,
                        field,
                    })?;
                }
                Field::Scores => {
                    rec.has_scores = true;
                    map.next_value_seed(ListSeed {
                        rec: &mut *rec,
                        field,
                    })?;
                }
                Field::Target => map.next_value_seed(ValueSeed {
                    rec: &mut *rec,
                    field,
                    index: None,
                })?,
                Field::TargetItem => map.next_value_seed(ValueSeed {
                    rec: &mut *rec,
                    field,
                    index: None,
                })?,
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

struct FieldSeed;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldSeed {
    type Value = Field;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Field, E> {
        Ok(match name {
            "beam_sids" => Field::BeamSids,
            "target" => Field::Target,
            "target_item" => Field::TargetItem,
            "scores" => Field::Scores,
            "ranked_items" => Field::RankedItems,
            _ => Field::Other,
        })
    }
}

/// A list field: `beam_sids`, `scores` or `ranked_items`.
struct ListSeed<'a> {
    rec: &'a mut BeamRecord,
    field: Field,
}

impl<'de> DeserializeSeed<'de> for ListSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ListSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.field {
            Field::Scores => write!(f, "\"scores\" as a list of numbers"),
            Field::RankedItems => write!(f, "\"ranked_items\" as a list of item ids"),
            _ => write!(f, "\"beam_sids\" as a list of SID strings"),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while seq
            .next_element_seed(ValueSeed {
                rec: &mut *self.rec,
                field: self.field,
                index: Some(index),
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }
}

/// One scalar: a SID string, a score, or an item id (string or integer), stored in the
/// record according to `field`; `index` is its place in a list field.
struct ValueSeed<'a> {
    rec: &'a mut BeamRecord,
    field: Field,
    index: Option<usize>,
}

impl ValueSeed<'_> {
    fn place(&self) -> String {
        match self.index {
            Some(i) => format!("{}[{i}]", self.field.name()),
            None => self.field.name().to_string(),
        }
    }

    fn store_id<E: de::Error>(self, id: &str) -> Result<(), E> {
        match self.field {
            Field::TargetItem => {
                self.rec.target_item = Some(self.rec.push_text(id));
                Ok(())
            }
            Field::RankedItems => {
                let span = self.rec.push_text(id);
                self.rec.ranked_items.push(span);
                Ok(())
            }
            _ => Err(self.wrong("an item id")),
        }
    }

    /// An integer: a score, or an item id written as a number.
    fn integer<E: de::Error>(self, value: f64, text: &str) -> Result<(), E> {
        match self.field {
            Field::Scores => {
                self.rec.scores.push(value);
                Ok(())
            }
            Field::TargetItem | Field::RankedItems => self.store_id(text),
            _ => Err(self.wrong("a number")),
        }
    }

    fn wrong<E: de::Error>(&self, what: &str) -> E {
        let want = match self.field {
            Field::BeamSids | Field::Target => "a SID string",
            Field::Scores => "a number",
            _ => "an item id (string or integer)",
        };
        E::custom(format_args!("{} is {what}, expected {want}", self.place()))
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a value for {}", self.place())
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        match self.field {
            Field::BeamSids => {
                let sid = self.rec.read_sid(s);
                self.rec.beams.push(sid);
                Ok(())
            }
            Field::Target => {
                self.rec.target = Some(self.rec.read_sid(s));
                Ok(())
            }
            Field::Scores => Err(self.wrong("a string")),
            _ => self.store_id(s),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.integer(v as f64, &v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.integer(v as f64, &v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        match self.field {
            Field::Scores => {
                self.rec.scores.push(v);
                Ok(())
            }
            _ if v.fract() == 0.0 => {
                Err(self
                    .wrong("a number too large to be an exact item id (write long ids as strings)"))
            }
            _ => Err(self.wrong("a fractional number")),
        }
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        match (self.field, self.index) {
            (Field::Target | Field::TargetItem, None) => Ok(()),
            _ => Err(self.wrong("null")),
        }
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(self.wrong("a boolean"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.wrong("a list"))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.wrong("an object"))
    }
}
