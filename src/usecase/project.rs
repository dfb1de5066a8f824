//! Projecting items to 2-D: the sample (keeping the highlighted groups whole), the f32 or
//! f64 view of the embeddings, and the cache, as both the scatter and `sidlens project` do.

use ndarray::ArrayView2;

use crate::error::Result;
use crate::load::{Latents, LatentsView};
use crate::progress::Progress;
use crate::projection::{
    self, CacheOutcome, Element, ItemRows, Projection, ProjectionCache, ProjectionParams,
};

/// The t-SNE of `embeddings` on a sample of `items`' rows that keeps every
/// highlighted item, or of every row without `items`. With `use_cache`, a cached result for
/// the same data and parameters is loaded instead of computed, and a new one is stored, in the
/// user's cache folder ([`ProjectionCache::for_user`]).
pub fn project_items(
    embeddings: &Latents,
    items: Option<&ItemRows>,
    params: &ProjectionParams,
    use_cache: bool,
    progress: &dyn Progress,
) -> Result<(Projection, Option<CacheOutcome>)> {
    let candidates: Vec<usize> = match items {
        Some(items) => items.rows().to_vec(),
        None => (0..embeddings.n_rows()).collect(),
    };
    let must_include = items.map_or(&[][..], ItemRows::highlighted);
    project_candidates(
        embeddings,
        &candidates,
        must_include,
        params,
        use_cache,
        progress,
    )
}

/// [`project_items`] on given rows: a sample of `candidates` that keeps every row of
/// `must_include`. The collaborative scatter leaves out items without co-occurrences this way
/// (their zero rows would pile up on one spot).
pub fn project_candidates(
    embeddings: &Latents,
    candidates: &[usize],
    must_include: &[usize],
    params: &ProjectionParams,
    use_cache: bool,
    progress: &dyn Progress,
) -> Result<(Projection, Option<CacheOutcome>)> {
    let rows = projection::sample_among(candidates, params.max_points, must_include, params.seed)?;
    let cache = use_cache.then(ProjectionCache::for_user);
    match embeddings.view() {
        LatentsView::F32(a) => compute(a, &rows, params, cache.as_ref(), progress),
        LatentsView::F64(a) => compute(a, &rows, params, cache.as_ref(), progress),
    }
}

fn compute<T: Element>(
    embeddings: ArrayView2<'_, T>,
    rows: &[usize],
    params: &ProjectionParams,
    cache: Option<&ProjectionCache>,
    progress: &dyn Progress,
) -> Result<(Projection, Option<CacheOutcome>)> {
    match cache {
        Some(cache) => cache
            .load_or_compute(embeddings, rows, params, progress)
            .map(|(p, outcome)| (p, Some(outcome))),
        None => projection::project(embeddings, rows, params, progress).map(|p| (p, None)),
    }
}
