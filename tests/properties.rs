//! Property tests: index round trips, symmetry invariance, move/unmove duality, and the
//! move generator against a plain implementation of the rules written from docs/rules.md.

use morris::position::index::SubspaceIndex;
use morris::rules::game::Game;
use morris::rules::geometry::Bits;
use morris::rules::movegen::{for_each_move, for_each_unmove, is_blocked, NONE};

/// Rule sets whose movement phase the engine solves: every option on the 24-point boards.
const RULE_SETS: [&str; 8] = [
    "standard",
    "morabaraba",
    "twelve",
    "standard,removal=strict",
    "standard,removal=lenient",
    "standard,take=each",
    "standard,flying=none",
    "morabaraba,take=each,removal=strict",
];
use morris::rules::symmetry;
use morris::Subspace;
use proptest::prelude::*;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// A random movement position of subspace `s-o`, from a random permutation of the points.
fn position(s: u8, o: u8, seed: u64) -> (Bits, Bits) {
    let mut pts: Vec<usize> = (0..24).collect();
    let mut rng = Rng(seed | 1);
    for i in (1..24).rev() {
        pts.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let m = pts[..s as usize].iter().map(|&p| 1 << p).sum();
    let opp = pts[s as usize..(s + o) as usize].iter().map(|&p| 1 << p).sum();
    (m, opp)
}

fn any_position() -> impl Strategy<Value = (Subspace, Bits, Bits)> {
    (3u8..=9, 3u8..=9, any::<u64>()).prop_map(|(s, o, seed)| {
        let (m, op) = position(s, o, seed);
        (Subspace::new(s, o).unwrap(), m, op)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn index_is_a_class_function_and_unindex_inverts_it((sub, m, o) in any_position()) {
        let idx = SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o);
        let i = idx.index(m, o);
        prop_assert!(i < idx.len());
        for g in 0..symmetry::COUNT {
            prop_assert_eq!(idx.index(symmetry::apply(g, m), symmetry::apply(g, o)), i);
        }
        let (m2, o2) = idx.unindex(i);
        prop_assert_eq!(idx.index(m2, o2), i);
        prop_assert!(!idx.is_hole(i));
        // unindex returns a member of the same orbit
        prop_assert!((0..16).any(|g| symmetry::apply(g, m) == m2 && symmetry::apply(g, o) == o2));
    }

    #[test]
    fn slots_round_trip(sub in (3u8..=9, 3u8..=9).prop_map(|(s, o)| Subspace::new(s, o).unwrap()), frac in 0.0f64..1.0) {
        let idx = SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o);
        let i = ((idx.len() as f64 * frac) as u64).min(idx.len() - 1);
        let (m, o) = idx.unindex(i);
        prop_assert_eq!(m.count_ones() as u8, sub.s);
        prop_assert_eq!(o.count_ones() as u8, sub.o);
        prop_assert_eq!(m & o, 0);
        if !idx.is_hole(i) {
            prop_assert_eq!(idx.index(m, o), i);
        }
    }

    /// Every move has the matching unmove and every unmove the matching move, modulo
    /// symmetry, under every rule set of the 24-point boards (the options change both).
    #[test]
    fn moves_and_unmoves_are_dual((sub, m, o) in any_position(), rules in 0usize..RULE_SETS.len()) {
        let game = RULE_SETS[rules].parse::<morris::Rules>().unwrap().game();
        let idx = SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o);
        let child_idx = SubspaceIndex::new(morris::rules::Board::Nine, sub.o, sub.s);
        let me = idx.index(m, o);
        let mut children = vec![];
        for_each_move(game, m, o, |mv, cm, co| if mv.capture == NONE { children.push(child_idx.index(cm, co)) });
        for &c in &children {
            let (cm, co) = child_idx.unindex(c);
            let mut found = false;
            for_each_unmove(game, cm, co, |pm, po| found |= idx.index(pm, po) == me);
            prop_assert!(found, "child slot {} does not list its parent", c);
        }
        // Conversely, the parents of this position (as a child) reach it by a move.
        let parent_idx = child_idx;
        for_each_unmove(game, m, o, |pm, po| {
            let mut found = false;
            for_each_move(game, pm, po, |mv, cm, co| found |= mv.capture == NONE && idx.index(cm, co) == me);
            assert!(found, "unmove parent does not reach its child");
            let _ = parent_idx.index(pm, po);
        });
    }

    #[test]
    fn move_generator_matches_plain_rules((_sub, m, o) in any_position()) {
        let mut fast = vec![];
        for_each_move(Game::standard(), m, o, |mv, cm, co| fast.push((mv.from, mv.to, mv.capture, cm, co)));
        fast.sort();
        let mut plain = plain_moves(m, o);
        plain.sort();
        prop_assert_eq!(&fast, &plain);
        prop_assert_eq!(is_blocked(Game::standard(), m, o), plain.is_empty());
    }
}

/// The rules of docs/rules.md, spelled out over point names with no precomputed tables.
fn plain_moves(m: Bits, o: Bits) -> Vec<(u8, u8, u8, Bits, Bits)> {
    let p = |n: &str| morris::rules::Board::Nine.geometry().point(n).unwrap();
    let lines: [[&str; 3]; 16] = [
        ["a7", "d7", "g7"],
        ["b6", "d6", "f6"],
        ["c5", "d5", "e5"],
        ["a4", "b4", "c4"],
        ["e4", "f4", "g4"],
        ["c3", "d3", "e3"],
        ["b2", "d2", "f2"],
        ["a1", "d1", "g1"],
        ["a7", "a4", "a1"],
        ["b6", "b4", "b2"],
        ["c5", "c4", "c3"],
        ["d7", "d6", "d5"],
        ["d3", "d2", "d1"],
        ["e5", "e4", "e3"],
        ["f6", "f4", "f2"],
        ["g7", "g4", "g1"],
    ];
    // Edges: consecutive points on each line.
    let adjacent = |a: usize, b: usize| {
        lines.iter().any(|l| (p(l[0]) == a && p(l[1]) == b) || (p(l[1]) == a && p(l[0]) == b) || (p(l[1]) == a && p(l[2]) == b) || (p(l[2]) == a && p(l[1]) == b))
    };
    let in_mill = |set: Bits, x: usize| lines.iter().any(|l| l.iter().any(|n| p(n) == x) && l.iter().all(|n| set >> p(n) & 1 == 1));
    let flying = m.count_ones() == 3;
    let mut out = vec![];
    for from in 0..24 {
        if m >> from & 1 == 0 {
            continue;
        }
        for to in 0..24 {
            if (m | o) >> to & 1 == 1 || !(flying || adjacent(from, to)) {
                continue;
            }
            let after = m & !(1 << from) | 1 << to;
            if in_mill(after, to) {
                let all_in_mills = (0..24).filter(|&x| o >> x & 1 == 1).all(|x| in_mill(o, x));
                for r in 0..24 {
                    if o >> r & 1 == 1 && (all_in_mills || !in_mill(o, r)) {
                        out.push((from as u8, to as u8, r as u8, o & !(1 << r), after));
                    }
                }
            } else {
                out.push((from as u8, to as u8, NONE, o, after));
            }
        }
    }
    out
}
