//! Paired significance tests: the t-test against `scipy.stats.ttest_rel` on the reference beams
//! (numbers from tests/fixtures/significance/make_expected.py), and the randomization test and
//! bootstrap interval against the t-test where the central limit theorem makes them agree.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use sidlens::collision::Collisions;
use sidlens::compare::significance::{PairedOptions, bootstrap_ci, paired, paired_t, sign_flip_p};
use sidlens::load::SidIndex;
use sidlens::metrics::{Compat, Evaluator};
use sidlens::numeric::random::SeededRng;
use sidlens::progress::NoProgress;
use statrs::distribution::{ContinuousCDF, StudentsT};

fn expected() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/significance/ttest_rel_expected.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn relative(a: f64, b: f64) -> f64 {
    if a == b { 0.0 } else { (a - b).abs() / b.abs() }
}

/// Per-user ItemHit@10 and NDCG@10 of every reference variant, computed by sidlens.
fn reference_per_user(root: &Path) -> HashMap<String, HashMap<&'static str, Vec<f64>>> {
    let dir = root.join("beams/Scientific");
    let mut out = HashMap::new();
    for v in [
        "rkmeans_native",
        "rqvae_native",
        "letter_native",
        "quasid_native",
        "mql4grec",
        "rkmeans_zcr",
    ] {
        let index = root.join(format!(
            "CollisionGenRec/data/Scientific/indexes/{v}/Scientific.index.json"
        ));
        let index = SidIndex::load(&index, None).unwrap();
        let collisions = Collisions::new(&index);
        let evaluation = Evaluator::new(&index, &collisions, Compat::Faithful)
            .evaluate_file(&dir.join(format!("{v}.per_user.json")), &NoProgress)
            .unwrap();
        let metric = |f: fn(&sidlens::metrics::UserOutcome) -> f64| {
            evaluation.outcomes.iter().map(f).collect::<Vec<f64>>()
        };
        let mut m = HashMap::new();
        m.insert("ItemHit@10", metric(|o| o.item_hit(10)));
        m.insert("NDCG@10", metric(|o| o.ndcg(10)));
        out.insert(v.to_string(), m);
    }
    out
}

#[test]
fn t_test_matches_scipy_on_the_reference_beams() {
    let Some(root) = common::reference() else {
        return;
    };
    let values = reference_per_user(&root);
    let expected = expected();
    let pairs = expected["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 30);
    for pair in pairs {
        let metric = pair["metric"].as_str().unwrap();
        let a = &values[pair["a"].as_str().unwrap()][metric];
        let b = &values[pair["b"].as_str().unwrap()][metric];
        let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        let r = paired_t(&d);
        let (t, p) = (pair["t"].as_f64().unwrap(), pair["p"].as_f64().unwrap());
        assert!(relative(r.t, t) < 1e-9, "{pair}: t = {}", r.t);
        // statrs's incomplete beta loses ~1e-10 relative at these degrees of freedom.
        assert!(relative(r.p, p) < 1e-8, "{pair}: p = {:e}", r.p);
    }
}

#[test]
fn t_test_matches_scipy_on_small_samples() {
    for case in expected()["small"].as_array().unwrap() {
        let d: Vec<f64> = case["differences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let r = paired_t(&d);
        let (t, p) = (case["t"].as_f64().unwrap(), case["p"].as_f64().unwrap());
        assert!(
            relative(r.t, t) < 1e-12 || (r.t - t).abs() < 1e-15,
            "{case}: t = {}",
            r.t
        );
        assert!(relative(r.p, p) < 1e-10, "{case}: p = {:e}", r.p);
    }
}

/// Large-n agreement on reference pairs: the sign-flip p and the bootstrap interval estimate
/// what the t-test gives analytically, within their Monte-Carlo error.
#[test]
fn randomization_and_bootstrap_agree_with_the_t_test_on_the_reference() {
    let Some(root) = common::reference() else {
        return;
    };
    let values = reference_per_user(&root);
    let options = PairedOptions::default();
    // Pairs where hundreds (or at least dozens) of users differ; letter_native vs mql4grec
    // differ on 34 users only, where the exact sign-flip p (0.48) and the t approximation
    // (0.435) part by the lattice atom, as they should.
    for (a, b) in [
        ("rkmeans_native", "rqvae_native"),
        ("quasid_native", "rkmeans_zcr"),
        ("quasid_native", "mql4grec"),
        ("letter_native", "quasid_native"),
    ] {
        let (x, y) = (&values[a]["ItemHit@10"], &values[b]["ItemHit@10"]);
        let r = paired(x, y, options, 11);
        check_agreement(x, y, &r, options);
    }
}

/// The same on synthetic Bernoulli-like hit data, which needs no reference folder.
#[test]
fn randomization_and_bootstrap_agree_with_the_t_test_on_synthetic_data() {
    let mut rng = SeededRng::new(2026);
    for (n, pa, pb) in [(4_000, 0.30, 0.28), (6_000, 0.10, 0.10), (3_000, 0.5, 0.45)] {
        let a: Vec<f64> = (0..n)
            .map(|_| f64::from(u8::from(rng.chance(pa))))
            .collect();
        let b: Vec<f64> = (0..n)
            .map(|_| f64::from(u8::from(rng.chance(pb))))
            .collect();
        let options = PairedOptions::default();
        let r = paired(&a, &b, options, 5);
        check_agreement(&a, &b, &r, options);
    }
}

fn check_agreement(
    a: &[f64],
    b: &[f64],
    r: &sidlens::compare::significance::PairedResult,
    options: PairedOptions,
) {
    let n = a.len() as f64;
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let mean = d.iter().sum::<f64>() / n;
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let se = sd / n.sqrt();
    // Randomization p is a binomial proportion over `permutations` draws (4 standard errors).
    // On discrete differences the sign-flip sum lives on a lattice and p counts the atom at
    // the observed sum, which the continuous t-test splits: allow both atoms, each about
    // 2·max|d|·φ(t)/√Σd² (normal approximation of the lattice); and p is never below
    // 1/(1 + permutations).
    let p_r = r.p_randomization.unwrap();
    let mc = (r.p_t * (1.0 - r.p_t) / options.permutations as f64).sqrt();
    let norm = d.iter().map(|x| x * x).sum::<f64>().sqrt();
    let max = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let phi = (-r.t * r.t / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let atom = 4.0 * max * phi / norm;
    assert!(
        (p_r - r.p_t).abs() < 4.0 * mc + atom + 1.0 / (1 + options.permutations) as f64,
        "p_t {} vs p_randomization {p_r} (atom {atom})",
        r.p_t
    );
    // Bootstrap percentile endpoints vs mean ± t₀.₉₇₅·se: the endpoints' Monte-Carlo error is
    // ≈ 0.03·se at 10,000 resamples; allow 0.15·se for it and the (n−1)/n variance factor.
    let q = StudentsT::new(0.0, 1.0, n - 1.0)
        .unwrap()
        .inverse_cdf(0.975);
    let [lo, hi] = r.ci95.unwrap();
    assert!(
        (lo - (mean - q * se)).abs() < 0.15 * se,
        "lo {lo} vs {}",
        mean - q * se
    );
    assert!(
        (hi - (mean + q * se)).abs() < 0.15 * se,
        "hi {hi} vs {}",
        mean + q * se
    );
    assert!((r.diff - mean).abs() < 1e-15);
}

#[test]
fn seeded_results_do_not_depend_on_threads() {
    let d: Vec<f64> = (0..5_000)
        .map(|i| ((i * 7919) % 13) as f64 / 13.0 - 0.45)
        .collect();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (p1, ci1) = one.install(|| {
        (
            sign_flip_p(&d, 3_000, 9, 2),
            bootstrap_ci(&d, 0.95, 3_000, 9, 2),
        )
    });
    assert_eq!(
        (p1, ci1),
        (
            sign_flip_p(&d, 3_000, 9, 2),
            bootstrap_ci(&d, 0.95, 3_000, 9, 2)
        )
    );
}
