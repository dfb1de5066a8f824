//! `.safetensors` and torch `.pt` files (written by the real libraries, see
//! scripts/make_tensor_fixtures.py) read into the same values as the `.npy` and JSON path:
//! latents, codebooks and SID codes as an index, in a lone tensor or a checkpoint's state dict,
//! and `zcr` gives the same answer on either.

use crate::common;

use std::path::{Path, PathBuf};

use common::sidlens;
use sidlens::load::{Codebooks, Latents, SidIndex};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tensors")
        .join(name)
}

fn rows(l: &Latents) -> Vec<Vec<f64>> {
    (0..l.n_rows())
        .map(|r| {
            let mut row = vec![0.0; l.dim()];
            l.row_into(r, &mut row);
            row
        })
        .collect()
}

fn codewords(c: &Codebooks) -> Vec<f64> {
    let mut out = Vec::new();
    for level in 0..c.n_levels() {
        for code in 0..c.codebook_size() {
            out.extend_from_slice(c.codeword(level, code));
        }
    }
    out
}

#[test]
fn latents_read_the_same_from_every_format() {
    let npy = Latents::load(&fixture("latents.npy")).unwrap();
    for name in ["latents.safetensors", "latents.pt"] {
        let other = Latents::load(&fixture(name)).unwrap();
        assert_eq!(other.dtype(), "float32", "{name}");
        assert_eq!(rows(&other), rows(&npy), "{name}");
    }
    let encoder = Latents::load(&fixture("checkpoint.pt#encoder.weight")).unwrap();
    let want: Vec<Vec<f64>> = rows(&npy).into_iter().map(|r| r[..4].to_vec()).collect();
    assert_eq!(rows(&encoder), want);
}

#[test]
fn codebooks_read_the_same_from_every_format() {
    let npy = Codebooks::load(&fixture("codebooks.npy")).unwrap();
    for name in [
        "codebooks.safetensors",
        "codebooks.pt",
        "checkpoint.pt#quantizer.codebooks",
    ] {
        let other = Codebooks::load(&fixture(name)).unwrap();
        assert_eq!(
            (other.n_levels(), other.codebook_size(), other.dim()),
            (2, 8, 8),
            "{name}"
        );
        assert_eq!(codewords(&other), codewords(&npy), "{name}");
    }
    assert_eq!(
        Codebooks::load(&fixture("codebooks.pt")).unwrap().dtype(),
        "float64"
    );
}

#[test]
fn sid_code_tensors_are_indexes() {
    let json = SidIndex::load(&fixture("index.json"), None).unwrap();
    for name in [
        "codes.npy",
        "codes.safetensors",
        "codes.pt",
        "checkpoint.pt#codes_t",
    ] {
        let other = SidIndex::load(&fixture(name), None).unwrap();
        assert_eq!(other.n_items(), json.n_items(), "{name}");
        assert_eq!(other.all_codes(), json.all_codes(), "{name}");
        assert_eq!(
            other.ids().iter().collect::<Vec<_>>(),
            json.ids().iter().collect::<Vec<_>>(),
            "{name}"
        );
    }
}

#[test]
fn zcr_gives_the_same_answer_on_tensor_files() {
    let run = |index: &str, latents: &str, codebooks: &str| {
        let out = sidlens(&[
            "zcr",
            "--index",
            fixture(index).to_str().unwrap(),
            "--latents",
            fixture(latents).to_str().unwrap(),
            "--codebooks",
            fixture(codebooks).to_str().unwrap(),
            "--json",
            "--groups",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Only the file names differ.
        strip_paths(&mut v);
        v
    };
    let want = run("index.json", "latents.npy", "codebooks.npy");
    assert!(want.to_string().contains("n_reassigned"), "{want}");
    assert_eq!(
        run("codes.pt", "latents.safetensors", "codebooks.safetensors"),
        want
    );
    assert_eq!(
        run(
            "checkpoint.pt#codes_t",
            "latents.pt",
            "checkpoint.pt#quantizer.codebooks"
        ),
        want
    );
}

fn strip_paths(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| !matches!(k.as_str(), "index" | "latents" | "codebooks" | "path"));
            m.values_mut().for_each(strip_paths);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_paths),
        _ => {}
    }
}

#[test]
fn bad_tensor_files_are_named_with_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let err = |path: &Path| Latents::load(path).unwrap_err().to_string();
    let ckpt = fixture("checkpoint.pt");
    let e = err(&ckpt);
    assert!(
        e.contains("checkpoint.pt: holds several tensors; name the 2-D one to read as")
            && e.contains("encoder.weight [40, 4] float32")
            && e.contains("codes_t [40, 2] int64"),
        "{e}"
    );
    let e = err(&dir.path().join("x.pt#nothing"));
    assert!(e.contains("x.pt#nothing"), "{e}");
    let e = Latents::load(&PathBuf::from(format!("{}#nope", ckpt.display())))
        .unwrap_err()
        .to_string();
    assert!(e.contains("has no tensor named \"nope\""), "{e}");
    let e = Latents::load(&PathBuf::from(format!("{}#codes_t", ckpt.display())))
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("checkpoint.pt: tensor \"codes_t\": latents or embeddings must be floating-point, found int64"),
        "{e}"
    );
    let e = SidIndex::load(&fixture("latents.safetensors"), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with(
            "latents.safetensors: tensor \"latents\": SID codes must be integers, found float32"
        ),
        "{e}"
    );
    let e = Codebooks::load(&fixture("latents.pt"))
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("latents.pt: expected a 3-D tensor (codebooks, L × V × d), found shape [40, 8] of float32"),
        "{e}"
    );
    for name in ["latents.pt", "latents.safetensors", "codes.pt"] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        for cut in [9, bytes.len() / 2, bytes.len() - 30] {
            let p = dir.path().join(name);
            std::fs::write(&p, &bytes[..cut]).unwrap();
            let e = Latents::load(&p).unwrap_err().to_string();
            assert!(
                e.starts_with(&p.display().to_string()),
                "{name} cut at {cut}: {e}"
            );
            let e = SidIndex::load(&p, None).unwrap_err().to_string();
            assert!(
                e.starts_with(&p.display().to_string()),
                "{name} cut at {cut}: {e}"
            );
        }
    }
}

#[test]
fn corrupted_tensor_files_give_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["checkpoint.pt", "codes.safetensors", "latents.pt"] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        let p = dir.path().join(name);
        for at in (0..bytes.len()).step_by(13) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x5A;
            std::fs::write(&p, &bad).unwrap();
            let _ = Latents::load(&p);
            let _ = Codebooks::load(&p);
            let _ = SidIndex::load(&p, None);
        }
    }
}
