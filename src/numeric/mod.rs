//! Numeric building blocks with fixed results: the kernels whose summation orders are named
//! (committed bytes depend on them), the cache hint of the hot lookups, and the one seeded
//! random number generator.

pub mod kernels;
pub mod prefetch;
pub mod random;
