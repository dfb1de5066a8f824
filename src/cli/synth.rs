//! `sidlens synth`: writes a synthetic dataset of any size (index, beams, latents, codebooks)
//! to try sidlens at scale and to feed the benchmarks.

use std::path::PathBuf;

use crate::generate::synthetic::{self, SyntheticSpec};

use super::Globals;
use super::progress::Bar;

/// Arguments of `sidlens synth`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Number of items.
    #[arg(long, default_value_t = 100_000)]
    items: usize,
    /// Number of users (beam lists).
    #[arg(long, default_value_t = 20_000)]
    users: usize,
    /// SID levels L.
    #[arg(long, default_value_t = 4)]
    levels: usize,
    /// Codebook size V (a power of two).
    #[arg(long, default_value_t = 256)]
    codebook_size: usize,
    /// Latent dimension d.
    #[arg(long, default_value_t = 32)]
    dim: usize,
    /// Beams per user.
    #[arg(long, default_value_t = 20)]
    width: usize,
    /// Largest prefix group.
    #[arg(long, default_value_t = 184)]
    max_prefix_group: usize,
    /// Seed.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Output directory (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// Runs `sidlens synth`.
pub fn run(args: Args, globals: Globals) -> anyhow::Result<()> {
    let spec = SyntheticSpec {
        n_items: args.items,
        n_levels: args.levels,
        codebook_size: args.codebook_size,
        dim: args.dim,
        max_prefix_group: args.max_prefix_group,
        n_users: args.users,
        beam_width: args.width,
        seed: args.seed,
        ..SyntheticSpec::default()
    };
    let bar = Bar::new(globals.quiet);
    let files = synthetic::write_dataset(&spec, &args.out, &bar)?;
    drop(bar);
    eprintln!(
        "wrote {}, {}, {}, {}",
        files.index.display(),
        files.beams.display(),
        files.latents.display(),
        files.codebooks.display()
    );
    Ok(())
}
