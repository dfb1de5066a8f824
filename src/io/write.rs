//! Writing output files safely: never over an input, never renaming over a device or FIFO,
//! and atomically otherwise (a `tempfile` in the target's folder, persisted by rename), so an
//! interrupted or failed run leaves either the old files or the complete new ones. Several
//! files written together ([`Outputs`]) appear all at once or not at all.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{Error, Result};

/// Refuses `out` when it names the same file as any of `inputs`.
pub fn ensure_not_input(out: &Path, inputs: &[&Path]) -> Result<()> {
    let out_canon = canonical_or_self(out);
    for input in inputs {
        if canonical_or_self(input) == out_canon {
            return Err(Error::Invalid(format!(
                "refusing to write {}: it is an input file (choose another --out)",
                out.display()
            )));
        }
    }
    Ok(())
}

fn canonical_or_self(path: &Path) -> PathBuf {
    if let Ok(p) = fs::canonicalize(path) {
        return p;
    }
    // A file that does not exist yet: canonicalise its directory instead.
    match path.file_name() {
        Some(name) => fs::canonicalize(folder_of(path))
            .map(|d| d.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        None => path.to_path_buf(),
    }
}

/// The folder a path's file lives in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Temporary files not yet persisted, so a signal handler can remove them
/// ([`remove_unfinished`]): `tempfile`'s `Drop` does not run when a signal ends the process.
static UNFINISHED: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn unfinished() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    UNFINISHED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes every temporary file an unfinished write left, and keeps any later write from
/// starting or persisting; for a signal handler that is about to end the process. A write
/// persisting its files when the signal arrives finishes first, so the outputs stay whole.
pub fn remove_unfinished() {
    let mut pending = unfinished();
    for path in pending.iter() {
        let _ = fs::remove_file(path);
    }
    pending.clear();
    // Held until the process exits: no write starts or persists after this point.
    std::mem::forget(pending);
}

/// Where one output's bytes go.
enum Sink {
    /// A temporary file beside the target, renamed over it on commit.
    Staged {
        temp: tempfile::NamedTempFile,
        /// The file the rename replaces (a symlink's target, so the link stays a link).
        target: PathBuf,
    },
    /// A character device or FIFO, written in place: renaming over it would replace it.
    Through,
}

/// Output files written together: each is staged in a temporary file beside its target, and
/// [`Outputs::commit`] renames them all into place while holding a lock on their folders, so
/// two runs writing the same targets at once leave a consistent set, whoever wins. Dropped
/// without a commit (an error, a panic), it removes its temporary files.
#[derive(Default)]
pub struct Outputs {
    staged: Vec<(PathBuf, Sink)>,
}

impl Outputs {
    /// An empty set of outputs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes one output: `write` fills its temporary file (or the device or FIFO itself).
    /// Nothing is visible at `path` until [`Outputs::commit`], except for a device or FIFO.
    pub fn add(
        &mut self,
        path: &Path,
        write: impl FnOnce(&mut (dyn Write + Send)) -> std::io::Result<()>,
    ) -> Result<()> {
        let sink = prepare(path)?;
        let result = match &sink {
            Sink::Staged { temp, .. } => fill(temp.as_file(), write),
            Sink::Through => fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|file| fill(&file, write)),
        };
        let written = result.map_err(|e| Error::io(path, e));
        self.staged.push((path.to_path_buf(), sink));
        written
    }

    /// Renames every staged file into place. A failure part-way restores nothing that was
    /// already renamed, but the set is checked first (folders exist, no directory in the way)
    /// so that what can fail, fails before any rename.
    pub fn commit(mut self) -> Result<()> {
        for (path, sink) in &self.staged {
            if let Sink::Staged { target, .. } = sink
                && target.is_dir()
            {
                return Err(Error::io(
                    path,
                    std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"),
                ));
            }
        }
        let folders: BTreeSet<PathBuf> = self
            .staged
            .iter()
            .filter_map(|(_, sink)| match sink {
                Sink::Staged { target, .. } => Some(folder_of(target)),
                Sink::Through => None,
            })
            .collect();
        let _locks = FolderLock::acquire_all(&folders)?;
        // Holding the registry keeps a signal's cleanup waiting until every rename is done.
        let mut pending = unfinished();
        let staged = std::mem::take(&mut self.staged);
        for (_, sink) in &staged {
            if let Sink::Staged { temp, .. } = sink {
                pending.remove(temp.path());
            }
        }
        for (path, sink) in staged {
            let Sink::Staged { temp, target } = sink else {
                continue;
            };
            if let Err(e) = temp.persist(&target) {
                // The temporary file is removed when the returned handle drops.
                return Err(Error::io(&path, e.error));
            }
        }
        Ok(())
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        let mut pending = unfinished();
        for (_, sink) in &self.staged {
            if let Sink::Staged { temp, .. } = sink {
                pending.remove(temp.path());
            }
        }
    }
}

/// Decides how `path` is written: staged beside its (resolved) target, or in place for a
/// character device or FIFO; refuses directories, block devices and sockets.
fn prepare(path: &Path) -> Result<Sink> {
    let invalid = |what: &str| {
        Error::Invalid(format!(
            "cannot write {}: it is {what}, not a file",
            path.display()
        ))
    };
    let target = match fs::metadata(path) {
        Ok(meta) => {
            use std::os::unix::fs::FileTypeExt;
            let kind = meta.file_type();
            if kind.is_char_device() || kind.is_fifo() {
                return Ok(Sink::Through);
            }
            if kind.is_dir() {
                return Err(invalid("a directory"));
            }
            if kind.is_block_device() {
                return Err(invalid("a block device"));
            }
            if kind.is_socket() {
                return Err(invalid("a socket"));
            }
            fs::canonicalize(path).map_err(|e| Error::io(path, e))?
        }
        Err(_) => path.to_path_buf(),
    };
    let dir = folder_of(&target);
    if !dir.is_dir() {
        return Err(Error::Invalid(format!(
            "cannot write {}: directory {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    if target.file_name().is_none() {
        return Err(Error::Invalid(format!(
            "{} is not a file name",
            path.display()
        )));
    }
    let mut pending = unfinished();
    let temp = tempfile::Builder::new()
        .prefix(".sidlens-")
        .suffix(".tmp")
        .permissions(new_file_permissions())
        .tempfile_in(&dir)
        .map_err(|e| Error::io(path, e))?;
    pending.insert(temp.path().to_path_buf());
    if let Ok(meta) = fs::metadata(&target) {
        temp.as_file()
            .set_permissions(meta.permissions())
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(Sink::Staged { temp, target })
}

/// `rw-rw-rw-` less the umask, what `File::create` gives (`tempfile` alone would make the
/// file private); a replaced file keeps its own mode instead.
fn new_file_permissions() -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    fs::Permissions::from_mode(0o666)
}

fn fill(
    file: &fs::File,
    write: impl FnOnce(&mut (dyn Write + Send)) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    out.flush()?;
    drop(out);
    match file.sync_all() {
        // Devices and FIFOs cannot be synced; what matters is that the bytes were written.
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Ok(()),
        other => other,
    }
}

/// An exclusive `flock` on a folder, held while a set of outputs is renamed into it.
struct FolderLock {
    _held: fs::File,
}

impl FolderLock {
    /// Locks each folder once, in path order. Folders are told apart by device and inode, not
    /// by path: a replaced file's folder is its canonical path and a new file's folder is the
    /// path as given, so one folder can come spelt twice, and a second `flock` on it through
    /// another descriptor would wait for the first forever.
    fn acquire_all(folders: &BTreeSet<PathBuf>) -> Result<Vec<Self>> {
        use std::os::unix::fs::MetadataExt;
        let mut locked = BTreeSet::new();
        let mut locks = Vec::with_capacity(folders.len());
        for dir in folders {
            let file = fs::File::open(dir).map_err(|e| Error::io(dir, e))?;
            let meta = file.metadata().map_err(|e| Error::io(dir, e))?;
            if !locked.insert((meta.dev(), meta.ino())) {
                continue;
            }
            // std's exclusive lock is `flock(LOCK_EX)` on Linux and the BSDs.
            file.lock().map_err(|e| Error::io(dir, e))?;
            locks.push(FolderLock { _held: file });
        }
        Ok(locks)
    }
}

/// Writes one file atomically (see [`Outputs`]); on any error `path` is untouched and no
/// temporary file remains.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut (dyn Write + Send)) -> std::io::Result<()>,
) -> Result<()> {
    let mut outputs = Outputs::new();
    outputs.add(path, write)?;
    outputs.commit()
}

/// Writes an array as a NumPy `.npy` file atomically (what `codebooks.npy` and embeddings are).
pub fn write_npy<A, D>(path: &Path, array: &ndarray::Array<A, D>) -> Result<()>
where
    A: ndarray_npy::WritableElement,
    D: ndarray::Dimension,
{
    write_atomically(path, |w| npy(array, w))
}

/// Writes an array in NumPy `.npy` format to `out` (one entry of an [`Outputs`] set).
pub fn npy<A, D>(array: &ndarray::Array<A, D>, out: &mut dyn Write) -> std::io::Result<()>
where
    A: ndarray_npy::WritableElement,
    D: ndarray::Dimension,
{
    use ndarray_npy::WriteNpyExt;
    array.write_npy(out).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.json");
        fs::write(&input, "{}").unwrap();
        let same = dir.path().join(".").join("in.json");
        assert!(ensure_not_input(&same, &[&input]).is_err());
        assert!(ensure_not_input(&dir.path().join("out.json"), &[&input]).is_ok());
    }

    #[test]
    fn failed_write_leaves_no_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.json");
        let err = write_atomically(&out, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("boom"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        // Other tests write in parallel, so only this directory's entries are ours.
        assert!(!unfinished().iter().any(|p| p.starts_with(dir.path())));
        write_atomically(&out, |w| w.write_all(b"ok")).unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "ok");
    }

    #[test]
    fn one_folder_spelt_two_ways_is_locked_once() {
        // A replaced file's folder is canonical (here through the link, `real`), a new file's
        // is as given (`link`): locking both would wait forever, so the commit runs on a
        // thread and the test fails rather than hangs.
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        fs::write(real.join("old.json"), "old").unwrap();
        let (new_file, old_file) = (link.join("new.json"), link.join("old.json"));
        let (done, finished) = std::sync::mpsc::channel();
        let (new_path, old_path) = (new_file.clone(), old_file.clone());
        std::thread::spawn(move || {
            let mut outputs = Outputs::new();
            let staged = outputs
                .add(&new_path, |w| w.write_all(b"new"))
                .and_then(|()| outputs.add(&old_path, |w| w.write_all(b"replaced")));
            let _ = done.send(staged.and_then(|()| outputs.commit()).is_ok());
        });
        let committed = finished.recv_timeout(std::time::Duration::from_secs(20));
        assert_eq!(committed, Ok(true), "the commit finished");
        assert_eq!(fs::read_to_string(&new_file).unwrap(), "new");
        assert_eq!(fs::read_to_string(&old_file).unwrap(), "replaced");
    }

    #[test]
    fn a_set_of_outputs_appears_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        fs::write(&a, "old a").unwrap();
        fs::create_dir(&b).unwrap();
        let mut outputs = Outputs::new();
        outputs.add(&a, |w| w.write_all(b"new a")).unwrap();
        assert!(outputs.add(&b, |w| w.write_all(b"new b")).is_err());
        drop(outputs);
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn long_names_and_symlinks_are_written_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join("x".repeat(255));
        write_atomically(&long, |w| w.write_all(b"long")).unwrap();
        assert_eq!(fs::read_to_string(&long).unwrap(), "long");
        let real = dir.path().join("real.json");
        let link = dir.path().join("link.json");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, |w| w.write_all(b"new")).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn a_fifo_is_written_through_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        crate::io::input::make_fifo(&fifo);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
        };
        write_atomically(&fifo, |w| w.write_all(b"through")).unwrap();
        assert_eq!(reader.join().unwrap(), "through");
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
