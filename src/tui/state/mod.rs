//! The TUI's state in plain structs, one per concern: the tokenizers (each with its group list
//! and detail position), the group order, the metrics, the scatter, the prompt and search, the
//! overlays and the status notice. `App` holds one of each; the methods here touch only their
//! own struct, so what changes what can be read from the types.

pub mod detail;
pub mod groups;
pub mod metrics;
pub mod overlays;
pub mod prompt;
pub mod scatter;
pub mod slot;
pub mod status;
pub mod tokenizers;

/// `value + delta`, clamped to `0..=max`: how every cursor and scroll moves.
pub fn offset_by(value: usize, delta: isize, max: usize) -> usize {
    value.saturating_add_signed(delta).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_clamped() {
        assert_eq!(offset_by(3, -5, 10), 0);
        assert_eq!(offset_by(3, 50, 10), 10);
    }
}
