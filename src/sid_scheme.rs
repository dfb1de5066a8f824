//! How a pipeline writes the codes of a SID: level letters (`<a_1>`, `<A_1>`, prefixed
//! `<s_a_1>`), wrapped in `<|sid_begin|>…<|sid_end|>`, one vocabulary (`<|sid_N|>`, level by
//! position), integer lists, or joined integers (`12-7-201-3`). Detected from a file, parsed
//! into codes and written back the same way.

use std::fmt::Write as _;

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
            };
            p.bytes[..s.len()].copy_from_slice(s.as_bytes());
            p
        })
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
        // The default scheme without white space, as tokenizers write it, in one pass over
        // the bytes: a Parquet index of 1M SIDs spent a third of its load in the general
        // path's copy without white space and token search below.
        if self == SidScheme::LETTERS
            && let Some(found) = crate::load::beams::parse_compact_sid(s.as_bytes())
        {
            return Some(found);
        }
        self.parse_sid_in_general(s)
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
                let mut rest = compact.as_str();
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

/// A code written in decimal, below 65,536.
fn parse_code(digits: &str) -> Option<Code> {
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The string without white space.
fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `12-7-201`: integers joined by `sep`, spaces around them ignored.
fn parse_joined(s: &str, sep: u8) -> Option<(SidKey, u8)> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut key: SidKey = 0;
    let mut n = 0usize;
    let parts: Box<dyn Iterator<Item = &str>> = if sep == b' ' {
        Box::new(s.split_ascii_whitespace())
    } else {
        Box::new(s.split(sep as char))
    };
    for part in parts {
        if n == MAX_LEVELS {
            return None;
        }
        key = (key << 16) | SidKey::from(parse_code(part.trim())?);
        n += 1;
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
        None => (false, compact.as_str()),
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
                .map(|l| (key >> (16 * (n - 1 - l) as u32)) as Code)
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
