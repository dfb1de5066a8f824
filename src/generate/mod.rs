//! Things sidlens makes rather than analyses: the demo dataset, synthetic data at any scale, a
//! co-occurrence proxy generator of beams, an RK-Means tokenizer and TF-IDF text embeddings.

pub mod demo;
pub mod proxy_beams;
pub mod synthetic;
pub mod text_embedding;
pub mod tokenize;
