//! What a shared report was made from: the sidlens version, the command line, and each input
//! file's path, size and SHA-256, so a reader can check they look at the same data.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// One input file, identified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    /// The path as given or discovered.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Hex SHA-256 of the whole content.
    pub sha256: String,
}

impl InputFile {
    /// Reads and hashes the file at `path` (always the whole file: a report is made once).
    pub fn of(path: &Path) -> Result<Self> {
        let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let n = file.read(&mut buf).map_err(|e| Error::io(path, e))?;
            if n == 0 {
                break;
            }
            bytes += n as u64;
            hasher.update(&buf[..n]);
        }
        Ok(InputFile {
            path: path.display().to_string(),
            bytes,
            sha256: hasher
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        })
    }
}

/// The provenance section's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The sidlens version.
    pub version: String,
    /// The command line, one argument per entry.
    pub command_line: Vec<String>,
    /// Every input, in the order they were read.
    pub inputs: Vec<InputFile>,
}

impl Provenance {
    /// Identifies `paths` (each once, in the order given).
    pub fn new(version: &str, command_line: Vec<String>, paths: &[&Path]) -> Result<Self> {
        let mut inputs: Vec<InputFile> = Vec::new();
        for path in paths {
            let display = path.display().to_string();
            if !inputs.iter().any(|i| i.path == display) {
                inputs.push(InputFile::of(path)?);
            }
        }
        Ok(Provenance {
            version: version.to_string(),
            command_line,
            inputs,
        })
    }

    /// The command line as a shell would take it back (arguments quoted where needed).
    pub fn shell_line(&self) -> String {
        self.command_line
            .iter()
            .map(|a| {
                if !a.is_empty()
                    && a.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_=./,:@+%".contains(c))
                {
                    a.clone()
                } else {
                    format!("'{}'", a.replace('\'', "'\\''"))
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_hashed_once_and_arguments_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        std::fs::write(&p, b"abc").unwrap();
        let prov = Provenance::new(
            "1.0",
            vec![
                "sidlens".into(),
                "report".into(),
                "my dir".into(),
                "it's".into(),
            ],
            &[&p, &p],
        )
        .unwrap();
        assert_eq!(prov.inputs.len(), 1);
        assert_eq!(prov.inputs[0].bytes, 3);
        assert_eq!(
            prov.inputs[0].sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(prov.shell_line(), "sidlens report 'my dir' 'it'\\''s'");
    }
}
