//! Interactions: `{"user": [item ids in time order], ...}` (CollisionGenRec's `<DS>.inter.json`).
//! Item ids may be strings or non-negative integers; both name the same item (`7` ≡ `"7"`).

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::ids::{ItemIds, canonical_integer};
use super::reject_bom;
use crate::error::{Error, Place, Result};
use crate::io::read_input;

/// Every user's item sequence, items interned to dense numbers in order of first appearance.
#[derive(Debug, Clone)]
pub struct Interactions {
    path: PathBuf,
    users: ItemIds,
    items: ItemIds,
    starts: Vec<usize>,
    sequence: Vec<u32>,
}

impl Interactions {
    /// Loads an interactions file.
    pub fn load(path: &Path) -> Result<Self> {
        let bytes = read_input(path)?;
        Self::parse(&bytes, path)
    }

    /// Parses interactions JSON held in memory; `path` is used in messages.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Self> {
        reject_bom(bytes, path)?;
        let mut built = Interactions::empty(path);
        let mut de = serde_json::Deserializer::from_slice(bytes);
        UsersSeed(&mut built)
            .deserialize(&mut de)
            .and_then(|()| de.end())
            .map_err(|e| Error::json(path, &e))?;
        if built.users.is_empty() {
            return Err(Error::data(path, Place::File, "holds no users"));
        }
        Ok(built)
    }

    /// Builds interactions from `(user, item ids)` pairs, as a loaded file would be.
    pub fn from_sequences<U, I, S>(path: &Path, sequences: U) -> Result<Self>
    where
        U: IntoIterator<Item = (String, I)>,
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut built = Interactions::empty(path);
        for (user, items) in sequences {
            built
                .push_user(&user)
                .map_err(|m| Error::data(path, Place::Field(format!("user \"{user}\"")), m))?;
            for item in items {
                built.push_item(item.as_ref());
            }
        }
        Ok(built)
    }

    fn empty(path: &Path) -> Self {
        Interactions {
            path: path.to_path_buf(),
            users: ItemIds::new(),
            items: ItemIds::new(),
            starts: vec![0],
            sequence: Vec::new(),
        }
    }

    fn push_user(&mut self, user: &str) -> std::result::Result<(), String> {
        if self.users.push(user).is_err() {
            return Err("appears twice".to_string());
        }
        self.starts.push(self.sequence.len());
        Ok(())
    }

    fn push_item(&mut self, id: &str) {
        let item = match self.items.position(id) {
            Some(p) => p,
            None => self.items.push(id).unwrap_or_else(|p| p),
        };
        self.sequence.push(item as u32);
        *self.starts.last_mut().expect("a user was pushed first") = self.sequence.len();
    }

    /// The file the interactions came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of users.
    pub fn n_users(&self) -> usize {
        self.users.len()
    }

    /// Number of distinct items.
    pub fn n_items(&self) -> usize {
        self.items.len()
    }

    /// Total number of interactions.
    pub fn n_interactions(&self) -> usize {
        self.sequence.len()
    }

    /// The user ids, in file order.
    pub fn users(&self) -> &ItemIds {
        &self.users
    }

    /// The distinct item ids; an item's number is its position here.
    pub fn items(&self) -> &ItemIds {
        &self.items
    }

    /// The id of user `u`.
    pub fn user(&self, u: usize) -> &str {
        self.users.get(u)
    }

    /// The id of item number `i`.
    pub fn item(&self, i: u32) -> &str {
        self.items.get(i as usize)
    }

    /// User `u`'s items (as item numbers), oldest first.
    pub fn sequence(&self, u: usize) -> &[u32] {
        &self.sequence[self.starts[u]..self.starts[u + 1]]
    }

    /// Writes the interactions as JSON, one user per line; ids that are plain integers are
    /// written as numbers (like CollisionGenRec's files), others as strings.
    pub fn write_json(&self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(b"{")?;
        for u in 0..self.n_users() {
            out.write_all(if u == 0 { b"\n" } else { b",\n" })?;
            serde_json::to_writer(&mut *out, self.user(u))?;
            out.write_all(b": [")?;
            for (k, &item) in self.sequence(u).iter().enumerate() {
                if k > 0 {
                    out.write_all(b", ")?;
                }
                let id = self.item(item);
                match canonical_integer(id) {
                    Some(v) => write!(out, "{v}")?,
                    None => serde_json::to_writer(&mut *out, id)?,
                }
            }
            out.write_all(b"]")?;
        }
        out.write_all(b"\n}\n")
    }
}

struct UsersSeed<'a>(&'a mut Interactions);

impl<'de> DeserializeSeed<'de> for UsersSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for UsersSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object mapping user ids to lists of item ids")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(UserSeed(self.0))?.is_some() {
            map.next_value_seed(SequenceSeed(self.0))?;
        }
        Ok(())
    }
}

struct UserSeed<'a>(&'a mut Interactions);

impl<'de> DeserializeSeed<'de> for UserSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for UserSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a user id")
    }

    fn visit_str<E: de::Error>(self, user: &str) -> Result<(), E> {
        self.0
            .push_user(user)
            .map_err(|m| E::custom(format_args!("user \"{user}\" {m}")))
    }
}

struct SequenceSeed<'a>(&'a mut Interactions);

impl SequenceSeed<'_> {
    fn user_error<E: de::Error>(&self, message: impl fmt::Display) -> E {
        let user = self.0.user(self.0.n_users() - 1);
        E::custom(format_args!("user \"{user}\": {message}"))
    }
}

impl<'de> DeserializeSeed<'de> for SequenceSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SequenceSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of item ids")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut position = 0;
        while seq
            .next_element_seed(ItemSeed {
                interactions: &mut *self.0,
                position,
            })?
            .is_some()
        {
            position += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.user_error("expected a list of item ids, found an object"))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(self.user_error("expected a list of item ids, found a string"))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(self.user_error("expected a list of item ids, found a number"))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(self.user_error("expected a list of item ids, found a number"))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(self.user_error("expected a list of item ids, found a number"))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(self.user_error("expected a list of item ids, found true/false"))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self.user_error("expected a list of item ids, found null"))
    }
}

struct ItemSeed<'a> {
    interactions: &'a mut Interactions,
    position: usize,
}

impl ItemSeed<'_> {
    fn item_error<E: de::Error>(&self, found: &str) -> E {
        let user = self.interactions.user(self.interactions.n_users() - 1);
        E::custom(format_args!(
            "user \"{user}\": entry {} is {found}, not an item id (a string or a non-negative integer)",
            self.position
        ))
    }
}

impl<'de> DeserializeSeed<'de> for ItemSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an item id")
    }

    fn visit_str<E: de::Error>(self, id: &str) -> Result<(), E> {
        self.interactions.push_item(id);
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.interactions.push_item(&v.to_string());
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        if v >= 0 {
            return self.visit_u64(v as u64);
        }
        Err(self.item_error(&format!("the negative number {v}")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        Err(self.item_error(&format!("the number {v}")))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(self.item_error("true/false"))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self.item_error("null"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.item_error("a list"))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.item_error("an object"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Interactions> {
        Interactions::parse(text.as_bytes(), Path::new("i.json"))
    }

    #[test]
    fn reads_users_in_order_with_integer_or_string_items() {
        let it = parse(r#"{"u1": [3, 1, "3"], "u0": [], "u2": ["x", 1]}"#).unwrap();
        assert_eq!((it.n_users(), it.n_items(), it.n_interactions()), (3, 3, 5));
        assert_eq!(it.user(0), "u1");
        assert_eq!(it.sequence(0), &[0, 1, 0]);
        assert!(it.sequence(1).is_empty());
        assert_eq!(it.sequence(2), &[2, 1]);
        assert_eq!(it.item(2), "x");
        assert_eq!(it.items().position("1"), Some(1));
    }

    #[test]
    fn writes_back_what_it_reads() {
        let text = "{\n\"0\": [0, 1, 2],\n\"b\\\"q\": [\"x\", 7],\n\"2\": []\n}\n";
        let it = parse(text).unwrap();
        let mut out = Vec::new();
        it.write_json(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), text);
        let built = Interactions::from_sequences(
            Path::new("b.json"),
            [
                ("0".to_string(), vec!["0", "1", "2"]),
                ("1".to_string(), vec!["2"]),
            ],
        )
        .unwrap();
        assert_eq!(built.sequence(1), &[2]);
    }

    #[test]
    fn errors_name_the_user_and_the_line() {
        let cases = [
            (r#"{"a": [1], "a": [2]}"#, "user \"a\" appears twice"),
            (r#"{"a": [1, null]}"#, "user \"a\": entry 1 is null"),
            (r#"{"a": [1, -2]}"#, "entry 1 is the negative number -2"),
            (r#"{"a": [1.5]}"#, "entry 0 is the number 1.5"),
            (
                r#"{"a": {"b": 1}}"#,
                "user \"a\": expected a list of item ids, found an object",
            ),
            (r#"{"a": 3}"#, "found a number"),
            ("[1, 2]", "expected a JSON object"),
            ("{}", "holds no users"),
            (r#"{"a": [1,"#, "unexpected end of file"),
        ];
        for (text, want) in cases {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.starts_with("i.json"), "{err}");
            assert!(err.contains(want), "{text}: got {err:?}, want {want:?}");
        }
        let err = parse("{\n\"a\": [1],\n\"b\": [true]}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 3"), "{err}");
    }
}
