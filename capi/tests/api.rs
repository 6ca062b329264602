//! The C ABI called as C calls it, on the tables of the 3-stone game: the statuses and
//! messages agree with the other front ends, and the buffer idioms work as the header
//! says.

use morris_c::*;
use std::ffi::{CStr, CString};
use std::path::PathBuf;
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

/// The tables of the game with 3 stones a side, solved once into a fresh directory.
fn db() -> &'static CString {
    static DB: OnceLock<CString> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("capi-api-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = morris::GenerateOptions { dir: dir.clone(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
        morris::generate(&opts, &morris::NoProgress).expect("solve 3-3");
        CString::new(dir.to_str().unwrap()).unwrap()
    })
}

fn open() -> *mut MorrisTablebase {
    let mut tb = null_mut();
    assert_eq!(unsafe { morris_open(db().as_ptr(), null(), &mut tb) }, MorrisStatus::Ok, "{}", last_error());
    tb
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(morris_last_error()) }.to_string_lossy().into_owned()
}

fn c(text: &str) -> CString {
    CString::new(text).unwrap()
}

/// Python raises TableMissingError and the server answers 404 for a directory that is
/// not there: the C library says the same, MORRIS_STATUS_MISSING.
#[test]
fn a_missing_directory_is_missing_as_in_python() {
    let mut tb = null_mut();
    let status = unsafe { morris_open(c("/nonexistent/morris").as_ptr(), null(), &mut tb) };
    assert_eq!(status, MorrisStatus::Missing, "{}", last_error());
    assert!(last_error().contains("no table directory"), "{}", last_error());
    assert!(tb.is_null());
}

/// The usual C idiom: a first call with no buffer learns the size.
#[test]
fn moves_with_no_buffer_reports_the_count() {
    let tb = open();
    let start = c("........................ w 3 3");
    let mut n = 0usize;
    assert_eq!(unsafe { morris_moves(tb, start.as_ptr(), null_mut(), 0, &mut n) }, MorrisStatus::Ok, "{}", last_error());
    assert_eq!(n, 24);
    let mut moves = Vec::with_capacity(n);
    let mut m = 0usize;
    assert_eq!(unsafe { morris_moves(tb, start.as_ptr(), moves.as_mut_ptr(), n, &mut m) }, MorrisStatus::Ok, "{}", last_error());
    unsafe { moves.set_len(m) };
    assert_eq!(m, 24);
    assert!(moves.iter().all(|mv: &MorrisMove| mv.value.result == MorrisResult::Win || mv.value.result == MorrisResult::Loss || mv.value.result == MorrisResult::Draw));
    // A buffer that is there but too small is still an error, with the count.
    let mut few = [MorrisMove { name: [0; 24], position: [0; 40], value: MorrisValue { result: MorrisResult::Draw, plies: 0 } }; 1];
    n = 0;
    assert_eq!(unsafe { morris_moves(tb, start.as_ptr(), few.as_mut_ptr(), 1, &mut n) }, MorrisStatus::Argument);
    assert_eq!(n, 24);
    assert!(last_error().contains("a buffer of 1 moves"), "{}", last_error());
    // No buffer but a capacity: a null pointer where moves were promised.
    assert_eq!(unsafe { morris_moves(tb, start.as_ptr(), null_mut(), 30, &mut n) }, MorrisStatus::Argument);
    assert!(last_error().contains("null"), "{}", last_error());
    // A finished game has no moves: no buffer needed either.
    let lost = c("WW.......BBB............ w");
    assert_eq!(unsafe { morris_moves(tb, lost.as_ptr(), null_mut(), 0, &mut n) }, MorrisStatus::Ok, "{}", last_error());
    assert_eq!(n, 0);
    unsafe { morris_close(tb) };
}

/// A hand too large names the bound of the rules in use (9 here), not the notation's 12.
#[test]
fn a_hand_too_large_names_the_rules_bound() {
    let tb = open();
    let mut v = MorrisValue { result: MorrisResult::Draw, plies: 0 };
    for pos in ["........................ w 13 9", "........................ w 10 9"] {
        assert_eq!(unsafe { morris_probe(tb, c(pos).as_ptr(), &mut v) }, MorrisStatus::Position);
        assert!(last_error().ends_with("at most 9") && !last_error().contains("12"), "{pos}: {}", last_error());
    }
    unsafe { morris_close(tb) };
}
