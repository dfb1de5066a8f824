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
    let mut i = 0;
    let mut key: SidKey = 0;
    let mut level = 0u8;
    while i < b.len() {
        if level as usize == MAX_LEVELS || b.get(i..i + 3)? != [b'<', b'a' + level, b'_'] {
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
    (level > 0).then_some((key, level))
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
