//! The records generators usually write, read without serde: plain strings, no escapes, the
//! three known keys. Anything else falls back to the serde path, which reports errors.

use super::{BeamRecord, BeamSid};
use crate::sid::grammar::{parse_quoted_compact_sid, with_avx2_and_bmi};

/// The fast path of [`parse_line`] for the records generators usually write: an object whose
/// keys are `beam_sids` (a list of strings), `target` (string or null) and `target_item`
/// (string, non-negative integer or null), strings without escapes. Fills `rec` exactly as
/// the serde path would and returns `true`; returns `false` at anything else (other fields,
/// escapes, malformed JSON), and the serde path then reads the line and reports any error.
#[inline(always)]
#[allow(
    clippy::redundant_closure,
    reason = "a closure is inlined into the AVX2 build; the function item is not"
)]
pub(super) fn parse_plain_record(text: &str, rec: &mut BeamRecord) -> bool {
    // Compiled for AVX2 and BMI too: the SID frame's masks are then walked with
    // single-instruction bit scans and shifts (10 % fewer instructions for a whole `eval`).
    with_avx2_and_bmi(
        text,
        rec,
        #[inline(always)]
        |text, rec| parse_plain_record_inline(text, rec),
    )
}

/// The body of [`parse_plain_record`], inlined into each of its builds.
#[inline(always)]
pub(super) fn parse_plain_record_inline(text: &str, rec: &mut BeamRecord) -> bool {
    if parse_dumped_record(text, rec) {
        return true;
    }
    rec.clear(rec.record(), rec.line());
    parse_any_order(text, rec)
}

/// A record exactly as json.dumps writes it, `{"beam_sids": […], "target": …}` with an
/// optional `"target_item"` last, its separators `, ` and `: `: read without looking for
/// white space or matching keys, filling `rec` as [`parse_any_order`] would. `false` at
/// anything else, possibly with `rec` partly filled.
#[inline(always)]
pub(super) fn parse_dumped_record(text: &str, rec: &mut BeamRecord) -> bool {
    const BEAMS: &[u8] = b"{\"beam_sids\": [";
    const TARGET: &[u8] = b"], \"target\": ";
    const TARGET_ITEM: &[u8] = b", \"target_item\": ";
    let b = text.as_bytes();
    if !b.starts_with(BEAMS) {
        return false;
    }
    let mut i = BEAMS.len();
    rec.has_beams = true;
    if b.get(i) != Some(&b']') {
        loop {
            let Some(sid) = plain_sid(text, &mut i, rec) else {
                return false;
            };
            rec.beams.push(sid);
            if b.get(i..i + 2) != Some(b", ") {
                break;
            }
            i += 2;
        }
    }
    if !b[i..].starts_with(TARGET) {
        return false;
    }
    i += TARGET.len();
    match plain_sid(text, &mut i, rec) {
        Some(sid) => rec.target = Some(sid),
        None if plain_null(b, &mut i) => {}
        None => return false,
    }
    if b[i..].starts_with(TARGET_ITEM) {
        i += TARGET_ITEM.len();
        match plain_string(text, &mut i).or_else(|| plain_integer(text, &mut i)) {
            Some(id) => rec.target_item = Some(rec.push_text(id)),
            None if plain_null(b, &mut i) => {}
            None => return false,
        }
    }
    &b[i..] == b"}"
}

/// [`parse_plain_record`] of any key order and white space.
#[inline(always)]
pub(super) fn parse_any_order(text: &str, rec: &mut BeamRecord) -> bool {
    let b = text.as_bytes();
    let ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
            *i += 1;
        }
    };
    let mut i = 0;
    ws(&mut i);
    if b.get(i) != Some(&b'{') {
        return false;
    }
    i += 1;
    let mut seen = 0u8;
    loop {
        ws(&mut i);
        let Some(key) = plain_string(text, &mut i) else {
            return false;
        };
        ws(&mut i);
        if b.get(i) != Some(&b':') {
            return false;
        }
        i += 1;
        ws(&mut i);
        let bit = match key {
            "beam_sids" => 1,
            "target" => 2,
            "target_item" => 4,
            _ => return false,
        };
        if seen & bit != 0 {
            return false;
        }
        seen |= bit;
        let ok = match key {
            "beam_sids" => {
                rec.has_beams = true;
                plain_sid_list(text, &mut i, rec)
            }
            "target" => match plain_sid(text, &mut i, rec) {
                Some(sid) => {
                    rec.target = Some(sid);
                    true
                }
                None => plain_null(b, &mut i),
            },
            _ => match plain_string(text, &mut i).or_else(|| plain_integer(text, &mut i)) {
                Some(id) => {
                    rec.target_item = Some(rec.push_text(id));
                    true
                }
                None => plain_null(b, &mut i),
            },
        };
        if !ok {
            return false;
        }
        ws(&mut i);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => {
                i += 1;
                ws(&mut i);
                return i == b.len();
            }
            _ => return false,
        }
    }
}

/// A JSON string without escapes or control characters at byte `*i`, moving past it.
fn plain_string<'a>(text: &'a str, i: &mut usize) -> Option<&'a str> {
    let b = text.as_bytes();
    if b.get(*i) != Some(&b'"') {
        return None;
    }
    let start = *i + 1;
    let len = memchr::memchr2(b'"', b'\\', &b[start..])?;
    let body = &b[start..start + len];
    if b[start + len] != b'"' || body.iter().fold(false, |bad, &c| bad | (c < 0x20)) {
        return None;
    }
    *i = start + len + 1;
    // Quotes are ASCII, so both ends are character boundaries.
    text.get(start..start + len)
}

/// A plain JSON string at byte `*i` read as a beam SID, moving past it. The usual
/// `"<a_1><b_2>…"` is parsed in the same pass that finds its closing quote, and a compact SID
/// in the scheme the record's SIDs are expected in right after finding it; any other string
/// is read by [`BeamRecord::read_sid`], which gives the same SID for those.
#[inline(always)]
fn plain_sid(text: &str, i: &mut usize, rec: &mut BeamRecord) -> Option<BeamSid> {
    if let Some(scheme) = rec.expected_other_scheme() {
        if let Some((key, n_levels, len)) = scheme.parse_quoted_compact_in(&text.as_bytes()[*i..]) {
            rec.note_expected(scheme);
            *i += len;
            return Some(BeamSid::Codes { key, n_levels });
        }
    } else if let Some((key, n_levels, len)) = parse_quoted_compact_sid(&text.as_bytes()[*i..]) {
        // The SID is ASCII, so both ends of its contents are character boundaries. Once the
        // record's scheme is the letters one, there is nothing to note (nor to slice).
        if !rec.letters {
            rec.note_letters(&text[*i + 1..*i + len - 1]);
        }
        *i += len;
        return Some(BeamSid::Codes { key, n_levels });
    }
    plain_string(text, i).map(|s| rec.read_sid(s))
}

/// A non-negative JSON integer that fits in `u64`, written as JSON allows (no leading zero).
fn plain_integer<'a>(text: &'a str, i: &mut usize) -> Option<&'a str> {
    let b = text.as_bytes();
    let start = *i;
    let len = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
    let digits = &b[start..start + len];
    let follows = b.get(start + len).copied();
    if len == 0
        || len > 19
        || (len > 1 && digits[0] == b'0')
        || matches!(follows, Some(b'.' | b'e' | b'E'))
    {
        return None;
    }
    *i = start + len;
    text.get(start..start + len)
}

fn plain_null(b: &[u8], i: &mut usize) -> bool {
    if b[*i..].starts_with(b"null") {
        *i += 4;
        true
    } else {
        false
    }
}

/// `["<a_1>...", ...]`: each string read as a beam SID.
#[inline(always)]
fn plain_sid_list(text: &str, i: &mut usize, rec: &mut BeamRecord) -> bool {
    let b = text.as_bytes();
    let ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
            *i += 1;
        }
    };
    if b.get(*i) != Some(&b'[') {
        return false;
    }
    *i += 1;
    ws(i);
    if b.get(*i) == Some(&b']') {
        *i += 1;
        return true;
    }
    loop {
        ws(i);
        let Some(sid) = plain_sid(text, i, rec) else {
            return false;
        };
        rec.beams.push(sid);
        ws(i);
        match b.get(*i) {
            Some(b',') => *i += 1,
            Some(b']') => {
                *i += 1;
                return true;
            }
            _ => return false,
        }
    }
}
