//! Numbers that can mislead, said in words once for every surface: a K beyond the beam width
//! (where SID-level and item-level metrics stop measuring the same list), and beams that
//! mostly do not fit the index (another tokenizer's beams).

use super::{Anomalies, EvalSummary};

/// Above this share of unknown beam entries or targets, the beams look like another index's.
const FOREIGN_SHARE: f64 = 0.5;

/// The warnings an evaluation's numbers need, for stderr, the table's footer, the JSON's
/// `warnings` list and the TUI's status line.
pub fn eval_warnings(summary: &EvalSummary) -> Vec<String> {
    let mut warnings = k_warnings(&summary.ks, summary.list_width);
    warnings.extend(fit_warnings(&summary.anomalies, summary.n_users));
    warnings
}

/// What a K beyond the beam width does to the metrics. SID-level metrics stop at the beam
/// width, while item-level ones go on counting the items of the beams' groups up to position
/// K (as the reference `cce.py` does: it truncates the expanded list at K); so the gap that
/// measures collision inflation closes as K grows, and tokenizers with more collisions gain.
const BEYOND_WIDTH: &str = "Hit@K and NDCG@K stop at the beam width while ItemHit@K and ItemNDCG@K go on counting the items of the beams' groups up to position K (as the reference cce.py does), so the gap between them no longer measures collision inflation and tokenizers with more collisions gain";

/// One warning for the K values beyond `width` (the longest list), when it is known.
pub fn k_warnings(ks: &[usize], width: usize) -> Vec<String> {
    let beyond: Vec<String> = ks
        .iter()
        .filter(|&&k| width > 0 && k > width)
        .map(|k| k.to_string())
        .collect();
    if beyond.is_empty() {
        return Vec::new();
    }
    let verb = if beyond.len() == 1 {
        "exceeds"
    } else {
        "exceed"
    };
    vec![format!(
        "K = {} {verb} the beam width {width}: {BEYOND_WIDTH}; read the metrics at K ≤ {width}",
        beyond.join(", "),
    )]
}

/// The warning of a comparison at `k` when some tokenizers' beams (`(name, width)`) are
/// narrower than `k`: its ranks are then not comparable, and every surface says so.
pub fn beyond_width_warning(k: usize, widths: &[(&str, usize)]) -> Option<String> {
    let narrower: Vec<String> = widths
        .iter()
        .filter(|&&(_, w)| w > 0 && k > w)
        .map(|(name, w)| format!("{name} ({w})"))
        .collect();
    let smallest = widths.iter().map(|&(_, w)| w).filter(|&w| w > 0).min()?;
    (!narrower.is_empty()).then(|| {
        format!(
            "K = {k} exceeds the beam width of {}: {BEYOND_WIDTH}; the ranks at K = {k} are not comparable, compare at K ≤ {smallest}",
            narrower.join(", ")
        )
    })
}

/// Warnings when most beam entries or targets are unknown to the index.
pub fn fit_warnings(a: &Anomalies, n_users: u64) -> Vec<String> {
    let mut warnings = Vec::new();
    let unknown_entries = a.invalid_sids + a.unknown_items;
    if a.listed > 0 && unknown_entries as f64 > FOREIGN_SHARE * a.listed as f64 {
        warnings.push(format!(
            "{} of {} listed SIDs or items ({:.0} %) are not in the index: are these beams from another tokenizer?",
            unknown_entries,
            a.listed,
            100.0 * unknown_entries as f64 / a.listed as f64
        ));
    }
    let bad_targets = a.unknown_targets + a.target_mismatches;
    if n_users > 0 && bad_targets as f64 > FOREIGN_SHARE * n_users as f64 {
        warnings.push(format!(
            "{} of {} users' targets are unknown to the index or disagree with it ({} unknown, {} mismatched): are these beams from another tokenizer?",
            bad_targets.min(n_users),
            n_users,
            a.unknown_targets,
            a.target_mismatches
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_beyond_the_width_is_named() {
        assert!(k_warnings(&[1, 10, 20], 20).is_empty());
        assert!(k_warnings(&[50], 0).is_empty());
        let w = k_warnings(&[10, 50], 20);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("K = 50 exceeds the beam width 20: Hit@K and NDCG@K stop"),
            "{}",
            w[0]
        );
        assert!(w[0].ends_with("read the metrics at K ≤ 20"), "{}", w[0]);
        assert!(k_warnings(&[30, 50], 20)[0].starts_with("K = 30, 50 exceed the"));
    }

    #[test]
    fn a_comparison_beyond_some_widths_names_them() {
        assert_eq!(beyond_width_warning(20, &[("a", 20), ("b", 50)]), None);
        assert_eq!(beyond_width_warning(50, &[("a", 0)]), None);
        let w = beyond_width_warning(30, &[("a", 20), ("b", 50), ("c", 10)]).unwrap();
        assert!(
            w.starts_with("K = 30 exceeds the beam width of a (20), c (10): Hit@K"),
            "{w}"
        );
        assert!(w.ends_with("compare at K ≤ 10"), "{w}");
    }

    #[test]
    fn mostly_unknown_entries_or_targets_warn() {
        let fine = Anomalies {
            invalid_sids: 5,
            listed: 20,
            unknown_targets: 1,
            ..Anomalies::default()
        };
        assert!(fit_warnings(&fine, 4).is_empty());
        let foreign = Anomalies {
            invalid_sids: 15,
            listed: 20,
            unknown_targets: 1,
            target_mismatches: 2,
            ..Anomalies::default()
        };
        let w = fit_warnings(&foreign, 4);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with("15 of 20 listed SIDs or items (75 %)"),
            "{}",
            w[0]
        );
        assert!(w[1].starts_with("3 of 4 users' targets"), "{}", w[1]);
    }
}
