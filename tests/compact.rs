//! Compact table sets (`morris compact`): every probe of a set that leaves tables out
//! gives what the full set gives, value, depth and every move.

use morris::table::table_path;
use morris::{Color, Position, Sector};
use morris::{Tablebase, Wdl};
use std::path::Path;
use std::process::Command;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

#[path = "common/server.rs"]
mod server;

fn morris(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap()
}

fn present(dir: &Path) -> Vec<Sector> {
    let mut v: Vec<Sector> = std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb")?.parse().ok()).collect();
    v.sort();
    v
}

#[test]
fn compact_sets_answer_every_probe_as_the_full_set() {
    let full = tempfile::tempdir().unwrap();
    let opts = morris::solve::generate::Options { dir: full.path().to_owned(), max_stones: 0, only: None, starts: vec![(4, 4), (3, 4)], rules: morris::Rules::STANDARD };
    morris::solve::generate::run(&opts, &morris::NoProgress).unwrap();
    let (compact, results) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let path = |d: &tempfile::TempDir| d.path().to_str().unwrap().to_string();
    for (out, extra) in [(&compact, None), (&results, Some("--wdl"))] {
        let mut args = vec!["compact", "--db", full.path().to_str().unwrap()];
        let o = path(out);
        args.extend(["--out", &o]);
        args.extend(extra);
        // The dry run names what it leaves out and foretells the bytes written, exactly.
        let mut dry = args.clone();
        dry.push("--dry-run");
        let plan = morris(&dry);
        assert!(plan.status.success(), "{}", String::from_utf8_lossy(&plan.stderr));
        let run = morris(&args);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert!(String::from_utf8_lossy(&run.stdout).contains("left out"));
        let written: u64 = present(out.path()).iter().map(|x| std::fs::metadata(table_path(out.path(), *x)).unwrap().len()).sum();
        let foretold = String::from_utf8_lossy(&plan.stderr).to_string();
        assert!(foretold.contains(&format!(": {written} bytes would be written")), "{foretold} against {written}");
        let named: Vec<Sector> = String::from_utf8_lossy(&plan.stdout).lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(named, present(full.path()).into_iter().filter(|x| !present(out.path()).contains(x)).collect::<Vec<_>>());
    }

    let all = present(full.path());
    let kept = present(compact.path());
    let left_out: Vec<Sector> = all.iter().copied().filter(|s| !kept.contains(s)).collect();
    assert!(left_out.len() * 3 > all.len(), "{} of {} left out", left_out.len(), all.len());
    let size = |d: &Path, s: &[Sector]| s.iter().map(|x| std::fs::metadata(table_path(d, *x)).unwrap().len()).sum::<u64>();
    assert!(size(compact.path(), &kept) * 10 < size(full.path(), &all) * 7, "the compact set is smaller");
    for x in &left_out {
        assert!(x.children(morris::rules::game::Game::standard()).iter().all(|c| kept.contains(c)), "{x} leads into a table left out");
    }

    let (tf, tc, tr) = (Tablebase::open(full.path()).unwrap(), Tablebase::open(compact.path()).unwrap(), Tablebase::open(results.path()).unwrap());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15u64);
    let mut rnd = |n: u64| rng.below(n);
    let mut checked = 0;
    for &sector in &all {
        let index = sector.index(morris::rules::Board::Nine);
        for _ in 0..20 {
            let i = rnd(index.len());
            if index.may_be_hole(i) && index.is_hole(i) {
                continue;
            }
            let (m, o) = index.unindex(i);
            let to_move = if rnd(2) == 0 { Color::White } else { Color::Black };
            let (white, black, white_hand, black_hand) = if to_move == Color::White { (m, o, sector.sh, sector.oh) } else { (o, m, sector.oh, sector.sh) };
            let pos = Position::unchecked(morris::Rules::STANDARD, white, black, white_hand, black_hand, to_move);
            let v = tf.probe(&pos).unwrap();
            assert_eq!(tc.probe(&pos).unwrap(), v, "{pos} of {sector}");
            assert_eq!(tr.probe_wdl(&pos).unwrap(), Wdl::from(v), "{pos} of {sector}");
            assert_eq!(tf.probe_moves(&pos).unwrap(), tc.probe_moves(&pos).unwrap(), "{pos}");
            let wdl = |t: &Tablebase| t.probe_moves_wdl(&pos).unwrap().into_iter().map(|m| (m.mv, m.value)).collect::<Vec<_>>();
            assert_eq!(wdl(&tf), wdl(&tr), "{pos}");
            checked += 1;
        }
    }
    assert!(checked > 10 * all.len(), "{checked} positions");

    // The empty boards, one lookup in the full set, one ply in the compact one.
    for (wk, bk) in [(4, 4), (3, 4)] {
        let start = Position::unchecked(morris::Rules::STANDARD, 0, 0, wk, bk, Color::White);
        assert_eq!(tc.probe(&start).unwrap(), tf.probe(&start).unwrap());
        assert_eq!(tc.mainline(&start).unwrap(), tf.mainline(&start).unwrap());
    }

    // The server reads a compact set's tables, with no search (which would need the
    // movement tables left out), and answers as on the full set.
    let (sc, sf) = (server::Server::start(compact.path(), &["--max-search-hand", "0"]), server::Server::start(full.path(), &[]));
    for pos in ["........................ w 4 4", "W..B.....W.............. b 2 3"] {
        let (c, f) = (sc.probe(pos), sf.probe(pos));
        assert_eq!(c["method"], "table", "{c}");
        assert_eq!((&c["result"], &c["plies"], &c["moves"]), (&f["result"], &f["plies"], &f["moves"]), "{pos}");
    }
    drop((sc, sf));

    let first_position = |sector: Sector| {
        let index = sector.index(morris::rules::Board::Nine);
        let (m, o) = index.unindex((0..index.len()).find(|&i| !(index.may_be_hole(i) && index.is_hole(i))).unwrap());
        Position::unchecked(morris::Rules::STANDARD, m, o, sector.sh, sector.oh, Color::White)
    };

    // A damaged child table is reported as damaged, never read as a value.
    let gone = left_out.iter().find(|s| !s.is_movement()).copied().unwrap();
    let child = table_path(compact.path(), gone.children(morris::rules::game::Game::standard())[0]);
    let good = std::fs::read(&child).unwrap();
    let mut bad = good.clone();
    bad[50] ^= 1;
    std::fs::write(&child, &bad).unwrap();
    let err = Tablebase::open(compact.path()).unwrap().probe(&first_position(gone)).unwrap_err().to_string();
    assert!(err.contains("corrupt") && err.contains(&format!("{}.mtb", gone.children(morris::rules::game::Game::standard())[0])), "{err}");
    std::fs::write(&child, &good).unwrap();

    // A table left out whose children are missing too is reported as missing, by name.
    std::fs::remove_file(table_path(compact.path(), gone.children(morris::rules::game::Game::standard())[0])).unwrap();
    let tc = Tablebase::open(compact.path()).unwrap();
    let err = tc.probe(&first_position(gone)).unwrap_err().to_string();
    assert!(err.contains(&format!("{gone}.mtb")) && err.contains("missing"), "{err}");
}
