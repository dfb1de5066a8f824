//! One tokenizer's files, the unit every front end opens: its index, the beams generated
//! against it (several = one file per generator seed), and the vectors that price its
//! reassignment. Only paths; nothing is read here.

use std::path::{Path, PathBuf};

/// A tokenizer as files: what `--run NAME=INDEX[,BEAMS…]`, a dataset folder's variant and the
/// TUI's tabs all describe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenizerFiles {
    /// The name shown in tables and tabs (a dataset's variant folder, or the user's NAME).
    pub name: String,
    /// The SID index.
    pub index: PathBuf,
    /// Beam outputs generated against it, most specific first.
    pub beams: Vec<PathBuf>,
    /// The tokenizer's codebooks (L×V×d), for ZCR costs.
    pub codebooks: Option<PathBuf>,
    /// Item latents the tokenizer encoded, for ZCR costs.
    pub latents: Option<PathBuf>,
    /// Where beams were looked for when none were found (patterns, most specific first);
    /// empty when the beams were given, or none were sought.
    pub beams_sought: Vec<String>,
}

impl TokenizerFiles {
    /// A tokenizer with only an index.
    pub fn index_only(name: impl Into<String>, index: impl Into<PathBuf>) -> Self {
        TokenizerFiles {
            name: name.into(),
            index: index.into(),
            beams: Vec::new(),
            codebooks: None,
            latents: None,
            beams_sought: Vec::new(),
        }
    }

    /// Why this tokenizer has no metrics: where its beams were looked for, or how to give
    /// them. The one wording every surface shows.
    pub fn no_beams_warning(&self) -> String {
        if self.beams_sought.is_empty() {
            format!(
                "{}: no beams given, so it has no metrics (give them as NAME=INDEX,BEAMS)",
                self.name
            )
        } else {
            format!(
                "{}: no beams found, so it has no metrics; looked for {}",
                self.name,
                self.beams_sought.join(", ")
            )
        }
    }

    /// The beams file to evaluate: the first one.
    pub fn beams_file(&self) -> Option<&Path> {
        self.beams.first().map(PathBuf::as_path)
    }

    /// Parses the one spelling every subcommand accepts, `NAME=INDEX[,BEAMS[,BEAMS…]]`.
    pub fn parse_spec(spec: &str) -> Result<TokenizerFiles, String> {
        let invalid = || format!("expected NAME=INDEX[,BEAMS...], got {spec:?}");
        let (name, files) = spec.split_once('=').ok_or_else(invalid)?;
        let mut files = files.split(',');
        let index = files.next().unwrap_or_default();
        let beams: Vec<PathBuf> = files.map(PathBuf::from).collect();
        if name.is_empty() || index.is_empty() || beams.iter().any(|b| b.as_os_str().is_empty()) {
            return Err(invalid());
        }
        Ok(TokenizerFiles {
            beams,
            ..TokenizerFiles::index_only(name, index)
        })
    }
}

/// The first name given to two tokenizers, if any: tables and tabs need distinct names.
pub fn duplicate_name(tokenizers: &[TokenizerFiles]) -> Option<&str> {
    tokenizers.iter().enumerate().find_map(|(i, t)| {
        tokenizers[..i]
            .iter()
            .any(|o| o.name == t.name)
            .then_some(t.name.as_str())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_name_an_index_and_any_number_of_beams() {
        let t = TokenizerFiles::parse_spec("rk=a.json").unwrap();
        assert_eq!(
            (t.name.as_str(), t.index.as_path()),
            ("rk", Path::new("a.json"))
        );
        assert!(t.beams.is_empty());
        let t = TokenizerFiles::parse_spec("rk=a.json,s1.jsonl,s2.jsonl").unwrap();
        assert_eq!(
            t.beams,
            [PathBuf::from("s1.jsonl"), PathBuf::from("s2.jsonl")]
        );
        assert_eq!(t.beams_file(), Some(Path::new("s1.jsonl")));
        for bad in ["a.json", "=a.json", "rk=", "rk=a.json,", "rk=a.json,,b"] {
            assert!(TokenizerFiles::parse_spec(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn duplicate_names_are_found() {
        let ts = [
            TokenizerFiles::index_only("a", "1"),
            TokenizerFiles::index_only("b", "2"),
            TokenizerFiles::index_only("a", "3"),
        ];
        assert_eq!(duplicate_name(&ts), Some("a"));
        assert_eq!(duplicate_name(&ts[..2]), None);
    }
}
