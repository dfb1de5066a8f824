//! How a pipeline writes the codes of a SID: level letters (`<a_1>`, `<A_1>`, prefixed
//! `<s_a_1>`), wrapped in `<|sid_begin|>…<|sid_end|>`, one vocabulary (`<|sid_N|>`, level by
//! position), integer lists, or joined integers (`12-7-201-3`). Detected from a file, parsed
//! into codes and written back the same way.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::sid::ascii_digits::{fold_digits, not_digits};
use crate::sid::{Code, MAX_LEVELS, SidKey};

/// The opening marker of a wrapped SID (OpenOneRec).
pub const WRAP_BEGIN: &str = "<|sid_begin|>";
/// The closing marker of a wrapped SID.
pub const WRAP_END: &str = "<|sid_end|>";
/// The token prefix of the single-vocabulary scheme, `<|sid_12|>`.
const VOCAB_OPEN: &str = "<|sid_";
const VOCAB_CLOSE: &str = "|>";

/// The longest token prefix before the level letter (`s_` in `<s_a_1>`).
const MAX_PREFIX: usize = 15;

/// A token prefix written before the level letter, such as `s_` in `<s_a_1>` (kept inline so
/// a scheme is `Copy` and costs nothing per SID).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Prefix {
    len: u8,
    bytes: [u8; MAX_PREFIX],
    /// The first eight bytes, little endian (zeros past the end): a token's head is built
    /// from it for every SID read.
    word: u64,
}

impl Prefix {
    /// The prefix from `s` when it is one: empty, or ASCII letters, digits and `_` ending in
    /// `_`, at most 15 bytes.
    pub fn new(s: &str) -> Option<Prefix> {
        let ok = s.is_empty()
            || (s.len() <= MAX_PREFIX
                && s.ends_with('_')
                && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        ok.then(|| {
            let mut p = Prefix {
                len: s.len() as u8,
                bytes: [0; MAX_PREFIX],
                word: 0,
            };
            p.bytes[..s.len()].copy_from_slice(s.as_bytes());
            p.word = u64::from_le_bytes(p.bytes[..8].try_into().expect("eight bytes"));
            p
        })
    }

    /// The prefix's bytes.
    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len).min(MAX_PREFIX)]
    }

    /// The prefix as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

impl std::fmt::Debug for Prefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// One way of writing the codes of a SID. Every scheme packs into the same [`SidKey`], so
/// files in different schemes compare by their codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SidScheme {
    /// `<a_1><b_2>`: one token per level, the level named by a letter (`A`, `B`, … when
    /// `upper`), after an optional `prefix` (`<s_a_1>`), optionally wrapped in
    /// `<|sid_begin|>…<|sid_end|>`.
    Letters {
        /// Level letters in upper case (`<A_1>`, MQL4GRec's image index).
        upper: bool,
        /// Text before the letter, `s_` in OpenOneRec's `<s_a_1>`.
        prefix: Prefix,
        /// Wrapped in `<|sid_begin|>…<|sid_end|>`.
        wrapped: bool,
    },
    /// `<|sid_12|><|sid_7|>`: one vocabulary for every level, the level given by position
    /// and the code by the number.
    Vocab {
        /// Wrapped in `<|sid_begin|>…<|sid_end|>`.
        wrapped: bool,
    },
    /// `12-7-201-3`: integers joined by one separator (`-`, `,`, `_`, `|`, `:`, `/`, `.` or
    /// a space; spaces around the parts are ignored).
    Joined {
        /// The separator byte.
        sep: u8,
    },
    /// JSON lists of integers, `[12, 7, 201, 3]`.
    Integers,
}

/// Separators accepted between joined integers.
const SEPARATORS: &[u8] = b"-,_|:/. ";

impl Default for SidScheme {
    fn default() -> Self {
        SidScheme::LETTERS
    }
}

impl SidScheme {
    /// The LETTER / CollisionGenRec scheme, `<a_1><b_2><c_3><d_4>`.
    pub const LETTERS: SidScheme = SidScheme::Letters {
        upper: false,
        prefix: Prefix {
            len: 0,
            bytes: [0; MAX_PREFIX],
            word: 0,
        },
        wrapped: false,
    };

    /// Reads a scheme given by name (`letters`, `upper`, `openonerec`, `vocab`, `dash`,
    /// `comma`, `integers`) or by an example SID written in it (`<A_1><B_2>`, `1-2-3`).
    pub fn from_name_or_example(s: &str) -> Option<SidScheme> {
        let named = match s.trim() {
            "letters" | "a" => Some(SidScheme::LETTERS),
            "upper" | "A" => Some(SidScheme::Letters {
                upper: true,
                prefix: Prefix::default(),
                wrapped: false,
            }),
            "openonerec" => Some(SidScheme::Letters {
                upper: false,
                prefix: Prefix::new("s_")?,
                wrapped: true,
            }),
            "vocab" => Some(SidScheme::Vocab { wrapped: false }),
            "dash" => Some(SidScheme::Joined { sep: b'-' }),
            "comma" => Some(SidScheme::Joined { sep: b',' }),
            "integers" => Some(SidScheme::Integers),
            _ => None,
        };
        named.or_else(|| {
            let t = s.trim();
            if t.starts_with('[') && t.ends_with(']') {
                return Some(SidScheme::Integers);
            }
            parse_any(t).map(|(scheme, _, _)| scheme)
        })
    }

    /// Whether the scheme writes one token per level, so an index may list the tokens.
    pub fn has_tokens(self) -> bool {
        matches!(self, SidScheme::Letters { .. } | SidScheme::Vocab { .. })
    }

    /// Whether the scheme wraps SIDs in `<|sid_begin|>…<|sid_end|>`.
    fn wrapped(self) -> bool {
        matches!(
            self,
            SidScheme::Letters { wrapped: true, .. } | SidScheme::Vocab { wrapped: true }
        )
    }

    /// The scheme as an example SID of two levels, `<a_1><b_2>`, `1-2`, `[1, 2]`: what
    /// `stats` reports and what `--sid-format` accepts.
    pub fn example(self) -> String {
        match self {
            SidScheme::Integers => "[1, 2]".into(),
            _ => self.format_sid(&[1, 2]),
        }
    }

    /// Writes one level's token, `<b_244>` (for schemes without tokens: the bare code).
    pub fn format_token(self, level: usize, code: Code) -> String {
        let mut s = String::new();
        self.push_token(&mut s, level, code);
        s
    }

    fn push_token(self, s: &mut String, level: usize, code: Code) {
        match self {
            SidScheme::Letters { upper, prefix, .. } => {
                let base = if upper { b'A' } else { b'a' };
                let _ = write!(
                    s,
                    "<{}{}_{code}>",
                    prefix.as_str(),
                    (base + level as u8) as char
                );
            }
            SidScheme::Vocab { .. } => {
                let _ = write!(s, "{VOCAB_OPEN}{code}{VOCAB_CLOSE}");
            }
            SidScheme::Joined { .. } | SidScheme::Integers => {
                let _ = write!(s, "{code}");
            }
        }
    }

    /// Writes `codes` as one SID string in this scheme (integer lists as joined by `, `).
    pub fn format_sid(self, codes: &[Code]) -> String {
        let mut s = String::with_capacity(codes.len() * 8 + 24);
        if self.wrapped() {
            s.push_str(WRAP_BEGIN);
        }
        for (level, &c) in codes.iter().enumerate() {
            match self {
                SidScheme::Joined { sep } if level > 0 => s.push(sep as char),
                SidScheme::Integers if level > 0 => s.push_str(", "),
                _ => {}
            }
            self.push_token(&mut s, level, c);
        }
        if self.wrapped() {
            s.push_str(WRAP_END);
        }
        s
    }

    /// Parses a whole SID string in this scheme into its packed key and number of levels;
    /// `None` when it is not a SID of this scheme. White space between tokens is ignored.
    pub fn parse_sid(self, s: &str) -> Option<(SidKey, u8)> {
        self.parse_compact(s.as_bytes())
            .or_else(|| self.parse_sid_in_general(s))
    }

    /// [`SidScheme::parse_sid`] of a SID written as generators write them, without white
    /// space, in one pass over the bytes with no copy: a Parquet index of 1M SIDs spent a
    /// third of its load in the general path's token search, and beams in other schemes
    /// than the default took five to fourteen times as long. `None` at anything else, which the
    /// general path then decides. What it reads is printable ASCII (no quote, backslash or
    /// control character), and `detect` names this scheme for it: joined integers count
    /// only with two levels or more (`7` alone is detected as dash-joined).
    pub fn parse_compact(self, b: &[u8]) -> Option<(SidKey, u8)> {
        self.parse_compact_in(b, b.len())
    }

    /// A JSON string holding a compact SID in this scheme, at the start of `b` (its opening
    /// quote first): key, levels and the length up to and with the closing quote. The compact
    /// SID holds no quote, backslash or control character ([`SidScheme::parse_compact`]), so
    /// the string ends at the next quote and is what JSON says it is; the text after it serves
    /// as slack.
    #[inline(always)]
    pub fn parse_quoted_compact_in(self, b: &[u8]) -> Option<(SidKey, u8, usize)> {
        if b.first() != Some(&b'"') {
            return None;
        }
        let len = memchr::memchr(b'"', &b[1..])?;
        let (key, n_levels) = self.parse_compact_in(&b[1..], len)?;
        Some((key, n_levels, len + 2))
    }

    /// [`SidScheme::parse_compact`] of the SID `b[..len]`. The bytes of `b` after it (in a
    /// record, the text that follows the SID) let its last tokens be read a word at a time
    /// as well; they are never part of the SID.
    #[inline]
    pub fn parse_compact_in(self, b: &[u8], len: usize) -> Option<(SidKey, u8)> {
        match self {
            SidScheme::LETTERS => crate::sid::grammar::parse_compact_sid(&b[..len]),
            SidScheme::Letters { .. } | SidScheme::Vocab { .. } => {
                self.parse_compact_tokens(b, len)
            }
            SidScheme::Joined { sep } => joined_compact(&b[..len], sep),
            SidScheme::Integers => None,
        }
    }

    /// [`SidScheme::parse_sid`] when `detect(s)` names this scheme as well, so that a reader
    /// who already knows the scheme of its SIDs can skip detecting it again; `None` when it
    /// is not such a SID (it may still be one, which `parse_any` then tells). For letters
    /// and the vocabulary every SID the scheme reads is one; joined integers qualify as
    /// [`SidScheme::parse_compact`] reads them (detection reads white space differently
    /// from the parser).
    pub fn parse_sid_detected_as_self(self, s: &str) -> Option<(SidKey, u8)> {
        match self {
            SidScheme::Letters { .. } | SidScheme::Vocab { .. } => self.parse_sid(s),
            SidScheme::Joined { .. } | SidScheme::Integers => self.parse_compact(s.as_bytes()),
        }
    }

    /// [`SidScheme::parse_sid_in_general`] of a letters or vocabulary SID `b[..len]`
    /// written without white space, token by token with no copy; `None` at anything else
    /// (white space included), which the general path then decides.
    fn parse_compact_tokens(self, b: &[u8], len: usize) -> Option<(SidKey, u8)> {
        let (mut at, mut end) = (0, len);
        if self.wrapped() {
            let sid = &b[..len];
            if !sid.starts_with(WRAP_BEGIN.as_bytes()) {
                return None;
            }
            at = WRAP_BEGIN.len();
            if sid[at..].ends_with(WRAP_END.as_bytes()) {
                end -= WRAP_END.len();
            }
        }
        let head = TokenHead::of(self);
        let mut key: SidKey = 0;
        let mut level = 0usize;
        while at < end {
            if level == MAX_LEVELS {
                return None;
            }
            let (code, len) = self.token_within(head, b, at, end, level)?;
            key = (key << 16) | SidKey::from(code);
            at += len;
            level += 1;
        }
        (level > 0).then_some((key, level as u8))
    }

    /// The token of `level` at the start of `b`, written without white space in a letters or
    /// vocabulary scheme, and its length; `None` at anything else. It accepts only what
    /// [`SidScheme::parse_token`] reads the same way: `<`, the prefix, the level's letter,
    /// `_`, one to five digits below 65,536 and `>` (`<|sid_`, the digits, `|>` in the
    /// vocabulary). Bytes of `b` after the token are never part of it.
    pub fn compact_token(self, b: &[u8], level: usize) -> Option<(Code, usize)> {
        self.token_within(TokenHead::of(self), b, 0, b.len(), level)
    }

    /// The compact token of `level` at `b[at..]`, ending by `end`: a word at a time with the
    /// scheme's `head`, else byte by byte.
    #[inline(always)]
    fn token_within(
        self,
        head: Option<TokenHead>,
        b: &[u8],
        at: usize,
        end: usize,
        level: usize,
    ) -> Option<(Code, usize)> {
        match head {
            Some(head) => head.token_at(self, b, at, end, level),
            None => self.token_by_bytes(&b[at..end], level),
        }
    }

    /// [`SidScheme::compact_token`] byte by byte.
    fn token_by_bytes(self, b: &[u8], level: usize) -> Option<(Code, usize)> {
        match self {
            SidScheme::Letters { upper, prefix, .. } => {
                let base = if upper { b'A' } else { b'a' };
                letters_token(b, prefix.as_bytes(), base + level as u8)
            }
            SidScheme::Vocab { .. } => vocab_token(b),
            SidScheme::Joined { .. } | SidScheme::Integers => None,
        }
    }

    /// [`SidScheme::parse_sid`] token by token, for every scheme and any white space.
    fn parse_sid_in_general(self, s: &str) -> Option<(SidKey, u8)> {
        match self {
            SidScheme::Joined { sep } => parse_joined(s, sep),
            SidScheme::Integers => {
                let inner = s.trim().strip_prefix('[')?.strip_suffix(']')?;
                parse_joined(inner, b',')
            }
            SidScheme::Letters { .. } | SidScheme::Vocab { .. } => {
                let compact = compact(s);
                let mut rest = &*compact;
                if self.wrapped() {
                    rest = rest.strip_prefix(WRAP_BEGIN)?;
                    // Generations cut off before the closing marker are still one SID.
                    rest = rest.strip_suffix(WRAP_END).unwrap_or(rest);
                }
                let mut key: SidKey = 0;
                let mut level = 0usize;
                while !rest.is_empty() {
                    if level == MAX_LEVELS {
                        return None;
                    }
                    let end = rest.find('>')?;
                    key = (key << 16) | SidKey::from(self.parse_token(&rest[..=end], level)?);
                    rest = &rest[end + 1..];
                    level += 1;
                }
                (level > 0).then_some((key, level as u8))
            }
        }
    }

    /// Parses one token of `level` in this scheme (`<s_b_7>` at level 1); `None` when it is
    /// not one.
    pub fn parse_token(self, token: &str, level: usize) -> Option<Code> {
        let token = token.trim();
        match self {
            SidScheme::Letters { upper, prefix, .. } => {
                let inner = token.strip_prefix('<')?.strip_suffix('>')?;
                let inner = inner.strip_prefix(prefix.as_str())?;
                let base = if upper { b'A' } else { b'a' };
                let digits = inner.strip_prefix((base + level as u8) as char)?;
                parse_code(digits.strip_prefix('_')?)
            }
            SidScheme::Vocab { .. } => {
                parse_code(token.strip_prefix(VOCAB_OPEN)?.strip_suffix(VOCAB_CLOSE)?)
            }
            SidScheme::Joined { .. } | SidScheme::Integers => parse_code(token),
        }
    }
}

impl std::fmt::Display for SidScheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.example())
    }
}

/// What opens every token of a letters or vocabulary scheme whose head (`<`, the prefix,
/// the letter and `_`; or `<|sid_`) fits in eight bytes, so that a token is read from two
/// words: its head compared at once, its digits found and folded at once. Read byte by byte
/// (what it falls back to near the end of the bytes), an `eval` of `<s_a_N>`, `<A_N>` or
/// `<|sid_N|>` SIDs took 15–34 % more CPU time, with a branch per digit.
#[derive(Clone, Copy)]
struct TokenHead {
    /// The head's bytes at level 0, little endian.
    word: u64,
    /// Ones over the head's bytes.
    mask: u64,
    len: usize,
    /// Where the level's letter sits in `word`, in bits (`None`: the vocabulary, no letter).
    letter_shift: Option<u32>,
}

impl TokenHead {
    /// Built for every SID read, from the prefix's word (a copy of its bytes cost more than
    /// the tokens' reading).
    #[inline(always)]
    fn of(scheme: SidScheme) -> Option<TokenHead> {
        let (word, len, letter_at) = match scheme {
            SidScheme::Letters { upper, prefix, .. } => {
                let n = usize::from(prefix.len);
                if n + 3 > 8 {
                    return None;
                }
                let letter = u64::from(if upper { b'A' } else { b'a' });
                let word = u64::from(b'<')
                    | prefix.word << 8
                    | (letter | u64::from(b'_') << 8) << (8 * (n + 1));
                (word, n + 3, Some(n + 1))
            }
            SidScheme::Vocab { .. } => {
                let mut open = [0u8; 8];
                open[..VOCAB_OPEN.len()].copy_from_slice(VOCAB_OPEN.as_bytes());
                (u64::from_le_bytes(open), VOCAB_OPEN.len(), None)
            }
            SidScheme::Joined { .. } | SidScheme::Integers => return None,
        };
        Some(TokenHead {
            word,
            mask: u64::MAX >> (8 * (8 - len)),
            len,
            letter_shift: letter_at.map(|at| 8 * at as u32),
        })
    }

    /// The token of `level` of `scheme` (whose head this is) at `b[at..]`, which must end by
    /// `end`: its code and length, as [`letters_token`] and [`vocab_token`] read `b[at..end]`
    /// (bytes up to the end of `b` are loaded, never taken). Near the end of `b` it is read
    /// byte by byte.
    #[inline(always)]
    fn token_at(
        self,
        scheme: SidScheme,
        b: &[u8],
        at: usize,
        end: usize,
        level: usize,
    ) -> Option<(Code, usize)> {
        let (Some(first), Some(digits)) =
            (b.get(at..at + 8), b.get(at + self.len..at + self.len + 8))
        else {
            return scheme.token_by_bytes(&b[at..end], level);
        };
        let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
        let letter = self.letter_shift.map_or(0, |shift| (level as u64) << shift);
        if (word(first) ^ (self.word + letter)) & self.mask != 0 {
            return None;
        }
        let digits = word(digits);
        let n = (not_digits(digits).trailing_zeros() / 8) as usize;
        if !(1..=5).contains(&n) {
            return None;
        }
        let after = digits >> (8 * n);
        let (closed, close_len) = match self.letter_shift {
            Some(_) => (after as u8 == b'>', 1),
            None => (after as u16 == u16::from_le_bytes(*b"|>"), 2),
        };
        let len = self.len + n + close_len;
        if !closed || at + len > end {
            return None;
        }
        Some((Code::try_from(fold_digits(digits, n)).ok()?, len))
    }
}

/// Two to four codes joined by single `sep` bytes, nothing else: what [`parse_joined`]
/// reads them as; `None` at anything else (which it may still read).
fn joined_compact(b: &[u8], sep: u8) -> Option<(SidKey, u8)> {
    if !SEPARATORS.contains(&sep) {
        return None;
    }
    let (mut key, mut n, mut at): (SidKey, usize, usize) = (0, 0, 0);
    loop {
        let (code, end) = code_at(b, at)?;
        if n == MAX_LEVELS {
            return None;
        }
        key = (key << 16) | SidKey::from(code);
        n += 1;
        match b.get(end) {
            None => break,
            Some(&c) if c == sep => at = end + 1,
            Some(_) => return None,
        }
    }
    (n >= 2).then_some((key, n as u8))
}

/// `<`, `prefix`, `letter`, `_`, a code and `>` at the start of `b`: the code and the
/// token's length. The prefix is compared byte by byte: `starts_with` of a slice whose
/// length is not known when compiling calls `memcmp`, which took a sixth of an `eval` of
/// OpenOneRec's SIDs.
#[inline(always)]
fn letters_token(b: &[u8], prefix: &[u8], letter: u8) -> Option<(Code, usize)> {
    let n = prefix.len();
    let head = b.get(..n + 3)?;
    let same_prefix = head[1..=n]
        .iter()
        .zip(prefix)
        .fold(true, |same, (x, y)| same & (x == y));
    if !(same_prefix && head[0] == b'<' && head[n + 1] == letter && head[n + 2] == b'_') {
        return None;
    }
    let (code, end) = code_at(b, n + 3)?;
    (b.get(end) == Some(&b'>')).then_some((code, end + 1))
}

/// `<|sid_`, a code and `|>` at the start of `b`: the code and the token's length.
#[inline(always)]
fn vocab_token(b: &[u8]) -> Option<(Code, usize)> {
    if !b.starts_with(VOCAB_OPEN.as_bytes()) {
        return None;
    }
    let (code, end) = code_at(b, VOCAB_OPEN.len())?;
    (b.get(end) == Some(&b'|') && b.get(end + 1) == Some(&b'>')).then_some((code, end + 2))
}

/// One to five decimal digits at `b[start..]` with a value below 65,536, as
/// [`parse_code`] reads them: the code and where the digits end.
#[inline(always)]
fn code_at(b: &[u8], start: usize) -> Option<(Code, usize)> {
    let mut value = 0u32;
    let mut end = start;
    while let Some(&d @ b'0'..=b'9') = b.get(end) {
        if end - start == 5 {
            return None;
        }
        value = value * 10 + u32::from(d - b'0');
        end += 1;
    }
    if end == start {
        return None;
    }
    Some((Code::try_from(value).ok()?, end))
}

/// A code written in decimal, below 65,536.
fn parse_code(digits: &str) -> Option<Code> {
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The string without white space, copied only when it has some.
fn compact(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| b > b' ' && b.is_ascii()) || !s.chars().any(char::is_whitespace) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().filter(|c| !c.is_whitespace()).collect())
}

/// `12-7-201`: integers joined by `sep`, spaces around them ignored.
fn parse_joined(s: &str, sep: u8) -> Option<(SidKey, u8)> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut key: SidKey = 0;
    let mut n = 0usize;
    let mut push = |part: &str| {
        if n == MAX_LEVELS {
            return None;
        }
        key = (key << 16) | SidKey::from(parse_code(part.trim())?);
        n += 1;
        Some(())
    };
    if sep == b' ' {
        s.split_ascii_whitespace().try_for_each(&mut push)?;
    } else {
        s.split(sep as char).try_for_each(&mut push)?;
    }
    Some((key, n as u8))
}

/// Tells the scheme of one SID string from the string itself and parses it: the scheme,
/// the packed key and the number of levels; `None` when it is in no known scheme.
pub fn parse_any(s: &str) -> Option<(SidScheme, SidKey, u8)> {
    let scheme = detect(s)?;
    let (key, n) = scheme.parse_sid(s)?;
    Some((scheme, key, n))
}

/// Tells the scheme of a SID string (or of a single token) from its first token.
pub fn detect(s: &str) -> Option<SidScheme> {
    let t = s.trim_start();
    if t.as_bytes().first()?.is_ascii_digit() {
        let rest = t.trim_end();
        let sep = rest.bytes().find(|b| !b.is_ascii_digit()).unwrap_or(b'-');
        let sep = if sep.is_ascii_whitespace() {
            // `12 7 201` or `12 , 7`: the first non-space separator wins.
            rest.bytes()
                .find(|b| !b.is_ascii_digit() && !b.is_ascii_whitespace())
                .unwrap_or(b' ')
        } else {
            sep
        };
        return SEPARATORS
            .contains(&sep)
            .then_some(SidScheme::Joined { sep });
    }
    let compact = compact(t);
    let (wrapped, rest) = match compact.strip_prefix(WRAP_BEGIN) {
        Some(rest) => (true, rest),
        None => (false, &*compact),
    };
    if let Some(after) = rest.strip_prefix(VOCAB_OPEN) {
        return after
            .as_bytes()
            .first()
            .is_some_and(u8::is_ascii_digit)
            .then_some(SidScheme::Vocab { wrapped });
    }
    let inner = rest.strip_prefix('<')?;
    let inner = &inner[..inner.find('>')?];
    let (head, digits) = inner.rsplit_once('_')?;
    parse_code(digits)?;
    let letter = head.bytes().last()?;
    let upper = match letter {
        b'a' => false,
        b'A' => true,
        _ => return None,
    };
    let prefix = Prefix::new(&head[..head.len() - 1])?;
    Some(SidScheme::Letters {
        upper,
        prefix,
        wrapped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sid::sid_key;
    use proptest::prelude::*;

    proptest! {
        /// The one-pass reading of the default scheme decides every string as the general
        /// path does: long codes, leading zeros, wrong letters, spaces, too many levels.
        #[test]
        fn the_default_schemes_fast_path_reads_as_the_general_one(
            s in "((<[a-j]_[0-9]{0,7}>)|<|>|_| |[0-9]|x){0,12}",
        ) {
            prop_assert_eq!(
                SidScheme::LETTERS.parse_sid(&s),
                SidScheme::LETTERS.parse_sid_in_general(&s),
                "{}", s
            );
        }
    }

    /// One scheme of every kind: prefixes short enough for the word-at-a-time reading and
    /// one too long for it, wrapped or not, and every separator of joined integers.
    fn kinds_of_scheme() -> Vec<SidScheme> {
        let letters = |upper, prefix, wrapped| SidScheme::Letters {
            upper,
            prefix: Prefix::new(prefix).unwrap(),
            wrapped,
        };
        let mut schemes = vec![
            SidScheme::LETTERS,
            letters(true, "", false),
            letters(false, "s_", false),
            letters(false, "s_", true),
            letters(true, "x1_", true),
            letters(false, "abcdef_", false),
            SidScheme::Vocab { wrapped: false },
            SidScheme::Vocab { wrapped: true },
            SidScheme::Integers,
        ];
        schemes.extend(SEPARATORS.iter().map(|&sep| SidScheme::Joined { sep }));
        schemes
    }

    proptest! {
        // Cheap cases, and the rare ones (a SID cut where its tail seems to go on) matter.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The copy-free reading of compact SIDs and tokens decides as the general reader
        /// does, whatever follows them; what it reads is detected as its own scheme (so a
        /// reader who knows the scheme may skip detecting it) and holds no quote, backslash
        /// or control character (so a JSON string of it ends at the next quote).
        #[test]
        fn compact_reading_agrees_with_the_general_one(
            scheme in proptest::sample::select(kinds_of_scheme()),
            codes in proptest::collection::vec("[0-9]{0,6}", 0..6),
            closed in proptest::bool::ANY,
            damage in proptest::option::of((0usize..40, proptest::sample::select(b"<>_ab|-,  \t\"\\0s".to_vec()))),
            parts in proptest::collection::vec(proptest::prop_oneof![
                "<(s_|x1_|abcdef_)?[a-eA-E]_[0-9]{0,6}>",
                "<\\|sid_[0-9]{0,6}\\|>",
                Just("<|sid_begin|>".to_string()),
                Just("<|sid_end|>".to_string()),
                "[0-9]{0,6}",
                "[-,_|:/. ]",
            ], 0..7),
            cut in 0usize..3,
            tail in proptest::prop_oneof!["[<>a-d_0-9\"|]{0,12}", "(>|\\|>)[<>a-d_0-9\"|]{0,10}"],
        ) {
            // Mostly SIDs written in the scheme (codes of any length, leading zeros, up to
            // five levels), some with a byte changed or the last bytes cut (which the tail
            // may seem to complete); some fragments of every scheme.
            let s = if parts.len() % 3 == 0 {
                parts.concat()
            } else {
                let mut s = written_like(scheme, &codes, closed).into_bytes();
                if let Some((at, byte)) = damage && !s.is_empty() {
                    let at = at % s.len();
                    s[at] = byte;
                }
                s.truncate(s.len().saturating_sub(cut));
                String::from_utf8(s).unwrap()
            };
            let general = scheme.parse_sid_in_general(&s);
            let compact = scheme.parse_compact(s.as_bytes());
            if let Some((key, n)) = compact {
                prop_assert_eq!(compact, general, "{}", s);
                prop_assert_eq!(parse_any(&s), Some((scheme, key, n)), "{}", s);
                prop_assert!(s.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\'));
            }
            prop_assert_eq!(scheme.parse_sid(&s), general, "{}", s);
            let with_tail = format!("{s}{tail}");
            prop_assert_eq!(scheme.parse_compact_in(with_tail.as_bytes(), s.len()), compact, "{}", s);
            if let Some((key, n)) = scheme.parse_sid_detected_as_self(&s) {
                prop_assert_eq!(parse_any(&s), Some((scheme, key, n)), "{}", s);
            }
            for level in 0..MAX_LEVELS {
                if let Some((code, len)) = scheme.compact_token(with_tail.as_bytes(), level) {
                    prop_assert_eq!(scheme.parse_token(&with_tail[..len], level), Some(code), "{}", with_tail);
                }
            }
        }
    }

    /// `codes` (decimal text, any length) written as one SID in `scheme`, wrapped SIDs
    /// `closed` or cut off before their closing marker.
    fn written_like(scheme: SidScheme, codes: &[String], closed: bool) -> String {
        let tokens: Vec<String> = codes
            .iter()
            .enumerate()
            .map(|(level, code)| scheme.format_token(level, 9).replacen('9', code, 1))
            .collect();
        let wrapped = |body: String| match (scheme.wrapped(), closed) {
            (false, _) => body,
            (true, true) => format!("{WRAP_BEGIN}{body}{WRAP_END}"),
            (true, false) => format!("{WRAP_BEGIN}{body}"),
        };
        match scheme {
            SidScheme::Joined { sep } => tokens.join(&(sep as char).to_string()),
            SidScheme::Integers => format!("[{}]", tokens.join(", ")),
            _ => wrapped(tokens.concat()),
        }
    }

    #[test]
    fn compact_sids_of_every_scheme_are_read_without_the_general_path() {
        for scheme in kinds_of_scheme() {
            let text = scheme.format_sid(&[7, 65535, 0, 1234]);
            let expected = (sid_key(&[7, 65535, 0, 1234]), 4);
            if scheme == SidScheme::Integers {
                // Integer lists are JSON lists, never strings.
                assert_eq!(scheme.parse_compact(text.as_bytes()), None);
                continue;
            }
            assert_eq!(
                scheme.parse_compact(text.as_bytes()),
                Some(expected),
                "{text}"
            );
            assert_eq!(scheme.parse_sid(&text), Some(expected), "{text}");
        }
    }

    #[test]
    fn every_scheme_is_detected_and_round_trips() {
        let cases = [
            ("<a_1><b_2><c_3>", "<a_1><b_2>"),
            ("<A_154><B_106><C_221>", "<A_1><B_2>"),
            ("<s_a_340><s_b_6566><s_c_5603>", "<s_a_1><s_b_2>"),
            (
                "<|sid_begin|><s_a_340><s_b_6566><s_c_5603><|sid_end|>",
                "<|sid_begin|><s_a_1><s_b_2><|sid_end|>",
            ),
            ("<|sid_12|><|sid_7|><|sid_201|>", "<|sid_1|><|sid_2|>"),
            ("12-7-201", "1-2"),
            ("12,7,201", "1,2"),
            ("12 7 201", "1 2"),
        ];
        for (text, example) in cases {
            let (scheme, key, n) = parse_any(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(scheme.example(), example, "{text}");
            let codes: Vec<Code> = (0..n)
                .map(|l| (key >> (16 * u32::from(n - 1 - l))) as Code)
                .collect();
            assert_eq!(scheme.format_sid(&codes), text);
            assert_eq!(SidScheme::from_name_or_example(example), Some(scheme));
        }
    }

    #[test]
    fn codes_parse_to_the_same_key_in_every_scheme() {
        let want = Some((sid_key(&[340, 6566, 65535]), 3));
        for text in [
            "<a_340><b_6566><c_65535>",
            "<|sid_begin|><s_a_340> <s_b_6566><s_c_65535><|sid_end|>",
            "<|sid_begin|><s_a_340><s_b_6566><s_c_65535>",
            "340-6566-65535",
            "340, 6566, 65535",
        ] {
            assert_eq!(parse_any(text).map(|(_, k, n)| (k, n)), want, "{text}");
        }
        assert_eq!(
            SidScheme::Integers.parse_sid("[340, 6566, 65535]"),
            Some((sid_key(&[340, 6566, 65535]), 3))
        );
    }

    #[test]
    fn a_scheme_reads_only_its_own_sids() {
        let upper = detect("<A_1>").unwrap();
        assert_eq!(upper.parse_sid("<a_1><b_2>"), None);
        assert_eq!(upper.parse_sid("<A_1><C_2>"), None, "level order");
        assert_eq!(SidScheme::LETTERS.parse_sid("<s_a_1>"), None);
        for bad in [
            "",
            "<x_1>",
            "<a_65536>",
            "<a_>",
            "1--2",
            "<|sid_|>",
            "a-1",
            "<ab_1>",
        ] {
            assert_eq!(parse_any(bad), None, "{bad}");
        }
        assert_eq!(parse_any(&["1"; 9].join("-")), None, "more than 8 levels");
        assert!(parse_any(&["1"; 8].join("-")).is_some());
    }

    #[test]
    fn names_and_examples_pick_schemes() {
        assert_eq!(
            SidScheme::from_name_or_example("openonerec"),
            SidScheme::from_name_or_example("<|sid_begin|><s_a_1><|sid_end|>")
        );
        assert_eq!(
            SidScheme::from_name_or_example("[1, 2]"),
            Some(SidScheme::Integers)
        );
        assert_eq!(SidScheme::from_name_or_example("nonsense"), None);
        assert_eq!(
            SidScheme::LETTERS.format_token(3, 206),
            "<d_206>".to_string()
        );
    }
}
