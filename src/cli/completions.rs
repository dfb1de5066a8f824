//! `sidlens completions SHELL`: a completion script for bash, zsh, fish, elvish or PowerShell,
//! generated from the same clap definitions the parser uses, so it never lags behind them.

use clap::CommandFactory;
use clap_complete::Shell;

use super::print::print_text;

/// Arguments of `sidlens completions`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum, value_name = "SHELL")]
    shell: Shell,
}

/// The completion script for `shell`.
pub fn script(shell: Shell) -> String {
    let mut cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "sidlens", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Runs `sidlens completions`.
pub fn run(args: Args) -> anyhow::Result<()> {
    print_text(&script(args.shell))
}
