//! MQL4GRec's own beam outputs (`test_ddp_save.py` in its repository, read back by its
//! `ensemble.py`): one JSON object `{"all_outputs": [...], "all_scores": [...],
//! "all_targets": [...], "all_users": [...]}` written with `json.dump(indent=4)`, where
//! `all_outputs` and `all_scores` hold `num_beams` decoded SIDs and scores per user, flat, and
//! `all_targets` one target SID per user. Users are ranked as its `get_topk_results` does:
//! beams sorted by score, highest first, ties in output order; spaces inside SIDs ignored.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;

use super::BeamRecord;
use super::mql4grec_stream::{self, Cursor};
use crate::error::{Error, Place, Result};
use crate::io::Input;
use crate::progress::Progress;

/// Whether a file that starts with `head` is MQL4GRec's save file (an object whose first
/// key is one of its four).
pub(super) fn detect(head: &[u8]) -> bool {
    let text = head.trim_ascii_start();
    let Some(rest) = text.strip_prefix(b"{") else {
        return false;
    };
    let rest = rest.trim_ascii_start();
    [
        &b"\"all_outputs\""[..],
        b"\"all_scores\"",
        b"\"all_targets\"",
        b"\"all_users\"",
    ]
    .iter()
    .any(|k| rest.starts_with(k))
}

#[derive(Deserialize)]
struct SaveFile {
    all_outputs: Vec<String>,
    all_scores: Vec<f64>,
    all_targets: Vec<String>,
    // Dataset positions of the users; read so a malformed one is reported, not used.
    #[serde(default)]
    #[allow(dead_code)]
    all_users: Option<Vec<serde_json::Value>>,
}

/// Calls `on_record` once per user, in file order; returns the number of users. A regular
/// file is streamed in two passes (`mql4grec_stream`), so memory does not grow with users;
/// a stream (pipe, `-`) is read whole, since its lists run across users.
pub(super) fn read(
    path: &Path,
    mut input: Input,
    progress: &dyn Progress,
    on_record: &mut dyn FnMut(&BeamRecord) -> Result<()>,
) -> Result<usize> {
    if input.is_regular() {
        let size = input.size_hint();
        drop(input);
        let Ok(layout) = mql4grec_stream::scan(path) else {
            // A malformed file: read whole, whose serde messages name the exact place.
            return read(path, Input::stream_of(path)?, progress, on_record);
        };
        progress.advance(size / 2);
        let [(outputs, o_at), (scores, s_at), (targets, t_at)] = layout.lists;
        let k = beams_per_user(path, outputs, scores, targets, layout.users)?;
        let mut source = Cursors {
            outputs: Cursor::open(path, o_at)?,
            scores: Cursor::open(path, s_at)?,
            targets: Cursor::open(path, t_at)?,
            text: String::new(),
        };
        let n = emit(path, targets, k, &mut source, on_record)?;
        progress.advance(size - size / 2);
        return Ok(n);
    }
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    progress.advance(bytes.len() as u64);
    let file: SaveFile = serde_json::from_slice(&bytes).map_err(|e| Error::json(path, &e))?;
    let users = file.all_targets.len();
    let k = beams_per_user(
        path,
        file.all_outputs.len(),
        file.all_scores.len(),
        users,
        file.all_users.as_ref().map(Vec::len),
    )?;
    let mut source = InMemory {
        outputs: file.all_outputs.iter(),
        scores: file.all_scores.iter(),
        targets: file.all_targets.iter(),
    };
    emit(path, users, k, &mut source, on_record)
}

/// Checks the lists' lengths against each other; the number of beams per user.
fn beams_per_user(
    path: &Path,
    outputs: usize,
    scores: usize,
    users: usize,
    all_users: Option<usize>,
) -> Result<usize> {
    let field = |name: &str| Place::Field(format!("\"{name}\""));
    if outputs != scores {
        return Err(Error::data(
            path,
            field("all_scores"),
            format!(
                "has {scores} scores for {outputs} outputs; MQL4GRec writes one score per beam"
            ),
        ));
    }
    if let Some(u) = all_users
        && u != users
    {
        return Err(Error::data(
            path,
            field("all_users"),
            format!("has {u} users for {users} targets"),
        ));
    }
    if users == 0 {
        return Err(Error::data(
            path,
            field("all_targets"),
            "is empty: no users",
        ));
    }
    if !outputs.is_multiple_of(users) {
        return Err(Error::data(
            path,
            field("all_outputs"),
            format!(
                "has {outputs} outputs for {users} targets, not a whole number of beams per user (did num_beams change during the run?)"
            ),
        ));
    }
    Ok(outputs / users)
}

/// The save file's lists, read in step: one user's outputs and scores, then its target.
trait Lists {
    /// The next output SID and its score.
    fn beam(&mut self, path: &Path) -> Result<(&str, f64)>;
    /// The next target SID.
    fn target(&mut self, path: &Path) -> Result<&str>;
}

/// The lists of a file read whole.
struct InMemory<'a> {
    outputs: std::slice::Iter<'a, String>,
    scores: std::slice::Iter<'a, f64>,
    targets: std::slice::Iter<'a, String>,
}

impl Lists for InMemory<'_> {
    fn beam(&mut self, _: &Path) -> Result<(&str, f64)> {
        let output = self.outputs.next().expect("lengths checked");
        Ok((output, *self.scores.next().expect("lengths checked")))
    }
    fn target(&mut self, _: &Path) -> Result<&str> {
        Ok(self.targets.next().expect("lengths checked"))
    }
}

/// The lists of a regular file, one cursor each.
struct Cursors {
    outputs: Cursor,
    scores: Cursor,
    targets: Cursor,
    text: String,
}

impl Lists for Cursors {
    fn beam(&mut self, path: &Path) -> Result<(&str, f64)> {
        self.outputs.string(path, &mut self.text)?;
        let score = self.scores.number(path)?;
        Ok((&self.text, score))
    }
    fn target(&mut self, path: &Path) -> Result<&str> {
        self.targets.string(path, &mut self.text)?;
        Ok(&self.text)
    }
}

/// Builds and hands on each user's record from `lists`.
fn emit(
    path: &Path,
    users: usize,
    k: usize,
    lists: &mut dyn Lists,
    on_record: &mut dyn FnMut(&BeamRecord) -> Result<()>,
) -> Result<usize> {
    let mut rec = BeamRecord::default();
    for user in 0..users {
        rec.clear(user, 0);
        rec.has_beams = true;
        rec.has_scores = true;
        for _ in 0..k {
            let (output, score) = lists.beam(path)?;
            if !score.is_finite() {
                return Err(Error::data(
                    path,
                    Place::Record {
                        record: user,
                        line: 0,
                    },
                    format!("score {score} is not a finite number"),
                ));
            }
            let sid = rec.read_sid(output);
            rec.beams.push(sid);
            rec.scores.push(score);
        }
        let target = lists.target(path)?;
        rec.target = Some(rec.read_sid(target));
        rec.validate()
            .map_err(|m| super::record_error(path, user, 0, m))?;
        on_record(&rec)?;
    }
    Ok(users)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_only_its_own_keys() {
        assert!(detect(b"{\n    \"all_outputs\": [\n"));
        assert!(detect(b"  {\"all_targets\": []}"));
        assert!(!detect(b"{\"beam_sids\": []}"));
        assert!(!detect(b"[{\"all_outputs\": []}]"));
    }
}
