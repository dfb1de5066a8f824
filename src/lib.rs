//! sidlens: inspect Semantic-ID tokenizers for generative recommendation.
//!
//! The library holds the whole domain (loading, collision analysis, collision-corrected
//! metrics, zero-collision reassignment, projection, reports); the CLI and the TUI in the
//! binary are thin front ends over it, so every number the TUI shows is scriptable.

pub mod collision;
pub mod compare;
pub mod demo;
pub mod diff;
pub mod error;
pub mod load;
pub mod metrics;
pub mod output;
pub mod progress;
pub mod projection;
pub mod proxy_beams;
pub mod random;
pub mod reassign;
pub mod report;
pub mod sid;
pub mod stats;
pub mod synthetic;
pub mod text_embedding;
pub mod tokenize;

pub use error::{Error, Result};
