//! Compact table sets: the tables a set may leave out, because a one-ply search over
//! the tables it keeps gives their values exactly.
//!
//! A position's value is the best of its children's values, one ply up (this is what
//! the verifier checks). So a sector whose children's tables are all kept needs no
//! table of its own: the probe reads every child instead (see
//! [`Tablebase::probe`](crate::probe::Tablebase::probe)). Chess tablebases
//! do the same when they store one side to move only. Leaving out two sectors joined
//! by a move would make a probe recurse, so the omitted sectors form an independent
//! set of the sector graph, and a sector that leads into itself (a movement subspace
//! `s-s`) is always kept. Which independent set is a matter of weight: the bytes the
//! user wants to save. Probes of omitted sectors cost one lookup per move instead of
//! one in all, which is the price of the smaller set.

use crate::position::sector::Sector;
use std::collections::{BTreeMap, BTreeSet};

/// [`omissible`] under `game`'s rules, whose sector graph it uses (`take=each` has a
/// second capture edge).
pub fn omissible(weights: &BTreeMap<Sector, u64>, game: &crate::rules::game::Game) -> BTreeSet<Sector> {
    let present = |x: &Sector| weights.contains_key(x);
    // A sector may be left out only if every child is a table here, itself excluded.
    let eligible = |x: &Sector| {
        let kids = x.children(game);
        !kids.contains(x) && kids.iter().all(present)
    };
    let mut neighbours: BTreeMap<Sector, BTreeSet<Sector>> = weights.keys().map(|&x| (x, BTreeSet::new())).collect();
    for &x in weights.keys() {
        for c in x.children(game).into_iter().filter(present) {
            neighbours.get_mut(&x).expect("present").insert(c);
            neighbours.get_mut(&c).expect("present").insert(x);
        }
    }
    // Two greedy orders (heaviest first, and heaviest per neighbour first), each
    // improved by swaps; the heavier result wins.
    let eligible: Vec<Sector> = weights.keys().copied().filter(eligible).collect();
    let by_weight = |x: &Sector| (std::cmp::Reverse(weights[x]), *x);
    let by_ratio = |x: &Sector| (std::cmp::Reverse(weights[x] / (1 + neighbours[x].len() as u64)), *x);
    let a = greedy(&eligible, by_weight, weights, &neighbours);
    let b = greedy(&eligible, by_ratio, weights, &neighbours);
    let sum = |set: &BTreeSet<Sector>| set.iter().map(|x| weights[x]).sum::<u64>();
    if sum(&b) > sum(&a) {
        b
    } else {
        a
    }
}

fn greedy<K: Ord>(eligible: &[Sector], key: impl Fn(&Sector) -> K, weights: &BTreeMap<Sector, u64>, neighbours: &BTreeMap<Sector, BTreeSet<Sector>>) -> BTreeSet<Sector> {
    let mut order = eligible.to_vec();
    order.sort_by_key(key);
    let mut omitted = BTreeSet::new();
    for &x in &order {
        if neighbours[&x].iter().all(|n| !omitted.contains(n)) {
            omitted.insert(x);
        }
    }
    // Swap in any sector heavier than the omitted neighbours it displaces, until none is.
    loop {
        let mut changed = false;
        for &x in &order {
            if omitted.contains(&x) {
                continue;
            }
            let displaced: Vec<Sector> = neighbours[&x].iter().copied().filter(|n| omitted.contains(n)).collect();
            if weights[&x] > displaced.iter().map(|n| weights[n]).sum::<u64>() {
                for n in &displaced {
                    omitted.remove(n);
                }
                omitted.insert(x);
                changed = true;
            }
        }
        if !changed {
            return omitted;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn omitted_sectors_only_lead_into_kept_ones() {
        let all = Sector::reachable(Sector::start(9, 9).unwrap(), crate::rules::game::Game::standard());
        let mut weights: BTreeMap<Sector, u64> = all.iter().map(|&x| (x, x.index(crate::rules::Board::Nine).len())).collect();
        // The movement subspaces that 9-9 does not reach through captures are there too.
        for s in 3..=9 {
            for o in 3..=9 {
                let x = Sector::new(s, o, 0, 0).unwrap();
                weights.insert(x, x.index(crate::rules::Board::Nine).len());
            }
        }
        assert_eq!(weights.len(), 498);
        let omitted = omissible(&weights, crate::rules::game::Game::standard());
        for x in &omitted {
            for c in x.children(crate::rules::game::Game::standard()) {
                assert!(weights.contains_key(&c) && !omitted.contains(&c), "{x} leads into {c}");
            }
        }
        for s in 3..=9 {
            assert!(!omitted.contains(&Sector::new(s, s, 0, 0).unwrap()), "{s}-{s} leads into itself");
        }
        let total: u64 = weights.values().sum();
        let left_out: u64 = omitted.iter().map(|x| weights[x]).sum();
        assert!(left_out * 5 > total * 2, "a compact set leaves out {left_out} of {total} slots");
        // Without a child's table, a sector must be kept.
        weights.remove(&Sector::new(9, 9, 0, 0).unwrap());
        let omitted = omissible(&weights, crate::rules::game::Game::standard());
        assert!(omitted.iter().all(|x| x.children(crate::rules::game::Game::standard()).iter().all(|c| weights.contains_key(c))));
    }
}
