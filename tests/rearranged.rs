//! Valid frames in the wrong place: two blocks of a table swapped, two WLD frames
//! swapped, a frame spliced in from another table. Every zstd frame still decodes and
//! checks itself, so only the plane hashes of the block index can tell. Every read
//! path must then give an error naming the table, never a value: a probe, a WLD-only
//! probe, the block cache, the server, a placement search's table loads and the
//! whole-table loads.

use morris::probe::Tablebase;
use morris::rules::movegen::NONE;
use morris::rules::Rules;
use morris::table::{table_path, TableFile};
use morris::{Color, Position, Sector, Subspace};
use std::path::Path;

#[path = "common/frames.rs"]
mod frames;
#[path = "common/server.rs"]
mod server;

/// The block index of a version 3 file (24-byte entries): per block, the offset, WLD and depth lengths.
fn blocks(bytes: &[u8]) -> Vec<(usize, usize, usize)> {
    let n = u32::from_le_bytes(bytes[28..32].try_into().unwrap()) as usize;
    (0..n)
        .map(|k| {
            let at = 256 + 24 * k;
            let off = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            let w = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
            let d = u32::from_le_bytes(bytes[at + 12..at + 16].try_into().unwrap()) as usize;
            (off, w, d)
        })
        .collect()
}

/// Two blocks whose WLD frames differ and have the same length, and (`whole`) whose
/// depth frames have the same length too: swapped, every frame decodes to a plane of
/// the right size, so only the plane hashes can tell.
fn pair(bytes: &[u8], whole: bool) -> Option<(usize, usize)> {
    let b = blocks(bytes);
    let range = |k: usize| {
        let (off, w, d) = b[k];
        off..off + w + if whole { d } else { 0 }
    };
    for i in 0..b.len() {
        for j in i + 1..b.len() {
            let (ri, rj) = (range(i), range(j));
            let same_lengths = b[i].1 == b[j].1 && (!whole || b[i].2 == b[j].2);
            if b[i].1 > 0 && same_lengths && ri.len() == rj.len() && bytes[b[i].0..b[i].0 + b[i].1] != bytes[b[j].0..b[j].0 + b[j].1] {
                return Some((i, j));
            }
        }
    }
    None
}

fn swap(bytes: &mut [u8], a: std::ops::Range<usize>, b: std::ops::Range<usize>) {
    let (x, y) = (bytes[a.clone()].to_vec(), bytes[b.clone()].to_vec());
    bytes[a].copy_from_slice(&y);
    bytes[b].copy_from_slice(&x);
}

/// One damage to one table: the sector, the damaged blocks and the new bytes.
struct Damage {
    what: &'static str,
    sector: Subspace,
    blocks: Vec<usize>,
    bytes: Vec<u8>,
}

fn damages(dir: &Path) -> Vec<Damage> {
    let subs: Vec<Subspace> = ["3-3", "3-4", "4-3", "4-4", "5-3", "3-5"].iter().map(|s| s.parse().unwrap()).collect();
    let read = |s: Subspace| std::fs::read(table_path(dir, s)).unwrap();
    let mut out = vec![];
    // Whole blocks swapped, and WLD frames swapped, within one table.
    for (what, whole) in [("blocks swapped", true), ("WLD frames swapped", false)] {
        let (sub, bytes, (i, j)) = subs
            .iter()
            .find_map(|&s| {
                let b = read(s);
                pair(&b, whole).map(|p| (s, b, p))
            })
            .unwrap_or_else(|| panic!("no table has two blocks to swap ({what})"));
        let b = blocks(&bytes);
        let len = |k: usize| b[k].1 + if whole { b[k].2 } else { 0 };
        let mut bytes = bytes.clone();
        swap(&mut bytes, b[i].0..b[i].0 + len(i), b[j].0..b[j].0 + len(j));
        out.push(Damage { what, sector: sub, blocks: vec![i, j], bytes });
    }
    // A WLD frame of another table, of the same length, in its place.
    let found = subs.iter().flat_map(|&a| subs.iter().map(move |&b| (a, b))).filter(|(a, b)| a != b).find_map(|(a, b)| {
        let (ba, bb) = (read(a), read(b));
        let (ia, ib) = (blocks(&ba), blocks(&bb));
        for (k, &(off, w, _)) in ia.iter().enumerate() {
            if let Some(&(o2, _, _)) = ib.iter().find(|&&(o2, w2, _)| w2 == w && w > 0 && bb[o2..o2 + w] != ba[off..off + w]) {
                let mut bytes = ba.clone();
                bytes[off..off + w].copy_from_slice(&bb[o2..o2 + w]);
                return Some(Damage { what: "frame spliced from another table", sector: a, blocks: vec![k], bytes });
            }
        }
        None
    });
    out.push(found.expect("two tables with WLD frames of equal length"));
    out
}

/// The positions of the slots of block `k` of `sub`, holes skipped (every 37th slot).
fn positions(sub: Subspace, k: usize) -> Vec<(u32, u32)> {
    let idx = Sector::from(sub).index(morris::rules::Board::Nine);
    let start = k as u64 * 8192;
    (start..(start + 8192).min(idx.len())).step_by(37).filter(|&i| !idx.is_hole(i)).map(|i| idx.unindex(i)).collect()
}

/// A placement position one placement before `(mover, opp)` of `sub` from which no move
/// captures, so that a search must read `sub`'s table to answer it.
fn placement_parent(mover: u32, opp: u32) -> Option<Position> {
    // The side to move here is `sub`'s opponent, with one stone still in hand.
    (0..24).filter(|p| opp >> p & 1 != 0).find_map(|p| {
        let q = Position::unchecked(morris::Rules::STANDARD, opp & !(1 << p), mover, 1, 0, Color::White);
        (q.validate().is_ok() && q.children().iter().all(|(mv, _)| mv.capture == NONE)).then_some(q)
    })
}

#[test]
fn frames_in_the_wrong_place_are_errors_on_every_read_path() {
    let dir = tempfile::tempdir().unwrap();
    let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 8, only: None, starts: vec![], rules: morris::Rules::STANDARD };
    morris::solve::generate::run(&opts, &morris::NoProgress).unwrap();
    let all = damages(dir.path());
    for d in all {
        let path = table_path(dir.path(), d.sector);
        let good = std::fs::read(&path).unwrap();
        std::fs::write(&path, &d.bytes).unwrap();
        let name = format!("{}.mtb", d.sector);
        let names_table = |e: &dyn std::fmt::Display| assert!(e.to_string().contains(&name), "{}: error does not name {name}: {e}", d.what);
        let mut probed = 0;
        for &k in &d.blocks {
            let pos = positions(d.sector, k);
            assert!(!pos.is_empty());
            // No cache, the default cache (asked twice: nothing wrong is kept), WLD only.
            let (bare, cached) = (Tablebase::with_cache(dir.path(), 0).unwrap(), Tablebase::open(dir.path()).unwrap());
            for &(m, o) in &pos {
                for tb in [&bare, &cached, &cached] {
                    match tb.probe_movement::<morris::Value>(m, o) {
                        Ok(v) => panic!("{}: {name} block {k} gave {v}", d.what),
                        Err(e) => names_table(&e),
                    }
                    match tb.probe_movement::<morris::Wdl>(m, o) {
                        Ok(v) => panic!("{}: {name} block {k} gave {v:?} (WLD)", d.what),
                        Err(e) => names_table(&e),
                    }
                }
                probed += 1;
            }
            // A placement search that reaches the table loads it whole: an error.
            let q = pos.iter().find_map(|&(m, o)| placement_parent(m, o)).expect("a placement position without captures");
            let searcher = morris::Searcher::new(&bare, morris::SearchOptions { tt_bytes: 1 << 20, keep_bytes: 1 << 26 });
            match searcher.solve(&q, &morris::NoProgress) {
                Ok(s) => panic!("{}: the search from {q} gave {}", d.what, s.value),
                Err(e) => names_table(&e),
            }
            // The server: an error answer, never a value.
            let srv = server::Server::start(dir.path(), &[]);
            let p = Position::movement(morris::Rules::STANDARD, Color::White, pos[0].0, pos[0].1);
            let (status, _, body) = srv.get(&format!("/api/probe?position={}", server::encode(&p.to_string())));
            assert_eq!(status, 500, "{}: {body}", d.what);
            assert!(body.contains(&name), "{}: {body}", d.what);
        }
        assert!(probed > 0);
        // Whole-table loads, and the check of `stats --check`.
        let t = TableFile::open(&path, d.sector, &Rules::STANDARD).unwrap();
        names_table(&t.read_all().expect_err("read_all"));
        names_table(&t.read_all_mapped().expect_err("read_all_mapped"));
        names_table(&t.read_wld_mapped().expect_err("read_wld_mapped"));
        names_table(&t.check().expect_err("check"));
        let mut buf = vec![];
        names_table(&t.read_block(d.blocks[0], &mut buf).expect_err("read_block"));
        std::fs::write(&path, good).unwrap();
        eprintln!("{}: {name} blocks {:?}: every read path refuses", d.what, d.blocks);
    }
}

/// Block `k`'s stored WLD region (and, with `depth`, its depth region) replaced by
/// block `j`'s frame followed by a skippable frame that ends with the checksum `k`'s
/// index entry names: the region ends as the index says and decodes to `j`'s plane.
/// `None` where `j`'s frames are not at least 12 bytes shorter than `k`'s.
fn craft(bytes: &[u8], k: usize, j: usize, depth: bool) -> Option<Vec<u8>> {
    let b = blocks(bytes);
    let (ok, wk, dk) = b[k];
    let (oj, wj, dj) = b[j];
    let fits = |short: usize, long: usize| short > 0 && short + 12 <= long;
    if !fits(wj, wk) || (depth && !fits(dj, dk)) || bytes[oj..oj + wj] == bytes[ok..ok + wk] {
        return None;
    }
    let mut out = bytes.to_vec();
    let mut region = |at: usize, len: usize, from: usize, flen: usize| {
        let r = frames::hidden_behind_skippable(&bytes[from..from + flen], len, &bytes[at + len - 4..at + len]);
        out[at..at + len].copy_from_slice(&r);
    };
    region(ok, wk, oj, wj);
    if depth {
        region(ok + wk, dk, oj + wj, dj);
    }
    Some(out)
}

/// The attack of a crafted region: another block's frame, then a skippable frame ending
/// with the checksum the index names. Each stored region must be exactly one frame, so
/// every read path refuses it, in a full set, a results-only set (`strip`) and a
/// results-only compact set (`compact --wdl`), where only the WLD plane is read.
#[test]
fn a_frame_hidden_behind_a_skippable_frame_is_an_error_on_every_read_path() {
    let src = tempfile::tempdir().unwrap();
    let opts = morris::solve::generate::Options { dir: src.path().to_owned(), max_stones: 8, only: None, starts: vec![], rules: morris::Rules::STANDARD };
    morris::solve::generate::run(&opts, &morris::NoProgress).unwrap();
    let subs: Vec<Subspace> = ["3-3", "3-4", "4-3", "4-4", "5-3", "3-5"].iter().map(|s| s.parse().unwrap()).collect();
    // The three kinds of set: full, results only, compact results only.
    let sets: Vec<(&str, tempfile::TempDir)> = ["full", "results only", "compact, results only"]
        .into_iter()
        .map(|kind| {
            let d = tempfile::tempdir().unwrap();
            for &s in &subs {
                let t = TableFile::open(&table_path(src.path(), s), s, &Rules::STANDARD).unwrap();
                match kind {
                    "full" => {
                        std::fs::copy(table_path(src.path(), s), table_path(d.path(), s)).unwrap();
                    }
                    _ => {
                        t.copy_to(d.path(), true, kind.starts_with("compact")).unwrap();
                    }
                }
            }
            (kind, d)
        })
        .collect();
    let mut attacks = 0;
    for (kind, dir) in &sets {
        let full = *kind == "full";
        // The WLD region alone, and (in a full set) the whole block.
        for depth in if full { vec![false, true] } else { vec![false] } {
            let found = subs.iter().find_map(|&s| {
                let bytes = std::fs::read(table_path(dir.path(), s)).unwrap();
                let n = blocks(&bytes).len();
                (0..n).flat_map(|k| (0..n).map(move |j| (k, j))).find_map(|(k, j)| craft(&bytes, k, j, depth).map(|b| (s, k, b)))
            });
            let (sub, k, crafted) = found.unwrap_or_else(|| panic!("{kind}: no two blocks to craft from (depth {depth})"));
            let path = table_path(dir.path(), sub);
            let good = std::fs::read(&path).unwrap();
            std::fs::write(&path, &crafted).unwrap();
            let name = format!("{sub}.mtb");
            let what = format!("{kind}, {name} block {k}{}", if depth { ", both planes" } else { ", WLD plane" });
            let names_table = |e: &dyn std::fmt::Display| assert!(e.to_string().contains(&name), "{what}: error does not name {name}: {e}");
            let (bare, cached) = (Tablebase::with_cache(dir.path(), 0).unwrap(), Tablebase::open(dir.path()).unwrap());
            let pos = positions(sub, k);
            assert!(!pos.is_empty());
            for &(m, o) in &pos {
                for tb in [&bare, &cached, &cached] {
                    if full {
                        match tb.probe_movement::<morris::Value>(m, o) {
                            Ok(v) => panic!("{what}: gave {v}"),
                            Err(e) => names_table(&e),
                        }
                    }
                    match tb.probe_movement::<morris::Wdl>(m, o) {
                        Ok(v) => panic!("{what}: gave {v:?} (WLD)"),
                        Err(e) => names_table(&e),
                    }
                }
            }
            // Whole-table reads, and the check of `stats --check`.
            let t = TableFile::open(&path, sub, &Rules::STANDARD).unwrap();
            names_table(&t.read_wld_mapped().expect_err("read_wld_mapped"));
            names_table(&t.check().expect_err("check"));
            if full {
                names_table(&t.read_all().expect_err("read_all"));
                let mut buf = vec![];
                names_table(&t.read_block(k, &mut buf).expect_err("read_block"));
                // The server: an error answer, never a value.
                let srv = server::Server::start(dir.path(), &[]);
                let p = Position::movement(morris::Rules::STANDARD, Color::White, pos[0].0, pos[0].1);
                let (status, _, body) = srv.get(&format!("/api/probe?position={}", server::encode(&p.to_string())));
                assert_eq!(status, 500, "{what}: {body}");
                assert!(body.contains(&name), "{what}: {body}");
            }
            std::fs::write(&path, good).unwrap();
            attacks += 1;
            eprintln!("{what}: every read path refuses");
        }
    }
    assert_eq!(attacks, 4);
}
