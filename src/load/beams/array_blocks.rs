//! A JSON array of records cut into blocks of whole records for the parallel pipeline, by
//! guessing record ends (a `}` followed by `, {` or by the closing `]`) and proving each guess
//! by parsing: a record that parses as a whole object ends where the guess said. Where a
//! guess fails, or the file is not the plain layout, the streaming serde reader takes over
//! from the end of the last proven record, so messages stay those of the serial reader.

use crate::io::Input;
use std::path::Path;

use super::BLOCK_BYTES;
use super::json_lines::{Block, BlockBytes};
use crate::error::{Error, Result};
use crate::progress::Progress;

/// Where serial reading takes over: at byte `offset` of a block's bytes, after `record`
/// proven records; `offset` is 0 with `record` 0 at the start of the file, else it sits
/// right after the last proven record's `}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Takeover {
    pub(super) offset: usize,
    pub(super) record: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the opening `[`.
    Start,
    /// Between records: after `[` or after a record's `}`.
    Records,
    /// The closing `]` was seen, or serial reading takes over.
    Done,
}

/// Reads a JSON array file block by block; each block ends right after a record's `}`.
pub(super) struct ArrayBlocks<'a> {
    path: &'a Path,
    pub(super) file: Input,
    size_hint: u64,
    read: u64,
    pub(super) carry: Vec<u8>,
    line: usize,
    column: usize,
    next_record: usize,
    eof: bool,
    phase: Phase,
}

fn skip_ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
        *i += 1;
    }
}

/// What follows a `}` at `close`: the next record's `{`, the end of the array, or neither.
enum After {
    Next(usize),
    End,
    No,
    /// The bytes end before it is known.
    Unknown,
}

impl<'a> ArrayBlocks<'a> {
    pub(super) fn new(path: &'a Path, file: Input) -> Self {
        let size_hint = file.size_hint();
        ArrayBlocks {
            path,
            file,
            size_hint,
            read: 0,
            carry: Vec::new(),
            line: 1,
            column: 1,
            next_record: 0,
            eof: false,
            phase: Phase::Start,
        }
    }

    /// The number of records, all proven (used when no takeover happened).
    pub(super) fn count(&self) -> usize {
        self.next_record
    }

    /// Reads about [`BLOCK_BYTES`] more into `bytes` (less at the end of the file).
    fn fill(&mut self, bytes: &mut BlockBytes, progress: &dyn Progress) -> Result<()> {
        let goal = bytes.len() + BLOCK_BYTES;
        while !self.eof && bytes.len() < goal {
            let left = self.size_hint.saturating_sub(self.read) as usize;
            let want = (goal - bytes.len()).min(left.max(1 << 12) + 1);
            let n = bytes
                .read_from(&mut self.file, want)
                .map_err(|e| Error::io(self.path, e))?;
            self.read += n as u64;
            progress.advance(n as u64);
            self.eof = n == 0;
        }
        Ok(())
    }

    /// Fills `block` with the next whole records (candidates, proven later by parsing);
    /// `Some(takeover)` when serial reading must take over in this block. `false` once done.
    pub(super) fn next(
        &mut self,
        block: &mut Block,
        takeover: &mut Option<Takeover>,
        progress: &dyn Progress,
    ) -> Result<bool> {
        if progress.cancelled() {
            return Err(Error::Cancelled);
        }
        block.bytes.clear();
        block.lines.clear();
        *takeover = None;
        if self.phase == Phase::Done {
            return Ok(false);
        }
        block.bytes.extend_from_slice(&self.carry);
        self.carry.clear();
        block.start_line = self.line;
        block.start_column = self.column;
        self.fill(&mut block.bytes, progress)?;
        let cut = loop {
            match self.scan(block) {
                Some(cut) => break cut,
                None if self.eof => {
                    // Broken or unusual: the serial reader reads the rest and reports.
                    *takeover = Some(self.takeover_point(block));
                    self.phase = Phase::Done;
                    break block.bytes.len();
                }
                None => {
                    block.lines.clear();
                    self.fill(&mut block.bytes, progress)?;
                }
            }
        };
        self.carry.extend_from_slice(&block.bytes[cut..]);
        block.bytes.truncate(cut);
        let (line, column) = block.line_column(cut);
        (self.line, self.column) = (line, column);
        Ok(!block.bytes.is_empty() || takeover.is_some())
    }

    /// Where serial reading starts when no record of `block` can be proven by scanning.
    fn takeover_point(&self, block: &Block) -> Takeover {
        match block.lines.last() {
            Some(&(record, _, _, end)) => Takeover {
                offset: end,
                record: record + 1,
            },
            None => Takeover {
                offset: 0,
                record: self.next_record,
            },
        }
    }

    /// Finds candidate records in `block.bytes`; the cut after the last one (or after the
    /// closing `]`), or `None` when not one whole record is there yet (or the layout is not
    /// the plain one).
    fn scan(&mut self, block: &mut Block) -> Option<usize> {
        let b = &block.bytes;
        let mut i = 0;
        let mut line = block.start_line;
        let mut counted = 0;
        let mut phase = self.phase;
        let mut record = self.next_record;
        let mut cut = None;
        // `json.dump` writes the array on one line: then no record needs its line counted.
        let one_line = memchr::memchr(b'\n', b).is_none();
        if phase == Phase::Start {
            skip_ws(b, &mut i);
            if b.get(i) != Some(&b'[') {
                return None;
            }
            i += 1;
            skip_ws(b, &mut i);
            if b.get(i) != Some(&b'{') {
                return None;
            }
        } else {
            match after_record(b, 0, self.eof) {
                After::Next(s) => i = s,
                After::End => {
                    self.phase = Phase::Done;
                    return Some(b.len());
                }
                _ => return None,
            }
        }
        loop {
            // `b[i]` is a record's `{`.
            let start = i;
            let mut from = start + 1;
            let next = loop {
                let Some(close) = memchr::memchr(b'}', &b[from..]).map(|p| from + p) else {
                    break None;
                };
                match after_record(b, close + 1, self.eof) {
                    After::Next(s) => break Some((close + 1, Some(s))),
                    After::End => break Some((close + 1, None)),
                    After::Unknown => break None,
                    After::No => from = close + 1,
                }
            };
            let Some((end, next_start)) = next else {
                break;
            };
            if !one_line {
                line += memchr::memchr_iter(b'\n', &b[counted..start]).count();
                counted = start;
            }
            block.lines.push((record, line, start, end));
            record += 1;
            phase = Phase::Records;
            match next_start {
                Some(s) => {
                    cut = Some(end);
                    i = s;
                }
                None => {
                    phase = Phase::Done;
                    cut = Some(b.len());
                    break;
                }
            }
        }
        if cut.is_some() {
            self.phase = phase;
            self.next_record = record;
        }
        cut
    }
}

/// Reads what follows a record's `}` at `at`.
fn after_record(b: &[u8], at: usize, eof: bool) -> After {
    let mut i = at;
    skip_ws(b, &mut i);
    match b.get(i) {
        Some(b',') => {
            i += 1;
            skip_ws(b, &mut i);
            match b.get(i) {
                Some(b'{') => After::Next(i),
                None if !eof => After::Unknown,
                _ => After::No,
            }
        }
        Some(b']') => {
            i += 1;
            skip_ws(b, &mut i);
            match (i == b.len(), eof) {
                (true, true) => After::End,
                (true, false) => After::Unknown,
                _ => After::No,
            }
        }
        None if !eof => After::Unknown,
        _ => After::No,
    }
}
