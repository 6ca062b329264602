//! Draw classes (`docs/ultra.md`): the engine's class pass checked one ply up on every
//! drawn position, by the public position API (no shared code with the class pass),
//! for small starts of several rule sets.

use morris::rules::Rules;
use morris::solve::generate::{self, Options};
use morris::solve::ultra::classes::NO_CLASS;
use morris::solve::ultra::run::InMemory;
use morris::solve::ultra::SectorValues;
use morris::table::{table_path, TableError, TableFile};
use morris::NoProgress;
use morris::{Color, Position, Sector};
use std::collections::BTreeMap;

#[path = "common/ultra.rs"]
mod common_ultra;
#[path = "common/frames.rs"]
mod frames;
use common_ultra::classed;

/// The slot of a position in its sector's table, and the sector (`None`: the side to
/// move has lost).
fn locate(rules: &Rules, pos: &Position) -> Option<(Sector, u64)> {
    let sector = morris::probe::sector_of(pos).unwrap()?;
    Some((sector, sector.index(rules.board()).index(pos.mover(), pos.opponent())))
}

/// Checks every drawn position one ply up: its class is the best its drawing moves
/// give (staying counts as the unit's value), and its depth follows the tie-break.
/// Returns the number of drawn positions and of those with a depth.
fn check_one_ply(rules: &Rules, values: &SectorValues, mem: &InMemory) -> (u64, u64) {
    let game = rules.game();
    let (mut draws, mut deep) = (0u64, 0u64);
    for (&x, strong) in &mem.values {
        let cl = &mem.classes[&x];
        let index = x.index(rules.board());
        let r = values.get(x).unwrap();
        let unit = x.unit(game);
        let cyclic = x.cyclic(game);
        for i in 0..index.len() {
            if index.is_hole(i) {
                continue;
            }
            let draw = morris::Value::decode(strong[i as usize]) == morris::Value::Draw;
            let c = cl.class[i as usize];
            assert_eq!(draw, c != NO_CLASS, "{x} slot {i}: a class exactly where the value is a draw");
            if !draw {
                continue;
            }
            draws += 1;
            let (mover, opp) = index.unindex(i);
            let pos = Position::new(morris::Rules::clone(rules), mover, opp, x.sh, x.oh, Color::White).unwrap();
            let delta = c as i32 - r;
            let depth = cl.depth[i as usize];
            // Options: (delta-value for the mover, depth after it: 0 for an exit).
            let mut options: Vec<(i32, u16)> = Vec::new();
            let children = pos.children();
            for (_, child) in &children {
                let Some((cx, cs)) = locate(rules, child) else { continue };
                let cv = mem.values[&cx][cs as usize];
                if morris::Value::decode(cv) != morris::Value::Draw {
                    continue;
                }
                let cc = mem.classes[&cx].class[cs as usize] as i32;
                // Only a slide without capture keeps a unit's sectors (a placement fills
                // a hand's stone in, a capture lowers a board).
                let stays = cyclic && cx == x.after_slide() && unit.contains(&cx);
                options.push((-cc - r, if stays { mem.classes[&cx].depth[cs as usize] } else { 0 }));
            }
            if children.is_empty() {
                assert_eq!((delta, depth), (0, 0), "{x} slot {i}: a terminal draw stays");
                continue;
            }
            let best = options.iter().map(|o| o.0).max().unwrap_or_else(|| panic!("{x} slot {i}: a draw with no drawing move"));
            assert_eq!(delta, best, "{x} slot {i} ({pos}): the class is the best option; options {options:?}, rank {r}");
            let keeping = options.iter().filter(|o| o.0 == delta).map(|o| o.1);
            let want = match delta.signum() {
                0 => 0,
                1 => 1 + keeping.min().unwrap(),
                _ => 1 + keeping.max().unwrap(),
            };
            assert_eq!(depth, want, "{x} slot {i} ({pos}): class {c}, rank {r}, options {options:?}");
            deep += (depth != 0) as u64;
        }
    }
    (draws, deep)
}

#[test]
fn classes_hold_one_ply_up() {
    for (rules, wk, bk) in
        [("standard", 3, 3), ("standard", 4, 4), ("lasker", 3, 3), ("morabaraba", 4, 4), ("six", 4, 4), ("standard,take=each", 4, 3), ("standard,removal=strict,flying=none", 4, 4)]
    {
        let (r, values, mem) = classed(rules, wk, bk);
        let (draws, deep) = check_one_ply(&r, &values, &mem);
        let mut by_class: BTreeMap<i16, u64> = BTreeMap::new();
        for c in mem.classes.values() {
            for &k in c.class.iter().filter(|&&k| k != NO_CLASS) {
                *by_class.entry(k).or_default() += 1;
            }
        }
        println!("{rules} {wk}-{bk}: {draws} drawn slots, {deep} with a depth; slots by class {by_class:?}");
        assert!(draws > 0);
    }
}

/// The class files hold what the class pass computed, a rerun keeps them, and a class
/// file is refused beside other strong values, under other sector values, or damaged.
#[test]
fn class_files_round_trip_resume_and_refuse_what_is_not_theirs() {
    use morris::solve::ultra::run::run_dir;
    use morris::table::{class_path, ClassFile};
    let rules = Rules::STANDARD;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    generate::run(&Options { dir: d.to_owned(), max_stones: 0, only: None, starts: vec![(4, 3)], rules }, &NoProgress).unwrap();
    let (values, first) = run_dir(d, &rules, &[(4, 3)], None, &NoProgress, &mut |_| {}).unwrap();
    assert!(first.iter().all(|r| r.seconds.is_some()));
    // The same classes as the in-memory pass.
    let (_, mem_values, mem) = classed("standard", 4, 3);
    let tb = morris::Tablebase::open(d).unwrap();
    let mut favoured = 0;
    assert_eq!(values, mem_values);
    for r in &first {
        let strong = TableFile::open(&table_path(d, r.sector), r.sector, &rules).unwrap();
        let f = ClassFile::open(d, &strong, values.fingerprint()).unwrap();
        let got = f.read_all(&strong).unwrap();
        let want = &mem.classes[&r.sector];
        let index = r.sector.index(rules.board());
        let rank = values.get(r.sector).unwrap() as i16;
        for i in 0..index.len() {
            if !index.is_hole(i) {
                // Favoured draws keep no depth in the file: the probe finds it one ply up.
                let (c, d) = (want.class[i as usize], want.depth[i as usize]);
                let stored = if c != NO_CLASS && c > rank { 0 } else { d };
                assert_eq!((got.class[i as usize], got.depth[i as usize]), (c, stored), "{} slot {i}", r.sector);
                if c != NO_CLASS && c > rank {
                    let (mover, opp) = index.unindex(i);
                    let pos = Position::new(morris::Rules::STANDARD, mover, opp, r.sector.sh, r.sector.oh, Color::White).unwrap();
                    let probed = tb.probe_class(&pos).unwrap().unwrap();
                    assert_eq!((probed.class, probed.depth), (c, Some(d)), "{} slot {i}: the probe's favoured depth", r.sector);
                    favoured += 1;
                }
            }
        }
    }
    eprintln!("{favoured} favoured draws probed");
    assert!(favoured > 0);
    // A rerun keeps every file.
    let (_, again) = run_dir(d, &rules, &[(4, 3)], None, &NoProgress, &mut |_| {}).unwrap();
    assert!(again.iter().all(|r| r.seconds.is_none()));
    // Other sector values: refused, and a run with them classes everything again.
    let x: Sector = "4-3".parse().unwrap();
    let strong = TableFile::open(&table_path(d, x), x, &rules).unwrap();
    let text: String = values
        .to_text()
        .lines()
        .map(|l| match l.split_once(' ') {
            Some(("4-3-0-0", _)) => "4-3-0-0 99\n".to_string(),
            Some(("3-4-0-0", _)) => "3-4-0-0 -99\n".to_string(),
            _ => format!("{l}\n"),
        })
        .collect();
    let other = SectorValues::parse(&text).unwrap();
    let err = ClassFile::open(d, &strong, other.fingerprint()).err().unwrap().to_string();
    assert!(err.contains("other sector values"), "{err}");
    // A class file beside another table of the same sector: refused.
    let copy = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: copy.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules }, &NoProgress).unwrap();
    let y: Sector = "3-3".parse().unwrap();
    std::fs::copy(class_path(d, x), class_path(copy.path(), y)).unwrap();
    let other_strong = TableFile::open(&table_path(copy.path(), y), y, &rules).unwrap();
    assert!(ClassFile::open(copy.path(), &other_strong, values.fingerprint()).is_err());
    // A damaged frame: an error naming the file, never a class.
    let path = class_path(d, x);
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 10] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let f = ClassFile::open(d, &strong, values.fingerprint()).unwrap();
    let err = f.read_all(&strong).err().unwrap().to_string();
    assert!(err.contains("4-3.mtc"), "{err}");
    // And the next run solves that unit again.
    let (_, mended) = run_dir(d, &rules, &[(4, 3)], None, &NoProgress, &mut |_| {}).unwrap();
    assert!(mended.iter().any(|r| r.sector == x && r.seconds.is_some()), "{mended:?}");
    // Two neighbouring frames of different lengths swapped, the index as it was: found
    // before decoding.
    let bytes = std::fs::read(&path).unwrap();
    let f = ClassFile::open(d, &strong, values.fingerprint()).unwrap();
    let groups = (f.header.blocks as usize).div_ceil(f.header.group as usize);
    assert!(groups >= 2, "{groups} groups");
    let at = 256 + 8 * groups;
    let len = |g: usize| u32::from_le_bytes(bytes[256 + 8 * g..260 + 8 * g].try_into().unwrap()) as usize;
    let g = (0..groups - 1).find(|&g| len(g) > 0 && len(g + 1) > 0 && len(g) != len(g + 1)).expect("two frames to swap");
    let at = at + (0..g).map(len).sum::<usize>();
    let (a, b) = (len(g), len(g + 1));
    let mut swapped = bytes[..at].to_vec();
    swapped.extend_from_slice(&bytes[at + a..at + a + b]);
    swapped.extend_from_slice(&bytes[at..at + a]);
    swapped.extend_from_slice(&bytes[at + a + b..]);
    std::fs::write(&path, &swapped).unwrap();
    let f = ClassFile::open(d, &strong, values.fingerprint()).unwrap();
    let err = f.read_all(&strong).err().unwrap().to_string();
    assert!(err.contains(&format!("group {g} frame is not the one its index names")), "{err}");
    // A shorter frame of another class file, then a skippable frame ending in the
    // checksum the index names for this group: not one frame, so refused before
    // decoding.
    let frames_of = |b: &[u8]| -> Vec<Vec<u8>> {
        let n = (u32::from_le_bytes(b[28..32].try_into().unwrap()) as usize).div_ceil(u32::from_le_bytes(b[76..80].try_into().unwrap()) as usize);
        let mut at = 256 + 8 * n;
        (0..n)
            .map(|g| {
                let l = u32::from_le_bytes(b[256 + 8 * g..260 + 8 * g].try_into().unwrap()) as usize;
                at += l;
                b[at - l..at].to_vec()
            })
            .collect()
    };
    let others: Vec<Vec<u8>> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mtc") && *p != path)
        .flat_map(|p| frames_of(&std::fs::read(p).unwrap()))
        .filter(|f| !f.is_empty())
        .collect();
    let start = |g: usize| 256 + 8 * groups + (0..g).map(len).sum::<usize>();
    let (g, short) = (0..groups).find_map(|g| others.iter().find(|f| f.len() + 12 <= len(g)).map(|f| (g, f.clone()))).expect("a frame 12 bytes shorter than one of 4-3's");
    let mut crafted = bytes.clone();
    let sg = start(g);
    let region = frames::hidden_behind_skippable(&short, len(g), &bytes[sg + len(g) - 4..sg + len(g)]);
    crafted[sg..sg + len(g)].copy_from_slice(&region);
    std::fs::write(&path, &crafted).unwrap();
    let f = ClassFile::open(d, &strong, values.fingerprint()).unwrap();
    let err = f.read_all(&strong).err().unwrap().to_string();
    assert!(err.contains(&format!("group {g} frame is not the one its index names")), "{err}");
    // A class file of the version before (a frame a block): refused by version, and
    // classed again by the next run.
    let mut old = bytes.clone();
    old[8..10].copy_from_slice(&2u16.to_le_bytes());
    std::fs::write(&path, &old).unwrap();
    let err = ClassFile::open(d, &strong, values.fingerprint()).err().unwrap();
    assert!(matches!(err, TableError::Version { found: 2, supported: 3, .. }), "{err}");
    let (_, again) = run_dir(d, &rules, &[(4, 3)], None, &NoProgress, &mut |_| {}).unwrap();
    assert!(again.iter().any(|r| r.sector == x && r.seconds.is_some()), "{again:?}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

/// The one-ply check finds a class or a depth changed in a well-formed class file.
#[test]
fn verify_finds_a_wrong_class_or_depth() {
    use morris::solve::ultra::check::verify_dir;
    use morris::solve::ultra::run::run_dir;
    use morris::table::{write_classes, ClassFile};
    let rules = Rules::STANDARD;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    generate::run(&Options { dir: d.to_owned(), max_stones: 0, only: None, starts: vec![(4, 4)], rules }, &NoProgress).unwrap();
    let (values, _) = run_dir(d, &rules, &[(4, 4)], None, &NoProgress, &mut |_| {}).unwrap();
    let clean = verify_dir(d, &rules, &NoProgress).unwrap();
    assert_eq!(clean.mismatches, 0, "{:?}", clean.examples);
    assert!(clean.checked > 5_000_000);
    // The probe finds a favoured draw's depth (not stored) one ply up: as computed.
    let (_, _, mem) = classed("standard", 4, 4);
    let tb = morris::Tablebase::open(d).unwrap();
    let mut favoured = 0;
    for (&x, want) in &mem.classes {
        let (index, rank) = (x.index(rules.board()), values.get(x).unwrap() as i16);
        for i in (0..index.len()).step_by(23) {
            let (c, depth) = (want.class[i as usize], want.depth[i as usize]);
            if c != NO_CLASS && c > rank && !index.is_hole(i) {
                let (mover, opp) = index.unindex(i);
                let pos = Position::new(morris::Rules::STANDARD, mover, opp, x.sh, x.oh, Color::White).unwrap();
                let probed = tb.probe_class(&pos).unwrap().unwrap();
                assert_eq!((probed.class, probed.depth), (c, Some(depth)), "{x} slot {i}");
                favoured += 1;
            }
        }
    }
    assert!(favoured > 1000, "{favoured} favoured draws probed");
    let x: Sector = "4-4".parse().unwrap();
    let strong = TableFile::open(&table_path(d, x), x, &rules).unwrap();
    let good = ClassFile::open(d, &strong, values.fingerprint()).unwrap().read_all(&strong).unwrap();
    let rank = values.get(x).unwrap() as i16;
    // One draw that stays (class = rank) given a higher class (favoured: its depth is
    // not stored); one unfavoured depth changed.
    let stays = (0..good.class.len()).find(|&i| good.class[i] == rank && !x.index(morris::rules::Board::Nine).is_hole(i as u64)).unwrap();
    // (Only an unfavoured draw's depth is stored: below the rank.)
    let leaves = (0..good.class.len()).find(|&i| good.class[i] < rank && good.class[i] != NO_CLASS && !x.index(morris::rules::Board::Nine).is_hole(i as u64)).unwrap();
    for (slot, change) in [(stays, (rank + 1, 0u16)), (leaves, (good.class[leaves], good.depth[leaves] + 2))] {
        let mut bad = good.clone();
        bad.class[slot] = change.0;
        bad.depth[slot] = change.1;
        write_classes(d, &strong, &bad, rank, values.fingerprint()).unwrap();
        let found = verify_dir(d, &rules, &NoProgress).unwrap();
        assert!(found.mismatches >= 1, "slot {slot} changed to {change:?} is found");
        assert!(found.examples.iter().any(|m| m.sector == x && m.slot == slot as u64 && m.stored == change), "{:?}", found.examples);
    }
}
