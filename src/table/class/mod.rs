//! Class files (`S-O.mtc`, `S-O-SH-OH.mtc`): the draw classes of one sector, a file of
//! their own beside the strong table, so that the strong tables, their checksums and
//! every reader that ignores classes stay exactly as they were.
//!
//! Layout (little-endian): a 256-byte header, a group index of 8 bytes a group, then
//! one zstd frame a group of [`GROUP`] consecutive blocks of the strong table (none for
//! a group without draws); a frame holds an entry for each slot that the strong blocks
//! store as a draw, in slot order ([`encode_group`]). So a reader reads the
//! strong block first, and a class file is only ever read beside the strong table it
//! was made from: the header records that table's content checksum, the rule set and
//! the fingerprint of the sector values, and each frame's checksum is in the index, as
//! in the strong format.
//!
//! | at | field |
//! |---|---|
//! | 0 | magic `MORRISCL` |
//! | 8 | version (u16) |
//! | 12 | sector: s, o, sh, oh |
//! | 16 | entries (u64): slots, as in the strong table |
//! | 24 | block size (u32) |
//! | 28 | blocks (u32) |
//! | 32 | content checksum of the strong table it belongs to |
//! | 40 | fingerprint of the sector values |
//! | 48 | fingerprint of the rule set |
//! | 56 | drawn entries (u64) |
//! | 64 | header checksum: XXH3-64 of the header and index, this field as 0 |
//! | 72 | the sector's rank (i16) |
//! | 76 | strong blocks a group (u32) |
//! | 128 | the canonical rule string, NUL-padded |
//!
//! The fields at 0..32 and 128 are those of every block file ([`super::block`]).

mod group;
mod reader;
mod writer;

pub use group::{encode_group, GroupError};
pub use reader::ClassFile;
pub use writer::write_classes;

use super::block::{get_u32, get_u64, put_u64, Common, Kind, HEADER_LEN};
use super::TableError;
use crate::position::sector::Sector;
use crate::position::value::DRAW;
use crate::rules::Rules;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"MORRISCL";
const VERSION: u16 = 3;
/// Bytes of a group's index entry: its frame's length and the frame's own checksum (its
/// last 4 bytes), so that a frame moved or swapped is found before it is decoded. The
/// offsets are the running sums of the lengths.
const ENTRY: usize = 8;
/// Strong blocks a frame. The class of one draw costs decoding its whole group (tens of
/// kilobytes, tens of microseconds); in return each frame's zstd tables and ramp-up and
/// each index entry are paid once a group. The class files of the standard 6-6 start
/// (`examples/class_sizes.rs`): 112.9 MB in version 2 (a frame a block, codes a byte
/// each), 111.8 MB with packed codes alone, 102.4, 100.2, 97.5 and 96.0 MB at 4, 8, 16
/// and 32 blocks a frame.
pub const GROUP: u32 = 16;
const HASH_AT: usize = 64;
const RANK_AT: usize = 72;
const GROUP_AT: usize = 76;

/// The class of a slot that is not a draw (or a hole).
pub const NO_CLASS: i16 = i16::MIN;

/// The classes of one sector: per slot, the class (or [`NO_CLASS`]) and the depth
/// (0: none, the draw stays in its unit, or not a draw).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classes {
    /// Class per slot, from the side to move's point of view.
    pub class: Vec<i16>,
    /// Plies until play leaves the unit under the tie-break; 0 for none.
    pub depth: Vec<u16>,
}

/// The file name of a sector's classes inside a database directory.
pub fn class_path(dir: &Path, sector: Sector) -> PathBuf {
    dir.join(format!("{sector}.mtc"))
}

/// What a class file's header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassHeader {
    /// The sector.
    pub sector: Sector,
    /// Slots.
    pub entries: u64,
    /// Slots a block.
    pub block_size: u32,
    /// Blocks.
    pub blocks: u32,
    /// The strong table's content checksum.
    pub strong_hash: u64,
    /// The sector values' fingerprint.
    pub values_fingerprint: u64,
    /// The rule set.
    pub rules: Rules,
    /// Drawn entries stored.
    pub draws: u64,
    /// The sector's rank: the class of a draw that stays in its unit.
    pub rank: i16,
    /// Strong blocks a frame.
    pub group: u32,
}

/// Where a group's frame is, and the checksum it must carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupEntry {
    /// File offset of the frame.
    pub offset: u64,
    /// Bytes of the frame (0: a group without draws).
    pub len: u32,
    /// The frame's content checksum, as zstd stores it at its end; 0 without a frame.
    pub check: u32,
}

/// XXH3-64 of the header and index, the checksum field as 0.
fn header_hash(head: &[u8]) -> u64 {
    let mut zeroed = head.to_vec();
    zeroed[HASH_AT..HASH_AT + 8].fill(0);
    xxh3_64(&zeroed)
}

impl ClassHeader {
    /// The header and group index as they are written, checksum included; the
    /// index's offsets are implied by the lengths.
    pub fn to_bytes(&self, index: &[GroupEntry]) -> Vec<u8> {
        let mut head = vec![0u8; HEADER_LEN + ENTRY * index.len()];
        Common { sector: self.sector, entries: self.entries, block_size: self.block_size, blocks: self.blocks, rules: self.rules }.write::<Groups>(&mut head);
        put_u64(&mut head, 32, self.strong_hash);
        put_u64(&mut head, 40, self.values_fingerprint);
        put_u64(&mut head, 48, self.rules.fingerprint());
        put_u64(&mut head, 56, self.draws);
        head[RANK_AT..RANK_AT + 2].copy_from_slice(&self.rank.to_le_bytes());
        head[GROUP_AT..GROUP_AT + 4].copy_from_slice(&self.group.to_le_bytes());
        for (g, e) in index.iter().enumerate() {
            let at = HEADER_LEN + ENTRY * g;
            head[at..at + 4].copy_from_slice(&e.len.to_le_bytes());
            head[at + 4..at + 8].copy_from_slice(&e.check.to_le_bytes());
        }
        let hash = xxh3_64(&head);
        put_u64(&mut head, HASH_AT, hash);
        head
    }
}

/// The class files' kind of block file: a [`ClassHeader`], a [`GroupEntry`] a group
/// of strong blocks, and the groups decoded last.
pub struct Groups;

impl Kind for Groups {
    const MAGIC: &'static [u8; 8] = MAGIC;
    const VERSION: u16 = VERSION;
    type Header = ClassHeader;
    type Entry = GroupEntry;
    type State = reader::Recent;

    fn head_len(path: &Path, fixed: &[u8]) -> Result<usize, TableError> {
        let group = get_u32(fixed, GROUP_AT);
        if group == 0 {
            return Err(TableError::corrupt(path, "a group of 0 blocks"));
        }
        Ok(HEADER_LEN + ENTRY * (get_u32(fixed, 28) as usize).div_ceil(group as usize))
    }

    fn parse(path: &Path, head: &[u8], size: u64) -> Result<(ClassHeader, Vec<GroupEntry>), TableError> {
        if header_hash(head) != get_u64(head, HASH_AT) {
            return Err(TableError::corrupt(path, "header checksum mismatch"));
        }
        let Common { sector, entries, block_size, blocks, rules } = Common::read(path, head)?;
        if rules.fingerprint() != get_u64(head, 48) {
            return Err(TableError::corrupt(path, format!("rule string `{rules}` does not match its fingerprint")));
        }
        let header = ClassHeader {
            sector,
            entries,
            block_size,
            blocks,
            strong_hash: get_u64(head, 32),
            values_fingerprint: get_u64(head, 40),
            rules,
            draws: get_u64(head, 56),
            rank: i16::from_le_bytes([head[RANK_AT], head[RANK_AT + 1]]),
            group: get_u32(head, GROUP_AT),
        };
        let groups = (head.len() - HEADER_LEN) / ENTRY;
        let mut index = Vec::with_capacity(groups);
        let mut offset = head.len() as u64;
        for g in 0..groups {
            let at = HEADER_LEN + ENTRY * g;
            let (len, check) = (get_u32(head, at), get_u32(head, at + 4));
            if offset + len as u64 > size {
                return Err(TableError::Truncated { path: path.to_owned(), detail: format!("group {g} ends past the end of the file") });
            }
            index.push(GroupEntry { offset, len, check });
            offset += len as u64;
        }
        if offset != size {
            return Err(TableError::corrupt(path, format!("{size} bytes, the index accounts for {offset}")));
        }
        Ok((header, index))
    }
}

/// The drawn slots of a stored strong block, as the reader sees them.
fn drawn(block: &[u8]) -> impl Iterator<Item = usize> + '_ {
    block.iter().enumerate().filter(|(_, &b)| b == DRAW).map(|(k, _)| k)
}
