//! The C ABI of `morris`: open a table directory, probe positions by string or by
//! bitboards, list moves with their values. Engines in C, C++ or Dart (through FFI)
//! link `libmorris_c` and include `capi/include/morris.h`, which cbindgen generates
//! from this file (a test checks that the committed header is current).
//!
//! Every function returns a [`MorrisStatus`]; on failure [`morris_last_error`] gives
//! the message, per thread. No function panics across the boundary: a panic is caught
//! and reported as [`MorrisStatus::Internal`]. The ABI only grows: fields and values
//! are never renumbered.

use morris::{Color, Position, ProbeError, Rules, TableError, Tablebase, Value, Wdl};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a call did: `MORRIS_STATUS_OK`, or why it failed.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MorrisStatus {
    /// Success.
    Ok = 0,
    /// A null pointer, a string that is not UTF-8, or a buffer too small.
    Argument = 1,
    /// A malformed or illegal position, or one whose game is over.
    Position = 2,
    /// A table the position needs is not in the directory, or the directory is not
    /// there (as `TableMissingError` in Python and 404 from the server).
    Missing = 3,
    /// A table is damaged, truncated, of another format or of other rules.
    Table = 4,
    /// An unknown rule set or option.
    Rules = 5,
    /// A table could not be read.
    Io = 6,
    /// A bug in morris (a panic, caught at the boundary).
    Internal = 7,
}

/// The result for the side to move.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MorrisResult {
    /// The side to move loses.
    Loss = -1,
    /// A draw.
    Draw = 0,
    /// The side to move wins.
    Win = 1,
}

/// The side to move, as the `side` argument of [`morris_probe_bits`] takes it (an
/// `int32_t`, so that a value out of range is an error, not undefined behaviour).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MorrisSide {
    /// White.
    White = 0,
    /// Black.
    Black = 1,
}

/// An exact value: the result, and the plies to the end under best play (0 for a
/// draw).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MorrisValue {
    /// Win, draw or loss for the side to move.
    pub result: MorrisResult,
    /// Plies to the end; 0 for a draw.
    pub plies: u16,
}

/// A legal move and its value for the side that plays it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MorrisMove {
    /// The move in the notation of docs/rules.md (`d1`, `a7-d7`, `d1xa7`, `d1xa7xg7`),
    /// NUL-terminated.
    pub name: [c_char; 24],
    /// The position after it, in the notation of docs/rules.md, NUL-terminated.
    pub position: [c_char; 40],
    /// Its value for the side that plays it.
    pub value: MorrisValue,
}

/// `text` as a NUL-terminated C string in `N` bytes (cut to `N - 1`).
fn c_str<const N: usize>(text: &str) -> [c_char; N] {
    let mut out = [0 as c_char; N];
    for (d, b) in out.iter_mut().zip(text.bytes().take(N - 1)) {
        *d = b as c_char;
    }
    out
}

/// An open table directory, of one rule set. Probes may run from many threads at
/// once on one handle.
pub struct MorrisTablebase {
    tb: Tablebase,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn fail(status: MorrisStatus, message: impl Into<String>) -> MorrisStatus {
    let text = message.into().replace('\0', " ");
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(text).unwrap_or_default());
    status
}

fn status_of(e: &ProbeError) -> MorrisStatus {
    match e {
        // A directory that is not there is one more missing table, as every other front
        // end says: what mends it is `morris solve` into it, not a look at the disk.
        ProbeError::Table(TableError::Missing { .. }) | ProbeError::MissingTables { .. } | ProbeError::NoDirectory(_) => MorrisStatus::Missing,
        ProbeError::Table(TableError::Io { .. }) => MorrisStatus::Io,
        ProbeError::Invalid(_) | ProbeError::GameOver(_) => MorrisStatus::Position,
        _ => MorrisStatus::Table,
    }
}

/// Runs `f`, turning an error or a panic into a status and a message.
fn guard(f: impl FnOnce() -> Result<(), (MorrisStatus, String)>) -> MorrisStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => MorrisStatus::Ok,
        Ok(Err((status, message))) => fail(status, message),
        Err(_) => fail(MorrisStatus::Internal, "internal error (a panic in morris); please report it"),
    }
}

fn probe_err(e: ProbeError) -> (MorrisStatus, String) {
    (status_of(&e), e.to_string())
}

/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, (MorrisStatus, String)> {
    if p.is_null() {
        return Err((MorrisStatus::Argument, format!("{what} is a null pointer")));
    }
    CStr::from_ptr(p).to_str().map_err(|_| (MorrisStatus::Argument, format!("{what} is not UTF-8")))
}

/// # Safety
/// `tb` is null or a handle from [`morris_open`].
unsafe fn handle<'a>(tb: *const MorrisTablebase) -> Result<&'a Tablebase, (MorrisStatus, String)> {
    tb.as_ref().map(|h| &h.tb).ok_or((MorrisStatus::Argument, "the tablebase handle is a null pointer".into()))
}

fn parse(tb: &Tablebase, position: &str) -> Result<Position, (MorrisStatus, String)> {
    Position::parse(position, *tb.rules()).map_err(|e| (MorrisStatus::Position, format!("position `{position}`: {e}")))
}

fn from_bits(tb: &Tablebase, white: u32, black: u32, white_hand: u8, black_hand: u8, side: i32) -> Result<Position, (MorrisStatus, String)> {
    let to_move = match side {
        0 => Color::White,
        1 => Color::Black,
        other => return Err((MorrisStatus::Argument, format!("side {other}: MORRIS_SIDE_WHITE (0) or MORRIS_SIDE_BLACK (1)"))),
    };
    Position::new(*tb.rules(), white, black, white_hand, black_hand, to_move).map_err(|e| (MorrisStatus::Position, format!("bitboards {white:#x} {black:#x}: {e}")))
}

fn value_of(v: Value) -> MorrisValue {
    match v {
        Value::Win(d) => MorrisValue { result: MorrisResult::Win, plies: d },
        Value::Draw => MorrisValue { result: MorrisResult::Draw, plies: 0 },
        Value::Loss(d) => MorrisValue { result: MorrisResult::Loss, plies: d },
    }
}

fn result_of(w: Wdl) -> MorrisResult {
    match w {
        Wdl::Win => MorrisResult::Win,
        Wdl::Draw => MorrisResult::Draw,
        Wdl::Loss => MorrisResult::Loss,
    }
}

/// # Safety
/// `out` is null or valid for a write of `T`.
unsafe fn put<T>(out: *mut T, value: T) -> Result<(), (MorrisStatus, String)> {
    if out.is_null() {
        return Err((MorrisStatus::Argument, "the output pointer is null".into()));
    }
    out.write(value);
    Ok(())
}

/// Opens the table directory `dir` under the rule set `rules` (`NAME[,OPTION=VALUE...]`
/// as on the command line; NULL for `standard`) and stores the handle in `*out`.
/// Tables are opened when a probe first needs them; a table of other rules is refused
/// then, naming both rule sets.
///
/// # Safety
/// `dir` and `rules` are NUL-terminated strings (`rules` may be NULL); `out` is valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn morris_open(dir: *const c_char, rules: *const c_char, out: *mut *mut MorrisTablebase) -> MorrisStatus {
    guard(|| {
        let dir = text(dir, "the directory")?;
        let rules: Rules =
            if rules.is_null() { Rules::STANDARD } else { text(rules, "the rule set")?.parse().map_err(|e: morris::RulesError| (MorrisStatus::Rules, e.to_string()))? };
        let tb = Tablebase::with_rules(dir.as_ref(), rules, morris::CACHE_BLOCKS).map_err(probe_err)?;
        put(out, Box::into_raw(Box::new(MorrisTablebase { tb })))
    })
}

/// Closes a handle from [`morris_open`]; NULL is ignored.
///
/// # Safety
/// `tb` is NULL or a handle from [`morris_open`] not yet closed, used by no other
/// thread.
#[no_mangle]
pub unsafe extern "C" fn morris_close(tb: *mut MorrisTablebase) {
    if !tb.is_null() {
        drop(Box::from_raw(tb));
    }
}

/// The exact value of `position` (the notation of docs/rules.md, for example
/// `"........................ w 9 9"`), with its depth: one table read, never a search.
///
/// # Safety
/// `tb` is a handle from [`morris_open`], `position` a NUL-terminated string, `out`
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn morris_probe(tb: *const MorrisTablebase, position: *const c_char, out: *mut MorrisValue) -> MorrisStatus {
    guard(|| {
        let tb = handle(tb)?;
        let pos = parse(tb, text(position, "the position")?)?;
        put(out, value_of(tb.probe(&pos).map_err(probe_err)?))
    })
}

/// Win, draw or loss of `position` for the side to move, reading only the results.
///
/// # Safety
/// As [`morris_probe`].
#[no_mangle]
pub unsafe extern "C" fn morris_probe_wdl(tb: *const MorrisTablebase, position: *const c_char, out: *mut MorrisResult) -> MorrisStatus {
    guard(|| {
        let tb = handle(tb)?;
        let pos = parse(tb, text(position, "the position")?)?;
        put(out, result_of(tb.probe_wdl(&pos).map_err(probe_err)?))
    })
}

/// [`morris_probe`] of a position given as bitboards: bit `k` of `white` and `black`
/// is point `k` of the board ([`morris_point_bit`] maps names to bits), with the
/// stones each side has in hand and the side to move (`MORRIS_SIDE_WHITE` or
/// `MORRIS_SIDE_BLACK`). For an engine's inner loop: no string is parsed or built.
///
/// # Safety
/// `tb` is a handle from [`morris_open`]; `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn morris_probe_bits(tb: *const MorrisTablebase, white: u32, black: u32, white_hand: u8, black_hand: u8, side: i32, out: *mut MorrisValue) -> MorrisStatus {
    guard(|| {
        let tb = handle(tb)?;
        let pos = from_bits(tb, white, black, white_hand, black_hand, side)?;
        put(out, value_of(tb.probe(&pos).map_err(probe_err)?))
    })
}

/// [`morris_probe_wdl`] of a position given as bitboards (see [`morris_probe_bits`]).
///
/// # Safety
/// As [`morris_probe_bits`].
#[no_mangle]
pub unsafe extern "C" fn morris_probe_wdl_bits(
    tb: *const MorrisTablebase,
    white: u32,
    black: u32,
    white_hand: u8,
    black_hand: u8,
    side: i32,
    out: *mut MorrisResult,
) -> MorrisStatus {
    guard(|| {
        let tb = handle(tb)?;
        let pos = from_bits(tb, white, black, white_hand, black_hand, side)?;
        put(out, result_of(tb.probe_wdl(&pos).map_err(probe_err)?))
    })
}

/// Every legal move of `position` with its value for the side that plays it, best
/// first. Writes the number of legal moves to `*count` and the moves to `out`.
/// With `out` NULL and `capacity` 0 it only counts, and succeeds: the usual first call,
/// to learn how large a buffer to pass. A buffer smaller than the count gets nothing
/// and the status `MORRIS_STATUS_ARGUMENT`, with `*count` still set (256 always
/// suffices). A finished game has no moves.
///
/// # Safety
/// `tb` is a handle from [`morris_open`], `position` a NUL-terminated string, `out`
/// valid for `capacity` writes (or NULL with `capacity` 0), `count` valid for a write.
#[no_mangle]
pub unsafe extern "C" fn morris_moves(tb: *const MorrisTablebase, position: *const c_char, out: *mut MorrisMove, capacity: usize, count: *mut usize) -> MorrisStatus {
    guard(|| {
        let tb = handle(tb)?;
        let pos = parse(tb, text(position, "the position")?)?;
        let moves = tb.probe_moves(&pos).map_err(probe_err)?;
        put(count, moves.len())?;
        if out.is_null() && capacity == 0 {
            return Ok(());
        }
        if moves.len() > capacity {
            return Err((MorrisStatus::Argument, format!("a buffer of {capacity} moves; the position has {}", moves.len())));
        }
        if out.is_null() && !moves.is_empty() {
            return Err((MorrisStatus::Argument, "the move buffer is a null pointer".into()));
        }
        for (k, m) in moves.iter().enumerate() {
            out.add(k).write(MorrisMove { name: c_str(&pos.move_name(&m.mv)), position: c_str(&m.child.to_string()), value: value_of(m.value) });
        }
        Ok(())
    })
}

/// The bit of the point named `name` (`"a7"`) on the handle's board, or -1 if the
/// board has no such point.
///
/// # Safety
/// `tb` is a handle from [`morris_open`]; `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn morris_point_bit(tb: *const MorrisTablebase, name: *const c_char) -> i32 {
    let (Ok(tb), Ok(name)) = (handle(tb), text(name, "the point")) else { return -1 };
    tb.rules().board().geometry().point(name).map_or(-1, |k| k as i32)
}

/// The message of the last call that failed on this thread (empty if none). The
/// pointer is valid until the next failing call on this thread.
#[no_mangle]
pub extern "C" fn morris_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version, `"MAJOR.MINOR.PATCH"`.
#[no_mangle]
pub extern "C" fn morris_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}
