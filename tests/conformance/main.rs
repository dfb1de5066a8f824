//! Conformance with the paper's reference code: sidlens's numbers against the expected outputs
//! in `../shared/reference` (skipped, with one summary line, when that folder is absent) and
//! against the fixtures the peers' own writers produced.

#[path = "../common/mod.rs"]
mod common;

mod beams_mql4grec_outputs;
mod beams_reference;
mod cf_fusion_groups;
mod cf_reference;
mod decode;
mod diff;
mod eval;
mod formats;
mod mql4grec;
mod over_capacity;
mod parquet;
mod tensors;
mod tokenize_reference;
mod zcr;
