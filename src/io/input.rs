//! Opening inputs by one rule for every loader: a regular file is read as is; a pipe, FIFO or
//! `-` (standard input) is streamed from its start without seeking; a directory, a device
//! (`/dev/zero` never ends) or a socket is refused with a message naming it.
//!
//! The crate's calls into the operating system that Rust cannot check live here: mapping a
//! file (`memmap2`), and making a FIFO for the tests.
#![allow(unsafe_code)] // mmap of inputs, and mkfifo for the tests' pipes.

use std::fs::File;
use std::io::{Read, Stdin};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Place, Result};

/// The bytes behind an input path.
#[derive(Debug)]
enum Source {
    File(File),
    Stdin(Stdin),
}

/// An open input: a regular file or a stream. Bytes looked at with [`Input::peek`] are read
/// again from the start, so a format can be detected on a pipe.
#[derive(Debug)]
pub struct Input {
    source: Source,
    /// The length of a regular file when it was opened; `None` for a stream.
    len: Option<u64>,
    head: Vec<u8>,
    head_pos: usize,
}

impl Input {
    /// Opens `path` (`-` is standard input), refusing what cannot be read to an end.
    pub fn open(path: &Path) -> Result<Self> {
        if path.as_os_str() == "-" {
            return Ok(Self::stream(Source::Stdin(std::io::stdin())));
        }
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        let kind = meta.file_type();
        if kind.is_dir() {
            return Err(Error::data(path, Place::File, "is a directory, not a file"));
        }
        let file = || File::open(path).map_err(|e| Error::io(path, e));
        if kind.is_file() {
            return Ok(Input {
                source: Source::File(file()?),
                len: Some(meta.len()),
                head: Vec::new(),
                head_pos: 0,
            });
        }
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Ok(Self::stream(Source::File(file()?)));
        }
        let what = if kind.is_char_device() {
            "a character device (a terminal, or a device such as /dev/zero that never ends)"
        } else if kind.is_block_device() {
            "a block device"
        } else {
            "a socket"
        };
        Err(Error::data(
            path,
            Place::File,
            format!("is {what}, not a file; give a regular file, a pipe, or - for standard input"),
        ))
    }

    /// The file at `path` read as a stream (once, from its start), for a reader that must
    /// not take its two-pass path.
    pub fn stream_of(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(Self::stream(Source::File(file)))
    }

    fn stream(source: Source) -> Self {
        Input {
            source,
            len: None,
            head: Vec::new(),
            head_pos: 0,
        }
    }

    /// The file's length when it is a regular file, for progress and buffer sizes; 0 for a
    /// stream (whose length is unknown).
    pub fn size_hint(&self) -> u64 {
        self.len.unwrap_or(0)
    }

    /// Whether the input is a regular file (whose length is known before reading).
    pub fn is_regular(&self) -> bool {
        self.len.is_some()
    }

    /// The first bytes of the input, read until one is not ASCII whitespace or the input
    /// ends; later reads still start at the first byte.
    pub fn peek(&mut self, path: &Path) -> Result<&[u8]> {
        loop {
            if self.head.iter().any(|b| !b.is_ascii_whitespace()) {
                break;
            }
            let mut chunk = [0u8; 1024];
            let n = self
                .read_source(&mut chunk)
                .map_err(|e| Error::io(path, e))?;
            if n == 0 {
                break;
            }
            self.head.extend_from_slice(&chunk[..n]);
        }
        Ok(&self.head)
    }

    fn read_source(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match &mut self.source {
            Source::File(f) => f.read(buf),
            Source::Stdin(s) => s.read(buf),
        }
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.head_pos < self.head.len() {
            let n = buf.len().min(self.head.len() - self.head_pos);
            buf[..n].copy_from_slice(&self.head[self.head_pos..self.head_pos + n]);
            self.head_pos += n;
            return Ok(n);
        }
        self.read_source(buf)
    }
}

/// A whole input's bytes: a large regular file mapped read-only, anything else read into
/// memory.
#[derive(Debug)]
pub struct InputBytes(Held);

#[derive(Debug)]
enum Held {
    Read(Vec<u8>),
    Mapped(memmap2::Mmap),
}

impl std::ops::Deref for InputBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Held::Read(bytes) => bytes,
            Held::Mapped(map) => map,
        }
    }
}

/// Reads a whole input (see [`Input::open`]), with messages for the usual mistakes (a
/// directory, a missing file, a device, an empty file).
pub fn read_input(path: &Path) -> Result<InputBytes> {
    let mut input = Input::open(path)?;
    let held = match (&input.source, input.len) {
        (Source::File(file), Some(len)) if maps(len) => map_file(file).map(Held::Mapped),
        (Source::File(file), Some(len)) if len >= PARALLEL_READ_BYTES => {
            read_file_in_parallel(file, len).map(Held::Read)
        }
        _ => {
            let mut bytes = Vec::with_capacity(input.size_hint().min(1 << 30) as usize);
            input.read_to_end(&mut bytes).map(|_| Held::Read(bytes))
        }
    }
    .map_err(|e| Error::io(path, e))?;
    let bytes = InputBytes(held);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::data(path, Place::File, "the file is empty"));
    }
    Ok(bytes)
}

/// Regular files from this size on are read by every core at once: copying from the page
/// cache and faulting in the buffer's pages are most of a large index's read time.
const PARALLEL_READ_BYTES: u64 = 8 << 20;

/// Reads a regular file of `len` bytes (when opened) in parallel 4 MiB pieces, then whatever
/// it grew by since; a file that shrank meanwhile is read again from its start, in one piece.
fn read_file_in_parallel(mut file: &File, len: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::FileExt;
    const PIECE: usize = 4 << 20;
    let mut bytes = vec![0u8; usize::try_from(len).map_err(std::io::Error::other)?];
    let pieces = bytes
        .par_chunks_mut(PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| file.read_exact_at(piece, (i * PIECE) as u64));
    match pieces {
        Ok(()) => {
            file.seek(SeekFrom::Start(len))?;
            file.read_to_end(&mut bytes)?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            bytes.clear();
            file.seek(SeekFrom::Start(0))?;
            file.read_to_end(&mut bytes)?;
        }
        Err(e) => return Err(e),
    }
    Ok(bytes)
}

/// Regular files from this size on are mapped instead of read (when [`map_large_inputs`] is
/// on): copying a 54 MB index from the page cache into fresh memory, and faulting that
/// memory in, cost `stats` a fifth of its time at 1M items.
pub const MAPPED_BYTES: u64 = 8 << 20;

/// Whether large regular files are mapped; off until a front end turns it on.
static MAP_LARGE_INPUTS: AtomicBool = AtomicBool::new(false);

/// Maps large regular inputs from now on, instead of reading them: a process-wide choice of
/// the front end. A mapped file that another process truncates ends the mapping process
/// with SIGBUS, so a one-shot command maps and the TUI, which keeps its inputs for a
/// session and must restore the terminal whatever happens, reads.
pub fn map_large_inputs(on: bool) {
    MAP_LARGE_INPUTS.store(on, Ordering::Relaxed);
}

/// Whether a regular file of `len` bytes is mapped.
pub fn maps(len: u64) -> bool {
    len >= MAPPED_BYTES && MAP_LARGE_INPUTS.load(Ordering::Relaxed)
}

/// Maps a regular file read-only, as it is now (bytes appended later are not seen).
pub fn map_file(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and sidlens never writes an input. Another process
    // shrinking the file while it is mapped ends this one with SIGBUS (as it would
    // ripgrep's), which is why only one-shot commands map (see `map_large_inputs`).
    unsafe { memmap2::MmapOptions::new().map(file) }
}

/// Makes a FIFO at `path` (for the tests of inputs and outputs that are pipes).
#[cfg(test)]
pub(crate) fn make_fifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().expect("a UTF-8 path")).expect("no NUL");
    // SAFETY: `c` is a NUL-terminated path that lives across the call; mkfifo reads only it.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// Opens a file that must be regular because it is read with seeks (`.npy` arrays).
pub fn open_regular(path: &Path) -> Result<(File, u64)> {
    let input = Input::open(path)?;
    match (input.source, input.len) {
        (Source::File(file), Some(len)) => Ok((file, len)),
        _ => Err(Error::data(
            path,
            Place::File,
            "is a pipe; this input is read with seeks, so give it as a regular file",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_directories_are_refused_by_name() {
        let e = Input::open(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(e.starts_with("/dev/zero: is a character device"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let e = read_input(dir.path()).unwrap_err().to_string();
        assert!(e.ends_with("is a directory, not a file"), "{e}");
    }

    #[test]
    fn large_files_read_in_parallel_equal_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let bytes: Vec<u8> = (0..PARALLEL_READ_BYTES as usize * 2 + 12_345)
            .map(|i| b'a' + (i * 7 % 23) as u8)
            .collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        assert_eq!(
            read_file_in_parallel(&file, bytes.len() as u64).unwrap(),
            bytes
        );
        // Opened when shorter (the file grew) or longer (it shrank): the whole file still.
        assert_eq!(read_file_in_parallel(&file, 10 << 20).unwrap(), bytes);
        assert_eq!(read_file_in_parallel(&file, 30 << 20).unwrap(), bytes);
    }

    #[test]
    fn large_files_are_mapped_and_small_ones_read_with_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        for (name, len) in [
            ("big.json", MAPPED_BYTES as usize * 2 + 12_345),
            ("small.json", 999),
        ] {
            let path = dir.path().join(name);
            let bytes: Vec<u8> = (0..len).map(|i| b'a' + (i * 7 % 23) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            map_large_inputs(true);
            let got = read_input(&path).unwrap();
            assert_eq!(*got, bytes[..]);
            assert_eq!(matches!(got.0, Held::Mapped(_)), len as u64 >= MAPPED_BYTES);
        }
    }

    #[test]
    fn a_fifo_is_streamed_and_its_head_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        make_fifo(&fifo);
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, "  \n[1, 2]").unwrap())
        };
        let mut input = Input::open(&fifo).unwrap();
        assert!(!input.is_regular());
        assert!(input.peek(&fifo).unwrap().contains(&b'['));
        let mut all = String::new();
        input.read_to_string(&mut all).unwrap();
        assert_eq!(all, "  \n[1, 2]");
        writer.join().unwrap();
    }
}
