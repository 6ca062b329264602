//! Rule sets: every table records the rules that made it, and every layer refuses
//! tables of other rules (fail closed), naming both: the library, the solver, the
//! command line and the server.

use morris::rules::Rules;
use morris::table::{table_path, write_table, TableFile};
use morris::{ProbeError, Sector, TableError, Tablebase};
use std::process::Command;

#[path = "common/server.rs"]
mod server;

fn morris(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap()
}

fn text(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A directory with the standard 3-3 table, and one whose 3-3 table says it was made
/// under `lasker` (the same values, written by the library under that rule string).
fn dirs() -> (tempfile::TempDir, tempfile::TempDir) {
    let std_dir = tempfile::tempdir().unwrap();
    let opts = morris::solve::generate::Options { dir: std_dir.path().to_owned(), max_stones: 6, only: None, starts: vec![], rules: Rules::STANDARD };
    morris::solve::generate::run(&opts, &morris::NoProgress).unwrap();
    let sector: Sector = "3-3".parse().unwrap();
    let t = TableFile::open(&table_path(std_dir.path(), sector), sector, &Rules::STANDARD).unwrap();
    let other = tempfile::tempdir().unwrap();
    let lasker: Rules = "lasker".parse().unwrap();
    write_table(other.path(), &lasker, sector, &t.read_all().unwrap(), &t.header.stats).unwrap();
    (std_dir, other)
}

#[test]
fn tables_of_other_rules_are_refused_naming_both() {
    let (std_dir, other) = dirs();
    let lasker: Rules = "lasker".parse().unwrap();
    let pos = morris::Position::parse(".WW....B.B....B........W b", morris::Rules::STANDARD).unwrap();
    // The library: standard readers refuse the lasker table, lasker readers read it.
    match Tablebase::open(other.path()).unwrap().probe(&pos) {
        Err(ProbeError::Table(e @ TableError::WrongRules { .. })) => {
            let msg = e.to_string();
            assert!(msg.contains("`lasker`") && msg.contains("`standard`"), "{msg}");
        }
        r => panic!("a lasker table read under standard rules: {r:?}"),
    }
    let lasker_pos = morris::Position::parse(".WW....B.B....B........W b", lasker).unwrap();
    assert!(Tablebase::with_rules(other.path(), lasker, 16).unwrap().probe(&lasker_pos).is_ok());
    assert!(matches!(Tablebase::with_rules(std_dir.path(), lasker, 16).unwrap().probe(&lasker_pos), Err(ProbeError::Table(TableError::WrongRules { .. }))));
    // A position knows its rules: a standard position is refused by a lasker reader
    // before any table is read, naming both rule sets.
    match Tablebase::with_rules(other.path(), lasker, 16).unwrap().probe(&pos) {
        Err(e @ ProbeError::Invalid(morris::PositionError::OtherRules(..))) => {
            let msg = e.to_string();
            assert!(msg.contains("`standard`") && msg.contains("`lasker`"), "{msg}");
        }
        r => panic!("a standard position read by a lasker reader: {r:?}"),
    }
    let t = TableFile::open(&table_path(other.path(), "3-3".parse::<Sector>().unwrap()), "3-3".parse::<Sector>().unwrap(), &lasker).unwrap();
    assert_eq!(t.header.rules, lasker);

    // The solver will not add standard tables to a directory of lasker tables.
    let before = std::fs::read(table_path(other.path(), "3-3".parse::<Sector>().unwrap())).unwrap();
    let opts = morris::solve::generate::Options { dir: other.path().to_owned(), max_stones: 6, only: None, starts: vec![], rules: Rules::STANDARD };
    let err = morris::solve::generate::run(&opts, &morris::NoProgress).unwrap_err();
    assert!(matches!(err, TableError::WrongRules { .. }), "{err}");
    assert_eq!(std::fs::read(table_path(other.path(), "3-3".parse::<Sector>().unwrap())).unwrap(), before, "nothing overwritten");

    // The command line.
    let d = other.path().to_str().unwrap();
    for args in [vec!["probe", "--db", d, ".WW....B.B....B........W b"], vec!["stats", "--db", d], vec!["verify", "--db", d], vec!["solve", "--db", d, "--max-stones", "6"]] {
        let o = morris(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("`lasker`") && text(&o).contains("`standard`"), "{args:?}: {}", text(&o));
    }
    let o = morris(&["--rules", "lasker", "stats", "--db", d, "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(r#""rules":"lasker""#), "{}", text(&o));

    // The server refuses to start over tables of other rules, naming both; under their
    // own rules it serves them, and /api/info names the server's rules.
    let o = morris(&["serve", "--db", d, "--addr", "127.0.0.1:0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("`lasker`") && text(&o).contains("`standard`") && text(&o).contains("--rules lasker"), "{}", text(&o));
    let srv = server::Server::start(other.path(), &["--rules", "lasker"]);
    assert_eq!(srv.json("/api/info").1["rules"], "lasker");
    assert_eq!(srv.api("probe", ".WW....B.B....B........W b").0, 200);
}

#[test]
fn rule_strings_are_checked_and_directories_follow_the_rules() {
    let o = morris(&["--rules", "chess", "stats"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("standard, lasker, morabaraba, twelve, six, five"), "{}", text(&o));
    let o = morris(&["--rules", "standard,stones=13", "stats"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("3..=12"), "{}", text(&o));
    // A rule set other than standard reads and writes databases/RULESET/ by default.
    let cwd = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_morris")).args(["--rules", "lasker", "stats"]).current_dir(cwd.path()).output().unwrap();
    assert!(text(&o).contains("databases/lasker"), "{}", text(&o));
    // Six solves from the command line into its own directory, and the standard
    // directory stays untouched.
    let o = Command::new(env!("CARGO_BIN_EXE_morris")).args(["--rules", "six", "solve", "-q"]).current_dir(cwd.path()).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("databases/six"), "{}", text(&o));
    assert!(cwd.path().join("databases/six/4-4.mtb").exists());
    assert!(!cwd.path().join("databases/4-4.mtb").exists());
}

/// The command line end to end under rule sets other than standard: Morabaraba and
/// Lasker starts solved, verified, drawn and probed with their own rules (the
/// diagonals drawn and moved along), and each directory refused under the others.
#[test]
fn other_rule_sets_solve_verify_draw_and_probe() {
    let root = tempfile::tempdir().unwrap();
    for (rules, start, value) in [("morabaraba", "3-3", "White wins in 9 plies"), ("lasker", "3-3", "White wins in 23 plies")] {
        let dir = root.path().join(rules);
        let d = dir.to_str().unwrap();
        // The 4-4 start too: its Lasker sectors have placements and moves, each with
        // captures, and the verifier must take them all.
        let o = morris(&["--rules", rules, "solve", "--db", d, "--start", &format!("{start},4-4"), "-q"]);
        assert!(o.status.success(), "{rules}: {}", text(&o));
        let o = morris(&["--rules", rules, "verify", "--db", d]);
        assert!(o.status.success() && text(&o).contains(": 0 mismatches"), "{rules}: {}", text(&o));
        let o = morris(&["--rules", rules, "draw", "--db", d, "--stones", start]);
        assert!(o.status.success() && text(&o).contains(value), "{rules}: {}", text(&o));
        // Standard readers refuse these tables, naming both rule sets.
        let o = morris(&["verify", "--db", d]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(&format!("`{rules}`")) && text(&o).contains("`standard`"), "{}", text(&o));
    }
    // Morabaraba: the board has diagonals, and a stone moves along one.
    let d = root.path().join("morabaraba");
    let o = morris(&["--rules", "morabaraba", "probe", "--db", d.to_str().unwrap(), "--white", "a7,d1,g1", "--black", "d7,g4,b4", "--turn", "white"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert!(out.lines().nth(1).unwrap().contains('\\'), "the a7-b6 diagonal is drawn: {out}");
    assert!(out.contains("a7-b6 "), "a7 moves along the diagonal: {out}");
    let o = morris(&["probe", "--db", d.to_str().unwrap(), "--white", "a7,d1,g1", "--black", "d7,g4,b4", "--turn", "white"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    // Lasker: with stones in hand a side may also move a stone.
    let d = root.path().join("lasker");
    let o = morris(&["--rules", "lasker", "probe", "--db", d.to_str().unwrap(), "--json", "W.......B............... w 2 2"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains(r#""move":"a7-d7""#), "a Lasker move of a stone with stones in hand: {}", text(&o));
}

/// Six and Five Men's Morris, on the 16-point board: the whole game solves, verifies
/// and draws from the command line, and positions use the board's own notation.
/// (Their values equal the family reference's in `tests/family_match.rs`.)
#[test]
fn the_sixteen_point_board_from_the_command_line() {
    let root = tempfile::tempdir().unwrap();
    for rules in ["six", "five"] {
        let dir = root.path().join(rules);
        let d = dir.to_str().unwrap();
        let o = morris(&["--rules", rules, "solve", "--db", d, "--all", "-q"]);
        assert!(o.status.success(), "{rules}: {}", text(&o));
        let o = morris(&["--rules", rules, "verify", "--db", d, "--all"]);
        assert!(o.status.success() && text(&o).contains(": 0 mismatches"), "{rules}: {}", text(&o));
        let o = morris(&["--rules", rules, "draw", "--db", d, "--json"]);
        assert!(o.status.success(), "{rules}: {}", text(&o));
        let stones = if rules == "six" { "6-6" } else { "5-5" };
        assert!(text(&o).contains(&format!(r#""stones":"{stones}""#)), "the rule set's own start: {}", text(&o));
    }
    let d = root.path().join("six");
    let d = d.to_str().unwrap();
    // White has a mill to close on c5 (a5-c5-e5): the move takes a stone, named on
    // the 16-point board.
    let o = morris(&["--rules", "six", "probe", "--db", d, "WW..BB.......... w 4 4"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("  a   b   c   d   e\n") && out.contains("3 .---.       .---."), "the 16-point diagram: {out}");
    assert!(out.lines().any(|l| l.starts_with("e5xc4 ")), "e5 closes a5-c5-e5 and takes c4: {out}");
    let o = morris(&["--rules", "six", "probe", "--db", d, "--json", "--white", "a5,c5,e5", "--black", "b4,c4,d3", "--turn", "black"]);
    assert!(o.status.success() && text(&o).contains(r#""position":"WWWBB...B....... b""#), "{}", text(&o));
    // A position of the 24-point board is refused by the six rules, and the reverse.
    let o = morris(&["--rules", "six", "probe", "--db", d, "........................ w 6 6"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("a board of 24 points") && text(&o).contains("16 characters"), "{}", text(&o));
    let o = morris(&["probe", "--db", d, "................ w 6 6"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// Under `take=each` a placement that closes two mills is one move however the two
/// removals are ordered: the probe (by the placement search, the sector table being
/// absent), its JSON and the library each list `d7xa1xb4` exactly once, and no move
/// twice.
#[test]
fn a_double_capture_is_listed_once() {
    let dir = tempfile::tempdir().unwrap();
    let rules = "standard,take=each";
    let o = morris(&["solve", "--rules", rules, "--db", dir.path().to_str().unwrap(), "--max-stones", "9", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let pos = "W.W.W..W..B..........B.. w 1 2";
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["probe", "--rules", rules, "--db", dir.path().to_str().unwrap(), "--json", "--moves", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(format!("{pos}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let names: Vec<String> = j["moves"].as_array().unwrap_or_else(|| panic!("{j}")).iter().map(|m| m["move"].as_str().unwrap().to_string()).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "a move listed twice: {names:?}");
    assert_eq!(names.iter().filter(|n| *n == "d7xa1xb4").count(), 1, "{names:?}");
    // The library's move list too.
    let r: Rules = rules.parse().unwrap();
    let p = morris::Position::parse(pos, r).unwrap();
    let moves: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
    assert_eq!(moves.len(), names.len(), "{moves:?} against {names:?}");
}
