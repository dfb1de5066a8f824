//! One token scheme per beams file: each record notes the scheme of its SIDs while it is
//! parsed (on any thread), and the reader checks the notes in file order, so the first
//! readable SID (or `--sid-format`) fixes the scheme and a SID in another is an error.

use std::path::Path;

use super::{BeamRecord, record_error};
use crate::error::Result;
use crate::sid::scheme::SidScheme;

/// What one record says about its SIDs' scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SchemeNote {
    record: usize,
    line: usize,
    first: Option<SidScheme>,
    /// A SID in another scheme than `first`, and its text (rare, so allocated).
    conflict: Option<(SidScheme, String)>,
}

/// The scheme a file's SIDs must keep, and where it was fixed.
pub(super) struct SchemeCheck<'a> {
    path: &'a Path,
    expected: Option<SidScheme>,
    given: bool,
    fixed_at: usize,
}

impl<'a> SchemeCheck<'a> {
    /// A check for `path`, with the scheme given or (`None`) taken from the first record.
    pub(super) fn new(path: &'a Path, scheme: Option<SidScheme>) -> Self {
        SchemeCheck {
            path,
            expected: scheme,
            given: scheme.is_some(),
            fixed_at: 0,
        }
    }

    /// The note of a parsed record.
    pub(super) fn note(rec: &BeamRecord) -> SchemeNote {
        SchemeNote {
            record: rec.record(),
            line: rec.line(),
            first: rec.scheme,
            conflict: rec
                .scheme_conflict
                .map(|(scheme, span)| (scheme, rec.span_text(span).to_string())),
        }
    }

    /// Checks the next record's note, in file order.
    pub(super) fn check(&mut self, note: &SchemeNote) -> Result<()> {
        let Some(first) = note.first else {
            return Ok(());
        };
        let expected = *self.expected.get_or_insert_with(|| {
            self.fixed_at = note.record;
            first
        });
        let offending = match &note.conflict {
            _ if first != expected => Some((first, None)),
            Some((scheme, text)) => Some((*scheme, Some(text.as_str()))),
            None => None,
        };
        let Some((scheme, text)) = offending else {
            return Ok(());
        };
        let source = if self.given {
            "--sid-format says".to_string()
        } else if self.fixed_at == note.record {
            "its first SID is".to_string()
        } else {
            format!("record {} is", self.fixed_at)
        };
        let what = text.map_or("its SIDs are".to_string(), |t| format!("SID {t:?} is"));
        Err(record_error(
            self.path,
            note.record,
            note.line,
            format!(
                "{what} written like {scheme}, but {source} written like {expected} (one token scheme per file; --sid-format picks one)"
            ),
        ))
    }
}
