//! Reassignment cost: an item's residual after the first L−1 levels and its squared distance
//! `D[i,c] = ‖r_i − e_c‖²` to last-level codewords, from given or estimated codebooks.

use rayon::prelude::*;

use crate::error::Result;
use crate::load::{Codebooks, Latents, SidIndex};
use crate::numeric::kernels::{CodePanels, sq_distance_8, sq_distances_8_panels};
use crate::progress::{Progress, check_cancelled};
use crate::sid::Code;

/// The most items [`CostModel::last_code_agreement`] checks; the share's standard error is
/// then at most 0.4 percentage points.
pub const AGREEMENT_SAMPLE: usize = 16_384;

/// The most item-to-codeword distances the agreement check computes: [`AGREEMENT_SAMPLE`] items
/// at V = 256, fewer items for larger codebooks (512 at OpenOneRec's V = 8192, a standard
/// error of at most 2.2 points), never fewer than [`AGREEMENT_MIN_SAMPLE`].
const AGREEMENT_BUDGET: usize = AGREEMENT_SAMPLE * 256;

/// The fewest items the agreement check measures when the index has them.
const AGREEMENT_MIN_SAMPLE: usize = 256;

/// Codewords of every level plus the latents they apply to: everything needed to price a
/// new last code for an item. Built for one index; pass that index to its methods.
#[derive(Debug, Clone)]
pub struct CostModel {
    latents: Latents,
    /// The latents row of each item position.
    rows: Vec<u32>,
    n_levels: usize,
    codebook_size: usize,
    dim: usize,
    /// `L × V × d`, row-major.
    codewords: Vec<f64>,
    /// The last level's codewords in panels, for [`CostModel::last_level_distances`];
    /// absent when that copy would exceed [`MAX_PANELLED`] values.
    last_panels: Option<CodePanels>,
    /// Last-level codes that have a codeword (all of them unless estimated).
    available: Vec<bool>,
    estimated: bool,
}

/// The most values the panelled last-level copy may hold (128 MB).
const MAX_PANELLED: usize = 1 << 24;

impl CostModel {
    /// Uses the tokenizer's own codebooks (`L × V × d`). Checks that the latents cover every
    /// item and that the shapes fit the index.
    pub fn from_codebooks(
        index: &SidIndex,
        latents: Latents,
        codebooks: &Codebooks,
    ) -> Result<Self> {
        let rows = latents.rows_of(index)?;
        codebooks.check_fit(index, &latents)?;
        let (n_levels, v, dim) = (
            codebooks.n_levels(),
            codebooks.codebook_size(),
            codebooks.dim(),
        );
        let mut codewords = Vec::with_capacity(n_levels * v * dim);
        for level in 0..n_levels {
            for code in 0..v {
                codewords.extend_from_slice(codebooks.codeword(level, code));
            }
        }
        let mut model = CostModel {
            latents,
            rows,
            n_levels,
            codebook_size: v,
            dim,
            codewords,
            last_panels: None,
            available: vec![true; v],
            estimated: false,
        };
        model.panel_last_level();
        Ok(model)
    }

    /// Estimates the codebooks from the latents alone, level by level: a code's codeword is
    /// the mean residual of the items assigned to it (what residual k-means converges to).
    /// Codes no item uses get no codeword and are unavailable as new last codes.
    /// Each level is one sequential pass over the items, split into a number of chunks that
    /// depends only on the data's shape, with partial sums added in chunk order: the result
    /// is the same on any number of threads.
    pub fn estimate(index: &SidIndex, latents: Latents, progress: &dyn Progress) -> Result<Self> {
        let rows = latents.rows_of(index)?;
        let (n_levels, v, dim) = (index.n_levels(), index.codebook_size(), latents.dim());
        let mut model = CostModel {
            latents,
            rows,
            n_levels,
            codebook_size: v,
            dim,
            codewords: vec![0.0; n_levels * v * dim],
            last_panels: None,
            available: vec![false; v],
            estimated: true,
        };
        let n = index.n_items();
        let per_chunk_bytes = (v * dim * 8).max(1);
        let n_chunks = (n / 65_536)
            .clamp(1, 16)
            .min((256 << 20) / per_chunk_bytes)
            .max(1);
        let chunk_len = n.div_ceil(n_chunks);
        progress.stage("codebooks", n_levels as u64);
        for level in 0..n_levels {
            check_cancelled(progress)?;
            let partials: Vec<(Vec<f64>, Vec<u64>)> = (0..n_chunks)
                .into_par_iter()
                .map(|chunk| {
                    let range = chunk * chunk_len..((chunk + 1) * chunk_len).min(n);
                    model.sum_residuals(index, level, range)
                })
                .collect();
            let mut sums = vec![0.0; v * dim];
            let mut counts = vec![0u64; v];
            for (s, c) in partials {
                sums.iter_mut().zip(&s).for_each(|(a, b)| *a += b);
                counts.iter_mut().zip(&c).for_each(|(a, b)| *a += b);
            }
            for (code, &count) in counts.iter().enumerate() {
                if count == 0 {
                    continue;
                }
                let start = (level * v + code) * dim;
                let sum = &sums[code * dim..(code + 1) * dim];
                for (w, s) in model.codewords[start..start + dim].iter_mut().zip(sum) {
                    *w = s / count as f64;
                }
                if level + 1 == n_levels {
                    model.available[code] = true;
                }
            }
            progress.advance(1);
        }
        model.panel_last_level();
        Ok(model)
    }

    fn panel_last_level(&mut self) {
        let (v, d) = (self.codebook_size, self.dim);
        if self.n_levels == 0 || CodePanels::padded_len(v, d) > MAX_PANELLED {
            return;
        }
        let last = self.n_levels - 1;
        let codewords = (0..v).map(|c| self.codeword(last, c as Code));
        self.last_panels = Some(CodePanels::new(d, codewords));
    }

    /// Per-code sums and counts of the residuals after `level` levels of the items in `range`.
    fn sum_residuals(
        &self,
        index: &SidIndex,
        level: usize,
        range: std::ops::Range<usize>,
    ) -> (Vec<f64>, Vec<u64>) {
        let mut sums = vec![0.0; self.codebook_size * self.dim];
        let mut counts = vec![0u64; self.codebook_size];
        let mut r = vec![0.0; self.dim];
        for p in range {
            self.residual_to(index, p, level, &mut r);
            let code = index.codes(p)[level] as usize;
            counts[code] += 1;
            for (s, x) in sums[code * self.dim..(code + 1) * self.dim]
                .iter_mut()
                .zip(&r)
            {
                *s += x;
            }
        }
        (sums, counts)
    }

    /// Whether the codebooks were estimated from the latents rather than given.
    pub fn codebook_estimated(&self) -> bool {
        self.estimated
    }

    /// Codes per level V: the capacity of a prefix group.
    pub fn codebook_size(&self) -> usize {
        self.codebook_size
    }

    /// Whether `code` can be given as a new last code (it has a codeword).
    pub fn is_available(&self, code: Code) -> bool {
        self.available[code as usize]
    }

    /// Number of last-level codes without a codeword (only with estimated codebooks).
    pub fn n_unavailable(&self) -> usize {
        self.available.iter().filter(|&&a| !a).count()
    }

    /// The latents the costs are computed from.
    pub fn latents(&self) -> &Latents {
        &self.latents
    }

    /// Vector dimension d.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of levels L the codebooks have.
    pub fn n_levels(&self) -> usize {
        self.n_levels
    }

    /// The codeword of `code` at `level`.
    pub(crate) fn codeword(&self, level: usize, code: Code) -> &[f64] {
        let start = (level * self.codebook_size + code as usize) * self.dim;
        &self.codewords[start..start + self.dim]
    }

    /// Writes into `out` (length d) the residual of the item at `position` after the first
    /// L−1 levels: `x_i − Σ_{l<L−1} C_l[code_l]`, in float64.
    pub fn residual(&self, index: &SidIndex, position: usize, out: &mut [f64]) {
        self.residual_to(index, position, self.n_levels - 1, out);
    }

    fn residual_to(&self, index: &SidIndex, position: usize, levels: usize, out: &mut [f64]) {
        self.latents.row_into(self.rows[position] as usize, out);
        for (level, &code) in index.codes(position)[..levels].iter().enumerate() {
            for (o, c) in out.iter_mut().zip(self.codeword(level, code)) {
                *o -= c;
            }
        }
    }

    /// The share of items whose residual's nearest available last-level codeword is the
    /// index's own last code: near 1 when these latents and codewords produced the index, low
    /// when the costs are priced in another space (say, text embeddings for an RQ-VAE's SIDs).
    /// Measured on at most [`AGREEMENT_SAMPLE`] items spread evenly over the index (every item
    /// of smaller ones), fewer when V > 256 (see [`AGREEMENT_BUDGET`]): a check of all V
    /// codewords per item would cost more than ZCR itself.
    pub fn last_code_agreement(&self, index: &SidIndex) -> f64 {
        let last = self.n_levels - 1;
        let n = index.n_items();
        let sample = (AGREEMENT_BUDGET / self.codebook_size.max(1))
            .clamp(AGREEMENT_MIN_SAMPLE, AGREEMENT_SAMPLE);
        let checked = n.min(sample);
        let agree: usize = (0..checked)
            .into_par_iter()
            .map(|k| k * n / checked)
            .map_init(
                || (vec![0.0; self.dim], vec![0.0; self.codebook_size]),
                |(residual, distances), p| {
                    self.residual(index, p, residual);
                    self.last_level_distances(residual, distances);
                    let nearest = (0..self.codebook_size as Code)
                        .filter(|&c| self.available[c as usize])
                        .map(|c| (distances[c as usize], c))
                        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                        .map(|(_, c)| c);
                    usize::from(nearest == Some(index.codes(p)[last]))
                },
            )
            .sum();
        agree as f64 / checked.max(1) as f64
    }

    /// Copies the latent of the item at `position` into `out` (length d).
    pub(crate) fn latent_into(&self, position: usize, out: &mut [f64]) {
        self.latents.row_into(self.rows[position] as usize, out);
    }

    /// The change in quantisation error `‖x − Σ_l C_l[new_l]‖² − ‖x − Σ_l C_l[native_l]‖²` of
    /// the item at `position` when its codes become `new` (codes past the codebooks' levels,
    /// such as an appended disambiguation level, add nothing). Both errors are
    /// [`sq_distance_8`]s to the last codeword from the residual shared up to the first changed
    /// level, so a last-code-only change gives exactly ZCR's `D[i,new] − D[i,native]`.
    pub fn delta_of(&self, index: &SidIndex, position: usize, new: &[Code]) -> f64 {
        let native = index.codes(position);
        let last = self.n_levels - 1;
        let Some(first) = (0..self.n_levels).find(|&l| native[l] != new[l]) else {
            return 0.0;
        };
        let mut shared = vec![0.0; self.dim];
        self.residual_to(index, position, first, &mut shared);
        let error = |codes: &[Code]| {
            let mut r = shared.clone();
            for (level, &code) in codes.iter().enumerate().take(last).skip(first) {
                for (o, c) in r.iter_mut().zip(self.codeword(level, code)) {
                    *o -= c;
                }
            }
            sq_distance_8(&r, self.codeword(last, codes[last]))
        };
        error(new) - error(native)
    }

    /// Writes `D[i,c] = ‖residual − e_c‖²` for every last-level code `c` into `out` (length
    /// V), the same bits as [`CostModel::sq_distances`] but all codes at once.
    pub fn last_level_distances(&self, residual: &[f64], out: &mut [f64]) {
        match &self.last_panels {
            Some(panels) => sq_distances_8_panels(residual, panels, out),
            None => {
                let last = self.n_levels - 1;
                for (c, o) in out.iter_mut().enumerate() {
                    *o = sq_distance_8(residual, self.codeword(last, c as Code));
                }
            }
        }
    }

    /// Writes `D[i,c] = ‖residual − e_c‖²` for each of `codes` into `out`, by direct
    /// differences in float64.
    pub fn sq_distances(&self, residual: &[f64], codes: &[Code], out: &mut [f64]) {
        let last = self.n_levels - 1;
        for (o, &c) in out.iter_mut().zip(codes) {
            *o = sq_distance_8(residual, self.codeword(last, c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use ndarray::{Array2, Array3};
    use std::path::Path;

    fn index(text: &str) -> SidIndex {
        SidIndex::parse(text.as_bytes(), Path::new("i.json"), None).unwrap()
    }

    #[test]
    fn residual_and_distances_follow_the_codebooks() {
        let idx = index(r#"{"0": [1, 0], "1": [0, 1]}"#);
        let lat = Latents::from_f64(
            Path::new("l.npy"),
            Array2::from_shape_vec((2, 2), vec![3.0, 4.0, 1.0, 1.0]).unwrap(),
        )
        .unwrap();
        let mut cb = Array3::<f64>::zeros((2, 2, 2));
        cb[[0, 1, 0]] = 1.0;
        cb[[1, 1, 1]] = 2.0;
        let cb = Codebooks::from_array(Path::new("c.npy"), cb).unwrap();
        let m = CostModel::from_codebooks(&idx, lat, &cb).unwrap();
        let mut r = [0.0; 2];
        m.residual(&idx, 0, &mut r);
        assert_eq!(r, [2.0, 4.0]);
        let mut d = [0.0; 2];
        m.sq_distances(&r, &[0, 1], &mut d);
        assert_eq!(d, [20.0, 8.0]);
        assert!(!m.codebook_estimated());
        assert_eq!(m.n_unavailable(), 0);
    }

    #[test]
    fn estimated_codebooks_are_mean_residuals_level_by_level() {
        let idx = index(r#"{"0": [0, 0], "1": [0, 2], "2": [1, 0]}"#);
        let lat = Latents::from_f64(
            Path::new("l.npy"),
            Array2::from_shape_vec((3, 1), vec![1.0, 3.0, 10.0]).unwrap(),
        )
        .unwrap();
        let m = CostModel::estimate(&idx, lat, &NoProgress).unwrap();
        assert!(m.codebook_estimated());
        assert_eq!(m.codeword(0, 0), &[2.0]);
        assert_eq!(m.codeword(0, 1), &[10.0]);
        // Residuals after level a: -1, 1, 0; level b code 0 holds items 0 and 2.
        assert_eq!(m.codeword(1, 0), &[-0.5]);
        assert_eq!(m.codeword(1, 2), &[1.0]);
        assert!(m.is_available(0) && m.is_available(2) && !m.is_available(1));
        assert_eq!(m.n_unavailable(), 1);
    }
}
