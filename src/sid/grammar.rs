//! The SID text grammar: `<a_1><b_2><c_3><d_4>` (white space anywhere ignored) into a packed
//! key, without allocating.
//!
//! Every byte-parsing shortcut that Rust cannot check lives here: the SSE2 masks and digit
//! sums over a SID's window, the AVX2/BMI build of the beams' readers
//! ([`with_avx2_and_bmi`]), and text from bytes already known to be ASCII ([`ascii_str`],
//! [`leading_digits`]).
#![allow(unsafe_code)] // SSE2 loads, the AVX2/BMI readers' dispatch, ASCII bytes as `&str`.

use crate::sid::ascii_digits::not_digits;
use crate::sid::{Code, MAX_LEVELS, SidKey};

/// `read(a, b)` compiled for AVX2 and the bit-manipulation sets when the CPU has them, else
/// as it is: the beams' record parser and their Parquet SID reader, whose SID frame masks are
/// then walked with single-instruction bit scans and shifts (10 % fewer instructions for a
/// whole `eval`, the same results). `read` must be an `#[inline(always)]` closure over
/// `#[inline(always)]` readers, so that all of it is compiled into the second build (a function
/// item is called through a shim compiled without the features: 8 % more instructions for a
/// whole `eval`); `a` and `b` are passed as arguments rather than captured, so that the build
/// still knows a `&mut` record aliases nothing (captured, the Parquet reader took 5 % more).
#[inline(always)]
pub fn with_avx2_and_bmi<A, B, R>(a: A, b: B, read: impl FnOnce(A, B) -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_and_bmi() {
        // SAFETY: the CPU has every feature the build enables (checked just above).
        return unsafe { in_avx2_and_bmi(a, b, read) };
    }
    read(a, b)
}

/// [`with_avx2_and_bmi`]'s second build.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
fn in_avx2_and_bmi<A, B, R>(a: A, b: B, read: impl FnOnce(A, B) -> R) -> R {
    read(a, b)
}

/// Whether the CPU has what [`with_avx2_and_bmi`]'s second build is compiled for (AVX2 and
/// the bit-manipulation sets).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx2_and_bmi() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// `bytes` as text when they are all ASCII (`None` otherwise): the common case of a record
/// or an id, checked much faster than `std::str::from_utf8` does.
#[inline]
pub fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if !bytes.is_ascii() {
        return None;
    }
    // SAFETY: ASCII is valid UTF-8 (checked just above).
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// The ASCII digits that open `window` (none to eight of them) as text, found in one word,
/// and that word (little endian) for the caller to fold.
#[inline]
pub fn leading_digits(window: &[u8; 8]) -> (&str, u64) {
    let word = u64::from_le_bytes(*window);
    let n = (not_digits(word).trailing_zeros() / 8) as usize;
    // SAFETY: the first `n` bytes are ASCII digits (`not_digits` flags the lowest byte that is
    // not one, bytes from 0x80 up included), and ASCII is valid UTF-8.
    (unsafe { std::str::from_utf8_unchecked(&window[..n]) }, word)
}

/// Parses a SID string such as `<a_1><b_2> <c_3><d_4>` (white space anywhere ignored) into
/// its packed key and number of levels, without allocating; `None` when it is not a SID.
pub fn parse_sid_key(s: &str) -> Option<(SidKey, u8)> {
    parse_compact_sid(s.as_bytes()).or_else(|| parse_spaced_sid(s.as_bytes()))
}

/// The fast path of [`parse_sid_key`]: a SID written without white space, as generators
/// write them, its codes of one to five digits up to [`Code::MAX`] (what the default token
/// scheme's general reader accepts, without white space).
pub fn parse_compact_sid(b: &[u8]) -> Option<(SidKey, u8)> {
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
#[inline(always)]
pub fn parse_quoted_compact_sid(b: &[u8]) -> Option<(SidKey, u8, usize)> {
    if b.first() != Some(&b'"') {
        return None;
    }
    if let Some(found) = quoted_sid_in_window(b) {
        return Some(found);
    }
    match compact_sid_prefix(&b[1..])? {
        (key, level, end) if level > 0 && b.get(1 + end) == Some(&b'"') => {
            Some((key, level, end + 2))
        }
        _ => None,
    }
}

/// [`parse_quoted_compact_sid`] of a SID whose closing quote is at most 32 bytes after the
/// opening one (L = 4 with codes of up to four digits). One pass of byte masks over the
/// window checks the whole frame at once: each level is `<`, its letter, `_`, digits and a
/// `>` where the next level opens or the string closes. The levels then only read their
/// letter and digits, rather than each finding its own end. `None` when a level is not a
/// short one or the levels do not tile the string exactly; the level-by-level reader then
/// decides, so both agree.
#[inline(always)]
fn quoted_sid_in_window(b: &[u8]) -> Option<(SidKey, u8, usize)> {
    let window: &[u8; 32] = b.get(1..33)?.try_into().ok()?;
    let masks = ByteMasks::of(window);
    // The quote may also be the byte just past the window: `<a_N>` × 4 with N < 10,000.
    let close = match masks.quotes.trailing_zeros() {
        32 if b.get(33) == Some(&b'"') => 32,
        32 => return None,
        q => q,
    };
    let (key, levels) = sid_frame(window, &masks, close)?;
    Some((key, levels, close as usize + 2))
}

/// A SID of `len` bytes (1 to 32) written without white space at the start of `window`,
/// whatever follows it: the string values of a Parquet or Arrow column lie back to back, so
/// a SID's window is itself and the strings after it. The same reading as
/// [`quoted_sid_in_window`], for `parse_compact_sid(&window[..len])`; `None` where that
/// reader must decide.
#[inline]
pub fn sid_in_window(window: &[u8; 32], len: usize) -> Option<(SidKey, u8)> {
    if !(1..=32).contains(&len) {
        return None;
    }
    sid_frame(window, &ByteMasks::of(window), len as u32)
}

/// The levels of the SID that fills `window[..close]` (`masks` its byte masks, `close` ≥ 1):
/// its key and number of levels, when every level is a short one and they tile it.
#[inline(always)]
fn sid_frame(window: &[u8; 32], masks: &ByteMasks, close: u32) -> Option<(SidKey, u8)> {
    let inside = ((1u64 << close) - 1) as u32;
    let opens = masks.opens & inside;
    if opens & 1 == 0 {
        return None;
    }
    // `close` is at least 1 here: byte 0 is a `<` inside the SID.
    let ends = ((opens >> 1) | (1 << (close - 1))) & inside;
    let underscores = (opens << 2) & inside;
    let digits = inside & !(opens | (opens << 1) | underscores | ends);
    if masks.closes & inside != ends
        || masks.underscores & inside != underscores
        || masks.digits & digits != digits
    {
        return None;
    }
    // Each level holds one to four digits: no `>` right after its `_`, no five digits in a
    // row. With the frame's bytes where the masks put them, the k-th `<` then pairs with the
    // k-th `>`, 5 to 8 bytes apart. Up to four such levels are read at once; the loop below
    // reads the others, and decides every case that read declines.
    #[cfg(target_arch = "x86_64")]
    {
        let five_digits = digits & (digits >> 1) & (digits >> 2) & (digits >> 3) & (digits >> 4);
        if (underscores << 1) & ends == 0
            && five_digits == 0
            && let Some((key, levels)) = short_levels_at_once(window, opens, ends)
        {
            return Some((key, levels));
        }
    }
    // At least five bytes a level: the 33 bytes hold at most six, below `MAX_LEVELS`.
    const _: () = assert!(33 / 5 <= MAX_LEVELS);
    let mut starts = opens;
    let mut key: SidKey = 0;
    let mut level = 0;
    while starts != 0 {
        let at = starts.trailing_zeros() as usize;
        starts &= starts - 1;
        let next = match starts {
            0 => close as usize,
            _ => starts.trailing_zeros() as usize,
        };
        // The masks placed the frame; a level of one to four digits is 5 to 8 bytes long,
        // which also keeps its `<`, letter, `_` and `>` apart.
        let n_digits = next.wrapping_sub(at + 4);
        if !(1..=4).contains(&n_digits) || window[at + 1] != b'a' + level {
            return None;
        }
        key = (key << 16) | SidKey::from(short_code(window, next - 1, n_digits));
        level += 1;
    }
    Some((key, level))
}

/// The key of one to four levels whose `<` and `>` are the set bits of `opens` and `ends`
/// (paired in order, each level 5 to 8 bytes, digits between its `_` and `>`), every code
/// computed at once: the four bytes before each `>` go to one lane of a vector, the bytes
/// that are not digits there (the level's `<`, letter and `_`) become leading zeros, and
/// one multiply-add with 1000, 100, 10, 1 gives the codes. `None` when a letter is not the
/// level's own or there are more than four levels.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn short_levels_at_once(window: &[u8; 32], opens: u32, ends: u32) -> Option<(SidKey, u8)> {
    use std::arch::x86_64::{
        _mm_add_epi32, _mm_and_si128, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_madd_epi16,
        _mm_min_epu8, _mm_packs_epi32, _mm_set_epi16, _mm_set_epi32, _mm_set1_epi8,
        _mm_setzero_si128, _mm_shuffle_epi32, _mm_shufflelo_epi16, _mm_srli_epi64,
        _mm_unpackhi_epi8, _mm_unpacklo_epi8, _mm_unpacklo_epi64, _mm_xor_si128,
    };
    let (mut opens_left, mut ends_left, mut n_levels) = (opens, ends, 0u32);
    let mut next_level = |level| {
        next_short_level(
            window,
            &mut opens_left,
            &mut ends_left,
            &mut n_levels,
            level,
        )
    };
    let (w0, w1, w2, w3) = (
        next_level(0)?,
        next_level(1)?,
        next_level(2)?,
        next_level(3)?,
    );
    if opens_left != 0 {
        return None;
    }
    // SAFETY: SSE2 is part of the x86_64 baseline, and these touch no memory.
    let four = unsafe {
        let values = _mm_xor_si128(_mm_set_epi32(w3, w2, w1, w0), _mm_set1_epi8(b'0' as i8));
        let digits = _mm_and_si128(
            values,
            _mm_cmpeq_epi8(_mm_min_epu8(values, _mm_set1_epi8(9)), values),
        );
        let place = _mm_set_epi16(1, 10, 100, 1000, 1, 10, 100, 1000);
        let zero = _mm_setzero_si128();
        // Per level two sums (thousands and hundreds, tens and ones), added pairwise.
        let halves = |v| _mm_add_epi32(v, _mm_srli_epi64::<32>(v));
        let first = halves(_mm_madd_epi16(_mm_unpacklo_epi8(digits, zero), place));
        let second = halves(_mm_madd_epi16(_mm_unpackhi_epi8(digits, zero), place));
        let codes = _mm_unpacklo_epi64(
            _mm_shuffle_epi32::<0b10_00_10_00>(first),
            _mm_shuffle_epi32::<0b10_00_10_00>(second),
        );
        // Codes below 10,000 fit 16 bits; the first level goes to the top of the key.
        let packed = _mm_shufflelo_epi16::<0b00_01_10_11>(_mm_packs_epi32(codes, codes));
        _mm_cvtsi128_si64(packed) as u64
    };
    Some((SidKey::from(four >> (16 * (4 - n_levels))), n_levels as u8))
}

/// The four bytes before the `>` of the next level in `opens_left` and `ends_left` (zero
/// past the last level, which reads as no digits), after checking its letter; `n_levels`
/// counts the levels taken.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn next_short_level(
    window: &[u8; 32],
    opens_left: &mut u32,
    ends_left: &mut u32,
    n_levels: &mut u32,
    level: u8,
) -> Option<i32> {
    if *opens_left == 0 {
        return Some(0);
    }
    *n_levels += 1;
    let at = opens_left.trailing_zeros() as usize;
    let end = ends_left.trailing_zeros() as usize;
    *opens_left &= *opens_left - 1;
    *ends_left &= *ends_left - 1;
    if window[(at + 1) & 31] != b'a' + level {
        return None;
    }
    Some(i32::from_le_bytes(window[end - 4..end].try_into().ok()?))
}

/// The code of `n_digits` (1 to 4) digits just before the `>` at `window[end]`, from the
/// four bytes before it: those behind the digits are masked to leading zeros and the digits
/// folded pairwise, without a branch per byte.
#[inline(always)]
fn short_code(window: &[u8; 32], end: usize, n_digits: usize) -> u16 {
    const ZEROS: u32 = u32::from_le_bytes([b'0'; 4]);
    let word = u32::from_le_bytes([
        window[end - 4],
        window[end - 3],
        window[end - 2],
        window[end - 1],
    ]);
    let mut x = (word ^ ZEROS) & (u32::MAX << (8 * (4 - n_digits)));
    x = (x * 10 + (x >> 8)) & 0x00FF_00FF;
    x = (x * 100 + (x >> 16)) & 0xFFFF;
    x as u16
}

/// Bit `i` of each mask set where `window[i]` is that byte: the SID frame's `<`, `>`, `_`,
/// the closing `"`, and the digits.
#[derive(Debug, PartialEq, Eq)]
struct ByteMasks {
    opens: u32,
    closes: u32,
    underscores: u32,
    quotes: u32,
    digits: u32,
}

impl ByteMasks {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn of(window: &[u8; 32]) -> Self {
        use std::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8,
            _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        let halves = window.as_chunks::<16>().0;
        // SAFETY: SSE2 is part of the x86_64 baseline, and each load reads one 16-byte half.
        unsafe {
            #[allow(clippy::cast_ptr_alignment, reason = "`loadu` needs no alignment")]
            let (lo, hi) = (
                _mm_loadu_si128(halves[0].as_ptr().cast::<__m128i>()),
                _mm_loadu_si128(halves[1].as_ptr().cast::<__m128i>()),
            );
            let bits = |l: __m128i, h: __m128i| {
                (_mm_movemask_epi8(l) as u32 & 0xFFFF) | ((_mm_movemask_epi8(h) as u32) << 16)
            };
            let equal = |c: u8| {
                let c = _mm_set1_epi8(c as i8);
                bits(_mm_cmpeq_epi8(lo, c), _mm_cmpeq_epi8(hi, c))
            };
            // Signed compares: bytes from 0x80 up are negative, so never above '0' − 1.
            let (above, below) = (_mm_set1_epi8(b'0' as i8 - 1), _mm_set1_epi8(b'9' as i8 + 1));
            let digit =
                |v: __m128i| _mm_and_si128(_mm_cmpgt_epi8(v, above), _mm_cmplt_epi8(v, below));
            let digits = bits(digit(lo), digit(hi));
            ByteMasks {
                opens: equal(b'<'),
                closes: equal(b'>'),
                underscores: equal(b'_'),
                quotes: equal(b'"'),
                digits,
            }
        }
    }

    /// The masks byte by byte (the portable build).
    #[cfg(any(not(target_arch = "x86_64"), test))]
    fn of_portable(window: &[u8; 32]) -> Self {
        let mask = |keep: fn(u8) -> bool| {
            window
                .iter()
                .enumerate()
                .fold(0, |m, (i, &c)| m | (u32::from(keep(c)) << i))
        };
        ByteMasks {
            opens: mask(|c| c == b'<'),
            closes: mask(|c| c == b'>'),
            underscores: mask(|c| c == b'_'),
            quotes: mask(|c| c == b'"'),
            digits: mask(|c| c.is_ascii_digit()),
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of(window: &[u8; 32]) -> Self {
        Self::of_portable(window)
    }
}

/// The levels `<a_N><b_N>…` at the start of `b` and where they stop (at the first byte that
/// does not open a level); `None` when a level is malformed or there are too many.
fn compact_sid_prefix(b: &[u8]) -> Option<(SidKey, u8, usize)> {
    let mut i = 0;
    let mut key: SidKey = 0;
    let mut level = 0u8;
    while b.get(i) == Some(&b'<') {
        if level as usize == MAX_LEVELS {
            return None;
        }
        let (code, end) = match short_level(b, i, level) {
            Some(found) => found,
            None => level_bytewise(b, i, level)?,
        };
        i = end;
        key = (key << 16) | SidKey::from(code);
        level += 1;
    }
    Some((key, level, i))
}

/// The level opening at `b[i]` (a `<`) when it is `<x_N>` with one to four digits and the
/// whole level lies in the eight bytes from `i`: its code and end, read from one 64-bit word
/// (where the digits stop and their value, without a branch per byte). `None` leaves the
/// level to [`level_bytewise`], which also decides every malformed case, so both agree.
#[inline]
fn short_level(b: &[u8], i: usize, level: u8) -> Option<(u16, usize)> {
    const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);
    let word = u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?);
    if (word >> 8) & 0xFFFF != u64::from(u16::from_le_bytes([b'a' + level, b'_'])) {
        return None;
    }
    // A byte is a digit when its value minus '0' is below 10: adding 0x76 to the low seven
    // bits sets the top bit from 10 up, never carrying into the next byte.
    let offsets = word ^ ZEROS;
    let not_digit = (((offsets & 0x7F7F_7F7F_7F7F_7F7F) + 0x7676_7676_7676_7676) | offsets)
        & 0x8080_8080_8080_8080;
    // Bytes 3..8 may hold digits; a stop is set after them so five digits read as "too long".
    let digits = (((not_digit >> 24) | (1 << 47)).trailing_zeros() / 8) as usize;
    if !(1..=4).contains(&digits) || (word >> (8 * (3 + digits))) as u8 != b'>' {
        return None;
    }
    // The digits, right-aligned in four bytes behind leading zeros, folded pairwise.
    let mut x = ((offsets >> 24) & ((1 << (8 * digits)) - 1)) << (8 * (4 - digits));
    x = (x * 10 + (x >> 8)) & 0x00FF_00FF;
    x = (x * 100 + (x >> 16)) & 0xFFFF;
    Some((x as u16, i + 4 + digits))
}

/// The level opening at `b[i]` (a `<`) read byte by byte: its code and end, `None` when it is
/// not `<x_N>` with the level's letter and a code of one to five digits up to [`Code::MAX`].
fn level_bytewise(b: &[u8], mut i: usize, level: u8) -> Option<(u16, usize)> {
    if b.get(i + 1..i + 3)? != [b'a' + level, b'_'] {
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
    Some((code as u16, i + 1))
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

    #[test]
    fn leading_digits_stop_at_the_first_byte_that_is_not_an_ascii_digit() {
        for at in 0..8 {
            for byte in 0..=255u8 {
                let mut window = *b"90817263";
                window[at] = byte;
                let want = window.iter().take_while(|c| c.is_ascii_digit()).count();
                let (digits, word) = leading_digits(&window);
                assert_eq!(digits.as_bytes(), &window[..want], "{byte:#x} at {at}");
                assert_eq!(word, u64::from_le_bytes(window));
            }
        }
        assert_eq!(ascii_str(b"<a_1>"), Some("<a_1>"));
        assert_eq!(ascii_str("é".as_bytes()), None);
    }
    use proptest::prelude::*;

    /// Strings near the SID grammar: pieces of SIDs, quotes, escapes, spaces, long codes.
    fn near_sid() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            (0u8..10, 0u32..70_000).prop_map(|(l, c)| format!("<{}_{c}>", (b'a' + l) as char)),
            (0u8..4).prop_map(|l| format!("<{}_>", (b'a' + l) as char)),
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

    /// The word-at-a-time level reader agrees with the byte-by-byte one wherever it answers,
    /// and answers for every short level with room behind it.
    #[test]
    fn short_levels_read_as_byte_by_byte() {
        for level in 0..3u8 {
            for code in (0..10_000u32).chain([65_535, 99_999, 123_456]) {
                for digits in [format!("{code}"), format!("0{code}"), format!("00{code}")] {
                    for tail in ["\"xyzw", ">", "", "x\"abcdefgh"] {
                        let text = format!("<{}_{digits}>{tail}", (b'a' + level) as char);
                        let bytes = text.as_bytes();
                        let short = short_level(bytes, 0, level);
                        let bytewise = level_bytewise(bytes, 0, level);
                        if let Some(found) = short {
                            assert_eq!(Some(found), bytewise, "{text}");
                        } else if digits.len() <= 4 && bytes.len() >= 8 {
                            panic!("{text}: the short reader declined");
                        }
                    }
                }
            }
        }
    }

    /// The SIDs generators write, up to four levels of four digits, are read in the window;
    /// longer ones are left to the level-by-level reader.
    #[test]
    fn usual_sids_are_read_in_the_window() {
        let read = |text: &str| quoted_sid_in_window(text.as_bytes());
        let key = crate::sid::sid_key(&[176, 159, 187, 1]);
        assert_eq!(
            read("\"<a_176><b_159><c_187><d_1>\", \"<a_1>"),
            Some((key, 4, "\"<a_176><b_159><c_187><d_1>\"".len()))
        );
        let wide = "\"<a_8191><b_8191><c_8191><d_8191>\"]";
        assert_eq!(read(wide), Some((crate::sid::sid_key(&[8191; 4]), 4, 34)));
        assert_eq!(read("\"<a_8191><b_8191><c_8191><d_8191><e_1>\""), None);
        assert_eq!(read("\"<a_1><b_12345><c_1>\"                 "), None);
        assert_eq!(read("\"<a_1><c_2>\"                           "), None);
        assert_eq!(read("\"<a_1><b_2>x\"                          "), None);
    }

    proptest! {
        /// Near-SID text: wherever the word-at-a-time reader answers, the byte-by-byte one
        /// gives the same level.
        #[test]
        fn a_short_level_is_the_bytewise_level(text in near_sid(), level in 0u8..3) {
            let bytes = text.as_bytes();
            for (i, _) in text.match_indices('<') {
                if let Some(found) = short_level(bytes, i, level) {
                    prop_assert_eq!(Some(found), level_bytewise(bytes, i, level));
                }
            }
        }

        /// The windowed read of a quoted SID gives what the level-by-level read gives, and
        /// the SSE2 masks are the portable ones.
        #[test]
        fn a_windowed_sid_is_the_level_by_level_sid(body in near_sid(), after in near_sid()) {
            let text = format!("\"{body}\"{after}");
            let b = text.as_bytes();
            if let Some((key, levels, len)) = quoted_sid_in_window(b) {
                let by_level = compact_sid_prefix(&b[1..]).map(|(k, l, end)| (k, l, end + 2));
                prop_assert_eq!(Some((key, levels, len)), by_level);
            }
            if let Some(window) = b.get(1..33) {
                let window: &[u8; 32] = window.try_into().unwrap();
                prop_assert_eq!(ByteMasks::of(window), ByteMasks::of_portable(window));
            }
        }

        /// An unquoted SID read in its window (whatever follows it) gives what the
        /// level-by-level read of the string alone gives, and reads every usual SID.
        #[test]
        fn an_unquoted_windowed_sid_is_the_level_by_level_sid(
            body in near_sid(),
            usual in prop::collection::vec(0u32..10_000, 1..5),
            change in (0usize..32, prop::sample::select(b"<>_\"09adx ".to_vec())),
            after in near_sid(),
        ) {
            let usual: String = usual
                .iter()
                .enumerate()
                .map(|(l, c)| format!("<{}_{c}>", (b'a' + l as u8) as char))
                .collect();
            let mut changed = usual.clone().into_bytes();
            let at = change.0 % changed.len();
            changed[at] = change.1;
            let changed = String::from_utf8(changed).unwrap();
            for sid in [body, usual.clone(), changed] {
                let mut bytes = format!("{sid}{after}").into_bytes();
                bytes.resize(bytes.len().max(32), b'>');
                let window: &[u8; 32] = bytes[..32].try_into().unwrap();
                let alone = parse_compact_sid(sid.as_bytes());
                match sid_in_window(window, sid.len()) {
                    Some(found) => prop_assert_eq!(Some(found), alone),
                    None => prop_assert!(sid != usual || sid.len() > 32, "{} declined", sid),
                }
            }
        }

        /// SIDs of up to four-digit codes, one byte of them perhaps replaced by a frame byte:
        /// the window reads every intact one that fits, and whatever it reads is what the
        /// level-by-level reader gives.
        #[test]
        fn a_sid_with_a_byte_changed_reads_as_level_by_level(
            codes in prop::collection::vec((0u32..10_000, 0usize..3), 1..7),
            change in prop::option::of((0usize..40, prop::sample::select(b"<>_\"09adx ".to_vec()))),
            after in near_sid(),
        ) {
            let sid: String = codes
                .iter()
                .enumerate()
                .map(|(l, &(code, zeros))| {
                    let digits = format!("{}{code}", "0".repeat(zeros));
                    let digits = &digits[digits.len().saturating_sub(4)..];
                    format!("<{}_{digits}>", (b'a' + l as u8) as char)
                })
                .collect();
            let mut text = format!("\"{sid}\"{after}").into_bytes();
            let intact = change.is_none_or(|(at, byte)| text.get(at).is_none_or(|&b| b == byte));
            if let Some((at, byte)) = change && at < text.len() {
                text[at] = byte;
            }
            let by_level = compact_sid_prefix(&text[1..])
                .filter(|&(_, l, end)| l > 0 && text.get(1 + end) == Some(&b'"'))
                .map(|(k, l, end)| (k, l, end + 2));
            let windowed = quoted_sid_in_window(&text);
            if let Some(found) = windowed {
                prop_assert_eq!(Some(found), by_level);
            }
            if intact && sid.len() <= 32 && text.len() >= 33 {
                prop_assert!(windowed.is_some(), "{sid} was not read in the window");
            }
        }

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
