//! The placement search (alpha-beta over the movement tables) under every rule set
//! whose placement phase has no cycles, against two solvers that share no search code
//! with it: the sector tables that backward induction wrote (which `family_match`
//! checks against the independent reference), and plain layered induction over every
//! reachable position. Values and depths alike, of the start and of every move, and of
//! positions along random games.

use morris::solve::generate::{self, Options};
use morris::solve::placement::{layered, MovementTables};
use morris::solve::{solve_unit, DeepValues};
use morris::NoProgress;
use morris::{Position, Rules, Tablebase, Unit};
use morris::{SearchOptions, Searcher};
use std::collections::HashMap;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// Moves as comparable rows: name, position after, value for the side that plays.
fn rows(moves: &[morris::MoveInfo]) -> Vec<(String, String, morris::Value)> {
    let mut m: Vec<_> = moves.iter().map(|m| (m.mv.to_string(), m.child.to_string(), m.value)).collect();
    m.sort_by(|x, y| x.0.cmp(&y.0));
    m
}

/// The empty board of the `wk`-`bk` start, White to move, in the notation.
fn empty_board(rules: &Rules, wk: u8, bk: u8) -> Position {
    let text = format!("{} w {wk} {bk}", ".".repeat(rules.board().points() as usize));
    Position::parse(&text, *rules).unwrap()
}

fn check(rule_set: &str, wk: u8, bk: u8, games: usize) {
    let rules: Rules = rule_set.parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(wk, bk)], rules }, &NoProgress).unwrap();
    let tb = Tablebase::with_rules(dir.path(), rules, 64).unwrap();
    let searcher = Searcher::new(&tb, SearchOptions { tt_bytes: 1 << 24, keep_bytes: 1 << 28 });
    // The movement tables again, solved in memory, for the layered solver.
    let game = rules.game();
    let mut movement = HashMap::new();
    for unit in Unit::all_in_order_up_to(wk.max(bk)) {
        for s in solve_unit(game, &unit.sectors(), &movement, &NoProgress, DeepValues::Refuse).unwrap() {
            movement.insert(s.sector.subspace().unwrap(), s.values);
        }
    }
    let tables = MovementTables::from_map(game, movement);

    let start = empty_board(&rules, wk, bk);
    let mut roots = vec![start];
    let mut rng = Rng(0x5eed_0000 + wk as u64 * 16 + bk as u64);
    for _ in 0..games {
        let mut pos = start;
        while !pos.is_movement() {
            let children = pos.children();
            if children.is_empty() {
                break;
            }
            pos = children[rng.below(children.len() as u64) as usize].1;
            if !pos.is_movement() && morris::probe::sector_of(&pos).is_ok_and(|s| s.is_some()) {
                roots.push(pos);
            }
        }
    }
    let mut placement_roots = 0;
    for root in &roots {
        let searched = searcher.solve(root, &NoProgress).unwrap_or_else(|e| panic!("{rule_set} {root}: {e}"));
        assert_eq!(searched.value, tb.probe(root).unwrap(), "{rule_set} {root}: search against the sector table");
        assert_eq!(rows(&searched.moves), rows(&tb.probe_moves(root).unwrap()), "{rule_set} {root}: moves against the sector tables");
        let plain = layered::solve(root, &tables, &NoProgress);
        assert_eq!(plain.value, searched.value, "{rule_set} {root}: layered induction");
        assert_eq!(rows(&plain.moves), rows(&searched.moves), "{rule_set} {root}: moves, layered induction");
        placement_roots += 1;
    }
    assert!(placement_roots > games, "{rule_set}: too few placement positions compared");
    eprintln!("{rule_set} {wk}-{bk}: {placement_roots} placement positions agree, start {}", tb.probe(&start).unwrap());
}

#[test]
fn morabaraba_4_4() {
    check("morabaraba", 4, 4, 4);
}

#[test]
fn twelve_4_4() {
    check("twelve", 4, 4, 4);
}

#[test]
fn six_whole_game() {
    check("six", 6, 6, 4);
}

#[test]
fn five_whole_game() {
    check("five", 5, 5, 4);
}

#[test]
fn take_each_4_4() {
    check("standard,take=each", 4, 4, 4);
}

#[test]
fn removal_strict_4_4() {
    check("standard,removal=strict", 4, 4, 4);
}

#[test]
fn removal_lenient_4_4() {
    check("standard,removal=lenient", 4, 4, 4);
}

#[test]
fn flying_none_4_4() {
    check("standard,flying=none", 4, 4, 4);
}

#[test]
fn standard_4_4() {
    check("standard", 4, 4, 4);
}

/// Lasker's placement phase has cycles (a side with stones in hand may move), so the
/// search refuses it and says why, rather than answering wrongly.
#[test]
fn lasker_is_refused_by_the_search() {
    let rules: Rules = "lasker".parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 6, only: None, starts: vec![], rules }, &NoProgress).unwrap();
    let tb = Tablebase::with_rules(dir.path(), rules, 64).unwrap();
    let err = Searcher::new(&tb, SearchOptions::default()).solve(&empty_board(&rules, 3, 3), &NoProgress).err().expect("refused");
    assert!(err.to_string().contains("Lasker"), "{err}");
}
