//! Large inputs (8 MiB and up), which one-shot commands map instead of reading: the same
//! results and the same messages as the library's read path (this test process never turns
//! mapping on, so its library calls read).

use crate::common;

use std::path::{Path, PathBuf};

use common::sidlens;
use ndarray::{Array2, ShapeBuilder};
use ndarray_npy::{ReadNpyExt, write_npy};
use sidlens::load::SidIndex;

/// A synthetic tokenizer whose index and latents are each above the mapping size.
fn synthetic(dir: &Path) -> PathBuf {
    let out = dir.join("synthetic");
    let run = sidlens(&[
        "synth",
        "--items",
        "200000",
        "--users",
        "1000",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for name in ["synthetic.index.json", "latents.npy"] {
        let len = std::fs::metadata(out.join(name)).unwrap().len();
        assert!(len >= 8 << 20, "{name} is only {len} bytes");
    }
    out
}

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The one error line of a failed run, without its `sidlens: error: ` prefix.
fn error_of(args: &[&str]) -> String {
    let out = sidlens(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    err.strip_prefix("sidlens: error: ")
        .unwrap_or(&err)
        .to_string()
}

#[test]
fn mapped_inputs_give_the_read_paths_results_and_messages() {
    let dir = tempfile::tempdir().unwrap();
    let data = synthetic(dir.path());
    let (index, latents) = (data.join("synthetic.index.json"), data.join("latents.npy"));
    let codebooks = data.join("codebooks.npy");

    // Latents: a C-order file is mapped, the same values in Fortran order are read.
    let values = Array2::<f32>::read_npy(std::fs::File::open(&latents).unwrap()).unwrap();
    let fortran = data.join("latents.fortran.npy");
    let mut f = Array2::<f32>::zeros(values.dim().f());
    f.assign(&values);
    write_npy(&fortran, &f).unwrap();
    let zcr = |latents: &Path| {
        let out = sidlens(&[
            "zcr",
            "--index",
            text(&index),
            "--latents",
            text(latents),
            "--codebooks",
            text(&codebooks),
            "--json",
            "--quiet",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let mapped = zcr(&latents).replace(text(&latents), "LATENTS");
    assert!(mapped.contains("\"latent_agreement\""), "{mapped}");
    assert_eq!(mapped, zcr(&fortran).replace(text(&fortran), "LATENTS"));

    // A damaged index: the message of reading it, with the same line and column.
    let bytes = std::fs::read(&index).unwrap();
    let n = bytes.len();
    let mut cases = vec![bytes[..n / 2].to_vec(), [&bytes[..], b" x"].concat()];
    for at in [n / 3, n - 30] {
        let mut damaged = bytes.clone();
        damaged[at] = b'x';
        cases.push(damaged);
    }
    for (k, damaged) in cases.iter().enumerate() {
        let p = data.join(format!("damaged{k}.index.json"));
        std::fs::write(&p, damaged).unwrap();
        let read = SidIndex::load(&p, None).unwrap_err().to_string();
        assert_eq!(
            error_of(&["stats", "--index", text(&p)]),
            read,
            "index case {k}"
        );
    }
}
