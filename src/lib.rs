//! sidlens: the domain of Semantic-ID tokenizer inspection — loading, collision analysis,
//! collision-corrected metrics, zero-collision reassignment, projection, reports — with no UI,
//! so the CLI and the TUI are thin front ends and every number the TUI shows is scriptable.

#![warn(missing_docs)]

pub mod collab;
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
