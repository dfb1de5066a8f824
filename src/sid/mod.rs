//! Semantic IDs: L codes per item, written as tokens `<a_127><b_244>...` (level letters a, b, c...).
//! Parsing and formatting of tokens and SID strings, and packing a SID into one integer key.

pub(crate) mod ascii_digits;
pub mod grammar;
pub mod scheme;

use std::fmt::Write as _;

/// One code of one level. Codebooks up to 65,536 entries are supported.
pub type Code = u16;

/// The most levels a SID may have (so a whole SID packs into a `u128`).
pub const MAX_LEVELS: usize = 8;

/// The largest codebook size (codes are `0..MAX_CODEBOOK_SIZE`).
pub const MAX_CODEBOOK_SIZE: usize = 1 << 16;

/// A whole SID packed into one integer, level 0 in the most significant 16 bits used, so that
/// sorting keys sorts SIDs lexicographically and a prefix is a right shift.
pub type SidKey = u128;

/// The letter naming level `level` in tokens (`a` for level 0).
pub fn level_letter(level: usize) -> char {
    (b'a' + level as u8) as char
}

/// Packs `codes` into a key (see [`SidKey`]).
pub fn sid_key(codes: &[Code]) -> SidKey {
    codes
        .iter()
        .fold(0u128, |key, &c| (key << 16) | SidKey::from(c))
}

/// The fewest bits that hold every code below `codebook_size` (at least 1), for keys packed
/// more tightly than [`SidKey`]'s 16 bits per level.
pub fn bits_per_code(codebook_size: usize) -> u32 {
    usize::BITS - (codebook_size.max(2) - 1).leading_zeros()
}

/// The key of the first `depth` codes of a SID whose full key is `key` with `n_levels` levels.
pub fn prefix_key(key: SidKey, n_levels: usize, depth: usize) -> SidKey {
    let drop = n_levels - depth;
    if drop >= 8 { 0 } else { key >> (16 * drop) }
}

/// Writes `codes` as a SID string, `<a_1><b_2><c_3>`.
pub fn format_sid(codes: &[Code]) -> String {
    let mut s = String::with_capacity(codes.len() * 7);
    for (level, &c) in codes.iter().enumerate() {
        let _ = write!(s, "<{}_{}>", level_letter(level), c);
    }
    s
}

/// Writes one token, `<b_244>`.
pub fn format_token(level: usize, code: Code) -> String {
    format!("<{}_{}>", level_letter(level), code)
}

/// Why a token or SID string could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// Not of the form `<x_N>`.
    Malformed(String),
    /// A well-formed token of the wrong level (`<c_3>` where `<b_..>` was due).
    WrongLevel {
        /// The token as written.
        token: String,
        /// The level whose letter was expected.
        expected_level: usize,
    },
    /// The code does not fit the supported codebook size.
    CodeTooLarge(String),
    /// More than [`MAX_LEVELS`] levels.
    TooManyLevels,
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenError::Malformed(t) => {
                write!(f, "malformed token {t:?} (expected a form like \"<a_12>\")")
            }
            TokenError::WrongLevel {
                token,
                expected_level,
            } => write!(
                f,
                "token {token:?} is out of level order: level {} expects \"<{}_N>\"",
                expected_level,
                level_letter(*expected_level)
            ),
            TokenError::CodeTooLarge(t) => write!(
                f,
                "token {t:?} has a code above {} (the largest supported)",
                MAX_CODEBOOK_SIZE - 1
            ),
            TokenError::TooManyLevels => write!(f, "more than {MAX_LEVELS} levels"),
        }
    }
}

/// Parses the body of one token `<x_N>` (already trimmed) into (level letter index, code).
fn parse_token_parts(token: &str) -> Result<(usize, Code), TokenError> {
    let malformed = || TokenError::Malformed(token.to_string());
    let inner = token
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .ok_or_else(malformed)?;
    let (letter, digits) = inner.split_once('_').ok_or_else(malformed)?;
    let mut chars = letter.chars();
    let (Some(l), None) = (chars.next(), chars.next()) else {
        return Err(malformed());
    };
    if !l.is_ascii_lowercase() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed());
    }
    let value: u64 = digits
        .parse()
        .map_err(|_| TokenError::CodeTooLarge(token.to_string()))?;
    let code = Code::try_from(value).map_err(|_| TokenError::CodeTooLarge(token.to_string()))?;
    Ok(((l as u8 - b'a') as usize, code))
}

/// Parses one token that must belong to `level`, e.g. `<b_244>` at level 1.
pub fn parse_token(token: &str, level: usize) -> Result<Code, TokenError> {
    let (l, code) = parse_token_parts(token.trim())?;
    if l != level {
        return Err(TokenError::WrongLevel {
            token: token.to_string(),
            expected_level: level,
        });
    }
    Ok(code)
}

/// Parses a SID string such as `<a_1><b_2> <c_3><d_4>` (whitespace ignored) into `codes`
/// (cleared first). Levels must appear in order a, b, c, ...
pub fn parse_sid(sid: &str, codes: &mut Vec<Code>) -> Result<(), TokenError> {
    codes.clear();
    let mut rest = sid.trim();
    while !rest.is_empty() {
        let end = rest
            .find('>')
            .ok_or_else(|| TokenError::Malformed(rest.to_string()))?;
        let token: String = rest[..=end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if codes.len() == MAX_LEVELS {
            return Err(TokenError::TooManyLevels);
        }
        codes.push(parse_token(&token, codes.len())?);
        rest = rest[end + 1..].trim_start();
    }
    if codes.is_empty() {
        return Err(TokenError::Malformed(sid.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        assert_eq!(parse_token("<a_113>", 0), Ok(113));
        assert_eq!(parse_token("<d_0>", 3), Ok(0));
        assert_eq!(format_token(1, 244), "<b_244>");
        assert!(matches!(
            parse_token("<c_3>", 1),
            Err(TokenError::WrongLevel { .. })
        ));
        for bad in [
            "a_1", "<a1>", "<a_>", "<a_-1>", "<A_1>", "<ab_1>", "<a_1x>", "",
        ] {
            assert!(
                matches!(parse_token(bad, 0), Err(TokenError::Malformed(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            parse_token("<a_65536>", 0),
            Err(TokenError::CodeTooLarge(_))
        ));
        assert!(matches!(
            parse_token("<a_99999999999999999999999>", 0),
            Err(TokenError::CodeTooLarge(_))
        ));
    }

    #[test]
    fn sid_strings_parse_with_spaces() {
        let mut codes = Vec::new();
        parse_sid("<a_1><b_2> <c_3>< d_4 >", &mut codes).unwrap();
        assert_eq!(codes, vec![1, 2, 3, 4]);
        assert_eq!(format_sid(&codes), "<a_1><b_2><c_3><d_4>");
        assert!(parse_sid("<a_1><c_2>", &mut codes).is_err());
        assert!(parse_sid("<a_1><b_2", &mut codes).is_err());
        assert!(parse_sid("", &mut codes).is_err());
    }

    #[test]
    fn keys_sort_lexicographically_and_prefixes_shift() {
        let a = sid_key(&[1, 65535, 3]);
        let b = sid_key(&[2, 0, 0]);
        assert!(a < b);
        assert_eq!(prefix_key(a, 3, 2), sid_key(&[1, 65535]));
        assert_eq!(prefix_key(a, 3, 0), 0);
        let full = sid_key(&[65535; 8]);
        assert_eq!(full, u128::MAX);
        assert_eq!(prefix_key(full, 8, 0), 0);
        assert_eq!(prefix_key(full, 8, 7), u128::MAX >> 16);
    }
}
