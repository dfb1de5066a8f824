//! `/` search over the group list: by item id (a number, exact), SID (`<a_127><b_244>` tokens,
//! or codes like `127 244` / `127-244-179` as a prefix) or item title (case-insensitive).

use crate::report::groups::GroupRow;
use crate::sid::Code;

/// A search query, read once and matched against many rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Nothing typed yet.
    Empty,
    /// SID tokens: the row's SID string contains this text (`<b_244>`, `<a_1><b_2>`).
    Tokens(String),
    /// Two or more codes: the row's SID starts with them.
    Codes(Vec<Code>),
    /// A number: an item id.
    ItemId(String),
    /// An item id or title text (ASCII letters compared case-insensitively).
    Text(String),
}

impl Query {
    /// Reads what the user typed.
    pub fn parse(text: &str) -> Query {
        let text = text.trim();
        if text.is_empty() {
            return Query::Empty;
        }
        if text.starts_with('<') {
            return Query::Tokens(text.replace(' ', ""));
        }
        let parts: Vec<&str> = text
            .split([' ', '-', ',', '/'])
            .filter(|p| !p.is_empty())
            .collect();
        if parts.len() == 1 && text.chars().all(|c| c.is_ascii_digit()) {
            return Query::ItemId(text.to_string());
        }
        if parts.len() >= 2 {
            let codes: Option<Vec<Code>> = parts.iter().map(|p| p.parse().ok()).collect();
            if let Some(codes) = codes {
                return Query::Codes(codes);
            }
        }
        Query::Text(text.to_string())
    }

    /// Whether a group row matches.
    pub fn matches(&self, row: &GroupRow) -> bool {
        match self {
            Query::Empty => false,
            Query::Tokens(t) => row.sid.contains(t.as_str()),
            Query::Codes(codes) => row.codes.starts_with(codes),
            Query::ItemId(id) => row.items.iter().any(|item| item.id == *id),
            Query::Text(t) => row.items.iter().any(|item| {
                item.id == *t
                    || item
                        .title
                        .as_deref()
                        .is_some_and(|title| contains_ignore_case(title, t))
            }),
        }
    }

    /// The item id this query names, when it is a single word (to explain a miss).
    pub fn as_item_id(&self) -> Option<&str> {
        match self {
            Query::ItemId(id) => Some(id),
            Query::Text(t) if !t.contains(char::is_whitespace) => Some(t),
            _ => None,
        }
    }
}

/// Whether `haystack` contains `needle`, ASCII letters compared without case.
pub fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::groups::GroupItem;

    fn row() -> GroupRow {
        GroupRow {
            rank: 1,
            sid: "<a_127><b_244><c_179><d_206>".into(),
            codes: vec![127, 244, 179, 206],
            size: 2,
            items: vec![
                GroupItem {
                    id: "14".into(),
                    title: Some("Mini 3D Printer".into()),
                },
                GroupItem {
                    id: "1943".into(),
                    title: None,
                },
            ],
            group: 0,
        }
    }

    #[test]
    fn queries() {
        let r = row();
        let yes = [
            "printer",
            "MINI 3d",
            "14",
            "1943",
            "<b_244>",
            "<a_127> <b_244>",
            "127 244",
            "127-244-179-206",
        ];
        for q in yes {
            assert!(Query::parse(q).matches(&r), "{q}");
        }
        for q in [
            "",
            "  ",
            "1",
            "244 179",
            "<b_24>x",
            "laser",
            "127 244 179 1",
        ] {
            assert!(!Query::parse(q).matches(&r), "{q}");
        }
        assert_eq!(Query::parse("42"), Query::ItemId("42".into()));
        assert_eq!(Query::parse("42").as_item_id(), Some("42"));
        assert_eq!(Query::parse("A42").as_item_id(), Some("A42"));
        assert_eq!(Query::parse("mini printer").as_item_id(), None);
    }
}
