//! Progress bars on stderr (indicatif) for the library's progress events; hidden when stderr
//! is not a terminal or with `--quiet`.

use std::io::IsTerminal;

use crate::progress::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar that follows the stages the library reports.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar on stderr, drawn only when stderr is a terminal and `quiet` is off.
    pub fn new(quiet: bool) -> Self {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        Bar {
            bar: ProgressBar::with_draw_target(None, target),
        }
    }
}

impl Progress for Bar {
    fn stage(&self, name: &str, total: u64) {
        let style = if total > 0 {
            ProgressStyle::with_template("{msg:>12} [{bar:30}] {pos}/{len} ({eta})")
        } else {
            ProgressStyle::with_template("{msg:>12} {spinner} {pos}")
        };
        if let Ok(style) = style {
            self.bar.set_style(style.progress_chars("=> "));
        }
        self.bar.set_message(name.to_string());
        self.bar.set_length(total);
        self.bar.set_position(0);
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
