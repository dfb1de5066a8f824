//! The SID text grammar: `<a_1><b_2><c_3><d_4>` (white space anywhere ignored) into a packed
//! key, without allocating.

use crate::sid::{Code, MAX_LEVELS, SidKey};

/// Parses a SID string such as `<a_1><b_2> <c_3><d_4>` (white space anywhere ignored) into
/// its packed key and number of levels, without allocating; `None` when it is not a SID.
pub fn parse_sid_key(s: &str) -> Option<(SidKey, u8)> {
    parse_compact_sid(s.as_bytes()).or_else(|| parse_spaced_sid(s.as_bytes()))
}

/// The fast path of [`parse_sid_key`]: a SID written without white space, as generators
/// write them.
fn parse_compact_sid(b: &[u8]) -> Option<(SidKey, u8)> {
    match compact_sid_prefix(b)? {
        (key, level, end) if end == b.len() && level > 0 => Some((key, level)),
        _ => None,
    }
}

/// A JSON string holding a SID written without white space, at the start of `b` (its opening
/// quote first): the key, levels and the length up to and with the closing quote. Such a
/// string has no escapes or control characters, so this is `parse_compact_sid` of the
/// string's contents, read in one pass; `None` for anything else (the caller then reads the
/// string the general way).
pub fn parse_quoted_compact_sid(b: &[u8]) -> Option<(SidKey, u8, usize)> {
    if b.first() != Some(&b'"') {
        return None;
    }
    match compact_sid_prefix(&b[1..])? {
        (key, level, end) if level > 0 && b.get(1 + end) == Some(&b'"') => {
            Some((key, level, end + 2))
        }
        _ => None,
    }
}

/// The levels `<a_N><b_N>…` at the start of `b` and where they stop (at the first byte that
/// does not open a level); `None` when a level is malformed or there are too many.
fn compact_sid_prefix(b: &[u8]) -> Option<(SidKey, u8, usize)> {
    let mut i = 0;
    let mut key: SidKey = 0;
    let mut level = 0u8;
    while b.get(i) == Some(&b'<') {
        if level as usize == MAX_LEVELS || b.get(i + 1..i + 3)? != [b'a' + level, b'_'] {
            return None;
        }
        i += 3;
        let start = i;
        let mut code: u32 = 0;
        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            code = code * 10 + u32::from(d - b'0');
            i += 1;
            if i - start > 5 {
                return None;
            }
        }
        if i == start || b.get(i) != Some(&b'>') || code > u32::from(Code::MAX) {
            return None;
        }
        i += 1;
        key = (key << 16) | SidKey::from(code);
        level += 1;
    }
    Some((key, level, i))
}

/// The general path of [`parse_sid_key`], white space allowed anywhere.
fn parse_spaced_sid(b: &[u8]) -> Option<(SidKey, u8)> {
    let mut i = 0;
    let mut key: SidKey = 0;
    let mut level = 0u8;
    let skip = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip(&mut i);
        if i == b.len() {
            break;
        }
        if b[i] != b'<' || level as usize == MAX_LEVELS {
            return None;
        }
        i += 1;
        skip(&mut i);
        if b.get(i) != Some(&(b'a' + level)) {
            return None;
        }
        i += 1;
        skip(&mut i);
        if b.get(i) != Some(&b'_') {
            return None;
        }
        i += 1;
        let mut code: u32 = 0;
        let mut digits = 0;
        loop {
            skip(&mut i);
            match b.get(i) {
                Some(&d) if d.is_ascii_digit() => {
                    code = code * 10 + u32::from(d - b'0');
                    if code > u32::from(Code::MAX) {
                        return None;
                    }
                    digits += 1;
                    i += 1;
                }
                Some(b'>') if digits > 0 => {
                    i += 1;
                    break;
                }
                _ => return None,
            }
        }
        key = (key << 16) | SidKey::from(code);
        level += 1;
    }
    (level > 0).then_some((key, level))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Strings near the SID grammar: pieces of SIDs, quotes, escapes, spaces, long codes.
    fn near_sid() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            (0u8..10, 0u32..70_000).prop_map(|(l, c)| format!("<{}_{c}>", (b'a' + l) as char)),
            Just("<".to_string()),
            Just(">".to_string()),
            Just("_".to_string()),
            Just("\"".to_string()),
            Just("\\\"".to_string()),
            Just(" ".to_string()),
            Just("000001".to_string()),
            Just("\n".to_string()),
        ];
        prop::collection::vec(piece, 0..12).prop_map(|p| p.concat())
    }

    proptest! {
        /// The one-pass read of a quoted SID is the string read first, then parsed, or it
        /// declines (and the caller reads the string the general way).
        #[test]
        fn a_quoted_compact_sid_reads_as_its_string_parsed(body in near_sid(), after in near_sid()) {
            let text = format!("\"{body}{after}");
            if let Some((key, levels, len)) = parse_quoted_compact_sid(text.as_bytes()) {
                let contents = &text[1..len - 1];
                prop_assert_eq!(text.as_bytes()[len - 1], b'"');
                prop_assert!(!contents.contains(['"', '\\']) && !contents.contains(char::is_control));
                prop_assert_eq!(parse_sid_key(contents), Some((key, levels)));
            }
            let sids = ["<a_1>", "<a_12><b_3>", "<a_65535><b_0><c_7><d_99999>"];
            for sid in sids {
                let quoted = format!("\"{sid}\"{after}");
                let want = parse_sid_key(sid).map(|(k, l)| (k, l, sid.len() + 2));
                prop_assert_eq!(parse_quoted_compact_sid(quoted.as_bytes()), want);
            }
        }
    }
}
