//! The SID index: `{"item id": ["<a_113>", "<b_148>", "<c_140>", "<d_41>"], ...}` (the LETTER /
//! CollisionGenRec format), also with integer codes or one SID string per item. Parsed with a
//! serde visitor straight into a flat code array, validated, and written back in the same format.

mod fast_path;
mod table;

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, Place, Result};
use crate::io::read_input;
use crate::io::write::write_atomically;
use crate::load::ids::ItemIds;
use crate::sid::scheme::{self as sid_scheme, SidScheme};
use crate::sid::{self, Code, MAX_CODEBOOK_SIZE, MAX_LEVELS, SidKey};

/// How the codes of each item are written in the file; output keeps the input's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexFormat {
    /// `["<a_1>", "<b_2>"]`
    Tokens,
    /// `[1, 2]`
    Integers,
    /// `"<a_1><b_2>"`
    SidString,
}

/// An item → SID mapping with L levels and codebook size V.
#[derive(Debug, Clone)]
pub struct SidIndex {
    path: PathBuf,
    ids: ItemIds,
    codes: Vec<Code>,
    n_levels: usize,
    codebook_size: usize,
    codebook_size_given: bool,
    format: IndexFormat,
    scheme: SidScheme,
}

impl SidIndex {
    /// Loads and validates an index file. `codebook_size` is V when known; otherwise V is
    /// inferred as the largest code + 1 (see [`SidIndex::codebook_size_given`]).
    pub fn load(path: &Path, codebook_size: Option<usize>) -> Result<Self> {
        Self::load_as(path, codebook_size, None)
    }

    /// Like [`SidIndex::load`], with the token scheme of its strings given (`None`: detected
    /// from the first item).
    pub fn load_as(
        path: &Path,
        codebook_size: Option<usize>,
        scheme: Option<SidScheme>,
    ) -> Result<Self> {
        if path.as_os_str() != "-"
            && let Some(table) = crate::io::columnar::sniff(path)
        {
            let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
            return crate::load::index::table::load(path, table, file, codebook_size, scheme);
        }
        if crate::load::tensors::sniff(path).is_some() {
            return Self::from_code_matrix(path, codebook_size);
        }
        let bytes = read_input(path)?;
        if let Some(table) = crate::io::columnar::TableFormat::from_magic(&bytes) {
            // A table piped in: spooled to an unnamed file, since Parquet's footer is last.
            let mut file = tempfile::tempfile().map_err(|e| Error::io(path, e))?;
            std::io::Write::write_all(&mut file, &bytes).map_err(|e| Error::io(path, e))?;
            return crate::load::index::table::load(path, table, file, codebook_size, scheme);
        }
        Self::parse_as(&bytes, path, codebook_size, scheme)
    }

    /// An index from an N×L integer tensor (`.npy`, `.safetensors`, `.pt`: the SID tensors
    /// PyTorch tokenizers save): row i is item id i. It is written back as integer lists.
    fn from_code_matrix(path: &Path, codebook_size: Option<usize>) -> Result<Self> {
        let (values, n_items, n_levels) = crate::load::vectors::read_code_matrix(path)?;
        let mut codes = Vec::with_capacity(values.len());
        for (at, &v) in values.iter().enumerate() {
            let code = Code::try_from(v).map_err(|_| {
                Error::data(
                    path,
                    Place::Field(format!(
                        "row {}, column {}",
                        at / n_levels.max(1),
                        at % n_levels.max(1)
                    )),
                    format!("{v} is not a code (0 to {})", MAX_CODEBOOK_SIZE - 1),
                )
            })?;
            codes.push(code);
        }
        let mut ids = ItemIds::new();
        for i in 0..n_items {
            ids.push(&i.to_string()).expect("row numbers are distinct");
        }
        Self::from_codes(
            path,
            ids,
            codes,
            n_levels,
            codebook_size,
            IndexFormat::Integers,
        )
    }

    /// Parses index JSON held in memory; `path` is used in messages.
    pub fn parse(bytes: &[u8], path: &Path, codebook_size: Option<usize>) -> Result<Self> {
        Self::parse_as(bytes, path, codebook_size, None)
    }

    /// Like [`SidIndex::parse`], with the token scheme given or (`None`) detected.
    pub fn parse_as(
        bytes: &[u8],
        path: &Path,
        codebook_size: Option<usize>,
        scheme: Option<SidScheme>,
    ) -> Result<Self> {
        crate::load::reject_bom(bytes, path)?;
        if scheme.is_none()
            && let Some(f) = crate::load::index::fast_path::parse(bytes)
        {
            return Ok(Self::from_codes(
                path,
                f.ids,
                f.codes,
                f.n_levels,
                codebook_size,
                f.format,
            )?
            .with_scheme(f.scheme));
        }
        Self::parse_with_serde(bytes, path, codebook_size, scheme)
    }

    /// Parses with serde: any layout and token scheme, and the messages for every error.
    pub(super) fn parse_with_serde(
        bytes: &[u8],
        path: &Path,
        codebook_size: Option<usize>,
        scheme: Option<SidScheme>,
    ) -> Result<Self> {
        let mut builder = Builder {
            scheme,
            forced: scheme.is_some(),
            ..Builder::default()
        };
        let mut de = serde_json::Deserializer::from_slice(bytes);
        IndexSeed(&mut builder)
            .deserialize(&mut de)
            .and_then(|()| de.end())
            .map_err(|e| Error::json(path, &e))?;
        let format = builder.format.unwrap_or(IndexFormat::Tokens);
        let scheme = match format {
            IndexFormat::Integers => SidScheme::Integers,
            _ => builder.scheme.unwrap_or_default(),
        };
        Ok(Self::from_codes(
            path,
            builder.ids,
            builder.codes,
            builder.n_levels,
            codebook_size,
            format,
        )?
        .with_scheme(scheme))
    }

    /// Builds an index from ids and a flat, row-major code array (`n_items × n_levels`),
    /// validating it as a loaded file would be.
    pub fn from_codes(
        path: &Path,
        ids: ItemIds,
        codes: Vec<Code>,
        n_levels: usize,
        codebook_size: Option<usize>,
        format: IndexFormat,
    ) -> Result<Self> {
        if ids.is_empty() {
            return Err(Error::data(path, Place::File, "the index holds no items"));
        }
        if !(1..=MAX_LEVELS).contains(&n_levels) || codes.len() != ids.len() * n_levels {
            return Err(Error::data(
                path,
                Place::File,
                format!("an index needs 1 to {MAX_LEVELS} levels and n_items × levels codes"),
            ));
        }
        let max_code = codes.iter().copied().max().unwrap_or(0) as usize;
        let (codebook_size, given) = match codebook_size {
            Some(v) => {
                if !(1..=MAX_CODEBOOK_SIZE).contains(&v) {
                    return Err(Error::Invalid(format!(
                        "codebook size {v} is out of range (1 to {MAX_CODEBOOK_SIZE})"
                    )));
                }
                if max_code >= v {
                    let pos = codes.iter().position(|&c| c as usize >= v).unwrap_or(0);
                    let (item, level) = (pos / n_levels, pos % n_levels);
                    return Err(Error::data(
                        path,
                        Place::Item(ids.get(item).to_string()),
                        format!(
                            "code {} at level {} is not below the codebook size {v}",
                            codes[pos],
                            sid::level_letter(level)
                        ),
                    ));
                }
                (v, true)
            }
            None => (max_code + 1, false),
        };
        Ok(SidIndex {
            path: path.to_path_buf(),
            ids,
            codes,
            n_levels,
            codebook_size,
            codebook_size_given: given,
            format,
            scheme: match format {
                IndexFormat::Integers => SidScheme::Integers,
                _ => SidScheme::LETTERS,
            },
        })
    }

    /// The same index, its tokens written in `scheme` (used when it is written back).
    pub fn with_scheme(mut self, scheme: SidScheme) -> Self {
        self.scheme = scheme;
        self
    }

    /// The token scheme its SIDs are written in (detected, or given).
    pub fn scheme(&self) -> SidScheme {
        self.scheme
    }

    /// The file this index was loaded from (or is named after).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of items.
    pub fn n_items(&self) -> usize {
        self.ids.len()
    }

    /// Number of levels L.
    pub fn n_levels(&self) -> usize {
        self.n_levels
    }

    /// Codebook size V (codes are `0..V`).
    pub fn codebook_size(&self) -> usize {
        self.codebook_size
    }

    /// Whether V was given by the user (`false`: inferred as the largest code + 1).
    pub fn codebook_size_given(&self) -> bool {
        self.codebook_size_given
    }

    /// The format the file was written in.
    pub fn format(&self) -> IndexFormat {
        self.format
    }

    /// The item ids, in file order.
    pub fn ids(&self) -> &ItemIds {
        &self.ids
    }

    /// The id of the item at `position`.
    pub fn id(&self, position: usize) -> &str {
        self.ids.get(position)
    }

    /// The codes of the item at `position`.
    pub fn codes(&self, position: usize) -> &[Code] {
        &self.codes[position * self.n_levels..(position + 1) * self.n_levels]
    }

    /// All codes, row-major `n_items × n_levels`.
    pub fn all_codes(&self) -> &[Code] {
        &self.codes
    }

    /// The packed key of the item's whole SID.
    pub fn key(&self, position: usize) -> SidKey {
        sid::sid_key(self.codes(position))
    }

    /// The item's SID as a string, `<a_1><b_2><c_3><d_4>`.
    pub fn sid_string(&self, position: usize) -> String {
        sid::format_sid(self.codes(position))
    }

    /// A copy with a new last-level code for every item (same ids, prefixes, format and V),
    /// named after `path`. Used to write reassigned indexes.
    pub fn with_last_codes(&self, path: &Path, last: &[Code]) -> SidIndex {
        assert_eq!(last.len(), self.n_items(), "one last code per item");
        let mut codes = self.codes.clone();
        for (row, &c) in codes.chunks_exact_mut(self.n_levels).zip(last) {
            row[self.n_levels - 1] = c;
        }
        SidIndex {
            path: path.to_path_buf(),
            codes,
            codebook_size: self
                .codebook_size
                .max(last.iter().copied().max().unwrap_or(0) as usize + 1),
            ..self.clone()
        }
    }

    /// A copy with new codes for every item (row-major, `n_levels` per item; same ids and
    /// format, V grown to fit), named after `path`. Used to write remedied indexes.
    pub fn with_codes(&self, path: &Path, codes: Vec<Code>, n_levels: usize) -> SidIndex {
        assert_eq!(
            codes.len(),
            self.n_items() * n_levels,
            "n_levels codes per item"
        );
        let max = codes.iter().copied().max().unwrap_or(0) as usize + 1;
        SidIndex {
            path: path.to_path_buf(),
            codebook_size: self.codebook_size.max(max),
            codes,
            n_levels,
            ..self.clone()
        }
    }

    /// Writes the index as JSON in its format (`{"0": ["<a_1>", ...], ...}`, the layout
    /// Python's `json.dump` gives).
    pub fn write_json(&self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(b"{")?;
        for i in 0..self.n_items() {
            if i > 0 {
                out.write_all(b", ")?;
            }
            serde_json::to_writer(&mut *out, self.id(i))?;
            out.write_all(b": ")?;
            match self.format {
                IndexFormat::SidString => {
                    serde_json::to_writer(&mut *out, &self.scheme.format_sid(self.codes(i)))?;
                }
                IndexFormat::Tokens | IndexFormat::Integers => {
                    out.write_all(b"[")?;
                    for (level, &c) in self.codes(i).iter().enumerate() {
                        if level > 0 {
                            out.write_all(b", ")?;
                        }
                        if self.format == IndexFormat::Tokens {
                            serde_json::to_writer(&mut *out, &self.scheme.format_token(level, c))?;
                        } else {
                            write!(out, "{c}")?;
                        }
                    }
                    out.write_all(b"]")?;
                }
            }
        }
        out.write_all(b"}")
    }

    /// Writes the index as `target`'s name asks: a Parquet or Arrow table for `.parquet`,
    /// `.arrow`, `.feather`; JSON in its format otherwise.
    pub fn write_for(&self, target: &Path, out: &mut (dyn Write + Send)) -> std::io::Result<()> {
        match crate::io::columnar::TableFormat::from_name(target) {
            Some(table) => crate::load::index::table::write(self, out, table),
            None => self.write_json(out),
        }
    }

    /// Writes the index to `path` atomically, as its name asks (see [`SidIndex::write_for`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomically(path, |w| self.write_for(path, w))
    }
}

/// Collects ids and codes while the JSON is parsed.
#[derive(Default)]
struct Builder {
    ids: ItemIds,
    codes: Vec<Code>,
    n_levels: usize,
    format: Option<IndexFormat>,
    /// The scheme of the strings: given, or taken from the first item.
    scheme: Option<SidScheme>,
    forced: bool,
}

impl Builder {
    fn current_id(&self) -> &str {
        self.ids.get(self.ids.len() - 1)
    }

    fn item_error<E: de::Error>(&self, message: impl fmt::Display) -> E {
        E::custom(format_args!("item \"{}\": {message}", self.current_id()))
    }

    fn note_format<E: de::Error>(&mut self, format: IndexFormat) -> Result<(), E> {
        match self.format {
            None => {
                self.format = Some(format);
                Ok(())
            }
            Some(f) if f == format => Ok(()),
            Some(_) => Err(self.item_error(
                "mixes code formats (tokens like \"<a_1>\", integers, SID strings) with earlier items",
            )),
        }
    }

    /// Called when an item's codes are complete.
    fn finish_item<E: de::Error>(&mut self, n: usize) -> Result<(), E> {
        if n == 0 {
            return Err(self.item_error("has no codes"));
        }
        if self.ids.len() == 1 {
            self.n_levels = n;
        } else if n != self.n_levels {
            return Err(self.item_error(format_args!(
                "has {n} levels, but earlier items have {} (inconsistent L)",
                self.n_levels
            )));
        }
        Ok(())
    }

    /// The scheme strings are read in: the given one, else the first string's.
    fn scheme_for(&mut self, s: &str) -> SidScheme {
        if let Some(scheme) = self.scheme {
            return scheme;
        }
        let scheme = sid_scheme::detect(s).unwrap_or_default();
        self.scheme = Some(scheme);
        scheme
    }

    /// Why `s` (a token of `level`, or a SID string when `level` is `None`) does not read in
    /// `scheme`: the standard messages for `<a_1>` tokens, else what it looks like instead.
    fn scheme_error<E: de::Error>(&self, scheme: SidScheme, s: &str, level: Option<usize>) -> E {
        let other = sid_scheme::detect(s).filter(|&o| o != scheme);
        if let Some(other) = other {
            let source = if self.forced {
                "--sid-format says"
            } else {
                "earlier items use"
            };
            return self.item_error(format_args!(
                "{s:?} is written like {other}, but {source} {scheme} (one token scheme per file)"
            ));
        }
        if scheme == SidScheme::LETTERS {
            let mut codes = Vec::new();
            let e = match level {
                Some(level) => sid::parse_token(s, level).err(),
                None => sid::parse_sid(s, &mut codes).err(),
            };
            if let Some(e) = e {
                return self.item_error(e);
            }
        }
        match level {
            Some(level) => self.item_error(format_args!(
                "malformed token {s:?} at level {} (expected a form like {:?}, codes below 65536)",
                sid::level_letter(level),
                scheme.format_token(level, 12)
            )),
            None => self.item_error(format_args!(
                "malformed SID {s:?} (expected a form like {:?}, codes below 65536)",
                scheme.format_sid(&[1, 2, 3])
            )),
        }
    }

    fn push_code<E: de::Error>(&mut self, level: usize, code: Code) -> Result<(), E> {
        if level >= MAX_LEVELS {
            return Err(self.item_error(format_args!("has more than {MAX_LEVELS} levels")));
        }
        self.codes.push(code);
        Ok(())
    }
}

struct IndexSeed<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for IndexSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for IndexSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object mapping item ids to SIDs")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(KeySeed(self.0))?.is_some() {
            map.next_value_seed(CodesSeed(self.0))?;
        }
        Ok(())
    }
}

struct KeySeed<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an item id")
    }

    fn visit_str<E: de::Error>(self, id: &str) -> Result<(), E> {
        match self.0.ids.push(id) {
            Ok(_) => Ok(()),
            Err(_) => Err(E::custom(format_args!(
                "item \"{id}\": duplicate item id (it appears earlier in the file)"
            ))),
        }
    }
}

struct CodesSeed<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for CodesSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CodesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "a list of tokens like [\"<a_1>\", \"<b_2>\"], a list of integers, or a SID string",
        )
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut level = 0;
        while seq
            .next_element_seed(TokenSeed {
                builder: &mut *self.0,
                level,
            })?
            .is_some()
        {
            level += 1;
        }
        self.0.finish_item(level)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        self.0.note_format(IndexFormat::SidString)?;
        let scheme = self.0.scheme_for(s);
        let Some((key, n)) = scheme.parse_sid(s) else {
            return Err(self.0.scheme_error(scheme, s, None));
        };
        let n = usize::from(n);
        for level in 0..n {
            self.0
                .push_code(level, (key >> (16 * (n - 1 - level))) as Code)?;
        }
        self.0.finish_item(n)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self.0.item_error("has null instead of codes"))
    }
}

struct TokenSeed<'a> {
    builder: &'a mut Builder,
    level: usize,
}

impl<'de> DeserializeSeed<'de> for TokenSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Visitor<'_> for TokenSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a token like \"<a_1>\" or a non-negative integer code")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        self.builder.note_format(IndexFormat::Tokens)?;
        let scheme = self.builder.scheme_for(s);
        if self.level >= MAX_LEVELS {
            return self.builder.push_code(self.level, 0);
        }
        let Some(code) = scheme.parse_token(s, self.level) else {
            return Err(self.builder.scheme_error(scheme, s, Some(self.level)));
        };
        self.builder.push_code(self.level, code)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.builder.note_format(IndexFormat::Integers)?;
        let code = Code::try_from(v).map_err(|_| {
            self.builder.item_error(format_args!(
                "code {v} at level {} is above {} (the largest supported)",
                sid::level_letter(self.level),
                MAX_CODEBOOK_SIZE - 1
            ))
        })?;
        self.builder.push_code(self.level, code)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        if v >= 0 {
            return self.visit_u64(v as u64);
        }
        Err(self.builder.item_error(format_args!(
            "negative code {v} at level {}",
            sid::level_letter(self.level)
        )))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        // `1.0` and `-0` are whole numbers written as decimals (numpy's float codes).
        if v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v) {
            return self.visit_u64(v as u64);
        }
        let what = if v.fract() == 0.0 {
            "is negative or too large"
        } else {
            "is not a whole number"
        };
        Err(self.builder.item_error(format_args!(
            "code {v} at level {} {what}",
            sid::level_letter(self.level)
        )))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self.builder.item_error(format_args!(
            "null where the level-{} code was due",
            sid::level_letter(self.level)
        )))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(self.builder.item_error(format_args!(
            "true/false where the level-{} code was due",
            sid::level_letter(self.level)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SidIndex> {
        SidIndex::parse(text.as_bytes(), Path::new("t.json"), None)
    }

    #[test]
    fn reads_tokens_integers_and_sid_strings() {
        let a = parse(r#"{"0": ["<a_1>", "<b_2>"], "1": ["<a_1>", "<b_3>"]}"#).unwrap();
        assert_eq!((a.n_items(), a.n_levels(), a.codebook_size()), (2, 2, 4));
        assert!(!a.codebook_size_given());
        assert_eq!(a.codes(1), &[1, 3]);
        assert_eq!(a.format(), IndexFormat::Tokens);
        let b = parse(r#"{"7": [1, 2]}"#).unwrap();
        assert_eq!(
            (b.format(), b.id(0), b.codes(0)),
            (IndexFormat::Integers, "7", &[1u16, 2][..])
        );
        let c = parse(r#"{"x": "<a_4> <b_5>"}"#).unwrap();
        assert_eq!(
            (c.format(), c.codes(0)),
            (IndexFormat::SidString, &[4u16, 5][..])
        );
    }

    #[test]
    fn writes_back_in_the_input_format() {
        for text in [
            r#"{"0": ["<a_1>", "<b_2>"], "b\"q": ["<a_1>", "<b_3>"]}"#,
            r#"{"0": [1, 2], "1": [1, 3]}"#,
            r#"{"0": "<a_1><b_2>", "1": "<a_1><b_3>"}"#,
        ] {
            let idx = parse(text).unwrap();
            let mut out = Vec::new();
            idx.write_json(&mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
    }

    #[test]
    fn errors_name_the_item_and_the_line() {
        let cases = [
            (
                r#"{"0": ["<a_1>", "<b_2>"], "1": ["<a_1>"]}"#,
                "item \"1\": has 1 levels, but earlier items have 2",
            ),
            (
                r#"{"0": ["<b_1>", "<a_2>"]}"#,
                "item \"0\": token \"<b_1>\" is out of level order",
            ),
            (r#"{"0": ["<a_x>"]}"#, "item \"0\": malformed token"),
            (r#"{"0": [1], "0": [2]}"#, "item \"0\": duplicate item id"),
            (r#"{"0": [-1]}"#, "item \"0\": negative code -1"),
            (
                r#"{"0": [70000]}"#,
                "item \"0\": code 70000 at level a is above 65535",
            ),
            (r#"{"0": []}"#, "item \"0\": has no codes"),
            (r#"{"0": null}"#, "item \"0\": has null"),
            (
                r#"{"0": [1], "1": ["<a_1>"]}"#,
                "item \"1\": mixes code formats",
            ),
            (
                r#"{"0": [1, 2, 3, 4, 5, 6, 7, 8, 9]}"#,
                "more than 8 levels",
            ),
            ("{}", "the index holds no items"),
            ("[1, 2]", "expected a JSON object"),
            (r#"{"0": [1,"#, "unexpected end of file"),
        ];
        for (text, want) in cases {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.starts_with("t.json"), "{err}");
            assert!(err.contains(want), "{text}: got {err:?}, want {want:?}");
        }
    }

    #[test]
    fn codes_must_be_below_a_given_codebook_size() {
        let text = r#"{"0": [1, 2], "5": [3, 9]}"#;
        let err = SidIndex::parse(text.as_bytes(), Path::new("t.json"), Some(8)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.json: item \"5\": code 9 at level b is not below the codebook size 8"
        );
        let ok = SidIndex::parse(text.as_bytes(), Path::new("t.json"), Some(256)).unwrap();
        assert!(ok.codebook_size_given());
        assert_eq!(ok.codebook_size(), 256);
    }

    #[test]
    fn reads_and_writes_back_every_token_scheme() {
        for (text, example) in [
            (
                r#"{"0": ["<A_154>", "<B_106>"], "1": ["<A_1>", "<B_2>"]}"#,
                "<A_1><B_2>",
            ),
            (
                r#"{"0": "<|sid_begin|><s_a_340><s_b_6566><s_c_5603><|sid_end|>"}"#,
                "<|sid_begin|><s_a_1><s_b_2><|sid_end|>",
            ),
            (
                r#"{"0": ["<|sid_12|>", "<|sid_7|>"]}"#,
                "<|sid_1|><|sid_2|>",
            ),
            (r#"{"0": "12-7-201-3", "1": "12-7-201-4"}"#, "1-2"),
            (r#"{"0": "12,7", "1": "65535,0"}"#, "1,2"),
            (r#"{"0": ["12", "7"]}"#, "1-2"),
        ] {
            let idx = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(idx.scheme().example(), example, "{text}");
            let mut out = Vec::new();
            idx.write_json(&mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
        let oor = parse(r#"{"0": "<|sid_begin|><s_a_340><s_b_6566><s_c_5603><|sid_end|>"}"#);
        assert_eq!(oor.unwrap().codes(0), &[340, 6566, 5603]);
    }

    #[test]
    fn a_file_keeps_one_scheme_and_a_given_scheme_is_enforced() {
        let err = parse(r#"{"0": ["<a_1>", "<b_2>"], "1": ["<A_1>", "<B_2>"]}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "item \"1\": \"<A_1>\" is written like <A_1><B_2>, but earlier items use <a_1><b_2>"
            ),
            "{err}"
        );
        let upper = SidScheme::from_name_or_example("upper");
        let err = SidIndex::parse_as(br#"{"0": "<a_1>"}"#, Path::new("t.json"), None, upper)
            .unwrap_err()
            .to_string();
        assert!(err.contains("but --sid-format says <A_1><B_2>"), "{err}");
        let err = parse(r#"{"0": "<s_a_1><s_c_2>"}"#).unwrap_err().to_string();
        assert!(err.contains("malformed SID"), "{err}");
    }

    #[test]
    fn with_last_codes_keeps_prefixes() {
        let a = parse(r#"{"0": [1, 2], "1": [1, 2]}"#).unwrap();
        let b = a.with_last_codes(Path::new("z.json"), &[2, 5]);
        assert_eq!((b.codes(0), b.codes(1)), (&[1u16, 2][..], &[1u16, 5][..]));
        assert_eq!(b.codebook_size(), 6);
    }
}
