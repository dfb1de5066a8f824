//! Fuzzes the .npy readers (latents N×d and codebooks L×V×d): any bytes must give arrays or a
//! clear error naming the file, never a panic or an unbounded allocation.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sidlens::load::vectors::{Codebooks, Latents};

/// One scratch file per fuzzing process (the readers take paths).
fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("sidlens-fuzz-{}.npy", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    std::fs::write(path, data).unwrap();
    match Latents::load(path) {
        Ok(latents) => {
            let mut row = vec![0.0; latents.dim()];
            latents.row_into(latents.n_rows() - 1, &mut row);
            assert!(row.iter().all(|x| x.is_finite()));
        }
        Err(e) => assert!(e.to_string().contains("sidlens-fuzz"), "{e}"),
    }
    if let Ok(codebooks) = Codebooks::load(path) {
        let last = codebooks.codeword(codebooks.n_levels() - 1, codebooks.codebook_size() - 1);
        assert_eq!(last.len(), codebooks.dim());
    }
});
