//! Values deeper than a byte holds (`removal=strict` goes past 252 plies): their bytes
//! are `DEEP_WIN` or `DEEP_LOSS` and their depths sit in the table's deep section.
//! These tests write such a table by hand from the real 3-3 table, with some of its
//! wins and losses made deep, and check what every reader makes of it.

use morris::position::value::{Deep, Value, DEEP_LOSS, DEEP_WIN};
use morris::position::{Color, Position};
use morris::solve::generate::{self, Options};
use morris::solve::placement::{layered, MovementTables};
use morris::table::{table_path, write_table, write_table_deep, TableError, TableFile};
use morris::{NoProgress, Stats};
use morris::{Rules, Sector, Subspace, Tablebase};
use morris::{SearchOptions, Searcher};
use std::fs;
use std::path::Path;

fn sub33() -> Subspace {
    "3-3".parse().unwrap()
}

/// The real 3-3 table's values, and the same with every 7th win made a win in
/// 301 + 2k plies and every 5th loss a loss in 400 + 2k, with their deep list.
fn deep_33(dir: &Path) -> (Vec<u8>, Vec<u8>, Deep) {
    generate::run(&Options { dir: dir.to_owned(), max_stones: 6, only: None, starts: vec![], rules: Rules::STANDARD }, &NoProgress).unwrap();
    let t = TableFile::open(&table_path(dir, sub33()), sub33(), &Rules::STANDARD).unwrap();
    let plain = t.read_all().unwrap();
    let index = Sector::from(sub33()).index(morris::rules::Board::Nine);
    let (mut values, mut entries) = (plain.clone(), Vec::new());
    let (mut wins, mut losses) = (0u32, 0u32);
    for (i, b) in values.iter_mut().enumerate() {
        if index.may_be_hole(i as u64) && index.is_hole(i as u64) {
            continue;
        }
        match Value::decode(*b) {
            Value::Win(_) => {
                wins += 1;
                if wins % 7 == 0 {
                    entries.push((i as u64, 301 + 2 * (wins % 50) as u16));
                    *b = DEEP_WIN;
                }
            }
            Value::Loss(_) => {
                losses += 1;
                if losses % 5 == 0 {
                    entries.push((i as u64, 400 + 2 * (losses % 50) as u16));
                    *b = DEEP_LOSS;
                }
            }
            Value::Draw => {}
        }
    }
    (plain, values, Deep::new(entries))
}

/// Whether two tables of 3-3 agree on every position (holes hold don't-care bytes).
fn same_positions(a: &[u8], b: &[u8]) -> bool {
    let index = Sector::from(sub33()).index(morris::rules::Board::Nine);
    a.len() == b.len() && (0..a.len()).all(|i| (index.may_be_hole(i as u64) && index.is_hole(i as u64)) || a[i] == b[i])
}

fn position_at(slot: u64) -> Position {
    let (mover, opp) = Sector::from(sub33()).index(morris::rules::Board::Nine).unindex(slot);
    Position::new(morris::Rules::STANDARD, mover, opp, 0, 0, Color::White).unwrap()
}

#[test]
fn deep_values_round_trip_through_the_file_and_the_probe() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, values, deep) = deep_33(dir.path());
    assert!(deep.len() > 1000, "{} deep values", deep.len());
    let index = Sector::from(sub33()).index(morris::rules::Board::Nine);
    let stats = Stats::of_deep(&index, &values, Some(&deep));
    assert_eq!(stats.max_loss, deep.entries().iter().map(|e| e.1).filter(|d| d % 2 == 0).max().unwrap());
    write_table_deep(dir.path(), &Rules::STANDARD, sub33(), &values, &deep, &stats).unwrap();

    let t = TableFile::open(&table_path(dir.path(), sub33()), sub33(), &Rules::STANDARD).unwrap();
    assert_eq!(t.deep(), &deep);
    assert!(same_positions(&t.read_all().unwrap(), &values));
    assert_eq!(t.header.stats, stats);

    // The probe reads each deep value's depth from the section, and the rest as before.
    let tb = Tablebase::open(dir.path()).unwrap();
    for &(slot, d) in deep.entries().iter().step_by(97) {
        let want = if d % 2 == 1 { Value::Win(d) } else { Value::Loss(d) };
        assert_eq!(tb.probe(&position_at(slot)).unwrap(), want, "slot {slot}");
    }
    let shallow = (0..plain.len() as u64).find(|&i| !(index.may_be_hole(i) && index.is_hole(i)) && deep.depth(i).is_none() && plain[i as usize] != 0).unwrap();
    assert_eq!(tb.probe(&position_at(shallow)).unwrap(), Value::decode(plain[shallow as usize]));

    // A compact copy keeps the section; a results-only copy drops it and reads as results.
    let copy = tempfile::tempdir().unwrap();
    t.copy_to(copy.path(), false, true).unwrap();
    let c = TableFile::open(&table_path(copy.path(), sub33()), sub33(), &Rules::STANDARD).unwrap();
    assert_eq!(c.deep(), &deep);
    assert!(same_positions(&c.read_all().unwrap(), &values));
    let wdl = tempfile::tempdir().unwrap();
    t.copy_to(wdl.path(), true, false).unwrap();
    let w = TableFile::open(&table_path(wdl.path(), sub33()), sub33(), &Rules::STANDARD).unwrap();
    assert!(w.deep().is_empty() && w.header.deep.is_none());
    let (slot, _) = deep.entries()[0];
    let bs = w.header.block_size as u64;
    assert_eq!(w.read_wld((slot / bs) as usize, (slot % bs) as usize).unwrap(), if values[slot as usize] == DEEP_WIN { 1 } else { 2 });

    // The depth histogram of `stats --plot` counts each deep value at its own depth.
    let svg = dir.path().join("plot.svg");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_morris")).args(["stats", "--db"]).arg(dir.path()).arg("--plot").arg(&svg).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut want = std::collections::BTreeMap::new();
    for (i, &b) in values.iter().enumerate() {
        if !(index.may_be_hole(i as u64) && index.is_hole(i as u64)) {
            match deep.value(b, i as u64).unwrap() {
                Value::Win(d) => *want.entry(("w", d)).or_insert(0u64) += 1,
                Value::Loss(d) => *want.entry(("l", d)).or_insert(0u64) += 1,
                Value::Draw => {}
            }
        }
    }
    let svg = std::fs::read_to_string(&svg).unwrap();
    let attr = |tag: &str, name: &str| tag.split(&format!("{name}=\"")).nth(1).map(|r| r.split('"').next().unwrap().to_string());
    let mut got = std::collections::BTreeMap::new();
    for tag in svg.split('<').filter(|t| t.starts_with("rect ") && t.contains("data-plies")) {
        let class = if attr(tag, "class").unwrap() == "w" { "w" } else { "l" };
        let d: u16 = attr(tag, "data-plies").unwrap().parse().unwrap();
        *got.entry((class, d)).or_insert(0u64) += attr(tag, "data-count").unwrap().parse::<u64>().unwrap();
    }
    assert!(want.keys().any(|k| k.1 > 300), "deep depths are drawn");
    assert_eq!(got, want);
}

/// The 3-3 start over the hand-made deep 3-3 table, solved three ways: backward
/// induction into sector tables (reading the deep children through the files), the
/// placement search (through the searcher's deep lists) and plain layered induction
/// (through in-memory tables given the deep list). Values and every move agree, for
/// the start and the placement positions of random games, and some of them are deep.
#[test]
fn the_placement_phase_over_deep_values_agrees_three_ways() {
    let dir = tempfile::tempdir().unwrap();
    let (_, values, deep) = deep_33(dir.path());
    let index = Sector::from(sub33()).index(morris::rules::Board::Nine);
    write_table_deep(dir.path(), &Rules::STANDARD, sub33(), &values, &deep, &Stats::of_deep(&index, &values, Some(&deep))).unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: Rules::STANDARD }, &NoProgress).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let searcher = Searcher::new(&tb, SearchOptions { tt_bytes: 1 << 22, keep_bytes: 1 << 26 });
    let tables = MovementTables::from_map(Rules::STANDARD.game(), [(sub33(), values)].into()).with_deep([(sub33(), deep)].into());

    let start = Position::parse(&format!("{} w 3 3", ".".repeat(24)), Rules::STANDARD).unwrap();
    let mut roots = vec![start];
    let mut rng: u64 = 0x5eed;
    for _ in 0..6 {
        let mut pos = start;
        while !pos.is_movement() {
            let children = pos.children();
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            pos = children[(rng >> 33) as usize % children.len()].1;
            if !pos.is_movement() {
                roots.push(pos);
            }
        }
    }
    let rows = |moves: &[morris::MoveInfo]| {
        let mut m: Vec<_> = moves.iter().map(|m| (m.mv.to_string(), m.value)).collect();
        m.sort_by(|x, y| x.0.cmp(&y.0));
        m
    };
    let mut deep_seen = 0;
    for root in &roots {
        let searched = searcher.solve(root, &NoProgress).unwrap();
        assert_eq!(searched.value, tb.probe(root).unwrap(), "{root}: search against induction");
        assert_eq!(rows(&searched.moves), rows(&tb.probe_moves(root).unwrap()), "{root}: moves, search against induction");
        let plain = layered::solve(root, &tables, &NoProgress);
        assert_eq!(plain.value, searched.value, "{root}: layered induction");
        assert_eq!(rows(&plain.moves), rows(&searched.moves), "{root}: moves, layered induction");
        deep_seen += searched.moves.iter().filter(|m| m.value.plies().is_some_and(|d| d > 252)).count();
    }
    assert!(roots.len() > 20 && deep_seen > 0, "{} positions, {deep_seen} deep moves", roots.len());
}

#[test]
fn a_damaged_or_missing_deep_section_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (_, values, deep) = deep_33(dir.path());
    let index = Sector::from(sub33()).index(morris::rules::Board::Nine);
    let stats = Stats::of_deep(&index, &values, Some(&deep));
    let path = table_path(dir.path(), sub33());

    // Deep bytes without their entries, or entries without their bytes: not written.
    for (v, d) in [(&values, Deep::default()), (&values, Deep::new(deep.entries()[1..].to_vec()))] {
        let err = write_table_deep(dir.path(), &Rules::STANDARD, sub33(), v, &d, &stats).unwrap_err();
        assert!(err.to_string().contains("deep"), "{err}");
    }
    let err = write_table(dir.path(), &Rules::STANDARD, sub33(), &values, &stats).unwrap_err();
    assert!(err.to_string().contains("deep"), "{err}");
    let mut extra = deep.entries().to_vec();
    let shallow = (0..values.len() as u64).find(|&i| values[i as usize] == 1).unwrap();
    extra.push((shallow, 333));
    assert!(write_table_deep(dir.path(), &Rules::STANDARD, sub33(), &values, &Deep::new(extra), &stats).is_err());

    // A flipped byte in the section, or a section cut short, is reported on opening.
    write_table_deep(dir.path(), &Rules::STANDARD, sub33(), &values, &deep, &stats).unwrap();
    let good = fs::read(&path).unwrap();
    let section_at = good.len() - deep.len() * 10;
    let mut bad = good.clone();
    bad[section_at + 3] ^= 1;
    fs::write(&path, &bad).unwrap();
    let err = TableFile::open(&path, sub33(), &Rules::STANDARD).err().expect("a damaged deep section is refused");
    assert!(matches!(err, TableError::Corrupt { .. }), "{err}");
    fs::write(&path, &good[..good.len() - 4]).unwrap();
    let err = TableFile::open(&path, sub33(), &Rules::STANDARD).err().expect("a short deep section is refused");
    assert!(matches!(err, TableError::Truncated { .. }), "{err}");
    fs::write(&path, &good).unwrap();
    assert!(TableFile::open(&path, sub33(), &Rules::STANDARD).unwrap().read_all().is_ok());
}

/// The real thing: `removal=strict` goes past 252 plies in its 6-4 unit (wins in 301).
/// Its movement tables up to 10 stones and the placement sectors of the 6-4 start,
/// solved into files, then every deep position of the deepest placement sectors
/// valued again by the placement search, which reads the deep movement values
/// through its own path: value and depth agree.
#[test]
fn strict_deep_placement_values_agree_with_the_search() {
    let rules: Rules = "standard,removal=strict".parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 10, only: None, starts: vec![(6, 4)], rules }, &NoProgress).unwrap();
    let tb = Tablebase::with_rules(dir.path(), rules, 64).unwrap();
    let searcher = Searcher::new(&tb, SearchOptions { tt_bytes: 1 << 24, keep_bytes: 1 << 30 });
    let mut compared = 0;
    for name in ["5-4-1-0", "4-5-0-1"] {
        let sector: Sector = name.parse().unwrap();
        let t = tb.table(sector).unwrap();
        assert!(!t.deep().is_empty(), "{name} has deep values");
        let index = sector.index(morris::rules::Board::Nine);
        for &(slot, depth) in t.deep().entries().iter().step_by(t.deep().len().div_ceil(25)) {
            let (mover, opp) = index.unindex(slot);
            let pos = Position::new(rules, mover, opp, sector.sh, sector.oh, Color::White).unwrap();
            let want = if depth % 2 == 1 { Value::Win(depth) } else { Value::Loss(depth) };
            assert_eq!(tb.probe(&pos).unwrap(), want, "{name} slot {slot}");
            assert_eq!(searcher.solve(&pos, &NoProgress).unwrap().value, want, "{name} slot {slot}: the search");
            compared += 1;
        }
    }
    assert!(compared >= 40, "{compared} deep positions compared");
}
