//! The bytes of a table file's header and block index: one [`Header`] type that
//! writes itself ([`Header::to_bytes`]) and parses itself back (as the [`Strong`] kind
//! of block file), so the writer and the reader cannot disagree about a field.

use super::block::{get_u16, get_u32, get_u64, put_u64, Common, Kind};
use super::stats::Stats;
use super::TableError;
use crate::position::sector::Sector;
use crate::rules::Rules;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// The first 8 bytes of every table file.
pub const MAGIC: &[u8; 8] = b"MORRISTB";
/// The format version this build writes and reads (no other is read).
pub const VERSION: u16 = 3;
/// Bytes of the fixed header, before the block index.
pub const HEADER_LEN: usize = super::block::HEADER_LEN;
/// Bytes of one block index entry.
pub const INDEX_ENTRY: usize = 24;
/// Entries per block: the unit of compression and of a probe's decompression.
pub const BLOCK_SIZE: u32 = 1 << 13;
const HASH_AT: usize = 120;
const FLAGS_AT: usize = 88;
/// Flag: the depth planes were stripped (`morris strip`, `compact --wdl`).
const RESULTS_ONLY: u8 = 1;
/// Flag: the file belongs to a compact set (`morris compact`), whose other sectors
/// may be left out; such a set is not compacted again.
const COMPACT: u8 = 2;
/// Flag: the file has a deep section, the exact depths of its values beyond a byte.
const DEEP: u8 = 4;
const DEEP_CHECK_AT: usize = 76;
const DEEP_OFFSET_AT: usize = 80;
const DEEP_COUNT_AT: usize = 112;
/// Bytes of one deep entry: the slot (u64) and the depth (u16).
pub const DEEP_ENTRY: usize = 10;

/// Where a table's deep section is: `count` entries of [`DEEP_ENTRY`] bytes from
/// `offset`, whose bytes hash (the low 32 bits of XXH3-64) to `check`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeepSpan {
    /// File offset of the section.
    pub offset: u64,
    /// Entries in it.
    pub count: u64,
    /// The low 32 bits of the XXH3-64 of its bytes.
    pub check: u32,
}

/// The bytes of a deep section.
pub fn deep_bytes(deep: &crate::position::value::Deep) -> Vec<u8> {
    let mut out = Vec::with_capacity(deep.len() * DEEP_ENTRY);
    for &(slot, depth) in deep.entries() {
        out.extend_from_slice(&slot.to_le_bytes());
        out.extend_from_slice(&depth.to_le_bytes());
    }
    out
}

/// The content checksum's share of a deep section, mixed in after the blocks' hashes
/// (tables without one keep the checksum they always had).
pub fn deep_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// One entry of the block index: where a block's two frames are, and the content
/// checksum each frame must carry. zstd verifies a frame's checksum against what it
/// decompresses to; the index says which checksum the frame of this block has, so a
/// valid frame moved to another block or spliced in from another table is an error
/// even though it decompresses cleanly. Checking costs a 4-byte compare, no second
/// hash of the plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEntry {
    /// File offset of the block's WLD frame; the depth frame follows it.
    pub offset: u64,
    /// Bytes of the WLD frame (0: an all-draw block).
    pub wld_len: u32,
    /// Bytes of the depth frame (0: no win or loss in the block, or a results-only file).
    pub depth_len: u32,
    /// The WLD frame's content checksum (the low 32 bits of XXH64 of the plane, as
    /// zstd stores it at the frame's end); 0 when there is no frame.
    pub wld_check: u32,
    /// The depth frame's content checksum; 0 when there is no frame (kept from the full
    /// table in a results-only file, where it is not read).
    pub depth_check: u32,
}

/// Parsed header of a table file (see the module documentation of `table` for the
/// layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The sector the file holds, checked against the one asked for.
    pub sector: Sector,
    /// The rule set that made the values, checked against the reader's.
    pub rules: Rules,
    /// Index slots, holes included: the length of the sector's index.
    pub entries: u64,
    /// Entries per block ([`BLOCK_SIZE`] in files this build writes).
    pub block_size: u32,
    /// Number of blocks, `entries / block_size` rounded up.
    pub blocks: u32,
    /// XXH3-64 over the blocks' value-byte hashes, in order: the identity of the
    /// table's values whatever their compression (`databases/checksums.txt`), checked
    /// by every whole-table read of a full table.
    pub content_hash: u64,
    /// Counts and deepest values over the sector's positions (holes excluded).
    pub stats: Stats,
    /// The depth planes were stripped: win/draw/loss reads only.
    pub results_only: bool,
    /// The file belongs to a compact set.
    pub compact: bool,
    /// `layout_fingerprint` of the index that ordered the entries.
    pub layout: u64,
    /// The deep section, if the table has values deeper than a byte holds.
    pub deep: Option<DeepSpan>,
}

/// XXH3-64 of the header and block index, the checksum field itself excluded.
fn header_hash(head: &[u8]) -> u64 {
    let mut h = Xxh3::new();
    h.update(&head[..HASH_AT]);
    h.update(&head[HASH_AT + 8..]);
    h.digest()
}

impl Header {
    /// The header and block index as they are written, checksum included.
    pub fn to_bytes(&self, index: &[BlockEntry]) -> Vec<u8> {
        assert_eq!(index.len(), self.blocks as usize, "one index entry per block");
        let mut head = vec![0u8; HEADER_LEN + INDEX_ENTRY * index.len()];
        Common { sector: self.sector, entries: self.entries, block_size: self.block_size, blocks: self.blocks, rules: self.rules }.write::<Strong>(&mut head);
        put_u64(&mut head, 32, self.content_hash);
        let s = &self.stats;
        for (k, v) in [s.positions, s.wins, s.draws, s.losses].into_iter().enumerate() {
            put_u64(&mut head, 40 + 8 * k, v);
        }
        head[72..74].copy_from_slice(&s.max_win.to_le_bytes());
        head[74..76].copy_from_slice(&s.max_loss.to_le_bytes());
        head[FLAGS_AT] = if self.results_only { RESULTS_ONLY } else { 0 } | if self.compact { COMPACT } else { 0 } | if self.deep.is_some() { DEEP } else { 0 };
        if let Some(d) = self.deep {
            head[DEEP_CHECK_AT..DEEP_CHECK_AT + 4].copy_from_slice(&d.check.to_le_bytes());
            put_u64(&mut head, DEEP_OFFSET_AT, d.offset);
            put_u64(&mut head, DEEP_COUNT_AT, d.count);
        }
        put_u64(&mut head, 96, self.layout);
        put_u64(&mut head, 104, self.rules.fingerprint());
        for (k, e) in index.iter().enumerate() {
            let at = HEADER_LEN + INDEX_ENTRY * k;
            put_u64(&mut head, at, e.offset);
            head[at + 8..at + 12].copy_from_slice(&e.wld_len.to_le_bytes());
            head[at + 12..at + 16].copy_from_slice(&e.depth_len.to_le_bytes());
            head[at + 16..at + 20].copy_from_slice(&e.wld_check.to_le_bytes());
            head[at + 20..at + 24].copy_from_slice(&e.depth_check.to_le_bytes());
        }
        let hash = header_hash(&head);
        put_u64(&mut head, HASH_AT, hash);
        head
    }

    /// Parses and checks the header and block index in `head` (exactly
    /// [`Kind::head_len`] bytes, magic and version checked) of the file at `path`,
    /// which is `file_len` bytes long: checksum, flags, counts, and that every block
    /// lies inside the file. What it holds is checked against what the reader expects
    /// by the caller.
    fn parse(path: &Path, head: &[u8], file_len: u64) -> Result<(Header, Vec<BlockEntry>), TableError> {
        let corrupt = |detail: &str| TableError::corrupt(path, detail);
        if header_hash(head) != get_u64(head, HASH_AT) {
            return Err(corrupt("header checksum mismatch"));
        }
        let Common { sector, entries, block_size, blocks, rules } = Common::read(path, head)?;
        let flags = head[FLAGS_AT];
        if flags & !(RESULTS_ONLY | COMPACT | DEEP) != 0 {
            return Err(corrupt("unknown flags in header"));
        }
        if rules.fingerprint() != get_u64(head, 104) {
            return Err(corrupt(&format!("rule string `{rules}` does not match its fingerprint")));
        }
        let header = Header {
            sector,
            rules,
            entries,
            block_size,
            blocks,
            content_hash: get_u64(head, 32),
            stats: Stats {
                positions: get_u64(head, 40),
                wins: get_u64(head, 48),
                draws: get_u64(head, 56),
                losses: get_u64(head, 64),
                max_win: get_u16(head, 72),
                max_loss: get_u16(head, 74),
            },
            results_only: flags & RESULTS_ONLY != 0,
            compact: flags & COMPACT != 0,
            layout: get_u64(head, 96),
            deep: (flags & DEEP != 0).then(|| DeepSpan { offset: get_u64(head, DEEP_OFFSET_AT), count: get_u64(head, DEEP_COUNT_AT), check: get_u32(head, DEEP_CHECK_AT) }),
        };
        match header.deep {
            Some(d) => {
                let end = d.count.checked_mul(DEEP_ENTRY as u64).and_then(|n| n.checked_add(d.offset));
                if d.count == 0 || d.count > header.entries || end.is_none_or(|end| end > file_len) {
                    return Err(TableError::Truncated {
                        path: path.to_owned(),
                        detail: format!("the deep section of {} entries at {} ends past the end of the file ({file_len} bytes)", d.count, d.offset),
                    });
                }
                if header.results_only {
                    return Err(corrupt("a results-only file has a deep section"));
                }
            }
            None => {
                if head[DEEP_CHECK_AT..DEEP_OFFSET_AT + 8].iter().chain(&head[DEEP_COUNT_AT..DEEP_COUNT_AT + 8]).any(|&b| b != 0) {
                    return Err(corrupt("deep section fields set without the deep flag"));
                }
            }
        }
        if header.block_size == 0 || !header.block_size.is_multiple_of(4) || header.entries.div_ceil(header.block_size as u64) != blocks as u64 {
            return Err(corrupt("entry or block count does not match the block size"));
        }
        let entries = &head[HEADER_LEN..];
        if entries.len() != INDEX_ENTRY * blocks as usize {
            return Err(TableError::Truncated { path: path.to_owned(), detail: format!("the block index needs {} bytes", INDEX_ENTRY * blocks as usize) });
        }
        let mut index = Vec::with_capacity(blocks as usize);
        for (k, at) in entries.chunks_exact(INDEX_ENTRY).enumerate() {
            let e = BlockEntry { offset: get_u64(at, 0), wld_len: get_u32(at, 8), depth_len: get_u32(at, 12), wld_check: get_u32(at, 16), depth_check: get_u32(at, 20) };
            let end = e.offset.checked_add(e.wld_len as u64 + e.depth_len as u64);
            if end.is_none_or(|end| end > file_len) {
                return Err(TableError::Truncated { path: path.to_owned(), detail: format!("block {k} ends past the end of the file ({file_len} bytes)") });
            }
            if header.results_only && e.depth_len != 0 {
                return Err(corrupt(&format!("block {k} of a results-only file has a depth frame")));
            }
            index.push(e);
        }
        Ok((header, index))
    }
}

/// The strong tables' kind of block file: a [`Header`], a [`BlockEntry`] a block, and
/// the deep section kept beside them.
pub struct Strong;

impl Kind for Strong {
    const MAGIC: &'static [u8; 8] = MAGIC;
    const VERSION: u16 = VERSION;
    type Header = Header;
    type Entry = BlockEntry;
    type State = super::reader::DeepSection;

    fn head_len(_: &Path, fixed: &[u8]) -> Result<usize, TableError> {
        Ok(HEADER_LEN + INDEX_ENTRY * get_u32(fixed, 28) as usize)
    }

    fn parse(path: &Path, head: &[u8], file_len: u64) -> Result<(Header, Vec<BlockEntry>), TableError> {
        Header::parse(path, head, file_len)
    }
}
