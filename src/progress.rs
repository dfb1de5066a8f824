//! Progress reporting and cancellation for long work, independent of any front end:
//! the CLI draws a bar on stderr, the TUI sends the same events over a channel.

use std::sync::atomic::{AtomicBool, Ordering};

/// Receives progress from long-running library calls and can ask them to stop.
pub trait Progress: Sync {
    /// A new stage starts, with `total` units of work (0 when unknown).
    fn stage(&self, name: &str, total: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// Whether the caller wants the work to stop; checked between units.
    fn cancelled(&self) -> bool {
        false
    }
}

/// Progress that goes nowhere, for callers that do not care.
pub struct NoProgress;

impl Progress for NoProgress {
    fn stage(&self, _name: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
}

/// The cancellation of another sink without its stages and units: for work that runs
/// alongside a stage and would otherwise replace it on screen.
pub struct CancelOnly<'a>(pub &'a dyn Progress);

impl Progress for CancelOnly<'_> {
    fn stage(&self, _name: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn cancelled(&self) -> bool {
        self.0.cancelled()
    }
}

/// A cancellation flag shared between a worker and whoever may stop it.
#[derive(Default)]
pub struct CancelFlag(AtomicBool);

impl CancelFlag {
    /// Asks the work to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the work was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Returns `Err(Error::Cancelled)` when the progress sink asks to stop.
pub fn check_cancelled(progress: &dyn Progress) -> crate::Result<()> {
    if progress.cancelled() {
        Err(crate::Error::Cancelled)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records every call, and says it is cancelled once `flag` is set.
    #[derive(Default)]
    struct Recorder {
        calls: Mutex<Vec<String>>,
        flag: CancelFlag,
    }

    impl Progress for Recorder {
        fn stage(&self, name: &str, total: u64) {
            self.calls
                .lock()
                .unwrap()
                .push(format!("stage {name} {total}"));
        }
        fn advance(&self, n: u64) {
            self.calls.lock().unwrap().push(format!("advance {n}"));
        }
        fn cancelled(&self) -> bool {
            self.flag.is_cancelled()
        }
    }

    #[test]
    fn cancel_only_passes_cancellation_and_hides_stages_and_units() {
        let outer = Recorder::default();
        let inner = CancelOnly(&outer);
        inner.stage("MQL4GRec passes", 2);
        inner.advance(1);
        assert!(outer.calls.lock().unwrap().is_empty());
        assert!(check_cancelled(&inner).is_ok());
        outer.flag.cancel();
        assert!(matches!(
            check_cancelled(&inner),
            Err(crate::Error::Cancelled)
        ));
    }
}
