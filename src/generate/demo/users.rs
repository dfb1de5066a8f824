//! Demo users: shopping sequences that follow product families (another colour of the same
//! filament) and project themes (a printer, then filament, then nozzles), shopped by kinds of
//! users who prefer different listings of the same line. A school lab buys the Mini printer
//! and a hobby maker the Standard one, so near-identical listings that collide in the text are
//! often far apart by interactions, which is the paper's explanation of collisions (Figure 5).

use super::catalog::{Catalog, Interest};
use crate::numeric::random::SeededRng;

/// A kind of user: how common it is and which themes it shops in.
struct Persona {
    /// What the demo's README calls it.
    name: &'static str,
    /// Share of the users.
    share: f64,
    /// Weight of each theme as a project (same order as [`Interest::ALL`]).
    themes: [f64; 5],
}

/// Hobby makers, school labs, repair shops, electronics prototypers and research labs.
const PERSONAS: [Persona; 5] = [
    Persona {
        name: "hobby makers",
        share: 0.22,
        themes: [0.6, 0.1, 0.0, 0.0, 0.3],
    },
    Persona {
        name: "school labs",
        share: 0.2,
        themes: [0.25, 0.1, 0.45, 0.2, 0.0],
    },
    Persona {
        name: "repair shops",
        share: 0.15,
        themes: [0.0, 0.5, 0.0, 0.0, 0.5],
    },
    Persona {
        name: "electronics prototypers",
        share: 0.2,
        themes: [0.25, 0.6, 0.0, 0.0, 0.15],
    },
    Persona {
        name: "research labs",
        share: 0.23,
        themes: [0.0, 0.1, 0.6, 0.3, 0.0],
    },
];

/// Which kind of user each listing of a theme is made for, in turn: listing `v` of line `l`
/// of product type `t` goes to entry `(t + l + v) % len`. No two neighbours are equal (the
/// list read as a ring), so the next variant of a line and the same variant of the next brand
/// are for another kind of user; kinds appear about as often as they shop in the theme.
const HOMES: [&[usize]; 5] = [
    &[1, 0, 3, 0],
    &[3, 2, 3, 2, 0],
    &[4, 1],
    &[4, 1],
    &[0, 2, 0, 2, 3],
];

/// Probability of buying a listing meant for another kind of user when it comes up.
const ACCEPT_AWAY: f64 = 0.12;

/// Weight of a line's listings that are meant for other kinds of users, relative to those
/// meant for the user's kind, when a line is chosen.
const AWAY_LINE: f64 = 0.05;

/// Probability of buying another product of the same line next, for lines of near-identical
/// listings (colours, sizes) and for the others.
const STAY_NEAR_DUPLICATE: f64 = 0.5;
const STAY_OTHER: f64 = 0.1;

/// Probability of jumping to any line of any theme (noise) instead of the user's themes.
const WANDER: f64 = 0.08;

/// The kinds of users, as the demo's README lists them.
pub fn kinds() -> impl Iterator<Item = &'static str> {
    PERSONAS.iter().map(|p| p.name)
}

/// The kind of user catalog position `p` is made for (an index into [`kinds`]).
pub fn home(catalog: &Catalog, p: usize) -> usize {
    let product = &catalog.products[p];
    let family = &catalog.families[product.family];
    let theme = Interest::ALL
        .iter()
        .position(|&t| t == family.theme)
        .unwrap_or(0);
    let homes = HOMES[theme];
    homes[(family.kind + family.line + product.variant) % homes.len()]
}

/// Generates `n_users` sequences of distinct catalog positions, 6 to 18 items each.
pub fn generate(catalog: &Catalog, n_users: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = SeededRng::new(seed);
    let homes: Vec<usize> = (0..catalog.products.len())
        .map(|p| home(catalog, p))
        .collect();
    let by_theme: Vec<Vec<usize>> = Interest::ALL
        .iter()
        .map(|&t| {
            (0..catalog.families.len())
                .filter(|&f| catalog.families[f].theme == t)
                .collect()
        })
        .collect();
    // Line weights per kind of user and theme: popularity × (1 + the listings meant for that
    // kind, and a little for the others), so that long lines of colours are visited about as
    // often per listing as single printers and few listings go without buyers.
    let line_weights: Vec<Vec<Vec<f64>>> = (0..PERSONAS.len())
        .map(|persona| {
            by_theme
                .iter()
                .map(|fs| {
                    fs.iter()
                        .map(|&f| {
                            let family = &catalog.families[f];
                            let mine = family
                                .products
                                .iter()
                                .filter(|&&p| homes[p] == persona)
                                .count();
                            let others = family.products.len() - mine;
                            family.popularity * (1.0 + mine as f64 + AWAY_LINE * others as f64)
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let persona_shares: Vec<f64> = PERSONAS.iter().map(|p| p.share).collect();
    let all_families: Vec<usize> = (0..catalog.families.len()).collect();
    (0..n_users)
        .map(|_| {
            let persona = rng.weighted(&persona_shares);
            let themes = &PERSONAS[persona].themes;
            let primary = rng.weighted(themes);
            let secondary = rng.chance(0.3).then(|| rng.weighted(themes));
            let length = 6 + geometric(&mut rng, 0.25).min(12);
            let mut bought: Vec<usize> = Vec::with_capacity(length);
            let pick_in_theme = |rng: &mut SeededRng, theme: usize| {
                by_theme[theme][rng.weighted(&line_weights[persona][theme])]
            };
            let mut family = pick_in_theme(&mut rng, primary);
            let mut attempts = 0;
            while bought.len() < length && attempts < 300 {
                attempts += 1;
                let products = &catalog.families[family].products;
                let fresh: Vec<usize> = products
                    .iter()
                    .copied()
                    .filter(|p| !bought.contains(p))
                    .collect();
                if !fresh.is_empty() {
                    // Earlier products of a line are more popular (1/(1 + k/8)); only exact
                    // IEEE operations, so the draws are the same on every machine.
                    let weights: Vec<f64> = fresh
                        .iter()
                        .map(|p| {
                            let k = products.iter().position(|q| q == p).unwrap_or(0);
                            8.0 / (k + 8) as f64
                        })
                        .collect();
                    let p = fresh[rng.weighted(&weights)];
                    if homes[p] == persona || rng.chance(ACCEPT_AWAY) {
                        bought.push(p);
                    }
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
            assert!((2..=18).contains(&seq.len()), "{}", seq.len());
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

    #[test]
    fn neighbouring_listings_are_for_different_kinds_of_users() {
        for homes in HOMES {
            for (i, h) in homes.iter().enumerate() {
                if homes.len() > 1 {
                    assert_ne!(*h, homes[(i + 1) % homes.len()], "{homes:?}");
                }
                assert!(PERSONAS[*h].themes.iter().any(|&w| w > 0.0));
            }
        }
        let cat = catalog::generate(2026);
        let printer = |size: &str| {
            let title = format!("Voxelcraft {size} 3D Printer,");
            (0..cat.products.len())
                .find(|&p| cat.products[p].title.starts_with(&title))
                .unwrap()
        };
        let (mini, standard) = (printer("Mini"), printer("Standard"));
        assert_ne!(home(&cat, mini), home(&cat, standard));
    }

    #[test]
    fn users_buy_the_listings_meant_for_their_kind_together() {
        // Pairs of one line bought by one user are for the same kind of user far more often
        // than the line's pairs are (0.60 against 0.32 when written).
        let cat = catalog::generate(2026);
        let users = generate(&cat, 800, 7);
        let (mut same, mut pairs) = (0, 0);
        for seq in &users {
            for (i, &a) in seq.iter().enumerate() {
                for &b in &seq[i + 1..] {
                    if cat.products[a].family == cat.products[b].family {
                        pairs += 1;
                        same += usize::from(home(&cat, a) == home(&cat, b));
                    }
                }
            }
        }
        let (mut line_same, mut line_pairs) = (0, 0);
        for family in cat.families.iter().filter(|f| f.products.len() > 1) {
            for (i, &a) in family.products.iter().enumerate() {
                for &b in &family.products[i + 1..] {
                    line_pairs += 1;
                    line_same += usize::from(home(&cat, a) == home(&cat, b));
                }
            }
        }
        let bought = same as f64 / pairs as f64;
        let listed = line_same as f64 / line_pairs as f64;
        assert!(
            pairs > 500 && bought > 1.5 * listed,
            "{bought} {listed} {pairs}"
        );
    }
}
