//! Self-tests of the family reference solver (tests/reference_family/),
//! against figures derived independently of it: the standard-game reference
//! (tests/reference/), published values (docs/rules.md),
//! orbit counts made two ways, the game equations (verify), and positions
//! whose values are worked out by hand below.
//!
//! Run: `cargo test --release --test reference_family_selftest`
//! (`-- --include-ignored` adds the slow ones, each marked with its cost).

mod reference;
mod reference_family;

use reference_family::orbits::{burnside_orbits, explicit_orbits, orbit_counts};
use reference_family::rules::apply_perm;
use reference_family::*;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use RefValue::{Draw, Loss, Win};

/// One solver per rule set, shared by every test (a sector is solved once).
fn solver(rules: &str) -> Arc<Mutex<Solver>> {
    static S: OnceLock<Mutex<HashMap<String, Arc<Mutex<Solver>>>>> = OnceLock::new();
    let mut map = S.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    map.entry(rules.to_string()).or_insert_with(|| Arc::new(Mutex::new(Solver::new(&RefRules::parse(rules).unwrap())))).clone()
}

fn lock(s: &Arc<Mutex<Solver>>) -> MutexGuard<'_, Solver> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

fn rules(s: &str) -> RefRules {
    RefRules::parse(s).unwrap()
}

/// A position from point lists, side to move first.
fn pos(r: &RefRules, mover: &str, opp: &str, mover_hand: u32, opp_hand: u32) -> RawPos {
    let p = RawPos { mover: r.mask(mover), opp: r.mask(opp), mover_hand, opp_hand };
    assert_eq!(p.mover & p.opp, 0);
    p
}

/// The solver's value of a position (solving its sector first).
fn value(rule_set: &str, p: &RawPos) -> RefValue {
    let s = solver(rule_set);
    let mut sv = lock(&s);
    sv.solve_sector((p.mover.count_ones(), p.opp.count_ones(), p.mover_hand, p.opp_hand));
    sv.value(p).unwrap()
}

/// Does some move end the game at once (the opponent left below 3 stones, or
/// blocked, or on a full board under `full-board=loss`)?
fn wins_in_one(r: &RefRules, p: &RawPos) -> bool {
    children(r, p).iter().any(|c| terminal_value(r, c) == Some(Loss(0)) || children(r, c).is_empty() && terminal_value(r, c).is_none())
}

// ---------------------------------------------------------------------------
// Rule sets and boards
// ---------------------------------------------------------------------------

#[test]
fn named_rule_sets_and_overrides() {
    let s = rules("standard");
    assert_eq!((s.board, s.stones(), s.flying, s.lasker), (Board::Nine, 9, true, false));
    assert_eq!((s.removal, s.take_each, s.full_board_draw), (Removal::Standard, false, false));
    let l = rules("lasker");
    assert_eq!((l.board, l.stones(), l.flying, l.lasker), (Board::Nine, 10, true, true));
    let m = rules("morabaraba");
    assert_eq!((m.board, m.stones(), m.flying, m.full_board_draw), (Board::NineDiagonal, 12, true, true));
    let t = rules("twelve");
    assert_eq!((t.board, t.stones(), t.flying, t.full_board_draw), (Board::NineDiagonal, 12, false, true));
    let x = rules("six");
    assert_eq!((x.board, x.stones(), x.flying, x.points()), (Board::Six, 6, false, 16));
    let f = rules("five");
    assert_eq!((f.board, f.stones(), f.flying), (Board::Six, 5, false));
    let o = rules("six,stones=8,full-board=draw");
    assert_eq!((o.stones(), o.full_board_draw), (8, true));
    let o = rules("standard,removal=strict,take=each,flying=none,lasker=yes,full-board=draw");
    assert_eq!((o.removal, o.take_each, o.flying, o.lasker, o.full_board_draw), (Removal::Strict, true, false, true, true));
    assert_eq!(rules("standard,removal=lenient").removal, Removal::Lenient);
    assert!(!rules("morabaraba,flying=3,full-board=loss").full_board_draw);
    for bad in ["", "nine", "standard,stones=13", "six,stones=9", "standard,stones=2", "standard,flying=4", "standard,fly=3", "standard,take"] {
        assert!(RefRules::parse(bad).is_err(), "{bad:?} should not parse");
    }
    assert_eq!(rules("standard").point_names().len(), 24);
    assert_eq!(rules("six").point_names().join(" "), "a5 c5 e5 b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1");
    assert_eq!(rules("morabaraba").point_names().join(" "), "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1");
}

fn sorted_masks(r: &RefRules, lines: &[&str]) -> Vec<u32> {
    let mut v: Vec<u32> = lines.iter().map(|l| r.mask(l)).collect();
    v.sort();
    v
}

#[test]
fn edges_and_mills_of_each_board() {
    // nine: written out by hand from docs/rules.md
    let r = rules("standard");
    let nine_mills = [
        "a7,d7,g7", "b6,d6,f6", "c5,d5,e5", "a4,b4,c4", "e4,f4,g4", "c3,d3,e3", "b2,d2,f2", "a1,d1,g1", "a1,a4,a7", "b2,b4,b6", "c3,c4,c5", "d7,d6,d5", "d3,d2,d1", "e3,e4,e5",
        "f2,f4,f6", "g1,g4,g7",
    ];
    let g = r.geometry();
    let mut got = g.mills.clone();
    got.sort();
    assert_eq!(got, sorted_masks(&r, &nine_mills));
    assert_eq!(g.edges.len(), 32);
    // nine-diagonal: the same plus the 4 corner diagonals, which are also edges
    let d = rules("morabaraba");
    let gd = d.geometry();
    let diagonals = ["a7,b6,c5", "g7,f6,e5", "g1,f2,e3", "a1,b2,c3"];
    let mut all: Vec<&str> = nine_mills.to_vec();
    all.extend(diagonals);
    let mut got = gd.mills.clone();
    got.sort();
    assert_eq!(got, sorted_masks(&d, &all));
    assert_eq!(gd.edges.len(), 40);
    for (a, b) in [("a7", "b6"), ("b6", "c5"), ("e3", "f2"), ("a1", "b2")] {
        assert!(gd.adj[d.mask(a).trailing_zeros() as usize] & d.mask(b) != 0, "{a}-{b}");
        assert!(g.adj[r.mask(a).trailing_zeros() as usize] & r.mask(b) == 0, "{a}-{b} not on nine");
    }
    // six: the 4 sides of each square are the mills; edges: the squares'
    // sides and the 4 joining edges a3-b3, c1-c2, e3-d3, c5-c4
    let x = rules("six");
    let gx = x.geometry();
    let six_mills = ["a5,c5,e5", "e5,e3,e1", "e1,c1,a1", "a1,a3,a5", "b4,c4,d4", "d4,d3,d2", "d2,c2,b2", "b2,b3,b4"];
    let mut got = gx.mills.clone();
    got.sort();
    assert_eq!(got, sorted_masks(&x, &six_mills));
    let six_edges = [
        "a1 c1", "c1 e1", "e1 e3", "e3 e5", "e5 c5", "c5 a5", "a5 a3", "a3 a1", "b2 c2", "c2 d2", "d2 d3", "d3 d4", "d4 c4", "c4 b4", "b4 b3", "b3 b2", "a3 b3", "c1 c2", "e3 d3",
        "c5 c4",
    ];
    let mut want: Vec<u32> = six_edges.iter().map(|e| x.mask(e)).collect();
    want.sort();
    let mut got: Vec<u32> = gx.edges.iter().map(|&(a, b)| (1 << a) | (1 << b)).collect();
    got.sort();
    assert_eq!(got, want);
}

#[test]
fn sixteen_symmetries_of_each_board() {
    for name in ["standard", "morabaraba", "six"] {
        let r = rules(name);
        let g = r.geometry();
        assert_eq!(g.symmetries.len(), 16);
        assert!(g.symmetries[0].iter().enumerate().all(|(i, &j)| i == j), "identity first");
        let distinct: HashSet<Vec<usize>> = g.symmetries.iter().cloned().collect();
        assert_eq!(distinct.len(), 16, "{name}: 16 distinct symmetries");
        let edges: HashSet<u32> = g.edges.iter().map(|&(a, b)| (1 << a) | (1 << b)).collect();
        let mills: HashSet<u32> = g.mills.iter().copied().collect();
        for perm in &g.symmetries {
            for &e in &edges {
                assert!(edges.contains(&apply_perm(perm, e)), "{name}: an edge maps to an edge");
            }
            for &m in &mills {
                assert!(mills.contains(&apply_perm(perm, m)), "{name}: a mill maps to a mill");
            }
            // closed under composition
            for q in &g.symmetries {
                let comp: Vec<usize> = (0..perm.len()).map(|i| q[perm[i]]).collect();
                assert!(distinct.contains(&comp), "{name}: not a group");
            }
        }
    }
}

#[test]
fn raw_index_is_dense_and_ordered() {
    use reference_family::index::{masks_with, raw_index};
    for (n, s, o) in [(16u32, 3u32, 4u32), (24, 2, 3), (16, 0, 5), (16, 6, 0)] {
        let full = (1u32 << n) - 1;
        let mut seen = vec![false; reference_family::index::sector_len(n, s, o)];
        for m in masks_with(n, s) {
            for p in masks_with(n, o) {
                if p & m == 0 {
                    let i = raw_index(n, m, p);
                    assert!(!seen[i], "index {i} twice");
                    seen[i] = true;
                }
            }
        }
        assert!(seen.iter().all(|&b| b), "dense");
        let _ = full;
    }
}

// ---------------------------------------------------------------------------
// Orbits: Burnside against explicit enumeration
// ---------------------------------------------------------------------------

#[test]
fn burnside_equals_explicit_orbits() {
    for (board, s, o) in [(Board::Nine, 3, 3), (Board::NineDiagonal, 2, 3), (Board::Six, 3, 3), (Board::Six, 4, 4), (Board::Six, 5, 3)] {
        let b = burnside_orbits(board, s, o);
        let e = explicit_orbits(board, s, o);
        assert_eq!(b, e, "{board:?} {s}-{o}");
    }
    // published (docs/rules.md)
    assert_eq!(burnside_orbits(Board::Nine, 3, 3), 169_626);
    assert_eq!(burnside_orbits(Board::Nine, 3, 4), 760_398);
    assert_eq!(burnside_orbits(Board::Nine, 5, 5), 30_914_424);
    assert_eq!(burnside_orbits(Board::Nine, 8, 8), 591_726_690);
    let all: u64 = (3..=9).flat_map(|s| (3..=9).map(move |o| (s, o))).map(|(s, o)| burnside_orbits(Board::Nine, s, o)).sum();
    assert_eq!(all, 8_904_593_601);
    // orbits of k-stone sets
    let sets: Vec<u64> = (0..=12).map(|k| burnside_orbits(Board::Nine, k, 0)).collect();
    assert_eq!(sets, [1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880, 124124, 157668, 170854]);
}

// ---------------------------------------------------------------------------
// The standard game against the standard-game reference and the literature
// ---------------------------------------------------------------------------

fn old_value(v: reference::RefValue) -> RefValue {
    match v {
        reference::RefValue::Win(d) => Win(d as u32),
        reference::RefValue::Loss(d) => Loss(d as u32),
        reference::RefValue::Draw => Draw,
    }
}

fn old_reference() -> &'static Mutex<reference::RefSolver> {
    static S: OnceLock<Mutex<reference::RefSolver>> = OnceLock::new();
    S.get_or_init(|| Mutex::new(reference::RefSolver::new()))
}

fn compare_with_old_reference(s: u32, o: u32) {
    let mut old = old_reference().lock().unwrap_or_else(|e| e.into_inner());
    old.solve(s, o);
    let table = old.table(s, o).unwrap();
    let sol = lock(&solver("standard")).solve_movement(s, o);
    assert_eq!(sol.len(), table.len());
    let mut n = 0;
    for (m, p, v) in table.iter() {
        let raw = RawPos { mover: m, opp: p, mover_hand: 0, opp_hand: 0 };
        assert_eq!(sol.get(&raw), Some(old_value(v)), "{s}-{o}: {raw:?}");
        n += 1;
    }
    assert_eq!(n, sol.len());
}

#[test]
fn standard_equals_old_reference_3_3() {
    compare_with_old_reference(3, 3);
}

// About 1 to 2 minutes of CPU (both solvers solve 3-4 and 4-3).
#[test]
#[ignore]
fn standard_equals_old_reference_3_4_and_4_3() {
    compare_with_old_reference(3, 4);
    compare_with_old_reference(4, 3);
}

#[test]
fn standard_3_3_movement_and_start() {
    let r = rules("standard");
    let s = solver("standard");
    let mut sv = lock(&s);
    let m33 = sv.solve_movement(3, 3);
    // published (docs/rules.md): raw 3-3, and orbits
    assert_eq!(m33.counts(), (2_232_160, 4_112, 455_648));
    assert_eq!(orbit_counts(Board::Nine, &m33), (140_621, 269, 28_736));
    let deepest = |sol: &RefSolution, win: bool| {
        sol.iter()
            .filter_map(|(_, v)| match v {
                Win(d) if win => Some(d),
                Loss(d) if !win => Some(d),
                _ => None,
            })
            .max()
    };
    assert_eq!((deepest(&m33, true), deepest(&m33, false)), (Some(25), Some(26)));
    // Gasser's positions
    assert_eq!(m33.get(&pos(&r, "a4,d5,g4", "d7,g7,g1", 0, 0)), Some(Loss(26)));
    assert_eq!(m33.get(&pos(&r, "d7,g7,g1", "a7,a4,g4", 0, 0)), Some(Win(25)));
    // Gévay & Danner Table II: 3-3 is W23
    let start = sv.solve_start(3, 3);
    assert_eq!(start.start_value(), Some(Win(23)));
    assert_eq!(start.start(), Some(RawPos { mover: 0, opp: 0, mover_hand: 3, opp_hand: 3 }));
    // every reached position keeps its value under the 16 symmetries
    orbit_counts(Board::Nine, &start);
}

/// Every child of every position of a start's solution is in the solution,
/// or a finished game; every value in it is the solver's.
fn check_closed(r: &RefRules, sv: &Solver, sol: &RefSolution) {
    let mut n = 0;
    for (p, v) in sol.iter() {
        assert_eq!(sv.value(&p), Some(v));
        for c in children(r, &p) {
            if c.mover.count_ones() + c.mover_hand >= 3 {
                assert!(sol.get(&c).is_some(), "child {c:?} of {p:?} not reached");
            }
        }
        n += 1;
    }
    assert_eq!(n, sol.len());
}

#[test]
fn solving_only_the_reached_positions_changes_nothing() {
    // solve_start solves only what the start reaches (Solver::reaching);
    // Solver::new solves whole sectors and finds the reached ones after.
    for (name, wk, bk) in [("five", 4, 4), ("six,lasker=yes", 3, 3)] {
        let r = rules(name);
        let part = solve_start(&r, wk, bk);
        let whole = lock(&solver(name)).solve_start(wk, bk);
        assert_eq!(part.len(), whole.len(), "{name}");
        assert_eq!(part.start_value(), whole.start_value(), "{name}");
        for (p, v) in part.iter() {
            assert_eq!(whole.get(&p), Some(v), "{name}: {p:?}");
        }
        let sv = Solver::reaching(&r, wk, bk);
        assert_eq!(sv.value(&RawPos { mover: 0, opp: 0, mover_hand: wk, opp_hand: bk }), None, "not solved yet");
    }
}

#[test]
fn start_solution_is_closed_under_moves() {
    let s = solver("five");
    let mut sv = lock(&s);
    let sol = sv.solve_start(3, 3);
    check_closed(&rules("five"), &sv, &sol);
    assert!(sol.get(&RawPos { mover: 0, opp: 0, mover_hand: 3, opp_hand: 2 }).is_none());
}

// ---------------------------------------------------------------------------
// Published variant figures (docs/rules.md, Gévay & Danner Tables III and IV)
// ---------------------------------------------------------------------------

#[test]
fn lasker_3_3_is_w23() {
    let s = solver("lasker");
    let v = lock(&s).solve_start(3, 3).start_value();
    assert_eq!(v, Some(Win(23)));
}

// Several minutes of CPU: the Lasker sectors of 3-4 and 4-3 with stones in hand.
#[test]
#[ignore]
fn lasker_3_4_and_4_3_are_draws() {
    let s = solver("lasker");
    let mut sv = lock(&s);
    assert_eq!(sv.solve_start(3, 4).start_value(), Some(Draw));
    assert_eq!(sv.solve_start(4, 3).start_value(), Some(Draw));
}

#[test]
fn morabaraba_3_3_is_w9_and_its_movement_3_3_has_no_draws() {
    let s = solver("morabaraba");
    let mut sv = lock(&s);
    assert_eq!(sv.solve_start(3, 3).start_value(), Some(Win(9)));
    let m = sv.solve_movement(3, 3);
    let (w, d, l) = m.counts();
    assert_eq!(d, 0, "Morabaraba 3-3 has no draws");
    assert_eq!(w + l, m.len() as u64);
}

// About 1 to 2 minutes of CPU (the 3-4/4-3 pair and its placement sectors).
#[test]
#[ignore]
fn morabaraba_3_4_is_d_and_4_3_is_w9() {
    let s = solver("morabaraba");
    let mut sv = lock(&s);
    assert_eq!(sv.solve_start(3, 4).start_value(), Some(Draw));
    assert_eq!(sv.solve_start(4, 3).start_value(), Some(Win(9)));
}

// ---------------------------------------------------------------------------
// Verify: every value equals the minimax of its children's values
// ---------------------------------------------------------------------------

/// Solves a start, then re-derives every value of every sector solved for it
/// from its children.
fn verify_start(rule_set: &str, wk: u32, bk: u32) -> RefSolution {
    let s = solver(rule_set);
    let mut sv = lock(&s);
    let sol = sv.solve_start(wk, bk);
    sv.verify();
    sol
}

/// The same with only the reached positions solved (`Solver::reaching`).
fn verify_reached(rule_set: &str, wk: u32, bk: u32) -> RefSolution {
    let mut sv = Solver::reaching(&rules(rule_set), wk, bk);
    let sol = sv.solve_start(wk, bk);
    assert_eq!(sv.verify(), sol.len());
    sol
}

#[test]
fn verify_standard_3_3() {
    verify_start("standard", 3, 3);
}

#[test]
fn verify_lasker_3_3() {
    verify_start("lasker", 3, 3);
}

#[test]
fn verify_morabaraba_3_3() {
    verify_start("morabaraba", 3, 3);
}

#[test]
fn verify_twelve_3_3() {
    verify_start("twelve", 3, 3);
}

#[test]
fn verify_five_4_4() {
    verify_start("five", 4, 4);
}

#[test]
fn verify_six_3_3() {
    verify_start("six", 3, 3);
}

// About 25 s of CPU.
#[test]
#[ignore]
fn verify_five_whole_game() {
    let sol = verify_reached("five", 5, 5);
    eprintln!("five: start {:?}, {} positions", sol.start_value(), sol.len());
}

// About 1 to 2 minutes of CPU.
#[test]
#[ignore]
fn verify_six_whole_game() {
    let sol = verify_reached("six", 6, 6);
    eprintln!("six: start {:?}, {} positions", sol.start_value(), sol.len());
}

#[test]
fn verify_removal_strict() {
    verify_start("standard,removal=strict", 3, 3);
}

#[test]
fn verify_removal_lenient() {
    verify_start("standard,removal=lenient", 3, 3);
}

#[test]
fn verify_take_each() {
    verify_start("standard,take=each", 3, 3);
    // a double mill needs 5 stones: six with a stone in hand (see below)
    let s = solver("six,take=each");
    let mut sv = lock(&s);
    sv.solve_sector((4, 4, 1, 0));
    sv.verify();
}

#[test]
fn verify_flying_none() {
    verify_start("standard,flying=none", 3, 3);
}

#[test]
fn verify_full_board_draw_and_loss() {
    // Only 8 + 8 stones fill the six board; every position of that sector is
    // a full board, where nobody can move.
    for (fb, want) in [("draw", Draw), ("loss", Loss(0))] {
        let s = solver(&format!("six,stones=8,full-board={fb}"));
        let mut sv = lock(&s);
        sv.solve_sector((8, 8, 0, 0));
        assert_eq!(sv.verify(), 12_870);
        let sol = sv.solve_movement(8, 8);
        assert!(sol.iter().all(|(_, v)| v == want));
    }
}

// About 4 minutes of CPU: the whole game of six with 8 stones a side, the only
// stone count that can fill the board, under both rules; also the position
// one placement before a full board of `hand_full_six_board`, from the
// solved tables.
#[test]
#[ignore]
fn verify_full_board_whole_game() {
    for (fb, before) in [("draw", Draw), ("loss", Win(1))] {
        let name = format!("six,stones=8,full-board={fb}");
        let r = rules(&name);
        let mut sv = Solver::reaching(&r, 8, 8);
        let sol = sv.solve_start(8, 8);
        sv.verify();
        let p = pos(&r, "e5,e3,b4,c4,d3,c2,a1", "a5,d4,a3,b3,b2,d2,c1,e1", 1, 0);
        assert_eq!(sol.get(&p), Some(before), "{name}");
        eprintln!("{name}: start {:?}, {} positions", sol.start_value(), sol.len());
    }
}

// ---------------------------------------------------------------------------
// Positions worked out by hand
// ---------------------------------------------------------------------------

#[test]
fn hand_standard_mill_wins_at_once() {
    // White a1 d1 g4 against b6 d6 f4 (no mill), White to move: g4-g1 closes
    // a1-d1-g1, any stone may go, Black is left with 2: win in 1.
    let r = rules("standard");
    let p = pos(&r, "a1,d1,g4", "b6,d6,f4", 0, 0);
    assert!(wins_in_one(&r, &p));
    assert_eq!(value("standard", &p), Win(1));
}

#[test]
fn hand_strict_mill_removes_nothing() {
    // White a1 d1 g4 against a7 d7 g7, a mill. g4-g1 closes a1-d1-g1.
    // standard: every black stone is in a mill, so any may go: win in 1.
    // strict: no stone may go, the mill removes nothing, and it is still a
    // legal move: the child keeps all three black stones. No move can take
    // a stone while Black's mill stands, so it is no win in 1.
    let p = pos(&rules("standard"), "a1,d1,g4", "a7,d7,g7", 0, 0);
    assert_eq!(value("standard", &p), Win(1));
    let strict = rules("standard,removal=strict");
    let kids = children(&strict, &p);
    let after = strict.mask("a1,d1,g1");
    let mill_kids: Vec<&RawPos> = kids.iter().filter(|c| c.opp == after).collect();
    assert_eq!(mill_kids.len(), 1, "one child, nothing removed");
    assert_eq!(mill_kids[0].mover, strict.mask("a7,d7,g7"));
    assert!(!wins_in_one(&strict, &p));
    assert_ne!(value("standard,removal=strict", &p), Win(1));
    // the same mill against an opponent with no stone on the board (hands
    // only): a legal move that removes nothing
    let r = rules("six");
    let q = pos(&r, "a1,c1", "", 1, 3);
    let kids = children(&r, &q);
    assert!(kids.iter().any(|c| c.opp == r.mask("a1,c1,e1") && c.mover == 0 && c.mover_hand == 3));
}

#[test]
fn hand_lenient_removal_may_break_a_mill() {
    // Black a7 d7 g7 (a mill) and b4; White a1 d1 g4 closes a1-d1-g1 by g4-g1.
    // standard: only b4 may go (one child); strict: the same; lenient: any
    // of the four.
    let after = |r: &RefRules| {
        let p = pos(r, "a1,d1,g4", "a7,d7,g7,b4", 0, 0);
        let mill = r.mask("a1,d1,g1");
        let mut left: Vec<u32> = children(r, &p).iter().filter(|c| c.opp == mill).map(|c| c.mover).collect();
        left.sort();
        left
    };
    let r = rules("standard");
    assert_eq!(after(&r), vec![r.mask("a7,d7,g7")]);
    assert_eq!(after(&rules("standard,removal=strict")), vec![r.mask("a7,d7,g7")]);
    let mut all = vec![r.mask("d7,g7,b4"), r.mask("a7,g7,b4"), r.mask("a7,d7,b4"), r.mask("a7,d7,g7")];
    all.sort();
    assert_eq!(after(&rules("standard,removal=lenient")), all);
}

#[test]
fn hand_take_each_double_mill_wins_at_once() {
    // six: White c1 e1 a3 a5 and one stone in hand, Black b4 c4 d2 d3 (no
    // mill), none in hand. Placing on a1 closes a1-c1-e1 and a1-a3-a5.
    // take=each: two stones go, Black is left with 2: win in 1.
    // take=one: one stone goes and Black keeps 3; a1 is the only placement
    // that closes a mill, so there is no win in 1.
    let r = rules("six,take=each");
    let p = pos(&r, "c1,e1,a3,a5", "b4,c4,d2,d3", 1, 0);
    assert!(wins_in_one(&r, &p));
    assert_eq!(value("six,take=each", &p), Win(1));
    // two removals one after the other: C(4,2) sets of two, each reached in
    // both orders
    let mill2 = r.mask("a1,c1,e1,a3,a5");
    let doubles: Vec<RawPos> = children(&r, &p).into_iter().filter(|c| c.opp == mill2).collect();
    assert_eq!(doubles.len(), 12);
    assert!(doubles.iter().all(|c| c.mover.count_ones() == 2));
    let one = rules("six");
    assert!(!wins_in_one(&one, &p));
    assert_ne!(value("six", &p), Win(1));
}

#[test]
fn hand_blocked_three_stones_without_flying() {
    // White a1 a4 a7 against d1 b4 d7, White to move: a1's neighbours are d1
    // and a4, a4's a1, a7 and b4, a7's a4 and d7. Without flying every move
    // is blocked: loss at once. With flying White just flies.
    let r = rules("standard,flying=none");
    let p = pos(&r, "a1,a4,a7", "d1,b4,d7", 0, 0);
    assert!(children(&r, &p).is_empty());
    assert_eq!(value("standard,flying=none", &p), Loss(0));
    let f = rules("standard");
    assert_eq!(children(&f, &p).len(), 3 * 18);
    assert_ne!(value("standard", &p), Loss(0));
}

#[test]
fn hand_full_six_board() {
    // six with 8 stones each. White e5 e3 b4 c4 d3 c2 a1 and one stone in
    // hand, Black a5 d4 a3 b3 b2 d2 c1 e1; c5 is the only empty point.
    // White must place there; c5 lies only on a5-c5-e5 and a5 is Black's, so
    // no mill: the board is full with Black to move.
    for (fb, full_value, before) in [("draw", Draw, Draw), ("loss", Loss(0), Win(1))] {
        let name = format!("six,stones=8,full-board={fb}");
        let r = rules(&name);
        let p = pos(&r, "e5,e3,b4,c4,d3,c2,a1", "a5,d4,a3,b3,b2,d2,c1,e1", 1, 0);
        let kids = children(&r, &p);
        assert_eq!(kids.len(), 1);
        let full = kids[0];
        assert_eq!(full.mover | full.opp, r.full());
        // the full board: no move; a draw, or a loss at once
        assert_eq!(terminal_value(&r, &full), Some(full_value));
        assert!(children(&r, &full).is_empty());
        assert_eq!(value(&name, &full), full_value, "{name}");
        // The position before: its value from its one child by the game
        // equations (solving its sector takes the whole movement phase: see
        // verify_full_board_whole_game).
        assert_eq!(lock(&solver(&name)).expected(&p), before, "{name}");
    }
}

#[test]
fn hand_lasker_moves_with_stones_in_hand() {
    // Lasker: White b6 d6 on the board and one stone in hand (3 in all, so it
    // flies), Black a1 d1 g4 on the board (no mill). White may place on any
    // of the 19 empty points or fly either stone to one; without Lasker it
    // must place.
    let lasker = rules("lasker");
    let p = pos(&lasker, "b6,d6", "a1,d1,g4", 1, 0);
    let kids = children(&lasker, &p);
    let placed = kids.iter().filter(|c| c.opp_hand == 0).count();
    let moved = kids.iter().filter(|c| c.opp_hand == 1).count();
    // placing f6 closes b6-d6-f6 and takes one of 3 stones: 18 + 3 children
    assert_eq!(placed, 18 + 3);
    // flying b6 or d6 closes nothing (the other stone is left alone)
    assert_eq!(moved, 2 * 19);
    let standard = rules("standard");
    assert!(children(&standard, &p).iter().all(|c| c.opp_hand == 0));
    // placing f6 takes a stone from Black's 3: win in 1
    assert_eq!(value("lasker", &p), Win(1));
}

// ---------------------------------------------------------------------------
// Timing (not a test): RF_RULES=standard RF_STARTS="3-3 m3-4" ... -- --ignored timing
// ---------------------------------------------------------------------------

#[test]
#[ignore]
fn timing() {
    let name = std::env::var("RF_RULES").unwrap_or("standard".into());
    let starts = std::env::var("RF_STARTS").unwrap_or("3-3".into());
    // "3-4": solve_start; "m3-4": solve_movement; "w3-4": the start with
    // whole sectors (Solver::new), shared with the movement solves
    let r = rules(&name);
    let mut sv = Solver::new(&r);
    for st in starts.split(' ') {
        let t = std::time::Instant::now();
        let num = |x: &str| -> (u32, u32) {
            let (a, b) = x.split_once('-').unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        };
        let sol = if let Some(m) = st.strip_prefix('m') {
            let (a, b) = num(m);
            sv.solve_movement(a, b)
        } else if let Some(m) = st.strip_prefix('w') {
            let (a, b) = num(m);
            sv.solve_start(a, b)
        } else {
            let (a, b) = num(st);
            solve_start(&r, a, b)
        };
        let solved = t.elapsed().as_secs_f64();
        eprintln!("{name} {st}: {:?} in {solved:.1} s; {} positions ({:.1} s in all)", sol.start_value(), sol.len(), t.elapsed().as_secs_f64());
    }
}

// ---------------------------------------------------------------------------
// The ultra-strong solution (docs/ultra.md; reference_family/ultra.rs)
// ---------------------------------------------------------------------------

mod ultra_tests {
    use super::reference_family::index::{expand, masks_with};
    use super::reference_family::orbits::canonical;
    use super::reference_family::rules::apply_perm;
    use super::reference_family::solve::{mirror, sector_of, Sector};
    use super::reference_family::ultra::{self, Counts, DrawClasses, Frac, Symmetries, UnitGraph};
    use super::reference_family::*;
    use super::{lock, rules, solver};
    use rayon::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};
    use std::time::Instant;

    /// A small deterministic pseudo-random sequence (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    // -----------------------------------------------------------------------
    // Orbits and counts
    // -----------------------------------------------------------------------

    #[test]
    fn ultra_symmetry_tables_agree_with_apply_perm_and_canonical() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for name in ["standard", "morabaraba", "six"] {
            let r = rules(name);
            let g = r.geometry();
            let syms = Symmetries::new(&r);
            assert_eq!(syms.len(), 16);
            for _ in 0..20_000 {
                let a = rng.next() as u32 & r.full();
                let b = rng.next() as u32 & r.full() & !a;
                for (k, perm) in g.symmetries.iter().enumerate() {
                    assert_eq!(syms.image(k, a), apply_perm(perm, a));
                }
                let smallest = canonical(g, a, b) == ((a as u64) << 32 | b as u64);
                assert_eq!(syms.is_smallest(a, b), smallest, "{name}: {a:#x} {b:#x}");
            }
        }
    }

    #[test]
    fn ultra_whole_sector_counts_standard_3_3() {
        // published (docs/rules.md): 3-3 in orbits
        let s = solver("standard");
        let sol = lock(&s).solve_movement(3, 3);
        let c = ultra::sector_orbit_counts(&rules("standard"), &sol, (3, 3, 0, 0));
        assert_eq!(c, (140_621, 269, 28_736, 169_626));
    }

    #[test]
    fn ultra_sector_graph_standard_3_3() {
        // By hand: the placements alternate, White first; a mill can close
        // only with a third stone, and a capture then leaves the other side
        // with 2 stones: a finished game, not a sector.
        let r = rules("standard");
        let g = ultra::sector_graph(&r, 3, 3);
        let want: Vec<Sector> = vec![(0, 0, 3, 3), (0, 1, 3, 2), (1, 1, 2, 2), (1, 2, 2, 1), (2, 2, 1, 1), (2, 3, 1, 0), (3, 3, 0, 0)];
        assert_eq!(g.keys().copied().collect::<Vec<_>>(), want);
        assert_eq!(g[&(2, 3, 1, 0)], BTreeSet::from([(3, 3, 0, 0)]));
        assert_eq!(g[&(3, 3, 0, 0)], BTreeSet::from([(3, 3, 0, 0)]));
        // Five 3-4 (White 3, Black 4 on the six board): the sectors of every
        // reached position are in X, and X is closed under child sectors.
        let r = rules("five");
        let g = ultra::sector_graph(&r, 3, 4);
        let sol = solve_start(&r, 3, 4);
        let reached: BTreeSet<Sector> = sol.iter().map(|(p, _)| sector_of(&p)).collect();
        let xs: BTreeSet<Sector> = g.keys().copied().collect();
        assert!(reached.is_subset(&xs), "{:?}", reached.difference(&xs).collect::<Vec<_>>());
        for kids in g.values() {
            assert!(kids.is_subset(&xs));
            assert!(kids.iter().all(|&(s, _, sh, _)| s + sh >= 3));
        }
        assert!(xs.contains(&(3, 3, 0, 1)) && xs.contains(&(3, 3, 1, 0)), "the slide of 3-3 with Black's stone in hand");
    }

    // -----------------------------------------------------------------------
    // Scores and ranks
    // -----------------------------------------------------------------------

    /// a(x) in floating point, straight from docs/ultra.md (to cross-check
    /// the exact fractions where floating point can tell them apart).
    fn float_score(counts: &BTreeMap<Sector, Counts>, x: Sector) -> f64 {
        let (w, d, _, t) = counts[&x];
        let (w, d, t) = (w as f64, d as f64, t as f64);
        if x.2 == 0 && x.3 == 0 {
            let (_, d2, l2, t2) = counts.get(&mirror(x)).copied().unwrap_or_default();
            let (d2, l2, t2) = (d2 as f64, l2 as f64, t2 as f64);
            (w + l2 + d / 2.0 + d2 / 2.0) / (t + t2) - 0.5
        } else {
            let v = (w + d / 2.0) / t;
            match counts.get(&mirror(x)) {
                Some(&(w2, d2, _, t2)) => (v - (w2 as f64 + d2 as f64 / 2.0) / t2 as f64) / 2.0,
                None => v - 0.5,
            }
        }
    }

    #[test]
    fn ultra_scores_and_ranks_by_hand() {
        let counts: BTreeMap<Sector, Counts> = BTreeMap::from([
            // 3-3: W - L + L' - W' = 0
            ((3, 3, 0, 0), (5, 2, 5, 12)),
            // published counts (docs/rules.md), 3-4 and 4-3: a(3-4) = (W - L + L' - W') / (2 (T + T'))
            ((3, 4, 0, 0), (102_281, 658_117, 0, 760_398)),
            ((4, 3, 0, 0), (75_397, 681_906, 3_095, 760_398)),
            // placement with its mirror: v = 7/8 and 3/8, a = ±1/4
            ((1, 2, 2, 1), (3, 1, 0, 4)),
            ((2, 1, 1, 2), (1, 1, 2, 4)),
            // placement without its mirror: v = 1/2, a = 0; v = 3/4, a = 1/4
            ((0, 1, 3, 2), (1, 0, 1, 2)),
            ((1, 3, 2, 0), (3, 0, 1, 4)),
            // self-mirror placement
            ((2, 2, 1, 1), (7, 0, 1, 8)),
        ]);
        let a = ultra::sector_scores(&counts);
        assert_eq!(a[&(3, 3, 0, 0)], Frac::int(0));
        assert_eq!(a[&(3, 4, 0, 0)], Frac::new(102_281 + 3_095 - 75_397, 2 * 2 * 760_398));
        assert_eq!(a[&(4, 3, 0, 0)], Frac::new(-(102_281 + 3_095 - 75_397), 2 * 2 * 760_398));
        assert_eq!(a[&(1, 2, 2, 1)], Frac::new(1, 4));
        assert_eq!(a[&(2, 1, 1, 2)], Frac::new(-1, 4));
        assert_eq!(a[&(0, 1, 3, 2)], Frac::int(0));
        assert_eq!(a[&(1, 3, 2, 0)], Frac::new(1, 4));
        assert_eq!(a[&(2, 2, 1, 1)], Frac::int(0));
        for (&x, &f) in &a {
            assert!((f.to_f64() - float_score(&counts, x)).abs() < 1e-12, "{x:?}");
        }
        let ranks = ultra::sector_ranks(&counts);
        let want = BTreeMap::from([
            ((3, 3, 0, 0), 0),
            ((3, 4, 0, 0), 1),
            ((4, 3, 0, 0), -1),
            ((1, 2, 2, 1), 2),
            ((2, 1, 1, 2), -2),
            ((0, 1, 3, 2), 0),
            ((1, 3, 2, 0), 2),
            ((2, 2, 1, 1), 0),
        ]);
        assert_eq!(ranks, want);
        // exact comparison where floating point would round: 1/3 and
        // 1/3 + 1/10^30 differ, and are ranked apart
        let big = 10i128.pow(30);
        assert!(Frac::new(big + 3, 3 * big) > Frac::new(1, 3));
        assert_eq!(Frac::new(2, -6), Frac::new(-1, 3));
    }

    /// Ranks of a start: antisymmetric (a sector and its mirror ±k, a
    /// self-mirror sector 0), dense (1..K all used), ordered as the scores
    /// computed in floating point wherever those differ clearly.
    fn check_ranks(counts: &BTreeMap<Sector, Counts>, ranks: &BTreeMap<Sector, i32>) {
        assert!(counts.keys().eq(ranks.keys()));
        for (&x, &r) in ranks {
            if mirror(x) == x {
                assert_eq!(r, 0, "{x:?} is its own mirror");
            }
            if let Some(&r2) = ranks.get(&mirror(x)) {
                assert_eq!(r2, -r, "{x:?} and its mirror");
            }
            let f = float_score(counts, x);
            if f.abs() > 1e-12 {
                assert_eq!(r.signum() as f64, f.signum(), "{x:?}: rank {r}, score {f}");
            }
        }
        let k = ranks.values().map(|r| r.abs()).max().unwrap_or(0);
        let used: BTreeSet<i32> = ranks.values().map(|r| r.abs()).filter(|&r| r > 0).collect();
        assert_eq!(used, (1..=k).collect(), "ranks are dense");
        for (&x, &rx) in ranks {
            for (&y, &ry) in ranks {
                let (fx, fy) = (float_score(counts, x).abs(), float_score(counts, y).abs());
                if fx < fy - 1e-12 {
                    assert!(rx.abs() < ry.abs(), "{x:?} {fx} rank {rx}, {y:?} {fy} rank {ry}");
                }
            }
        }
    }

    // -----------------------------------------------------------------------
    // The game of a unit: hand-made graphs and brute force
    // -----------------------------------------------------------------------

    type Node = (i32, Option<i32>, bool, Vec<u32>);

    fn solve_graph(nodes: &[Node]) -> (Vec<i32>, Vec<Option<u32>>) {
        let g = UnitGraph::from_nodes(nodes);
        let c = ultra::unit_classes(&g);
        let d = ultra::unit_depths(&g, &c);
        check_graph(nodes, &c, &d);
        (c, d)
    }

    /// The local equations: the class is the best payoff over the moves
    /// (`u` for a terminal draw); no depth iff class = u; the depth is 1 +
    /// min (favoured) or 1 + max (other side) over the class-keeping moves,
    /// an exit counting 0.
    fn check_graph(nodes: &[Node], c: &[i32], d: &[Option<u32>]) {
        for (p, (u, exit, term, moves)) in nodes.iter().enumerate() {
            if *term {
                assert_eq!((c[p], d[p]), (*u, None), "terminal {p}");
                continue;
            }
            let best = moves.iter().map(|&q| -c[q as usize]).chain(*exit).max();
            assert_eq!(best, Some(c[p]), "node {p}: class is the best move");
            assert_eq!(d[p].is_none(), c[p] == *u, "node {p}: depth iff class != u");
            if let Some(dp) = d[p] {
                let mut keep: Vec<u32> = moves.iter().filter(|&&q| -c[q as usize] == c[p]).map(|&q| d[q as usize].expect("class-keeping move without depth")).collect();
                if *exit == Some(c[p]) {
                    keep.push(0);
                }
                let want = if c[p] > *u { keep.iter().min() } else { keep.iter().max() };
                assert_eq!(Some(dp), want.map(|k| k + 1), "node {p}: depth");
            }
        }
    }

    #[test]
    fn ultra_unit_games_by_hand() {
        // Two sectors of rank ±2 passing a position back and forth, no exit:
        // both stay, each at its own u.
        let (c, d) = solve_graph(&[(2, None, false, vec![1]), (-2, None, false, vec![0])]);
        assert_eq!((c, d), (vec![2, -2], vec![None, None]));

        // n0 may leave with payoff 1 (above u = 0); n1 can only go to n0.
        let (c, d) = solve_graph(&[(0, Some(1), false, vec![1]), (0, None, false, vec![0])]);
        assert_eq!((c, d), (vec![1, -1], vec![Some(1), Some(2)]));

        // Staying beats a bad exit: n0 leaves at 1; n1 may go to n0 (-1) or
        // to n2, which can only come back: n1 and n2 stay at u = 0.
        let (c, d) = solve_graph(&[(0, Some(1), false, vec![1]), (0, None, false, vec![0, 2]), (0, None, false, vec![1])]);
        assert_eq!((c, d), (vec![1, 0, 0], vec![Some(1), None, None]));

        // Forcing over several plies, the other side delaying:
        // n0 -> n1; n1 -> n2 (exit 1 at once) or n3; n3 -> n4 -> n5 (exit 1,
        // or back to n0). n1 delays by n3: depth 1 + max(1, 3) = 4.
        let nodes: Vec<Node> = vec![
            (0, None, false, vec![1]),
            (0, None, false, vec![2, 3]),
            (0, Some(1), false, vec![]),
            (0, None, false, vec![4]),
            (0, None, false, vec![5]),
            (0, Some(1), false, vec![0]),
        ];
        let (c, d) = solve_graph(&nodes);
        assert_eq!(c, vec![1, -1, 1, 1, -1, 1]);
        assert_eq!(d, vec![Some(5), Some(4), Some(1), Some(3), Some(2), Some(1)]);

        // Below u: n0 (u = 2) leaves at 1 or passes to n1 (u = -2), whose
        // side leaves at 0 rather than stay at -2: so n0 gets 1 < u, the
        // opponent favoured, depth 1; n1 gets 0 > u, depth 1.
        let (c, d) = solve_graph(&[(2, Some(1), false, vec![1]), (-2, Some(0), false, vec![0])]);
        assert_eq!((c, d), (vec![1, 0], vec![Some(1), Some(1)]));

        // A threshold t <= u: n0 (u = 1) can stay by n1, but n1's side
        // (u = -1) may instead go to n2, where n0's side must leave at -3.
        // n1 prefers that (3 > -1): n0 gets -3... unless it leaves itself at
        // -2: class -2, depth 1 (n0 unfavoured, its max over {exit}).
        let nodes: Vec<Node> = vec![(1, Some(-2), false, vec![1]), (-1, None, false, vec![0, 2]), (1, Some(-3), false, vec![])];
        let (c, d) = solve_graph(&nodes);
        assert_eq!(c, vec![-2, 3, -3]);
        assert_eq!(d, vec![Some(1), Some(2), Some(1)]);

        // A terminal draw pays u; the move into it (within the unit) keeps u.
        let (c, d) = solve_graph(&[(0, None, true, vec![]), (0, Some(-1), false, vec![0])]);
        assert_eq!((c, d), (vec![0, 0], vec![None, None]));
    }

    /// The value of the unit game for the side to move at `start`, by brute
    /// force: the best over the positional strategies of that side of the
    /// worst over the other's (such games have optimal positional
    /// strategies). States are (node, who moves: 0 = the side to move at
    /// `start`); a strategy picks a move (an edge, or the exit as `None`)
    /// in each state of its side. A play that repeats a state stays forever
    /// and pays u(start).
    fn brute_value(nodes: &[Node], start: usize) -> i32 {
        let n = nodes.len();
        let choices: Vec<Vec<Option<u32>>> = nodes.iter().map(|(_, e, _, m)| m.iter().map(|&q| Some(q)).chain(e.map(|_| None)).collect()).collect();
        // every positional strategy: a choice number per node (terminal
        // nodes have none; they get a dummy 0)
        let mut strategies: Vec<Vec<usize>> = vec![vec![]];
        for ch in &choices {
            let k = ch.len().max(1);
            strategies = strategies.into_iter().flat_map(|v| (0..k).map(move |i| [v.clone(), vec![i]].concat())).collect();
        }
        let play = |me: &[usize], them: &[usize]| -> i32 {
            let mut seen = vec![[false; 2]; n];
            let (mut v, mut side) = (start, 0usize);
            loop {
                if seen[v][side] {
                    return nodes[start].0;
                }
                seen[v][side] = true;
                let sign = if side == 0 { 1 } else { -1 };
                let (u, exit, term, _) = &nodes[v];
                if *term {
                    return sign * u;
                }
                let pick = if side == 0 { me[v] } else { them[v] };
                match choices[v][pick] {
                    None => return sign * exit.unwrap(),
                    Some(q) => {
                        v = q as usize;
                        side = 1 - side;
                    }
                }
            }
        };
        strategies.iter().map(|me| strategies.iter().map(|them| play(me, them)).min().unwrap()).max().unwrap()
    }

    /// A random unit game: either two sectors of ranks ±k with moves only
    /// between them, or one self-mirror sector (u = 0) with any moves.
    fn random_graph(rng: &mut Rng) -> Vec<Node> {
        let n = 2 + rng.below(4) as usize;
        let pair = rng.below(2) == 0;
        let k = rng.below(3) as i32;
        let side = |p: usize| p % 2;
        (0..n)
            .map(|p| {
                let u = if pair {
                    if side(p) == 0 {
                        k
                    } else {
                        -k
                    }
                } else {
                    0
                };
                let mut moves = Vec::new();
                for _ in 0..rng.below(3) {
                    let q = rng.below(n as u64) as usize;
                    if !pair || side(q) != side(p) {
                        moves.push(q as u32);
                    }
                }
                let mut exit = (rng.below(2) == 0).then(|| rng.below(5) as i32 - 2);
                let mut term = false;
                if moves.is_empty() && exit.is_none() {
                    if rng.below(2) == 0 {
                        term = true;
                    } else {
                        exit = Some(rng.below(5) as i32 - 2);
                    }
                }
                (u, exit, term, moves)
            })
            .collect()
    }

    #[test]
    fn ultra_unit_games_against_brute_force() {
        let mut rng = Rng(12345);
        let mut nontrivial = 0;
        for _ in 0..1500 {
            let nodes = random_graph(&mut rng);
            let (c, _) = solve_graph(&nodes);
            for p in 0..nodes.len() {
                assert_eq!(c[p], brute_value(&nodes, p), "node {p} of {nodes:?}");
                if !nodes[p].2 && c[p] != nodes[p].0 {
                    nontrivial += 1;
                }
            }
        }
        assert!(nontrivial > 1000, "too few classes off u: {nontrivial}");
    }

    // -----------------------------------------------------------------------
    // Whole starts
    // -----------------------------------------------------------------------

    /// Every position of every sector of X: a class iff it is drawn; for a
    /// drawn one, the local equations of `check_graph` on its real moves
    /// (the class is the best payoff `-c(q)` over its drawing moves, a
    /// terminal draw gets u, a depth iff class != u, the depth 1 + min or
    /// 1 + max over the class-keeping moves, an exit counting 0), and the
    /// same class and depth at all 16 images. With finite depths these
    /// equations pin the classes and depths down (the favoured side forces a
    /// class-keeping exit along falling depths; the other side keeps the
    /// class or does better, and play that stays pays u). Returns the number
    /// of drawn positions.
    fn check_classes(r: &RefRules, sol: &RefSolution, ranks: &BTreeMap<Sector, i32>, dc: &DrawClasses, symmetric: bool) -> u64 {
        let xs: BTreeSet<Sector> = ranks.keys().copied().collect();
        assert_eq!(dc.sectors(), xs.iter().copied().collect::<Vec<_>>());
        let syms = Symmetries::new(r);
        let n = r.points() as u32;
        let mut drawn = 0;
        for &x in &xs {
            let (s, o, sh, oh) = x;
            let u = ranks[&x];
            let unit = ultra::unit_of(r, x, &xs);
            let minors = masks_with(n - s, o);
            drawn += masks_with(n, s)
                .par_iter()
                .map(|&m| {
                    let mut drawn = 0u64;
                    for &mc in &minors {
                        let p = RawPos { mover: m, opp: expand(mc, r.full() & !m), mover_hand: sh, opp_hand: oh };
                        let v = sol.sector_value(&p).unwrap();
                        let got = dc.get(&p);
                        assert_eq!(got.is_some(), v == RefValue::Draw, "{x:?} {p:?}: a class iff drawn");
                        let Some((c, d)) = got else { continue };
                        drawn += 1;
                        if symmetric {
                            for k in 0..syms.len() {
                                assert_eq!(dc.get(&syms.image_pos(k, &p)), got, "{p:?}: symmetry {k}");
                            }
                        }
                        if terminal_value(r, &p) == Some(RefValue::Draw) {
                            assert_eq!((c, d), (u, None), "{p:?}: terminal draw");
                            continue;
                        }
                        let mut best = None;
                        let mut keep = Vec::new();
                        for q in children(r, &p) {
                            let Some((cq, dq)) = dc.get(&q) else { continue };
                            best = best.max(Some(-cq));
                            if -cq == c {
                                if unit.contains(&sector_of(&q)) {
                                    keep.push(dq);
                                } else {
                                    keep.push(Some(0));
                                }
                            }
                        }
                        assert_eq!(best, Some(c), "{p:?}: class is the best drawing move");
                        assert_eq!(d.is_none(), c == u, "{p:?}: a depth iff class != u");
                        if let Some(d) = d {
                            let keep: Vec<u32> = keep.into_iter().map(|k| k.expect("class-keeping move without depth")).collect();
                            let want = if c > u { keep.iter().min() } else { keep.iter().max() };
                            assert_eq!(Some(d), want.map(|k| k + 1), "{p:?}: depth");
                        }
                    }
                    drawn
                })
                .sum::<u64>();
        }
        drawn
    }

    /// Draws in orbits, by class.
    fn orbit_classes(r: &RefRules, dc: &DrawClasses) -> BTreeMap<i32, u64> {
        let syms = Symmetries::new(r);
        let mut h = BTreeMap::new();
        for (p, c, _) in dc.iter() {
            if syms.is_smallest(p.mover, p.opp) {
                *h.entry(c).or_insert(0) += 1;
            }
        }
        h
    }

    fn report(name: &str, wk: u32, bk: u32, r: &RefRules, ranks: &BTreeMap<Sector, i32>, dc: &DrawClasses) {
        eprintln!("ultra {name} {wk}-{bk}: ranks (sector rank):");
        for (x, k) in ranks {
            eprintln!("  {}-{}-{}-{} {k}", x.0, x.1, x.2, x.3);
        }
        eprintln!("  draws by class, raw: {:?}", dc.class_histogram());
        eprintln!("  draws by class, orbits: {:?}", orbit_classes(r, dc));
        let deep: BTreeMap<i32, u32> = dc.depth_histogram().keys().filter_map(|&(c, d)| Some((c, d?))).fold(BTreeMap::new(), |mut m, (c, d)| {
            let e = m.entry(c).or_insert(0);
            *e = (*e).max(d);
            m
        });
        eprintln!("  deepest depth by class: {deep:?}");
    }

    /// Solves a start's ultra-strong solution and checks all of it.
    fn ultra_start(name: &str, wk: u32, bk: u32) -> (RefSolution, BTreeMap<Sector, i32>, DrawClasses) {
        let r = rules(name);
        let t0 = Instant::now();
        let sol = Solver::new(&r).solve_start(wk, bk);
        let counts = ultra::sector_counts(&r, &sol);
        let ranks = ultra::sector_ranks(&counts);
        let dc = ultra::draw_classes(&r, &sol, &ranks);
        let took = t0.elapsed().as_secs_f64();
        check_ranks(&counts, &ranks);
        let drawn = check_classes(&r, &sol, &ranks, &dc, true);
        assert_eq!(drawn as usize, dc.len());
        // every reached draw has a class (reached positions lie in X)
        for (p, v) in sol.iter() {
            assert_eq!(dc.get(&p).is_some(), v == RefValue::Draw, "{p:?}");
        }
        report(name, wk, bk, &r, &ranks, &dc);
        eprintln!("  {drawn} drawn positions, solved in {took:.1} s, checked in {:.1} s", t0.elapsed().as_secs_f64() - took);
        (sol, ranks, dc)
    }

    #[test]
    fn ultra_standard_3_3() {
        let (sol, ranks, dc) = ultra_start("standard", 3, 3);
        // Ranks: the self-mirror sectors 0; the sectors with Black to move
        // (no mirror in X) their own signs.
        for x in [(0, 0, 3, 3), (1, 1, 2, 2), (2, 2, 1, 1), (3, 3, 0, 0)] {
            assert_eq!(ranks[&x], 0);
        }
        // 3-3 movement: captures end the game, so no draw leaves its unit:
        // every draw there stays at u = 0.
        for (p, c, d) in dc.iter() {
            if sector_of(&p) == (3, 3, 0, 0) {
                assert_eq!((c, d), (0, None));
            }
        }
        assert_eq!(sol.start_value(), Some(RefValue::Win(23)));
    }

    #[test]
    fn ultra_lasker_3_3() {
        // Lasker: placement sectors pair with their mirrors in cyclic units.
        let (_, ranks, dc) = ultra_start("lasker", 3, 3);
        assert!(dc.units.iter().any(|u| u.len() == 2 && (u[0].2 > 0 || u[0].3 > 0)), "a placement unit of two sectors");
        assert!(ranks.values().any(|&k| k != 0));
    }

    #[test]
    fn ultra_six_4_4() {
        let (_, _, dc) = ultra_start("six", 4, 4);
        assert!(dc.depth_histogram().keys().any(|&(_, d)| d.is_some()), "some draw leaves its unit by class");
    }

    #[test]
    fn ultra_six_lasker_4_4() {
        // Rich: many classes, depths over 10 plies, cyclic placement units.
        let (_, _, dc) = ultra_start("six,lasker=yes", 4, 4);
        assert!(dc.class_histogram().len() >= 5, "{:?}", dc.class_histogram());
        assert!(dc.depth_histogram().keys().any(|&(_, d)| d.is_some_and(|d| d > 10)));
    }

    #[test]
    fn ultra_five_3_4_asymmetric() {
        // White 3, Black 4: sectors (s, o, 0, k) whose slides lead into
        // (o, s, k, 0), units apart (play never passes back).
        let (_, _, dc) = ultra_start("five", 3, 4);
        assert!(dc.units.contains(&vec![(3, 3, 0, 1)]) && dc.units.contains(&vec![(3, 3, 1, 0)]));
        let a = dc.units.iter().position(|u| u == &vec![(3, 3, 1, 0)]).unwrap();
        let b = dc.units.iter().position(|u| u == &vec![(3, 3, 0, 1)]).unwrap();
        assert!(a < b, "the unit a slide leads into comes first");
    }

    // About 5 minutes of CPU (2 cores) and 5.5 GB: the standard 4-4 start
    // (the 4-4 movement sector alone has 51 million raw positions, nearly
    // all drawn), then 2 minutes for the check. Prints the ranks and the
    // class distribution for a human to eyeball.
    #[test]
    #[ignore]
    fn ultra_standard_4_4() {
        let r = rules("standard");
        let t0 = Instant::now();
        let sol = Solver::new(&r).solve_start(4, 4);
        let counts = ultra::sector_counts(&r, &sol);
        // published (docs/rules.md, Gasser): the movement sectors in orbits
        assert_eq!(counts[&(3, 4, 0, 0)], (102_281, 658_117, 0, 760_398));
        assert_eq!(counts[&(4, 3, 0, 0)], (75_397, 681_906, 3_095, 760_398));
        assert_eq!(counts[&(4, 4, 0, 0)], (159, 3_225_409, 29, 3_225_597));
        let ranks = ultra::sector_ranks(&counts);
        check_ranks(&counts, &ranks);
        let dc = ultra::draw_classes(&r, &sol, &ranks);
        eprintln!("standard 4-4: ultra-strong solution in {:.1} s", t0.elapsed().as_secs_f64());
        assert_eq!(sol.start_value(), Some(RefValue::Draw));
        report("standard", 4, 4, &r, &ranks, &dc);
        eprintln!("  by (class, depth): {:?}", dc.depth_histogram());
        let t1 = Instant::now();
        let drawn = check_classes(&r, &sol, &ranks, &dc, false);
        eprintln!("  {drawn} drawn positions checked in {:.1} s", t1.elapsed().as_secs_f64());
        // the start: a draw of class 0 (4-4 is self-mirror)
        assert_eq!(dc.get(&sol.start().unwrap()), Some((0, None)));
    }
}
