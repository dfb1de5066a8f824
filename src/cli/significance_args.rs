//! The flags that decide what "significant" means (`--correction`, `--alpha`, `--no-tests`),
//! shared by `compare` and `plot ranks` so a figure marks the flips the table calls real.

use crate::compare::pairwise::TestSettings;
use crate::compare::significance::{Correction, PairedOptions};

/// How the paired tests between tokenizers decide.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct SignificanceArgs {
    /// Adjustment of the p-values over all pairs of one metric.
    #[arg(long, value_enum, default_value_t = CorrectionArg::Holm)]
    correction: CorrectionArg,
    /// Significance level for the adjusted p-values.
    #[arg(long, value_name = "A", default_value_t = 0.05, value_parser = parse_alpha)]
    alpha: f64,
    /// Skip the paired tests.
    #[arg(long)]
    no_tests: bool,
}

/// The `--correction` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CorrectionArg {
    /// Holm's step-down (family-wise error ≤ α, more power than Bonferroni).
    Holm,
    /// p · m.
    Bonferroni,
    /// No adjustment.
    None,
}

fn parse_alpha(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("alpha must be a number between 0 and 1, not {s:?}")),
    }
}

impl SignificanceArgs {
    /// The test settings with `options` for the Monte-Carlo tests, `None` with `--no-tests`.
    pub fn settings(&self, options: PairedOptions) -> Option<TestSettings> {
        (!self.no_tests).then_some(TestSettings {
            options,
            correction: match self.correction {
                CorrectionArg::Holm => Correction::Holm,
                CorrectionArg::Bonferroni => Correction::Bonferroni,
                CorrectionArg::None => Correction::None,
            },
            alpha: self.alpha,
        })
    }
}
