//! Table files: round trip, corruption and truncation are reported, and `solve` resumes.

use morris::solve::generate::{self, Options};
use morris::table::{table_path, TableError, TableFile};
use morris::NoProgress;
use morris::{Sector, Subspace};
use std::fs;
use std::path::Path;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

fn solve(dir: &Path, max: u8) -> Vec<generate::Report> {
    generate::run(&Options { dir: dir.to_owned(), max_stones: max, only: None, starts: vec![], rules: morris::Rules::STANDARD }, &NoProgress).unwrap()
}

fn s(name: &str) -> Subspace {
    name.parse().unwrap()
}

#[test]
fn written_tables_read_back_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let first = solve(dir.path(), 7);
    assert_eq!(first.len(), 3);
    assert!(first.iter().all(|r| r.seconds.is_some()));
    let t = TableFile::open(&table_path(dir.path(), s("3-4")), s("3-4"), &morris::rules::Rules::STANDARD).unwrap();
    assert_eq!(t.header.stats.wins, 102_281);
    assert_eq!(t.read_all().unwrap().len() as u64, t.header.entries);

    // A rerun keeps everything.
    let again = solve(dir.path(), 7);
    assert!(again.iter().all(|r| r.seconds.is_none()), "complete tables are kept");

    // A missing or damaged table is solved again; a stale temporary file is harmless.
    fs::remove_file(table_path(dir.path(), s("4-3"))).unwrap();
    fs::write(dir.path().join("4-3.mtb.tmp"), b"half a table").unwrap();
    let path33 = table_path(dir.path(), s("3-3"));
    let mut bytes = fs::read(&path33).unwrap();
    let last = bytes.len() - 10;
    bytes[last] ^= 0x55;
    fs::write(&path33, &bytes).unwrap();
    let third = solve(dir.path(), 7);
    let redone: Vec<String> = third.iter().filter(|r| r.seconds.is_some()).map(|r| r.sector.to_string()).collect();
    assert_eq!(redone, vec!["3-3", "3-4", "4-3"]);
    assert!(!dir.path().join("4-3.mtb.tmp").exists());
    TableFile::open(&path33, s("3-3"), &morris::rules::Rules::STANDARD).unwrap().read_all().unwrap();
}

#[test]
fn corruption_and_truncation_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), 6);
    let path = table_path(dir.path(), s("3-3"));
    let good = fs::read(&path).unwrap();

    // A flipped byte inside a compressed block.
    let mut bad = good.clone();
    let at = good.len() - 100;
    bad[at] ^= 0xff;
    fs::write(&path, &bad).unwrap();
    let t = TableFile::open(&path, s("3-3"), &morris::rules::Rules::STANDARD).unwrap();
    assert!(matches!(t.read_all(), Err(TableError::Corrupt { .. })));

    // A flipped byte in the header.
    let mut bad = good.clone();
    bad[50] ^= 1;
    fs::write(&path, &bad).unwrap();
    assert!(matches!(TableFile::open(&path, s("3-3"), &morris::rules::Rules::STANDARD), Err(TableError::Corrupt { .. })));

    // Truncated files.
    for len in [0, 60, 200, good.len() - 1] {
        fs::write(&path, &good[..len]).unwrap();
        let err = TableFile::open(&path, s("3-3"), &morris::rules::Rules::STANDARD).err().expect("truncated file must not open");
        assert!(matches!(err, TableError::Truncated { .. }), "{len}: {err}");
    }

    // Not a table at all, and the wrong subspace.
    fs::write(&path, vec![b'x'; 4096]).unwrap();
    assert!(matches!(TableFile::open(&path, s("3-3"), &morris::rules::Rules::STANDARD), Err(TableError::BadMagic { .. })));
    fs::write(&path, &good).unwrap();
    assert!(matches!(TableFile::open(&path, s("4-4"), &morris::rules::Rules::STANDARD), Err(TableError::Corrupt { .. })));
    assert!(matches!(TableFile::open(&table_path(dir.path(), s("5-5")), s("5-5"), &morris::rules::Rules::STANDARD), Err(TableError::Missing { .. })));
}

#[test]
fn only_solves_the_unit_and_missing_dependencies() {
    let dir = tempfile::tempdir().unwrap();
    let reports = generate::run(&Options { dir: dir.path().to_owned(), max_stones: 6, only: Some(s("4-3")), starts: vec![], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
    let names: Vec<String> = reports.iter().map(|r| r.sector.to_string()).collect();
    assert_eq!(names, vec!["3-3", "3-4", "4-3"]);
    assert!(!table_path(dir.path(), s("4-4")).exists());
}

#[test]
fn regenerated_tables_match_known_good_checksums() {
    let known = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/databases/checksums.txt")).unwrap();
    let known: std::collections::HashMap<&str, &str> = known.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).map(|l| l.split_once(' ').unwrap()).collect();
    let dir = tempfile::tempdir().unwrap();
    let reports = solve(dir.path(), 8);
    assert_eq!(reports.len(), 6);
    for r in reports {
        let t = TableFile::open(&table_path(dir.path(), r.sector), r.sector, &morris::rules::Rules::STANDARD).unwrap();
        let want = known.get(r.sector.to_string().as_str()).expect("every s+o <= 8 table has a known checksum");
        assert_eq!(format!("{:016x}", t.header.content_hash), *want, "{}", r.sector);
    }
}

#[test]
fn tablebase_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<morris::probe::Tablebase>();
}

/// Damaged files never panic and never yield a value that differs from the truth:
/// every probe either returns the right value or an error.
#[test]
fn random_damage_gives_errors_not_wrong_values() {
    use morris::probe::Tablebase;
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), 6);
    let path = table_path(dir.path(), s("3-3"));
    let good = fs::read(&path).unwrap();
    let truth = TableFile::open(&path, s("3-3"), &morris::rules::Rules::STANDARD).unwrap().read_all().unwrap();
    let truth_wld = pack(&truth);
    let idx = Sector::from(s("3-3")).index(morris::rules::Board::Nine);
    let probes: Vec<u64> = (0..idx.len()).step_by(211).filter(|&i| !idx.is_hole(i)).collect();
    let mut rng = Rng(0x0123_4567_89ab_cdefu64);
    for round in 0..300 {
        let x = rng.next();
        let mut bad = good.clone();
        let flips = 1 + (x % 3) as usize;
        for f in 0..flips {
            let at = ((x >> (8 * f)) as usize).wrapping_mul(2654435761) % bad.len();
            bad[at] ^= 1 << ((x >> 40) % 8) as u8 | 1;
        }
        if round % 10 == 0 {
            bad.truncate((x % bad.len() as u64) as usize);
        }
        fs::write(&path, &bad).unwrap();
        let tb = Tablebase::with_cache(dir.path(), 0).unwrap();
        for &i in &probes {
            let (m, o) = idx.unindex(i);
            if let Ok(v) = tb.probe_movement::<morris::Value>(m, o) {
                assert_eq!(v.encode().unwrap(), truth[i as usize], "round {round}: slot {i} read wrong");
            }
        }
        if let Ok(t) = TableFile::open(&path, s("3-3"), &morris::rules::Rules::STANDARD) {
            if let Ok(all) = t.read_all() {
                assert_eq!(all, truth, "round {round}");
            }
            if let Ok(all) = t.read_all_mapped() {
                assert_eq!(&all[..], &truth[..], "round {round}");
            }
            if let Ok(wld) = t.read_wld_mapped() {
                assert_eq!(&wld[..truth_wld.len()], &truth_wld[..], "round {round}");
            }
        }
    }
}

/// 2-bit result codes of value bytes, four per byte, as `read_wld_mapped` lays them out.
fn pack(values: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; values.len().div_ceil(4)];
    for (i, &v) in values.iter().enumerate() {
        let code = if v == 0 {
            0
        } else if v < 128 {
            1
        } else {
            2
        };
        out[i / 4] |= code << (2 * (i % 4));
    }
    out
}

#[test]
fn packed_results_match_the_values() {
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), 8);
    for sub in Subspace::all().filter(|s| s.total() <= 8) {
        let t = TableFile::open(&table_path(dir.path(), sub), sub, &morris::rules::Rules::STANDARD).unwrap();
        let values = t.read_all().unwrap();
        assert_eq!(&t.read_all_mapped().unwrap()[..], &values[..], "{sub}");
        assert_eq!(&t.read_wld_mapped().unwrap()[..], &pack(&values)[..], "{sub}");
    }
}

/// A placement search that meets a damaged table fails, and what it stored in the
/// shared transposition table does not leak into later answers: one `Tablebase`, a
/// failing probe, then probes that are right or fail loudly.
#[test]
fn failed_placement_search_does_not_poison_later_probes() {
    use morris::probe::Tablebase;
    use morris::{Position, Value};
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), 8);
    let path = table_path(dir.path(), s("4-4"));
    let mut bytes = fs::read(&path).unwrap();
    let n = bytes.len();
    for b in &mut bytes[n / 2..n / 2 + 64] {
        *b ^= 0x5a;
    }
    fs::write(&path, bytes).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let searcher = morris::Searcher::new(&tb, morris::SearchOptions { tt_bytes: 1 << 24, keep_bytes: 1 << 28 });
    let probe = |p: &Position| searcher.value(p, &NoProgress);
    let four = Position::parse("........................ w 4 4", morris::Rules::STANDARD).unwrap();
    assert!(probe(&four).is_err(), "a search over a damaged table must fail");
    let three = Position::parse("........................ w 3 3", morris::Rules::STANDARD).unwrap();
    assert_eq!(probe(&three).unwrap(), Value::Win(23));
    let mid = Position::parse("W.....B....W...B........ w 2 2", morris::Rules::STANDARD).unwrap();
    assert!(probe(&mid).is_err(), "the damaged table is still damaged");
    assert_eq!(probe(&three).unwrap(), Value::Win(23));
    assert!(tb.probe(&three).is_err(), "a lookup never searches");
}

/// A file whose index layout fingerprint differs (header checksum made consistent, as
/// a build with another layout would write it) is refused, not decoded.
#[test]
fn files_of_another_index_layout_are_refused() {
    use xxhash_rust::xxh3::Xxh3;
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), 7);
    let path = table_path(dir.path(), s("3-4"));
    let mut bytes = fs::read(&path).unwrap();
    assert_ne!(u64::from_le_bytes(bytes[96..104].try_into().unwrap()), 0, "new files carry a fingerprint");
    bytes[96] ^= 1;
    let blocks = u32::from_le_bytes(bytes[28..32].try_into().unwrap()) as usize;
    let mut h = Xxh3::new();
    h.update(&bytes[..120]);
    h.update(&bytes[128..256 + 24 * blocks]);
    let hash = h.digest().to_le_bytes();
    bytes[120..128].copy_from_slice(&hash);
    fs::write(&path, bytes).unwrap();
    match TableFile::open(&path, s("3-4"), &morris::rules::Rules::STANDARD) {
        Err(TableError::Corrupt { detail, .. }) => assert!(detail.contains("fingerprint"), "{detail}"),
        other => panic!("expected a refusal, got {:?}", other.map(|t| t.header)),
    }
}

/// Two runs on one directory: the second is refused while the first holds the lock.
#[test]
fn a_second_solve_on_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let lock = fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.path().join(".morris.lock")).unwrap();
    lock.try_lock().unwrap();
    let err = generate::run(&Options { dir: dir.path().to_owned(), max_stones: 6, only: None, starts: vec![], rules: morris::Rules::STANDARD }, &NoProgress).unwrap_err();
    assert!(err.to_string().contains("another morris process"), "{err}");
    drop(lock);
    solve(dir.path(), 6);
}

#[test]
fn a_sector_out_of_range_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let tb = morris::probe::Tablebase::open(dir.path()).unwrap();
    for bad in [Sector { s: 12, o: 3, sh: 0, oh: 0 }, Sector { s: 0, o: 10, sh: 0, oh: 0 }, Sector { s: 3, o: 3, sh: 0, oh: 200 }] {
        match tb.table(bad) {
            Err(morris::table::TableError::NoSuchSector(x)) => assert_eq!(x, bad),
            Err(e) => panic!("{bad}: {e}"),
            Ok(_) => panic!("{bad} opened"),
        }
    }
}

/// A results-only probe keeps the block's WLD plane in the block cache; a full probe of
/// the same block afterwards reads the depths, never that plane alone. Checked against
/// a tablebase without a cache, on every slot of two tables, results first.
#[test]
fn cached_results_never_answer_a_probe_for_depth() {
    use morris::{Color, Position, Tablebase, Value, Wdl};
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path(), 7);
    let cached = Tablebase::open(dir.path()).unwrap();
    let plain = Tablebase::with_cache(dir.path(), 0).unwrap();
    let mut decided = 0;
    for name in ["3-4", "4-3"] {
        let sub = s(name);
        let idx = morris::position::index::SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o);
        for i in (0..idx.len()).filter(|&i| !idx.is_hole(i)) {
            let (m, o) = idx.unindex(i);
            let pos = Position::movement(morris::Rules::STANDARD, Color::White, m, o);
            let wdl = cached.probe_wdl(&pos).unwrap();
            let want = plain.probe(&pos).unwrap();
            assert_eq!(cached.probe(&pos).unwrap(), want, "{name} slot {i}");
            assert_eq!(plain.probe_wdl(&pos).unwrap(), wdl, "{name} slot {i}");
            let expect = match want {
                Value::Win(_) => Wdl::Win,
                Value::Draw => Wdl::Draw,
                Value::Loss(_) => Wdl::Loss,
            };
            assert_eq!(wdl, expect, "{name} slot {i}");
            decided += (want != Value::Draw) as u64;
        }
    }
    assert!(decided > 10_000, "{decided}");
}
