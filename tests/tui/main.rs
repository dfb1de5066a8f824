//! The terminal UI on a `TestBackend`: whole screens (insta snapshots), keys, the metrics
//! pane and the Figure-5 scatter, fed by the real background jobs.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/tui_fixture.rs"]
mod fixture;

mod e2e;
mod figure5;
mod keys;
mod metrics;
mod render;
