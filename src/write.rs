//! Writing output files safely: never over an input, always atomically (temp file + rename),
//! so an interrupted run leaves either the old file or the complete new one.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

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
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            fs::canonicalize(dir)
                .map(|d| d.join(name))
                .unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Writes a file atomically: `write` fills a temporary file in the same directory, which is
/// then renamed over `path`. On any error the temporary file is removed and `path` is untouched.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(Error::Invalid(format!(
            "cannot write {}: directory {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    let name = path
        .file_name()
        .ok_or_else(|| Error::Invalid(format!("{} is not a file name", path.display())))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> std::io::Result<()> {
        let file = fs::File::create(&tmp)?;
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        out.flush()?;
        out.get_ref().sync_all()?;
        Ok(())
    })();
    match result.and_then(|()| fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(Error::io(path, e))
        }
    }
}

/// Writes an array as a NumPy `.npy` file atomically (what `codebooks.npy` and embeddings are).
pub fn write_npy<A, D>(path: &Path, array: &ndarray::Array<A, D>) -> Result<()>
where
    A: ndarray_npy::WritableElement,
    D: ndarray::Dimension,
{
    use ndarray_npy::WriteNpyExt;
    write_atomically(path, |w| array.write_npy(w).map_err(std::io::Error::other))
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
        write_atomically(&out, |w| w.write_all(b"ok")).unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "ok");
    }
}
