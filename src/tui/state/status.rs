//! The status line's notice: one message, kept until the next key, that says what an action
//! did or why it could not.

/// How important a notice is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// For information.
    Info,
    /// Something did not work as asked.
    Warn,
}

/// A one-line message in the status bar until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The message.
    pub text: String,
    /// How important it is.
    pub level: Level,
}

impl Notice {
    /// A message for information.
    pub fn info(text: impl Into<String>) -> Notice {
        Notice {
            text: text.into(),
            level: Level::Info,
        }
    }

    /// A message that something did not work as asked.
    pub fn warn(text: impl Into<String>) -> Notice {
        Notice {
            text: text.into(),
            level: Level::Warn,
        }
    }

    /// The notice at start when beams files are watched (`None` when none is).
    pub fn watching(files: usize) -> Option<Notice> {
        (files > 0).then(|| {
            Notice::info(format!(
                "watching {files} beams file{} for changes (--no-watch turns this off)",
                if files == 1 { "" } else { "s" }
            ))
        })
    }
}
