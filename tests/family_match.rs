//! The fast engine agrees with the plain family reference (tests/reference_family,
//! written from RULES.md and VARIANTS.md alone by a separate author: raw positions, no
//! symmetry, forward value iteration) on every raw position of small movement
//! subspaces, value and depth alike, under every named rule set of the 24-point boards
//! and each rule option.
//!
//! `cargo test --release --test family_match -- --include-ignored` adds the larger
//! subspaces (3-4 and 4-3 under every rule set, 4-4 under some).

mod reference_family;

use morris::solver::{solve_unit_in, NoProgress};
use morris::{Rules, Subspace, Unit, Value};
use reference_family::{RefRules, RefValue, Solver};
use std::collections::HashMap;

/// The engine's tables of every subspace with `s + o <= max_total` under `rules`.
fn engine(rules: &Rules, max_total: u8) -> HashMap<Subspace, Vec<u8>> {
    let game = rules.game();
    let mut solved = HashMap::new();
    for unit in Unit::all_in_order_up_to(rules.stones).into_iter().filter(|u| u.total() <= max_total) {
        for (sub, values) in solve_unit_in(game, unit, &solved, &NoProgress) {
            solved.insert(sub, values);
        }
    }
    solved
}

/// Reading-order bits (the notation's order, the reference's) to the engine's points.
fn to_engine(rules: &Rules, mask: u32) -> u32 {
    let geo = rules.board.geometry();
    (0..geo.points).filter(|i| mask >> i & 1 != 0).map(|i| 1u32 << geo.reading[i]).sum()
}

fn compare(rule_set: &str, pairs: &[(u8, u8)]) {
    let rules: Rules = rule_set.parse().unwrap();
    let max_total = pairs.iter().map(|&(s, o)| s + o).max().unwrap();
    let tables = engine(&rules, max_total);
    let mut reference = Solver::new(&RefRules::parse(rule_set).unwrap());
    let (mut draws, mut checked) = (0u64, 0u64);
    for &(s, o) in pairs {
        let sub = Subspace::new(s, o).unwrap();
        let idx = morris::index::SubspaceIndex::new(sub);
        let values = &tables[&sub];
        let sol = reference.solve_movement(s as u32, o as u32);
        let mut n = 0u64;
        for (p, rv) in sol.iter() {
            let (m, op) = (to_engine(&rules, p.mover), to_engine(&rules, p.opp));
            let got = Value::decode(values[idx.index(m, op) as usize]);
            let want = match rv {
                RefValue::Win(d) => Value::Win(d as u16),
                RefValue::Loss(d) => Value::Loss(d as u16),
                RefValue::Draw => Value::Draw,
            };
            assert_eq!(got, want, "{rule_set} {sub}: mover {:06x} opponent {:06x} (reading-order bits)", p.mover, p.opp);
            draws += (want == Value::Draw) as u64;
            n += 1;
        }
        assert!(n > 0, "{rule_set} {sub}: the reference gave no positions");
        checked += n;
        eprintln!("{rule_set} {sub}: {n} raw positions agree");
    }
    eprintln!("{rule_set}: {checked} raw positions, {draws} draws");
}

#[test]
fn standard_3_3() {
    compare("standard", &[(3, 3)]);
}

#[test]
fn morabaraba_3_3() {
    compare("morabaraba", &[(3, 3)]);
}

#[test]
fn twelve_3_3() {
    compare("twelve", &[(3, 3)]);
}

#[test]
fn lasker_3_3() {
    compare("lasker", &[(3, 3)]);
}

#[test]
fn removal_strict_3_3() {
    compare("standard,removal=strict", &[(3, 3)]);
}

#[test]
fn removal_lenient_3_3() {
    compare("standard,removal=lenient", &[(3, 3)]);
}

#[test]
fn take_each_3_3() {
    compare("standard,take=each", &[(3, 3)]);
}

#[test]
fn flying_none_3_3() {
    compare("standard,flying=none", &[(3, 3)]);
}

#[test]
fn morabaraba_take_each_strict_3_3() {
    compare("morabaraba,take=each,removal=strict", &[(3, 3)]);
}

/// VARIANTS.md: Morabaraba's 3-3 movement subspace has no draws at all. Counted by the
/// engine over the orbits of its own table, independently of the reference.
#[test]
fn morabaraba_3_3_has_no_draws() {
    let rules: Rules = "morabaraba".parse().unwrap();
    let tables = engine(&rules, 6);
    let sub = Subspace::new(3, 3).unwrap();
    let stats = morris::Stats::of(&morris::index::SubspaceIndex::new(sub), &tables[&sub]);
    assert_eq!(stats.positions, 169_626, "the orbit count of 3-3");
    assert_eq!(stats.draws, 0, "{stats:?}");
    assert!(stats.wins > 0 && stats.losses > 0);
    // The standard 3-3 has 269 drawn orbits (Gasser): the diagonals remove them all.
    let standard = engine(&Rules::STANDARD, 6);
    assert_eq!(morris::Stats::of(&morris::index::SubspaceIndex::new(sub), &standard[&sub]).draws, 269);
}

#[test]
#[ignore = "minutes: the reference solves 12 million raw positions per rule set"]
fn every_rule_set_3_4_and_4_3() {
    for rule_set in [
        "standard",
        "morabaraba",
        "twelve",
        "standard,removal=strict",
        "standard,removal=lenient",
        "standard,take=each",
        "standard,flying=none",
        "morabaraba,take=each,removal=strict",
    ] {
        compare(rule_set, &[(3, 4), (4, 3)]);
    }
}
