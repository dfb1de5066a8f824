//! The use cases both front ends call, so that neither wires library steps itself: price a
//! tokenizer's reassignment, evaluate its beams, project its items, embed its interactions, compare a set of
//! tokenizers, follow one item through them. Each takes a [`Progress`](crate::progress::Progress) that reports and cancels.

mod collaborative;
mod compare;
pub mod evaluate;
mod item;
pub mod item_view;
pub mod per_user;
mod price;
mod project;
pub mod stats;
pub mod tokenizer;

pub use collaborative::collaborative_space;
pub use compare::{
    CompareReport, EvaluatedTokenizer, compare_evaluated, compare_tokenizers,
    compare_tokenizers_decoded, evaluate_seeds,
};
pub use evaluate::{EvalRequest, EvalResult, evaluate};
pub use item::follow_item;
pub use price::{Vectors, cost_model, cost_model_of, plan_reassignment, read_vectors};
pub use project::{project_candidates, project_items};
pub use tokenizer::Tokenizer;
