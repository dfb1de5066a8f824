//! `stats` as one call: an index's collision statistics, the token scheme it is written in,
//! what the paper's sidecar says of its reassignment, and (with interactions) how its
//! collision groups look through them. The CLI and the TUI's status line render the same
//! [`IndexReport`].

use std::path::{Path, PathBuf};

use crate::collab::interactions::CollisionInteractions;
use crate::collision::stats::IndexStats;
use crate::error::Result;
use crate::load::Interactions;
use crate::reassign::paper_sidecars::{ZcrMode, read_zcr_mode};
use crate::usecase::Tokenizer;

/// Everything `stats` says about one index.
#[derive(Debug)]
pub struct IndexReport {
    /// Collision rate, group sizes, prefix capacity and code use.
    pub stats: IndexStats,
    /// How the index's SIDs are written (an example SID in its scheme).
    pub sid_format: String,
    /// What the paper's `<DS>.zcr.json` sidecar beside the index says.
    pub zcr_mode: ZcrMode,
    /// The interactions file and what it says about the collision groups.
    pub interactions: Option<(PathBuf, CollisionInteractions)>,
}

impl IndexReport {
    /// Computes the report of an opened tokenizer, with the interactions at `interactions`.
    pub fn of(tokenizer: &Tokenizer, interactions: Option<&Path>) -> Result<IndexReport> {
        let (index, collisions) = (&tokenizer.index, &tokenizer.collisions);
        let interactions = match interactions {
            Some(path) => Some((
                path.to_path_buf(),
                CollisionInteractions::compute(index, collisions, &Interactions::load(path)?),
            )),
            None => None,
        };
        Ok(IndexReport {
            stats: IndexStats::compute(index, collisions),
            sid_format: index.scheme().example(),
            zcr_mode: read_zcr_mode(&tokenizer.files.index),
            interactions,
        })
    }
}
