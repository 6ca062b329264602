//! The bytes of a table file's header and block index: one [`Header`] type that
//! writes itself ([`Header::to_bytes`]) and parses itself back ([`Header::parse`]),
//! so the writer and the reader cannot disagree about a field.

use super::TableError;
use crate::rules::Rules;
use crate::position::sector::Sector;
use super::stats::Stats;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// The first 8 bytes of every table file.
pub const MAGIC: &[u8; 8] = b"MORRISTB";
/// The format version this build writes and reads (no other is read).
pub const VERSION: u16 = 3;
/// Bytes of the fixed header, before the block index.
pub const HEADER_LEN: usize = 256;
/// Bytes of one block index entry.
pub const INDEX_ENTRY: usize = 24;
/// Entries per block: the unit of compression and of a probe's decompression.
pub const BLOCK_SIZE: u32 = 1 << 13;
/// Room for the canonical rule string (ASCII, NUL-padded).
const RULES_LEN: usize = 128;
const RULES_AT: usize = 128;
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

pub(super) fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

pub(super) fn get_u64(buf: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
}

fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
}

fn get_u16(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(buf[at..at + 2].try_into().unwrap())
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
        head[0..8].copy_from_slice(MAGIC);
        head[8..10].copy_from_slice(&VERSION.to_le_bytes());
        let x = self.sector;
        head[12..16].copy_from_slice(&[x.s, x.o, x.sh, x.oh]);
        put_u64(&mut head, 16, self.entries);
        head[24..28].copy_from_slice(&self.block_size.to_le_bytes());
        head[28..32].copy_from_slice(&self.blocks.to_le_bytes());
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
        let name = self.rules.to_string();
        assert!(name.len() < RULES_LEN, "rule string {name} fits the header");
        head[RULES_AT..RULES_AT + name.len()].copy_from_slice(name.as_bytes());
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

    /// Checks the magic and the version in the first bytes of a file, before anything
    /// else of it is believed.
    pub fn precheck(path: &Path, fixed: &[u8]) -> Result<(), TableError> {
        if fixed.len() >= 8 && &fixed[0..8] != MAGIC {
            return Err(TableError::BadMagic { path: path.to_owned() });
        }
        if fixed.len() >= 10 && get_u16(fixed, 8) != VERSION {
            return Err(TableError::Version { path: path.to_owned(), found: get_u16(fixed, 8) });
        }
        Ok(())
    }

    /// How many bytes of header and block index a file whose first bytes are `fixed`
    /// (at least [`HEADER_LEN`] of them) has: what to read before [`Header::parse`].
    pub fn total_len(fixed: &[u8]) -> usize {
        HEADER_LEN + INDEX_ENTRY * get_u32(fixed, 28) as usize
    }

    /// Parses and checks the header and block index in `head` (exactly
    /// [`Header::total_len`] bytes) of the file at `path`, which is `file_len` bytes
    /// long: magic, version, checksum, flags, counts, and that every block lies inside
    /// the file. What it holds is checked against what the reader expects by the caller.
    pub fn parse(path: &Path, head: &[u8], file_len: u64) -> Result<(Header, Vec<BlockEntry>), TableError> {
        let corrupt = |detail: &str| TableError::corrupt(path, detail);
        if head.len() < HEADER_LEN {
            return Err(TableError::Truncated { path: path.to_owned(), detail: format!("{} bytes, shorter than the {HEADER_LEN}-byte header", head.len()) });
        }
        if &head[0..8] != MAGIC {
            return Err(TableError::BadMagic { path: path.to_owned() });
        }
        let version = get_u16(head, 8);
        if version != VERSION {
            return Err(TableError::Version { path: path.to_owned(), found: version });
        }
        let blocks = get_u32(head, 28);
        if head.len() != Self::total_len(head) {
            return Err(TableError::Truncated { path: path.to_owned(), detail: format!("the block index needs {} bytes", Self::total_len(head)) });
        }
        if header_hash(head) != get_u64(head, HASH_AT) {
            return Err(corrupt("header checksum mismatch"));
        }
        let sector = Sector::new(head[12], head[13], head[14], head[15]).ok_or_else(|| corrupt("invalid sector in header"))?;
        let flags = head[FLAGS_AT];
        if flags & !(RESULTS_ONLY | COMPACT | DEEP) != 0 {
            return Err(corrupt("unknown flags in header"));
        }
        let name = &head[RULES_AT..RULES_AT + RULES_LEN];
        let name = std::str::from_utf8(&name[..name.iter().position(|&b| b == 0).unwrap_or(RULES_LEN)]).map_err(|_| corrupt("rule string is not text"))?;
        let rules: Rules = name.parse().map_err(|e| corrupt(&format!("rule string `{name}`: {e}")))?;
        if rules.fingerprint() != get_u64(head, 104) {
            return Err(corrupt(&format!("rule string `{name}` does not match its fingerprint")));
        }
        let header = Header {
            sector,
            rules,
            entries: get_u64(head, 16),
            block_size: get_u32(head, 24),
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
                    return Err(TableError::Truncated { path: path.to_owned(), detail: format!("the deep section of {} entries at {} ends past the end of the file ({file_len} bytes)", d.count, d.offset) });
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
        let mut index = Vec::with_capacity(blocks as usize);
        for k in 0..blocks as usize {
            let at = HEADER_LEN + INDEX_ENTRY * k;
            let e = BlockEntry {
                offset: get_u64(head, at),
                wld_len: get_u32(head, at + 8),
                depth_len: get_u32(head, at + 12),
                wld_check: get_u32(head, at + 16),
                depth_check: get_u32(head, at + 20),
            };
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
