//! What a loaded tokenizer holds for the panes: the index, its groups, statistics, and the
//! group-list rows built by the library (`report::groups`), so `sidlens groups` shows the same.

use sidlens::collision::Collisions;
use sidlens::load::{ItemTexts, SidIndex};
use sidlens::report::groups::{self, GroupFilter, GroupRow};
use sidlens::stats::IndexStats;

/// One tokenizer, loaded and analysed; read-only and shared with background jobs.
#[derive(Debug)]
pub struct TokenizerData {
    /// The SID index.
    pub index: SidIndex,
    /// Items grouped by SID and by prefix.
    pub collisions: Collisions,
    /// Collision statistics.
    pub stats: IndexStats,
    /// Every collision group, largest first, as `sidlens groups` lists them.
    pub rows: Vec<GroupRow>,
}

impl TokenizerData {
    /// Computes statistics and lists the collision groups (with titles) of a grouped index.
    pub fn from_parts(index: SidIndex, collisions: Collisions, texts: Option<&ItemTexts>) -> Self {
        let stats = IndexStats::compute(&index, &collisions);
        let rows = groups::group_rows(&index, &collisions, texts, GroupFilter::default());
        TokenizerData {
            index,
            collisions,
            stats,
            rows,
        }
    }
}
