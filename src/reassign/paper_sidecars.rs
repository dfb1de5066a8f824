//! The two sidecars CollisionGenRec's `tokenizer/zcr_provenance.py` writes beside
//! `<DS>.index.json`: `<DS>.zcr_provenance.json` (`zcr_mode`, `schema_version`,
//! `timestamp_utc`) and `<DS>.stats.json` (its ZCR totals). Read as its `read_zcr_mode` does,
//! so an index sidlens reassigned is labelled `optimal` or `greedy` by the paper's `test.py`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Mode, Summary};
use crate::collision::stats::IndexStats;
use crate::error::{Error, Place, Result};
use crate::io::write::Outputs;

/// The provenance schema version the reference writes.
pub const SCHEMA_VERSION: &str = "1.0";

/// What `read_zcr_mode` reports for an index: `optimal`, `greedy`, `none`, or `unknown` when
/// no readable sidecar is beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ZcrMode(pub String);

impl ZcrMode {
    /// The label of an index with no sidecar.
    pub fn unknown() -> Self {
        ZcrMode("unknown".into())
    }
}

impl std::fmt::Display for ZcrMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `<dir>/<DS>.zcr_provenance.json` and `<dir>/<DS>.stats.json` for the index at `index`,
/// DS being the file name up to its first dot (as the reference splits it).
pub fn sidecar_paths(index: &Path) -> (PathBuf, PathBuf) {
    let dir = index.parent().unwrap_or(Path::new(""));
    let name = index
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dataset = name.split('.').next().unwrap_or("").to_string();
    (
        dir.join(format!("{dataset}.zcr_provenance.json")),
        dir.join(format!("{dataset}.stats.json")),
    )
}

/// The `zcr_mode` of the index at `index`, exactly as the reference's `read_zcr_mode`
/// resolves it: the provenance sidecar's `zcr_mode`, else `unknown`.
pub fn read_zcr_mode(index: &Path) -> ZcrMode {
    #[derive(Deserialize)]
    struct Provenance {
        zcr_mode: Option<serde_json::Value>,
    }
    let (provenance, _) = sidecar_paths(index);
    let Ok(bytes) = std::fs::read(&provenance) else {
        return ZcrMode::unknown();
    };
    match serde_json::from_slice::<Provenance>(&bytes) {
        Ok(Provenance {
            zcr_mode: Some(serde_json::Value::String(mode)),
        }) => ZcrMode(mode),
        Ok(Provenance {
            zcr_mode: Some(other),
        }) => ZcrMode(other.to_string()),
        _ => ZcrMode::unknown(),
    }
}

/// `<DS>.zcr_provenance.json`, field for field as the reference writes it.
#[derive(Debug, Serialize)]
struct ProvenanceFile<'a> {
    zcr_mode: &'a str,
    schema_version: &'a str,
    timestamp_utc: String,
}

/// `<DS>.stats.json`, field for field as the reference writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperStats {
    /// `optimal` or `greedy`.
    pub zcr_mode: String,
    /// Items whose last code changed.
    pub n_reassigned: u64,
    /// Prefix groups with a collision that were resolved (at most V items).
    pub n_collision_groups: u64,
    /// The largest prefix group of more than one item (0 when there is none).
    pub max_prefix_group_size: u64,
    /// Σ ΔD over the moved items.
    pub total_dist_increase: f64,
    /// Σ ΔD / max(moved items, 1).
    pub avg_dist_increase: f64,
    /// Items in groups of size > 1 over all items, after reassignment.
    pub post_zcr_collision_rate: f64,
    /// Whether every prefix group fits the codebook.
    pub prefix_feasibility: bool,
    /// V.
    pub codebook_size: u64,
}

impl PaperStats {
    /// The reference's statistics of a reassignment in `mode`: `before` and `after` are the
    /// native and reassigned indexes' statistics.
    pub fn new(mode: Mode, summary: &Summary, before: &IndexStats, after: &IndexStats) -> Self {
        let totals = match mode {
            Mode::Optimal => Some(&summary.optimal),
            Mode::Greedy => Some(&summary.greedy),
            Mode::Mql4grec => summary.mql4grec.as_ref(),
        };
        let (n_reassigned, total) = totals.map_or((0, 0.0), |t| {
            (t.n_reassigned as u64, t.total_delta.unwrap_or(0.0))
        });
        // The reference only looks at prefix groups of two or more items.
        let max_pgs = if before.max_prefix_group_size > 1 {
            before.max_prefix_group_size as u64
        } else {
            0
        };
        PaperStats {
            zcr_mode: mode_name(mode).into(),
            n_reassigned,
            n_collision_groups: summary.n_groups_resolved as u64,
            max_prefix_group_size: max_pgs,
            total_dist_increase: total,
            avg_dist_increase: total / n_reassigned.max(1) as f64,
            post_zcr_collision_rate: after.collision_rate,
            prefix_feasibility: max_pgs <= summary.codebook_size as u64,
            codebook_size: summary.codebook_size as u64,
        }
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Optimal => "optimal",
        Mode::Greedy => "greedy",
        // Not one of the paper's modes: named for what wrote it rather than passed off as one.
        Mode::Mql4grec => "mql4grec",
    }
}

/// Writes both sidecars beside the reassigned index at `index` (atomically, two-space
/// indented like Python's `json.dump(..., indent=2)`); returns their paths.
pub fn write(
    index: &Path,
    stats: &PaperStats,
    outputs: &mut Outputs,
) -> Result<(PathBuf, PathBuf)> {
    let (provenance_path, stats_path) = sidecar_paths(index);
    let provenance = ProvenanceFile {
        zcr_mode: &stats.zcr_mode,
        schema_version: SCHEMA_VERSION,
        timestamp_utc: utc_timestamp(std::time::SystemTime::now()),
    };
    outputs.add(&provenance_path, |w| {
        serde_json::to_writer_pretty(w, &provenance).map_err(std::io::Error::other)
    })?;
    outputs.add(&stats_path, |w| {
        serde_json::to_writer_pretty(w, stats).map_err(std::io::Error::other)
    })?;
    Ok((provenance_path, stats_path))
}

/// Reads a `<DS>.stats.json` sidecar.
pub fn read_stats(path: &Path) -> Result<PaperStats> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| Error::data(path, Place::File, e.to_string()))
}

/// `%Y-%m-%dT%H:%M:%SZ` in UTC, as `time.strftime(..., time.gmtime())` gives.
fn utc_timestamp(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn timestamps_are_utc_like_strftime() {
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_709_251_199);
        assert_eq!(utc_timestamp(t), "2024-02-29T23:59:59Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(utc_timestamp(t), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn the_mode_is_read_as_the_reference_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("Beauty.index.json");
        assert_eq!(read_zcr_mode(&index), ZcrMode::unknown());
        let (prov, stats) = sidecar_paths(&index);
        assert_eq!(prov, dir.path().join("Beauty.zcr_provenance.json"));
        assert_eq!(stats, dir.path().join("Beauty.stats.json"));
        std::fs::write(&prov, "not json").unwrap();
        assert_eq!(read_zcr_mode(&index).0, "unknown");
        std::fs::write(&prov, r#"{"schema_version": "1.0"}"#).unwrap();
        assert_eq!(read_zcr_mode(&index).0, "unknown");
        std::fs::write(&prov, r#"{"zcr_mode": "greedy"}"#).unwrap();
        assert_eq!(read_zcr_mode(&index).0, "greedy");
    }
}
