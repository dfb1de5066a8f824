//! Item metadata: `{"id": {"title": ..., "description": ..., "brand": ..., "categories": ...}}`.
//! Every field is optional; lists (e.g. categories) are joined with ", ", other scalars printed.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::reject_bom;
use crate::error::{Error, Place, Result};
use crate::io::read_input;

/// Text describing one item, as shown next to its SID.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemInfo {
    /// Product title.
    pub title: Option<String>,
    /// Longer description.
    pub description: Option<String>,
    /// Brand or maker.
    pub brand: Option<String>,
    /// Category path.
    pub categories: Option<String>,
    /// Every other text field, by name (e.g. Yelp's `city`), so a reader can see all of it.
    pub other: Vec<(String, String)>,
}

/// Metadata of a catalog, keyed by item id.
#[derive(Debug, Clone, Default)]
pub struct ItemTexts {
    by_id: HashMap<String, ItemInfo>,
}

impl ItemTexts {
    /// Loads an item metadata file.
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = read_input(path)?;
        reject_bom(&bytes, path)?;
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| Error::json(path, &e))?;
        let Value::Object(map) = value else {
            return Err(Error::data(
                path,
                Place::File,
                "expected a JSON object mapping item ids to {\"title\": ..., ...}",
            ));
        };
        let mut by_id = HashMap::with_capacity(map.len());
        for (id, fields) in map {
            let Value::Object(fields) = fields else {
                return Err(Error::data(
                    path,
                    Place::Item(id),
                    "expected an object of text fields such as {\"title\": ...}",
                ));
            };
            let text = |name: &str| fields.get(name).and_then(field_text);
            let info = ItemInfo {
                title: text("title"),
                description: text("description"),
                brand: text("brand"),
                categories: text("categories"),
                other: fields
                    .iter()
                    .filter(|(name, _)| !KNOWN.contains(&name.as_str()))
                    .filter_map(|(name, v)| match v {
                        Value::String(s) if !s.trim().is_empty() => {
                            Some((name.clone(), s.trim().to_string()))
                        }
                        _ => None,
                    })
                    .collect(),
            };
            by_id.insert(id, info);
        }
        Ok(ItemTexts { by_id })
    }

    /// Builds metadata from (id, info) pairs.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, ItemInfo)>) -> Self {
        ItemTexts {
            by_id: pairs.into_iter().collect(),
        }
    }

    /// The metadata of item `id`, if any.
    pub fn get(&self, id: &str) -> Option<&ItemInfo> {
        self.by_id.get(id)
    }

    /// The title of item `id`, if known.
    pub fn title(&self, id: &str) -> Option<&str> {
        self.get(id).and_then(|i| i.title.as_deref())
    }

    /// Number of items described.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether no item is described.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// The fields [`ItemInfo`] names; the other text fields go to [`ItemInfo::other`].
const KNOWN: [&str; 4] = ["title", "description", "brand", "categories"];

fn field_text(v: &Value) -> Option<String> {
    let s = match v {
        Value::Null => return None,
        Value::String(s) => s.trim().to_string(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(field_text)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    };
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_optional_fields_and_lists() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("items.json");
        std::fs::write(
            &p,
            r#"{"1": {"title": " Mini 3D Printer ", "categories": ["Tools", "3D"], "price": 3, "city": "Ulm"},
                "2": {"brand": null, "description": ""}}"#,
        )
        .unwrap();
        let t = ItemTexts::load(&p).unwrap();
        assert_eq!(t.title("1"), Some("Mini 3D Printer"));
        assert_eq!(t.get("1").unwrap().categories.as_deref(), Some("Tools, 3D"));
        assert_eq!(
            t.get("1").unwrap().other,
            vec![("city".into(), "Ulm".into())]
        );
        assert_eq!(t.get("2"), Some(&ItemInfo::default()));
        assert_eq!(t.title("3"), None);
    }

    #[test]
    fn rejects_non_object_items_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("items.json");
        std::fs::write(&p, r#"{"1": "just a title"}"#).unwrap();
        let e = ItemTexts::load(&p).unwrap_err().to_string();
        assert!(e.contains("item \"1\""), "{e}");
    }
}
