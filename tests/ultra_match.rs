//! The engine's ultra-strong solution equals the plain reference's
//! (`tests/reference_family/ultra.rs`, written from docs/ultra.md by a separate author:
//! raw positions, no symmetry, attractors by synchronous rounds) on every raw position
//! of small starts: the sectors `X`, their ranks, and the class and depth of every draw.
//!
//! `cargo test --release --test ultra_match -- --include-ignored` adds the standard 4-4
//! start (the 3-3, 3-4, 4-3 and 4-4 movement sectors among its 28 sectors; about 6 min
//! and 5.5 GB, nearly all of it the reference).

#[path = "common/ultra.rs"]
mod common_ultra;
#[allow(unused_imports)] // the shared oracle exports more than this test uses
mod reference_family;

use common_ultra::classed;
use morris::rules::Rules;
use morris::solve::ultra::classes::NO_CLASS;
use morris::Sector;
use reference_family::ultra::{solve_ultra, Symmetries};
use reference_family::RefRules;
use std::collections::BTreeMap;

/// Reading-order bits (the notation's order, the reference's) to the engine's points.
fn to_engine(rules: &Rules, mask: u32) -> u32 {
    let geo = rules.board().geometry();
    (0..geo.points()).filter(|i| mask >> i & 1 != 0).map(|i| 1u32 << geo.reading()[i]).sum()
}

fn sector(x: (u32, u32, u32, u32)) -> Sector {
    Sector::new(x.0 as u8, x.1 as u8, x.2 as u8, x.3 as u8).unwrap()
}

/// Every raw drawn position of the reference against the engine's slot, and the
/// engine's drawn slots (positions up to symmetry) against the reference's orbits.
fn compare(rule_set: &str, wk: u8, bk: u8) {
    let rules: Rules = rule_set.parse().unwrap();
    let r = RefRules::parse(rule_set).unwrap();
    let (_, values, mem) = classed(rule_set, wk, bk);
    let (_, ranks, dc) = solve_ultra(&r, wk as u32, bk as u32);

    // The same sectors X, ranked alike.
    let want: BTreeMap<Sector, i32> = ranks.iter().map(|(&x, &k)| (sector(x), k)).collect();
    let got: BTreeMap<Sector, i32> = values.iter().collect();
    assert_eq!(got, want, "{rule_set} {wk}-{bk}: sector ranks");
    let mut xs: Vec<Sector> = dc.sectors().into_iter().map(sector).collect();
    xs.sort();
    assert_eq!(xs, want.keys().copied().collect::<Vec<_>>(), "{rule_set} {wk}-{bk}: classed sectors");

    // Every raw draw of the reference: the engine's class and depth at its slot.
    let syms = Symmetries::new(&r);
    let (mut raw, mut orbits, mut deep) = (0u64, BTreeMap::<Sector, u64>::new(), 0u64);
    for (p, class, depth) in dc.iter() {
        let x = Sector::new(p.mover.count_ones() as u8, p.opp.count_ones() as u8, p.mover_hand as u8, p.opp_hand as u8).unwrap();
        let slot = x.index(rules.board()).index(to_engine(&rules, p.mover), to_engine(&rules, p.opp)) as usize;
        let cl = &mem.classes[&x];
        let got = (cl.class[slot] as i32, (cl.depth[slot] != 0).then_some(cl.depth[slot] as u32));
        assert_eq!(got, (class, depth), "{rule_set} {wk}-{bk} {x}: mover {:06x} opponent {:06x} (reading-order bits)", p.mover, p.opp);
        raw += 1;
        deep += depth.is_some() as u64;
        if syms.is_smallest(p.mover, p.opp) {
            *orbits.entry(x).or_default() += 1;
        }
    }
    // No engine draw the reference lacks: as many drawn slots as drawn orbits.
    for (x, cl) in &mem.classes {
        let index = x.index(rules.board());
        let drawn = (0..index.len()).filter(|&i| cl.class[i as usize] != NO_CLASS && !index.is_hole(i)).count() as u64;
        assert_eq!(drawn, orbits.get(x).copied().unwrap_or(0), "{rule_set} {wk}-{bk} {x}: drawn positions up to symmetry");
    }
    eprintln!("{rule_set} {wk}-{bk}: {} sectors, {raw} raw draws equal ({deep} with a depth)", want.len());
    if rule_set != "morabaraba" {
        assert!(raw > 0, "a start with draws");
    }
}

#[test]
fn standard_3_3() {
    compare("standard", 3, 3);
}

#[test]
fn standard_3_4_asymmetric() {
    compare("standard", 3, 4);
}

#[test]
fn lasker_3_3() {
    compare("lasker", 3, 3);
}

/// Published (docs/rules.md): Morabaraba's 3-3 has no draws; the ranks and sectors still match.
#[test]
fn morabaraba_3_3() {
    compare("morabaraba", 3, 3);
}

#[test]
fn six_4_4() {
    compare("six", 4, 4);
}

#[test]
fn six_lasker_4_4() {
    compare("six,lasker=yes", 4, 4);
}

#[test]
fn five_3_4() {
    compare("five", 3, 4);
}

#[test]
fn options_on_standard_3_3() {
    for rules in ["standard,take=each", "standard,removal=strict", "standard,removal=lenient", "standard,flying=none", "standard,full-board=draw"] {
        compare(rules, 3, 3);
    }
}

#[test]
fn options_on_six_4_4() {
    for rules in ["six,take=each", "six,removal=strict", "six,removal=lenient", "six,flying=none"] {
        compare(rules, 4, 4);
    }
}

// About 6 minutes and 5.5 GB, nearly all of it the reference.
#[test]
#[ignore]
fn standard_4_4() {
    compare("standard", 4, 4);
}
