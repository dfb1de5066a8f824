//! MQL4GRec's save file streamed in two passes, so memory does not grow with users although
//! its lists run across users: the first pass checks the whole object with serde (the same
//! messages as reading it whole) while counting the lists and noting where each starts; the
//! second walks `all_outputs`, `all_scores` and `all_targets` side by side with one cursor
//! per list, a user at a time. Only regular files can be read twice; streams are read whole.

use std::cell::Cell;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, Result};

/// What the first pass learnt: each list's length and the byte after its key.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Layout {
    /// Length and key offset of `all_outputs`, `all_scores`, `all_targets`.
    pub lists: [(usize, u64); 3],
    /// Length of `all_users`, when given.
    pub users: Option<usize>,
}

const KEYS: [&str; 3] = ["all_outputs", "all_scores", "all_targets"];

/// A reader that counts the bytes it has handed out.
struct Counting<R> {
    inner: R,
    at: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at.set(self.at.get() + n as u64);
        Ok(n)
    }
}

/// Checks the save file at `path` and returns its layout (first pass).
pub(super) fn scan(path: &Path) -> Result<Layout> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let at = Rc::new(Cell::new(0));
    let reader = Counting {
        inner: BufReader::with_capacity(1 << 20, file),
        at: at.clone(),
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let layout = de::Deserializer::deserialize_map(&mut de, LayoutVisitor { at })
        .and_then(|l| de.end().map(|()| l))
        .map_err(|e| Error::json(path, &e))?;
    Ok(layout)
}

struct LayoutVisitor {
    at: Rc<Cell<u64>>,
}

impl<'de> Visitor<'de> for LayoutVisitor {
    type Value = Layout;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("MQL4GRec's save file {\"all_outputs\": [...], \"all_scores\": [...], \"all_targets\": [...]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Layout, A::Error> {
        let mut layout = Layout::default();
        let mut seen = [false; 3];
        while let Some(key) = map.next_key::<String>()? {
            let offset = self.at.get();
            match KEYS.iter().position(|k| *k == key) {
                Some(i) => {
                    if seen[i] {
                        return Err(de::Error::duplicate_field(KEYS[i]));
                    }
                    seen[i] = true;
                    let n = map.next_value_seed(CountSeed { numbers: i == 1 })?;
                    layout.lists[i] = (n, offset);
                }
                None if key == "all_users" => {
                    if layout.users.is_some() {
                        return Err(de::Error::duplicate_field("all_users"));
                    }
                    layout.users = Some(map.next_value_seed(AnySeq)?);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(de::Error::missing_field(KEYS[i]));
        }
        Ok(layout)
    }
}

/// Counts a list of strings (or of numbers), checking each without keeping it.
struct CountSeed {
    numbers: bool,
}

impl<'de> DeserializeSeed<'de> for CountSeed {
    type Value = usize;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CountSeed {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(if self.numbers {
            "a sequence of numbers"
        } else {
            "a sequence of strings"
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<usize, A::Error> {
        let mut n = 0;
        if self.numbers {
            while seq.next_element::<f64>()?.is_some() {
                n += 1;
            }
        } else {
            while seq.next_element_seed(StrCheck)?.is_some() {
                n += 1;
            }
        }
        Ok(n)
    }
}

/// A string, checked and dropped.
struct StrCheck;

impl<'de> DeserializeSeed<'de> for StrCheck {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for StrCheck {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<(), E> {
        Ok(())
    }
}

/// Counts a list of anything (`all_users`).
struct AnySeq;

impl<'de> DeserializeSeed<'de> for AnySeq {
    type Value = usize;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for AnySeq {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<usize, A::Error> {
        let mut n = 0;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(n)
    }
}

/// A cursor over the elements of one list of a checked file (second pass).
pub(super) struct Cursor {
    reader: BufReader<File>,
    raw: Vec<u8>,
}

impl Cursor {
    /// A cursor at the list whose key ends at byte `offset`.
    pub(super) fn open(path: &Path, offset: u64) -> Result<Cursor> {
        let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
        // One byte back: the key's closing quote, whatever serde had peeked past it.
        file.seek(SeekFrom::Start(offset.saturating_sub(1)))
            .map_err(|e| Error::io(path, e))?;
        let mut c = Cursor {
            reader: BufReader::with_capacity(1 << 18, file),
            raw: Vec::new(),
        };
        loop {
            match c.byte(path)? {
                b'[' => return Ok(c),
                b'"' | b':' => {}
                b if b.is_ascii_whitespace() => {}
                _ => return Err(changed(path)),
            }
        }
    }

    fn byte(&mut self, path: &Path) -> Result<u8> {
        let mut b = [0u8];
        self.reader.read_exact(&mut b).map_err(|_| changed(path))?;
        Ok(b[0])
    }

    /// Skips space and the comma before the next element; its first byte.
    fn start(&mut self, path: &Path) -> Result<u8> {
        loop {
            let b = self.byte(path)?;
            if !(b.is_ascii_whitespace() || b == b',') {
                return Ok(b);
            }
        }
    }

    /// The next string of the list into `out`.
    pub(super) fn string(&mut self, path: &Path, out: &mut String) -> Result<()> {
        if self.start(path)? != b'"' {
            return Err(changed(path));
        }
        self.raw.clear();
        self.raw.push(b'"');
        let mut escaped = false;
        loop {
            let buf = self.reader.fill_buf().map_err(|e| Error::io(path, e))?;
            if buf.is_empty() {
                return Err(changed(path));
            }
            let mut end = None;
            for (i, &b) in buf.iter().enumerate() {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    end = Some(i);
                    break;
                }
            }
            match end {
                Some(i) => {
                    self.raw.extend_from_slice(&buf[..=i]);
                    self.reader.consume(i + 1);
                    break;
                }
                None => {
                    let n = buf.len();
                    self.raw.extend_from_slice(buf);
                    self.reader.consume(n);
                }
            }
        }
        out.clear();
        if self.raw.contains(&b'\\') {
            let s: String = serde_json::from_slice(&self.raw).map_err(|_| changed(path))?;
            out.push_str(&s);
        } else {
            let s =
                std::str::from_utf8(&self.raw[1..self.raw.len() - 1]).map_err(|_| changed(path))?;
            out.push_str(s);
        }
        Ok(())
    }

    /// The next number of the list.
    pub(super) fn number(&mut self, path: &Path) -> Result<f64> {
        let first = self.start(path)?;
        self.raw.clear();
        self.raw.push(first);
        loop {
            let buf = self.reader.fill_buf().map_err(|e| Error::io(path, e))?;
            let stop = buf
                .iter()
                .position(|&b| b == b',' || b == b']' || b.is_ascii_whitespace());
            match stop {
                Some(i) => {
                    self.raw.extend_from_slice(&buf[..i]);
                    self.reader.consume(i);
                    break;
                }
                None if buf.is_empty() => break,
                None => {
                    let n = buf.len();
                    self.raw.extend_from_slice(buf);
                    self.reader.consume(n);
                }
            }
        }
        serde_json::from_slice(&self.raw).map_err(|_| changed(path))
    }
}

/// The file no longer reads as the first pass found it.
fn changed(path: &Path) -> Error {
    Error::data(
        path,
        crate::error::Place::File,
        "changed while it was read (the second pass does not find what the first checked)",
    )
}
