//! Multiple-testing adjustment over a family of p-values (all pairs of one metric): Holm's
//! step-down (controls the family-wise error, uniformly more powerful than Bonferroni) or
//! Bonferroni.

use serde::Serialize;

/// How p-values of one family are adjusted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Correction {
    /// Holm (1979): the i-th smallest of m p-values times (m − i + 1), made monotone.
    #[default]
    Holm,
    /// Every p-value times m.
    Bonferroni,
    /// No adjustment.
    None,
}

impl Correction {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Correction::Holm => "holm",
            Correction::Bonferroni => "bonferroni",
            Correction::None => "none",
        }
    }

    /// The adjusted p-values, in the order given, each capped at 1.
    pub fn adjust(self, p: &[f64]) -> Vec<f64> {
        let m = p.len() as f64;
        match self {
            Correction::None => p.to_vec(),
            Correction::Bonferroni => p.iter().map(|&x| (x * m).min(1.0)).collect(),
            Correction::Holm => {
                let mut order: Vec<usize> = (0..p.len()).collect();
                order.sort_by(|&i, &j| p[i].total_cmp(&p[j]).then(i.cmp(&j)));
                let mut adjusted = vec![0.0; p.len()];
                let mut running = 0.0f64;
                for (rank, &i) in order.iter().enumerate() {
                    running = running.max((m - rank as f64) * p[i]).min(1.0);
                    adjusted[i] = running;
                }
                adjusted
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holm_matches_a_hand_worked_example() {
        // m = 4, sorted p: 0.01 (×4 = 0.04), 0.02 (×3 = 0.06), 0.03 (×2 = 0.06), 0.04 (×1 = 0.04
        // → kept monotone at 0.06). Given out of order to check the mapping back.
        let p = [0.03, 0.01, 0.04, 0.02];
        let holm = Correction::Holm.adjust(&p);
        let expected = [0.06, 0.04, 0.06, 0.06];
        for (h, e) in holm.iter().zip(expected) {
            assert!((h - e).abs() < 1e-15, "{holm:?}");
        }
        // At α = 0.05 Holm rejects only the smallest; Bonferroni gives 0.12, 0.04, 0.16, 0.08.
        let bonferroni = Correction::Bonferroni.adjust(&p);
        for (b, e) in bonferroni.iter().zip([0.12, 0.04, 0.16, 0.08]) {
            assert!((b - e).abs() < 1e-15, "{bonferroni:?}");
        }
        assert_eq!(Correction::None.adjust(&p), p);
    }

    #[test]
    fn adjusted_values_are_capped_and_never_below_raw() {
        let p = [0.5, 0.9, 0.001, 0.3, 0.3];
        for c in [Correction::Holm, Correction::Bonferroni] {
            let adj = c.adjust(&p);
            assert!(
                adj.iter().zip(&p).all(|(a, raw)| a >= raw && *a <= 1.0),
                "{adj:?}"
            );
        }
        // Equal p-values get equal adjustments; Holm never exceeds Bonferroni.
        let holm = Correction::Holm.adjust(&p);
        assert_eq!(holm[3], holm[4]);
        let bonf = Correction::Bonferroni.adjust(&p);
        assert!(holm.iter().zip(&bonf).all(|(h, b)| h <= b));
        assert!(Correction::Holm.adjust(&[]).is_empty());
    }
}
