//! Decimal digits read eight ASCII bytes at a time: where they stop and what they are worth,
//! without a loop over the bytes (the index reader's ids and tokens, the token schemes').

/// Bit 7 of each byte of `word` set unless the byte is an ASCII digit. Below '0' the
/// subtraction wraps, above '9' the addition reaches 0x80; carries and borrows only move
/// upwards, from a byte that is not a digit, so the lowest such byte is found exactly.
pub(crate) fn not_digits(word: u64) -> u64 {
    (word.wrapping_sub(ZEROS) | word.wrapping_add(0x4646_4646_4646_4646)) & 0x8080_8080_8080_8080
}

/// The value of the `n` (1 to 8) digits at the start of `word` (little endian, the most
/// significant first): moved to the top of the word with zeros below them (leading zeros
/// of the same number), then folded pairwise.
pub(crate) fn fold_digits(word: u64, n: usize) -> u64 {
    let mut x = word.wrapping_sub(ZEROS) << (8 * (8 - n));
    x = ((x & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561)) >> 8;
    x = ((x & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601)) >> 16;
    ((x & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001)) >> 32
}

/// Eight ASCII zeros.
const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);
