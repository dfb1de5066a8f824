//! The paper's figures for a user's own tokenizers, as SVG documents built from the same
//! library results the TUI shows (comparisons, evaluations, reassignment plans, projections).
//! One file per figure; `style` and `axes` are the shared look; `png` rasterises any of them.

pub mod axes;
pub mod curves;
pub mod inflation;
pub mod png;
pub mod ranks;
pub mod scatter;
pub mod style;
pub mod zcr;
