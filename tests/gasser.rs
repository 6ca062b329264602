//! The solver reproduces the published movement-phase figures (REFERENCES.md).

use morris::index::SubspaceIndex;
use morris::solver::{solve_unit, NoProgress, Stats};
use morris::{Subspace, Unit};
use std::collections::HashMap;

fn solve_upto(max_total: u8) -> HashMap<Subspace, Vec<u8>> {
    let mut solved: HashMap<Subspace, Vec<u8>> = HashMap::new();
    for unit in Unit::all_in_order().into_iter().filter(|u| u.total() <= max_total) {
        for (sub, values) in solve_unit(unit, &solved, &NoProgress) {
            solved.insert(sub, values);
        }
    }
    solved
}

#[test]
fn gasser_table() {
    let solved = solve_upto(8);
    // (subspace, wins, draws, losses, deepest win, deepest loss)
    let expected = [
        ("3-3", 140_621, 269, 28_736, 25, 26),
        ("4-3", 75_397, 681_906, 3_095, 1, 32),
        ("3-4", 102_281, 658_117, 0, 33, 0),
        ("4-4", 159, 3_225_409, 29, 9, 8),
        ("5-3", 580_660, 1_999_730, 0, 3, 0),
        ("3-5", 6_301, 2_564_412, 9_677, 31, 2),
    ];
    for (name, w, d, l, mw, ml) in expected {
        let sub: Subspace = name.parse().unwrap();
        let st = Stats::of(&SubspaceIndex::new(sub), &solved[&sub]);
        assert_eq!((st.wins, st.draws, st.losses, st.max_win, st.max_loss), (w, d, l, mw, ml), "{name}");
    }
}
