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
use crate::error::{Error, Place, Result};
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

/// Reads the whole save file (its lists are flat across users, so it is not streamed) and
/// calls `on_record` once per user, in file order. Returns the number of users.
pub(super) fn read(
    path: &Path,
    mut input: impl Read,
    progress: &dyn Progress,
    on_record: &mut dyn FnMut(&BeamRecord) -> Result<()>,
) -> Result<usize> {
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    progress.advance(bytes.len() as u64);
    let file: SaveFile = serde_json::from_slice(&bytes).map_err(|e| Error::json(path, &e))?;
    let users = file.all_targets.len();
    let field = |name: &str| Place::Field(format!("\"{name}\""));
    if file.all_outputs.len() != file.all_scores.len() {
        return Err(Error::data(
            path,
            field("all_scores"),
            format!(
                "has {} scores for {} outputs; MQL4GRec writes one score per beam",
                file.all_scores.len(),
                file.all_outputs.len()
            ),
        ));
    }
    if let Some(u) = &file.all_users
        && u.len() != users
    {
        return Err(Error::data(
            path,
            field("all_users"),
            format!("has {} users for {users} targets", u.len()),
        ));
    }
    if users == 0 {
        return Err(Error::data(
            path,
            field("all_targets"),
            "is empty: no users",
        ));
    }
    if !file.all_outputs.len().is_multiple_of(users) {
        return Err(Error::data(
            path,
            field("all_outputs"),
            format!(
                "has {} outputs for {users} targets, not a whole number of beams per user (did num_beams change during the run?)",
                file.all_outputs.len()
            ),
        ));
    }
    let k = file.all_outputs.len() / users;
    let mut rec = BeamRecord::default();
    for (user, target) in file.all_targets.iter().enumerate() {
        rec.clear(user, 0);
        rec.has_beams = true;
        rec.has_scores = true;
        for (output, &score) in file.all_outputs[user * k..(user + 1) * k]
            .iter()
            .zip(&file.all_scores[user * k..(user + 1) * k])
        {
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
