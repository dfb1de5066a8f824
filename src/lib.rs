//! sidlens: the domain of Semantic-ID tokenizer inspection — loading, collision analysis,
//! collision-corrected metrics, zero-collision reassignment, projection, reports — with no UI,
//! so the CLI and the TUI are thin front ends and every number the TUI shows is scriptable.

#![warn(missing_docs)]

pub mod collab;
pub mod collision;
pub mod compare;
pub mod error;
pub mod generate;
pub mod io;
pub mod load;
pub mod metrics;
pub mod numeric;
pub mod plot;
pub mod progress;
pub mod projection;
pub mod reassign;
pub mod report;
pub mod sid;
pub mod usecase;

pub use error::{Error, Result};

/// The command-line front end (clap). Public only so the binary and the tests can reach it;
/// hidden from the library's documentation because it is not part of the domain API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
/// The terminal UI (ratatui), a front end like `cli`; the TUI tests and benchmark use it as a
/// module of this crate.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod tui;
