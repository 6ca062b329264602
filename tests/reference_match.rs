//! The fast engine agrees with the plain reference solver (tests/reference, written
//! from the rules alone, now docs/rules.md: raw positions, no symmetry, value iteration) on every raw
//! position of 3-3, 3-4, 4-3, 4-4, 5-3 and 3-5, value and depth alike.

mod reference;

use morris::position::index::SubspaceIndex;
use morris::rules::Board;
use morris::solve::{solve_unit, DeepValues};
use morris::NoProgress;
use morris::{Subspace, Unit, Value};
use reference::{RefSolver, RefValue};
use std::collections::HashMap;
use std::sync::OnceLock;

fn fast() -> &'static HashMap<Subspace, Vec<u8>> {
    static SOLVED: OnceLock<HashMap<Subspace, Vec<u8>>> = OnceLock::new();
    SOLVED.get_or_init(|| {
        let mut solved = HashMap::new();
        for unit in Unit::all_in_order().into_iter().filter(|u| u.total() <= 8) {
            for s in solve_unit(morris::rules::game::Game::standard(), &unit.sectors(), &solved, &NoProgress, DeepValues::Refuse).expect("the values fit the encoding") {
                solved.insert(s.sector.subspace().unwrap(), s.values);
            }
        }
        solved
    })
}

/// Reading-order bits (the notation's order) to the engine's bitboards.
fn to_engine(mask: u32) -> u32 {
    let mut out = 0;
    for (i, &p) in Board::Nine.geometry().reading().iter().enumerate() {
        if mask >> i & 1 != 0 {
            out |= 1 << p;
        }
    }
    out
}

fn compare(pairs: &[(u32, u32)]) {
    let mut reference = RefSolver::new();
    for &(s, o) in pairs {
        let sub = Subspace::new(s as u8, o as u8).unwrap();
        let idx = SubspaceIndex::new(Board::Nine, sub.s, sub.o);
        let values = &fast()[&sub];
        let table = reference.solve(s, o);
        let mut checked = 0u64;
        for (m, op, rv) in table.iter() {
            let got = Value::decode(values[idx.index(to_engine(m), to_engine(op)) as usize]);
            let want = match rv {
                RefValue::Win(d) => Value::Win(d),
                RefValue::Loss(d) => Value::Loss(d),
                RefValue::Draw => Value::Draw,
            };
            assert_eq!(got, want, "{sub}: mover {:06x} opponent {:06x} (reading-order bits)", m, op);
            checked += 1;
        }
        assert_eq!(checked as usize, table.len());
        eprintln!("{sub}: {checked} raw positions agree");
    }
}

#[test]
fn agrees_on_3_3() {
    compare(&[(3, 3)]);
}

#[test]
fn agrees_on_3_4_and_4_3() {
    compare(&[(3, 4), (4, 3)]);
}

#[test]
fn agrees_on_4_4() {
    compare(&[(4, 4)]);
}

#[test]
fn agrees_on_5_3_and_3_5() {
    compare(&[(5, 3), (3, 5)]);
}
