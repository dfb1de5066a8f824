//! The real `sidlens` binary as a user runs it: every subcommand's output, exit codes and
//! messages, malformed inputs, pipes and the committed demo data.

#[path = "../common/mod.rs"]
mod common;

mod beams;
mod cf;
mod compare;
mod completions;
mod demo_data;
mod eval;
mod help;
mod item;
mod malformed_inputs;
mod malformed_tables;
mod mapped_inputs;
mod never_mislead;
mod pipe;
mod plot;
mod report;
mod tables;
mod tokenize;
mod zcr;
