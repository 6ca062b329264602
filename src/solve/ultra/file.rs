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

use crate::rules::Rules;
use crate::position::sector::Sector;
use crate::table::writer::write_atomic;
use crate::table::{TableError, TableFile};
use crate::solve::ultra::classes::{Classes, NO_CLASS};
use crate::position::value::DRAW;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"MORRISCL";
const VERSION: u16 = 3;
const HEADER_LEN: usize = 256;
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
const GROUP_AT: usize = 76;
const HASH_AT: usize = 64;
const RULES_AT: usize = 128;
const RANK_AT: usize = 72;

/// Why a group of classes does not fit the class file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GroupError {
    /// A block holds more draws than a group's 16-bit count.
    #[error("{0} entries in one block; a block holds at most 65535")]
    BlockEntries(usize),
    /// A group holds more distinct classes than its one-byte palette.
    #[error("{0} distinct classes in one group; a group holds at most 255")]
    Classes(usize),
}

/// A group's entries as stored before compression: for each of its strong blocks the
/// number of entries (`u16`), then the distinct classes of the group (a count byte, then
/// each as `i16`), then each entry's index in that list packed in `width(count)` bits
/// (none when the group has one class), then a depth byte for each entry whose class is
/// below the sector's rank (255: the depth is the next of the `u16`s that follow the
/// bytes). Packing the codes lets zstd's byte-wise entropy stage go below a bit a draw
/// (1 % smaller), and one frame for [`GROUP`] blocks pays a frame's tables and an index
/// entry once (13 % smaller at 16 blocks, on the 6-6 start).
///
/// Only the unfavoured draws (class below the rank) keep their depth: a favoured draw's
/// depth is 1 + the least depth among its best moves, whose in-unit children are
/// unfavoured draws, so it is found one ply up ([`crate::solve::ultra::check::fill_favoured`],
/// `Tablebase::probe_class`). That halves the class files of the whole game, whose
/// depths take 2 bits a draw even under zstd.
#[doc(hidden)]
pub fn encode_group(blocks: &[Vec<(i16, u16)>], rank: i16) -> Result<Vec<u8>, GroupError> {
    let mut out = Vec::new();
    for b in blocks {
        out.extend_from_slice(&u16::try_from(b.len()).map_err(|_| GroupError::BlockEntries(b.len()))?.to_le_bytes());
    }
    let entries = || blocks.iter().flatten();
    let mut palette: Vec<i16> = entries().map(|e| e.0).collect();
    palette.sort_unstable();
    palette.dedup();
    if palette.len() > 255 {
        return Err(GroupError::Classes(palette.len()));
    }
    out.push(palette.len() as u8);
    palette.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
    let w = width(palette.len());
    if w > 0 {
        let per = 8 / w;
        let codes: Vec<u8> = entries().map(|e| palette.binary_search(&e.0).unwrap() as u8).collect();
        out.extend(codes.chunks(per).map(|c| c.iter().enumerate().fold(0u8, |acc, (k, &x)| acc | x << (k * w))));
    }
    let kept = || entries().filter(|e| e.0 < rank).map(|e| e.1);
    out.extend(kept().map(|d| d.min(ESCAPE as u16) as u8));
    kept().filter(|&d| d >= ESCAPE as u16).for_each(|d| out.extend_from_slice(&d.to_le_bytes()));
    Ok(out)
}

/// Bits a code takes for `k` distinct classes: 0, 1, 2, 4 or 8, so that codes never
/// straddle a byte.
fn width(k: usize) -> usize {
    match k {
        0 | 1 => 0,
        2 => 1,
        3 | 4 => 2,
        5..=16 => 4,
        _ => 8,
    }
}

/// The depth byte that says "see the `u16`s after the depth bytes".
const ESCAPE: u8 = 255;

/// The inverse of [`encode_group`] for a group of `blocks` strong blocks (favoured
/// depths as 0); `None` if the bytes do not fit.
fn decode_group(raw: &[u8], blocks: usize, rank: i16) -> Option<Vec<Vec<(i16, u16)>>> {
    let counts: Vec<usize> = (0..blocks).map(|b| Some(u16::from_le_bytes([*raw.get(2 * b)?, *raw.get(2 * b + 1)?]) as usize)).collect::<Option<_>>()?;
    let n: usize = counts.iter().sum();
    let mut at = 2 * blocks;
    let k = *raw.get(at)? as usize;
    at += 1;
    let palette: Vec<i16> = (0..k).map(|j| Some(i16::from_le_bytes([*raw.get(at + 2 * j)?, *raw.get(at + 2 * j + 1)?]))).collect::<Option<_>>()?;
    at += 2 * k;
    let w = width(k);
    let mut flat: Vec<(i16, u16)> = if n == 0 {
        Vec::new()
    } else if w == 0 {
        vec![(*palette.first()?, 0); n]
    } else {
        let per = 8 / w;
        let packed = raw.get(at..at + n.div_ceil(per))?;
        at += packed.len();
        let mask = (0xffu16 >> (8 - w)) as u8;
        (0..n).map(|e| Some((*palette.get((packed[e / per] >> (e % per * w) & mask) as usize)?, 0))).collect::<Option<_>>()?
    };
    let mut wide = at + flat.iter().filter(|e| e.0 < rank).count();
    for e in flat.iter_mut().filter(|e| e.0 < rank) {
        let b = *raw.get(at)?;
        at += 1;
        e.1 = if b == ESCAPE {
            let d = u16::from_le_bytes([*raw.get(wide)?, *raw.get(wide + 1)?]);
            wide += 2;
            d
        } else {
            b as u16
        };
    }
    if wide != raw.len() {
        return None;
    }
    let mut rest = flat.into_iter();
    Some(counts.iter().map(|&c| rest.by_ref().take(c).collect()).collect())
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

fn corrupt(path: &Path, detail: impl Into<String>) -> TableError {
    TableError::Corrupt { path: path.to_owned(), detail: detail.into() }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io { path: path.to_owned(), source }
}

/// The drawn slots of a stored strong block, as the reader sees them.
fn drawn(block: &[u8]) -> impl Iterator<Item = usize> + '_ {
    block.iter().enumerate().filter(|(_, &b)| b == DRAW).map(|(k, _)| k)
}

/// Writes the classes of `strong`'s sector into `dir`, atomically; returns the bytes
/// written. `classes` must come from the values `strong` holds.
pub fn write_classes(dir: &Path, strong: &TableFile, classes: &Classes, classes_rank: i16, values_fingerprint: u64) -> Result<u64, TableError> {
    let h = &strong.header;
    let stored = strong.read_all()?;
    let bs = h.block_size as usize;
    let rank = classes_rank;
    let frames: Vec<Vec<u8>> = stored
        .par_chunks(bs * GROUP as usize)
        .enumerate()
        .map(|(g, group)| {
            let mut blocks = Vec::new();
            let mut last = (0i16, 0u16);
            for (b, block) in group.chunks(bs).enumerate() {
                let first = (g * GROUP as usize + b) * bs;
                let mut entries = Vec::new();
                for j in drawn(block) {
                    // A hole is stored as a copy of its neighbour and never asked for.
                    let (c, d) = (classes.class[first + j], classes.depth[first + j]);
                    if c != NO_CLASS {
                        last = (c, d);
                    }
                    entries.push(last);
                }
                blocks.push(entries);
            }
            if blocks.iter().all(Vec::is_empty) {
                return Ok(Vec::new());
            }
            let body = encode_group(&blocks, rank).map_err(|e| TableError::Corrupt { path: class_path(dir, h.sector), detail: e.to_string() })?;
            let mut z = zstd::bulk::Compressor::new(19).expect("zstd compressor");
            z.include_checksum(true).expect("zstd parameter");
            Ok(z.compress(&body).expect("zstd compression of an in-memory block"))
        })
        .collect::<Result<Vec<_>, TableError>>()?;
    let draws = stored.iter().filter(|&&b| b == DRAW).count() as u64;
    let mut head = vec![0u8; HEADER_LEN + ENTRY * frames.len()];
    head[0..8].copy_from_slice(MAGIC);
    head[8..10].copy_from_slice(&VERSION.to_le_bytes());
    let x = h.sector;
    head[12..16].copy_from_slice(&[x.s, x.o, x.sh, x.oh]);
    head[16..24].copy_from_slice(&h.entries.to_le_bytes());
    head[24..28].copy_from_slice(&h.block_size.to_le_bytes());
    head[28..32].copy_from_slice(&h.blocks.to_le_bytes());
    head[32..40].copy_from_slice(&h.content_hash.to_le_bytes());
    head[40..48].copy_from_slice(&values_fingerprint.to_le_bytes());
    head[48..56].copy_from_slice(&h.rules.fingerprint().to_le_bytes());
    head[56..64].copy_from_slice(&draws.to_le_bytes());
    head[RANK_AT..RANK_AT + 2].copy_from_slice(&rank.to_le_bytes());
    head[GROUP_AT..GROUP_AT + 4].copy_from_slice(&GROUP.to_le_bytes());
    let name = h.rules.to_string();
    head[RULES_AT..RULES_AT + name.len()].copy_from_slice(name.as_bytes());
    for (k, f) in frames.iter().enumerate() {
        let at = HEADER_LEN + ENTRY * k;
        head[at..at + 4].copy_from_slice(&(f.len() as u32).to_le_bytes());
        let check = if f.is_empty() { 0 } else { u32::from_le_bytes(f[f.len() - 4..].try_into().unwrap()) };
        head[at + 4..at + 8].copy_from_slice(&check.to_le_bytes());
    }
    let hash = xxh3_64(&head);
    head[HASH_AT..HASH_AT + 8].copy_from_slice(&hash.to_le_bytes());
    let file = class_path(Path::new(""), h.sector).display().to_string();
    write_atomic(dir, &file, |w| {
        w.write_all(&head)?;
        frames.iter().try_for_each(|f| w.write_all(f))
    })
}

/// An open class file, checked against the strong table beside it. Blocks are read
/// with `pread`, so a file cut short while it is open gives an error, not a crash.
pub struct ClassFile {
    path: PathBuf,
    /// Its header.
    pub header: ClassHeader,
    index: Vec<(u64, u32, u32)>,
    file: std::fs::File,
    size: u64,
    /// The last groups decoded, newest first: a favoured draw's depth reads its
    /// children, which often share groups.
    recent: std::sync::Mutex<Vec<(usize, std::sync::Arc<Vec<Vec<(i16, u16)>>>)>>,
}

/// Decoded groups a class file keeps ([`ClassFile::block`]).
const RECENT: usize = 8;

impl ClassFile {
    /// Opens the classes of `strong`'s sector in `dir`, and checks that they belong to
    /// that table, its rules and the sector values `values_fingerprint`.
    pub fn open(dir: &Path, strong: &TableFile, values_fingerprint: u64) -> Result<ClassFile, TableError> {
        use std::os::unix::fs::FileExt;
        let sector = strong.header.sector;
        let path = class_path(dir, sector);
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(TableError::Missing { path, sector });
            }
            Err(e) => return Err(io(&path)(e)),
        };
        let meta = file.metadata().map_err(io(&path))?;
        if !meta.is_file() {
            return Err(TableError::NotAFile { path });
        }
        let size = meta.len();
        let short = |need: u64| TableError::Truncated { path: path.clone(), detail: format!("{size} bytes, the header and block index need {need}") };
        if size < HEADER_LEN as u64 {
            return Err(short(HEADER_LEN as u64));
        }
        let mut fixed = vec![0u8; HEADER_LEN];
        file.read_exact_at(&mut fixed, 0).map_err(io(&path))?;
        if &fixed[0..8] != MAGIC {
            return Err(TableError::BadMagic { path });
        }
        let version = u16::from_le_bytes([fixed[8], fixed[9]]);
        if version != VERSION {
            return Err(corrupt(&path, format!("class file version {version}, this build reads {VERSION}")));
        }
        let blocks = u32::from_le_bytes(fixed[28..32].try_into().unwrap()) as usize;
        let group = u32::from_le_bytes(fixed[GROUP_AT..GROUP_AT + 4].try_into().unwrap());
        if group == 0 {
            return Err(corrupt(&path, "a group of 0 blocks"));
        }
        let groups = blocks.div_ceil(group as usize);
        let head_len = HEADER_LEN + ENTRY * groups;
        if size < head_len as u64 {
            return Err(short(head_len as u64));
        }
        let mut data = vec![0u8; head_len];
        file.read_exact_at(&mut data, 0).map_err(io(&path))?;
        let u64_at = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap());
        let u32_at = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
        let mut head = data.clone();
        head[HASH_AT..HASH_AT + 8].fill(0);
        if xxh3_64(&head) != u64_at(HASH_AT) {
            return Err(corrupt(&path, "header checksum mismatch"));
        }
        let name = &data[RULES_AT..HEADER_LEN];
        let name = std::str::from_utf8(&name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())]).map_err(|_| corrupt(&path, "rule string is not text"))?;
        let rules: Rules = name.parse().map_err(|e| corrupt(&path, format!("rule string `{name}`: {e}")))?;
        let header = ClassHeader {
            sector: Sector::new(data[12], data[13], data[14], data[15]).ok_or_else(|| corrupt(&path, "invalid sector in header"))?,
            entries: u64_at(16),
            block_size: u32_at(24),
            blocks: blocks as u32,
            strong_hash: u64_at(32),
            values_fingerprint: u64_at(40),
            rules,
            draws: u64_at(56),
            rank: i16::from_le_bytes([data[RANK_AT], data[RANK_AT + 1]]),
            group,
        };
        let s = &strong.header;
        if rules != s.rules {
            return Err(TableError::WrongRules { path, found: rules, expected: s.rules });
        }
        if header.sector != sector || header.entries != s.entries || header.block_size != s.block_size || header.blocks != s.blocks {
            return Err(corrupt(&path, format!("the classes are of another table than {}", sector)));
        }
        if header.strong_hash != s.content_hash {
            return Err(corrupt(&path, "the classes were made from other strong values than the table beside them (solve the classes again)"));
        }
        if header.values_fingerprint != values_fingerprint {
            return Err(corrupt(&path, "the classes were made from other sector values than the ones given (solve the classes again)"));
        }
        let mut index = Vec::with_capacity(groups);
        let mut off = head_len as u64;
        for g in 0..groups {
            let at = HEADER_LEN + ENTRY * g;
            let (len, check) = (u32_at(at), u32_at(at + 4));
            if off + len as u64 > size {
                return Err(TableError::Truncated { path, detail: format!("group {g} ends past the end of the file") });
            }
            index.push((off, len, check));
            off += len as u64;
        }
        if off != size {
            return Err(corrupt(&path, format!("{size} bytes, the index accounts for {off}")));
        }
        Ok(ClassFile { path, header, index, file, size, recent: Default::default() })
    }

    /// The entries of every block of group `g`, as its frame holds them; the callers
    /// check each block's count against the draws of the strong block.
    fn group(&self, g: usize) -> Result<Vec<Vec<(i16, u16)>>, TableError> {
        let per = self.header.group as usize;
        let blocks = per.min(self.header.blocks as usize - g * per);
        let (off, len, check) = *self.index.get(g).ok_or_else(|| corrupt(&self.path, format!("no group {g}")))?;
        if len == 0 {
            return Ok(vec![Vec::new(); blocks]);
        }
        let mut frame = vec![0u8; len as usize];
        std::os::unix::fs::FileExt::read_exact_at(&self.file, &mut frame, off).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => TableError::Truncated { path: self.path.clone(), detail: format!("group {g} ends past the end of the file") },
            _ => io(&self.path)(e),
        })?;
        if !crate::table::frame::is_named_frame(&frame, check) {
            return Err(corrupt(&self.path, format!("group {g}: the frame is not the one the index names")));
        }
        let bound = 2 * blocks + 1 + 2 * 255 + 3 * blocks * self.header.block_size as usize;
        let raw = zstd::bulk::decompress(&frame, bound).map_err(|e| corrupt(&self.path, format!("group {g}: {e}")))?;
        decode_group(&raw, blocks, self.header.rank).ok_or_else(|| corrupt(&self.path, format!("group {g}: the bytes do not decode")))
    }

    /// Checks that block `k`'s entries match its strong block's draws in number.
    fn fits(&self, k: usize, entries: &[(i16, u16)], strong: &[u8]) -> Result<(), TableError> {
        let n = drawn(strong).count();
        if entries.len() != n {
            return Err(corrupt(&self.path, format!("block {k}: {} classes for its {n} draws", entries.len())));
        }
        Ok(())
    }

    /// The `(class, depth)` of every drawn slot of block `k`, in slot order, favoured
    /// depths as 0 (see [`encode_group`]); `strong` is that block of the strong table
    /// as stored. Decodes `k`'s whole group.
    pub fn block(&self, k: usize, strong: &[u8]) -> Result<Vec<(i16, u16)>, TableError> {
        use std::sync::Arc;
        let g = k / self.header.group as usize;
        let hit = {
            let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
            let at = recent.iter().position(|(h, _)| *h == g);
            at.map(|at| {
                let e = recent.remove(at);
                recent.insert(0, e.clone());
                e.1
            })
        };
        let group = match hit {
            Some(group) => group,
            None => {
                let group = Arc::new(self.group(g)?);
                let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
                recent.insert(0, (g, group.clone()));
                recent.truncate(RECENT);
                group
            }
        };
        let entries = group[k % self.header.group as usize].clone();
        self.fits(k, &entries, strong)?;
        Ok(entries)
    }

    /// Every slot's class, as the class pass made it (holes as stored), with the depths
    /// of unfavoured draws; favoured draws have depth 0 until
    /// [`crate::solve::ultra::check::fill_favoured`] finds theirs.
    pub fn read_all(&self, strong: &TableFile) -> Result<Classes, TableError> {
        let stored = strong.read_all()?;
        let bs = self.header.block_size as usize;
        let per = self.header.group as usize;
        let mut class = vec![NO_CLASS; stored.len()];
        let mut depth = vec![0u16; stored.len()];
        for (g, group) in stored.chunks(bs * per).enumerate() {
            let blocks: Vec<&[u8]> = group.chunks(bs).collect();
            for (b, entries) in self.group(g)?.into_iter().enumerate() {
                let first = (g * per + b) * bs;
                self.fits(g * per + b, &entries, blocks[b])?;
                for (j, (c, d)) in drawn(blocks[b]).zip(entries) {
                    class[first + j] = c;
                    depth[first + j] = d;
                }
            }
        }
        Ok(Classes { class, depth })
    }

    /// Bytes of the file when it was opened.
    pub fn file_size(&self) -> u64 {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code width (1 to 200 classes a group), depths with escapes, empty blocks
    /// among full ones: decoded as encoded; a byte more or less is refused.
    #[test]
    fn groups_round_trip_at_every_code_width() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for classes in [1usize, 2, 3, 4, 5, 16, 17, 200] {
            let rank = (classes / 2) as i16;
            let blocks: Vec<Vec<(i16, u16)>> = (0..5)
                .map(|b| {
                    let n = if b == 2 { 0 } else { (next() % 700) as usize + 1 };
                    (0..n)
                        .map(|_| {
                            let c = (next() % classes as u64) as i16 - 3;
                            let d = if c < rank { [0u16, 7, 254, 255, 256, 4000][(next() % 6) as usize] } else { 0 };
                            (c, d)
                        })
                        .collect()
                })
                .collect();
            let raw = encode_group(&blocks, rank).unwrap();
            assert!(decode_group(&raw, blocks.len(), rank).as_ref() == Some(&blocks), "{classes} classes");
            assert!(decode_group(&raw[..raw.len() - 1], blocks.len(), rank).is_none());
            let mut longer = raw.clone();
            longer.push(0);
            assert!(decode_group(&longer, blocks.len(), rank).is_none());
        }
        let too_many: Vec<Vec<(i16, u16)>> = vec![(0..256).map(|c| (c as i16, 0)).collect()];
        assert!(encode_group(&too_many, 0).is_err());
    }
}
