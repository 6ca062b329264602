//! Writing table files: every file appears whole or not at all.
//!
//! Each write goes through [`write_atomic`]: a temporary file of its own (created
//! new, never reused), a sync, then a rename. Who may write a directory at once, and
//! who removes the temporary files an interrupted run left, is [`super::lock`]'s.

use super::format::{deep_bytes, deep_hash, BlockEntry, DeepSpan, Header, BLOCK_SIZE};
use super::stats::Stats;
use super::{layout_fingerprint, table_path, TableError};
use crate::position::sector::Sector;
use crate::position::value::{is_deep, Deep};
use crate::position::wld;
use crate::rules::Rules;
use rayon::prelude::*;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

const ZSTD_LEVEL: i32 = 9;

/// The marker of the temporary files of this module, `NAME.tmp.PID[-K]`.
const TMP: &str = ".tmp.";

/// Writes the file `name` in `dir` from `body`: under a temporary name, synced, then
/// renamed, so that a failed or interrupted write (a full disk, a kill) leaves no file
/// of that name behind. Returns the bytes written.
pub fn write_atomic(dir: &Path, name: &str, body: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<u64, TableError> {
    let path = dir.join(name);
    let (tmp, file) = create_temporary(dir, name)?;
    let result = (|| -> io::Result<u64> {
        let mut f = Counting(io::BufWriter::with_capacity(1 << 20, file), 0);
        body(&mut f)?;
        let n = f.1;
        f.0.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(n)
    })();
    match result {
        Ok(n) => {
            fs::rename(&tmp, &path).map_err(|source| TableError::Io { path, source })?;
            Ok(n)
        }
        Err(source) => {
            let _ = fs::remove_file(&tmp);
            Err(TableError::Io { path: tmp, source })
        }
    }
}

/// Creates a new temporary file for `name`: `NAME.tmp.PID`, or `NAME.tmp.PID-K` when
/// that name is taken. Created with `O_EXCL`, so no two writers ever share one, even
/// processes of the same id on two machines writing one shared directory, or a
/// writer meeting the leftover of a killed process whose id it inherited.
fn create_temporary(dir: &Path, name: &str) -> Result<(std::path::PathBuf, File), TableError> {
    let pid = std::process::id();
    let mut k = 0u32;
    loop {
        let tmp = match k {
            0 => dir.join(format!("{name}{TMP}{pid}")),
            _ => dir.join(format!("{name}{TMP}{pid}-{k}")),
        };
        match fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && k < 1000 => k += 1,
            Err(source) => return Err(TableError::Io { path: tmp, source }),
        }
    }
}

/// A writer that counts what passes through it.
struct Counting<W>(W, u64);

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1 += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// The files other than tables and class files that morris writes with
/// [`write_atomic`]: a copy's manifest and the ultra pass's sector values.
pub const OTHER_FILES: [&str; 2] = [super::manifest::MANIFEST, "sector-values.txt"];

/// Whether `name` is a file morris writes into a table directory: a table or class
/// file named by its sector (`S-O.mtb`, `S-O-SH-OH.mtc`, written as morris writes
/// them), or one of [`OTHER_FILES`].
pub fn is_own_name(name: &str) -> bool {
    let stem = name.strip_suffix(".mtb").or_else(|| name.strip_suffix(".mtc"));
    OTHER_FILES.contains(&name) || stem.is_some_and(|s| s.parse::<Sector>().is_ok_and(|x| x.to_string() == s))
}

/// Whether `name` is a temporary file of [`write_atomic`]: `NAME.tmp.PID` or
/// `NAME.tmp.PID-K` (or `NAME.tmp`, from builds before the process id was added)
/// where `NAME` is one of morris's own names ([`is_own_name`]). A user's `notes.tmp`
/// is not one, so a directory lock never removes it.
pub fn is_temporary(name: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let stem = match name.rsplit_once(TMP) {
        Some((stem, id)) if id.split_once('-').map_or(digits(id), |(pid, k)| digits(pid) && digits(k)) => stem,
        _ => match name.strip_suffix(".tmp") {
            Some(stem) => stem,
            None => return false,
        },
    };
    is_own_name(stem)
}

/// Splits one block of value bytes into its WLD plane (packed codes, [`wld`]) and its
/// depth plane (a byte per win or loss).
pub(super) fn planes_of(values: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut depth = Vec::with_capacity(values.len());
    for &b in values {
        match b {
            0 => {}
            1..=127 => depth.push(b - 1),
            _ => depth.push(b - 128),
        }
    }
    (wld::pack(values), depth)
}

fn compress(data: &[u8]) -> Vec<u8> {
    if data.is_empty() {
        return Vec::new();
    }
    let mut c = zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("zstd compressor");
    c.include_checksum(true).expect("zstd parameter");
    c.compress(data).expect("zstd compression of an in-memory block")
}

/// The content checksum a zstd frame ends with (0 for no frame): what the block index
/// records, and what a reader compares once zstd has checked the frame against it.
pub(super) fn frame_check(frame: &[u8]) -> u32 {
    match frame.len() {
        0 => 0,
        n => u32::from_le_bytes(frame[n - 4..].try_into().unwrap()),
    }
}

/// Repeats the previous entry into every hole of the block starting at slot `start`;
/// a deep byte is repeated as the deepest byte of its own instead, since only
/// positions have deep entries.
fn fill_holes(index: &crate::position::index::SubspaceIndex, start: u64, block: &mut [u8]) {
    crate::cpu::fast!({
        for i in index.holes(start, start + block.len() as u64) {
            let k = (i - start) as usize;
            block[k] = match if k == 0 { 0 } else { block[k - 1] } {
                crate::position::value::DEEP_WIN => crate::position::value::DEEP_WIN - 1,
                crate::position::value::DEEP_LOSS => crate::position::value::DEEP_LOSS - 1,
                b => b,
            };
        }
    })
}

/// Writes `values` as the table of `sector` under `rules` into `dir`, atomically, and
/// returns the file's size in bytes. `values` holds one value byte per slot of the
/// sector's index ([`Sector::index`]); `stats` goes into the header as it is.
pub fn write_table(dir: &Path, rules: &Rules, sector: impl Into<Sector>, values: &[u8], stats: &Stats) -> Result<u64, TableError> {
    write_table_deep(dir, rules, sector, values, &Deep::default(), stats)
}

/// [`write_table`] for a table that may hold values deeper than a byte: `deep` has the
/// depth of every slot whose byte is [`DEEP_WIN`](crate::position::value::DEEP_WIN) or
/// [`DEEP_LOSS`](crate::position::value::DEEP_LOSS), and no other.
pub fn write_table_deep(dir: &Path, rules: &Rules, sector: impl Into<Sector>, values: &[u8], deep: &Deep, stats: &Stats) -> Result<u64, TableError> {
    let sector: Sector = sector.into();
    let index = sector.index(rules.board());
    let path = || table_path(dir, sector);
    let deep_bytes_in = values.par_iter().enumerate().filter(|&(i, &b)| is_deep(b) && !(index.may_be_hole(i as u64) && index.is_hole(i as u64))).count();
    let listed = deep
        .entries()
        .iter()
        .all(|&(slot, d)| values.get(slot as usize).and_then(|&b| deep.value(b, slot)).is_some_and(|v| v.plies() == Some(d) && is_deep(values[slot as usize])));
    if deep_bytes_in != deep.len() || !listed {
        return Err(TableError::corrupt(&path(), format!("{deep_bytes_in} deep value bytes, {} deep entries: they must match one for one", deep.len())));
    }
    // Per block: the compressed WLD and depth frames, their content checksums, and the
    // hash of the block's value bytes for the content checksum of the table.
    let blocks: Vec<(Vec<u8>, Vec<u8>, u32, u32, u64)> = values
        .par_chunks(BLOCK_SIZE as usize)
        .enumerate()
        .map(|(k, chunk)| {
            let mut block = chunk.to_vec();
            fill_holes(&index, k as u64 * BLOCK_SIZE as u64, &mut block);
            let (wld, depth) = planes_of(&block);
            // An all-draw block stores no frame at all.
            let wld = if depth.is_empty() { Vec::new() } else { compress(&wld) };
            let depth = compress(&depth);
            let (wc, dc) = (frame_check(&wld), frame_check(&depth));
            (wld, depth, wc, dc, xxh3_64(&block))
        })
        .collect();
    let mut content = Xxh3::new();
    for b in &blocks {
        content.update(&b.4.to_le_bytes());
    }
    let section = deep_bytes(deep);
    if !deep.is_empty() {
        content.update(&deep_hash(&section).to_le_bytes());
    }
    let header = Header {
        sector,
        rules: *rules,
        entries: values.len() as u64,
        block_size: BLOCK_SIZE,
        blocks: blocks.len() as u32,
        content_hash: content.digest(),
        stats: *stats,
        results_only: false,
        compact: false,
        layout: layout_fingerprint(&index),
        deep: None,
    };
    let mut offset = (super::format::HEADER_LEN + super::format::INDEX_ENTRY * blocks.len()) as u64;
    let entries: Vec<BlockEntry> = blocks
        .iter()
        .map(|(w, d, wld_check, depth_check, _)| {
            let e = BlockEntry { offset, wld_len: w.len() as u32, depth_len: d.len() as u32, wld_check: *wld_check, depth_check: *depth_check };
            offset += (w.len() + d.len()) as u64;
            e
        })
        .collect();
    let header = Header { deep: (!deep.is_empty()).then(|| DeepSpan { offset, count: deep.len() as u64, check: deep_hash(&section) as u32 }), ..header };
    let head = header.to_bytes(&entries);
    let name = table_path(Path::new(""), sector).display().to_string();
    write_atomic(dir, &name, |f| {
        f.write_all(&head)?;
        for (wld, depth, ..) in &blocks {
            f.write_all(wld)?;
            f.write_all(depth)?;
        }
        f.write_all(&section)
    })
}
