//! `morris plan`: the graph of solve units that a workflow runs one job a unit
//! (docs/distributed.md).

use serde_json::Value;
use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::process::{Command, Output};

fn morris(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap()
}

fn plan(db: &Path, rules: &str, scope: &[&str]) -> Value {
    let mut args = vec!["--rules", rules, "plan", "--db", db.to_str().unwrap(), "--json"];
    args.extend(scope);
    let out = morris(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

/// Every unit comes after the units it depends on; it reads exactly the files they
/// write; its estimates are positive; and the files of all units are the tables a
/// single `morris solve` of the same scope writes, each written by one unit.
#[test]
fn units_come_after_their_dependencies_and_write_what_solve_writes() {
    for (rules, start) in [("standard", "3-3"), ("standard", "4-4"), ("lasker", "3-4")] {
        let db = tempfile::tempdir().unwrap();
        let plan = plan(db.path(), rules, &["--start", start]);
        assert_eq!(plan["rules"], rules);
        let units = plan["units"].as_array().unwrap();
        let mut done: HashSet<String> = HashSet::new();
        let mut written: HashSet<String> = HashSet::new();
        let mut writes_of = std::collections::HashMap::new();
        for u in units {
            let id = u["id"].as_str().unwrap().to_string();
            let sectors = strings(&u["sectors"]);
            assert_eq!(id, sectors.join("+"));
            for d in strings(&u["depends_on"]) {
                assert!(done.contains(&d), "{rules} {start}: {id} before its dependency {d}");
            }
            let reads: BTreeSet<String> = strings(&u["reads"]).into_iter().collect();
            let from_deps: BTreeSet<String> = strings(&u["depends_on"]).iter().flat_map(|d| writes_of.get(d).cloned().unwrap_or_default()).collect();
            assert!(reads.is_subset(&from_deps), "{id} reads {reads:?}, its dependencies write {from_deps:?}");
            for w in strings(&u["writes"]) {
                assert!(Path::new(&w).starts_with(db.path()), "{w}");
                assert!(written.insert(w.clone()), "{w} written twice");
            }
            writes_of.insert(id.clone(), strings(&u["writes"]));
            assert!(u["mem_mb"].as_u64().unwrap() > 0 && u["seconds"].as_f64().unwrap() > 0.0 && u["slots"].as_u64().unwrap() > 0, "{u}");
            assert!(done.insert(id));
        }
        assert_eq!(plan["total"]["units"].as_u64().unwrap() as usize, units.len());
        let out = morris(&["--rules", rules, "solve", "--db", db.path().to_str().unwrap(), "--start", start, "-q"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let solved: HashSet<String> =
            std::fs::read_dir(db.path()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "mtb")).map(|p| p.display().to_string()).collect();
        assert_eq!(written, solved, "{rules} {start}");
    }
}

/// The standard 3-3 game as a chain: the movement subspace, then its placement
/// sectors children first, the empty board last; Lasker's cyclic sectors are solved
/// as pairs, one unit each.
#[test]
fn small_starts_have_the_units_the_solver_takes() {
    let db = tempfile::tempdir().unwrap();
    let p = plan(db.path(), "standard", &["--start", "3-3"]);
    let ids: Vec<String> = p["units"].as_array().unwrap().iter().map(|u| u["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids.first().map(String::as_str), Some("3-3"));
    assert_eq!(ids.last().map(String::as_str), Some("0-0-3-3"));
    assert!(p["units"].as_array().unwrap().iter().skip(1).all(|u| u["method"] == "induction"));
    let p = plan(db.path(), "lasker", &["--start", "3-3"]);
    assert!(p["units"].as_array().unwrap().iter().any(|u| u["id"] == "2-3-1-0+3-2-0-1" && u["method"] == "retrograde"), "{p}");
    let p = plan(db.path(), "standard", &["--max-stones", "8"]);
    let ids: Vec<&str> = p["units"].as_array().unwrap().iter().map(|u| u["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["3-3", "3-4+4-3", "3-5+5-3", "4-4"]);
}

/// A plan for a directory of tables of other rules is refused, naming both rule sets;
/// a plan needs a scope.
#[test]
fn refuses_a_directory_of_other_rules_and_a_missing_scope() {
    let db = tempfile::tempdir().unwrap();
    let d = db.path().to_str().unwrap();
    assert!(morris(&["solve", "--db", d, "--unit", "3-3", "-q"]).status.success());
    let out = morris(&["--rules", "lasker", "plan", "--db", d, "--start", "3-3", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`standard`") && err.contains("`lasker`") && err.contains("3-3.mtb"), "{err}");
    assert!(out.stdout.is_empty());
    let out = morris(&["plan", "--db", d]);
    assert!(!out.status.success());
}

/// `scripts/log-unit-times.py` turns a solve's log into one time a unit: every table of
/// a unit carries the unit's wall and CPU seconds, so a unit of two tables counts them
/// once, not twice; a leg that kept a table adds nothing.
#[test]
fn unit_times_from_a_log_count_each_unit_once() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 is not installed: scripts/log-unit-times.py not checked");
        return;
    }
    let db = tempfile::tempdir().unwrap();
    let d = db.path().to_str().unwrap();
    let solve = morris(&["--rules", "lasker", "solve", "--db", d, "--start", "3-3"]);
    assert!(solve.status.success(), "{}", String::from_utf8_lossy(&solve.stderr));
    // A second leg keeps every table: its lines must not hide the first leg's times.
    let again = morris(&["--rules", "lasker", "solve", "--db", d, "--start", "3-3"]);
    let log = db.path().join("solve.log");
    std::fs::write(&log, [solve.stdout.clone(), again.stdout].concat()).unwrap();
    let p = plan(db.path(), "lasker", &["--start", "3-3"]);
    let plan_file = db.path().join("plan.json");
    std::fs::write(&plan_file, p.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/log-unit-times.py");
    let out = Command::new("python3").arg(script).arg(&plan_file).arg(&log).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Each table's line: its sector, then the unit's wall seconds (column 8) and CPU
    // seconds (the last), as the solve printed them.
    let mut printed = std::collections::HashMap::new();
    for line in String::from_utf8_lossy(&solve.stdout).lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() == 11 && f[1].parse::<u64>().is_ok() {
            printed.insert(f[0].to_string(), (f[7].parse::<f64>().unwrap(), f[10].parse::<f64>().unwrap()));
        }
    }
    let rows: Vec<Value> = String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let units = p["units"].as_array().unwrap();
    assert_eq!(rows.len(), units.len(), "every unit timed");
    let mut pairs = 0;
    for (row, unit) in rows.iter().zip(units) {
        let sectors = strings(&unit["sectors"]);
        let (wall, cpu) = printed[&sectors[0]];
        assert!(sectors.iter().all(|s| printed[s] == (wall, cpu)), "a unit's tables carry its time: {sectors:?}");
        assert_eq!(row["id"], unit["id"]);
        assert_eq!(row["seconds"].as_f64().unwrap(), wall, "{row}");
        assert_eq!(row["cpu_seconds"].as_f64().unwrap(), cpu, "{row}");
        pairs += (sectors.len() == 2 && wall > 0.0) as usize;
    }
    assert!(pairs > 0, "a unit of two tables with a measurable time is checked");
}
