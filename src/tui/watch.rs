//! Notices when a beams file changes on disk (a training run writing new outputs) by polling
//! size and modification time; a change is reported once the file has stopped changing for a
//! poll interval, so a file still being written is not read half-way.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

/// How often files are looked at.
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// A file's observable state: `None` when it cannot be read.
type Stamp = Option<(SystemTime, u64)>;

/// Watches one file per tokenizer.
#[derive(Debug)]
pub struct Watcher {
    files: Vec<Watched>,
    last_poll: Option<Instant>,
}

#[derive(Debug)]
struct Watched {
    tokenizer: usize,
    path: PathBuf,
    seen: Stamp,
    pending: Option<Stamp>,
}

fn stamp(path: &PathBuf) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

impl Watcher {
    /// Watches `(tokenizer, file)` pairs from their current state.
    pub fn new(files: impl IntoIterator<Item = (usize, PathBuf)>) -> Self {
        Watcher {
            files: files
                .into_iter()
                .map(|(tokenizer, path)| Watched {
                    tokenizer,
                    seen: stamp(&path),
                    path,
                    pending: None,
                })
                .collect(),
            last_poll: None,
        }
    }

    /// Tokenizers whose file changed and has been stable since the previous poll; looks at
    /// the files at most every [`POLL_INTERVAL`].
    pub fn poll(&mut self, now: Instant) -> Vec<usize> {
        if self.files.is_empty()
            || self
                .last_poll
                .is_some_and(|t| now.duration_since(t) < POLL_INTERVAL)
        {
            return Vec::new();
        }
        self.last_poll = Some(now);
        let mut changed = Vec::new();
        for f in &mut self.files {
            let current = stamp(&f.path);
            match f.pending {
                Some(p) if p == current && current.is_some() => {
                    f.seen = current;
                    f.pending = None;
                    changed.push(f.tokenizer);
                }
                _ if current != f.seen => f.pending = Some(current),
                _ => f.pending = None,
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_a_change_once_it_is_stable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.json");
        std::fs::write(&path, "[]").unwrap();
        let mut w = Watcher::new([(3, path.clone())]);
        let mut now = Instant::now();
        let mut tick = || {
            now += POLL_INTERVAL;
            now
        };
        assert!(w.poll(tick()).is_empty());
        std::fs::write(&path, "[{}, {}]").unwrap();
        assert!(w.poll(tick()).is_empty(), "first sight of a change waits");
        assert_eq!(w.poll(tick()), vec![3], "stable: reported");
        assert!(w.poll(tick()).is_empty(), "reported once");
        std::fs::write(&path, "[{}]").unwrap();
        assert!(w.poll(tick()).is_empty());
        std::fs::write(&path, "[{}, {}, {}]").unwrap();
        assert!(w.poll(tick()).is_empty(), "still changing");
        assert_eq!(w.poll(tick()), vec![3]);
        std::fs::remove_file(&path).unwrap();
        assert!(w.poll(tick()).is_empty());
        assert!(w.poll(tick()).is_empty(), "a vanished file is not reloaded");
        let early = now;
        assert!(w.poll(early).is_empty(), "no poll within the interval");
    }
}
