//! The table file format (version 2): one file per sector, `S-O.mtb` for a movement
//! subspace and `S-O-SH-OH.mtb` for a sector with stones in hand (see `sector`).
//!
//! ```text
//! offset size  field
//!      0    8  magic "MORRISTB"
//!      8    2  format version (1)
//!     10    2  rules variant (0 = standard Nine Men's Morris)
//!     12    1  s (stones on the board of the side to move)
//!     13    1  o (stones on the board of the opponent)
//!     14    1  sh (stones in hand of the side to move; 0 in the movement phase)
//!     15    1  oh (stones in hand of the opponent; 0 in the movement phase)
//!     16    8  entries (index slots, holes included)
//!     24    4  block size (entries per block)
//!     28    4  block count
//!     32    8  content checksum: XXH3-64 of the blocks' checksums (each u64 LE), in order
//!     40   48  statistics: positions, wins, draws, losses (u64 each),
//!              deepest win, deepest loss (u16 each), 4 reserved bytes
//!     88    1  flags: bit 0 set = results only (the depth planes were stripped)
//!     89    7  reserved, 0
//!     96    8  index layout fingerprint (`layout_fingerprint`; 0 in files written before it)
//!    104   16  reserved, 0
//!    120    8  header checksum: XXH3-64 of bytes 0..120 and the block index
//!    128  24n  block index, per block: file offset (u64), length of the WLD frame (u32),
//!              length of the depth frame (u32), XXH3-64 of the block's value bytes (u64)
//!      …       blocks: per block, a zstd frame of the WLD plane then one of the depth plane
//! ```
//!
//! All integers are little-endian. Logically each entry is one value byte (see
//! `value`); the checksums are over these bytes. A block of 8,192 entries is stored as
//! two planes, so that a win/draw/loss probe never pays for depth:
//! - WLD: 2 bits per entry (0 draw, 1 win, 2 loss), four entries per byte, low bits first;
//! - depth: one byte per win or loss entry of the block, in entry order: `(d - 1) / 2`
//!   for a win in `d`, `d / 2` for a loss in `d` (parity is implied by the result).
//!
//! A plane of length 0 has no frame: an all-draw block stores nothing but its index entry.
//!
//! Holes of the index hold no position, so their entries are don't-cares: the writer
//! repeats the previous entry of the block (a draw at a block start), which costs
//! next to nothing after compression. Blocks are compressed independently so that a
//! probe decompresses only what it needs, and each block carries its own checksum so a
//! flipped byte is reported rather than read as a wrong value. Files are written under
//! a temporary name and renamed once complete.
//!
//! Version history: 1, one zstd frame of value bytes per 65,536 entries, holes stored as
//! draws; 2, WLD and depth planes per 8,192 entries, holes repeat their predecessor.

use crate::solver::Stats;
use crate::sector::Sector;
use rayon::prelude::*;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The first 8 bytes of every table file.
pub const MAGIC: &[u8; 8] = b"MORRISTB";
/// The format version this build writes and reads (no other is read).
pub const VERSION: u16 = 2;
/// The rules variant field of the standard game, the only one there is so far.
pub const VARIANT_STANDARD: u16 = 0;
/// Bytes of the fixed header, before the block index.
pub const HEADER_LEN: usize = 128;
const INDEX_ENTRY: usize = 24;
/// Entries per block: the unit of compression and of a probe's decompression.
pub const BLOCK_SIZE: u32 = 1 << 13;
const ZSTD_LEVEL: i32 = 9;

/// Why a table could not be read or written. Each names the file; the messages are
/// meant for the user as they are. A value is never read from a table that fails a
/// check: damage is reported, not returned as a wrong value.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file does not exist.
    #[error("table {path} is missing; generate it with `{hint}`")]
    Missing {
        /// The file looked for.
        path: PathBuf,
        /// The `morris solve` command that writes it ([`solve_hint`]).
        hint: String,
    },
    /// The operating system refused a read, write or rename.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The error the operating system gave.
        source: io::Error,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{path} is not a morris table (bad magic)")]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// The file has a format version other than [`VERSION`]; solve it again.
    #[error("{path} has format version {found}; this build reads version {VERSION}")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in its header.
        found: u16,
    },
    /// The file is shorter than its header says.
    #[error("{path} is truncated: {detail}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// What is missing.
        detail: String,
    },
    /// A checksum, count or code does not match: the file is damaged, holds another
    /// sector, or was written with another index layout.
    #[error("{path} is corrupt: {detail}")]
    Corrupt {
        /// The file (or, for a sector graph error of the solve plan, the directory).
        path: PathBuf,
        /// What failed.
        detail: String,
    },
    /// Depths were asked of a results-only file ([`TableFile::strip_depths`]).
    #[error("{path} holds results only (win, draw or loss, no depths): probe it with `--wdl`, or use the full tables")]
    ResultsOnly {
        /// The file.
        path: PathBuf,
    },
    /// A sector built by hand with more than 9 stones of a kind: no table can hold it.
    #[error("sector {0} does not exist: a side has at most 9 stones on the board and in hand")]
    NoSuchSector(Sector),
}

impl TableError {
    fn corrupt(path: &Path, detail: impl Into<String>) -> TableError {
        TableError::Corrupt { path: path.to_owned(), detail: detail.into() }
    }
}

/// The file name of a sector's table inside a database directory.
pub fn table_path(dir: &Path, sector: impl Into<Sector>) -> PathBuf {
    dir.join(format!("{}.mtb", sector.into()))
}

/// The `morris solve` command that writes the table of `sector`.
pub fn solve_hint(sector: Sector) -> String {
    match sector.subspace() {
        Some(sub) => format!("morris solve --max-stones {}", sub.total()),
        None if Sector::reachable(Sector::start(9, 9).expect("9-9 start")).contains(&sector) => "morris solve --all".to_string(),
        None => {
            // The smallest generalised start whose game reaches the sector.
            let starts = (3..=9u8).flat_map(|w| (3..=9u8).map(move |b| (w, b)));
            match starts
                .filter(|&(w, b)| Sector::start(w, b).is_some_and(|st| Sector::reachable(st).contains(&sector)))
                .min_by_key(|&(w, b)| (w + b, w))
            {
                Some((w, b)) => format!("morris solve --start {w}-{b}"),
                None => "morris solve --start WK-BK (no start reaches this sector)".to_string(),
            }
        }
    }
}

/// Parsed header of a table file (see the module documentation for the layout).
#[derive(Clone, Debug)]
pub struct Header {
    /// The sector the file holds, checked against the one asked for.
    pub sector: Sector,
    /// Index slots, holes included: the length of the sector's index.
    pub entries: u64,
    /// Entries per block ([`BLOCK_SIZE`] in files this build writes).
    pub block_size: u32,
    /// Number of blocks, `entries / block_size` rounded up.
    pub blocks: u32,
    /// XXH3-64 over the blocks' checksums, checked by every whole-table read.
    pub content_hash: u64,
    /// Counts and deepest values over the sector's positions (holes excluded).
    pub stats: Stats,
    /// The depth planes were stripped (`strip_depths`): win/draw/loss reads only.
    pub results_only: bool,
}

/// Where the header keeps the index layout fingerprint.
const FINGERPRINT_AT: usize = 96;

/// A hash of the positions the index puts at 64 fixed slots (and of its length). A
/// change to the representative choice, the symmetry numbering or the ranking would
/// make old files decode into wrong values that still pass every checksum; with the
/// fingerprint in the header such files are refused instead.
pub fn layout_fingerprint(index: &crate::index::SubspaceIndex) -> u64 {
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

/// Header byte holding the flags, and the flag of a results-only file.
const FLAGS_AT: usize = 88;
const RESULTS_ONLY: u8 = 1;

/// One entry of the block index: where a block's two frames are and its checksum.
#[derive(Clone, Copy, Debug)]
pub struct BlockEntry {
    /// File offset of the block's WLD frame; the depth frame follows it.
    pub offset: u64,
    /// Bytes of the WLD frame (0: an all-draw block).
    pub wld_len: u32,
    /// Bytes of the depth frame (0: no win or loss in the block, or a results-only file).
    pub depth_len: u32,
    /// XXH3-64 of the block's value bytes, one byte per entry.
    pub hash: u64,
}

/// The decompressed planes of one block, ready for single-entry lookups.
pub struct Planes {
    /// The WLD plane as little-endian words of 32 two-bit codes.
    words: Vec<u64>,
    depth: Vec<u8>,
}

/// One bit (the low bit of each 2-bit field) per decided (win or loss) entry.
#[inline(always)]
fn decided_mask(w: u64) -> u64 {
    (w | w >> 1) & 0x5555_5555_5555_5555
}

impl Planes {
    /// The value byte of entry `k` of the block.
    #[inline]
    pub fn get(&self, k: usize) -> Option<u8> {
        let (word, shift) = (k / 32, 2 * (k % 32));
        let code = (self.words.get(word)? >> shift) & 3;
        if code == 0 {
            return Some(0);
        }
        // Up to 256 popcounts a probe: worth the copy compiled with popcnt.
        let before: usize = crate::cpu::fast!(
            self.words[..word].iter().map(|&w| decided_mask(w).count_ones() as usize).sum::<usize>()
                + (decided_mask(self.words[word]) & ((1u64 << shift) - 1)).count_ones() as usize
        );
        let d = *self.depth.get(before)?;
        match code {
            1 if d < 127 => Some(d + 1),
            2 if d < 128 => Some(d | 128),
            _ => None,
        }
    }

    /// Win/draw/loss of entry `k` without touching the depth plane: 0, 1 or 2.
    #[inline]
    pub fn wld(&self, k: usize) -> u8 {
        ((self.words[k / 32] >> (2 * (k % 32))) & 3) as u8
    }
}

/// How to decode one byte of a WLD plane (four 2-bit codes).
struct DecodeByte {
    /// Offset of each entry's depth byte from the first depth byte of the four.
    at: [u8; 4],
    /// 0xff where the entry is a win (resp. a loss).
    win: [u8; 4],
    loss: [u8; 4],
    /// Decided entries among the four.
    count: u8,
    /// Whether a code is 3, which no table contains.
    bad: bool,
}

static DECODE: [DecodeByte; 256] = {
    let mut t = [const { DecodeByte { at: [0; 4], win: [0; 4], loss: [0; 4], count: 0, bad: false } }; 256];
    let mut x = 0;
    while x < 256 {
        let mut i = 0;
        let mut n = 0u8;
        while i < 4 {
            let c = (x >> (2 * i)) & 3;
            t[x].at[i] = n;
            t[x].win[i] = if c == 1 { 0xff } else { 0 };
            t[x].loss[i] = if c == 2 { 0xff } else { 0 };
            t[x].bad |= c == 3;
            n += (c != 0) as u8;
            i += 1;
        }
        t[x].count = n;
        x += 1;
    }
    t
};

/// The 2-bit WLD code of a value byte.
#[inline(always)]
fn wld_code(b: u8) -> u8 {
    match b {
        0 => 0,
        1..=127 => 1,
        _ => 2,
    }
}

/// Splits one block of value bytes into its compressed WLD and depth frames.
fn encode_block(values: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut wld = vec![0u8; values.len().div_ceil(4)];
    let mut depth = Vec::with_capacity(values.len());
    for (i, &b) in values.iter().enumerate() {
        wld[i / 4] |= wld_code(b) << (2 * (i % 4));
        match b {
            0 => {}
            1..=127 => depth.push(b - 1),
            _ => depth.push(b - 128),
        }
    }
    // An all-draw WLD plane or an empty depth plane is stored as no frame at all.
    let z = |data: &[u8]| {
        // Frame checksums let a single-entry probe detect corruption without
        // decoding and hashing the whole block.
        let mut c = zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("zstd compressor");
        c.include_checksum(true).expect("zstd parameter");
        c.compress(data).expect("zstd compression of an in-memory block")
    };
    let wld = if depth.is_empty() { Vec::new() } else { z(&wld) };
    let depth = if depth.is_empty() { Vec::new() } else { z(&depth) };
    (wld, depth)
}

/// Repeats the previous entry into every hole of the block starting at slot `start`.
fn fill_holes(index: &crate::index::SubspaceIndex, start: u64, block: &mut [u8]) {
    crate::cpu::fast!({
        for k in 0..block.len() {
            let i = start + k as u64;
            if index.may_be_hole(i) && index.is_hole(i) {
                block[k] = if k == 0 { 0 } else { block[k - 1] };
            }
        }
    })
}

fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get_u64(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
}

fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
}

fn get_u16(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(buf[at..at + 2].try_into().unwrap())
}

/// Writes `values` as the table of `sector` into `dir`, atomically (temporary file,
/// fsync, rename), and returns the file's size in bytes. `values` holds one value byte
/// per slot of the sector's index ([`Sector::index`]); `stats` goes into the header as
/// it is.
pub fn write_table(dir: &Path, sector: impl Into<Sector>, values: &[u8], stats: &Stats) -> Result<u64, TableError> {
    let sub: Sector = sector.into();
    let path = table_path(dir, sub);
    // Unique per process, so two runs on one directory never write the same file.
    let tmp = dir.join(format!("{sub}.mtb.tmp.{}", std::process::id()));
    let io_err = |source| TableError::Io { path: tmp.clone(), source };
    let index = sub.index();
    let blocks: Vec<(Vec<u8>, Vec<u8>, u64)> = values
        .par_chunks(BLOCK_SIZE as usize)
        .enumerate()
        .map(|(k, chunk)| {
            let mut block = chunk.to_vec();
            fill_holes(&index, k as u64 * BLOCK_SIZE as u64, &mut block);
            let (wld, depth) = encode_block(&block);
            (wld, depth, xxh3_64(&block))
        })
        .collect();
    // The content checksum chains the block checksums, so it needs no second pass.
    let mut content = Xxh3::new();
    for (_, _, hash) in &blocks {
        content.update(&hash.to_le_bytes());
    }
    let mut head = vec![0u8; HEADER_LEN + INDEX_ENTRY * blocks.len()];
    head[0..8].copy_from_slice(MAGIC);
    head[8..10].copy_from_slice(&VERSION.to_le_bytes());
    head[10..12].copy_from_slice(&VARIANT_STANDARD.to_le_bytes());
    head[12] = sub.s;
    head[13] = sub.o;
    head[14] = sub.sh;
    head[15] = sub.oh;
    put_u64(&mut head, 16, values.len() as u64);
    head[24..28].copy_from_slice(&BLOCK_SIZE.to_le_bytes());
    head[28..32].copy_from_slice(&(blocks.len() as u32).to_le_bytes());
    put_u64(&mut head, 32, content.digest());
    put_u64(&mut head, 40, stats.positions);
    put_u64(&mut head, 48, stats.wins);
    put_u64(&mut head, 56, stats.draws);
    put_u64(&mut head, 64, stats.losses);
    head[72..74].copy_from_slice(&stats.max_win.to_le_bytes());
    head[74..76].copy_from_slice(&stats.max_loss.to_le_bytes());
    put_u64(&mut head, FINGERPRINT_AT, layout_fingerprint(&index));
    let mut offset = head.len() as u64;
    for (k, (wld, depth, hash)) in blocks.iter().enumerate() {
        let at = HEADER_LEN + INDEX_ENTRY * k;
        put_u64(&mut head, at, offset);
        head[at + 8..at + 12].copy_from_slice(&(wld.len() as u32).to_le_bytes());
        head[at + 12..at + 16].copy_from_slice(&(depth.len() as u32).to_le_bytes());
        put_u64(&mut head, at + 16, *hash);
        offset += (wld.len() + depth.len()) as u64;
    }
    let header_hash = header_hash(&head);
    put_u64(&mut head, 120, header_hash);

    let result = (|| -> io::Result<()> {
        let mut f = io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        f.write_all(&head)?;
        for (wld, depth, _) in &blocks {
            f.write_all(wld)?;
            f.write_all(depth)?;
        }
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(e));
    }
    fs::rename(&tmp, &path).map_err(|source| TableError::Io { path: path.clone(), source })?;
    Ok(offset)
}

fn header_hash(head: &[u8]) -> u64 {
    let mut h = Xxh3::new();
    h.update(&head[..120]);
    h.update(&head[HEADER_LEN..]);
    h.digest()
}

/// A table file opened for reading, memory-mapped.
///
/// Reads come in three sizes: one entry ([`TableFile::read_wld`], or the planes of its
/// block, [`TableFile::read_planes`]), the whole table ([`TableFile::read_all`]), and
/// the whole table's results ([`TableFile::read_wld_mapped`]). Probes go through
/// [`Tablebase`](crate::probe::Tablebase), which finds the entry of a position.
pub struct TableFile {
    /// The file, for messages.
    pub path: PathBuf,
    /// The header, checked on opening.
    pub header: Header,
    index: Vec<BlockEntry>,
    map: memmap2::Mmap,
}

impl TableFile {
    /// Opens and checks the header and block index (not the blocks themselves), and
    /// that the file holds `expected`. A missing file is [`TableError::Missing`].
    pub fn open(path: &Path, expected: impl Into<Sector>) -> Result<TableFile, TableError> {
        let expected: Sector = expected.into();
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(TableError::Missing { path: path.to_owned(), hint: solve_hint(expected) })
            }
            Err(source) => return Err(TableError::Io { path: path.to_owned(), source }),
        };
        // SAFETY: table files are written once under a temporary name and renamed into
        // place, never modified afterwards, so the mapping is not mutated under us. A
        // file truncated by someone else while mapped could fault; that is the standard
        // memmap2 caveat for read-only tables.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|source| TableError::Io { path: path.to_owned(), source })?;
        let truncated = |detail: String| TableError::Truncated { path: path.to_owned(), detail };
        if map.len() < HEADER_LEN {
            return Err(truncated(format!("{} bytes, shorter than the {HEADER_LEN}-byte header", map.len())));
        }
        if &map[0..8] != MAGIC {
            return Err(TableError::BadMagic { path: path.to_owned() });
        }
        let version = get_u16(&map, 8);
        if version != VERSION {
            return Err(TableError::Version { path: path.to_owned(), found: version });
        }
        if get_u16(&map, 10) != VARIANT_STANDARD {
            return Err(TableError::corrupt(path, "unknown rules variant"));
        }
        let blocks = get_u32(&map, 28) as usize;
        let index_end = HEADER_LEN + INDEX_ENTRY * blocks;
        if map.len() < index_end {
            return Err(truncated(format!("{} bytes, the block index needs {index_end}", map.len())));
        }
        if header_hash(&map[..index_end]) != get_u64(&map, 120) {
            return Err(TableError::corrupt(path, "header checksum mismatch"));
        }
        let sub = Sector::new(map[12], map[13], map[14], map[15]).ok_or_else(|| TableError::corrupt(path, "invalid sector in header"))?;
        if sub != expected {
            return Err(TableError::corrupt(path, format!("holds sector {sub}, expected {expected}")));
        }
        if map[FLAGS_AT] & !RESULTS_ONLY != 0 {
            return Err(TableError::corrupt(path, "unknown flags in header"));
        }
        let header = Header {
            sector: sub,
            entries: get_u64(&map, 16),
            block_size: get_u32(&map, 24),
            blocks: blocks as u32,
            content_hash: get_u64(&map, 32),
            stats: Stats {
                positions: get_u64(&map, 40),
                wins: get_u64(&map, 48),
                draws: get_u64(&map, 56),
                losses: get_u64(&map, 64),
                max_win: get_u16(&map, 72),
                max_loss: get_u16(&map, 74),
            },
            results_only: map[FLAGS_AT] & RESULTS_ONLY != 0,
        };
        let fingerprint = get_u64(&map, FINGERPRINT_AT);
        if fingerprint != 0 && fingerprint != layout_fingerprint(&sub.index()) {
            return Err(TableError::corrupt(path, "index layout fingerprint differs: the file was written by a build that orders positions differently; solve it again"));
        }
        let expected_entries = sub.index().len();
        if header.entries != expected_entries
            || header.block_size == 0
            || header.entries.div_ceil(header.block_size as u64) != blocks as u64
        {
            return Err(TableError::corrupt(path, "entry or block count does not match the index"));
        }
        let mut index = Vec::with_capacity(blocks);
        for k in 0..blocks {
            let at = HEADER_LEN + INDEX_ENTRY * k;
            let e = BlockEntry {
                offset: get_u64(&map, at),
                wld_len: get_u32(&map, at + 8),
                depth_len: get_u32(&map, at + 12),
                hash: get_u64(&map, at + 16),
            };
            let len = e.wld_len as u64 + e.depth_len as u64;
            if e.offset.checked_add(len).is_none_or(|end| end > map.len() as u64) {
                return Err(truncated(format!("block {k} ends past the end of the file ({} bytes)", map.len())));
            }
            index.push(e);
        }
        Ok(TableFile { path: path.to_owned(), header, index, map })
    }

    /// Entries in block `k`.
    pub fn block_len(&self, k: usize) -> usize {
        let start = k as u64 * self.header.block_size as u64;
        (self.header.entries - start).min(self.header.block_size as u64) as usize
    }

    fn entry(&self, k: usize) -> Result<&BlockEntry, TableError> {
        self.index.get(k).ok_or_else(|| TableError::corrupt(&self.path, format!("no block {k}")))
    }

    fn frame(&self, e: &BlockEntry, depth: bool) -> &[u8] {
        let start = e.offset as usize + if depth { e.wld_len as usize } else { 0 };
        let len = if depth { e.depth_len } else { e.wld_len } as usize;
        &self.map[start..start + len]
    }

    /// Decompresses a plane of `len` bytes into `out`: the one path every read takes
    /// (through `decompress_into`), so every read checks the frame the same way.
    fn decompress(&self, k: usize, src: &[u8], out: &mut Vec<u8>, len: usize, what: &str) -> Result<(), TableError> {
        out.clear();
        out.resize(len, 0);
        if src.is_empty() {
            // No frame: an all-draw WLD plane, or a depth plane with no entry.
            return if what == "WLD" || len == 0 {
                Ok(())
            } else {
                Err(TableError::corrupt(&self.path, format!("block {k} lacks its depth plane")))
            };
        }
        self.decompress_into(k, src, out, what)
    }

    /// The WLD code (0 draw, 1 win, 2 loss) of entry `offset` of block `k`, reading only
    /// the block's WLD plane.
    pub fn read_wld(&self, k: usize, offset: usize) -> Result<u8, TableError> {
        let e = self.entry(k)?;
        let len = self.block_len(k);
        if offset >= len {
            return Err(TableError::corrupt(&self.path, format!("entry {offset} is outside block {k}")));
        }
        let mut wld = Vec::new();
        self.decompress(k, self.frame(e, false), &mut wld, len.div_ceil(4), "WLD")?;
        match wld[offset / 4] >> (2 * (offset % 4)) & 3 {
            3 => Err(TableError::corrupt(&self.path, format!("block {k} has an invalid WLD code"))),
            c => Ok(c),
        }
    }

    /// Decompresses the planes of block `k`: the packed WLD plane and the depth bytes.
    /// Each zstd frame carries its own checksum, verified by the decompressor.
    pub fn read_planes(&self, k: usize) -> Result<Planes, TableError> {
        self.needs_depths()?;
        let e = self.entry(k)?;
        let len = self.block_len(k);
        let mut wld = Vec::new();
        self.decompress(k, self.frame(e, false), &mut wld, len.div_ceil(4), "WLD")?;
        let words: Vec<u64> = wld.chunks(8).map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        }).collect();
        let decided: usize = crate::cpu::fast!(words.iter().map(|&w| decided_mask(w).count_ones() as usize).sum());
        let mut depth = Vec::new();
        self.decompress(k, self.frame(e, true), &mut depth, decided, "depth")?;
        Ok(Planes { words, depth })
    }

    /// Decodes block `k` into `out` (exactly the block's length) and checks its checksum.
    fn decode_block(&self, k: usize, out: &mut [u8]) -> Result<(), TableError> {
        self.needs_depths()?;
        thread_local! {
            static BUF: std::cell::RefCell<(Vec<u8>, Vec<u8>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
        }
        let e = self.entry(k)?;
        let len = self.block_len(k);
        debug_assert_eq!(out.len(), len);
        BUF.with(|b| {
            let (wld, depth) = &mut *b.borrow_mut();
            self.decompress(k, self.frame(e, false), wld, len.div_ceil(4), "WLD")?;
            let decided: usize = crate::cpu::fast!(wld.iter().map(|&x| ((x | x >> 1) & 0x55).count_ones() as usize).sum());
            self.decompress(k, self.frame(e, true), depth, decided, "depth")?;
            // Table-driven and branch-free: tables mix wins, draws and losses with no
            // pattern a branch predictor could learn.
            depth.resize(decided + 4, 0);
            let (mut d, mut bad) = (0usize, false);
            for (q, &x) in wld.iter().enumerate() {
                let dst = &mut out[4 * q..(4 * q + 4).min(len)];
                let lut = &DECODE[x as usize];
                let ds: &[u8; 4] = depth[d..d + 4].try_into().unwrap();
                for (i, v) in dst.iter_mut().enumerate() {
                    let dv = ds[lut.at[i] as usize & 3];
                    *v = lut.win[i] & dv.saturating_add(1) | lut.loss[i] & (dv | 128);
                }
                bad |= lut.bad;
                d += lut.count as usize;
            }
            if bad {
                return Err(TableError::corrupt(&self.path, format!("block {k} has an invalid WLD code")));
            }
            // Entries past the end of the block must be 0 (draw padding).
            if len % 4 != 0 && wld.last().is_some_and(|&x| x >> (2 * (len % 4)) != 0) {
                return Err(TableError::corrupt(&self.path, format!("block {k} has codes past its end")));
            }
            Ok(())
        })?;
        if xxh3_64(out) != e.hash {
            return Err(TableError::corrupt(&self.path, format!("block {k} checksum mismatch")));
        }
        Ok(())
    }

    /// Decodes block `k` (slots from `k * block_size`) into `out`, resized to the block's
    /// length, and checks the block's checksum: for readers that stream a table one
    /// block at a time rather than hold all of it.
    pub fn read_block(&self, k: usize, out: &mut Vec<u8>) -> Result<(), TableError> {
        self.entry(k)?;
        out.clear();
        out.resize(self.block_len(k), 0);
        self.decode_block(k, out)
    }

    /// Decompresses the whole table, checking every block and the content checksum.
    pub fn read_all(&self) -> Result<Vec<u8>, TableError> {
        let mut out = vec![0u8; self.header.entries as usize];
        self.read_all_into(&mut out)?;
        Ok(out)
    }

    /// Like `read_all`, into anonymous memory backed by huge pages where the OS offers
    /// them: random lookups into a multi-gigabyte table then miss the TLB far less.
    pub fn read_all_mapped(&self) -> Result<memmap2::MmapMut, TableError> {
        let len = (self.header.entries as usize).max(1);
        let mut map = memmap2::MmapMut::map_anon(len).map_err(|source| TableError::Io { path: self.path.clone(), source })?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        self.read_all_into(&mut map[..self.header.entries as usize])?;
        Ok(map)
    }

    /// The WLD plane of the whole table, packed four 2-bit codes to a byte (0 draw, 1
    /// win, 2 loss; entry `i` in bits `2 * (i % 4)` of byte `i / 4`), in huge-page
    /// memory. A quarter of the size of `read_all` and much faster to load, for
    /// searches that need results but not depths. Each plane's integrity is checked
    /// by its zstd frame checksum (the block hashes cover values with depths, so
    /// they cannot be checked without the depth planes).
    pub fn read_wld_mapped(&self) -> Result<memmap2::MmapMut, TableError> {
        let block = self.header.block_size as usize;
        if block % 4 != 0 {
            return Err(TableError::corrupt(&self.path, format!("block size {block} is not a multiple of 4")));
        }
        let len = (self.header.entries as usize).div_ceil(4);
        let mut map = memmap2::MmapMut::map_anon(len.max(1)).map_err(|source| TableError::Io { path: self.path.clone(), source })?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        map[..len].par_chunks_mut(block / 4).enumerate().try_for_each(|(k, chunk)| {
            let e = self.entry(k)?;
            let src = self.frame(e, false);
            if !src.is_empty() {
                self.decompress_into(k, src, chunk, "WLD")?;
            }
            if chunk.iter().any(|&x| x & (x >> 1) & 0x55 != 0) {
                return Err(TableError::corrupt(&self.path, format!("block {k} has an invalid WLD code")));
            }
            Ok(())
        })?;
        Ok(map)
    }

    /// Decompresses a frame that must fill `out` exactly.
    fn decompress_into(&self, k: usize, src: &[u8], out: &mut [u8], what: &str) -> Result<(), TableError> {
        thread_local! {
            static DEC: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { std::cell::RefCell::new(None) };
        }
        let n = DEC.with(|d| {
            let mut d = d.borrow_mut();
            if d.is_none() {
                *d = Some(zstd::bulk::Decompressor::new()?);
            }
            d.as_mut().unwrap().decompress_to_buffer(src, out)
        });
        match n {
            Ok(n) if n == out.len() => Ok(()),
            Ok(n) => Err(TableError::corrupt(&self.path, format!("block {k} {what} plane has {n} bytes, expected {}", out.len()))),
            Err(err) => Err(TableError::corrupt(&self.path, format!("block {k} {what} plane does not decompress: {err}"))),
        }
    }

    fn read_all_into(&self, out: &mut [u8]) -> Result<(), TableError> {
        out.par_chunks_mut(self.header.block_size as usize).enumerate().try_for_each(|(k, chunk)| self.decode_block(k, chunk))?;
        let mut content = Xxh3::new();
        for e in &self.index {
            content.update(&e.hash.to_le_bytes());
        }
        if content.digest() != self.header.content_hash {
            return Err(TableError::corrupt(&self.path, "content checksum mismatch"));
        }
        Ok(())
    }

    fn needs_depths(&self) -> Result<(), TableError> {
        if self.header.results_only {
            return Err(TableError::ResultsOnly { path: self.path.clone() });
        }
        Ok(())
    }

    /// Writes a copy of this table without its depth planes into `dir`, atomically:
    /// the file a user ships who wants results only. The block and content checksums
    /// are kept (they still name the full table's values); each WLD plane stays
    /// protected by its zstd frame checksum.
    pub fn strip_depths(&self, dir: &Path) -> Result<u64, TableError> {
        let mut head = self.map[..HEADER_LEN + INDEX_ENTRY * self.index.len()].to_vec();
        head[FLAGS_AT] |= RESULTS_ONLY;
        let mut offset = head.len() as u64;
        for (k, e) in self.index.iter().enumerate() {
            let at = HEADER_LEN + INDEX_ENTRY * k;
            put_u64(&mut head, at, offset);
            head[at + 12..at + 16].copy_from_slice(&0u32.to_le_bytes());
            offset += e.wld_len as u64;
        }
        let hash = header_hash(&head);
        put_u64(&mut head, 120, hash);
        self.write_copy(dir, |f| {
            f.write_all(&head)?;
            for e in &self.index {
                f.write_all(self.frame(e, false))?;
            }
            Ok(())
        })?;
        Ok(offset)
    }

    /// Copies this table, as it is, into `dir`, atomically; returns its size.
    pub fn copy_to(&self, dir: &Path) -> Result<u64, TableError> {
        self.write_copy(dir, |f| f.write_all(&self.map))?;
        Ok(self.file_size())
    }

    /// Writes this table's file in `dir` from `body`: under a temporary name, synced,
    /// then renamed, so that a failed copy leaves no table behind.
    fn write_copy(&self, dir: &Path, body: impl FnOnce(&mut io::BufWriter<File>) -> io::Result<()>) -> Result<(), TableError> {
        let path = table_path(dir, self.header.sector);
        let tmp = dir.join(format!("{}.mtb.tmp.{}", self.header.sector, std::process::id()));
        let result = (|| -> io::Result<()> {
            let mut f = io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
            body(&mut f)?;
            f.into_inner().map_err(|e| e.into_error())?.sync_all()
        })();
        if let Err(source) = result {
            let _ = fs::remove_file(&tmp);
            return Err(TableError::Io { path: tmp, source });
        }
        fs::rename(&tmp, &path).map_err(|source| TableError::Io { path, source })
    }

    /// Compressed bytes of the WLD planes and of the depth planes.
    pub fn plane_bytes(&self) -> (u64, u64) {
        self.index.iter().fold((0, 0), |(w, d), e| (w + e.wld_len as u64, d + e.depth_len as u64))
    }

    /// Bytes of the file.
    pub fn file_size(&self) -> u64 {
        self.map.len() as u64
    }
}
