//! The table file format (version 3): one file per sector, `S-O.mtb` for a movement
//! subspace and `S-O-SH-OH.mtb` for a sector with stones in hand (see `sector`).
//! [`format`] has the header's bytes, [`writer`] writes files atomically and
//! [`reader`] reads them, every block checked. The draw classes of a sector are a
//! file of their own beside its table ([`class`]); both kinds are read by one
//! [`block`] reader.
//!
//! ```text
//! offset size  field
//!      0    8  magic "MORRISTB"
//!      8    2  format version (3)
//!     10    2  reserved, 0
//!     12    1  s (stones on the board of the side to move)
//!     13    1  o (stones on the board of the opponent)
//!     14    1  sh (stones in hand of the side to move; 0 in the movement phase)
//!     15    1  oh (stones in hand of the opponent; 0 in the movement phase)
//!     16    8  entries (index slots, holes included)
//!     24    4  block size (entries per block)
//!     28    4  block count
//!     32    8  content checksum: XXH3-64 of the blocks' value-byte hashes (each u64 LE)
//!     40   36  statistics: positions, wins, draws, losses (u64 each),
//!              deepest win, deepest loss (u16 each)
//!     76    4  deep section check: low 32 bits of XXH3-64 of its bytes (0 without one)
//!     80    8  deep section file offset (0 without one)
//!     88    1  flags: bit 0 results only (depth planes stripped), bit 1 part of a
//!              compact set, bit 2 has a deep section
//!     89    7  reserved, 0
//!     96    8  index layout fingerprint (`layout_fingerprint`)
//!    104    8  rule set fingerprint (`Rules::fingerprint`)
//!    112    8  deep section entries (0 without one)
//!    120    8  header checksum: XXH3-64 of bytes 0..120, 128..256 and the block index
//!    128  128  the canonical rule string (`Rules` printed), ASCII, NUL-padded
//!    256  24n  block index, per block: file offset (u64), length of the WLD frame (u32),
//!              length of the depth frame (u32), the content checksum the WLD frame
//!              carries (u32), the one the depth frame carries (u32)
//!      …       blocks: per block, a zstd frame of the WLD plane then one of the depth plane
//!      …  10m  deep section, if flagged: per value deeper than a byte holds, its slot
//!              (u64) and its depth in plies (u16), by slot
//! ```
//!
//! All integers are little-endian. Logically each entry is one value byte (see
//! `value`). A block of 8,192 entries is stored as two planes, so that a
//! win/draw/loss probe never pays for depth:
//! - WLD: 2 bits per entry (0 draw, 1 win, 2 loss), four entries per byte, low bits first;
//! - depth: one byte per win or loss entry of the block, in entry order: `(d - 1) / 2`
//!   for a win in `d`, `d / 2` for a loss in `d` (parity is implied by the result).
//!
//! A plane of length 0 has no frame: an all-draw block stores nothing but its index entry.
//!
//! A win deeper than 251 plies or a loss deeper than 252 is the value byte
//! [`DEEP_WIN`](crate::position::value::DEEP_WIN) or [`DEEP_LOSS`](crate::position::value::DEEP_LOSS), and
//! its exact depth is in the deep section, which only rule sets that go that deep have
//! (`removal=strict`): every other table is byte for byte what it was. The content
//! checksum then mixes in the section's XXH3-64 after the blocks' hashes, and a
//! whole-table read checks that the deep bytes and the section's entries match one for
//! one.
//!
//! Holes of the index hold no position, so their entries are don't-cares: the writer
//! repeats the previous entry of the block (a draw at a block start), which costs
//! next to nothing after compression. Blocks are compressed independently so that a
//! probe decompresses only what it needs. Every frame carries a content checksum (the
//! low 32 bits of XXH64 of its plane), which zstd verifies as it decompresses; the
//! block index, covered by the header checksum, records which checksum each frame of
//! each block carries. A frame checks itself, but a valid frame moved to another block,
//! or spliced in from another table, would decode into wrong values: its checksum is
//! not the one the index names, so it is reported instead, at the price of a 4-byte
//! compare per frame. The content
//! checksum identifies the values independently of their compression, and so of the
//! format version (`databases/checksums.txt`).
//!
//! Version history: 1, one zstd frame of value bytes per 65,536 entries, holes stored as
//! draws; 2, WLD and depth planes per 8,192 entries, holes repeat their predecessor, one
//! hash per block over the value bytes; 3, each frame's checksum in the block index,
//! the rule set in the header, the compact-set flag; later in 3, the deep section and
//! its flag, which builds from before it refuse as an unknown flag (no table without
//! deep values changed).

pub mod block;
pub mod class;
pub mod compact;
pub mod format;
pub(crate) mod frame;
pub mod lock;
pub mod manifest;
pub mod reader;
pub mod stats;
pub mod writer;

pub use block::{BlockFile, Kind};
pub use class::{class_path, write_classes, ClassFile, ClassHeader, Classes, NO_CLASS};
pub use format::{BlockEntry, Header, BLOCK_SIZE, HEADER_LEN, MAGIC, VERSION};
pub use lock::lock_dir;
pub use reader::{Checked, Planes, TableFile};
pub use writer::{write_atomic, write_table, write_table_deep};

use crate::position::sector::Sector;
use crate::rules::Rules;
use std::io;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// Why a table could not be read or written. Each names the file. A value is never
/// read from a table that fails a check: damage is reported, not returned as a wrong
/// value.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file does not exist.
    #[error("table {} is missing", path.display())]
    Missing {
        /// The file looked for.
        path: PathBuf,
        /// The sector whose table it is: front ends say which command writes it.
        sector: Sector,
    },
    /// The path exists but is not a regular file (a directory, a FIFO, a device).
    #[error("{} is not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The operating system refused a read, write or rename.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The error the operating system gave.
        source: io::Error,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{} is not a morris table (bad magic)", path.display())]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// A solve met a value deeper than a table's one-byte values hold: nothing is
    /// written for its unit.
    #[error(transparent)]
    TooDeep(#[from] crate::position::value::TooDeep),
    /// The table holds values deeper than a byte (its deep section), which this reader
    /// does not take yet: refused rather than read with wrong depths.
    #[error("{} holds values deeper than 252 plies, which {reader} does not read yet", path.display())]
    DeepValues {
        /// The file.
        path: PathBuf,
        /// What refused it.
        reader: &'static str,
    },
    /// The file is of its kind (its magic is right) but of another format version
    /// than this build reads: a file of an older or newer build, not a damaged one.
    /// Solving it again replaces it.
    #[error("{} has format version {found}; this build reads version {supported}", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in its header.
        found: u16,
        /// The one version this build reads of that kind of file.
        supported: u16,
    },
    /// The file is shorter than its header says.
    #[error("{} is truncated: {detail}", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// What is missing.
        detail: String,
    },
    /// A checksum, count or code does not match: the file is damaged, holds another
    /// sector, or was written with another index layout.
    #[error("{} is corrupt: {detail}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What failed.
        detail: String,
    },
    /// The table was made under other rules than the reader's: its values would look
    /// right and be wrong.
    #[error("{} was made under the rules `{found}`, not `{expected}`", path.display())]
    WrongRules {
        /// The file.
        path: PathBuf,
        /// The rules in its header.
        found: Rules,
        /// The rules it was opened under.
        expected: Rules,
    },
    /// Depths were asked of a results-only file ([`TableFile::copy_to`]).
    #[error("{} holds results only (win, draw or loss, no depths)", path.display())]
    ResultsOnly {
        /// The file.
        path: PathBuf,
    },
    /// The sectors asked for cannot be solved one after another (see
    /// [`Sector::solve_order`]).
    #[error(transparent)]
    Cycle(#[from] crate::position::sector::CycleError),
    /// A sector built by hand with more stones of a kind than the rules give a side:
    /// no table of theirs can hold it.
    #[error("sector {0} does not exist under these rules: a side has more stones than they give it")]
    NoSuchSector(Sector),
    /// A unit solved alone (`morris solve --unit`) reads a table that is missing,
    /// damaged or of other rules: nothing is solved until the unit that writes it is.
    #[error("unit {unit} reads a table that is not ready (unit {writer} writes it): {source}")]
    Dependency {
        /// The unit asked for.
        unit: String,
        /// The unit whose table it reads.
        writer: String,
        /// What is wrong with that table; it names the file.
        source: Box<TableError>,
    },
    /// A start or subspace asked of the solver with more stones a side than the rules
    /// give: solving it under them would write tables of another game, or none at all.
    #[error("{asked} needs more stones a side than the rules `{rules}` give (at most {})", rules.stones())]
    BeyondRules {
        /// What was asked, as the user wrote it (`the start 10-10`, `the subspace 5-3`).
        asked: String,
        /// The rules it was asked under.
        rules: Rules,
    },
}

impl TableError {
    fn corrupt(path: &Path, detail: impl Into<String>) -> TableError {
        TableError::Corrupt { path: path.to_owned(), detail: detail.into() }
    }
}

/// Refuses a directory that holds a table of other rules than `rules`, naming both: a
/// directory holds the tables of one rule set. Reads each table's header only.
pub fn one_rule_set(dir: &Path, rules: &Rules) -> Result<(), TableError> {
    let entries = std::fs::read_dir(dir).map_err(|source| TableError::Io { path: dir.to_owned(), source })?;
    for sector in entries.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok()) {
        // Damage is for the table's own turn: it is solved again or reported.
        if let Err(e @ TableError::WrongRules { .. }) = TableFile::open(&table_path(dir, sector), sector, rules) {
            return Err(e);
        }
    }
    Ok(())
}

/// The file name of a sector's table inside a database directory.
pub fn table_path(dir: &Path, sector: impl Into<Sector>) -> PathBuf {
    dir.join(format!("{}.mtb", sector.into()))
}

/// A hash of the positions the index puts at 64 fixed slots (and of its length). A
/// change to the representative choice, the symmetry numbering or the ranking would
/// make old files decode into wrong values that still pass every checksum; with the
/// fingerprint in the header such files are refused instead.
pub fn layout_fingerprint(index: &crate::position::index::SubspaceIndex) -> u64 {
    let mut h = Xxh3::new();
    h.update(&index.len().to_le_bytes());
    for k in 0..64u64 {
        let slot = index.len() / 64 * k + k % index.len().max(1);
        let (m, o) = index.unindex(slot.min(index.len().saturating_sub(1)));
        h.update(&m.to_le_bytes());
        h.update(&o.to_le_bytes());
    }
    // Never 0, which marks files written before fingerprints.
    h.digest().max(1)
}
