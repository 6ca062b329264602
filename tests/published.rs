//! The solver reproduces the published figures of docs/rules.md: Gasser's movement-phase
//! table, the deepest values of Gévay & Danner's Table VII, and the named test positions.
//!
//! Everything with s + o <= MORRIS_TEST_MAX_STONES (default 10) is solved once per run.

use morris::position::index::SubspaceIndex;
use morris::solve::generate::{self, Options};
use morris::table::{table_path, TableFile};
use morris::{NoProgress, Stats};
use morris::{Position, Subspace, Unit, Value};
use std::collections::HashMap;
use std::sync::OnceLock;

fn max_stones() -> u8 {
    std::env::var("MORRIS_TEST_MAX_STONES").ok().and_then(|v| v.parse().ok()).unwrap_or(10)
}

/// Solves into a temporary directory through the real pipeline (files and all), then
/// reads every table back.
fn db() -> &'static (tempfile::TempDir, HashMap<Subspace, Vec<u8>>) {
    static DB: OnceLock<(tempfile::TempDir, HashMap<Subspace, Vec<u8>>)> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        generate::run(&Options { dir: dir.path().to_owned(), max_stones: max_stones(), only: None, starts: vec![], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
        let mut solved = HashMap::new();
        for sub in Subspace::all().filter(|s| s.total() <= max_stones()) {
            let t = TableFile::open(&table_path(dir.path(), sub), sub, &morris::rules::Rules::STANDARD).unwrap();
            solved.insert(sub, t.read_all().unwrap());
        }
        (dir, solved)
    })
}

fn solved() -> &'static HashMap<Subspace, Vec<u8>> {
    &db().1
}

#[test]
fn forward_verification_of_every_table() {
    // Through `morris verify`, as a user runs it: every table read back through the
    // table reader, every value checked against its successors.
    let subs: Vec<Subspace> = Unit::all_in_order().into_iter().flat_map(|u| u.members()).filter(|s| s.total() <= max_stones()).collect();
    let positions: u64 = subs.iter().map(|&s| stats(s).positions).sum();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_morris")).args(["verify", "--db", db().0.path().to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("verified {} tables, {positions} positions", subs.len())), "{text}");
    assert!(text.contains(": 0 mismatches"), "{text}");
}

#[test]
fn stored_statistics_match_the_values() {
    for sub in Subspace::all().filter(|s| s.total() <= max_stones()) {
        let t = TableFile::open(&table_path(db().0.path(), sub), sub, &morris::rules::Rules::STANDARD).unwrap();
        assert_eq!(t.header.stats, stats(sub), "{sub}");
    }
}

fn stats(sub: Subspace) -> Stats {
    Stats::of(&SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o), &solved()[&sub])
}

fn value(pos: &str) -> Value {
    let p = Position::parse(pos, morris::Rules::STANDARD).unwrap();
    let sub = p.subspace().unwrap();
    Value::decode(solved()[&sub][SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o).index(p.mover(), p.opponent()) as usize])
}

#[test]
fn gasser_table() {
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
        let st = stats(name.parse().unwrap());
        assert_eq!((st.wins, st.draws, st.losses, st.max_win, st.max_loss), (w, d, l, mw, ml), "{name}");
    }
}

#[test]
fn four_four_depth_histogram() {
    // Loewer 2016, plies 0..9.
    let expected = [6u64, 29, 3, 24, 10, 46, 6, 48, 4, 12];
    let sub: Subspace = "4-4".parse().unwrap();
    let idx = SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o);
    let mut hist = [0u64; 10];
    for (i, &b) in solved()[&sub].iter().enumerate() {
        if let Some(d) = Value::decode(b).plies() {
            if !idx.is_hole(i as u64) {
                hist[d as usize] += 1;
            }
        }
    }
    assert_eq!(hist, expected);
}

#[test]
fn table_vii_deepest_values() {
    // Gévay & Danner, Table VII: rows s = 3..9, columns o = 3..9.
    let table: [[u16; 7]; 7] = [
        [26, 33, 31, 6, 30, 34, 30],
        [32, 9, 28, 156, 112, 112, 110],
        [3, 29, 57, 162, 160, 160, 114],
        [7, 157, 163, 167, 184, 186, 173],
        [31, 111, 159, 185, 181, 204, 202],
        [33, 111, 153, 185, 203, 196, 202],
        [25, 103, 113, 172, 201, 201, 191],
    ];
    let mut checked = 0;
    for sub in Subspace::all().filter(|s| s.total() <= max_stones()) {
        let st = stats(sub);
        let deepest = st.max_win.max(st.max_loss);
        assert_eq!(deepest, table[sub.s as usize - 3][sub.o as usize - 3], "{sub}");
        checked += 1;
    }
    assert!(checked >= 6);
}

#[test]
fn named_test_positions() {
    // The published test positions (docs/rules.md; Gasser 1996 Fig. 9; Gasser 1991).
    assert_eq!(value(".WW....B.B....B........W b"), Value::Loss(26));
    let p = Position::from_lists(morris::Rules::STANDARD, "d7,g7,g1", "a7,a4,g4", morris::Color::White, 0, 0).unwrap();
    assert_eq!(value(&p.to_string()), Value::Win(25));
}

#[test]
fn table_ii_start_values_up_to_five_stones() {
    use morris::solve::placement::{self, MovementTables};
    use morris::Color;
    // Gévay & Danner, Table II: value for White of the empty board with wk and bk stones to place.
    let expected: [[Value; 3]; 3] = [[Value::Win(23), Value::Draw, Value::Draw], [Value::Draw, Value::Draw, Value::Draw], [Value::Win(9), Value::Draw, Value::Draw]];
    let max = max_stones().min(10) / 2;
    for wk in 3..=max {
        for bk in 3..=max {
            let root = Position::unchecked(morris::Rules::STANDARD, 0, 0, wk, bk, Color::White);
            let tables = MovementTables::from_map(morris::rules::game::Game::standard(), MovementTables::needed(&root).into_iter().map(|s| (s, solved()[&s].clone())).collect());
            let sol = placement::solve(&root, &tables, &NoProgress);
            assert_eq!(sol.value, expected[wk as usize - 3][bk as usize - 3], "{wk}-{bk}");
            // The value is the best of the first moves' values.
            assert_eq!(sol.moves.len(), 24);
            assert_eq!(sol.moves[0].value, sol.value, "{wk}-{bk}");
            assert!(sol.moves.iter().all(|m| m.value <= sol.value));
        }
    }
}
