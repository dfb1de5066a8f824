//! Demo users: shopping sequences that follow product families (another colour of the same
//! filament) and project themes (a printer, then filament, then nozzles).

use super::catalog::{Catalog, Interest};
use crate::random::SeededRng;

/// How likely each theme is as a user's main interest (same order as [`Interest::ALL`]).
const THEME_WEIGHTS: [f64; 5] = [0.32, 0.28, 0.2, 0.08, 0.12];

/// Probability of buying another product of the same line next, for lines of near-identical
/// listings (colours, sizes) and for the others.
const STAY_NEAR_DUPLICATE: f64 = 0.5;
const STAY_OTHER: f64 = 0.1;

/// Probability of jumping to any line of any theme (noise) instead of the user's themes.
const WANDER: f64 = 0.08;

/// Generates `n_users` sequences of distinct catalog positions, 5 to 15 items each.
pub fn generate(catalog: &Catalog, n_users: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = SeededRng::new(seed);
    let by_theme: Vec<Vec<usize>> = Interest::ALL
        .iter()
        .map(|&t| {
            (0..catalog.families.len())
                .filter(|&f| catalog.families[f].theme == t)
                .collect()
        })
        .collect();
    let theme_weights: Vec<Vec<f64>> = by_theme
        .iter()
        .map(|fs| fs.iter().map(|&f| catalog.families[f].popularity).collect())
        .collect();
    let all_families: Vec<usize> = (0..catalog.families.len()).collect();
    (0..n_users)
        .map(|_| {
            let primary = rng.weighted(&THEME_WEIGHTS);
            let secondary = rng.chance(0.3).then(|| rng.weighted(&THEME_WEIGHTS));
            let length = 5 + geometric(&mut rng, 0.3).min(10);
            let mut bought: Vec<usize> = Vec::with_capacity(length);
            let pick_in_theme = |rng: &mut SeededRng, theme: usize| {
                by_theme[theme][rng.weighted(&theme_weights[theme])]
            };
            let mut family = pick_in_theme(&mut rng, primary);
            let mut attempts = 0;
            while bought.len() < length && attempts < 200 {
                attempts += 1;
                let products = &catalog.families[family].products;
                let fresh: Vec<usize> = products
                    .iter()
                    .copied()
                    .filter(|p| !bought.contains(p))
                    .collect();
                if !fresh.is_empty() {
                    // Earlier products of a line are more popular (Zipf: 1/(k+1)); only exact
                    // IEEE operations, so the draws are the same on every machine.
                    let weights: Vec<f64> = fresh
                        .iter()
                        .map(|p| {
                            let k = products.iter().position(|q| q == p).unwrap_or(0);
                            1.0 / (k + 1) as f64
                        })
                        .collect();
                    bought.push(fresh[rng.weighted(&weights)]);
                }
                let stay = if catalog.families[family].near_duplicate {
                    STAY_NEAR_DUPLICATE
                } else {
                    STAY_OTHER
                };
                let r = rng.unit();
                if r < stay && fresh.len() > 1 {
                    continue;
                }
                family = if r < stay + WANDER {
                    *rng.pick(&all_families)
                } else {
                    let theme = match secondary {
                        Some(s) if rng.chance(0.3) => s,
                        _ => primary,
                    };
                    pick_in_theme(&mut rng, theme)
                };
            }
            bought
        })
        .collect()
}

/// Failures before the first success of a coin with success probability `p`.
fn geometric(rng: &mut SeededRng, p: f64) -> usize {
    let mut n = 0;
    while !rng.chance(p) && n < 1000 {
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::demo::catalog;

    #[test]
    fn sequences_are_distinct_items_of_plausible_length_and_follow_families() {
        let cat = catalog::generate(3);
        let users = generate(&cat, 300, 4);
        assert_eq!(users, generate(&cat, 300, 4));
        let mut same_family_steps = 0;
        let mut steps = 0;
        for seq in &users {
            assert!((2..=15).contains(&seq.len()), "{}", seq.len());
            let mut sorted = seq.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), seq.len(), "items are distinct");
            for pair in seq.windows(2) {
                steps += 1;
                same_family_steps +=
                    usize::from(cat.products[pair[0]].family == cat.products[pair[1]].family);
            }
        }
        let share = same_family_steps as f64 / steps as f64;
        assert!(share > 0.15 && share < 0.7, "{share}");
    }
}
