//! A piece of data that arrives in the background (missing, loading with progress, ready or
//! failed): every pane says which, so a slow or failed job never leaves a blank pane.

/// A piece of data that arrives in the background.
#[derive(Debug, Clone)]
pub enum Slot<T> {
    /// Not given; the text says how to provide it.
    Missing(String),
    /// Being computed; the latest progress.
    Loading(Option<JobProgress>),
    /// Available.
    Ready(T),
    /// Could not be computed; the message names the file and the place.
    Failed(String),
}

impl<T> Slot<T> {
    /// The value, when ready.
    pub fn ready(&self) -> Option<&T> {
        match self {
            Slot::Ready(v) => Some(v),
            _ => None,
        }
    }

    /// Whether it is still being computed.
    pub fn is_loading(&self) -> bool {
        matches!(self, Slot::Loading(_))
    }

    /// Why it cannot be used yet, in words (`what` names it), or `None` when ready.
    pub fn missing_why(&self, what: &str) -> Option<String> {
        match self {
            Slot::Ready(_) => None,
            Slot::Loading(_) => Some(format!("{what} still loading")),
            Slot::Missing(why) => Some(why.clone()),
            Slot::Failed(_) => Some(format!("{what} could not be loaded")),
        }
    }

    /// Records a job's progress, while it is loading (a late report after the answer is
    /// ignored).
    pub fn set_progress(&mut self, progress: JobProgress) {
        if self.is_loading() {
            *self = Slot::Loading(Some(progress));
        }
    }
}

/// The latest progress of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobProgress {
    /// What it is doing.
    pub stage: String,
    /// Units done.
    pub done: u64,
    /// Units in the stage (0 when unknown).
    pub total: u64,
}
