//! The `sidlens` binary: a command-line front end (`cli`) and a terminal UI (`tui`) over the
//! `sidlens` library.

mod cli;
mod tui;

fn main() -> std::process::ExitCode {
    cli::main()
}
