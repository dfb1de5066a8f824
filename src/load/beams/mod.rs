//! Beam outputs of a generative recommender, one record per user: the reference per-user JSON
//! array (`test.py --save_per_user`) or JSON Lines. Streamed record by record (memory does not
//! grow with users); SID strings are parsed straight into packed keys. One file per role:
//! `grammar` (SID text), `json_lines` (line blocks, parsed in parallel), `fast_path` (the
//! records generators usually write, without serde), `json_array` (a streaming serde visitor).

mod array_blocks;
mod fast_path;
mod json_array;
mod json_lines;
mod mql4grec;
mod mql4grec_stream;
mod scheme_check;
mod table;
#[cfg(test)]
mod tests;

use crate::sid::grammar::parse_sid_key;
use array_blocks::{ArrayBlocks, Takeover};
use json_array::{SerialStart, read_array};
use json_lines::{Block, LineBlocks, parse_line};
use scheme_check::{SchemeCheck, SchemeNote};

use std::io::Read;
use std::path::Path;
use std::sync::mpsc;

use rayon::prelude::*;

use crate::error::{Error, Place, Result};
use crate::io::Input;
use crate::progress::Progress;
use crate::sid::SidKey;
use crate::sid::scheme::{self as sid_scheme, SidScheme};

/// How a beams file is laid out, told by its first non-space byte (`[` or `{`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeamsFormat {
    /// One JSON array of records, as the reference `test.py --save_per_user` writes.
    JsonArray,
    /// One record per line, so big files stream and a broken line is easy to find.
    JsonLines,
    /// MQL4GRec's `{"all_outputs", "all_scores", "all_targets", "all_users"}` save file.
    Mql4grec,
    /// A Parquet or Arrow IPC table, one row per user (told by its magic bytes or name).
    Table(crate::io::columnar::TableFormat),
}

/// A byte range of [`BeamRecord`]'s text arena (ids and unreadable SIDs), so a record needs
/// no allocation per string.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    start: u32,
    end: u32,
}

/// One SID string of a beams file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeamSid {
    /// A well-formed SID: its codes packed as in [`crate::sid::sid_key`], and how many levels.
    Codes {
        /// The packed codes.
        key: SidKey,
        /// Number of levels written (an index with another L does not contain it).
        n_levels: u8,
    },
    /// Text that is not a SID sidlens can read; kept (spaces removed) because the reference
    /// compares such strings literally.
    Unreadable(Span),
}

/// One user's record, reused from record to record. Beams are in file order; use
/// [`BeamRecord::scores`] to rank them when the file gives scores.
#[derive(Debug, Default)]
pub struct BeamRecord {
    record: usize,
    line: usize,
    beams: Vec<BeamSid>,
    scores: Vec<f64>,
    has_scores: bool,
    has_beams: bool,
    target: Option<BeamSid>,
    target_item: Option<Span>,
    ranked_items: Vec<Span>,
    has_ranked_items: bool,
    text: String,
    /// The token scheme of the record's first readable SID.
    scheme: Option<SidScheme>,
    /// A SID of this record written in another scheme than the first, and its text.
    scheme_conflict: Option<(SidScheme, Span)>,
    /// `scheme` is the letters scheme, so noting it again changes nothing.
    letters: bool,
    /// The scheme of the record read before this one with the same buffers: the one to try
    /// first on a record's first SID (kept by `clear`).
    scheme_hint: Option<SidScheme>,
}

impl BeamRecord {
    /// Parses one record from JSON text (a line of a JSON Lines file), checked as a file's
    /// records are; the message says what is wrong.
    pub fn from_json(text: &str) -> std::result::Result<BeamRecord, String> {
        let mut rec = BeamRecord::default();
        parse_line(text.as_bytes(), &mut rec, 0, 1)?;
        Ok(rec)
    }

    /// 0-based number of the record in its file.
    pub fn record(&self) -> usize {
        self.record
    }

    /// 1-based line where the record starts (0 when unknown).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The beam SIDs, in file order (empty for a ranked-item record).
    pub fn beams(&self) -> &[BeamSid] {
        &self.beams
    }

    /// The scores of the beams (or ranked items), one each, when the file gives them: the
    /// list is then ranked by score, highest first.
    pub fn scores(&self) -> Option<&[f64]> {
        self.has_scores.then_some(&self.scores[..])
    }

    /// The target SID string, when given.
    pub fn target(&self) -> Option<BeamSid> {
        self.target
    }

    /// The target item id, when given.
    pub fn target_item(&self) -> Option<&str> {
        self.target_item.map(|s| self.span_text(s))
    }

    /// The ranked item ids of an ordinary recommender's record; `None` for a beam record.
    pub fn ranked_items(&self) -> Option<impl ExactSizeIterator<Item = &str> + '_> {
        self.has_ranked_items
            .then(|| self.ranked_items.iter().map(|&s| self.span_text(s)))
    }

    /// The text of an unreadable SID (or of any span of this record).
    pub fn span_text(&self, span: Span) -> &str {
        &self.text[span.start as usize..span.end as usize]
    }

    /// Whether two SIDs of this record are the same string (spaces aside), as the reference
    /// compares them.
    pub fn same_sid(&self, a: BeamSid, b: BeamSid) -> bool {
        match (a, b) {
            (BeamSid::Unreadable(x), BeamSid::Unreadable(y)) => {
                self.span_text(x) == self.span_text(y)
            }
            _ => a == b,
        }
    }

    fn clear(&mut self, record: usize, line: usize) {
        self.record = record;
        self.line = line;
        self.beams.clear();
        self.scores.clear();
        self.has_scores = false;
        self.has_beams = false;
        self.target = None;
        self.target_item = None;
        self.ranked_items.clear();
        self.has_ranked_items = false;
        self.text.clear();
        self.scheme = None;
        self.scheme_conflict = None;
        self.letters = false;
    }

    /// The token scheme of this record's SIDs (`None` when none was readable).
    pub fn scheme(&self) -> Option<SidScheme> {
        self.scheme
    }

    /// [`BeamRecord::note_scheme`] of the letters scheme (`<a_1><b_2>…`), the one generators
    /// write: once the record's scheme is that, there is nothing to compare per SID.
    fn note_letters(&mut self, text: &str) {
        if !self.letters {
            self.note_scheme(SidScheme::LETTERS, text);
            self.letters = self.scheme == Some(SidScheme::LETTERS);
        }
    }

    /// The scheme a SID of this record is expected in when it is not the default one: the
    /// record's once known, else the record's before.
    pub(super) fn expected_other_scheme(&self) -> Option<SidScheme> {
        match self.scheme {
            _ if self.letters => None,
            None => self.scheme_hint,
            known => known,
        }
        .filter(|&s| s != SidScheme::LETTERS)
    }

    /// A SID read in `scheme`, the [`BeamRecord::expected_other_scheme`], which `detect`
    /// names for it: noted as `parse_any` would note it.
    pub(super) fn note_expected(&mut self, scheme: SidScheme) {
        if self.scheme.is_none() {
            self.scheme = Some(scheme);
        }
    }

    fn note_scheme(&mut self, scheme: SidScheme, text: &str) {
        match self.scheme {
            None => {
                self.scheme = Some(scheme);
                self.scheme_hint = Some(scheme);
            }
            Some(s) if s != scheme && self.scheme_conflict.is_none() => {
                let span = self.push_text(text);
                self.scheme_conflict = Some((scheme, span));
            }
            Some(_) => {}
        }
    }

    fn push_text(&mut self, s: &str) -> Span {
        let start = self.text.len() as u32;
        self.text.push_str(s);
        Span {
            start,
            end: self.text.len() as u32,
        }
    }

    /// [`BeamRecord::read_sid`] of a string whose bytes lie at the start of `window` with
    /// the bytes after it in memory (the values of a Parquet or Arrow string column lie back
    /// to back): the usual SID is then read in one pass of byte masks. Inlined into the
    /// table reader's builds for each CPU.
    #[inline(always)]
    fn read_sid_in_window(&mut self, s: &str, window: Option<&[u8; 32]>) -> BeamSid {
        if let Some(window) = window
            && let Some((key, n_levels)) = crate::sid::grammar::sid_in_window(window, s.len())
        {
            self.note_letters(s);
            return BeamSid::Codes { key, n_levels };
        }
        self.read_sid(s)
    }

    fn read_sid(&mut self, s: &str) -> BeamSid {
        // A SID in the scheme expected needs no detecting (`parse_any` took about 1,300
        // instructions a SID of OpenOneRec's); the default reader below takes none of them,
        // since what it reads is detected as the default scheme.
        if let Some(scheme) = self.expected_other_scheme()
            && let Some((key, n_levels)) = scheme.parse_sid_detected_as_self(s)
        {
            self.note_expected(scheme);
            return BeamSid::Codes { key, n_levels };
        }
        if let Some((key, n_levels)) = parse_sid_key(s) {
            self.note_letters(s);
            return BeamSid::Codes { key, n_levels };
        }
        match sid_scheme::parse_any(s) {
            Some((scheme, key, n_levels)) => {
                self.note_scheme(scheme, s);
                BeamSid::Codes { key, n_levels }
            }
            None => {
                let start = self.text.len() as u32;
                self.text.extend(s.trim().chars().filter(|&c| c != ' '));
                BeamSid::Unreadable(Span {
                    start,
                    end: self.text.len() as u32,
                })
            }
        }
    }

    /// Checks what the fields say together, once the record is read.
    fn validate(&self) -> std::result::Result<(), String> {
        match (self.has_beams, self.has_ranked_items) {
            (true, true) => {
                return Err("has both \"beam_sids\" and \"ranked_items\"; give one".into());
            }
            (false, false) => {
                return Err(
                    "has neither \"beam_sids\" nor \"ranked_items\" (is this a beams file?)".into(),
                );
            }
            _ => {}
        }
        if self.has_ranked_items && self.target_item.is_none() {
            return Err("has \"ranked_items\" but no \"target_item\"".into());
        }
        if self.target.is_none() && self.target_item.is_none() {
            return Err("has no target: neither \"target\" nor \"target_item\" is given".into());
        }
        let (listed, what) = if self.has_ranked_items {
            (self.ranked_items.len(), "ranked items")
        } else {
            (self.beams.len(), "beam SIDs")
        };
        if self.has_scores && self.scores.len() != listed {
            return Err(format!(
                "has {} scores for {listed} {what}",
                self.scores.len()
            ));
        }
        Ok(())
    }
}
/// Tells the format of a beams file from its first bytes.
pub fn detect_format(head: &[u8], path: &Path) -> Result<BeamsFormat> {
    use crate::io::columnar::TableFormat;
    if let Some(t) = TableFormat::from_magic(head).or_else(|| TableFormat::from_name(path)) {
        return Ok(BeamsFormat::Table(t));
    }
    super::reject_bom(head, path)?;
    if mql4grec::detect(head) {
        return Ok(BeamsFormat::Mql4grec);
    }
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => Ok(BeamsFormat::JsonArray),
        Some(b'{') => Ok(BeamsFormat::JsonLines),
        Some(_) => Err(Error::data(
            path,
            Place::File,
            "expected a JSON array of records ([{\"beam_sids\": ...}, ...]), JSON Lines (one record per line) or MQL4GRec's {\"all_outputs\": ...} save file",
        )),
        None => Err(Error::data(path, Place::File, "the file is empty")),
    }
}

/// Calls `on_record` for every record of the beams file at `path`, in file order, with one
/// reused [`BeamRecord`]. Returns the number of records. Errors name the file, the record and
/// its line.
pub fn for_each_record(
    path: &Path,
    progress: &dyn Progress,
    on_record: impl FnMut(&BeamRecord) -> Result<()>,
) -> Result<usize> {
    for_each_record_as(path, None, progress, on_record)
}

/// Like [`for_each_record`], with the SIDs' token scheme given (`None`: the first readable
/// SID's); a SID written in another scheme is an error naming its record.
pub fn for_each_record_as(
    path: &Path,
    scheme: Option<SidScheme>,
    progress: &dyn Progress,
    mut on_record: impl FnMut(&BeamRecord) -> Result<()>,
) -> Result<usize> {
    let mut check = SchemeCheck::new(path, scheme);
    let mut on_record = |rec: &BeamRecord| {
        check.check(&SchemeCheck::note(rec))?;
        on_record(rec)
    };
    let (format, file) = open(path, progress)?;
    match format {
        BeamsFormat::Mql4grec => mql4grec::read(path, file, progress, &mut on_record),
        BeamsFormat::Table(t) => table::for_each(path, t, file, progress, &mut on_record),
        BeamsFormat::JsonArray => {
            read_array(path, file, SerialStart::FILE, progress, &mut on_record)
        }
        BeamsFormat::JsonLines => {
            let mut blocks = LineBlocks::new(path, file);
            let mut block = Block::default();
            let mut rec = BeamRecord::default();
            while blocks.next(&mut block, progress)? {
                for &(record, line, start, end) in &block.lines {
                    parse_line(&block.bytes[start..end], &mut rec, record, line)
                        .map_err(|m| line_error(path, &block, record, line, m))?;
                    on_record(&rec)?;
                }
            }
            blocks.finish()
        }
    }
}

/// Like [`for_each_record`], but `map` runs on several threads (both formats are parsed in
/// parallel blocks) while `consume` still sees the results one by one in file order.
pub fn map_records<T: Send>(
    path: &Path,
    progress: &dyn Progress,
    map: impl Fn(&BeamRecord) -> T + Sync,
    consume: impl FnMut(T) -> Result<()>,
) -> Result<usize> {
    map_records_as(path, None, progress, map, consume)
}

/// Like [`map_records`], with the SIDs' token scheme given (`None`: the first readable
/// SID's); a SID written in another scheme is an error naming its record.
pub fn map_records_as<T: Send>(
    path: &Path,
    scheme: Option<SidScheme>,
    progress: &dyn Progress,
    map: impl Fn(&BeamRecord) -> T + Sync,
    consume: impl FnMut(T) -> Result<()>,
) -> Result<usize> {
    map_records_warmed_as(
        path,
        scheme,
        progress,
        &|_, (): &mut ()| {},
        |rec, ()| map(rec),
        consume,
    )
}

/// Like [`map_records_as`], with `warm` called on each record as soon as it is parsed and
/// before the previous one is mapped (in the parallel readers), so that the cache misses
/// `warm` starts (prefetches for what `map` will look up) overlap a whole record's work.
/// What `warm` notes in its `P` (such as where those lookups go) is what `map` is given with
/// the record, so that it is not worked out twice.
pub fn map_records_warmed_as<T: Send, P: Default>(
    path: &Path,
    scheme: Option<SidScheme>,
    progress: &dyn Progress,
    warm: &(impl Fn(&BeamRecord, &mut P) + Sync),
    map: impl Fn(&BeamRecord, &P) -> T + Sync,
    mut consume: impl FnMut(T) -> Result<()>,
) -> Result<usize> {
    let mut check = SchemeCheck::new(path, scheme);
    let map = with_note(map);
    let consume = |(note, value): (SchemeNote, T)| {
        check.check(&note)?;
        consume(value)
    };
    read_records(path, progress, warm, map, consume)
}

/// The reader of [`map_records_warmed_as`], without the scheme check.
fn read_records<T: Send, P: Default>(
    path: &Path,
    progress: &dyn Progress,
    warm: &(impl Fn(&BeamRecord, &mut P) + Sync),
    map: impl Fn(&BeamRecord, &P) -> T + Sync,
    mut consume: impl FnMut(T) -> Result<()>,
) -> Result<usize> {
    let (format, file) = open(path, progress)?;
    let stages = Stages { warm, map: &map };
    match format {
        BeamsFormat::Mql4grec => {
            let mut each = one_by_one(warm, &map, &mut consume);
            mql4grec::read(path, file, progress, &mut each)
        }
        BeamsFormat::Table(t) => table::read(path, t, file, progress, stages, &mut consume),
        BeamsFormat::JsonArray => {
            let source = ArrayBlocks::new(path, file);
            match pipeline(path, source, progress, stages, &mut consume)? {
                (blocks, None) => Ok(blocks.count()),
                (blocks, Some((mut start, mut tail))) => {
                    // Serial reading takes over where a record could not be proven.
                    tail.extend_from_slice(&blocks.carry);
                    start.reported = tail.len() as u64;
                    let input = std::io::Cursor::new(tail).chain(blocks.file);
                    let mut each = one_by_one(warm, &map, &mut consume);
                    read_array(path, input, start, progress, &mut each)
                }
            }
        }
        BeamsFormat::JsonLines => {
            let (blocks, _) = pipeline(
                path,
                LineBlocks::new(path, file),
                progress,
                stages,
                &mut consume,
            )?;
            blocks.finish()
        }
    }
}

/// `warm`, `map` and `consume` record by record, for the readers that are not parallel.
fn one_by_one<T, P: Default>(
    warm: &impl Fn(&BeamRecord, &mut P),
    map: &impl Fn(&BeamRecord, &P) -> T,
    consume: &mut impl FnMut(T) -> Result<()>,
) -> impl FnMut(&BeamRecord) -> Result<()> {
    let mut warmed = P::default();
    move |rec| {
        warm(rec, &mut warmed);
        consume(map(rec, &warmed))
    }
}

/// A reader that cuts a beams file into [`Block`]s of whole records.
trait Blocks: Send {
    /// Whether a record that fails to parse hands over to the serial reader (JSON array,
    /// where record ends are guesses) rather than being an error (JSON Lines).
    const TAKES_OVER: bool;

    /// Fills `block`; `false` once the file is done.
    fn next_block(
        &mut self,
        block: &mut Block,
        takeover: &mut Option<Takeover>,
        progress: &dyn Progress,
    ) -> Result<bool>;
}

impl Blocks for LineBlocks<'_> {
    const TAKES_OVER: bool = false;

    fn next_block(
        &mut self,
        block: &mut Block,
        _: &mut Option<Takeover>,
        progress: &dyn Progress,
    ) -> Result<bool> {
        self.next(block, progress)
    }
}

impl Blocks for ArrayBlocks<'_> {
    const TAKES_OVER: bool = true;

    fn next_block(
        &mut self,
        block: &mut Block,
        takeover: &mut Option<Takeover>,
        progress: &dyn Progress,
    ) -> Result<bool> {
        self.next(block, takeover, progress)
    }
}

/// Where the serial reader takes over and the bytes from there that the pipeline holds.
type Handover = (SerialStart, Vec<u8>);

/// Runs blocks from `source` through `map` in parallel and `consume` in order. Returns the
/// source (for its counts and what it has not read) and, when a record hands over, where.
fn pipeline<'p, S: Blocks + 'p, T: Send, P: Default>(
    path: &Path,
    mut source: S,
    progress: &'p dyn Progress,
    stages: Stages<impl Fn(&BeamRecord, &mut P) + Sync, impl Fn(&BeamRecord, &P) -> T + Sync>,
    consume: &mut impl FnMut(T) -> Result<()>,
) -> Result<(S, Option<Handover>)> {
    std::thread::scope(|scope| {
        // Three stages overlap: a reader thread fills blocks, the thread pool parses and
        // maps a block, and this thread consumes the previous block's results in order.
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<(Block, Option<Takeover>)>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Block>();
        for _ in 0..2 {
            let _ = empty_tx.send(Block::default());
        }
        let reader = scope.spawn(move || {
            for mut block in empty_rx {
                let mut takeover = None;
                match source.next_block(&mut block, &mut takeover, progress) {
                    Ok(true) => {
                        if full_tx.send(Ok((block, takeover))).is_err() {
                            break;
                        }
                    }
                    Ok(false) => break,
                    Err(e) => {
                        let _ = full_tx.send(Err(e));
                        break;
                    }
                }
            }
            source
        });
        let mut pending: Option<Vec<Vec<T>>> = None;
        let outcome = (|| -> Result<Option<(Block, Takeover)>> {
            for item in &full_rx {
                let (block, given) = item?;
                let ((parsed, failed), consumed) = match pending.take() {
                    None => (parse_block(path, &block, stages), Ok(())),
                    // A task on the pool rather than a thread per block: 33 spawns cost
                    // 20 ms of system time at 137 MB of beams.
                    Some(results) => {
                        let mut parsed = None;
                        let consumed = rayon::in_place_scope(|inner| {
                            inner.spawn(|_| parsed = Some(parse_block(path, &block, stages)));
                            consume_all(results, consume)
                        });
                        (parsed.expect("the scope waits for its task"), consumed)
                    }
                };
                consumed?;
                let takeover = match failed {
                    Some((_, e)) if !S::TAKES_OVER => return Err(e),
                    Some((k, _)) => Some(Takeover {
                        offset: if k == 0 { 0 } else { block.lines[k - 1].3 },
                        record: block.lines[k].0,
                    }),
                    None => given,
                };
                if let Some(t) = takeover {
                    consume_all(parsed, consume)?;
                    return Ok(Some((block, t)));
                }
                pending = Some(parsed);
                let _ = empty_tx.send(block);
            }
            match pending.take() {
                Some(results) => consume_all(results, consume).map(|()| None),
                None => Ok(None),
            }
        })();
        // Stopping early or handing over: closing the channel lets the reader finish.
        drop(empty_tx);
        match outcome {
            Err(e) => {
                drop(full_rx);
                join(reader);
                Err(e)
            }
            Ok(None) => Ok((join(reader), None)),
            Ok(Some((block, t))) => {
                let (line, column) = block.line_column(t.offset);
                let mut tail = block.bytes[t.offset..].to_vec();
                for item in &full_rx {
                    tail.extend_from_slice(&item?.0.bytes);
                }
                let start = SerialStart {
                    record: t.record,
                    line,
                    column,
                    reported: 0,
                };
                Ok((join(reader), Some((start, tail))))
            }
        }
    })
}

/// `map`, with the record's scheme note beside its value.
fn with_note<T, P>(
    map: impl Fn(&BeamRecord, &P) -> T + Sync,
) -> impl Fn(&BeamRecord, &P) -> (SchemeNote, T) + Sync {
    move |rec, warmed| (SchemeCheck::note(rec), map(rec, warmed))
}

/// Waits for a scoped thread, passing its panic on.
fn join<R>(handle: std::thread::ScopedJoinHandle<'_, R>) -> R {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// What the parallel readers run per record: `warm` once it is parsed, `map` after the next
/// record has been parsed and warmed, with what `warm` noted for it.
struct Stages<'a, W, M> {
    warm: &'a W,
    map: &'a M,
}

impl<W, M> Clone for Stages<'_, W, M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<W, M> Copy for Stages<'_, W, M> {}

impl<W, M> Stages<'_, W, M> {
    /// Maps records `0..n`, which `read(k, rec)` parses into `rec`, in order into `out`:
    /// record k + 1 is read and warmed before record k is mapped. Stops at the first record
    /// that fails to read (once every record before it is mapped), giving its number and
    /// the error.
    fn map_ahead<T, P: Default, E>(
        self,
        n: usize,
        mut read: impl FnMut(usize, &mut BeamRecord) -> std::result::Result<(), E>,
        out: &mut Vec<T>,
    ) -> std::result::Result<(), (usize, E)>
    where
        W: Fn(&BeamRecord, &mut P),
        M: Fn(&BeamRecord, &P) -> T,
    {
        if n == 0 {
            return Ok(());
        }
        let mut slots: [(BeamRecord, P); 2] = Default::default();
        read(0, &mut slots[0].0).map_err(|e| (0, e))?;
        (self.warm)(&slots[0].0, &mut slots[0].1);
        for k in 0..n {
            let [this, next] = &mut slots;
            let (this, next) = if k % 2 == 0 {
                (this, next)
            } else {
                (next, this)
            };
            let ahead = (k + 1 < n).then(|| read(k + 1, &mut next.0));
            if let Some(Ok(())) = ahead {
                (self.warm)(&next.0, &mut next.1);
            }
            out.push((self.map)(&this.0, &this.1));
            if let Some(Err(e)) = ahead {
                return Err((k + 1, e));
            }
        }
        Ok(())
    }
}

/// A record that failed to parse: its place in its block, and the error.
type Failure = (usize, Error);

/// Parses and maps one block's records in parallel batches, keeping file order; stops at
/// the first record that fails, giving its place in the block and the error.
fn parse_block<T: Send, P: Default>(
    path: &Path,
    block: &Block,
    stages: Stages<impl Fn(&BeamRecord, &mut P) + Sync, impl Fn(&BeamRecord, &P) -> T + Sync>,
) -> (Vec<Vec<T>>, Option<Failure>) {
    let batches: Vec<(Vec<T>, Option<Failure>)> = block
        .lines
        .par_chunks(BATCH_RECORDS)
        .enumerate()
        .map(|(b, batch)| {
            let mut out = Vec::with_capacity(batch.len());
            let read = |k: usize, rec: &mut BeamRecord| {
                let (record, line, start, end) = batch[k];
                parse_line(&block.bytes[start..end], rec, record, line)
                    .map_err(|m| line_error(path, block, record, line, m))
            };
            let failed = stages
                .map_ahead(batch.len(), read, &mut out)
                .err()
                .map(|(k, e)| (b * BATCH_RECORDS + k, e));
            (out, failed)
        })
        .collect();
    let mut results = Vec::with_capacity(batches.len());
    for (out, failed) in batches {
        results.push(out);
        if failed.is_some() {
            return (results, failed);
        }
    }
    (results, None)
}

fn consume_all<T>(batches: Vec<Vec<T>>, consume: &mut impl FnMut(T) -> Result<()>) -> Result<()> {
    for value in batches.into_iter().flatten() {
        consume(value)?;
    }
    Ok(())
}

/// Records parsed per parallel task.
const BATCH_RECORDS: usize = 128;

/// Bytes read per block of JSON Lines (a block is split at its last newline).
const BLOCK_BYTES: usize = 4 << 20;

pub(super) fn record_error(path: &Path, record: usize, line: usize, message: String) -> Error {
    Error::data(path, Place::Record { record, line }, message)
}

/// A JSON Lines record's error; for a file that is one lone object and not named as JSON
/// Lines (`.jsonl`, `.ndjson`), it says the file is not a list of records first, which is the
/// likelier mistake.
fn line_error(path: &Path, block: &Block, record: usize, line: usize, message: String) -> Error {
    let named_as_lines = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"));
    if block.only_record && !named_as_lines {
        return Error::data(
            path,
            Place::File,
            format!(
                "holds one JSON object, not a list of records (a JSON array [{{...}}, ...] or JSON Lines); read as a record, it {message}"
            ),
        );
    }
    record_error(path, record, line, message)
}

fn open(path: &Path, progress: &dyn Progress) -> Result<(BeamsFormat, Input)> {
    let mut input = Input::open(path)?;
    let format = detect_format(input.peek(path)?, path)?;
    progress.stage("beams", input.size_hint());
    Ok((format, input))
}
