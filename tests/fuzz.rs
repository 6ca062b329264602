//! Randomised robustness tests ("fuzz targets" that run on the stable toolchain): the
//! position parser, the table reader and the CLI line protocol, over random and
//! mutated inputs. Each runs a bounded number of cases in CI; `FUZZ_CASES=N` (per
//! target) runs longer, e.g. `FUZZ_CASES=1000000 cargo test --release --test fuzz`.
//! Failures print the case's seed.

use morris::probe::Tablebase;
use morris::solve::generate::{self, Options};
use morris::table::{table_path, TableFile};
use morris::NoProgress;
use morris::{Color, Position, Sector};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[path = "common/frames.rs"]
mod frames;
#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

fn cases(default: u64) -> u64 {
    std::env::var("FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

const SEEDS: [&str; 6] = [
    "........................ w 9 9",
    ".WW....B.B....B........W b",
    "W.B.W...B......W........ b 6 7",
    "WWWWWWWW.BBBBBB......... w",
    "BWW......B....B........W w 0 0",
    "........................ b 3 3",
];
const ALPHABET: &[u8] = b"WB.wb0123456789 -x\t\n\r\xc3\xa9\xff";

/// A seed string with a few random edits (replace, insert, delete, truncate).
fn mutate(rng: &mut Rng) -> Vec<u8> {
    let mut s = SEEDS[rng.below(SEEDS.len() as u64) as usize].as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(s.len() as u64 + 1) as usize;
        let c = ALPHABET[rng.below(ALPHABET.len() as u64) as usize];
        match rng.below(4) {
            0 if at < s.len() => s[at] = c,
            1 => s.insert(at, c),
            2 if at < s.len() => {
                s.remove(at);
            }
            _ => s.truncate(at),
        }
    }
    s
}

#[test]
fn position_parser_never_panics_and_round_trips() {
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    for case in 0..cases(200_000) {
        let bytes = if rng.below(8) == 0 { (0..rng.below(40)).map(|_| rng.next() as u8).collect() } else { mutate(&mut rng) };
        let text = String::from_utf8_lossy(&bytes);
        // Every rule set's parser: the 24-point boards (standard, Morabaraba's 12 a
        // side) and the 16-point one.
        for rules in ["standard", "morabaraba", "six"] {
            let rules: morris::Rules = rules.parse().unwrap();
            if let Ok(p) = Position::parse(&text, rules) {
                assert!(p.validate().is_ok(), "case {case}: {text:?}");
                assert_eq!(p.rules(), rules);
                assert_eq!(Position::parse(&p.to_string(), rules).unwrap(), p, "case {case}: {text:?}");
            }
        }
    }
}

/// Damaged copies of real tables (a placement sector and a movement subspace): every
/// read returns the true value or an error, never another value, and never panics.
#[test]
fn table_reader_returns_the_truth_or_an_error() {
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let rounds = cases(300);
    let (mut rearranged, mut hidden) = (0, 0);
    let names = ["2-3-1-0", "3-3"];
    let files: Vec<Vec<u8>> = names.iter().map(|n| fs::read(table_path(dir.path(), n.parse::<Sector>().unwrap())).unwrap()).collect();
    for (which, name) in names.into_iter().enumerate() {
        let sector: Sector = name.parse().unwrap();
        let path = table_path(dir.path(), sector);
        let good = fs::read(&path).unwrap();
        let other = &files[1 - which];
        let truth = TableFile::open(&path, sector, &morris::rules::Rules::STANDARD).unwrap().read_all().unwrap();
        let index = sector.index(morris::rules::Board::Nine);
        let slots: Vec<u64> = (0..64).map(|_| rng.below(index.len())).filter(|&i| !(index.may_be_hole(i) && index.is_hole(i))).collect();
        for round in 0..rounds {
            let mut bad = good.clone();
            match rng.below(6) {
                // Valid frames in the wrong place: each still decodes and checks itself.
                4 => rearranged += rearrange(&mut bad, other, &mut rng) as usize,
                // A shorter valid frame, then a skippable frame ending in the checksum
                // the index names: zstd decodes the first and skips the second.
                5 => hidden += hide(&mut bad, other, &mut rng) as usize,
                // Flipped bits anywhere.
                0 | 1 => {
                    for _ in 0..1 + rng.below(4) {
                        let at = rng.below(bad.len() as u64) as usize;
                        bad[at] ^= 1 << rng.below(8);
                    }
                }
                // Truncated.
                2 => bad.truncate(rng.below(bad.len() as u64) as usize),
                // Random bytes after a real header, or random bytes throughout.
                _ => {
                    let keep = if rng.below(2) == 0 { 128 } else { 0 };
                    for b in bad.iter_mut().skip(keep) {
                        *b = rng.next() as u8;
                    }
                }
            }
            fs::write(&path, &bad).unwrap();
            let tb = Tablebase::with_cache(dir.path(), 0).unwrap();
            for &i in &slots {
                let (m, o) = index.unindex(i);
                let pos = Position::unchecked(morris::Rules::STANDARD, m, o, sector.sh, sector.oh, Color::White);
                if let Ok(v) = tb.probe(&pos) {
                    assert_eq!(v.encode(), Some(truth[i as usize]), "{name} round {round}: slot {i} read wrong");
                }
                if let Ok(w) = tb.probe_wdl(&pos) {
                    let code = match truth[i as usize] {
                        0 => morris::Wdl::Draw,
                        1..=127 => morris::Wdl::Win,
                        _ => morris::Wdl::Loss,
                    };
                    assert_eq!(w, code, "{name} round {round}: slot {i} result read wrong");
                }
            }
            if let Ok(t) = TableFile::open(&path, sector, &morris::rules::Rules::STANDARD) {
                if let Ok(all) = t.read_all() {
                    assert_eq!(all, truth, "{name} round {round}");
                }
            }
        }
        fs::write(&path, &good).unwrap();
    }
    assert!(rearranged as u64 * 20 > rounds, "only {rearranged} of {rounds} rounds rearranged frames");
    assert!(hidden as u64 * 20 > rounds, "only {hidden} of {rounds} rounds hid a frame behind a skippable one");
}

/// Replaces a frame of `bad` by a shorter frame (of `bad` or of `other`) followed by a
/// skippable frame whose last 4 bytes are the replaced frame's checksum. Whether it
/// found a frame long enough.
fn hide(bad: &mut [u8], other: &[u8], rng: &mut Rng) -> bool {
    let (mine, theirs) = (frames(bad), frames(other));
    for _ in 0..2000 {
        let a = mine[rng.below(mine.len() as u64) as usize];
        let from_other = rng.below(2) == 0;
        let b = if from_other { theirs[rng.below(theirs.len() as u64) as usize] } else { mine[rng.below(mine.len() as u64) as usize] };
        if b.1 + 12 > a.1 {
            continue;
        }
        let src = if from_other { other } else { &*bad };
        let region = frames::hidden_behind_skippable(&src[b.0..b.0 + b.1], a.1, &bad[a.0 + a.1 - 4..a.0 + a.1]);
        bad[a.0..a.0 + a.1].copy_from_slice(&region);
        return true;
    }
    false
}

/// The frames of a version 3 file: (offset, length) of every non-empty WLD and depth frame.
fn frames(bytes: &[u8]) -> Vec<(usize, usize)> {
    let n = u32::from_le_bytes(bytes[28..32].try_into().unwrap()) as usize;
    let mut out = vec![];
    for k in 0..n {
        let at = 256 + 24 * k;
        let off = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        let w = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        let d = u32::from_le_bytes(bytes[at + 12..at + 16].try_into().unwrap()) as usize;
        out.extend([(off, w), (off + w, d)].into_iter().filter(|f| f.1 > 0));
    }
    out
}

/// Swaps two frames of `bad` of equal length, or copies one of `other` over one of
/// `bad`: whole, valid zstd frames in the wrong place. Whether it found such a pair.
fn rearrange(bad: &mut [u8], other: &[u8], rng: &mut Rng) -> bool {
    let (mine, theirs) = (frames(bad), frames(other));
    for _ in 0..2000 {
        let a = mine[rng.below(mine.len() as u64) as usize];
        let from_other = rng.below(2) == 0;
        let b = if from_other { theirs[rng.below(theirs.len() as u64) as usize] } else { mine[rng.below(mine.len() as u64) as usize] };
        let src = if from_other { other } else { &*bad };
        if a.1 != b.1 || bad[a.0..a.0 + a.1] == src[b.0..b.0 + b.1] {
            continue;
        }
        let (x, y) = (bad[a.0..a.0 + a.1].to_vec(), src[b.0..b.0 + b.1].to_vec());
        bad[a.0..a.0 + a.1].copy_from_slice(&y);
        if !from_other {
            bad[b.0..b.0 + b.1].copy_from_slice(&x);
        }
        return true;
    }
    false
}

/// `morris probe --json --moves -` answers one line per line, whatever the lines are.
#[test]
fn cli_line_protocol_answers_every_line() {
    let dir = tempfile::tempdir().unwrap();
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["probe", "--db", dir.path().to_str().unwrap(), "--json", "--moves", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut answered = 0;
    for case in 0..cases(3_000) {
        let mut line = mutate(&mut rng);
        line.retain(|&b| b != b'\n' && b != b'\r');
        if String::from_utf8_lossy(&line).trim().is_empty() {
            continue;
        }
        line.push(b'\n');
        stdin.write_all(&line).unwrap();
        stdin.flush().unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        let j: serde_json::Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("case {case}: {answer:?}: {e}"));
        assert!(j.get("result").is_some() || j.get("error").is_some(), "case {case}: {j}");
        answered += 1;
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    // 1 for bad lines, 2 when some line needed a table that is not there.
    assert!(matches!(out.status.code(), Some(0) | Some(1) | Some(2)), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    assert!(answered > 100);
}
