//! `morris strip` and `morris compact` never lose data: they write only into a new or
//! empty directory or into their own earlier output from the same tables, refuse
//! anything else naming the files, refuse to compact a compact set, and clear the
//! temporary files a killed run left. `stats --check` checks what a results-only set
//! holds.

use std::path::Path;
use std::process::{Command, Output};

fn morris(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn solved() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 7, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
    morris::solve::generate::run(&opts, &morris::NoProgress).unwrap();
    dir
}

/// Every file of `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn copies_refuse_directories_they_did_not_write() {
    let full = solved();
    let other = solved();
    // A directory of full tables: neither strip nor compact may touch it.
    for cmd in [vec!["strip"], vec!["compact"], vec!["compact", "--wdl"]] {
        let before = snapshot(other.path());
        let mut args = cmd.clone();
        args.extend(["--db", s(full.path()), "--out", s(other.path())]);
        let o = morris(&args);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}: {}", text(&o));
        assert!(text(&o).contains("3-3.mtb"), "{cmd:?} names the files: {}", text(&o));
        assert_eq!(snapshot(other.path()), before, "{cmd:?} changed a directory it did not write");
    }
    // One stray file is enough to refuse.
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("notes.txt"), "mine").unwrap();
    let o = morris(&["strip", "--db", s(full.path()), "--out", s(out.path())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("notes.txt"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(out.path().join("notes.txt")).unwrap(), "mine");
    // In place is refused too.
    let o = morris(&["compact", "--db", s(full.path()), "--out", s(full.path())]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

#[test]
fn copies_rerun_into_their_own_output_and_clear_stale_temporary_files() {
    let full = solved();
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("compact");
    let o = morris(&["compact", "--db", s(full.path()), "--out", s(&dest)]);
    assert!(o.status.success(), "{}", text(&o));
    let first = snapshot(&dest);
    // What a SIGKILLed run leaves: a temporary file, and a table half rewritten.
    std::fs::write(dest.join("3-3.mtb.tmp.4194304"), b"half a table").unwrap();
    let o = morris(&["compact", "--db", s(full.path()), "--out", s(&dest)]);
    assert!(o.status.success(), "a rerun into its own output: {}", text(&o));
    assert_eq!(snapshot(&dest), first, "the rerun writes the same set and clears the temporary file");
    // Another command, or another source, is refused.
    let o = morris(&["strip", "--db", s(full.path()), "--out", s(&dest)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("morris compact"), "{}", text(&o));
    let small = tempfile::tempdir().unwrap();
    let opts = morris::solve::generate::Options { dir: small.path().to_owned(), max_stones: 6, only: None, starts: vec![], rules: morris::Rules::STANDARD };
    morris::solve::generate::run(&opts, &morris::NoProgress).unwrap();
    let o = morris(&["compact", "--db", s(small.path()), "--out", s(&dest)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("other tables"), "{}", text(&o));
    assert_eq!(snapshot(&dest), first);
}

#[test]
fn a_compact_set_is_not_compacted_again() {
    let full = solved();
    let out = tempfile::tempdir().unwrap();
    let (compact, again) = (out.path().join("c"), out.path().join("cc"));
    assert!(morris(&["compact", "--db", s(full.path()), "--out", s(&compact)]).status.success());
    let o = morris(&["compact", "--db", s(&compact), "--out", s(&again)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("already a compact set"), "{}", text(&o));
    assert!(!again.join("3-3.mtb").exists());
}

#[test]
fn stats_check_checks_a_results_only_set() {
    let full = solved();
    let out = tempfile::tempdir().unwrap();
    let wdl = out.path().join("wdl");
    assert!(morris(&["strip", "--db", s(full.path()), "--out", s(&wdl)]).status.success());
    let o = morris(&["stats", "--db", s(&wdl), "--check"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("0 tables in full") && text(&o).contains("results-only tables"), "{}", text(&o));
    // A damaged WLD frame of a results-only table is found.
    let path = wdl.join("3-4.mtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x40;
    std::fs::write(&path, bytes).unwrap();
    let o = morris(&["stats", "--db", s(&wdl), "--check"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("3-4.mtb"), "{}", text(&o));
}

#[test]
fn verify_checks_what_results_only_and_compact_sets_hold() {
    use morris::rules::Rules;
    use morris::table::{table_path, write_table, TableFile};
    let full = solved();
    let out = tempfile::tempdir().unwrap();
    let (wdl, compact) = (out.path().join("wdl"), out.path().join("compact"));
    assert!(morris(&["strip", "--db", s(full.path()), "--out", s(&wdl)]).status.success());
    assert!(morris(&["compact", "--db", s(full.path()), "--out", s(&compact)]).status.success());
    let o = morris(&["verify", "--db", s(&wdl)]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("0 mismatches") && text(&o).contains("results only"), "{}", text(&o));
    let o = morris(&["verify", "--db", s(&compact)]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("0 mismatches") && text(&o).contains("blocks checked but not their values"), "{}", text(&o));
    let o = morris(&["verify", "--db", s(&compact), "--start", "3-3"]);
    assert!(o.status.success(), "a compact set's left-out tables are not missing: {}", text(&o));

    // One result changed in a table with valid checksums, then stripped: verify finds it.
    let sector: morris::Sector = "3-4".parse().unwrap();
    let t = TableFile::open(&table_path(full.path(), sector), sector, &Rules::STANDARD).unwrap();
    let mut values = t.read_all().unwrap();
    let idx = sector.index(morris::rules::Board::Nine);
    let i = (0..idx.len()).find(|&i| !idx.is_hole(i) && values[i as usize] == 0).unwrap();
    values[i as usize] = morris::position::value::enc_win(7);
    let stats = t.header.stats;
    drop(t);
    let bad = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(full.path()).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().ends_with(".mtb") {
            std::fs::copy(e.path(), bad.path().join(e.file_name())).unwrap();
        }
    }
    write_table(bad.path(), &Rules::STANDARD, sector, &values, &stats).unwrap();
    let stripped = out.path().join("bad-wdl");
    assert!(morris(&["strip", "--db", s(bad.path()), "--out", s(&stripped)]).status.success());
    let o = morris(&["verify", "--db", s(&stripped)]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("MISMATCH 3-4"), "{}", text(&o));
}

#[test]
fn a_plot_rerun_clears_the_temporary_file_of_a_killed_one() {
    let full = solved();
    let out = tempfile::tempdir().unwrap();
    let stale = out.path().join(".p.svg.tmp.4194305");
    std::fs::write(&stale, "half a plot").unwrap();
    let o = morris(&["stats", "--db", s(full.path()), "--plot", s(&out.path().join("p.svg"))]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(out.path().join("p.svg").exists());
    assert!(!stale.exists(), "the stale temporary file is removed");
}

/// Commands delete only files they wrote. A refused copy leaves the directory exactly
/// as it was (a user's `notes.tmp` and `notes.tmp.12` kept, no lock file added); a
/// solve keeps them too, and removes only the temporary files of its own table names;
/// and a manifest that names a path outside its directory is refused, not obeyed.
#[test]
fn copies_and_solves_delete_only_files_they_wrote() {
    let full = solved();
    let out = tempfile::tempdir().unwrap();
    for cmd in [vec!["strip"], vec!["compact"], vec!["compact", "--wdl"]] {
        let o_dir = out.path().join(cmd.join("-"));
        std::fs::create_dir(&o_dir).unwrap();
        std::fs::write(o_dir.join("notes.tmp"), "x").unwrap();
        std::fs::write(o_dir.join("draft.tmp.12"), "y").unwrap();
        let before = snapshot(&o_dir);
        let mut args = cmd.clone();
        args.extend(["--db", s(full.path()), "--out", s(&o_dir)]);
        let o = morris(&args);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}: {}", text(&o));
        assert!(text(&o).contains("notes.tmp"), "{cmd:?} names the file: {}", text(&o));
        assert_eq!(snapshot(&o_dir), before, "{cmd:?} changed a directory it refused");
        assert!(!o_dir.join(".morris.lock").exists(), "{cmd:?} left a lock file in a directory it refused");
    }
    // A solve keeps the user's files and clears its own temporary ones.
    let db = tempfile::tempdir().unwrap();
    std::fs::write(db.path().join("notes.tmp"), "x").unwrap();
    std::fs::write(db.path().join("draft.tmp.12"), "y").unwrap();
    std::fs::write(db.path().join("3-3.mtb.tmp.4194304"), "half a table").unwrap();
    std::fs::write(db.path().join("3-3.mtb.tmp"), "half a table").unwrap();
    let o = morris(&["solve", "--db", s(db.path()), "--max-stones", "6", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(db.path().join("notes.tmp")).unwrap(), "x");
    assert_eq!(std::fs::read_to_string(db.path().join("draft.tmp.12")).unwrap(), "y");
    assert!(!db.path().join("3-3.mtb.tmp.4194304").exists() && !db.path().join("3-3.mtb.tmp").exists(), "a solve's own temporary files are cleared");
    // A manifest naming a file outside the directory: the copy refuses it and deletes
    // nothing, inside or outside.
    let root = tempfile::tempdir().unwrap();
    let dest = root.path().join("c");
    let o = morris(&["compact", "--db", s(full.path()), "--out", s(&dest)]);
    assert!(o.status.success(), "{}", text(&o));
    std::fs::write(root.path().join("victim.txt"), "keep me").unwrap();
    let manifest = dest.join(".morris-copy");
    let text_m = std::fs::read_to_string(&manifest).unwrap();
    for evil in ["../victim.txt", "/etc/hostname", "sub/3-3.mtb", "..", "notes.tmp"] {
        std::fs::write(&manifest, format!("{text_m}file {evil}\n")).unwrap();
        let before = snapshot(&dest);
        let o = morris(&["compact", "--db", s(full.path()), "--out", s(&dest)]);
        assert_eq!(o.status.code(), Some(2), "{evil}: {}", text(&o));
        assert!(text(&o).contains(".morris-copy"), "{evil}: the error names the manifest: {}", text(&o));
        assert_eq!(std::fs::read_to_string(root.path().join("victim.txt")).unwrap(), "keep me");
        assert_eq!(snapshot(&dest), before, "{evil}");
    }
}
