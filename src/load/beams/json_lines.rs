//! JSON Lines beams: the file read in blocks of whole lines, and one line parsed into a
//! record (the fast path first, serde for everything else).

use std::io::Read;
use std::path::Path;

use serde::de::DeserializeSeed;

use super::fast_path::parse_plain_record;
use super::json_array::RecordSeed;
use super::{BLOCK_BYTES, BeamRecord};
use crate::error::{Error, Place, Result};
use crate::io::Input;
use crate::progress::Progress;
use crate::sid::grammar::ascii_str;

/// Parses one JSON Lines record into `rec`; the message says what is wrong (column included).
pub(super) fn parse_line(
    bytes: &[u8],
    rec: &mut BeamRecord,
    record: usize,
    line: usize,
) -> std::result::Result<(), String> {
    rec.clear(record, line);
    let text = match ascii_str(bytes) {
        Some(text) => text,
        None => std::str::from_utf8(bytes).map_err(|e| {
            format!(
                "invalid UTF-8 at column {} (JSON text must be UTF-8)",
                e.valid_up_to() + 1
            )
        })?,
    };
    if !parse_plain_record(text, rec) {
        rec.clear(record, line);
        parse_with_serde(text, rec)?;
    }
    rec.validate()
}

/// Reads one record with serde (any valid JSON); the message says what is wrong.
pub(super) fn parse_with_serde(
    text: &str,
    rec: &mut BeamRecord,
) -> std::result::Result<(), String> {
    let mut de = serde_json::Deserializer::from_str(text);
    RecordSeed {
        rec: &mut *rec,
        lines: None,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end())
    .map_err(|e| {
        let text = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = text.strip_suffix(&suffix).unwrap_or(&text);
        if e.is_eof() {
            format!("{message} (a JSON Lines record must fit on one line)")
        } else {
            format!("{message} (column {})", e.column())
        }
    })
}

/// A block's bytes. The buffer keeps its length (and so its initialised bytes) from one use
/// to the next and `len` says how much of it holds the block: refilling a 4 MiB block no
/// longer writes 4 MiB of zeros before every read (3.6 % of `eval`'s instructions).
#[derive(Default)]
pub(super) struct BlockBytes {
    buffer: Vec<u8>,
    len: usize,
}

impl std::ops::Deref for BlockBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.buffer[..self.len]
    }
}

impl BlockBytes {
    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the first `len` bytes (no more than there are).
    pub(super) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Appends `bytes`.
    pub(super) fn extend_from_slice(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        self.room_for(end);
        self.buffer[self.len..end].copy_from_slice(bytes);
        self.len = end;
    }

    /// Appends what one `read` of at most `want` bytes gives; the number read.
    pub(super) fn read_from(
        &mut self,
        source: &mut impl Read,
        want: usize,
    ) -> std::io::Result<usize> {
        let end = self.len + want;
        self.room_for(end);
        let n = source.read(&mut self.buffer[self.len..end])?;
        self.len += n;
        Ok(n)
    }

    /// Makes the buffer at least `end` long; only bytes it never had are zeroed. Growing,
    /// it keeps [`CARRY_ROOM`] spare, so that the next block (the last one's carried partial
    /// record, then a full read) fits without growing again: at 137 MB of beams, doubling
    /// and copying each 4 MiB buffer once took 2,000 page faults.
    fn room_for(&mut self, end: usize) {
        if self.buffer.len() < end {
            self.buffer
                .reserve_exact(end + CARRY_ROOM - self.buffer.len());
            self.buffer.resize(end, 0);
        }
    }
}

/// Spare capacity a block's buffer grows by: room for a partial record carried over from
/// the block before (address space only until a carry is longer than the last).
const CARRY_ROOM: usize = 1 << 20;

/// Whole lines of a JSON Lines file, about [`BLOCK_BYTES`] at a time.
#[derive(Default)]
pub(super) struct Block {
    pub(super) bytes: BlockBytes,
    /// Records: (record, 1-based line, start, end) in `bytes` (non-blank lines of JSON
    /// Lines, candidate records of a JSON array).
    pub(super) lines: Vec<(usize, usize, usize, usize)>,
    /// The block holds the file's only record: a lone object, likely not meant as JSON Lines.
    pub(super) only_record: bool,
    /// Line and column of `bytes[0]` in the file (JSON array blocks).
    pub(super) start_line: usize,
    pub(super) start_column: usize,
}

impl Block {
    /// The file's line and column of `bytes[offset]` (JSON array blocks).
    pub(super) fn line_column(&self, offset: usize) -> (usize, usize) {
        let before = &self.bytes[..offset];
        match memchr::memrchr(b'\n', before) {
            Some(last) => (
                self.start_line + before.iter().filter(|&&c| c == b'\n').count(),
                offset - last,
            ),
            None => (self.start_line, self.start_column + offset),
        }
    }
}

/// Reads a JSON Lines file block by block, numbering records and lines.
pub(super) struct LineBlocks<'a> {
    path: &'a Path,
    file: Input,
    /// Bytes the file held when opened, so a small file is not read into a 4 MiB buffer.
    size_hint: u64,
    read: u64,
    carry: Vec<u8>,
    next_line: usize,
    next_record: usize,
    eof: bool,
}

impl<'a> LineBlocks<'a> {
    pub(super) fn new(path: &'a Path, file: Input) -> Self {
        let size_hint = file.size_hint();
        LineBlocks {
            path,
            file,
            size_hint,
            read: 0,
            carry: Vec::new(),
            next_line: 1,
            next_record: 0,
            eof: false,
        }
    }

    /// Fills `block` with the next whole lines; `false` once the file is done.
    pub(super) fn next(&mut self, block: &mut Block, progress: &dyn Progress) -> Result<bool> {
        if progress.cancelled() {
            return Err(Error::Cancelled);
        }
        block.bytes.clear();
        block.lines.clear();
        block.bytes.extend_from_slice(&self.carry);
        self.carry.clear();
        let cut = loop {
            if self.eof {
                break block.bytes.len();
            }
            // The file may still grow (a run writing beams): the hint only sizes the buffer.
            let left = self.size_hint.saturating_sub(self.read) as usize;
            let want = BLOCK_BYTES.min(left.max(1 << 12) + 1);
            let n = block
                .bytes
                .read_from(&mut self.file, want)
                .map_err(|e| Error::io(self.path, e))?;
            self.read += n as u64;
            progress.advance(n as u64);
            if n == 0 {
                self.eof = true;
            } else if block.bytes.len() >= BLOCK_BYTES
                && let Some(p) = memchr::memrchr(b'\n', &block.bytes)
            {
                break p + 1;
            }
        };
        self.carry.extend_from_slice(&block.bytes[cut..]);
        block.bytes.truncate(cut);
        let bytes = &block.bytes;
        let mut start = 0;
        let last = (cut > 0 && bytes[cut - 1] != b'\n').then_some(cut);
        for end in memchr::memchr_iter(b'\n', bytes).chain(last) {
            let line = self.next_line;
            self.next_line += 1;
            if !bytes[start..end].iter().all(u8::is_ascii_whitespace) {
                block.lines.push((self.next_record, line, start, end));
                self.next_record += 1;
            }
            start = end + 1;
        }
        block.only_record = self.eof && self.next_record == 1 && block.lines.len() == 1;
        Ok(!(self.eof && bytes.is_empty()))
    }

    /// The number of records, or an error for a file without any.
    pub(super) fn finish(&self) -> Result<usize> {
        if self.next_record == 0 {
            return Err(Error::data(self.path, Place::File, "holds no records"));
        }
        Ok(self.next_record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_bytes_hold_only_what_was_read_since_the_last_clear() {
        let mut bytes = BlockBytes::default();
        let mut source: &[u8] = b"0123456789";
        assert_eq!(bytes.read_from(&mut source, 4).unwrap(), 4);
        bytes.extend_from_slice(b"ab");
        assert_eq!(&*bytes, b"0123ab");
        bytes.truncate(3);
        assert_eq!(&*bytes, b"012");
        bytes.truncate(10);
        assert_eq!(&*bytes, b"012", "truncating never lengthens");
        bytes.clear();
        assert!(bytes.is_empty());
        // The old bytes are still in the buffer; a short read shows none of them.
        assert_eq!(bytes.read_from(&mut source, 100).unwrap(), 6);
        assert_eq!(&*bytes, b"456789");
        assert_eq!(bytes.read_from(&mut source, 100).unwrap(), 0);
        assert_eq!(&*bytes, b"456789");
    }
}
