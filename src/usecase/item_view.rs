//! One item through every tokenizer, the paper's case study: its SID in each, the size of its
//! collision group there and its groupmates, and for a `*_zcr` variant beside its `*_native`
//! one whether the item kept its last code. `sidlens item` and the TUI's item view print it.

use serde::Serialize;

use crate::collision::Collisions;
use crate::load::SidIndex;
use crate::sid::Code;

/// An item in every tokenizer that knows it (`sidlens item --json`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ItemAcross {
    /// The item id.
    pub item: String,
    /// One entry per tokenizer holding the item, in the order given.
    pub variants: Vec<ItemVariant>,
}

/// The item in one tokenizer.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ItemVariant {
    /// The tokenizer's name.
    pub name: String,
    /// The item's SID as tokens.
    pub sid: String,
    /// The same SID as codes.
    pub codes: Vec<Code>,
    /// Items sharing the SID, the item included (1: it has the SID to itself).
    pub group_size: usize,
    /// Their ids in id order, the item included.
    pub group: Vec<String>,
}

/// A loaded tokenizer as [`across`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct Tokenized<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its SID index.
    pub index: &'a SidIndex,
    /// Its collision groups.
    pub collisions: &'a Collisions,
}

/// The item `item` in each tokenizer; tokenizers that do not hold it are left out (the
/// returned names say which ones do).
pub fn across(item: &str, tokenizers: &[Tokenized<'_>]) -> ItemAcross {
    let variants = tokenizers
        .iter()
        .filter_map(|t| {
            let position = t.index.ids().position(item)?;
            let group = t.collisions.group_of(position);
            let members = t.collisions.items_in_id_order(t.index, group);
            Some(ItemVariant {
                name: t.name.to_string(),
                sid: t.index.sid_string(position),
                codes: t.index.codes(position).to_vec(),
                group_size: members.len(),
                group: members
                    .iter()
                    .map(|&p| t.index.id(p as usize).to_string())
                    .collect(),
            })
        })
        .collect();
    ItemAcross {
        item: item.to_string(),
        variants,
    }
}

/// What a variant did to the item's last code compared with another variant of the same
/// tokenizer (a `*_zcr` index against its `*_native` one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastCode {
    /// Same SID.
    Kept,
    /// Same prefix, another last code.
    Moved {
        /// The code before.
        from: Code,
        /// The code after.
        to: Code,
    },
    /// The prefix differs too: not a last-code reassignment of the other.
    Unrelated,
}

/// How `after` differs from `before` for one item.
pub fn last_code(before: &[Code], after: &[Code]) -> LastCode {
    let n = before.len();
    if before == after {
        LastCode::Kept
    } else if n > 0 && after.len() == n && before[..n - 1] == after[..n - 1] {
        LastCode::Moved {
            from: before[n - 1],
            to: after[n - 1],
        }
    } else {
        LastCode::Unrelated
    }
}

/// The `*_native` name a `*_zcr` variant was reassigned from (`rkmeans_zcr` → `rkmeans_native`).
pub fn native_of(name: &str) -> Option<String> {
    name.strip_suffix("_zcr")
        .map(|stem| format!("{stem}_native"))
}

/// The `*_zcr` name of a `*_native` variant.
pub fn zcr_of(name: &str) -> Option<String> {
    name.strip_suffix("_native")
        .map(|stem| format!("{stem}_zcr"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn index(json: &str) -> SidIndex {
        SidIndex::parse(json.as_bytes(), Path::new("x.json"), Some(8)).unwrap()
    }

    #[test]
    fn follows_an_item_into_every_tokenizer() {
        let native = index(r#"{"14": [1, 2, 3, 4], "1943": [1, 2, 3, 4], "7": [1, 2, 3, 5]}"#);
        let zcr = index(r#"{"14": [1, 2, 3, 6], "1943": [1, 2, 3, 4], "7": [1, 2, 3, 5]}"#);
        let other = index(r#"{"1943": [0, 0, 0, 0]}"#);
        let (cn, cz, co) = (
            Collisions::new(&native),
            Collisions::new(&zcr),
            Collisions::new(&other),
        );
        let t = |name, index, collisions| Tokenized {
            name,
            index,
            collisions,
        };
        let seen = across(
            "14",
            &[
                t("rkmeans_native", &native, &cn),
                t("rkmeans_zcr", &zcr, &cz),
                t("other", &other, &co),
            ],
        );
        assert_eq!(
            seen.variants.len(),
            2,
            "the tokenizer without item 14 is left out"
        );
        let [n, z] = &seen.variants[..] else {
            unreachable!()
        };
        assert_eq!(n.sid, "<a_1><b_2><c_3><d_4>");
        assert_eq!(
            (n.group_size, n.group.clone()),
            (2, vec!["14".into(), "1943".into()])
        );
        assert_eq!((z.group_size, z.group.clone()), (1, vec!["14".to_string()]));
        assert_eq!(
            last_code(&n.codes, &z.codes),
            LastCode::Moved { from: 4, to: 6 }
        );
        assert_eq!(last_code(&n.codes, &n.codes), LastCode::Kept);
        assert_eq!(last_code(&[1, 2], &[2, 2]), LastCode::Unrelated);
        let json = serde_json::to_value(&seen).unwrap();
        assert_eq!(
            json["variants"][1],
            serde_json::json!({"name": "rkmeans_zcr", "sid": "<a_1><b_2><c_3><d_6>",
                "codes": [1, 2, 3, 6], "group_size": 1, "group": ["14"]})
        );
        assert_eq!(native_of("rkmeans_zcr").as_deref(), Some("rkmeans_native"));
        assert_eq!(zcr_of("rkmeans_native").as_deref(), Some("rkmeans_zcr"));
        assert_eq!(zcr_of("rqvae"), None);
    }
}
