//! The real binary, run in a temporary directory.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

#[path = "common/server.rs"]
mod server;

fn morris(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap()
}

fn morris_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris")).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

/// Tables for s + o <= 7, solved once by `morris solve`.
fn db() -> &'static Path {
    static DB: OnceLock<tempfile::TempDir> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = morris(&["solve", "--db", dir.path().to_str().unwrap(), "--max-stones", "7", "--quiet"]);
        assert!(out.status.success(), "{}", text(&out));
        assert!(text(&out).contains("3 tables (3 solved now, 0 kept)"), "{}", text(&out));
        dir
    })
    .path()
}

fn dbs() -> &'static str {
    db().to_str().unwrap()
}

#[test]
fn stats_json_has_one_object_per_subspace() {
    let out = morris(&["stats", "--db", dbs(), "--json"]);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    let s34 = lines.iter().find(|o| o["subspace"] == "3-4").unwrap();
    assert_eq!(s34["positions"], 760_398);
    assert_eq!(s34["wins"], 102_281);
    assert_eq!(s34["draws"], 658_117);
    assert_eq!(s34["losses"], 0);
    assert_eq!(s34["max_win"], 33);
    assert_eq!(s34["max_loss"], 0);
}

#[test]
fn probe_for_people_and_for_scripts() {
    let out = morris(&["probe", "--db", dbs(), ".WW....B.B....B........W b"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Black to move loses in 26 plies"), "{}", text(&out));
    let lists = morris(&["probe", "--db", dbs(), "--white", "d7,g7,g1", "--black", "a7,a4,g4", "--turn", "white", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&lists.stdout).unwrap();
    assert_eq!(j["result"], "win");
    assert_eq!(j["plies"], 25);
    let moves = j["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    assert_eq!(moves[0]["result"], "win");
    assert_eq!(moves[0]["plies"], 25, "the best move keeps the value");
}

#[test]
fn probe_lines_from_stdin_report_errors_and_go_on() {
    let input = ".WW....B.B....B........W b\nnot a position\n.WW....B.B....B........W b\n";
    let out = morris_stdin(&["probe", "--db", dbs(), "--json", "-"], input);
    assert_eq!(out.status.code(), Some(1), "a bad line makes the exit status non-zero");
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["plies"], 26);
    assert!(lines[0].get("moves").is_none());
    assert!(lines[1]["error"].as_str().unwrap().contains("expected"));
    assert_eq!(lines[2]["result"], "loss");
}

#[test]
fn clear_errors_for_bad_input() {
    let out = morris(&["probe", "--db", dbs(), "WWW w"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("24 characters"), "{}", text(&out));
    let out = morris(&["probe", "--db", dbs(), "WWWW.........BBBB....... w"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("morris solve --max-stones 8"), "missing table names the fix: {}", text(&out));
    let out = morris(&["probe", "--db", "/nonexistent/dir", ".WW....B.B....B........W b"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no table directory"), "{}", text(&out));
    // Both sides below 3 stones: no game reaches it (it ended when the first fell
    // below 3), so it is refused, not called a loss in 0.
    for pos in ["WW.......BB............. w 0 0", "WW...................... w 0 0", "B....................... b"] {
        let out = morris(&["probe", "--db", dbs(), pos]);
        assert_eq!(out.status.code(), Some(2), "{pos}: {}", text(&out));
        assert!(text(&out).contains("the game is over"), "{pos}: {}", text(&out));
    }
    let out = morris(&["probe", "--db", dbs(), "WW.......BBB............ w 0 0"]);
    assert!(out.status.success() && text(&out).contains("has lost"), "a side with 2 stones to move against 3 has lost: {}", text(&out));
    let out = morris(&["solve", "--max-stones", "40"]);
    assert!(!out.status.success());
    let out = morris(&["solve", "--max-stones", "25"]);
    assert!(!out.status.success() && text(&out).contains("6..=24"), "{}", text(&out));
    let out = morris(&["solve", "--only", "2-9"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("invalid subspace"));
}

#[test]
fn one_ply_is_singular() {
    let win_in_1 = "WW.......B.B.....B.....W w";
    let out = morris(&["probe", "--db", dbs(), win_in_1]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("White to move wins in 1 ply."), "{}", text(&out));
    assert!(!text(&out).contains("1 plies"), "{}", text(&out));
    assert!(text(&morris(&["probe", "--db", dbs(), ".WW....B.B....B........W b"])).contains("loses in 26 plies"));
}

/// A hand too large names the bound of the rule set in use, not the notation's 12.
#[test]
fn a_hand_too_large_names_the_rules_bound() {
    for pos in ["........................ w 13 9", "........................ w 10 9", "........................ w 9 300"] {
        let out = morris(&["probe", "--db", dbs(), pos]);
        assert_eq!(out.status.code(), Some(2), "{pos}: {}", text(&out));
        assert!(text(&out).contains("at most 9\n") && !text(&out).contains("12"), "{pos}: {}", text(&out));
        let out = morris_stdin(&["probe", "--db", dbs(), "--json", "-"], &format!("{pos}\n"));
        assert!(text(&out).contains("at most 9\"") && !text(&out).contains("12"), "{pos}: {}", text(&out));
    }
    let out = morris(&["probe", "--rules", "morabaraba", "--db", dbs(), "........................ w 13 9"]);
    assert!(text(&out).contains("at most 12\n"), "{}", text(&out));
}

#[test]
fn verify_passes_then_catches_a_corrupted_table() {
    let out = morris(&["verify", "--db", dbs()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("0 mismatches"), "{}", text(&out));

    let dir = tempfile::tempdir().unwrap();
    for f in fs::read_dir(db()).unwrap() {
        let f = f.unwrap();
        fs::copy(f.path(), dir.path().join(f.file_name())).unwrap();
    }
    let path = dir.path().join("3-3.mtb");
    let mut bytes = fs::read(&path).unwrap();
    let at = bytes.len() - 300;
    bytes[at] ^= 0x20;
    fs::write(&path, bytes).unwrap();
    let d = dir.path().to_str().unwrap();
    let out = morris(&["verify", "--db", d]);
    assert!(!out.status.success());
    assert!(text(&out).contains("corrupt"), "{}", text(&out));
    // A probe that needs the damaged block reports it instead of answering.
    let out = morris_stdin(&["probe", "--db", d, "--json", "-"], &many_3_3_positions());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("corrupt"));
}

/// A verification cut short resumes from its journal: tables verified before, with the
/// same contents, are skipped; a table whose contents changed is checked again, and one
/// with a mismatch is never recorded as verified.
#[test]
fn verify_resumes_from_its_journal() {
    let dir = tempfile::tempdir().unwrap();
    for f in fs::read_dir(db()).unwrap() {
        let f = f.unwrap();
        fs::copy(f.path(), dir.path().join(f.file_name())).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let jdir = tempfile::tempdir().unwrap();
    let j = jdir.path().join("journal");
    let j = j.to_str().unwrap();
    let out = morris(&["verify", "--db", d, "--journal", j]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("verified 3 tables") && text(&out).contains("0 mismatches"), "{}", text(&out));
    assert!(!text(&out).contains("more tables"), "a new journal has nothing to report: {}", text(&out));
    let out = morris(&["verify", "--db", d, "--journal", j]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("verified 0 tables, 0 positions"), "{}", text(&out));
    assert!(text(&out).contains("3 more tables"), "{}", text(&out));

    // A wrong value planted in 3-3: its identity changes, so it is checked again, and
    // found; the tables that do not read it stay skipped.
    let rules = morris::Rules::STANDARD;
    let sector: morris::Sector = "3-3".parse().unwrap();
    let file = morris::TableFile::open(&dir.path().join("3-3.mtb"), sector, &rules).unwrap();
    let mut values = file.read_all().unwrap();
    drop(file);
    let index = sector.index(rules.board());
    let slot = (0..values.len() as u64).find(|&i| values[i as usize] != 0 && !(index.may_be_hole(i) && index.is_hole(i))).unwrap();
    values[slot as usize] = 0;
    morris::table::write_table(dir.path(), &rules, sector, &values, &morris::Stats::of(&index, &values)).unwrap();
    for _ in 0..2 {
        let out = morris(&["verify", "--db", d, "--journal", j]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(text(&out).contains("MISMATCH 3-3"), "{}", text(&out));
        assert!(!text(&out).contains("verified 0 tables"), "{}", text(&out));
    }
    let journal = fs::read_to_string(j).unwrap();
    assert_eq!(journal.lines().filter(|l| l.starts_with("3-3 ")).count(), 1, "only the first, good 3-3 is recorded: {journal}");
    // The same for scripts: one JSON object.
    let out = morris(&["verify", "--db", d, "--journal", j, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["mismatches"].as_u64().unwrap() > 0, "{v}");
    assert!(v["examples"].as_array().unwrap().iter().all(|m| m["sector"] == "3-3"), "{v}");
    let (tables, before) = (v["tables"].as_u64().unwrap(), v["journal"]["tables_before"].as_u64().unwrap());
    assert!(tables >= 1 && before >= 1 && tables + before == 3, "{v}");
    assert_eq!(v["rules"], "standard");
}

/// Every 3-3 position with White on a7,d7,g7 shifted around: enough to touch each block.
fn many_3_3_positions() -> String {
    let idx = morris::position::index::SubspaceIndex::new(morris::rules::Board::Nine, 3, 3);
    (0..idx.len())
        .step_by(997)
        .map(|i| {
            let (m, o) = idx.unindex(i);
            morris::Position::movement(morris::Rules::STANDARD, morris::Color::White, m, o).to_string() + "\n"
        })
        .collect()
}

#[test]
fn help_is_clear() {
    let out = morris(&["--help"]);
    for cmd in ["solve", "stats", "probe", "verify"] {
        assert!(text(&out).contains(cmd));
    }
    let out = morris(&["probe", "--help"]);
    assert!(text(&out).contains("--white"));
}

#[test]
fn draw_and_placement_probes() {
    let out = morris(&["draw", "--db", dbs(), "--stones", "3-3", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let j: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(j["stones"], "3-3");
    assert_eq!(j["result"], "win");
    assert_eq!(j["plies"], 23);
    assert_eq!(j["moves"].as_array().unwrap().len(), 24);

    let out = morris(&["draw", "--db", dbs(), "--stones", "4-4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("4-4") && text(&out).contains("--max-stones 8"), "{}", text(&out));

    let out = morris(&["probe", "--db", dbs(), "........................ w 3 3"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("White to move wins in 23 plies"), "{}", text(&out));

    // Every move of a placement position, with the position it leads to.
    let out = morris(&["probe", "--db", dbs(), "--json", "W.......B............... w 2 2"]);
    assert!(out.status.success(), "{}", text(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let moves = j["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 22);
    assert_eq!(moves[0]["result"], j["result"]);
    assert!(moves.iter().all(|m| m["position"].as_str().unwrap().ends_with(" b 1 2")));

    // A placement position whose game can reach tables that are not there.
    let out = morris(&["probe", "--db", dbs(), "........................ w 4 4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("4-4") && text(&out).contains("--max-stones 8"), "{}", text(&out));
}

#[test]
fn whole_game_tables_of_a_small_start() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = morris(&["solve", "--db", d, "--start", "3-3", "--quiet"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("7 tables (7 solved now, 0 kept)"), "{}", text(&out));
    // A rerun keeps every table.
    let out = morris(&["solve", "--db", d, "--start", "3-3", "--quiet"]);
    assert!(text(&out).contains("7 tables (0 solved now, 7 kept)"), "{}", text(&out));

    let out = morris(&["stats", "--db", d, "--json"]);
    let names: Vec<String> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["subspace"].as_str().unwrap().to_string()).collect();
    assert!(names.contains(&"0-0-3-3".to_string()) && names.contains(&"3-3".to_string()), "{names:?}");

    // The draw read from the tables equals the search's, every first move included.
    let tables = morris(&["draw", "--db", d, "--stones", "3-3", "--json"]);
    let search = morris(&["draw", "--db", d, "--stones", "3-3", "--json", "--search"]);
    let last = |o: &Output| -> serde_json::Value { serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap() };
    let (t, s) = (last(&tables), last(&search));
    assert_eq!((t["method"].as_str(), s["method"].as_str()), (Some("tables"), Some("search")));
    assert_eq!((&t["result"], &t["plies"]), (&serde_json::json!("win"), &serde_json::json!(23)));
    let sorted = |v: &serde_json::Value| {
        let mut m: Vec<String> = v["moves"].as_array().unwrap().iter().map(|m| m.to_string()).collect();
        m.sort();
        m
    };
    assert_eq!(sorted(&t), sorted(&s));

    // A probe of a placement position: the same answer from the tables as from the
    // search over the movement tables alone (the `db()` directory has no sector tables).
    let pos = "W.......B............... w 2 2";
    let a: serde_json::Value = serde_json::from_slice(&morris(&["probe", "--db", d, "--json", pos]).stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&morris(&["probe", "--db", dbs(), "--json", pos]).stdout).unwrap();
    assert_eq!((&a["result"], &a["plies"]), (&b["result"], &b["plies"]));
    assert_eq!(sorted(&a), sorted(&b));

    // Results-only copies: every move's result equals the full tables', and a probe
    // that needs depths says why it cannot answer.
    let stripped = tempfile::tempdir().unwrap();
    let s = stripped.path().to_str().unwrap();
    let out = morris(&["strip", "--db", d, "--out", s]);
    assert!(out.status.success(), "{}", text(&out));
    let w: serde_json::Value = serde_json::from_slice(&morris(&["probe", "--db", s, "--wdl", "--json", pos]).stdout).unwrap();
    assert_eq!(w["result"], a["result"]);
    let results = |v: &serde_json::Value| {
        let mut m: Vec<(String, String)> = v["moves"].as_array().unwrap().iter().map(|m| (m["move"].to_string(), m["result"].to_string())).collect();
        m.sort();
        m
    };
    assert_eq!(results(&w), results(&a));
    let out = morris(&["probe", "--db", s, pos]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("results only"), "{}", text(&out));
    assert!(morris(&["strip", "--db", d, "--out", d]).status.code() != Some(0));

    // `verify --start` checks exactly the start's tables; `--all` names what is missing.
    let out = morris(&["verify", "--db", d, "--start", "3-3"]);
    assert!(out.status.success() && text(&out).contains("verified 7 tables"), "{}", text(&out));
    let out = morris(&["verify", "--db", d, "--all"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("492 of the 498 tables") && text(&out).contains("morris solve --db"), "{}", text(&out));

    // A start with fewer than 3 stones a side is refused with a usage error.
    let out = morris(&["solve", "--db", d, "--start", "3-2"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// The portable code path (`MORRIS_NO_BMI2=1`, see `src/cpu.rs`) writes the same tables
/// as the one this processor allows, and verifies them.
#[test]
fn portable_path_writes_the_same_tables() {
    let solve = |portable: bool| {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_morris"));
        cmd.args(["solve", "--db", dir.path().to_str().unwrap(), "--start", "4-4", "--quiet"]);
        if portable {
            cmd.env("MORRIS_NO_BMI2", "1");
        } else {
            cmd.env_remove("MORRIS_NO_BMI2");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        dir
    };
    let (detected, portable) = (solve(false), solve(true));
    let mut names: Vec<_> = fs::read_dir(detected.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.retain(|n| n.to_string_lossy().ends_with(".mtb"));
    names.sort();
    assert!(names.len() > 10, "{names:?}");
    for name in &names {
        let (a, b) = (fs::read(detected.path().join(name)).unwrap(), fs::read(portable.path().join(name)).unwrap());
        assert!(a == b, "{name:?} differs between the code paths");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_morris")).args(["verify", "--db", detected.path().to_str().unwrap()]).env("MORRIS_NO_BMI2", "1").output().unwrap();
    assert!(out.status.success() && text(&out).contains(" 0 mismatches"), "{}", text(&out));
}

#[test]
fn bad_input_never_panics_and_scripts_get_json() {
    // A single position with --json: the error is a JSON object, exit status 2.
    let out = morris(&["probe", "--db", dbs(), "--json", "not a position"]);
    assert_eq!(out.status.code(), Some(2));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(j["error"].as_str().unwrap().contains("expected"), "{j}");
    // A line that is not UTF-8 gives an error line; the run goes on.
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris")).args(["probe", "--db", dbs(), "--json", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"\xff\xfe garbage\n.WW....B.B....B........W b\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["error"].as_str().unwrap().contains("UTF-8"));
    assert_eq!(lines[1]["plies"], 26);
    // A position of the other board: the error names both boards and the length, once.
    let out = morris(&["probe", "--db", dbs(), "................ w 3 3"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("16 points") && err.contains("24 characters"), "{err}");
    assert_eq!(err.matches("24 characters").count(), 1, "said once: {err}");
    // Sizes beyond the machine are refused up front.
    for size in ["99999999999999999999", "18446744073709551615", "0", "-1"] {
        let out = morris(&["draw", "--db", dbs(), "--stones", "3-3", "--tt-mib", size]);
        assert_eq!(out.status.code(), Some(2), "{size}: {}", text(&out));
        assert!(!text(&out).contains("panicked"), "{}", text(&out));
    }
}

/// `probe -` exits 2 when a line failed on a table (missing, corrupt), 1 when only
/// input lines were bad; a FIFO in the place of a table is an error, not a hang;
/// `--threads` is bounded.
#[test]
fn exit_codes_fifos_and_thread_counts() {
    let dir = tempfile::tempdir().unwrap();
    {
        let f = "3-3.mtb";
        std::fs::copy(db().join(f), dir.path().join(f)).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let missing = "WWWW.........BBBB....... w\n.WW....B.B....B........W b\n";
    let out = morris_stdin(&["probe", "--db", d, "--json", "-"], missing);
    assert_eq!(out.status.code(), Some(2), "a missing table: {}", text(&out));
    assert!(text(&out).contains("4-4.mtb is missing") && text(&out).contains("morris solve"), "{}", text(&out));
    let out = morris_stdin(&["probe", "--db", d, "-"], "garbage\n.WW....B.B....B........W b\n");
    assert_eq!(out.status.code(), Some(1), "only a bad line: {}", text(&out));

    // A FIFO named like a table: opening it for reading would block for a writer.
    let fifo = dir.path().join("3-4.mtb");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let start = std::time::Instant::now();
    let out = morris(&["probe", "--db", d, "WWWW.....B.B....B....... b"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("not a regular file"), "{}", text(&out));
    assert!(start.elapsed() < std::time::Duration::from_secs(10));

    let out = morris(&["--threads", "100000", "stats", "--db", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("--threads must be between 1 and"), "{}", text(&out));
    assert!(morris(&["--threads", "2", "probe", "--db", d, ".WW....B.B....B........W b"]).status.success());
}

/// The placement search plays every rule set without cycles: under Morabaraba, `draw
/// --search` equals the draw read from the tables, every first move included; under
/// Lasker it is refused, naming why.
#[test]
fn draw_by_search_under_other_rules() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = morris(&["solve", "--rules", "morabaraba", "--db", d, "--start", "4-4", "--quiet"]);
    assert!(out.status.success(), "{}", text(&out));
    let last = |o: &Output| -> serde_json::Value { serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap() };
    let sorted = |v: &serde_json::Value| {
        let mut m: Vec<String> = v["moves"].as_array().unwrap().iter().map(|m| m.to_string()).collect();
        m.sort();
        m
    };
    let tables = last(&morris(&["draw", "--rules", "morabaraba", "--db", d, "--stones", "4-4", "--json"]));
    let search = last(&morris(&["draw", "--rules", "morabaraba", "--db", d, "--stones", "4-4", "--json", "--search"]));
    assert_eq!((tables["method"].as_str(), search["method"].as_str()), (Some("tables"), Some("search")));
    assert_eq!((&tables["result"], &tables["plies"]), (&search["result"], &search["plies"]));
    assert_eq!(sorted(&tables), sorted(&search));
    assert!(sorted(&tables).len() == 24, "{tables}");

    let lasker = dir.path().join("lasker");
    let l = lasker.to_str().unwrap();
    assert!(morris(&["solve", "--rules", "lasker", "--db", l, "--max-stones", "6", "--quiet"]).status.success());
    let out = morris(&["draw", "--rules", "lasker", "--db", l, "--stones", "3-3", "--search"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("Lasker"), "{}", text(&out));
}

/// `morris ARGS`, which must end within 60 s (a run that goes on is killed, and the
/// test fails): a refusal must come at once, not after solving something else.
fn morris_refusing(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris")).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > until {
            child.kill().unwrap();
            panic!("`morris {}` ran instead of refusing", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A start or an `--only` subspace with more stones a side than the rule set gives is
/// refused, naming the limit, and nothing is written: `--start 10-10` ran under the
/// standard rules, and under `stones=4` `--only 5-3` exited 0 having written nothing.
#[test]
fn solve_refuses_what_the_rules_do_not_have() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let dbs = db.to_str().unwrap();
    for (args, asked, most) in [
        (vec!["--start", "10-10"], "the start 10-10", "`standard` give (at most 9)"),
        (vec!["--start", "3-3,4-10"], "the start 4-10", "`standard` give (at most 9)"),
        (vec!["--rules", "standard,stones=4", "--only", "5-3"], "the subspace 5-3", "`standard,stones=4` give (at most 4)"),
        (vec!["--rules", "standard,stones=4", "--start", "5-4"], "the start 5-4", "`standard,stones=4` give (at most 4)"),
    ] {
        let mut all = vec!["solve", "--db", dbs, "--quiet"];
        all.extend(args.iter());
        let out = morris_refusing(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(asked) && text(&out).contains(most), "{args:?}: {}", text(&out));
        let written = fs::read_dir(&db).map_or(0, |d| d.filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".mtb")).count());
        assert_eq!(written, 0, "{args:?}");
    }
    // What the rules have is solved as before.
    let out = morris(&["solve", "--db", dbs, "--quiet", "--rules", "standard,stones=4", "--only", "4-3"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(db.join("4-3.mtb").exists() && db.join("3-4.mtb").exists());
}

/// Each position error says its reason once, on every path a position comes in by: as
/// an argument, a line of `probe -` (text and JSON), and `/api/probe`. A line of
/// `probe -` printed "invalid position: White has 10 stones ...; at most 9: White has
/// 10 stones ...; at most 9", the library error's text and then its source again.
#[test]
fn position_errors_say_their_reason_once() {
    let cases = [
        ("standard", "WWWWWWWWWW.............. w", "White has 10 stones"),
        ("standard", "WWWWWWWWWWWWW........... w", "White has 13 stones"),
        ("standard", "WWW w", "must have 24 characters"),
        ("standard", "WW.......BB............. w 0 0", "the game is over"),
        ("six", "WWW..................... w", "play on 16 points"),
        ("six", "WWWWWWW......... w", "White has 7 stones"),
    ];
    let six = tempfile::tempdir().unwrap();
    let out = morris(&["solve", "--rules", "six", "--db", six.path().to_str().unwrap(), "--max-stones", "6", "--quiet"]);
    assert!(out.status.success(), "{}", text(&out));
    let once = |said: &str, phrase: &str, how: &str| {
        assert_eq!(said.matches(phrase).count(), 1, "{how}: {said}");
    };
    for (rules, pos, phrase) in cases {
        let db = if rules == "six" { six.path().to_str().unwrap() } else { dbs() };
        let args = ["probe", "--rules", rules, "--db", db];
        let out = morris(&[&args[..], &[pos]].concat());
        assert_eq!(out.status.code(), Some(2), "{pos}: {}", text(&out));
        once(&text(&out), phrase, "argument");
        let out = morris_stdin(&[&args[..], &["-"]].concat(), &format!("{pos}\n"));
        once(&text(&out), phrase, "probe -");
        let out = morris_stdin(&[&args[..], &["--json", "-"]].concat(), &format!("{pos}\n"));
        let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        once(line["error"].as_str().unwrap(), phrase, "probe --json -");
        let srv = server::Server::start(db.as_ref(), &["--rules", rules]);
        let (status, j) = srv.api("probe", pos);
        assert_eq!(status, 400, "{j}");
        once(j["error"].as_str().unwrap(), phrase, "/api/probe");
    }
}

/// `solve --json`: one object a table, as it is written or found complete, then one for
/// the run; every object parses, the tables named are the files written, and a rerun
/// reports each as kept (no seconds).
#[test]
fn solve_prints_json_for_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut seen = Vec::new();
    for (run, quiet) in [(0, false), (1, true)] {
        let mut args = vec!["solve", "--db", d, "--max-stones", "7", "--json"];
        if quiet {
            args.push("-q");
        }
        let out = morris(&args);
        assert!(out.status.success(), "{}", text(&out));
        let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
        let (last, tables) = lines.split_last().unwrap();
        let mut sectors: Vec<String> = tables.iter().map(|t| t["sector"].as_str().unwrap().to_string()).collect();
        sectors.sort();
        assert_eq!(last["tables"].as_u64().unwrap() as usize, tables.len());
        assert_eq!(last["rules"], "standard");
        for t in tables {
            assert_eq!(t["seconds"].is_null(), run == 1, "{t}");
            assert_eq!(t["cpu_seconds"].is_null(), run == 1, "{t}");
            assert!(t["positions"].as_u64().unwrap() > 0 && t["file_bytes"].as_u64().unwrap() > 0, "{t}");
        }
        assert_eq!(last["solved"].as_u64().unwrap(), if run == 0 { 3 } else { 0 }, "{last}");
        seen.push(sectors);
    }
    let mut files: Vec<String> = fs::read_dir(dir.path()).unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb").map(String::from)).collect();
    files.sort();
    assert_eq!(seen[0], files);
    assert_eq!(seen[1], files);
}

/// `--max-stones` reaches every movement subspace of a rule set with more than 9 stones
/// a side (Morabaraba's 12-12 needs 24): with 24 under `six`, exactly its 16 subspaces,
/// each side 3 to 6 stones, and nothing beyond its stones.
#[test]
fn max_stones_reaches_every_movement_subspace_of_the_rules() {
    let dir = tempfile::tempdir().unwrap();
    let out = morris(&["solve", "--rules", "six", "--db", dir.path().to_str().unwrap(), "--max-stones", "24", "--quiet"]);
    assert!(out.status.success(), "{}", text(&out));
    let mut written: Vec<String> = fs::read_dir(dir.path()).unwrap().filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb").map(String::from)).collect();
    written.sort();
    let mut expected: Vec<String> = (3..=6).flat_map(|s| (3..=6).map(move |o| format!("{s}-{o}"))).collect();
    expected.sort();
    assert_eq!(written, expected);
}
