//! ZCR against greedy per prefix group: greedy ΔD on x, ZCR ΔD on y, so every point lies on or
//! under the diagonal (ZCR is optimal), with the totals and the saving in the caption (the
//! paper's Table 5 and Figure 3).

use plotters::prelude::*;

use super::axes::{AxesSpec, draw_axes, draw_caption, fixed};
use super::style::{self, GREY, Marker, draw_line, draw_marker, render_svg};
use crate::error::{Error, Result};
use crate::reassign::Plan;

/// One prefix group's two costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupCost {
    /// Items in the prefix group.
    pub size: usize,
    /// Total ΔD of greedy.
    pub greedy: f64,
    /// Total ΔD of ZCR.
    pub optimal: f64,
}

/// The figure's data.
#[derive(Debug, Clone, PartialEq)]
pub struct ZcrFigure {
    /// The tokenizer (shown in the title).
    pub name: String,
    /// Every resolved prefix group with a collision.
    pub groups: Vec<GroupCost>,
    /// Total ΔD of ZCR.
    pub total_optimal: f64,
    /// Total ΔD of greedy.
    pub total_greedy: f64,
    /// Items ZCR moves (greedy moves as many: both make the fewest changes).
    pub n_reassigned: usize,
    /// Prefix groups left unchanged because they are larger than V or lack codewords.
    pub n_skipped: usize,
    /// Whether the codebooks were estimated from the latents.
    pub codebook_estimated: bool,
    /// The share of last codes the latents reproduce ([`Plan::latent_agreement`]).
    pub latent_agreement: Option<f64>,
    /// What the costs need said beside them ([`Plan::warnings`]).
    pub warnings: Vec<String>,
}

/// Groups whose two costs differ by less than this count as on the diagonal.
const SAME: f64 = 1e-12;

impl ZcrFigure {
    /// The costs of a plan made with vectors; an error names `name` when ΔD is unknown.
    pub fn from_plan(name: &str, plan: &Plan) -> Result<Self> {
        let s = &plan.summary;
        let (Some(total_optimal), Some(total_greedy)) =
            (s.optimal.total_delta, s.greedy.total_delta)
        else {
            return Err(Error::Invalid(format!(
                "{name}: the ZCR figure needs ΔD, so latents (and ideally codebooks)"
            )));
        };
        let groups = plan
            .groups
            .iter()
            .filter_map(|g| {
                Some(GroupCost {
                    size: g.items.len(),
                    greedy: g.greedy.as_ref()?.total_delta,
                    optimal: g.optimal.as_ref()?.total_delta,
                })
            })
            .collect();
        Ok(ZcrFigure {
            name: name.to_string(),
            groups,
            total_optimal,
            total_greedy,
            n_reassigned: s.optimal.n_reassigned,
            n_skipped: s.skipped_over_capacity + s.skipped_too_few_codes,
            codebook_estimated: s.codebook_estimated,
            latent_agreement: plan.latent_agreement,
            warnings: plan.warnings.clone(),
        })
    }

    /// Groups where ZCR costs strictly less than greedy.
    pub fn n_cheaper(&self) -> usize {
        self.groups
            .iter()
            .filter(|g| g.greedy - g.optimal > SAME)
            .count()
    }

    /// `(greedy − ZCR) / greedy · 100`, when greedy costs anything.
    pub fn saving_pct(&self) -> Option<f64> {
        (self.total_greedy > 0.0)
            .then(|| (self.total_greedy - self.total_optimal) / self.total_greedy * 100.0)
    }

    /// The SVG document.
    pub fn svg(&self) -> Result<String> {
        let hi = self
            .groups
            .iter()
            .map(|g| g.greedy.max(g.optimal))
            .fold(0.0, f64::max);
        let (_, hi) = style::padded(0.0, hi, 0.05);
        let saving = self.total_greedy - self.total_optimal;
        let mut caption = vec![
            format!(
                "{} prefix groups, {} items moved by each: total ΔD ZCR {:.4} vs greedy {:.4}, ZCR saves {:.4}{}.",
                self.groups.len(),
                self.n_reassigned,
                self.total_optimal,
                self.total_greedy,
                saving,
                self.saving_pct()
                    .map_or(String::new(), |p| format!(" ({p:.2}%)"))
            ),
            format!(
                "ZCR is cheaper in {} groups (dots) and ties greedy in {} (rings, on the diagonal); ΔD = Σ increase of ‖r − e‖² over the group's items.",
                self.n_cheaper(),
                self.groups.len() - self.n_cheaper()
            ),
        ];
        if self.n_skipped > 0 || self.codebook_estimated {
            let mut note = Vec::new();
            if self.n_skipped > 0 {
                note.push(format!(
                    "{} groups left unchanged (over capacity or too few codewords)",
                    self.n_skipped
                ));
            }
            if self.codebook_estimated {
                note.push("codebooks estimated from the latents".to_string());
            }
            caption.push(format!("{}.", note.join("; ")));
        }
        let title = format!("ZCR against greedy per prefix group · {}", self.name);
        render_svg(640, 600 + 18 * caption.len() as u32, |root| {
            let plot = draw_axes(
                root,
                &AxesSpec {
                    title: &title,
                    x_label: "greedy ΔD of the group (squared latent distance)",
                    y_label: "ZCR ΔD of the group (squared latent distance)",
                    x: (0.0, hi),
                    y: (0.0, hi),
                    x_ticks: &fixed(2),
                    y_ticks: &fixed(2),
                    caption_lines: caption.len() as u32,
                },
            )?;
            draw_line(
                root,
                &[plot.px(0.0, 0.0), plot.px(hi, hi)],
                Some((6, 4)),
                ShapeStyle::from(GREY).stroke_width(1),
            )?;
            for g in &self.groups {
                let (marker, colour) = if g.greedy - g.optimal > SAME {
                    (Marker::Disc, style::colour(1))
                } else {
                    (Marker::Ring, style::colour(0))
                };
                draw_marker(root, plot.px(g.greedy, g.optimal), marker, 3, colour)?;
            }
            draw_caption(root, &caption)
        })
    }
}
