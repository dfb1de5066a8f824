//! Writing results to stdout: JSON or text, and a quiet exit when the reader goes away
//! (`sidlens groups ... | head`).

use std::io::{self, Write};

use serde::Serialize;

/// Prints `value` as pretty JSON followed by a newline.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value).map_err(io::Error::from)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Prints data (CSV) exactly as given: a CSV reader gets every byte of the input's values.
pub fn print_data(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Prints human-readable text, with terminal controls from the data removed.
pub fn print_text(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(crate::io::terminal_text::printable(text).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Whether an error comes from writing to a closed pipe, which is not a failure.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Prints a message on stderr, with terminal controls from the data removed.
pub fn message(text: &str) {
    eprintln!("{}", crate::io::terminal_text::printable(text));
}
