//! On-disk cache of projections in the user's cache directory (`$XDG_CACHE_HOME/sidlens`, else
//! `~/.cache/sidlens`), never in a data folder. The key hashes the projected rows' values, the
//! params and the algorithm version, so a hit is always the same picture; a SHA-256 of the
//! points and a finiteness check catch a damaged file, which is then recomputed.

use std::fs;
use std::path::{Path, PathBuf};

use ndarray::ArrayView2;
use serde::{Deserialize, Serialize};

use super::{ALGORITHM_VERSION, Element, Method, Projection, ProjectionParams, project};
use crate::Result;
use crate::io::write::write_atomically;
use crate::numeric::random::mix64;
use crate::progress::Progress;

const FORMAT: &str = "sidlens-projection";
/// Projection files kept per cache directory; older ones are removed after each store.
const KEEP_FILES: usize = 32;

/// Where projections are looked up and stored, in order of preference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectionCache {
    dirs: Vec<PathBuf>,
}

/// What the cache did for one request, for the user ("cached", "could not save ...").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from this file; nothing was computed.
    Hit(PathBuf),
    /// Computed and saved to this file.
    Stored(PathBuf),
    /// Computed, but no cache directory could be written (why).
    NotStored(String),
}

/// The first line of a cache file; the points follow as little-endian f64 pairs.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    key: String,
    rows: Vec<usize>,
    total_rows: usize,
    method: Method,
    perplexity: f64,
    notes: Vec<String>,
    /// SHA-256 (hex) of the points' bytes.
    checksum: String,
}

impl ProjectionCache {
    /// The user's cache: `$XDG_CACHE_HOME/sidlens`, else `~/.cache/sidlens` (none when
    /// neither is set to an absolute path).
    pub fn for_user() -> Self {
        ProjectionCache {
            dirs: user_cache_dir().into_iter().collect(),
        }
    }

    /// A cache in exactly these directories (tests, or a user's choice).
    pub fn in_dirs(dirs: Vec<PathBuf>) -> Self {
        ProjectionCache { dirs }
    }

    /// The directories, in order of preference.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Removes every cached projection (`sidlens cache clear`); returns how many files and
    /// bytes went. Other files in the directories are left alone.
    pub fn clear(&self) -> Result<(usize, u64)> {
        let (mut files, mut bytes) = (0, 0);
        for dir in &self.dirs {
            let entries = match fs::read_dir(dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(crate::Error::io(dir, e)),
            };
            for entry in entries.filter_map(|e| e.ok()) {
                if !is_entry_name(&entry.file_name().to_string_lossy()) {
                    continue;
                }
                let size = entry.metadata().map_or(0, |m| m.len());
                fs::remove_file(entry.path()).map_err(|e| crate::Error::io(&entry.path(), e))?;
                files += 1;
                bytes += size;
            }
        }
        Ok((files, bytes))
    }

    /// The cached projection of these inputs, or a fresh one (saved for next time). A cache
    /// that cannot be read or written never fails the projection; the outcome says why.
    pub fn load_or_compute<T: Element>(
        &self,
        embeddings: ArrayView2<'_, T>,
        rows: &[usize],
        params: &ProjectionParams,
        progress: &dyn Progress,
    ) -> Result<(Projection, CacheOutcome)> {
        params.validate()?;
        let key = cache_key(embeddings, rows, params);
        if let Some((projection, path)) = self.load(&key, rows) {
            return Ok((projection, CacheOutcome::Hit(path)));
        }
        let projection = project(embeddings, rows, params, progress)?;
        let outcome = self.store(&key, &projection);
        Ok((projection, outcome))
    }

    fn file_name(key: &str) -> String {
        format!("tsne-{key}.bin")
    }

    fn load(&self, key: &str, rows: &[usize]) -> Option<(Projection, PathBuf)> {
        self.dirs.iter().find_map(|dir| {
            let path = dir.join(Self::file_name(key));
            let bytes = fs::read(&path).ok()?;
            let projection = decode(&bytes, key, rows)?;
            // Mark the entry as recently used so pruning keeps it (best effort).
            let _ = fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(std::time::SystemTime::now()));
            Some((projection, path))
        })
    }

    fn store(&self, key: &str, projection: &Projection) -> CacheOutcome {
        let bytes = encode(key, projection);
        let mut failures = Vec::new();
        for dir in &self.dirs {
            let path = dir.join(Self::file_name(key));
            let written = fs::create_dir_all(dir)
                .map_err(|e| format!("{}: {e}", dir.display()))
                .and_then(|()| {
                    write_atomically(&path, |w| w.write_all(&bytes)).map_err(|e| e.to_string())
                });
            match written {
                Ok(()) => {
                    prune(dir, KEEP_FILES);
                    return CacheOutcome::Stored(path);
                }
                Err(e) => failures.push(e),
            }
        }
        if failures.is_empty() {
            failures.push("no cache directory is configured".to_string());
        }
        CacheOutcome::NotStored(failures.join("; "))
    }
}

/// Removes all but the `keep` most recently written projection files of `dir` (best effort:
/// a cache that cannot be tidied is still a cache).
fn prune(dir: &Path, keep: usize) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| is_entry_name(&e.file_name().to_string_lossy()))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if files.len() <= keep {
        return;
    }
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, path) in files.into_iter().skip(keep) {
        let _ = fs::remove_file(path);
    }
}

/// Whether a file name is one of the cache's projection files.
fn is_entry_name(name: &str) -> bool {
    name.starts_with("tsne-") && name.ends_with(".bin")
}

fn user_cache_dir() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| {
        let p = PathBuf::from(v);
        p.is_absolute().then_some(p)
    };
    std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".cache"))
        })
        .map(|d| d.join("sidlens"))
}

/// 128 bits (two independent lanes) over everything that determines the picture: the
/// algorithm version, the array shape, the rows, their values (as f64, so a float32 and a
/// float64 copy of the same data share entries), and the params except `max_points`.
fn cache_key<T: Element>(
    embeddings: ArrayView2<'_, T>,
    rows: &[usize],
    params: &ProjectionParams,
) -> String {
    let mut hash = KeyHasher::new();
    hash.word(u64::from(ALGORITHM_VERSION));
    hash.word(embeddings.nrows() as u64);
    hash.word(embeddings.ncols() as u64);
    hash.word(params.perplexity.to_bits());
    hash.word(params.seed);
    hash.word(params.pca_dims as u64);
    hash.word(params.iterations as u64);
    hash.word(params.theta.to_bits());
    hash.word(rows.len() as u64);
    for &r in rows {
        hash.word(r as u64);
        if r < embeddings.nrows() {
            for &v in embeddings.row(r) {
                hash.word(v.into().to_bits());
            }
        }
    }
    hash.finish()
}

/// A stable (never toolchain-dependent) 2×64-bit hash of a word stream.
struct KeyHasher {
    lanes: [u64; 2],
}

impl KeyHasher {
    fn new() -> Self {
        KeyHasher {
            lanes: [0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344],
        }
    }

    fn word(&mut self, w: u64) {
        self.lanes[0] = (self.lanes[0] ^ w)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
        self.lanes[1] = (self.lanes[1].rotate_left(17) ^ w).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    }

    fn finish(&self) -> String {
        let a = mix64(self.lanes[0] ^ self.lanes[1].rotate_left(32));
        let b = mix64(self.lanes[1] ^ a);
        format!("{a:016x}{b:016x}")
    }
}

fn encode(key: &str, projection: &Projection) -> Vec<u8> {
    let mut body = Vec::with_capacity(projection.points.len() * 16);
    for point in &projection.points {
        body.extend_from_slice(&point[0].to_le_bytes());
        body.extend_from_slice(&point[1].to_le_bytes());
    }
    let header = Header {
        format: FORMAT.to_string(),
        version: ALGORITHM_VERSION,
        key: key.to_string(),
        rows: projection.rows.clone(),
        total_rows: projection.total_rows,
        method: projection.method,
        perplexity: projection.perplexity,
        notes: projection.notes.clone(),
        checksum: checksum(&body),
    };
    let mut bytes = serde_json::to_vec(&header).expect("a cache header always serialises");
    bytes.push(b'\n');
    bytes.extend_from_slice(&body);
    bytes
}

fn checksum(body: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The projection in a cache file, or `None` when it is damaged or for other inputs.
fn decode(bytes: &[u8], key: &str, rows: &[usize]) -> Option<Projection> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header: Header = serde_json::from_slice(&bytes[..end]).ok()?;
    let body = &bytes[end + 1..];
    if header.format != FORMAT
        || header.version != ALGORITHM_VERSION
        || header.key != key
        || header.rows != rows
        || body.len() != rows.len() * 16
        || header.checksum != checksum(body)
    {
        return None;
    }
    let value = |chunk: &[u8]| f64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
    let points: Vec<[f64; 2]> = body
        .chunks_exact(16)
        .map(|c| [value(&c[..8]), value(&c[8..])])
        .collect();
    if !points.iter().flatten().all(|v| v.is_finite()) {
        return None;
    }
    Some(Projection {
        rows: header.rows,
        points,
        total_rows: header.total_rows,
        method: header.method,
        perplexity: header.perplexity,
        notes: header.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use ndarray::Array2;

    fn data() -> Array2<f32> {
        Array2::from_shape_fn((40, 5), |(i, j)| {
            ((i * 7 + j * 3) % 11) as f32 + (i / 20) as f32 * 9.0
        })
    }

    fn params() -> ProjectionParams {
        ProjectionParams {
            perplexity: 8.0,
            iterations: 100,
            ..ProjectionParams::default()
        }
    }

    #[test]
    fn second_call_is_a_hit_with_the_same_points() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ProjectionCache::in_dirs(vec![dir.path().join("sidlens")]);
        let data = data();
        let rows: Vec<usize> = (0..40).collect();
        let (first, outcome) = cache
            .load_or_compute(data.view(), &rows, &params(), &NoProgress)
            .unwrap();
        let CacheOutcome::Stored(path) = outcome else {
            panic!("not stored: {outcome:?}");
        };
        assert!(path.starts_with(dir.path().join("sidlens")));
        let (second, outcome) = cache
            .load_or_compute(data.view(), &rows, &params(), &NoProgress)
            .unwrap();
        assert_eq!(outcome, CacheOutcome::Hit(path));
        assert_eq!(first, second);
        // Other params or other values: a different entry.
        let other = ProjectionParams {
            seed: 5,
            ..params()
        };
        let (_, outcome) = cache
            .load_or_compute(data.view(), &rows, &other, &NoProgress)
            .unwrap();
        assert!(matches!(outcome, CacheOutcome::Stored(_)));
        let mut changed = data.clone();
        changed[[3, 3]] += 1.0;
        assert_ne!(
            cache_key(changed.view(), &rows, &params()),
            cache_key(data.view(), &rows, &params())
        );
        let more_points = ProjectionParams {
            max_points: 7,
            ..params()
        };
        assert_eq!(
            cache_key(data.view(), &rows, &more_points),
            cache_key(data.view(), &rows, &params())
        );
    }

    #[test]
    fn old_entries_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..5 {
            let path = dir.path().join(format!("tsne-{i}.bin"));
            fs::write(&path, "x").unwrap();
            let when = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000 + i);
            fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        fs::write(dir.path().join("other.txt"), "kept").unwrap();
        prune(dir.path(), 2);
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["other.txt", "tsne-3.bin", "tsne-4.bin"]);
    }

    #[test]
    fn damaged_entries_are_recomputed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ProjectionCache::in_dirs(vec![dir.path().to_path_buf()]);
        let data = data();
        let rows: Vec<usize> = (0..40).collect();
        let (first, outcome) = cache
            .load_or_compute(data.view(), &rows, &params(), &NoProgress)
            .unwrap();
        let CacheOutcome::Stored(path) = outcome else {
            panic!("{outcome:?}");
        };
        let good = fs::read(&path).unwrap();
        let truncated = good[..good.len() - 3].to_vec();
        // Eight flipped bytes in one coordinate, as a bad disk or a stray write would leave.
        let mut flipped = good.clone();
        let at = good.len() - 16;
        for b in &mut flipped[at..at + 8] {
            *b ^= 0xA5;
        }
        for damaged in [truncated, flipped] {
            fs::write(&path, &damaged).unwrap();
            let (again, outcome) = cache
                .load_or_compute(data.view(), &rows, &params(), &NoProgress)
                .unwrap();
            assert_eq!(outcome, CacheOutcome::Stored(path.clone()));
            assert_eq!(first, again);
        }
        assert_eq!(fs::read(&path).unwrap(), good);
        fs::write(dir.path().join("mine.txt"), "kept").unwrap();
        assert_eq!(cache.clear().unwrap().0, 1);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_unwritable_cache_falls_back_then_never_fails() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        fs::write(&blocker, "not a directory").unwrap();
        let fallback = dir.path().join("fallback");
        let cache = ProjectionCache::in_dirs(vec![blocker.join("sub"), fallback.clone()]);
        let data = data();
        let rows: Vec<usize> = (0..40).collect();
        let (_, outcome) = cache
            .load_or_compute(data.view(), &rows, &params(), &NoProgress)
            .unwrap();
        assert!(matches!(&outcome, CacheOutcome::Stored(p) if p.starts_with(&fallback)));
        let nowhere = ProjectionCache::in_dirs(vec![blocker.join("sub")]);
        let (projection, outcome) = nowhere
            .load_or_compute(data.view(), &rows, &params(), &NoProgress)
            .unwrap();
        assert!(matches!(outcome, CacheOutcome::NotStored(_)), "{outcome:?}");
        assert_eq!(projection.points.len(), 40);
    }
}
