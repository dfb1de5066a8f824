//! Wall-clock timing of the projection (PCA + Barnes–Hut t-SNE) per stage, for N = 1,000 and
//! 4,344 (the reference MiniLM embeddings, when ../shared/reference is present) and 20,000
//! synthetic rows; `-- 50000` alone runs a 50,000×4,096 input (default sample of 10,000) to show
//! that PCA stays bounded. Run: `cargo bench --bench projection` (add `-- 1000` for one size).

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ndarray::Array2;
use sidlens::load::{Latents, LatentsView};
use sidlens::progress::Progress;
use sidlens::projection::{ProjectionParams, project, sample_rows};

/// Records when each stage starts, to report how long each took.
struct StageClock {
    stages: Mutex<Vec<(String, Instant)>>,
}

impl Progress for StageClock {
    fn stage(&self, name: &str, _total: u64) {
        self.stages
            .lock()
            .expect("clock lock")
            .push((name.to_string(), Instant::now()));
    }
    fn advance(&self, _n: u64) {}
}

fn time(label: &str, data: &Array2<f32>, n: usize) {
    let rows = sample_rows(data.nrows(), n, &[], 0).expect("rows");
    let clock = StageClock {
        stages: Mutex::new(vec![("prepare".to_string(), Instant::now())]),
    };
    let start = Instant::now();
    let result = project(data.view(), &rows, &ProjectionParams::default(), &clock);
    let total = start.elapsed();
    let result = result.expect("projection");
    let mut stages = clock.stages.into_inner().expect("clock lock");
    stages.push(("end".to_string(), start + total));
    let parts: Vec<String> = stages
        .windows(2)
        .map(|w| format!("{} {:.2}s", w[0].0, secs(w[1].1 - w[0].1)))
        .collect();
    println!(
        "{label}: N={} of {} d={} total {:.2}s ({}) on {} threads",
        result.rows.len(),
        data.nrows(),
        data.ncols(),
        secs(total),
        parts.join(", "),
        rayon::current_num_threads()
    );
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// `clusters` Gaussian blobs in `d` dimensions, a stand-in for item embeddings.
fn synthetic(n: usize, d: usize, clusters: usize) -> Array2<f32> {
    let mut state = 0x5EED_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f32 / (1u64 << 53) as f32 - 0.5
    };
    let centres: Vec<f32> = (0..clusters * d).map(|_| next() * 8.0).collect();
    Array2::from_shape_fn((n, d), |(i, j)| centres[(i % clusters) * d + j] + next())
}

fn main() {
    let only: Option<usize> = std::env::args().skip(1).find_map(|a| a.parse().ok());
    let wanted = |n: usize| only.is_none_or(|o| o == n);
    let reference = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference/embeddings/Scientific.emb-minilm.npy");
    let scientific = if reference.exists() {
        match Latents::load(&reference)
            .expect("reference embeddings")
            .view()
        {
            LatentsView::F32(a) => Some(a.to_owned()),
            LatentsView::F64(_) => None,
        }
    } else {
        eprintln!("skipping the reference sizes: ../shared/reference not found");
        None
    };
    if let Some(data) = &scientific {
        if wanted(1000) {
            time("Scientific sample", data, 1000);
        }
        if wanted(4344) {
            time("Scientific all", data, 4344);
        }
    }
    if wanted(20_000) {
        time("synthetic", &synthetic(20_000, 384, 40), 20_000);
    }
    if only == Some(50_000) {
        let data = synthetic(50_000, 4096, 40);
        time(
            "synthetic wide",
            &data,
            ProjectionParams::default().max_points,
        );
    }
}
