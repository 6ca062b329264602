//! What the one block-file reader does alike for strong tables (`.mtb`) and class files
//! (`.mtc`): a FIFO at either path is an error, at once, and a file of another format
//! version is refused as such, not reported as damage.

use morris::rules::Rules;
use morris::solve::generate::{self, Options};
use morris::solve::ultra::run::run_dir;
use morris::table::{class_path, table_path, ClassFile, TableError, TableFile};
use morris::NoProgress;
use morris::Sector;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// The tables and class files of the 3-3 start (its movement subspace and placement
/// sectors), and their sector values' fingerprint.
fn solved(dir: &Path) -> u64 {
    let rules = Rules::STANDARD;
    generate::run(&Options { dir: dir.to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules }, &NoProgress).unwrap();
    run_dir(dir, &rules, &[(3, 3)], None, &NoProgress, &mut |_| {}).unwrap().0.fingerprint()
}

/// Runs `f` on another thread and gives its result, or fails if it has not returned
/// within 20 seconds: an open that blocks on a FIFO never returns.
fn within_seconds<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(f()).unwrap());
    rx.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("{what} blocked"))
}

fn mkfifo(path: &Path) {
    std::fs::remove_file(path).unwrap();
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

#[test]
fn a_fifo_at_a_table_or_class_path_is_an_error_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_owned();
    let fp = solved(&d);
    let x: Sector = "3-3".parse().unwrap();
    mkfifo(&class_path(&d, x));
    let strong = TableFile::open(&table_path(&d, x), x, &Rules::STANDARD).unwrap();
    let path = d.clone();
    let err = within_seconds("opening a class file that is a FIFO", move || ClassFile::open(&path, &strong, fp).err());
    assert!(matches!(err, Some(TableError::NotAFile { ref path }) if *path == class_path(&d, x)), "{err:?}");
    mkfifo(&table_path(&d, x));
    let path = d.clone();
    let err = within_seconds("opening a table that is a FIFO", move || TableFile::open(&table_path(&path, x), x, &Rules::STANDARD).err());
    assert!(matches!(err, Some(TableError::NotAFile { ref path }) if *path == table_path(&d, x)), "{err:?}");
    assert!(err.unwrap().to_string().contains("not a regular file"));
}

#[test]
fn another_version_of_either_kind_of_file_is_refused_by_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fp = solved(d);
    let x: Sector = "2-2-1-1".parse().unwrap();
    let rules = Rules::STANDARD;
    let strong = TableFile::open(&table_path(d, x), x, &rules).unwrap();
    assert!(ClassFile::open(d, &strong, fp).is_ok());
    for (path, supported) in [(class_path(d, x), 3), (table_path(d, x), morris::table::VERSION)] {
        let good = std::fs::read(&path).unwrap();
        for found in [2u16, 4, 0xffff] {
            let mut bytes = good.clone();
            bytes[8..10].copy_from_slice(&found.to_le_bytes());
            std::fs::write(&path, &bytes).unwrap();
            let err = match path.extension().unwrap().to_str() {
                Some("mtc") => ClassFile::open(d, &strong, fp).err(),
                _ => TableFile::open(&path, x, &rules).err(),
            };
            let err = err.unwrap_or_else(|| panic!("{} of version {found} opened", path.display()));
            match &err {
                TableError::Version { path: p, found: f, supported: s } => assert_eq!((p, *f, *s), (&path, found, supported)),
                other => panic!("{}: {other}", path.display()),
            }
            let text = err.to_string();
            assert!(text.contains(&format!("version {found}")) && text.contains(&format!("reads version {supported}")), "{text}");
        }
        // A version is read only in a file of the kind: another magic is that error.
        let mut bytes = good.clone();
        bytes[0] ^= 1;
        bytes[8..10].copy_from_slice(&2u16.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let err = match path.extension().unwrap().to_str() {
            Some("mtc") => ClassFile::open(d, &strong, fp).err(),
            _ => TableFile::open(&path, x, &rules).err(),
        };
        assert!(matches!(err, Some(TableError::BadMagic { .. })), "{err:?}");
        std::fs::write(&path, &good).unwrap();
    }
}
