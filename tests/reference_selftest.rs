//! Self-tests of the independent reference solver (tests/reference/mod.rs)
//! against the rules (hand-checkable positions) and against the published
//! figures of docs/rules.md.
//!
//! Run: `cargo test --release --test reference_selftest -- --nocapture`
//! (add `--include-ignored` for the slow 4-4 and 3-5/5-3 checks).

mod reference;

use reference::*;
use std::sync::{Mutex, MutexGuard, OnceLock};

use RefValue::{Draw, Loss, Win};

/// One solver shared by all tests, so that 3-3 etc. are solved once.
fn solver() -> MutexGuard<'static, RefSolver> {
    static S: OnceLock<Mutex<RefSolver>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(RefSolver::new())).lock().unwrap_or_else(|e| e.into_inner())
}

fn m(points: &str) -> u32 {
    mask_of(points)
}

fn sorted(mut v: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    v.sort();
    v.dedup();
    v
}

// ---------------------------------------------------------------------------
// Geometry
// ---------------------------------------------------------------------------

#[test]
fn point_names_in_reading_order() {
    let order = "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1";
    let names: Vec<&str> = order.split(' ').collect();
    assert_eq!(POINT_NAMES.to_vec(), names);
    assert_eq!(point_index("a7"), Some(0));
    assert_eq!(point_index("g1"), Some(23));
    // docs/rules.md example position string
    let (w, b) = parse_board(".WW....B.B....B........W");
    assert_eq!(w, m("d7,g7,g1"));
    assert_eq!(b, m("a4,d5,g4"));
}

#[test]
fn mills_and_edges() {
    let g = geometry();
    assert_eq!(g.mills.len(), 16);
    assert_eq!(g.edges.len(), 32);
    for ex in ["a1,d1,g1", "a4,b4,c4", "d5,d6,d7"] {
        assert!(g.mills.contains(&m(ex)), "{ex} must be a mill");
    }
    // the full list, written out by hand
    let hand = [
        "a7,d7,g7", "b6,d6,f6", "c5,d5,e5", "a4,b4,c4", "e4,f4,g4", "c3,d3,e3", "b2,d2,f2", "a1,d1,g1", "a1,a4,a7", "b2,b4,b6", "c3,c4,c5", "d7,d6,d5", "d3,d2,d1", "e3,e4,e5",
        "f2,f4,f6", "g1,g4,g7",
    ];
    let mut a: Vec<u32> = hand.iter().map(|s| m(s)).collect();
    let mut b = g.mills.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    // squares from docs/rules.md: consecutive points (cyclically) are adjacent
    for sq in ["a1 d1 g1 g4 g7 d7 a7 a4", "b2 d2 f2 f4 f6 d6 b6 b4", "c3 d3 e3 e4 e5 d5 c5 c4"] {
        let pts: Vec<usize> = sq.split(' ').map(|p| point_index(p).unwrap()).collect();
        for i in 0..8 {
            let (x, y) = (pts[i], pts[(i + 1) % 8]);
            assert!(g.adj[x] & (1 << y) != 0, "{} - {}", POINT_NAMES[x], POINT_NAMES[y]);
        }
    }
    // spokes
    for (x, y) in [("d1", "d2"), ("d2", "d3"), ("a4", "b4"), ("b4", "c4"), ("e4", "f4"), ("f4", "g4"), ("d7", "d6"), ("d6", "d5")] {
        let (x, y) = (point_index(x).unwrap(), point_index(y).unwrap());
        assert!(g.adj[x] & (1 << y) != 0);
    }
    // no diagonals, no centre crossing
    for (x, y) in [("a1", "b2"), ("c4", "e4"), ("d3", "d5"), ("a1", "a7")] {
        let (x, y) = (point_index(x).unwrap(), point_index(y).unwrap());
        assert!(g.adj[x] & (1 << y) == 0);
    }
    let degrees: Vec<u32> = g.adj.iter().map(|a| a.count_ones()).collect();
    assert_eq!(degrees.iter().sum::<u32>(), 64);
    assert_eq!(g.adj[point_index("a1").unwrap()].count_ones(), 2);
    assert_eq!(g.adj[point_index("d2").unwrap()].count_ones(), 4);
    assert_eq!(g.adj[point_index("d1").unwrap()].count_ones(), 3);
}

#[test]
fn sixteen_symmetries_are_automorphisms() {
    let g = geometry();
    let syms = symmetries();
    assert_eq!(syms.len(), 16);
    let mut distinct = syms.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 16);
    let mut mills = g.mills.clone();
    mills.sort();
    for perm in &syms {
        let mut seen = [false; 24];
        for &p in perm.iter() {
            seen[p] = true;
        }
        assert!(seen.iter().all(|&x| x));
        let mut img: Vec<u32> = g.mills.iter().map(|&mi| apply_perm(perm, mi)).collect();
        img.sort();
        assert_eq!(img, mills);
        for &(a, b) in &g.edges {
            assert!(g.adj[perm[a]] & (1 << perm[b]) != 0);
        }
    }
}

#[test]
fn colex_indexing_roundtrip() {
    assert_eq!(subspace_len(3, 3), 2_691_920);
    for k in 0..=4 {
        for (i, &mask) in masks_with(24, k).iter().enumerate() {
            assert_eq!(colex_rank(mask), i as u64);
        }
    }
    let free = FULL & !m("a7,d5,g1");
    for (i, &c) in masks_with(21, 3).iter().enumerate() {
        let p = expand(c, free);
        assert_eq!(p & !free, 0);
        assert_eq!(compress(p, free), c);
        assert_eq!(colex_rank(compress(p, free)), i as u64);
    }
}

#[test]
fn raw_index_is_dense_and_ordered() {
    for (s, o) in [(3, 3), (4, 3), (3, 5)] {
        let cm = binom(24 - s, o) as usize;
        for (r1, &mv) in masks_with(24, s).iter().enumerate().step_by(7) {
            let free = FULL & !mv;
            for (r2, &c) in masks_with(24 - s, o).iter().enumerate() {
                let op = expand(c, free);
                let i = raw_index(s, o, mv, op);
                assert_eq!(i, r1 * cm + r2);
                assert_eq!(i as u64, colex_rank(mv) * cm as u64 + colex_rank(compress(op, free)));
            }
        }
        assert_eq!(subspace_len(s, o), binom(24, s) as usize * cm);
    }
}

// ---------------------------------------------------------------------------
// Move rules, checked by hand
// ---------------------------------------------------------------------------

#[test]
fn slides_only_along_edges() {
    // 4 stones: no flying. a1 can go to d1 or a4 only, etc.
    let mover = m("a1,g7,d2,e4");
    let opp = m("d1,f4,c3,b6");
    let kids = sorted(children(mover, opp));
    let mut expect = Vec::new();
    for (from, to) in [("a1", "a4"), ("g7", "d7"), ("g7", "g4"), ("d2", "b2"), ("d2", "f2"), ("d2", "d3"), ("e4", "e3"), ("e4", "e5")] {
        let moved = (mover & !m(from)) | m(to);
        expect.push((opp, moved));
    }
    assert_eq!(kids, sorted(expect));
}

#[test]
fn flying_with_three_stones() {
    // a1, g7, d2 share no mill line, so no flight completes a mill:
    // 3 stones x 17 empty points, all without capture.
    let mover = m("a1,g7,d2");
    let opp = m("d1,f4,c3,b6");
    let kids = children(mover, opp);
    assert_eq!(kids.len(), 3 * 17);
    assert!(kids.iter().all(|&(co, _)| co == opp));
    // the right to fly is judged per player: the opponent with 4 stones
    // only slides (d1: a1? taken, g1, d2? taken; f4: f2 f6 e4 g4; c3: d3 c4;
    // b6: b4 d6).
    let back = children(opp, mover);
    assert_eq!(back.len(), 1 + 4 + 2 + 2);
    // a flight that completes a mill: a1 d1 + fly b6 to g1
    let mover = m("a1,d1,b6");
    let opp = m("c3,e3,f4,a7");
    let kids = children(mover, opp);
    let caps: Vec<_> = kids.iter().filter(|&&(co, _)| co != opp).collect();
    // only b6->g1 completes a mill; the opponent has no mill: 4 choices
    assert_eq!(caps.len(), 4);
    for &&(co, cm) in &caps {
        assert_eq!(cm, m("a1,d1,g1"));
        assert_eq!(co.count_ones(), 3);
    }
}

#[test]
fn capture_spares_stones_in_mills() {
    // Black (opp) has mill a7 d7 g7 plus c3; White closes a1 d1 g1 by d2->d1.
    let mover = m("a1,g1,d2,f6");
    let opp = m("a7,d7,g7,c3");
    let kids = children(mover, opp);
    let after = m("a1,g1,d1,f6");
    let caps: Vec<(u32, u32)> = kids.iter().copied().filter(|&(_, cm)| cm == after).collect();
    assert_eq!(caps, vec![(m("a7,d7,g7"), after)], "only c3 may be taken");
}

#[test]
fn capture_any_when_all_in_mills() {
    let mover = m("a1,g1,d2,f6");
    let opp = m("a7,d7,g7");
    let kids = children(mover, opp);
    let after = m("a1,g1,d1,f6");
    let caps = sorted(kids.iter().copied().filter(|&(_, cm)| cm == after).collect());
    let expect = sorted(vec![(m("d7,g7"), after), (m("a7,g7"), after), (m("a7,d7"), after)]);
    assert_eq!(caps, expect);
}

#[test]
fn no_double_mill_in_the_movement_phase() {
    // "Completing two mills at once still removes exactly one stone" can only
    // matter in placement: a sliding stone comes from a neighbour of its
    // target, and every neighbour lies on one of the target's two mills,
    // which the move therefore leaves incomplete; a flyer has only 3 stones.
    let g = geometry();
    for x in 0..24 {
        for y in 0..24 {
            if g.adj[x] & (1 << y) != 0 {
                assert!(g.mills_at[x].iter().any(|&mill| mill & (1 << y) != 0));
            }
        }
    }
    // and a capture child always has exactly one stone fewer
    let mover = m("a1,g1,d2,d3,e4");
    let opp = m("d6,a7,g7,b4");
    for (co, cm) in children(mover, opp) {
        assert_eq!(cm.count_ones(), 5);
        assert!(co.count_ones() == 4 || co.count_ones() == 3);
    }
}

#[test]
fn reopening_a_mill_captures_again() {
    // White mill a1 d1 g1; slide g1->g4 then g4->g1 forms it again.
    let mover = m("a1,d1,g4,b6");
    let opp = m("c3,e3,f6,d7");
    let kids = children(mover, opp);
    let after = m("a1,d1,g1,b6");
    let caps: Vec<_> = kids.iter().filter(|&&(_, cm)| cm == after).collect();
    assert_eq!(caps.len(), 4);
}

/// Mover a7 d7 a4 b6 against g7 d6 a1 b4: every empty neighbour of the
/// mover is taken (a7: d7 a4; d7: a7 g7 d6; a4: a7 a1 b4; b6: d6 b4).
fn blocked_4_4() -> (u32, u32) {
    (m("a7,d7,a4,b6"), m("g7,d6,a1,b4"))
}

#[test]
fn blocked_has_no_moves_but_a_flyer_always_has() {
    let (mover, opp) = blocked_4_4();
    assert!(children(mover, opp).is_empty());
    // the same cluster with only 3 stones flies out
    let kids = children(m("a7,d7,a4"), opp);
    assert_eq!(kids.len(), 3 * (24 - 7));
    // opening b4 (opponent stone moved to c3) unblocks a4-b4 and b6-b4
    let kids = sorted(children(mover, m("g7,d6,a1,c3")));
    let expect = sorted(vec![(m("g7,d6,a1,c3"), m("a7,d7,b4,b6")), (m("g7,d6,a1,c3"), m("a7,d7,a4,b4"))]);
    assert_eq!(kids, expect);
}

#[test]
fn flyer_is_never_blocked_and_loss0_needs_4_4() {
    let mut sv = solver();
    sv.solve(4, 3);
    for (s, o) in [(3, 3), (3, 4), (4, 3)] {
        let t = sv.table(s, o).unwrap();
        // 3 stones always fly; 4 stones cannot be walled in by 3
        assert!(t.iter().all(|(_, _, v)| v != Loss(0)), "{s}-{o}");
    }
}

// ---------------------------------------------------------------------------
// Published figures
// ---------------------------------------------------------------------------

fn check_parity(t: &RefTable) {
    for (_, _, v) in t.iter() {
        match v {
            Win(d) => assert!(d % 2 == 1),
            Loss(d) => assert!(d % 2 == 0),
            Draw => {}
        }
    }
}

#[test]
fn raw_3_3_counts_and_gasser_positions() {
    let mut sv = solver();
    sv.solve(3, 3);
    let t = sv.solve(3, 3);
    assert_eq!(t.len(), 2_691_920);
    assert_eq!(t.counts(), (2_232_160, 4_112, 455_648));
    assert_eq!(t.deepest_win(), Some(25));
    assert_eq!(t.deepest_loss(), Some(26));
    // Gasser 1996 Fig. 9: White d7 g7 g1, Black a4 d5 g4, Black to move.
    assert_eq!(t.get(m("a4,d5,g4"), m("d7,g7,g1")), Loss(26));
    // Gasser 1991: White d7 g7 g1, Black a7 a4 g4, White to move.
    assert_eq!(t.get(m("d7,g7,g1"), m("a7,a4,g4")), Win(25));
    check_parity(t);
}

#[test]
fn orbit_counts_3_3_and_symmetry_invariance() {
    let mut sv = solver();
    let t = sv.solve(3, 3);
    assert_eq!(t.orbit_counts(), (140_621, 269, 28_736));
    let syms = symmetries();
    for (mv, op, v) in t.iter() {
        for perm in &syms {
            assert_eq!(t.get(apply_perm(perm, mv), apply_perm(perm, op)), v);
        }
    }
}

#[test]
fn consistency_3_3() {
    let mut sv = solver();
    sv.solve(3, 3);
    sv.verify(3, 3);
}

#[test]
fn subspaces_3_4_and_4_3() {
    let mut sv = solver();
    sv.solve(3, 3);
    sv.solve(4, 3);
    let t43 = sv.table(4, 3).unwrap();
    let t34 = sv.table(3, 4).unwrap();
    assert_eq!(t43.len(), 12_113_640);
    assert_eq!(t34.len(), 12_113_640);
    assert_eq!(t43.deepest_win(), Some(1));
    assert_eq!(t43.deepest_loss(), Some(32));
    assert_eq!(t34.deepest_win(), Some(33));
    assert_eq!(t34.deepest_loss(), None);
    assert_eq!(t43.orbit_counts(), (75_397, 681_906, 3_095));
    assert_eq!(t34.orbit_counts(), (102_281, 658_117, 0));
    check_parity(t43);
    check_parity(t34);
    sv.verify(4, 3);
    sv.verify(3, 4);
}

#[test]
fn subspace_4_4() {
    let mut sv = solver();
    sv.solve(3, 4);
    sv.solve(4, 4);
    let t = sv.table(4, 4).unwrap();
    assert_eq!(t.len(), 51_482_970);
    assert_eq!(t.deepest_win(), Some(9));
    assert_eq!(t.deepest_loss(), Some(8));
    assert_eq!(t.orbit_counts(), (159, 3_225_409, 29));
    // Loewer 2016 depth histogram in orbits, plies 0..9
    let h = t.orbit_histogram();
    let expect: [u64; 10] = [6, 29, 3, 24, 10, 46, 6, 48, 4, 12];
    for (d, &e) in expect.iter().enumerate() {
        let v = if d % 2 == 1 { Win(d as u16) } else { Loss(d as u16) };
        assert_eq!(h.get(&v).copied().unwrap_or(0), e, "depth {d}");
    }
    check_parity(t);
    let (mover, opp) = blocked_4_4();
    assert_eq!(t.get(mover, opp), Loss(0));
    sv.verify(4, 4);
}

#[test]
fn subspaces_5_3_and_3_5() {
    let mut sv = solver();
    sv.solve(4, 3);
    sv.solve(5, 3);
    let t53 = sv.table(5, 3).unwrap();
    let t35 = sv.table(3, 5).unwrap();
    assert_eq!(t53.deepest_win(), Some(3));
    assert_eq!(t53.deepest_loss(), None);
    assert_eq!(t35.deepest_win(), Some(31));
    assert_eq!(t35.deepest_loss(), Some(2));
    assert_eq!(t53.orbit_counts(), (580_660, 1_999_730, 0));
    assert_eq!(t35.orbit_counts(), (6_301, 2_564_412, 9_677));
    check_parity(t53);
    check_parity(t35);
}

// The figures above already pin 5-3/3-5; re-deriving all 82 million values
// from their children adds ~35 s on 2 cores, so it is opt-in:
// `cargo test --release --test reference_selftest -- --ignored`
#[test]
#[ignore]
fn verify_5_3_and_3_5() {
    let mut sv = solver();
    sv.solve(5, 3);
    sv.verify(5, 3);
    sv.verify(3, 5);
}
