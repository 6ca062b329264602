//! One reader for both kinds of block file, strong tables (`.mtb`) and class files
//! (`.mtc`): a 256-byte header, an index, then zstd frames of blocks. What a kind of
//! file holds differs ([`Kind`]); how it is opened, checked and read does not, and it
//! is written here once, so that a check added for one kind guards the other too.
//!
//! - A path is opened only if it is a regular file, and never so that the open can
//!   wait: a FIFO at a table's path would hang a server until a writer came.
//! - The magic is checked before anything else of the file is believed, then the
//!   version ([`TableError::Version`]: an old file is not a damaged one), then the
//!   header checksum.
//! - Blocks are read with positioned reads (`pread`), not mapped: a file truncated or
//!   replaced while it is read gives an error for that file (a short read, or a frame
//!   that is not the one its index names), where a mapping would kill the process with
//!   SIGBUS.
//! - A frame is decompressed only after `frame::is_named_frame` has found it
//!   to be the one frame its index names.
//!
//! Both formats share the fields they have in common, at the same offsets:
//!
//! ```text
//! offset size  field
//!      0    8  magic (Kind::MAGIC)
//!      8    2  format version (Kind::VERSION)
//!     12    4  the sector: s, o, sh, oh
//!     16    8  entries (index slots, holes included)
//!     24    4  block size (entries a block of the strong table)
//!     28    4  blocks of the strong table
//!    128  128  the canonical rule string (`Rules` printed), ASCII, NUL-padded
//! ```

use super::TableError;
use crate::position::sector::Sector;
use crate::rules::Rules;
use std::cell::RefCell;
use std::fmt;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Bytes of the fixed header of either kind, before its index.
pub const HEADER_LEN: usize = 256;
const RULES_AT: usize = 128;

/// What one kind of block file holds, and how its header and index read.
pub trait Kind {
    /// The file's first 8 bytes.
    const MAGIC: &'static [u8; 8];
    /// The one format version this build reads (and writes).
    const VERSION: u16;
    /// The header, parsed.
    type Header;
    /// One entry of the index.
    type Entry;
    /// What an open file keeps beside its header and index.
    type State: Default;
    /// Bytes of the header and index together, from the fixed header (the first
    /// [`HEADER_LEN`] bytes, magic and version checked): how much to read before
    /// [`Kind::parse`].
    fn head_len(path: &Path, fixed: &[u8]) -> Result<usize, TableError>;
    /// Parses and checks the header and index (`head`, [`Kind::head_len`] bytes) of a
    /// file of `file_len` bytes: its checksum, and that every frame lies inside it.
    fn parse(path: &Path, head: &[u8], file_len: u64) -> Result<(Self::Header, Vec<Self::Entry>), TableError>;
}

/// An open block file: its header and index in memory, its frames read on demand.
/// [`super::TableFile`] and [`super::ClassFile`] are its two kinds.
pub struct BlockFile<K: Kind> {
    /// The file, for messages.
    pub path: PathBuf,
    /// The header, checked on opening.
    pub header: K::Header,
    pub(super) index: Vec<K::Entry>,
    pub(super) state: K::State,
    file: File,
    len: u64,
}

thread_local! {
    /// One decompression context a thread, reused: a context costs more to set up than
    /// a block of a probe costs to decompress.
    static DEC: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

impl<K: Kind> BlockFile<K> {
    /// Opens the file at `path` and reads and checks its header and index (not its
    /// frames). A missing file is [`TableError::Missing`] of `sector`; the kind's own
    /// checks of what the header says are the caller's.
    pub(super) fn open_kind(path: &Path, sector: Sector) -> Result<BlockFile<K>, TableError> {
        let file = open_regular(path, sector)?;
        let io = |source| TableError::Io { path: path.to_owned(), source };
        let len = file.metadata().map_err(io)?.len();
        let mut fixed = vec![0u8; HEADER_LEN.min(len as usize)];
        file.read_exact_at(&mut fixed, 0).map_err(io)?;
        if fixed.len() >= 8 && &fixed[..8] != K::MAGIC {
            return Err(TableError::BadMagic { path: path.to_owned() });
        }
        if fixed.len() >= 10 && get_u16(&fixed, 8) != K::VERSION {
            return Err(TableError::Version { path: path.to_owned(), found: get_u16(&fixed, 8), supported: K::VERSION });
        }
        if fixed.len() < HEADER_LEN {
            return Err(TableError::Truncated { path: path.to_owned(), detail: format!("{len} bytes, shorter than the {HEADER_LEN}-byte header") });
        }
        let total = K::head_len(path, &fixed)?;
        if total as u64 > len {
            return Err(TableError::Truncated { path: path.to_owned(), detail: format!("{len} bytes, the header and index need {total}") });
        }
        let mut head = vec![0u8; total];
        file.read_exact_at(&mut head, 0).map_err(io)?;
        let (header, index) = K::parse(path, &head, len)?;
        Ok(BlockFile { path: path.to_owned(), header, index, state: K::State::default(), file, len })
    }

    /// Bytes of the file when it was opened.
    pub fn file_size(&self) -> u64 {
        self.len
    }

    pub(super) fn corrupt(&self, detail: impl Into<String>) -> TableError {
        TableError::corrupt(&self.path, detail)
    }

    /// Reads `buf.len()` bytes at `offset`: the frames of `what` (a block, a group). A
    /// file shortened since it was opened gives a short read, reported as such.
    pub(super) fn read_at(&self, buf: &mut [u8], offset: u64, what: fmt::Arguments) -> Result<(), TableError> {
        self.file.read_exact_at(buf, offset).map_err(|err| match err.kind() {
            io::ErrorKind::UnexpectedEof => TableError::Truncated { path: self.path.clone(), detail: format!("{what} is past the end of the file (changed since it was opened?)") },
            _ => TableError::Io { path: self.path.clone(), source: err },
        })
    }

    /// Checks that `frame` is the frame the index names, `check` its checksum
    /// ([`super::frame::is_named_frame`]); `what` names it in the error.
    pub(super) fn check_frame(&self, frame: &[u8], check: u32, what: fmt::Arguments) -> Result<(), TableError> {
        if super::frame::is_named_frame(frame, check) {
            return Ok(());
        }
        Err(self.corrupt(format!("{what} frame is not the one its index names (damaged, or moved from elsewhere)")))
    }

    /// Decompresses a checked frame that must fill `out` exactly.
    pub(super) fn decompress_into(&self, frame: &[u8], out: &mut [u8], what: fmt::Arguments) -> Result<(), TableError> {
        match with_decompressor(|d| d.decompress_to_buffer(frame, out)) {
            Ok(n) if n == out.len() => Ok(()),
            Ok(n) => Err(self.corrupt(format!("{what} has {n} bytes, expected {}", out.len()))),
            Err(err) => Err(self.corrupt(format!("{what} does not decompress: {err}"))),
        }
    }

    /// Decompresses a checked frame of at most `bound` bytes.
    pub(super) fn decompress(&self, frame: &[u8], bound: usize, what: fmt::Arguments) -> Result<Vec<u8>, TableError> {
        with_decompressor(|d| d.decompress(frame, bound)).map_err(|err| self.corrupt(format!("{what} does not decompress: {err}")))
    }
}

fn with_decompressor<R>(f: impl FnOnce(&mut zstd::bulk::Decompressor<'static>) -> io::Result<R>) -> io::Result<R> {
    DEC.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = Some(zstd::bulk::Decompressor::new()?);
        }
        f(d.as_mut().unwrap())
    })
}

/// Opens `path` for reading if it is a regular file. The type is checked before the
/// open, so that a FIFO or a device is never opened, and the open does not block, so
/// that a FIFO put there in between cannot hang it either; the descriptor's own type
/// is checked after.
fn open_regular(path: &Path, sector: Sector) -> Result<File, TableError> {
    let io = |source| TableError::Io { path: path.to_owned(), source };
    let not_a_file = || TableError::NotAFile { path: path.to_owned() };
    match fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(TableError::Missing { path: path.to_owned(), sector }),
        Err(e) => return Err(io(e)),
        Ok(m) if !m.is_file() => return Err(not_a_file()),
        Ok(_) => {}
    }
    let file = fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => TableError::Missing { path: path.to_owned(), sector },
        _ => io(e),
    })?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(not_a_file());
    }
    Ok(file)
}

/// The fields both kinds of header have, at the same offsets.
pub(super) struct Common {
    pub sector: Sector,
    pub entries: u64,
    pub block_size: u32,
    pub blocks: u32,
    pub rules: Rules,
}

impl Common {
    /// Writes the magic, the version and these fields into a header.
    pub fn write<K: Kind>(&self, head: &mut [u8]) {
        head[0..8].copy_from_slice(K::MAGIC);
        head[8..10].copy_from_slice(&K::VERSION.to_le_bytes());
        let x = self.sector;
        head[12..16].copy_from_slice(&[x.s, x.o, x.sh, x.oh]);
        put_u64(head, 16, self.entries);
        head[24..28].copy_from_slice(&self.block_size.to_le_bytes());
        head[28..32].copy_from_slice(&self.blocks.to_le_bytes());
        let name = self.rules.to_string();
        assert!(name.len() < HEADER_LEN - RULES_AT, "rule string {name} fits the header");
        head[RULES_AT..RULES_AT + name.len()].copy_from_slice(name.as_bytes());
    }

    /// Reads these fields from a header (at least [`HEADER_LEN`] bytes).
    pub fn read(path: &Path, head: &[u8]) -> Result<Common, TableError> {
        let corrupt = |detail: String| TableError::corrupt(path, detail);
        let name = &head[RULES_AT..HEADER_LEN];
        let name = std::str::from_utf8(&name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())]).map_err(|_| corrupt("rule string is not text".into()))?;
        Ok(Common {
            sector: Sector::new(head[12], head[13], head[14], head[15]).ok_or_else(|| corrupt("invalid sector in header".into()))?,
            entries: get_u64(head, 16),
            block_size: get_u32(head, 24),
            blocks: get_u32(head, 28),
            rules: name.parse().map_err(|e| corrupt(format!("rule string `{name}`: {e}")))?,
        })
    }
}

#[inline]
pub(super) fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

#[inline]
pub(super) fn get_u64(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
}

#[inline]
pub(super) fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
}

#[inline]
pub(super) fn get_u16(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(buf[at..at + 2].try_into().unwrap())
}
