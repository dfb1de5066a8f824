//! Conformance of the collaborative (PPMI-SVD) embedding with the paper's own output on
//! Scientific (`../shared/reference/cf/`): pairwise cosines to 1e-5, the same zero rows.

use crate::common;

use ndarray::Array2;
use ndarray_npy::ReadNpyExt;
use sidlens::collab::{CfConfig, ItemRows, embed};
use sidlens::load::Interactions;
use sidlens::progress::NoProgress;

#[test]
fn scientific_matches_the_reference_pairwise_cosines() {
    let Some(reference) = common::reference() else {
        return;
    };
    let inter = Interactions::load(
        &reference.join("CollisionGenRec/data/Scientific/Scientific.inter.json"),
    )
    .unwrap();
    let file = std::fs::File::open(reference.join("cf/Scientific.emb-ppmi.npy")).unwrap();
    let expected = Array2::<f32>::read_npy(file).unwrap();
    let rows = ItemRows::by_id(&inter).unwrap();
    assert_eq!(rows.n, expected.nrows());
    let start = std::time::Instant::now();
    let got = embed(&inter, &rows, &CfConfig::default(), &NoProgress).unwrap();
    eprintln!(
        "cf embedding of Scientific: {:.2?}, {:?}",
        start.elapsed(),
        got.solver
    );
    assert_eq!(got.vectors.dim(), expected.dim());
    assert_eq!(got.zero_rows(), 17);
    for (a, b) in got.vectors.rows().into_iter().zip(expected.rows()) {
        let zero_a = a.iter().all(|&v| v == 0.0);
        let zero_b = b.iter().all(|&v| v == 0.0);
        assert_eq!(zero_a, zero_b);
    }
    let to64 = |m: &Array2<f32>| m.mapv(f64::from);
    let (g, e) = (to64(&got.vectors), to64(&expected));
    let diff = g.dot(&g.t()) - e.dot(&e.t());
    let worst = diff.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    eprintln!("largest pairwise cosine difference {worst:.3e}");
    assert!(worst < 1e-5, "pairwise cosines differ by {worst}");
    let top: Vec<f64> = got.singular_values[..3].to_vec();
    for (x, y) in top
        .iter()
        .zip([189.61111127270357, 148.32841460982462, 118.600642212765])
    {
        assert!((x - y).abs() < 1e-8 * y, "{x} vs {y}");
    }
}
