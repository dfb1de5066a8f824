//! Invariants checked on generated inputs (proptest): decoding, proxy beams, the remedies,
//! ZCR against brute force, significance tests and the projection.

#[path = "../common/mod.rs"]
mod common;

mod decode;
mod projection;
mod proxy_beams;
mod remedies;
mod significance;
mod zcr;
