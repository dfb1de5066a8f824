//! The index layout tokenizers usually write, `{"id": ["<a_1>", "<b_2>"], ...}` (or integer
//! codes, the tokens of another scheme such as OpenOneRec's `<s_a_1>`, or SID strings such as
//! `"12-7-201"`), read without serde and split over the cores. Anything else — escapes, a
//! SID string that does not read, any error — declines, and the serde path reads the file
//! and reports.

use rayon::prelude::*;

use crate::load::ids::{Arena, ItemIds, NOT_AN_INTEGER};
use crate::load::index::IndexFormat;
use crate::sid::ascii_digits::{fold_digits, not_digits};
use crate::sid::grammar::{ascii_str, leading_digits};
use crate::sid::scheme::{self as sid_scheme, SidScheme};
use crate::sid::{Code, MAX_LEVELS, SidKey};

/// Ids and codes read by the fast path, as the serde path would have read them.
pub(super) struct FastIndex {
    pub(super) ids: ItemIds,
    pub(super) codes: Vec<Code>,
    pub(super) n_levels: usize,
    pub(super) format: IndexFormat,
    /// The scheme of its tokens, detected from the first as the serde path does
    /// ([`SidScheme::Integers`] for integer codes).
    pub(super) scheme: SidScheme,
}

/// Below this many bytes a file is read on one thread (splitting would not pay).
const MIN_CHUNK_BYTES: usize = 1 << 20;

/// Reads `bytes` if it is a plain index; `None` sends it to the serde path.
pub(super) fn parse(bytes: &[u8]) -> Option<FastIndex> {
    let mut i = 0;
    skip_ws(bytes, &mut i);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    skip_ws(bytes, &mut i);
    let (first, value_end) = first_token(bytes, i).unwrap_or(("", b']'));
    let scheme = sid_scheme::detect(first).unwrap_or_default();
    let threads = rayon::current_num_threads().max(1);
    let n_chunks = (bytes.len() / MIN_CHUNK_BYTES).clamp(1, threads);
    // A split guessed inside an odd id fails its proof; one chunk then settles it.
    parse_in_chunks(bytes, i, n_chunks, scheme, value_end).or_else(|| {
        (n_chunks > 1)
            .then(|| parse_in_chunks(bytes, i, 1, scheme, value_end))
            .flatten()
    })
}

/// The first item's first token, or its SID string, when it is a plain string (the item at
/// `i`): the string the serde path detects the file's scheme from; and the byte that ends
/// an item's value, `]` after a list and `"` after a SID string.
fn first_token(b: &[u8], mut i: usize) -> Option<(&str, u8)> {
    plain_id_by_bytes(b, &mut i)?;
    skip_ws(b, &mut i);
    if b.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    skip_ws(b, &mut i);
    let value_end = if b.get(i) == Some(&b'[') {
        i += 1;
        skip_ws(b, &mut i);
        b']'
    } else {
        b'"'
    };
    Some((plain_string(b, &mut i)?, value_end))
}

/// Reads the items from `i` (just inside the `{`) in `n_chunks` parallel chunks.
fn parse_in_chunks(
    bytes: &[u8],
    i: usize,
    n_chunks: usize,
    scheme: SidScheme,
    value_end: u8,
) -> Option<FastIndex> {
    // Chunk k starts at an item boundary guessed near k/n of the file; chunk k−1, read from
    // the true start, must stop exactly there, which proves the guess.
    let mut starts = vec![i];
    for k in 1..n_chunks {
        let guess = bytes.len() / n_chunks * k;
        if let Some(s) = boundary_after(bytes, guess.max(*starts.last()? + 1), value_end) {
            starts.push(s);
        }
    }
    let bounds: Vec<(usize, usize)> = (0..starts.len())
        .map(|k| (starts[k], starts.get(k + 1).copied().unwrap_or(usize::MAX)))
        .collect();
    let mut chunks: Vec<Chunk> = bounds
        .par_iter()
        .map(|&(start, stop)| parse_chunk(bytes, start, stop, scheme))
        .collect::<Option<_>>()?;
    let first = &chunks[0];
    let (n_levels, format) = (first.n_levels, first.format);
    for (k, c) in chunks.iter().enumerate() {
        let stops_at_next = bounds.get(k + 1).is_none_or(|&(next, _)| c.end == next);
        if c.n_levels != n_levels || c.format != format || !stops_at_next {
            return None;
        }
    }
    // The first chunk's arrays become the joined ones (a large array grows in place, without
    // a copy), and the later chunks are appended to them, each array on a core of its own:
    // copying every chunk into fresh arrays faulted in and wrote 31 MB more at 1M items.
    // The text is joined only when some id is not an integer; otherwise it is left for the
    // first id printed.
    let texts: Option<Vec<Arena>> = chunks.iter().any(|c| c.text.is_some()).then(|| {
        chunks
            .iter_mut()
            .map(|c| {
                c.text
                    .take()
                    .unwrap_or_else(|| Arena::written_out(&c.values))
            })
            .collect()
    });
    let mut chunks = chunks.into_iter();
    let first = chunks.next()?;
    let rest: Vec<Chunk> = chunks.collect();
    let (mut values, mut codes) = (first.values, first.codes);
    let ((text, ()), ()) = rayon::join(
        || {
            rayon::join(
                || texts.map(Arena::joined),
                || append(&mut values, rest.iter().map(|c| &c.values[..])),
            )
        },
        || append(&mut codes, rest.iter().map(|c| &c.codes[..])),
    );
    // Freed before the id table is built, which can then reuse their memory.
    drop(rest);
    let ids = match text {
        Some(arena) => ItemIds::from_arena(arena, values)?,
        None => ItemIds::from_integers(values)?,
    };
    Some(FastIndex {
        ids,
        codes,
        n_levels,
        format,
        scheme: match format {
            IndexFormat::Integers => SidScheme::Integers,
            _ => scheme,
        },
    })
}

/// What one chunk of items holds; `end` is where its reading stopped (the next item's `"`,
/// or the end of the file for the last chunk).
struct Chunk {
    /// The ids' text, kept from the first id that is not a canonical integer on (the ids
    /// before it written out from their values); `None` while every id is one.
    text: Option<Arena>,
    values: Vec<u64>,
    codes: Vec<Code>,
    n_levels: usize,
    format: IndexFormat,
    end: usize,
}

impl Chunk {
    /// Keeps an id: its value, and its text once the chunk keeps text.
    fn push_id(&mut self, id: &str, value: u64) {
        if value == NOT_AN_INTEGER && self.text.is_none() {
            self.text = Some(Arena::written_out(&self.values));
        }
        if let Some(text) = &mut self.text {
            text.push(id);
        }
        self.values.push(value);
    }
}

/// `parts` appended to `all`, in one allocation.
fn append<'a, T: Copy + 'a>(all: &mut Vec<T>, parts: impl Iterator<Item = &'a [T]> + Clone) {
    all.reserve_exact(parts.clone().map(<[T]>::len).sum());
    for part in parts {
        all.extend_from_slice(part);
    }
}

/// Moves past white space. Most calls meet none or the one space of json.dump's `, ` and
/// `: `; those are decided before the loop (a byte above the space is never white space).
#[inline(always)]
fn skip_ws(b: &[u8], i: &mut usize) {
    match b.get(*i) {
        Some(&c) if c > b' ' => return,
        Some(b' ') if b.get(*i + 1).is_some_and(|&c| c > b' ') => {
            *i += 1;
            return;
        }
        _ => {}
    }
    while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\n' | b'\r') {
        *i += 1;
    }
}

/// The first `"` at or after `from` that follows `value_end` (`]` or `"`), whitespace, `,`,
/// whitespace: where an item starts if that `value_end` closed the previous item's codes.
fn boundary_after(b: &[u8], from: usize, value_end: u8) -> Option<usize> {
    let mut at = from;
    loop {
        let close = at + memchr::memchr(value_end, b.get(at..)?)?;
        let mut i = close + 1;
        skip_ws(b, &mut i);
        if b.get(i) == Some(&b',') {
            i += 1;
            skip_ws(b, &mut i);
            if b.get(i) == Some(&b'"') {
                return Some(i);
            }
        }
        at = close + 1;
    }
}

/// Reads items from `i` (an item's opening quote) until the next item would start at or after
/// `stop`, or the object closes (then nothing but whitespace may follow).
fn parse_chunk(b: &[u8], mut i: usize, stop: usize, scheme: SidScheme) -> Option<Chunk> {
    let mut c = Chunk {
        text: None,
        values: Vec::new(),
        codes: Vec::new(),
        n_levels: 0,
        format: IndexFormat::Tokens,
        end: 0,
    };
    let mut format = None;
    let mut dumped_codes = [0; MAX_LEVELS];
    loop {
        let dumped = match format {
            Some(IndexFormat::Integers) => None,
            _ if scheme != SidScheme::LETTERS => None,
            _ => dumped_item(b, i, &mut dumped_codes),
        };
        let (id, value, levels) = match dumped {
            Some((id, value, levels, end)) => {
                c.codes.extend_from_slice(&dumped_codes[..levels]);
                format = Some(IndexFormat::Tokens);
                i = end;
                (id, value, levels)
            }
            None => {
                let (id, value) = plain_id(b, &mut i)?;
                skip_ws(b, &mut i);
                if b.get(i) != Some(&b':') {
                    return None;
                }
                i += 1;
                skip_ws(b, &mut i);
                (
                    id,
                    value,
                    codes(b, &mut i, &mut c.codes, &mut format, scheme)?,
                )
            }
        };
        c.push_id(id, value);
        if c.values.len() == 1 {
            c.n_levels = levels;
        } else if levels != c.n_levels {
            return None;
        }
        skip_ws(b, &mut i);
        match b.get(i) {
            Some(b',') => {
                i += 1;
                skip_ws(b, &mut i);
                if i >= stop {
                    break;
                }
            }
            Some(b'}') if stop == usize::MAX => {
                i += 1;
                skip_ws(b, &mut i);
                if i != b.len() {
                    return None;
                }
                break;
            }
            _ => return None,
        }
    }
    c.format = format?;
    c.end = i;
    Some(c)
}

/// An item exactly as json.dump writes the usual index, `"ID": ["<a_N>", "<b_N>", …]` with a
/// short integer id (see [`short_integer_id`] and [`token_in_words`]), read without the
/// general loop's checks for white space: its id, id value, number of levels (codes in
/// `codes`) and where its `]` ends. `None` for any other item, which the general loop then
/// reads from the same place (and finds the same id and codes, or declines).
fn dumped_item<'a>(
    b: &'a [u8],
    i: usize,
    codes: &mut [Code; MAX_LEVELS],
) -> Option<(&'a str, u64, usize, usize)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let (id, value) = short_integer_id(b.get(i + 1..i + 9)?)?;
    let mut j = i + id.len() + 2;
    if b.get(j..j + 3)? != b": [" {
        return None;
    }
    j += 3;
    for (level, code) in codes.iter_mut().enumerate() {
        *code = token_in_words(b.get(j..j + 12)?.try_into().ok()?, &mut j, level)?;
        match b.get(j..j + 2)? {
            b", " => j += 2,
            [b']', _] => return Some((id, value, level + 1, j + 1)),
            _ => return None,
        }
    }
    None
}

/// An id string without escapes or control characters at `*i`, and its value when it is a
/// canonical integer ([`NOT_AN_INTEGER`] otherwise), moving past it.
fn plain_id<'a>(b: &'a [u8], i: &mut usize) -> Option<(&'a str, u64)> {
    if b.get(*i) != Some(&b'"') {
        return None;
    }
    let start = *i + 1;
    if let Some(found) = b.get(start..start + 8).and_then(short_integer_id) {
        *i = start + found.0.len() + 1;
        return Some(found);
    }
    plain_id_by_bytes(b, i)
}

/// [`plain_id`] byte by byte.
fn plain_id_by_bytes<'a>(b: &'a [u8], i: &mut usize) -> Option<(&'a str, u64)> {
    if b.get(*i) != Some(&b'"') {
        return None;
    }
    let start = *i + 1;
    let len = memchr::memchr2(b'"', b'\\', b.get(start..)?)?;
    if b[start + len] != b'"' {
        return None;
    }
    let body = &b[start..start + len];
    *i = start + len + 1;
    let mut value = 0u64;
    let mut digits = true;
    for &ch in body {
        if ch < 0x20 {
            return None;
        }
        if ch.is_ascii_digit() {
            value = value.wrapping_mul(10).wrapping_add(u64::from(ch - b'0'));
        } else {
            digits = false;
        }
    }
    let canonical =
        digits && !body.is_empty() && body.len() <= 19 && (body.len() == 1 || body[0] != b'0');
    let id = match ascii_str(body) {
        Some(id) => id,
        None => std::str::from_utf8(body).ok()?,
    };
    Some((id, if canonical { value } else { NOT_AN_INTEGER }))
}

/// The usual id, a canonical integer of one to seven digits, from the eight bytes after its
/// opening quote: where the digits stop found in one word, their value folded from it.
/// `None` for any other id, which [`plain_id`] reads byte by byte.
fn short_integer_id(window: &[u8]) -> Option<(&str, u64)> {
    let (id, word) = leading_digits(window.try_into().ok()?);
    let n = id.len();
    if n == 0 || n == 8 || window[n] != b'"' || (n > 1 && window[0] == b'0') {
        return None;
    }
    Some((id, fold_digits(word, n)))
}

/// `["<a_1>", "<b_2>"]`, `[1, 2]` or a SID string `"1-2"` at `*i`: pushes the codes and
/// returns how many.
fn codes(
    b: &[u8],
    i: &mut usize,
    out: &mut Vec<Code>,
    format: &mut Option<IndexFormat>,
    scheme: SidScheme,
) -> Option<usize> {
    if b.get(*i) == Some(&b'"') {
        if *format.get_or_insert(IndexFormat::SidString) != IndexFormat::SidString {
            return None;
        }
        let (key, n) = sid_string(b, i, scheme)?;
        let n = usize::from(n);
        out.extend((0..n).map(|level| (key >> (16 * (n - 1 - level))) as Code));
        return Some(n);
    }
    if b.get(*i) != Some(&b'[') {
        return None;
    }
    *i += 1;
    let mut level = 0;
    loop {
        skip_ws(b, i);
        if level == MAX_LEVELS {
            return None;
        }
        let (code, this) = match b.get(*i)? {
            b'"' if scheme == SidScheme::LETTERS => (token(b, i, level)?, IndexFormat::Tokens),
            b'"' => (scheme_token(b, i, level, scheme)?, IndexFormat::Tokens),
            b'0'..=b'9' => (integer(b, i)?, IndexFormat::Integers),
            _ => return None,
        };
        if *format.get_or_insert(this) != this {
            return None;
        }
        out.push(code);
        level += 1;
        skip_ws(b, i);
        match b.get(*i)? {
            b',' => *i += 1,
            b']' => {
                *i += 1;
                return Some(level);
            }
            _ => return None,
        }
    }
}

/// `"<x_N>"` with x the letter of `level` and N up to five digits below 2^16. Where twelve
/// bytes are left, the token is read a word at a time ([`token_in_words`]); the last
/// tokens of a file are read byte by byte. Both accept exactly the same tokens.
fn token(b: &[u8], i: &mut usize, level: usize) -> Option<Code> {
    match b.get(*i..*i + 12) {
        Some(window) => token_in_words(window.try_into().expect("twelve bytes"), i, level),
        None => token_by_bytes(b, i, level),
    }
}

/// [`token`] from the twelve bytes at `*i`: the `"<x_` head compared as one word, where
/// the digits stop found in one eight-byte word, and their value folded from it. Marked
/// inline: called once a token, it was left out of line when unrelated code changed, and
/// each call then cost ~25 instructions more (+123 M for a 1M-item index).
#[inline]
fn token_in_words(window: &[u8; 12], i: &mut usize, level: usize) -> Option<Code> {
    let head = u32::from_le_bytes([window[0], window[1], window[2], window[3]]);
    if head != u32::from_le_bytes([b'"', b'<', b'a'.wrapping_add(level as u8), b'_']) {
        return None;
    }
    let word = u64::from_le_bytes(window[4..].try_into().expect("eight bytes"));
    let n = (not_digits(word).trailing_zeros() / 8) as usize;
    if !(1..=5).contains(&n) || window[4 + n] != b'>' || window[5 + n] != b'"' {
        return None;
    }
    *i += 6 + n;
    Code::try_from(fold_digits(word, n)).ok()
}

/// A token of another scheme than the default at `*i` (its opening quote), moving past it.
/// The usual compact token is read straight from the bytes (none of them is a quote, a
/// backslash or a control character); any other plain string as the serde path reads it,
/// with [`SidScheme::parse_token`].
fn scheme_token(b: &[u8], i: &mut usize, level: usize, scheme: SidScheme) -> Option<Code> {
    let body = b.get(*i + 1..)?;
    if let Some((code, len)) = scheme.compact_token(body, level)
        && body.get(len) == Some(&b'"')
    {
        *i += len + 2;
        return Some(code);
    }
    scheme.parse_token(plain_string(b, i)?, level)
}

/// A SID string at `*i` (its opening quote), moving past it: a compact one read straight
/// from the bytes, any other plain string as the serde path reads it.
fn sid_string(b: &[u8], i: &mut usize, scheme: SidScheme) -> Option<(SidKey, u8)> {
    if let Some((key, n_levels, len)) = scheme.parse_quoted_compact_in(&b[*i..]) {
        *i += len;
        return Some((key, n_levels));
    }
    scheme.parse_sid(plain_string(b, i)?)
}

/// A string without escapes or control characters at `*i`, moving past it (read as an id is).
fn plain_string<'a>(b: &'a [u8], i: &mut usize) -> Option<&'a str> {
    plain_id_by_bytes(b, i).map(|(s, _)| s)
}

/// [`token`] byte by byte.
fn token_by_bytes(b: &[u8], i: &mut usize, level: usize) -> Option<Code> {
    let s = *i;
    if b.get(s + 1) != Some(&b'<')
        || b.get(s + 2) != Some(&(b'a' + level as u8))
        || b.get(s + 3) != Some(&b'_')
    {
        return None;
    }
    let mut j = s + 4;
    let mut value = 0u32;
    while let Some(&d @ b'0'..=b'9') = b.get(j) {
        if j - s - 4 == 5 {
            return None;
        }
        value = value * 10 + u32::from(d - b'0');
        j += 1;
    }
    if j == s + 4 || b.get(j) != Some(&b'>') || b.get(j + 1) != Some(&b'"') {
        return None;
    }
    *i = j + 2;
    Code::try_from(value).ok()
}

/// A JSON integer code (no leading zero, no fraction or exponent) below 2^16.
fn integer(b: &[u8], i: &mut usize) -> Option<Code> {
    let s = *i;
    let mut j = s;
    let mut value = 0u32;
    while let Some(&d @ b'0'..=b'9') = b.get(j) {
        if j - s == 5 {
            return None;
        }
        value = value * 10 + u32::from(d - b'0');
        j += 1;
    }
    if (j - s > 1 && b[s] == b'0') || matches!(b.get(j), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    *i = j;
    Code::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::SidIndex;
    use proptest::prelude::*;
    use std::path::Path;

    /// Everything an index holds, for comparing two parses.
    fn dump(idx: &SidIndex) -> String {
        let ids: Vec<_> = idx.ids().iter().collect();
        let rows: Vec<_> = (0..idx.n_items())
            .map(|i| idx.ids().vector_row(i))
            .collect();
        let found: Vec<_> = ids.iter().map(|id| idx.ids().position(id)).collect();
        format!(
            "{ids:?} {:?} {} {:?} {:?} {rows:?} {found:?} {}",
            idx.all_codes(),
            idx.n_levels(),
            idx.format(),
            idx.scheme(),
            idx.ids().rows_are_ids()
        )
    }

    /// The fast path either declines or reads exactly what serde reads.
    fn fast_equals_serde(text: &str) -> std::result::Result<bool, TestCaseError> {
        let path = Path::new("t.json");
        let serde = SidIndex::parse_with_serde(text.as_bytes(), path, None, None);
        let Some(fast) = parse(text.as_bytes()) else {
            return Ok(false);
        };
        let scheme = fast.scheme;
        let fast =
            SidIndex::from_codes(path, fast.ids, fast.codes, fast.n_levels, None, fast.format)
                .map(|index| index.with_scheme(scheme));
        match (fast, serde) {
            (Ok(f), Ok(s)) => prop_assert_eq!(dump(&f), dump(&s), "{}", text),
            (f, s) => prop_assert!(f.is_err() && s.is_err(), "{text}: {f:?} vs {s:?}"),
        }
        Ok(true)
    }

    /// Large enough to be read in parallel chunks: the chunks of SID strings start at
    /// the `"` after a value's closing quote, those of token lists after its `]`.
    #[test]
    fn other_schemes_are_read_in_chunks() {
        for (scheme, sid_strings) in [
            ("1-2", true),
            ("<s_a_1><s_b_2>", false),
            ("<|sid_1|><|sid_2|>", true),
        ] {
            let scheme = SidScheme::from_name_or_example(scheme).unwrap();
            let items: Vec<String> = (0..100_000u32)
                .map(|i| {
                    let codes = [(i % 7) as Code, (i / 7 % 256) as Code, (i % 65_536) as Code];
                    let value = if sid_strings {
                        format!("\"{}\"", scheme.format_sid(&codes))
                    } else {
                        let tokens: Vec<String> = (0..3)
                            .map(|l| format!("\"{}\"", scheme.format_token(l, codes[l])))
                            .collect();
                        format!("[{}]", tokens.join(", "))
                    };
                    format!("\"{i}\": {value}")
                })
                .collect();
            let text = format!("{{{}}}", items.join(", "));
            assert!(text.len() > 2 * MIN_CHUNK_BYTES, "{}", text.len());
            let (first, value_end) = first_token(text.as_bytes(), 1).unwrap();
            let chunked = parse_in_chunks(
                text.as_bytes(),
                1,
                2,
                sid_scheme::detect(first).unwrap(),
                value_end,
            );
            assert!(chunked.is_some(), "{scheme:?} not read in two chunks");
            assert!(fast_equals_serde(&text).unwrap(), "{scheme:?}");
        }
    }

    /// Ids kept as values alone while they are integers: a chunk's text is written out at
    /// its first other id, or at the join when another chunk kept text, or never.
    #[test]
    fn integer_ids_keep_no_text_until_another_id_needs_it() {
        for other_at in [None, Some(10), Some(60_000), Some(99_999)] {
            let items: Vec<String> = (0..100_000u32)
                .map(|i| {
                    let id = match other_at == Some(i as usize) {
                        true => format!("B{i:05}"),
                        false => i.to_string(),
                    };
                    format!("\"{id}\": [\"<a_{}>\", \"<b_{}>\"]", i % 256, i / 256 % 256)
                })
                .collect();
            let text = format!("{{{}}}", items.join(", "));
            let (first, value_end) = first_token(text.as_bytes(), 1).unwrap();
            let scheme = sid_scheme::detect(first).unwrap();
            let chunked = parse_in_chunks(text.as_bytes(), 1, 2, scheme, value_end)
                .expect("read in two chunks");
            assert_eq!(chunked.ids.rows_are_ids(), other_at.is_none());
            assert_eq!(chunked.ids.has_text(), other_at.is_some(), "{other_at:?}");
            assert!(fast_equals_serde(&text).unwrap(), "{other_at:?}");
        }
    }

    #[test]
    fn fast_path_covers_plain_indexes_and_declines_the_rest() {
        for (text, taken) in [
            (
                r#"{"0": ["<a_1>", "<b_2>"], "1": ["<a_1>", "<b_3>"]}"#,
                true,
            ),
            (" {\"7\":[1,2] ,\n\"x\" : [ 0 , 65535 ] }\n", true),
            (r#"{"é": ["<a_00007>"]}"#, true),
            (r#"{"0": ["<a_1>"], "0": ["<a_2>"]}"#, false),
            (r#"{"0": ["<a_1>"], "1": [2]}"#, false),
            (r#"{"0": ["<a_1>", "<b_2>"], "1": ["<a_1>"]}"#, false),
            (r#"{"0": ["<b_1>"]}"#, false),
            (r#"{"0": ["<a_65536>"]}"#, false),
            (r#"{"0": ["<a_123456>"]}"#, false),
            (r#"{"0": [" <a_1>"]}"#, false),
            (r#"{"0": [01]}"#, false),
            (r#"{"0": [1.0]}"#, false),
            (r#"{"0": [-1]}"#, false),
            (r#"{"0": [70000]}"#, false),
            (r#"{"0": []}"#, false),
            (r#"{"0": "<a_1><b_2>"}"#, true),
            (
                r#"{"0": ["<s_a_1>", "<s_b_2>"], "1": ["<s_a_1>", "<s_b_3>"]}"#,
                true,
            ),
            (r#"{"0": "1-2", "1": " 3 - 4 "}"#, true),
            (
                r#"{"0": "<|sid_begin|><|sid_1|><|sid_2|>", "1": "<|sid_3|><|sid_4|>"}"#,
                false,
            ),
            (r#"{"0": "1-2", "1": [3, 4]}"#, false),
            (r#"{"0": ["<s_a_1>"], "1": ["<a_1>"]}"#, false),
            (r#"{"0": ["<s_a_1>X, "<s_b_2>"]}"#, false),
            (r#"{"0": "1-2X, "1": "3-4"}"#, false),
            (r#"{"0": "1-2", "1": "3,4"}"#, false),
            (r#"{"a\"b": [1]}"#, false),
            (r#"{"0": [1]} x"#, false),
            (r#"{"0": [1],}"#, false),
            (r#"{"0": [1,]}"#, false),
            (r#"{"0": [1, 2, 3, 4, 5, 6, 7, 8, 9]}"#, false),
            ("{}", false),
            ("[1]", false),
        ] {
            assert_eq!(fast_equals_serde(text).unwrap(), taken, "{text}");
        }
    }

    #[test]
    fn large_files_split_over_threads_read_the_same() {
        // Ids ending in `], ` tempt the boundary guess; the proof of each split catches them.
        let mut text = String::from("{");
        for i in 0..120_000 {
            if i > 0 {
                text.push_str(", ");
            }
            let id = if i % 97 == 5 {
                format!("{i}x], ")
            } else {
                i.to_string()
            };
            text.push_str(&format!(
                "\"{id}\": [\"<a_{}>\", \"<b_{}>\"]",
                i % 256,
                i % 7
            ));
        }
        text.push('}');
        assert!(text.len() > 2 * MIN_CHUNK_BYTES);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        assert!(pool.install(|| fast_equals_serde(&text)).unwrap());
    }

    proptest::proptest! {
        // A damaged byte matters where it hits a token's closing quote: many cheap cases.
        #![proptest_config(proptest::test_runner::Config::with_cases(2048))]

        /// Indexes in other token schemes, as token lists or as SID strings (codes up to
        /// 69,999 in any scheme, leading zeros), and random one-byte damage: read as serde
        /// reads them, scheme included, or declined.
        #[test]
        fn other_schemes_agree_with_serde(
            scheme in proptest::sample::select(vec![
                "<A_1><B_2>", "<s_a_1><s_b_2>", "<|sid_begin|><s_a_1><s_b_2><|sid_end|>",
                "<abcdef_a_1><abcdef_b_2>", "<|sid_1|><|sid_2|>", "1-2", "1,2", "1 2", "<a_1><b_2>",
            ]),
            items in proptest::collection::vec(("[0-9a-z]{0,3}", proptest::collection::vec("0?[0-9]{1,4}|6[5-9][0-9]{3}", 1..4)), 1..5),
            sid_strings in proptest::bool::ANY,
            space in "[ \t\n]{0,2}",
            damage in proptest::option::of((0usize..200, proptest::num::u8::ANY)),
        ) {
            let scheme = SidScheme::from_name_or_example(scheme).unwrap();
            let written = |level: usize, code: &str| scheme.format_token(level, 9).replacen('9', code, 1);
            let body: Vec<String> = items
                .iter()
                .map(|(id, codes)| {
                    let value = if sid_strings || !scheme.has_tokens() {
                        let tokens: Vec<String> = codes.iter().enumerate().map(|(l, c)| written(l, c)).collect();
                        let sid = match scheme {
                            SidScheme::Joined { sep } => tokens.join(&(sep as char).to_string()),
                            _ => scheme.format_sid(&[]).replace("<|sid_end|>", &format!("{}<|sid_end|>", tokens.concat())),
                        };
                        let sid = if sid.is_empty() { tokens.concat() } else { sid };
                        format!("\"{sid}\"")
                    } else {
                        let tokens: Vec<String> = codes.iter().enumerate().map(|(l, c)| format!("\"{}\"", written(l, c))).collect();
                        format!("[{}]", tokens.join(&format!(",{space}")))
                    };
                    format!("\"{id}\"{space}:{space}{value}")
                })
                .collect();
            let text = format!("{space}{{{}}}{space}", body.join(&format!("{space},")));
            fast_equals_serde(&text)?;
            if let Some((at, byte)) = damage {
                fast_equals_serde(&crate::load::with_byte_changed(&text, at, byte))?;
            }
        }
    }

    proptest::proptest! {
        /// The word-at-a-time token read accepts and reads exactly what the byte-by-byte
        /// one does: tokens of 0–7 digits with leading zeros, other letters and tails, and
        /// any byte changed.
        #[test]
        fn token_words_agree_with_bytes(
            level in 0usize..4,
            letter in 0u8..6,
            digits in "[0-9]{0,7}",
            tail in proptest::collection::vec(proptest::num::u8::ANY, 0..8),
            closed in proptest::bool::ANY,
            // Not the opening quote: `codes` calls `token` only on one.
            damage in proptest::option::of((1usize..12, proptest::num::u8::ANY)),
        ) {
            let mut bytes = format!("\"<{}_{digits}", (b'a' + letter) as char).into_bytes();
            if closed {
                bytes.extend_from_slice(b">\"");
            }
            bytes.extend_from_slice(&tail);
            bytes.resize(bytes.len().max(12), b' ');
            if let Some((at, byte)) = damage {
                bytes[at] = byte;
            }
            let (mut by_words, mut by_bytes) = (0, 0);
            let window: &[u8; 12] = bytes[..12].try_into().unwrap();
            proptest::prop_assert_eq!(
                token_in_words(window, &mut by_words, level),
                token_by_bytes(&bytes, &mut by_bytes, level)
            );
            proptest::prop_assert_eq!(by_words, by_bytes);
        }

        /// The word-at-a-time id read gives what the byte-by-byte one does: integers with
        /// and without leading zeros, other ids, ids longer than the word, any byte changed.
        #[test]
        fn id_words_agree_with_bytes(
            id in "[0-9]{0,9}|[0-9a-z\"\\\\é]{0,9}",
            tail in proptest::collection::vec(proptest::num::u8::ANY, 0..9),
            damage in proptest::option::of((0usize..9, proptest::num::u8::ANY)),
        ) {
            let mut bytes = format!("\"{id}\"").into_bytes();
            bytes.extend_from_slice(&tail);
            if let Some((at, byte)) = damage {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            let (mut by_words, mut by_bytes) = (0, 0);
            proptest::prop_assert_eq!(
                plain_id(&bytes, &mut by_words),
                plain_id_by_bytes(&bytes, &mut by_bytes)
            );
            proptest::prop_assert_eq!(by_words, by_bytes);
        }

        /// Indexes as json.dump writes them (ids of one to nine digits, some with a leading
        /// zero, codes of up to five digits, one item spaced otherwise) are read by the fast
        /// path whenever every code fits; with random one-byte damage it agrees with serde.
        #[test]
        fn dumped_layout_agrees_with_serde(
            items in proptest::collection::vec(("0?[0-9]{1,8}", proptest::collection::vec(0u32..70_000, 4)), 1..6),
            levels in 1usize..=4,
            odd in proptest::option::of((0usize..6, "[ \t\n]{0,2}")),
            damage in proptest::option::of((0usize..400, proptest::num::u8::ANY)),
        ) {
            let body: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(k, (id, codes))| {
                    let codes: Vec<String> = codes[..levels]
                        .iter()
                        .enumerate()
                        .map(|(l, c)| format!("\"<{}_{c}>\"", (b'a' + l as u8) as char))
                        .collect();
                    match &odd {
                        Some((at, space)) if at % items.len() == k => {
                            format!("\"{id}\"{space}:{space}[{}]", codes.join(&format!(",{space}")))
                        }
                        _ => format!("\"{id}\": [{}]", codes.join(", ")),
                    }
                })
                .collect();
            let text = format!("{{{}}}", body.join(", "));
            let ids: std::collections::HashSet<&String> = items.iter().map(|(id, _)| id).collect();
            let fits = items.iter().all(|(_, c)| c[..levels].iter().all(|&x| x < 65_536));
            let read = fast_equals_serde(&text)?;
            proptest::prop_assert!(read || !fits || ids.len() < items.len(), "declined: {}", text);
            if let Some((at, byte)) = damage {
                fast_equals_serde(&crate::load::with_byte_changed(&text, at, byte))?;
            }
        }

        /// Random small indexes in any spacing, and random one-byte damage.
        #[test]
        fn fast_path_agrees_with_serde(
            items in proptest::collection::vec(("[0-9a-z\"é]{0,4}", proptest::collection::vec(0u32..70000, 1..4)), 1..5),
            tokens in proptest::bool::ANY,
            space in "[ \t\n]{0,2}",
            damage in proptest::option::of((0usize..200, proptest::num::u8::ANY)),
        ) {
            let body: Vec<String> = items
                .iter()
                .map(|(id, codes)| {
                    let codes: Vec<String> = codes
                        .iter()
                        .enumerate()
                        .map(|(l, c)| if tokens { format!("\"<{}_{c}>\"", (b'a' + l as u8) as char) } else { c.to_string() })
                        .collect();
                    format!("\"{id}\"{space}:{space}[{}]", codes.join(&format!(",{space}")))
                })
                .collect();
            let text = format!("{space}{{{}}}{space}", body.join(&format!("{space},")));
            fast_equals_serde(&text)?;
            if let Some((at, byte)) = damage {
                fast_equals_serde(&crate::load::with_byte_changed(&text, at, byte))?;
            }
        }
    }
}
