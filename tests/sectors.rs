//! Placement tables against the placement search: every start with WK, BK <= 5 and
//! random positions of every sector those starts reach, value and depth, every move.

use morris::probe::Tablebase;
use morris::solve::generate::{self, Options};
use morris::NoProgress;
use morris::{Color, Position, Value};
use std::collections::BTreeSet;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

fn moves(list: &[morris::MoveInfo]) -> Vec<(String, String, Value)> {
    let mut m: Vec<_> = list.iter().map(|x| (x.mv.to_string(), x.child.to_string(), x.value)).collect();
    m.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    m
}

#[test]
fn small_starts_tables_agree_with_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut sectors = BTreeSet::new();
    for wk in 3..=5u8 {
        for bk in 3..=5u8 {
            let r = generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(wk, bk)], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
            sectors.extend(r.iter().map(|r| r.sector).filter(|s| !s.is_movement()));
        }
    }
    // Every table is bit-identical to the known-good list (content checksums).
    let known = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/databases/checksums.txt")).unwrap();
    let known: std::collections::HashMap<&str, &str> = known.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(|l| l.split_once(' ').unwrap()).collect();
    for &sector in &sectors {
        let t = morris::table::TableFile::open(&morris::table::table_path(dir.path(), sector), sector, &morris::rules::Rules::STANDARD).unwrap();
        let want = known.get(sector.to_string().as_str()).unwrap_or_else(|| panic!("{sector} has no known checksum"));
        assert_eq!(format!("{:016x}", t.header.content_hash), *want, "{sector}");
    }
    let tb = Tablebase::open(dir.path()).unwrap();
    let searcher = morris::Searcher::new(&tb, morris::SearchOptions { tt_bytes: 1 << 22, keep_bytes: 1 << 30 });
    let check = |root: Position| {
        let table = tb.probe(&root).unwrap();
        let table_moves = tb.probe_moves(&root).unwrap();
        let found = searcher.solve(&root, &NoProgress).unwrap();
        assert_eq!(table, found.value, "{root}");
        assert_eq!(moves(&table_moves), moves(&found.moves), "{root}");
        if let Some(best) = table_moves.first() {
            assert_eq!(best.value, table, "{root}: the best move keeps the value");
        }
    };
    // Gévay & Danner, Table II, for WK, BK <= 5: derived here by the search, whose
    // own tests hold it to brute force and to the published entries.
    for wk in 3..=5u8 {
        for bk in 3..=5u8 {
            check(Position::unchecked(morris::Rules::STANDARD, 0, 0, wk, bk, Color::White));
        }
    }
    let mut rng = Rng(0x2545_f491_4f6c_dd1du64);
    let mut rnd = |n: u64| rng.below(n);
    let mut checked = 0;
    for &sector in &sectors {
        let index = sector.index(morris::rules::Board::Nine);
        for _ in 0..6 {
            let (m, o) = index.unindex(rnd(index.len()));
            let to_move = if rnd(2) == 0 { Color::White } else { Color::Black };
            let (white, black, white_hand, black_hand) = if to_move == Color::White { (m, o, sector.sh, sector.oh) } else { (o, m, sector.oh, sector.sh) };
            check(Position::unchecked(morris::Rules::STANDARD, white, black, white_hand, black_hand, to_move));
            checked += 1;
        }
    }
    assert!(sectors.len() > 40, "{} sectors", sectors.len());
    assert_eq!(checked, 6 * sectors.len());
}

/// The forward verifier passes every table of the 4-4 start, and catches one wrong
/// value written into a placement sector's file (with valid checksums).
#[test]
fn verifier_checks_placement_sectors() {
    use morris::table::{table_path, write_table, TableFile};
    use morris::verify::verify_sectors;
    use morris::Stats;
    let dir = tempfile::tempdir().unwrap();
    let reports = generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(4, 4)], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
    let sectors: Vec<morris::Sector> = reports.iter().map(|r| r.sector).collect();
    let tb = Tablebase::open(dir.path()).unwrap();
    let ok = verify_sectors::<morris::Value>(&tb, &sectors, &NoProgress).unwrap();
    assert_eq!(ok.mismatch_count, 0, "{:?}", ok.mismatches.first());
    let total: u64 = reports.iter().map(|r| r.stats.positions).sum();
    assert_eq!(ok.checked, total);

    // Flip one decided value of 3-4-1-0 to a draw, and rewrite the file consistently.
    let sector: morris::Sector = "3-4-1-0".parse().unwrap();
    let file = TableFile::open(&table_path(dir.path(), sector), sector, &morris::rules::Rules::STANDARD).unwrap();
    let mut values = file.read_all().unwrap();
    drop(file);
    let index = sector.index(morris::rules::Board::Nine);
    let slot = (0..values.len() as u64).find(|&i| values[i as usize] != 0 && !(index.may_be_hole(i) && index.is_hole(i))).unwrap();
    values[slot as usize] = 0;
    write_table(dir.path(), &morris::rules::Rules::STANDARD, sector, &values, &Stats::of(&index, &values)).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let bad = verify_sectors::<morris::Value>(&tb, &[sector], &NoProgress).unwrap();
    assert!(bad.mismatch_count >= 1);
    assert!(bad.mismatches.iter().any(|m| m.slot == slot), "{:?}", bad.mismatches);
}

/// The embedding API: moves parse and print in the notation of docs/rules.md, `play` accepts
/// exactly the legal moves, and `mainline` has exactly `n` steps for a win or loss in
/// `n`, ending where the game ends.
#[test]
fn moves_play_and_mainline() {
    use morris::rules::movegen::Move;
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    for text in ["d1", "a1-a4", "a1-a4xd7", "d1xg7"] {
        assert_eq!(text.parse::<Move>().unwrap().to_string(), text);
    }
    for bad in ["", "z9", "a1-", "a1-a4x", "a1a4", "d1xx"] {
        assert!(bad.parse::<Move>().is_err(), "{bad}");
    }
    let start = Position::parse("........................ w 3 3", morris::Rules::STANDARD).unwrap();
    assert_eq!(start.legal_moves().len(), 24);
    assert!(start.play(&"d1".parse().unwrap()).is_ok());
    assert!(start.play(&"a1-a4".parse().unwrap()).is_err());
    let best = tb.best_move(&start).unwrap().unwrap();
    assert_eq!(best.value, Value::Win(23));
    let line = tb.mainline(&start).unwrap();
    assert_eq!(line.len(), 23);
    assert_eq!(line[0].mv, best.mv);
    let mut at = start;
    for (k, step) in line.iter().enumerate() {
        at = at.play(&step.mv).unwrap();
        assert_eq!(at, step.position);
        // The side to move after step k has 23 - k - 1 plies left, and loses when even.
        let left = 23 - k as u16 - 1;
        assert_eq!(step.value, if left.is_multiple_of(2) { Value::Loss(left) } else { Value::Win(left) }, "step {k}");
    }
    assert!(at.legal_moves().is_empty() || tb.probe(&at).unwrap() == Value::Loss(0));
    let draw = Position::parse("W.......B............... w 2 2", morris::Rules::STANDARD).unwrap();
    if tb.probe(&draw).unwrap() == Value::Draw {
        assert!(tb.mainline(&draw).unwrap().is_empty());
    }
}
