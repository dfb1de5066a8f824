//! Collision groups seen through the training interactions: how many of a group's items
//! co-occur in some user's history ("benign" collisions in QuaSID's sense: the items are
//! collaboratively related, so sharing an SID costs less), and how head, mid and tail items
//! (by training popularity) are spread over collision groups.

use serde::Serialize;

use crate::collision::Collisions;
use crate::collision::popularity::{HEAD_SHARE, HELD_OUT, MID_SHARE, Popularity, Tier};
use crate::load::{Interactions, SidIndex};
use crate::sid;

/// What `stats --interactions` adds. Field names are the `stats --json` contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollisionInteractions {
    /// Items held out at the end of each user's sequence before counting (2: validation, test).
    pub held_out: usize,
    /// Training interactions with an item of the index.
    pub training_interactions: u64,
    /// Training interactions with an item the index does not have (ignored).
    pub unknown_interactions: u64,
    /// Co-occurrence inside collision groups.
    pub benign: BenignCollisions,
    /// Head, mid and tail items over collision groups, most popular tier first.
    pub popularity_tiers: Vec<TierSpread>,
    /// Collision groups holding both a head and a tail item.
    pub groups_mixing_head_and_tail: usize,
}

/// Co-occurrence of each collision group's items in users' training histories.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenignCollisions {
    /// Collision groups (size ≥ 2).
    pub n_collision_groups: usize,
    /// Items in them.
    pub items_in_collisions: usize,
    /// Of those, items that share some user's training history with another item of their
    /// group.
    pub items_cooccurring: usize,
    /// `items_cooccurring / items_in_collisions` (0 without collisions).
    pub cooccurring_share: f64,
    /// Groups all of whose items co-occur with a group-mate.
    pub groups_all_cooccurring: usize,
    /// Groups none of whose items co-occur with a group-mate.
    pub groups_none_cooccurring: usize,
    /// Every collision group, largest first (ties in SID order).
    pub groups: Vec<GroupCooccurrence>,
}

/// One collision group's co-occurrence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupCooccurrence {
    /// The shared SID.
    pub sid: String,
    /// Items sharing it.
    pub size: u32,
    /// Items co-occurring with a group-mate in some user's training history.
    pub items_cooccurring: u32,
    /// `items_cooccurring / size`.
    pub share: f64,
}

/// How one popularity tier's items are spread over collision groups.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TierSpread {
    /// `head` (top 20 % by training count, ties by id), `mid` (next 30 %) or `tail` (rest).
    pub tier: Tier,
    /// Items in the tier.
    pub n_items: usize,
    /// Fewest training interactions of an item in the tier.
    pub min_interactions: u32,
    /// Most training interactions of an item in the tier.
    pub max_interactions: u32,
    /// Items of the tier in collision groups.
    pub items_in_collisions: usize,
    /// `items_in_collisions / n_items`.
    pub collision_rate: f64,
    /// Mean size of the SID group of the tier's items (1 = no collisions).
    pub mean_group_size: f64,
    /// Items of the tier a popularity decoder never returns (another item of their group
    /// is more popular, or as popular with a smaller id).
    pub hidden_by_popular_decoding: usize,
}

impl CollisionInteractions {
    /// The diagnostics of `index` (grouped as `collisions`) against `interactions`.
    pub fn compute(
        index: &SidIndex,
        collisions: &Collisions,
        interactions: &Interactions,
    ) -> CollisionInteractions {
        let popularity = Popularity::training(index, interactions);
        CollisionInteractions {
            held_out: HELD_OUT,
            training_interactions: popularity.n_counted,
            unknown_interactions: popularity.n_unknown,
            benign: benign(index, collisions, interactions),
            groups_mixing_head_and_tail: mixed_groups(index, collisions, &popularity),
            popularity_tiers: tier_spread(index, collisions, &popularity),
        }
    }
}

fn benign(
    index: &SidIndex,
    collisions: &Collisions,
    interactions: &Interactions,
) -> BenignCollisions {
    let n = index.n_items();
    let position: Vec<Option<u32>> = (0..interactions.n_items())
        .map(|i| {
            index
                .ids()
                .position(interactions.item(i as u32))
                .map(|p| p as u32)
        })
        .collect();
    let mut cooccurs = vec![false; n];
    let mut members: Vec<(u32, u32)> = Vec::new();
    for u in 0..interactions.n_users() {
        let seq = interactions.sequence(u);
        members.clear();
        for &i in &seq[..seq.len().saturating_sub(HELD_OUT)] {
            if let Some(p) = position[i as usize] {
                let g = collisions.group_of(p as usize);
                if collisions.size(g) > 1 {
                    members.push((g, p));
                }
            }
        }
        members.sort_unstable();
        members.dedup();
        for run in members.chunk_by(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                for &(_, p) in run {
                    cooccurs[p as usize] = true;
                }
            }
        }
    }
    let mut groups = Vec::new();
    let (mut items, mut cooccurring, mut all, mut none) = (0, 0, 0, 0);
    for g in collisions.collision_groups() {
        let size = collisions.size(g);
        let co = collisions
            .items(g)
            .iter()
            .filter(|&&p| cooccurs[p as usize])
            .count() as u32;
        items += size as usize;
        cooccurring += co as usize;
        all += usize::from(co == size);
        none += usize::from(co == 0);
        groups.push(GroupCooccurrence {
            sid: sid::format_sid(index.codes(collisions.items(g)[0] as usize)),
            size,
            items_cooccurring: co,
            share: f64::from(co) / f64::from(size),
        });
    }
    BenignCollisions {
        n_collision_groups: groups.len(),
        items_in_collisions: items,
        items_cooccurring: cooccurring,
        cooccurring_share: if items == 0 {
            0.0
        } else {
            cooccurring as f64 / items as f64
        },
        groups_all_cooccurring: all,
        groups_none_cooccurring: none,
        groups,
    }
}

fn tier_spread(
    index: &SidIndex,
    collisions: &Collisions,
    popularity: &Popularity,
) -> Vec<TierSpread> {
    let tiers = popularity.tiers(index);
    let decoder = crate::metrics::Decoder::popular(index, collisions, popularity);
    Tier::ALL
        .iter()
        .map(|&tier| {
            let members: Vec<usize> = (0..index.n_items()).filter(|&p| tiers[p] == tier).collect();
            let group = |p: usize| collisions.group_of(p);
            let in_collisions = members
                .iter()
                .filter(|&&p| collisions.size(group(p)) > 1)
                .count();
            let sizes: u64 = members
                .iter()
                .map(|&p| u64::from(collisions.size(group(p))))
                .sum();
            let counts = members.iter().map(|&p| popularity.count(p));
            TierSpread {
                tier,
                n_items: members.len(),
                min_interactions: counts.clone().min().unwrap_or(0),
                max_interactions: counts.max().unwrap_or(0),
                items_in_collisions: in_collisions,
                collision_rate: ratio(in_collisions, members.len()),
                mean_group_size: if members.is_empty() {
                    0.0
                } else {
                    sizes as f64 / members.len() as f64
                },
                hidden_by_popular_decoding: members
                    .iter()
                    .filter(|&&p| decoder.item_of(group(p)) != p as u32)
                    .count(),
            }
        })
        .collect()
}

fn mixed_groups(index: &SidIndex, collisions: &Collisions, popularity: &Popularity) -> usize {
    let tiers = popularity.tiers(index);
    collisions
        .collision_groups()
        .into_iter()
        .filter(|&g| {
            let items = collisions.items(g);
            let has = |t: Tier| items.iter().any(|&p| tiers[p as usize] == t);
            has(Tier::Head) && has(Tier::Tail)
        })
        .count()
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// The tier split in words, for reports: "head = top 20 %, mid = next 30 %, tail = rest".
pub fn tier_split_text() -> String {
    format!(
        "head = top {:.0} % of items by training interactions (ties by id), mid = next {:.0} %, tail = the rest",
        HEAD_SHARE * 100.0,
        MID_SHARE * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn cooccurrence_and_tiers_on_a_small_index() {
        // Groups: {0, 1, 2} share <a_1><b_1>, {3, 4} share <a_2><b_2>, 5..9 are alone.
        let index = SidIndex::parse(
            br#"{"0": [1, 1], "1": [1, 1], "2": [1, 1], "3": [2, 2], "4": [2, 2],
                 "5": [3, 1], "6": [3, 2], "7": [3, 3], "8": [3, 4], "9": [3, 5]}"#,
            Path::new("t.json"),
            None,
        )
        .unwrap();
        let collisions = Collisions::new(&index);
        let seqs = |v: &[(&str, &[&str])]| {
            Interactions::from_sequences(
                Path::new("i.json"),
                v.iter()
                    .map(|(u, s)| (u.to_string(), s.to_vec()))
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        // u: trains on 0, 1, 5, 5 (3 and 4 held out); v: trains on 3, 0, 0; w: 4 alone.
        let inter = seqs(&[
            ("u", &["0", "1", "5", "5", "3", "4"]),
            ("v", &["3", "0", "0", "9", "9"]),
            ("w", &["4", "1", "2"]),
        ]);
        let d = CollisionInteractions::compute(&index, &collisions, &inter);
        assert_eq!((d.training_interactions, d.unknown_interactions), (8, 0));
        let b = &d.benign;
        assert_eq!((b.n_collision_groups, b.items_in_collisions), (2, 5));
        // 0 and 1 co-occur (user u); 3 and 4 never share a training history.
        assert_eq!(b.items_cooccurring, 2);
        assert_eq!(
            (b.groups_all_cooccurring, b.groups_none_cooccurring),
            (0, 1)
        );
        assert_eq!(b.groups[0].sid, "<a_1><b_1>");
        assert_eq!(
            (b.groups[0].items_cooccurring, b.groups[1].items_cooccurring),
            (2, 0)
        );
        assert!((b.cooccurring_share - 0.4).abs() < 1e-15);
        // Counts: 0 → 3, 1 → 1, 3 → 1, 4 → 1, 5 → 2, others 0. Ranked: 0, 5, 1, 3, 4, 2, 6..9.
        // Head = 0, 5; mid = 1, 3, 4; tail = 2, 6, 7, 8, 9.
        let t = &d.popularity_tiers;
        assert_eq!(t.iter().map(|s| s.n_items).collect::<Vec<_>>(), [2, 3, 5]);
        assert_eq!(
            t.iter().map(|s| s.items_in_collisions).collect::<Vec<_>>(),
            [1, 3, 1]
        );
        assert_eq!((t[0].min_interactions, t[0].max_interactions), (2, 3));
        assert!((t[0].mean_group_size - 2.0).abs() < 1e-15);
        // Popular decoding returns 0 for {0, 1, 2} and 3 for {3, 4}: 1, 2 and 4 are hidden.
        assert_eq!(
            t.iter()
                .map(|s| s.hidden_by_popular_decoding)
                .collect::<Vec<_>>(),
            [0, 2, 1]
        );
        assert_eq!(d.groups_mixing_head_and_tail, 1);
    }
}
