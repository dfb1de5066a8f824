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
        &|_, _: &mut ()| {},
        |rec, _| map(rec),
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

/// Whether the CPU has what the record and SID readers' second builds are compiled for
/// (AVX2 and the bit-manipulation sets); one check for both callers.
#[cfg(target_arch = "x86_64")]
fn has_avx2_and_bmi() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
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

#[cfg(test)]
mod tests {
    use super::fast_path::parse_plain_record;
    use super::json_lines::parse_with_serde;
    use super::*;
    use crate::progress::NoProgress;
    use crate::sid::sid_key;
    use proptest::prelude::*;

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn collect(path: &Path) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for_each_record(path, &NoProgress, |r| {
            out.push(format!(
                "{}@{} beams={:?} scores={:?} target={:?} item={:?} ranked={:?}",
                r.record(),
                r.line(),
                r.beams()
                    .iter()
                    .map(|&b| match b {
                        BeamSid::Codes { key, n_levels } => format!("{key:x}/{n_levels}"),
                        BeamSid::Unreadable(s) => format!("?{}", r.span_text(s)),
                    })
                    .collect::<Vec<_>>(),
                r.scores(),
                r.target().is_some(),
                r.target_item(),
                r.ranked_items().map(|i| i.collect::<Vec<_>>()),
            ));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn sid_strings_parse_into_keys() {
        assert_eq!(
            parse_sid_key("<a_1><b_2><c_3><d_4>"),
            Some((sid_key(&[1, 2, 3, 4]), 4))
        );
        assert_eq!(
            parse_sid_key(" <a_1> <b_ 65535 >\t"),
            Some((sid_key(&[1, 65535]), 2))
        );
        assert_eq!(
            parse_sid_key("<a_000001><b_65535>"),
            Some((sid_key(&[1, 65535]), 2))
        );
        for bad in [
            "",
            "  ",
            "<a_1><c_2>",
            "<b_1>",
            "<a_>",
            "<a_65536>",
            "<a_1",
            "a_1>",
            "<a_1>x",
            "<a_-1>",
            "<a_1><b_70000>",
            "<a_1>>",
            "<a_1><a_1>",
            "<a_1><b_1><c_1><d_1><e_1><f_1><g_1><h_1><i_1>",
        ] {
            assert_eq!(parse_sid_key(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn every_token_scheme_reads_into_the_same_keys_and_a_file_keeps_one() {
        let dir = tempfile::tempdir().unwrap();
        let want = format!("{:x}/3", sid_key(&[340, 6566, 5603]));
        for (name, sid, other) in [
            ("a", "<a_340><b_6566><c_5603>", "<A_1><B_2><C_3>"),
            (
                "o",
                "<|sid_begin|><s_a_340><s_b_6566><s_c_5603><|sid_end|>",
                "<a_1><b_2><c_3>",
            ),
            ("v", "<|sid_340|><|sid_6566|><|sid_5603|>", "1-2-3"),
            ("d", "340-6566-5603", "<|sid_1|><|sid_2|><|sid_3|>"),
        ] {
            let rec = format!(r#"{{"beam_sids": ["{sid}", "junk"], "target": "{sid}"}}"#);
            for (file, text) in [
                (format!("{name}.jsonl"), format!("{rec}\n{rec}\n")),
                (format!("{name}.json"), format!("[{rec}, {rec}]")),
            ] {
                let path = write(&dir, &file, &text);
                let got = collect(&path).unwrap();
                assert!(
                    got[1].contains(&format!("beams=[\"{want}\", \"?junk\"]")),
                    "{got:?}"
                );
            }
            let mixed = format!("{rec}\n{}\n", rec.replacen(sid, other, 1));
            let path = write(&dir, &format!("{name}.mixed.jsonl"), &mixed);
            let err = collect(&path).unwrap_err().to_string();
            assert!(
                err.contains("record 2 (line 2)") || err.contains("line 2"),
                "{err}"
            );
            assert!(err.contains("one token scheme per file"), "{err}");
            let given = SidScheme::from_name_or_example(other);
            let path = write(&dir, &format!("{name}.one.jsonl"), &format!("{rec}\n"));
            let err = for_each_record_as(&path, given, &NoProgress, |_| Ok(()))
                .unwrap_err()
                .to_string();
            assert!(err.contains("--sid-format says"), "{err}");
        }
    }

    #[test]
    fn array_and_lines_give_the_same_records() {
        let dir = tempfile::tempdir().unwrap();
        let records = [
            r#"{"beam_sids": ["<a_1><b_2>", "<a_1> <b_3>", "junk x"], "target": "<a_1><b_3>", "extra": {"x": [1]}}"#,
            r#"{"beam_sids": [], "target": null, "target_item": 7}"#,
            r#"{"ranked_items": ["5", 6], "target_item": "6", "scores": [0.5, 1]}"#,
            r#"{"beam_sids": ["<a_1><b_2>"], "scores": [-1.5], "target_item": "x"}"#,
        ];
        let array = write(&dir, "b.json", &format!("[\n{}\n]", records.join(",\n")));
        let lines = write(
            &dir,
            "b.jsonl",
            &format!(
                "{}\n\n{}\n",
                records[..2].join("\n"),
                records[2..].join("\n")
            ),
        );
        let a = collect(&array).unwrap();
        let l = collect(&lines).unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!(
            a[0],
            "0@2 beams=[\"10002/2\", \"10003/2\", \"?junkx\"] scores=None target=true item=None ranked=None"
        );
        assert_eq!(
            a[2],
            "2@4 beams=[] scores=Some([0.5, 1.0]) target=false item=Some(\"6\") ranked=Some([\"5\", \"6\"])"
        );
        let strip_line = |v: &[String]| -> Vec<String> {
            v.iter()
                .map(|s| s.split_once(' ').unwrap().1.to_string())
                .collect()
        };
        assert_eq!(strip_line(&a), strip_line(&l));
        assert!(l[2].starts_with("2@4 "), "{}", l[2]);
        assert!(l[3].starts_with("3@5 "), "{}", l[3]);
    }

    /// Everything a record holds, for comparing two parses.
    fn dump(r: &BeamRecord) -> String {
        let sid = |b: BeamSid| match b {
            BeamSid::Codes { key, n_levels } => format!("{key:x}/{n_levels}"),
            BeamSid::Unreadable(s) => format!("?{}", r.span_text(s)),
        };
        format!(
            "{:?} {:?} {:?} {:?} {:?} {}",
            r.beams().iter().map(|&b| sid(b)).collect::<Vec<_>>(),
            r.target().map(sid),
            r.target_item(),
            r.scores(),
            r.ranked_items().map(|i| i.collect::<Vec<_>>()),
            r.has_beams
        )
    }

    /// The fast path either declines or reads exactly what serde reads, and its build for
    /// CPUs with AVX2 (taken here when the CPU has it) decides as the portable one does.
    fn fast_equals_serde(text: &str) -> std::result::Result<bool, TestCaseError> {
        let mut fast = BeamRecord::default();
        let taken = parse_plain_record(text, &mut fast);
        let mut portable = BeamRecord::default();
        let portable_taken = super::fast_path::parse_plain_record_inline(text, &mut portable);
        prop_assert_eq!(portable_taken, taken, "the builds disagree on {}", text);
        if taken {
            prop_assert_eq!(dump(&portable), dump(&fast), "{}", text);
        }
        let mut slow = BeamRecord::default();
        let serde = parse_with_serde(text, &mut slow);
        if taken {
            prop_assert!(serde.is_ok(), "fast path took what serde rejects: {text}");
            prop_assert_eq!(dump(&fast), dump(&slow), "{}", text);
        }
        Ok(taken)
    }

    #[test]
    fn fast_path_covers_plain_records_and_declines_the_rest() {
        for (text, taken) in [
            (
                r#"{"beam_sids": ["<a_1><b_2>", "x y"], "target": "<a_1>", "target_item": "7"}"#,
                true,
            ),
            (
                r#" { "target_item" : 12 , "beam_sids":[ ] ,"target":null } "#,
                true,
            ),
            (
                r#"{"beam_sids": ["é<a_1>"], "target_item": null, "target": "t"}"#,
                true,
            ),
            (r#"{"beam_sids": ["\u003ca_1>"], "target": "<a_1>"}"#, false),
            (
                r#"{"beam_sids": [], "target": "<a_1>", "scores": []}"#,
                false,
            ),
            (r#"{"beam_sids": [], "target": "<a_1>", "x": 1}"#, false),
            (r#"{"beam_sids": [], "target_item": 012}"#, false),
            (r#"{"beam_sids": [], "target_item": 1.5}"#, false),
            (r#"{"beam_sids": [], "target_item": -1}"#, false),
            (
                r#"{"beam_sids": [], "target_item": 12345678901234567890}"#,
                false,
            ),
            (r#"{"beam_sids": ["a",], "target": "b"}"#, false),
            (r#"{"beam_sids": [], "target": "b",}"#, false),
            (
                r#"{"beam_sids": [], "beam_sids": [], "target": "b"}"#,
                false,
            ),
            (r#"{"beam_sids": [], "target": "b"} x"#, false),
            (r#"{"beam_sids": [], "target": nul}"#, false),
            (r#"{"beam_sids": [], "target": "a	b"}"#, false),
            ("{}", false),
        ] {
            assert_eq!(fast_equals_serde(text).unwrap(), taken, "{text}");
        }
    }

    proptest::proptest! {
        /// Random plain records in any key order and spacing, and random one-byte damage.
        #[test]
        fn fast_path_agrees_with_serde(
            fields in proptest::sample::subsequence(vec![0usize, 1, 2], 0..=3),
            order in proptest::collection::vec(0usize..3, 3),
            sids in proptest::collection::vec("[<>a-d_0-9 é]{0,12}", 0..4),
            item in proptest::prop_oneof![
                proptest::strategy::Just("null".to_string()),
                "[0-9]{1,21}",
                "\"[a-z0-9 ]{0,5}\"",
            ],
            space in "[ \t]{0,2}",
            damage in proptest::option::of((0usize..200, proptest::num::u8::ANY)),
        ) {
            let mut fields = fields;
            fields.sort_by_key(|&f| order[f]);
            let parts: Vec<String> = fields
                .iter()
                .map(|&f| match f {
                    0 => format!(
                        "\"beam_sids\":{space}[{}]",
                        sids.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(&format!(",{space}"))
                    ),
                    1 => format!("\"target\":{space}{}", sids.first().map_or("null".to_string(), |s| format!("\"{s}\""))),
                    _ => format!("\"target_item\"{space}:{item}"),
                })
                .collect();
            let text = format!("{space}{{{}}}{space}", parts.join(&format!("{space},")));
            fast_equals_serde(&text)?;
            if let Some((at, byte)) = damage {
                fast_equals_serde(&crate::load::with_byte_changed(&text, at, byte))?;
            }
        }
    }

    proptest::proptest! {
        /// Records as json.dumps writes them, read by the dumped-record path: taken whenever
        /// undamaged, the same record (token scheme included) as the any-order reader and as
        /// serde, and with one byte changed still what serde reads, or declined.
        #[test]
        fn dumped_records_read_as_any_order_ones(
            sids in proptest::collection::vec("<a_[0-9]{1,4}><b_[0-9]{1,4}>|[<>A-Ba-d_0-9 é-]{0,12}", 0..5),
            target in proptest::option::of("<a_[0-9]{1,3}><b_[0-9]{1,3}>|[a-z ]{0,4}"),
            item in proptest::option::of(proptest::prop_oneof![
                proptest::strategy::Just("null".to_string()),
                "[1-9][0-9]{0,5}",
                "\"[a-z0-9 ]{0,5}\"",
            ]),
            damage in proptest::option::of((0usize..300, proptest::num::u8::ANY)),
        ) {
            let quoted = |s: &String| format!("\"{s}\"");
            let beams: Vec<String> = sids.iter().map(quoted).collect();
            let mut text = format!(
                "{{\"beam_sids\": [{}], \"target\": {}",
                beams.join(", "),
                target.as_ref().map_or("null".to_string(), quoted)
            );
            if let Some(item) = &item {
                text.push_str(&format!(", \"target_item\": {item}"));
            }
            text.push('}');
            let mut dumped = BeamRecord::default();
            prop_assert!(super::fast_path::parse_dumped_record(&text, &mut dumped), "{}", text);
            let mut any_order = BeamRecord::default();
            prop_assert!(super::fast_path::parse_any_order(&text, &mut any_order));
            prop_assert_eq!(dump(&dumped), dump(&any_order));
            prop_assert_eq!(dumped.scheme(), any_order.scheme());
            let conflict = |r: &BeamRecord| r.scheme_conflict.map(|(s, t)| (s, r.span_text(t).to_string()));
            prop_assert_eq!(conflict(&dumped), conflict(&any_order));
            prop_assert!(fast_equals_serde(&text)?);
            if let Some((at, byte)) = damage {
                fast_equals_serde(&crate::load::with_byte_changed(&text, at, byte))?;
            }
        }
    }

    proptest::proptest! {
        /// A record reads the same after any other with the same buffers as on its own:
        /// the scheme the record before was in (tried first) changes nothing, on the fast
        /// path or serde's (an escaped `<`), with SIDs of several schemes in one record.
        #[test]
        fn a_record_reads_the_same_after_any_other(
            records in proptest::collection::vec((
                proptest::collection::vec(proptest::prop_oneof![
                    "<a_[0-9]{1,3}><b_[0-9]{1,3}>",
                    "<s_a_[0-9]{1,3}><s_b_[0-9]{1,3}>",
                    "<\\|sid_begin\\|><s_a_[0-9]{1,3}><s_b_[0-9]{1,6}>(<\\|sid_end\\|>)?",
                    "<\\|sid_[0-9]{1,3}\\|><\\|sid_[0-9]{1,3}\\|>",
                    "<A_[0-9]{1,3}><B_[0-9]{1,3}>",
                    "[0-9]{1,3}[-, ][0-9]{1,3}",
                    "[0-9]{1,3}",
                    "[<>a-d_0-9 |-]{0,10}",
                ], 0..5),
                proptest::bool::ANY,
            ), 1..6),
        ) {
            let mut reused = BeamRecord::default();
            for (k, (sids, escaped)) in records.iter().enumerate() {
                let quoted: Vec<String> = sids.iter().map(|s| format!("\"{s}\"")).collect();
                let mut text = format!(
                    "{{\"beam_sids\": [{}], \"target\": {}}}",
                    quoted.join(", "),
                    quoted.first().map_or("null", String::as_str)
                );
                if *escaped {
                    text = text.replacen('<', "\\u003c", 1);
                }
                let mut fresh = BeamRecord::default();
                let alone = json_lines::parse_line(text.as_bytes(), &mut fresh, k, k + 1);
                let after = json_lines::parse_line(text.as_bytes(), &mut reused, k, k + 1);
                prop_assert_eq!(&alone, &after, "{}", text);
                if alone.is_ok() {
                    prop_assert_eq!(dump(&fresh), dump(&reused), "{}", text);
                    prop_assert_eq!(fresh.scheme(), reused.scheme(), "{}", text);
                    let conflict = |r: &BeamRecord| r.scheme_conflict.map(|(s, t)| (s, r.span_text(t).to_string()));
                    prop_assert_eq!(conflict(&fresh), conflict(&reused), "{}", text);
                }
            }
        }
    }

    #[test]
    fn unreadable_sids_compare_as_text() {
        let mut rec = BeamRecord::default();
        let a = rec.read_sid(" <a_1> <b_x>");
        let b = rec.read_sid("<a_1><b_x> ");
        let c = rec.read_sid("<a_1><b_y>");
        assert!(rec.same_sid(a, b));
        assert!(!rec.same_sid(a, c));
        assert!(matches!(a, BeamSid::Unreadable(s) if rec.span_text(s) == "<a_1><b_x>"));
    }

    fn error_of(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
        let p = write(dir, name, text);
        collect(&p).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_file_record_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let e = error_of(
            &dir,
            "a.jsonl",
            "{\"beam_sids\": [], \"target\": \"<a_1>\"}\n\n{\"beam_sids\": [3], \"target\": \"<a_1>\"}\n",
        );
        assert!(
            e.contains(
                "a.jsonl: record 1 (line 3): beam_sids[0] is a number, expected a SID string"
            ),
            "{e}"
        );
        let e = error_of(&dir, "b.jsonl", "{\"beam_sids\": []}\n");
        assert!(e.contains("record 0 (line 1): has no target"), "{e}");
        let e = error_of(&dir, "b.json", "{\"beam_sids\": []}\n");
        assert!(
            e.contains("b.json: holds one JSON object, not a list"),
            "{e}"
        );
        let e = error_of(
            &dir,
            "c.json",
            "[{\"beam_sids\": [], \"target\": \"<a_1>\"},\n {\"beam_sids\": []}]",
        );
        assert!(
            e.contains("c.json: record 1 (line 2): has no target"),
            "{e}"
        );
        let e = error_of(
            &dir,
            "d.json",
            "[{\"beam_sids\": [], \"target\": \"<a_1>\"},\n {\"beam_sids\": [\"<a_1>\"",
        );
        assert!(
            e.contains("d.json: record 1 (line 2): unexpected end of file"),
            "{e}"
        );
        let e = error_of(
            &dir,
            "e.jsonl",
            "{\"beam_sids\": [\n\"<a_1>\"], \"target\": \"<a_1>\"}\n",
        );
        assert!(
            e.contains("record 0 (line 1)") && e.contains("must fit on one line"),
            "{e}"
        );
        let e = error_of(
            &dir,
            "f.jsonl",
            "{\"beam_sids\": [\"<a_1>\"], \"scores\": [1, 2], \"target\": \"<a_1>\"}",
        );
        assert!(e.contains("has 2 scores for 1 beam SIDs"), "{e}");
        let e = error_of(&dir, "g.jsonl", "{\"ranked_items\": [1]}");
        assert!(e.contains("no \"target_item\""), "{e}");
        let e = error_of(
            &dir,
            "h.jsonl",
            "{\"beam_sids\": [], \"beam_sids\": [], \"target\": \"<a_1>\"}",
        );
        assert!(e.contains("\"beam_sids\" appears twice"), "{e}");
        let e = error_of(&dir, "i.json", "[]");
        assert!(e.contains("holds no records"), "{e}");
        let e = error_of(&dir, "j.json", "  \n");
        assert!(e.contains("the file is empty"), "{e}");
        let e = error_of(&dir, "k.json", "\u{feff}[]");
        assert!(e.contains("byte-order mark"), "{e}");
        let e = error_of(&dir, "l.json", "\"x\"");
        assert!(e.contains("expected a JSON array"), "{e}");
        let e = error_of(
            &dir,
            "m.jsonl",
            "{\"beam_sids\": [], \"target\": \"<a_1>\"}\n{\"beam_sids\": [], \"target\": 5}",
        );
        assert!(e.contains("record 1 (line 2): target is a number"), "{e}");
        let e = error_of(&dir, "n.jsonl", "{\"beam_sids\": [], \"target_item\": 1.5}");
        assert!(e.contains("target_item is a fractional number"), "{e}");
        let e = error_of(
            &dir,
            "o.jsonl",
            "{\"beam_sids\": [], \"ranked_items\": [], \"target_item\": 1}",
        );
        assert!(e.contains("has both"), "{e}");
        assert!(
            collect(dir.path())
                .unwrap_err()
                .to_string()
                .contains("is a directory")
        );
        let missing = dir.path().join("missing.json");
        assert!(
            collect(&missing)
                .unwrap_err()
                .to_string()
                .contains("missing.json")
        );
    }

    #[test]
    fn errors_in_later_blocks_stop_the_pipeline() {
        let dir = tempfile::tempdir().unwrap();
        let pad = "y".repeat(4000);
        let mut text = String::new();
        for i in 0..5000 {
            if i == 3000 {
                text.push_str("{\"beam_sids\": [1]}\n");
            } else {
                text.push_str(&format!(
                    "{{\"beam_sids\": [], \"target_item\": {i}, \"pad\": \"{pad}\"}}\n"
                ));
            }
        }
        let p = write(&dir, "bad.jsonl", &text);
        let mut seen = 0;
        let e = map_records(
            &p,
            &NoProgress,
            |r| r.record(),
            |_| {
                seen += 1;
                Ok(())
            },
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("record 3000 (line 3001): beam_sids[0] is a number"),
            "{e}"
        );
        assert!(seen <= 3000);
        let e = map_records(
            &p,
            &NoProgress,
            |r| r.record(),
            |record| {
                if record == 1234 {
                    Err(Error::Invalid("stop here".into()))
                } else {
                    Ok(())
                }
            },
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "stop here");
        struct Stop;
        impl Progress for Stop {
            fn stage(&self, _: &str, _: u64) {}
            fn advance(&self, _: u64) {}
            fn cancelled(&self) -> bool {
                true
            }
        }
        let e = map_records(&p, &Stop, |r| r.record(), |_| Ok(())).unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{e}");
    }

    /// The parallel array pipeline against the serial reader, on a file of several blocks,
    /// whole and damaged: the same records, or the same error.
    #[test]
    fn parallel_array_reading_matches_the_serial_reader() {
        let dir = tempfile::tempdir().unwrap();
        let pad = "p".repeat(3000);
        let records: Vec<String> = (0..3200)
            .map(|i| {
                let extra = match i % 500 {
                    7 => r#", "x": {"s": "}, {"}"#.to_string(),
                    8 => r#", "x": "} ]"#.to_string(),
                    _ => String::new(),
                };
                format!(
                    "{{\"beam_sids\": [\"<a_{}><b_1>\", \"{pad}\"], \"target_item\": {i}{extra}}}",
                    i % 300
                )
            })
            .collect();
        let plain = format!("[{}]", records.join(", "));
        let pretty = format!("[\n  {}\n]\n", records.join(",\n  "));
        assert!(plain.len() > 2 * BLOCK_BYTES);
        let serial = |p: &Path| -> Result<Vec<String>> {
            let mut out = Vec::new();
            for_each_record(p, &NoProgress, |r| {
                out.push(format!("{}@{} {}", r.record(), r.line(), dump(r)));
                Ok(())
            })?;
            Ok(out)
        };
        let parallel = |p: &Path| -> Result<Vec<String>> {
            let mut out = Vec::new();
            map_records(
                p,
                &NoProgress,
                |r| format!("{}@{} {}", r.record(), r.line(), dump(r)),
                |s| {
                    out.push(s);
                    Ok(())
                },
            )?;
            Ok(out)
        };
        let mut cases = vec![plain.clone(), pretty.clone(), format!("{plain} x")];
        for text in [&plain, &pretty] {
            let n = text.len();
            cases.push(text[..n / 2].to_string());
            cases.push(format!("{}, ]", &text[..text.rfind(']').unwrap()]));
            for at in [3, BLOCK_BYTES - 1, BLOCK_BYTES + 17, n / 2, n - 40] {
                let mut bytes = text.clone().into_bytes();
                bytes[at] = b'x';
                cases.push(String::from_utf8(bytes.clone()).unwrap());
                bytes[at] = b'\n';
                cases.push(String::from_utf8(bytes).unwrap());
            }
        }
        for (k, text) in cases.iter().enumerate() {
            let p = write(&dir, &format!("{k}.json"), text);
            let (a, b) = (serial(&p), parallel(&p));
            match (&a, &b) {
                (Ok(x), Ok(y)) => assert!(x == y, "case {k}: records differ"),
                _ => assert_eq!(
                    a.map(|v| v.len()).map_err(|e| e.to_string()),
                    b.map(|v| v.len()).map_err(|e| e.to_string()),
                    "case {k}"
                ),
            }
        }
    }

    /// Parquet in many row groups: the next group is decoded while this one is parsed, and
    /// still every record arrives in file order, and a failure to consume one record stops
    /// the reading with that failure.
    #[test]
    fn parquet_row_groups_overlap_in_file_order() {
        use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
        use std::sync::Arc;
        let dir = tempfile::tempdir().unwrap();
        let n = 1000;
        let mut beams = ListBuilder::new(StringBuilder::new());
        let mut items = Int64Builder::new();
        for i in 0..n {
            beams
                .values()
                .append_value(format!("<a_{}><b_{}>", i % 97, i % 13));
            beams.values().append_value(format!("<a_{}><b_1>", i % 5));
            beams.append(true);
            items.append_value(i as i64);
        }
        let batch = arrow_array::RecordBatch::try_from_iter([
            (
                "beam_sids",
                Arc::new(beams.finish()) as arrow_array::ArrayRef,
            ),
            (
                "target_item",
                Arc::new(items.finish()) as arrow_array::ArrayRef,
            ),
        ])
        .unwrap();
        let path = dir.path().join("beams.parquet");
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_size(64)
            .build();
        let file = std::fs::File::create(&path).unwrap();
        let mut w =
            parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();

        let mut serial = Vec::new();
        for_each_record(&path, &NoProgress, |r| {
            serial.push(dump(r));
            Ok(())
        })
        .unwrap();
        let mut parallel = Vec::new();
        let rows = map_records(&path, &NoProgress, dump, |d| {
            parallel.push(d);
            Ok(())
        })
        .unwrap();
        assert_eq!((rows, serial.len()), (n, n));
        assert!(serial == parallel, "records differ or come out of order");

        let mut consumed = 0;
        let stopped = map_records(&path, &NoProgress, dump, |_| {
            consumed += 1;
            if consumed == 500 {
                return Err(Error::Invalid("stop at 500".into()));
            }
            Ok(())
        });
        assert_eq!(stopped.unwrap_err().to_string(), "stop at 500");
        assert_eq!(consumed, 500);
    }

    /// `records` (each a list of SIDs and a target) as JSON Lines and as Parquet with pages
    /// of a few strings, so SIDs sit at page ends, where fewer than 32 bytes follow them.
    fn lines_and_parquet(
        dir: &tempfile::TempDir,
        records: &[(Vec<String>, String)],
        dictionary: bool,
    ) -> (std::path::PathBuf, std::path::PathBuf) {
        use arrow_array::builder::{ListBuilder, StringBuilder};
        use std::sync::Arc;
        let text: String = records
            .iter()
            .map(|(beams, target)| {
                serde_json::json!({"beam_sids": beams, "target": target}).to_string() + "\n"
            })
            .collect();
        let lines = write(dir, "b.jsonl", &text);
        let mut beams = ListBuilder::new(StringBuilder::new());
        let mut targets = StringBuilder::new();
        for (sids, target) in records {
            for sid in sids {
                beams.values().append_value(sid);
            }
            beams.append(true);
            targets.append_value(target);
        }
        let batch = arrow_array::RecordBatch::try_from_iter([
            (
                "beam_sids",
                Arc::new(beams.finish()) as arrow_array::ArrayRef,
            ),
            (
                "target",
                Arc::new(targets.finish()) as arrow_array::ArrayRef,
            ),
        ])
        .unwrap();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_dictionary_enabled(dictionary)
            .set_data_page_size_limit(64)
            .set_write_batch_size(3)
            .set_max_row_group_size(7)
            .build();
        let table = dir.path().join("b.parquet");
        let file = std::fs::File::create(&table).unwrap();
        let mut w =
            parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        (lines, table)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A Parquet table's SIDs, read as views where they lie in their pages (inline in
        /// the view when 12 bytes or shorter), give the records its JSON Lines twin gives.
        #[test]
        fn parquet_sids_read_as_their_json_lines(
            records in prop::collection::vec(
                (
                    prop::collection::vec(
                        "(<[a-e]_[0-9]{1,5}>){1,8}|<a_[0-9]{1,4}> <b_[0-9]{1,3}>|[a-z<>_0-9 ]{0,14}",
                        0..6,
                    ),
                    "(<[a-d]_[0-9]{1,4}>){1,4}",
                ),
                1..12,
            ),
            dictionary in any::<bool>(),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let (lines, table) = lines_and_parquet(&dir, &records, dictionary);
            match (dumps(&lines), dumps(&table)) {
                (Ok(expected), Ok(read)) => prop_assert_eq!(expected, read),
                // Junk that reads as another token scheme: both refuse the file (a line and
                // a row are named differently). About one case in nine.
                (Err(_), Err(_)) => {}
                (e, r) => prop_assert!(false, "JSON Lines {e:?}, Parquet {r:?}"),
            }
        }
    }

    /// Every record's [`dump`], in file order, through the parallel reader.
    fn dumps(path: &Path) -> Result<Vec<String>> {
        let mut out = Vec::new();
        map_records(path, &NoProgress, dump, |d| {
            out.push(d);
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn records_are_warmed_one_ahead_of_their_map() {
        let events = std::sync::Mutex::new(Vec::new());
        // What `warm` notes for a record is what `map` is given with it.
        let warm = |r: &BeamRecord, noted: &mut usize| {
            events.lock().unwrap().push(format!("warm {}", r.record()));
            *noted = 10 * r.record();
        };
        let map = |r: &BeamRecord, noted: &usize| {
            events.lock().unwrap().push(format!("map {}", r.record()));
            assert_eq!(*noted, 10 * r.record());
            r.record()
        };
        let stages = Stages {
            warm: &warm,
            map: &map,
        };
        let read = |k: usize, rec: &mut BeamRecord| {
            rec.clear(k, k + 1);
            if k == 3 { Err("bad") } else { Ok(()) }
        };
        let mut out = Vec::new();
        assert_eq!(stages.map_ahead(6, read, &mut out), Err((3, "bad")));
        assert_eq!(out, [0, 1, 2]);
        let want = ["warm 0", "warm 1", "map 0", "warm 2", "map 1", "map 2"];
        assert_eq!(*events.lock().unwrap(), want);
        out.clear();
        events.lock().unwrap().clear();
        assert_eq!(stages.map_ahead(3, |k, rec| read(k, rec), &mut out), Ok(()));
        assert_eq!(out, [0, 1, 2]);
        assert_eq!(stages.map_ahead(0, read, &mut out), Ok(()));
        assert_eq!(out, [0, 1, 2]);
    }

    #[test]
    fn parallel_map_keeps_file_order_across_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let n = 3000;
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!(
                "{{\"beam_sids\": [\"<a_{}><b_1>\"], \"target_item\": {i}, \"pad\": \"{}\"}}\n",
                i % 60000,
                "x".repeat(i % 7 * 1000)
            ));
        }
        let p = write(&dir, "big.jsonl", &text);
        let mut seen = Vec::new();
        let count = map_records(
            &p,
            &NoProgress,
            |r| (r.record(), r.line(), r.target_item().unwrap().to_string()),
            |v| {
                seen.push(v);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(count, n);
        for (i, (record, line, item)) in seen.into_iter().enumerate() {
            assert_eq!((record, line, item), (i, i + 1, i.to_string()));
        }
    }
}
