//! A cache hint shared by the lookups on the evaluation's hot path (the SID table, the id
//! table): starting a load early lets the misses of many lookups overlap. The instruction
//! itself is in [`super::kernels`], with the crate's other vector code.

pub use super::kernels::prefetch;
