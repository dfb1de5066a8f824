//! `sidlens man`: the man page (roff), generated from the clap definitions — `sidlens(1)` on
//! stdout, or with `--out DIR` one page per subcommand (`sidlens-stats.1`, …) as well.

use std::path::{Path, PathBuf};

use crate::io::write::write_atomically;
use clap::CommandFactory;

use super::print::print_text;

/// Arguments of `sidlens man`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write `sidlens.1` and one `sidlens-<subcommand>.1` per subcommand into this folder
    /// instead of printing `sidlens.1`.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Every man page: (file name, roff text), `sidlens.1` first.
pub fn pages() -> Vec<(String, String)> {
    let mut cmd = super::Cli::command();
    cmd.build();
    let mut pages = vec![("sidlens.1".to_string(), render(&cmd))];
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = sub
            .get_display_name()
            .map_or_else(|| format!("sidlens-{}", sub.get_name()), str::to_string);
        pages.push((format!("{name}.1"), render(sub)));
    }
    pages
}

fn render(cmd: &clap::Command) -> String {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .date("")
        .render(&mut out)
        .expect("rendering into memory cannot fail");
    String::from_utf8_lossy(&out).into_owned()
}

/// Runs `sidlens man`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pages = pages();
    match &args.out {
        None => print_text(&pages[0].1),
        Some(dir) => {
            if !dir.is_dir() {
                anyhow::bail!("{}: is not a directory (--out)", dir.display());
            }
            for (name, text) in &pages {
                write_atomically(&Path::new(dir).join(name), |w| w.write_all(text.as_bytes()))?;
            }
            eprintln!("wrote {} man pages into {}", pages.len(), dir.display());
            Ok(())
        }
    }
}
