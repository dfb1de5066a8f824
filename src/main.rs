//! The `sidlens` binary: a command-line front end (`cli`) and a terminal UI (`tui`) over the
//! `sidlens` library.

fn main() -> std::process::ExitCode {
    sidlens::cli::main()
}
