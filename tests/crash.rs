//! Crash safety: `morris solve` killed with SIGKILL at random points, then resumed,
//! leaves tables byte-identical to an uninterrupted run, and at no point does the
//! directory hold a table that passes its checks but differs from the right one.

use morris::table::TableFile;
use morris::Sector;
use std::fs;
use std::path::Path;

#[path = "common/tables.rs"]
mod table_files;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use table_files::tables;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

fn solve(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_morris"));
    c.args(["solve", "--db", dir.to_str().unwrap(), "--start", "5-4", "-q"]).stdout(Stdio::null()).stderr(Stdio::null());
    c
}

#[test]
fn killed_solves_resume_to_identical_tables() {
    let reference = tempfile::tempdir().unwrap();
    let start = Instant::now();
    assert!(solve(reference.path()).status().unwrap().success());
    let full = start.elapsed();
    let want = tables(reference.path());
    assert!(want.len() > 20, "{} tables", want.len());

    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x853c_49e6_748f_ea9bu64);
    for round in 0..5 {
        let x = rng.next();
        // Somewhere within the time a whole run takes.
        let delay = Duration::from_millis(20 + x % (full.as_millis() as u64).max(50));
        let mut child = solve(dir.path()).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        // Whatever is there and passes its checks must be exactly right.
        for (name, bytes) in tables(dir.path()) {
            let sector: Sector = name.trim_end_matches(".mtb").parse().unwrap();
            let ok = TableFile::open(&dir.path().join(&name), sector, &morris::rules::Rules::STANDARD).and_then(|t| t.read_all()).is_ok();
            if ok {
                assert_eq!(Some(&bytes), want.get(&name), "round {round}: {name} passes its checks but differs");
            }
        }
    }
    assert!(solve(dir.path()).status().unwrap().success());
    let got = tables(dir.path());
    assert_eq!(got.len(), want.len());
    for (name, bytes) in &want {
        assert!(got.get(name) == Some(bytes), "{name} differs after resuming");
    }
    let leftovers: Vec<String> = fs::read_dir(dir.path()).unwrap().filter_map(|e| e.ok()?.file_name().to_str().map(String::from)).filter(|n| n.contains(".tmp")).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
