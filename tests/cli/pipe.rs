//! Output piped into a reader that stops early (`sidlens groups ... | head`) must end quietly:
//! exit 0, no panic, nothing on stderr.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

#[test]
fn closed_stdout_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("i.json");
    let mut text = String::from("{");
    for i in 0..200_000 {
        if i > 0 {
            text.push_str(", ");
        }
        text.push_str(&format!("\"{i}\": [{}, {}]", i % 7, i % 11));
    }
    text.push('}');
    std::fs::File::create(&index)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    for args in [
        vec!["groups", "--index", index.to_str().unwrap()],
        vec!["groups", "--index", index.to_str().unwrap(), "--json"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sidlens"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 64];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
