//! Text from input files made safe for a terminal: control characters (ESC sequences that
//! retitle the window or clear the screen, C1 controls) and bidirectional overrides removed.
//! Human-readable output passes through here; JSON and CSV keep the data, escaped.

use std::borrow::Cow;

/// `text` without terminal controls: newlines kept, tabs and carriage returns made spaces,
/// other C0/C1 controls, DEL and bidi overrides dropped.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_care) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter_map(|c| match c {
                '\t' | '\r' => Some(' '),
                c if needs_care(c) => None,
                c => Some(c),
            })
            .collect(),
    )
}

fn needs_care(c: char) -> bool {
    (c.is_control() && c != '\n') || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_lose_their_escape() {
        assert_eq!(printable("a\u{1b}]2;PWNED\u{1b}\\b\n"), "a]2;PWNED\\b\n");
        assert_eq!(printable("x\u{1b}[2Jy\u{9b}z\u{7f}"), "x[2Jyz");
        assert_eq!(printable("tab\there"), "tab here");
        assert_eq!(printable("\u{202E}evil"), "evil");
        assert!(matches!(printable("plain ü\n"), Cow::Borrowed(_)));
    }
}
