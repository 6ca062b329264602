//! `morris solve --unit ID`: one unit of the plan solved alone, in a directory other
//! workers write at once (docs/distributed.md).

use morris::table::TableFile;
use morris::{Rules, Sector};
use std::fs;
use std::path::Path;

#[path = "common/tables.rs"]
mod table_files;
use std::process::{Command, Output, Stdio};
use std::time::Duration;
use table_files::tables;

fn morris(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_morris"));
    c.args(args);
    c
}

fn unit(db: &Path, rules: &str, id: &str) -> Output {
    morris(&["--rules", rules, "solve", "--db", db.to_str().unwrap(), "--unit", id, "-q"]).output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn plan_ids(db: &Path, rules: &str, start: &str) -> Vec<String> {
    let out = ok(&morris(&["--rules", rules, "plan", "--db", db.to_str().unwrap(), "--start", start, "--json"]).output().unwrap());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["units"].as_array().unwrap().iter().map(|u| u["id"].as_str().unwrap().to_string()).collect()
}

/// Solves the units of the plan one by one, a process each.
fn solve_units(db: &Path, rules: &str, ids: &[String]) {
    for id in ids {
        ok(&unit(db, rules, id));
    }
}

/// The units of a plan, each solved alone in the plan's order, write the tables of a
/// single `morris solve`, byte for byte (movement pairs, placement sectors, Lasker's
/// cyclic placement pairs).
#[test]
fn units_one_by_one_equal_one_solve() {
    for (rules, start) in [("standard", "4-4"), ("lasker", "4-3"), ("morabaraba", "3-4")] {
        let whole = tempfile::tempdir().unwrap();
        ok(&morris(&["--rules", rules, "solve", "--db", whole.path().to_str().unwrap(), "--start", start, "-q"]).output().unwrap());
        let parts = tempfile::tempdir().unwrap();
        solve_units(parts.path(), rules, &plan_ids(parts.path(), rules, start));
        let (want, got) = (tables(whole.path()), tables(parts.path()));
        assert!(want.len() > 5);
        assert_eq!(want.keys().collect::<Vec<_>>(), got.keys().collect::<Vec<_>>(), "{rules} {start}");
        for (name, bytes) in &want {
            assert!(bytes == &got[name], "{rules} {start}: {name} differs");
        }
    }
}

/// A unit whose dependency is missing is refused before anything is written, naming
/// the file and the unit that writes it.
#[test]
fn refuses_a_missing_dependency_naming_the_file() {
    let db = tempfile::tempdir().unwrap();
    let out = unit(db.path(), "standard", "4-4");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&db.path().join("3-4.mtb").display().to_string()) && err.contains("missing"), "{err}");
    assert!(err.contains("--unit 3-4+4-3"), "the hint names the unit to solve first: {err}");
    assert!(tables(db.path()).is_empty());
}

/// A damaged dependency is refused, naming the file; a table of other rules in the
/// directory is refused, naming both rule sets.
#[test]
fn refuses_a_damaged_dependency_and_other_rules() {
    let db = tempfile::tempdir().unwrap();
    ok(&unit(db.path(), "standard", "3-3"));
    let path = db.path().join("3-3.mtb");
    let mut bytes = fs::read(&path).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x40;
    fs::write(&path, &bytes).unwrap();
    let out = unit(db.path(), "standard", "3-4");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&path.display().to_string()) && err.contains("unit 3-4+4-3"), "{err}");
    assert!(!db.path().join("3-4.mtb").exists() && !db.path().join("4-3.mtb").exists());

    let out = unit(db.path(), "lasker", "3-3");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`standard`") && err.contains("`lasker`"), "{err}");
    let out = unit(db.path(), "standard", "3-4+5-5");
    assert!(String::from_utf8_lossy(&out.stderr).contains("3-4+4-3"), "a set that is no unit names the unit");
}

/// A second run of a unit keeps its tables, not a byte or a time stamp changed; a
/// damaged table of the unit is solved again.
#[test]
fn a_second_run_keeps_the_tables() {
    let db = tempfile::tempdir().unwrap();
    let first = ok(&unit(db.path(), "standard", "3-3"));
    assert!(first.contains("1 solved now, 0 kept"), "{first}");
    let path = db.path().join("3-3.mtb");
    let (bytes, stamp) = (fs::read(&path).unwrap(), fs::metadata(&path).unwrap().modified().unwrap());
    let again = ok(&unit(db.path(), "standard", "3-3"));
    assert!(again.contains("0 solved now, 1 kept"), "{again}");
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), stamp);
    let mut damaged = bytes.clone();
    let at = damaged.len() - 50;
    damaged[at] ^= 1;
    fs::write(&path, &damaged).unwrap();
    assert!(ok(&unit(db.path(), "standard", "3-3")).contains("1 solved now"));
    assert_eq!(fs::read(&path).unwrap(), bytes);
}

/// Two processes started at once on one unit both succeed: one solves it, the other
/// waits and keeps its tables, which are right. Two different units run at once in
/// one directory.
#[test]
fn processes_racing_on_one_unit() {
    let reference = tempfile::tempdir().unwrap();
    let ids = ["3-3", "3-4+4-3", "4-4", "3-5+5-3", "4-5+5-4"];
    solve_units(reference.path(), "standard", &ids.map(String::from));
    let want = tables(reference.path());
    for round in 0..3 {
        let db = tempfile::tempdir().unwrap();
        solve_units(db.path(), "standard", &ids[..2].iter().map(|s| s.to_string()).collect::<Vec<_>>());
        // Two units at once, then one unit twice at once.
        let spawn = |id: &str| morris(&["solve", "--db", db.path().to_str().unwrap(), "--unit", id, "-q"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let (a, b) = (spawn("4-4"), spawn("3-5"));
        ok(&a.wait_with_output().unwrap());
        ok(&b.wait_with_output().unwrap());
        let (a, b) = (spawn("4-5+5-4"), spawn("5-4"));
        let outs = [ok(&a.wait_with_output().unwrap()), ok(&b.wait_with_output().unwrap())];
        let solved = outs.iter().filter(|o| o.contains("2 solved now, 0 kept")).count();
        let kept = outs.iter().filter(|o| o.contains("0 solved now, 2 kept")).count();
        assert_eq!((solved, kept), (1, 1), "round {round}: {outs:?}");
        assert_eq!(tables(db.path()), want, "round {round}");
        let stray: Vec<String> = fs::read_dir(db.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|n| n.contains(".tmp")).collect();
        assert!(stray.is_empty(), "{stray:?}");
    }
}

/// A worker killed mid-unit leaves no table that passes its checks and is wrong; the
/// unit's next worker removes its temporary files (a user's files of similar names
/// stay) and writes the right tables.
#[test]
fn a_killed_worker_leaves_nothing_a_rerun_trusts() {
    let reference = tempfile::tempdir().unwrap();
    let ids: Vec<String> = ["3-3", "3-4+4-3", "4-4", "3-5+5-3"].map(String::from).to_vec();
    solve_units(reference.path(), "standard", &ids);
    let start = std::time::Instant::now();
    ok(&unit(reference.path(), "standard", "4-5"));
    let full = start.elapsed();
    let want = tables(reference.path());
    let db = tempfile::tempdir().unwrap();
    solve_units(db.path(), "standard", &ids);
    let d = db.path().to_str().unwrap();
    for (round, delay) in [full / 5, full / 2, full * 9 / 10].into_iter().enumerate() {
        let mut child = morris(&["solve", "--db", d, "--unit", "4-5", "-q"]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(delay.max(Duration::from_millis(5)));
        let _ = child.kill();
        let _ = child.wait();
        for (name, bytes) in tables(db.path()) {
            let sector: Sector = name.trim_end_matches(".mtb").parse().unwrap();
            if TableFile::open(&db.path().join(&name), sector, &Rules::STANDARD).and_then(|t| t.read_all()).is_ok() {
                assert_eq!(Some(&bytes), want.get(&name), "round {round}: {name} passes its checks but differs");
            }
        }
        for name in ["4-5.mtb", "5-4.mtb"] {
            let _ = fs::remove_file(db.path().join(name));
        }
    }
    // What a worker killed while writing leaves, and what it must not touch.
    fs::write(db.path().join("4-5.mtb.tmp.4194304"), b"half a table").unwrap();
    fs::write(db.path().join("4-5.mtb.tmp.77-3"), b"half a table").unwrap();
    fs::write(db.path().join("3-3.mtb.tmp.4194304"), b"another unit's").unwrap();
    fs::write(db.path().join("notes.tmp.12"), b"mine").unwrap();
    ok(&unit(db.path(), "standard", "4-5"));
    assert_eq!(tables(db.path()), want);
    let mut left: Vec<String> = fs::read_dir(db.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|n| n.contains(".tmp")).collect();
    left.sort();
    assert_eq!(left, ["3-3.mtb.tmp.4194304", "notes.tmp.12"], "only the unit's own temporary files are removed");
}

/// A unit solver and a whole-directory `morris solve` exclude each other: the whole
/// run removes temporary files as an interrupted run's, which a unit solver may be
/// writing.
#[test]
fn unit_solvers_and_a_whole_directory_run_exclude_each_other() {
    let db = tempfile::tempdir().unwrap();
    let d = db.path().to_str().unwrap();
    {
        let _whole = morris::table::lock_dir(db.path(), "testing").unwrap();
        let out = unit(db.path(), "standard", "3-3");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("whole directory"), "{err}");
    }
    {
        let _unit = morris::table::lock::lock_dir_shared(db.path()).unwrap();
        let out = morris(&["solve", "--db", d, "--max-stones", "6", "-q"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("another morris process"), "{err}");
        ok(&unit(db.path(), "standard", "3-3"));
    }
    ok(&morris(&["solve", "--db", d, "--max-stones", "6", "-q"]).output().unwrap());
}

/// Where the filesystem has no locks (NFS without a lock manager, Lustre without
/// `flock`: here every `flock` fails with ENOLCK, through a preloaded library), units
/// solved one by one and a whole-directory solve both go on unlocked and write the
/// tables of a solve with locks, byte for byte.
#[test]
fn solves_where_the_filesystem_has_no_locks() {
    let shim = tempfile::tempdir().unwrap();
    let (src, lib, mark) = (shim.path().join("noflock.c"), shim.path().join("noflock.so"), shim.path().join("called"));
    fs::write(
        &src,
        "#include <errno.h>\n#include <fcntl.h>\n#include <stdlib.h>\n#include <unistd.h>\n\
         int flock(int fd, int op) { (void)fd; (void)op; const char *m = getenv(\"NOFLOCK_MARK\");\n\
         if (m) { int f = open(m, O_CREAT | O_WRONLY, 0644); if (f >= 0) close(f); }\n\
         errno = ENOLCK; return -1; }\n",
    )
    .unwrap();
    let cc = Command::new("cc").args(["-shared", "-fPIC", "-o"]).arg(&lib).arg(&src).output().expect("a C compiler (cc), to build the test's preloaded library");
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    let unlocked = |args: &[&str]| morris(args).env("LD_PRELOAD", &lib).env("NOFLOCK_MARK", &mark).output().unwrap();

    let reference = tempfile::tempdir().unwrap();
    ok(&morris(&["solve", "--db", reference.path().to_str().unwrap(), "--start", "4-4", "-q"]).output().unwrap());
    let want = tables(reference.path());

    let parts = tempfile::tempdir().unwrap();
    for id in plan_ids(parts.path(), "standard", "4-4") {
        ok(&unlocked(&["solve", "--db", parts.path().to_str().unwrap(), "--unit", &id, "-q"]));
    }
    assert!(mark.exists(), "the preloaded flock was not called: the test tests nothing");
    assert_eq!(tables(parts.path()), want, "units without locks");

    fs::remove_file(&mark).unwrap();
    let whole = tempfile::tempdir().unwrap();
    ok(&unlocked(&["solve", "--db", whole.path().to_str().unwrap(), "--start", "4-4", "-q"]));
    assert!(mark.exists(), "the preloaded flock was not called: the test tests nothing");
    assert_eq!(tables(whole.path()), want, "a whole solve without locks");
}
