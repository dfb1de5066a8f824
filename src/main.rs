//! The `sidlens` binary: a command-line front end (`cli`) and a terminal UI (`tui`) over the
//! `sidlens` library.

/// Large blocks advised into transparent huge pages: half the page faults of a one-shot
/// command (see the module).
#[global_allocator]
static ALLOCATOR: sidlens::huge_pages::HugePageAllocator = sidlens::huge_pages::HugePageAllocator;

fn main() -> std::process::ExitCode {
    sidlens::cli::main()
}
