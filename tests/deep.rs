//! Values deeper than a byte holds (`removal=strict` goes past 252 plies): their bytes
//! are `DEEP_WIN` or `DEEP_LOSS` and their depths sit in the table's deep section.
//! These tests write such a table by hand from the real 3-3 table, with some of its
//! wins and losses made deep, and check what every reader makes of it.

use morris::generate::{self, Options};
use morris::position::{Color, Position};
use morris::solver::{NoProgress, Stats};
use morris::table::{table_path, write_table, write_table_deep, TableError, TableFile};
use morris::value::{Deep, Value, DEEP_LOSS, DEEP_WIN};
use morris::{Rules, Sector, Subspace, Tablebase};
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
    let index = Sector::from(sub33()).index();
    let (mut values, mut entries) = (plain.clone(), Vec::new());
    let (mut wins, mut losses) = (0u16, 0u16);
    for (i, b) in values.iter_mut().enumerate() {
        if index.may_be_hole(i as u64) && index.is_hole(i as u64) {
            continue;
        }
        match Value::decode(*b) {
            Value::Win(_) => {
                wins += 1;
                if wins % 7 == 0 {
                    entries.push((i as u64, 301 + 2 * (wins % 50)));
                    *b = DEEP_WIN;
                }
            }
            Value::Loss(_) => {
                losses += 1;
                if losses % 5 == 0 {
                    entries.push((i as u64, 400 + 2 * (losses % 50)));
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
    let index = Sector::from(sub33()).index();
    a.len() == b.len() && (0..a.len()).all(|i| (index.may_be_hole(i as u64) && index.is_hole(i as u64)) || a[i] == b[i])
}

fn position_at(slot: u64) -> Position {
    let (mover, opp) = Sector::from(sub33()).index().unindex(slot);
    Position::new(mover, opp, 0, 0, Color::White).unwrap()
}

#[test]
fn deep_values_round_trip_through_the_file_and_the_probe() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, values, deep) = deep_33(dir.path());
    assert!(deep.len() > 1000, "{} deep values", deep.len());
    let index = Sector::from(sub33()).index();
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

    // The placement search does not take deep values yet: it refuses the table rather
    // than misread it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["draw", "--stones", "3-3", "--search", "--db"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("deeper than 252 plies") && stderr.contains("placement search"), "{stderr}");
}

#[test]
fn a_damaged_or_missing_deep_section_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (_, values, deep) = deep_33(dir.path());
    let index = Sector::from(sub33()).index();
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
