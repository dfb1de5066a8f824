//! The collaborative space of the paper: item co-occurrences in users' sequences, PPMI, and a
//! truncated SVD of it (`E = U·√σ`, rows L2-normalised), plus what is built on it.

pub mod cooccurrence;
pub mod dense_eigen;
pub mod embedding;
pub mod fusion;
mod gemm;
pub mod interactions;
pub mod krylov;
pub mod sparse;
pub mod spread;

pub use cooccurrence::{ItemRows, Window};
pub use embedding::{CfConfig, CfEmbedding, embed};
