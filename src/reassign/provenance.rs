//! The provenance sidecar written next to a reassigned index (`<out>.zcr.json`): which inputs
//! (with checksums), which mode, the totals, and the collision statistics before and after.

use std::io::Read;
use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{Mode, Summary};
use crate::collision::stats::IndexStats;
use crate::error::{Error, Result};

/// Files up to this size are identified by their SHA-256; larger ones by size and mtime,
/// so a sidecar never costs seconds of hashing.
pub const HASH_LIMIT_BYTES: u64 = 64 << 20;

/// How an input file is identified in a sidecar.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileInfo {
    /// The path as given.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Hex SHA-256 of the content (files up to [`HASH_LIMIT_BYTES`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Modification time, seconds since the Unix epoch (larger files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtime_unix: Option<u64>,
}

impl FileInfo {
    /// Identifies the file at `path`.
    pub fn of(path: &Path) -> Result<Self> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        let mut info = FileInfo {
            path: path.display().to_string(),
            bytes: meta.len(),
            sha256: None,
            mtime_unix: None,
        };
        if meta.len() <= HASH_LIMIT_BYTES {
            let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
            let mut hasher = Sha256::new();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = file.read(&mut buf).map_err(|e| Error::io(path, e))?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
            }
            info.sha256 = Some(
                hasher
                    .finalize()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect(),
            );
        } else {
            info.mtime_unix = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_secs());
        }
        Ok(info)
    }
}

/// The inputs of a reassignment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inputs {
    /// The native index.
    pub index: FileInfo,
    /// The latents or embeddings.
    pub latents: FileInfo,
    /// The codebooks; `null` when estimated from the latents.
    pub codebooks: Option<FileInfo>,
}

/// Everything the sidecar records.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Provenance {
    /// `sidlens`.
    pub tool: &'static str,
    /// The sidlens version that wrote the file.
    pub version: &'static str,
    /// Which assignment the index holds.
    pub mode: Mode,
    /// The reassigned index this sidecar describes.
    pub output: String,
    /// The inputs, identified.
    pub inputs: Inputs,
    /// The reassignment totals (as `sidlens zcr --json`).
    pub totals: Summary,
    /// Collision statistics of the native index.
    pub stats_before: IndexStats,
    /// Collision statistics of the reassigned index.
    pub stats_after: IndexStats,
}

/// The sidecar path for a reassigned index: `<out>.zcr.json`.
pub fn sidecar_path(out: &Path) -> std::path::PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".zcr.json");
    name.into()
}

/// How the index at `index` was reassigned, in words, when a sidecar says so: sidlens's
/// `<index>.zcr.json` gives the mode and the over-capacity remedy (`zcr optimal · over
/// capacity: append`), else the paper's `<DS>.zcr_provenance.json` its `zcr_mode`.
pub fn remedy_of(index: &Path) -> Option<String> {
    let ours = std::fs::read(sidecar_path(index))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok());
    if let Some(doc) = ours
        && let Some(mode) = doc.get("mode").and_then(|m| m.as_str())
    {
        let policy = doc
            .pointer("/totals/over_capacity/policy")
            .and_then(|p| p.as_str());
        return Some(match policy {
            Some(p) => format!("zcr {mode} · over capacity: {p}"),
            None => format!("zcr {mode}"),
        });
    }
    let paper = super::paper_sidecars::read_zcr_mode(index);
    (paper != super::paper_sidecars::ZcrMode::unknown())
        .then(|| format!("zcr_mode {paper} (paper sidecar)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remedy_comes_from_our_sidecar_then_the_papers() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("D.index.json");
        assert_eq!(remedy_of(&index), None);
        std::fs::write(
            dir.path().join("D.zcr_provenance.json"),
            r#"{"zcr_mode": "greedy", "schema_version": 1}"#,
        )
        .unwrap();
        assert_eq!(
            remedy_of(&index).as_deref(),
            Some("zcr_mode greedy (paper sidecar)")
        );
        std::fs::write(
            sidecar_path(&index),
            r#"{"mode": "mql4grec", "totals": {"over_capacity": {"policy": "two-level"}}}"#,
        )
        .unwrap();
        assert_eq!(
            remedy_of(&index).as_deref(),
            Some("zcr mql4grec · over capacity: two-level")
        );
        std::fs::write(sidecar_path(&index), r#"{"mode": "optimal", "totals": {}}"#).unwrap();
        assert_eq!(remedy_of(&index).as_deref(), Some("zcr optimal"));
    }

    #[test]
    fn small_files_are_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        std::fs::write(&p, b"abc").unwrap();
        let info = FileInfo::of(&p).unwrap();
        assert_eq!(info.bytes, 3);
        assert_eq!(
            info.sha256.as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        assert_eq!(
            sidecar_path(Path::new("a/b.json")),
            Path::new("a/b.json.zcr.json")
        );
    }
}
