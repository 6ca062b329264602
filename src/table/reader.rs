//! Reading table files. Every read of a block, whatever its size, goes through
//! [`TableFile::read_checked`], which checks that each frame is the one its block
//! index names before a single value is returned: a damaged, moved or spliced frame
//! is an error naming the table, never a wrong value.
//!
//! Files are read with positioned reads (`pread`), not mapped: a table truncated or
//! replaced while a server reads it gives an error for that table (a short read, or a
//! hash mismatch), where a mapping would kill the process with SIGBUS.

use super::format::{deep_hash, BlockEntry, Header, DEEP_ENTRY, HEADER_LEN};
use crate::position::value::{is_deep, Deep, Value};
use super::{layout_fingerprint, table_path, TableError};
use crate::rules::Rules;
use crate::position::sector::Sector;
use rayon::prelude::*;
use std::cell::RefCell;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// One bit (the low bit of each 2-bit field) per decided (win or loss) entry.
#[inline(always)]
fn decided_mask(w: u64) -> u64 {
    (w | w >> 1) & 0x5555_5555_5555_5555
}

/// Decided entries of a packed WLD plane.
fn decided(wld: &[u8]) -> usize {
    crate::cpu::fast!(wld.iter().map(|&x| ((x | x >> 1) & 0x55).count_ones() as usize).sum())
}

/// Whether a packed WLD plane holds the code 3, which no table contains. A fold over
/// whole words, without an early exit, so that it vectorises: a probe pays this for
/// every block it reads.
fn has_code_3(wld: &[u8]) -> bool {
    let mut chunks = wld.chunks_exact(8);
    let mut bad = chunks.by_ref().fold(0u64, |a, c| {
        let w = u64::from_le_bytes(c.try_into().unwrap());
        a | (w & (w >> 1) & 0x5555_5555_5555_5555)
    });
    for &x in chunks.remainder() {
        bad |= (x & (x >> 1) & 0x55) as u64;
    }
    bad != 0
}

/// The checked planes of one block, ready for single-entry lookups.
pub struct Planes {
    /// The WLD plane as little-endian words of 32 two-bit codes.
    words: Vec<u64>,
    depth: Vec<u8>,
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

    /// Win/draw/loss of entry `k` without touching the depth plane: 0, 1 or 2 (3 or
    /// `None` for an entry outside the block: corrupt).
    #[inline]
    pub fn wld(&self, k: usize) -> Option<u8> {
        Some(((self.words.get(k / 32)? >> (2 * (k % 32))) & 3) as u8)
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
}

static DECODE: [DecodeByte; 256] = {
    let mut t = [const { DecodeByte { at: [0; 4], win: [0; 4], loss: [0; 4], count: 0 } }; 256];
    let mut x = 0;
    while x < 256 {
        let mut i = 0;
        let mut n = 0u8;
        while i < 4 {
            let c = (x >> (2 * i)) & 3;
            t[x].at[i] = n;
            t[x].win[i] = if c == 1 { 0xff } else { 0 };
            t[x].loss[i] = if c == 2 { 0xff } else { 0 };
            n += (c != 0) as u8;
            i += 1;
        }
        t[x].count = n;
        x += 1;
    }
    t
};

/// What [`TableFile::check`] could check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Every plane of every block, and the content checksum over the values.
    Full,
    /// Every WLD plane; a results-only file has no depths, so its content checksum
    /// (of the full table's values) cannot be recomputed.
    ResultsOnly,
}

thread_local! {
    static DEC: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    /// Raw frames, the WLD plane and the depth plane of the block being read.
    static BUF: RefCell<(Vec<u8>, Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// A table file opened for reading: its header and block index are in memory, its
/// blocks are read on demand.
///
/// Reads come in three sizes: one entry ([`TableFile::read_wld`], or the planes of its
/// block, [`TableFile::read_planes`]), the whole table ([`TableFile::read_all`]), and
/// the whole table's results ([`TableFile::read_wld_mapped`]); all go through
/// [`TableFile::read_checked`]. Probes go through [`Tablebase`](crate::probe::Tablebase),
/// which finds the entry of a position.
pub struct TableFile {
    /// The file, for messages.
    pub path: PathBuf,
    /// The header, checked on opening.
    pub header: Header,
    index: Vec<BlockEntry>,
    file: File,
    len: u64,
    deep: Deep,
    /// The raw bytes of the deep section, kept for copies.
    deep_raw: Vec<u8>,
}

impl TableFile {
    /// Opens and checks the header and block index (not the blocks themselves): that
    /// the file is a regular file holding `expected`, made under `rules` with this
    /// build's index layout. A missing file is [`TableError::Missing`].
    pub fn open(path: &Path, expected: impl Into<Sector>, rules: &Rules) -> Result<TableFile, TableError> {
        let expected: Sector = expected.into();
        let io = |source| TableError::Io { path: path.to_owned(), source };
        // Checked before opening: opening a FIFO blocks until a writer comes.
        match fs::metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(TableError::Missing { path: path.to_owned(), sector: expected })
            }
            Err(e) => return Err(io(e)),
            Ok(m) if !m.is_file() => return Err(TableError::NotAFile { path: path.to_owned() }),
            Ok(_) => {}
        }
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(TableError::NotAFile { path: path.to_owned() });
        }
        let len = meta.len();
        let mut fixed = vec![0u8; HEADER_LEN.min(len as usize)];
        file.read_exact_at(&mut fixed, 0).map_err(io)?;
        Header::precheck(path, &fixed)?;
        let head = if fixed.len() < HEADER_LEN {
            fixed
        } else {
            let total = Header::total_len(&fixed);
            if (total as u64) > len {
                return Err(TableError::Truncated { path: path.to_owned(), detail: format!("{len} bytes, the block index needs {total}") });
            }
            let mut head = vec![0u8; total];
            file.read_exact_at(&mut head, 0).map_err(io)?;
            head
        };
        let (header, index) = Header::parse(path, &head, len)?;
        if header.rules != *rules {
            return Err(TableError::WrongRules { path: path.to_owned(), found: header.rules, expected: *rules });
        }
        if header.sector != expected {
            return Err(TableError::corrupt(path, format!("holds sector {}, expected {expected}", header.sector)));
        }
        if header.entries != expected.index(rules.board()).len() {
            return Err(TableError::corrupt(path, "entry count does not match the index"));
        }
        if header.layout != layout_fingerprint(&expected.index(rules.board())) {
            return Err(TableError::corrupt(path, "index layout fingerprint differs: the file was written by a build that orders positions differently; solve it again"));
        }
        let (deep, deep_raw) = match header.deep {
            None => (Deep::default(), Vec::new()),
            Some(span) => Self::read_deep(path, &file, &header, span)?,
        };
        Ok(TableFile { path: path.to_owned(), header, index, file, len, deep, deep_raw })
    }

    /// Reads and checks the deep section: its hash, and entries by increasing slot,
    /// inside the table, each with a depth a byte does not hold.
    fn read_deep(path: &Path, file: &File, header: &Header, span: super::format::DeepSpan) -> Result<(Deep, Vec<u8>), TableError> {
        let mut raw = vec![0u8; span.count as usize * DEEP_ENTRY];
        file.read_exact_at(&mut raw, span.offset).map_err(|source| TableError::Io { path: path.to_owned(), source })?;
        if deep_hash(&raw) as u32 != span.check {
            return Err(TableError::corrupt(path, "deep section checksum mismatch"));
        }
        let entries: Vec<(u64, u16)> = raw.chunks_exact(DEEP_ENTRY).map(|e| (u64::from_le_bytes(e[..8].try_into().unwrap()), u16::from_le_bytes(e[8..].try_into().unwrap()))).collect();
        let deep_depth = |d: u16| (d % 2 == 1 && d > crate::position::value::MAX_WIN) || (d.is_multiple_of(2) && d > crate::position::value::MAX_LOSS);
        let ordered = entries.windows(2).all(|w| w[0].0 < w[1].0);
        if !ordered || entries.iter().any(|&(slot, d)| slot >= header.entries || !deep_depth(d)) {
            return Err(TableError::corrupt(path, "deep section entries out of order, outside the table, or not deep"));
        }
        Ok((Deep::new(entries), raw))
    }

    /// The exact depths of the values deeper than a byte (empty for most rule sets).
    pub fn deep(&self) -> &Deep {
        &self.deep
    }

    /// The value of the byte `b` read from slot `slot`: a deep byte through the deep
    /// section, where its absence is an error naming the table.
    #[inline]
    pub fn value_of(&self, b: u8, slot: u64) -> Result<Value, TableError> {
        self.deep.value(b, slot).ok_or_else(|| self.corrupt(format!("slot {slot} holds a deep value byte without its depth")))
    }

    /// Entries in block `k`.
    pub fn block_len(&self, k: usize) -> usize {
        let start = k as u64 * self.header.block_size as u64;
        self.header.entries.saturating_sub(start).min(self.header.block_size as u64) as usize
    }

    fn corrupt(&self, detail: impl Into<String>) -> TableError {
        TableError::corrupt(&self.path, detail)
    }

    /// The one read of a block's data: reads its frames (into the start of `raw`, as
    /// stored: the WLD frame, then the depth frame if `depth` is asked for),
    /// decompresses the WLD plane into `wld` (exactly the block's `len.div_ceil(4)`
    /// bytes) and the depth plane into `depth`, and checks each frame against the
    /// checksum its block index names, the codes, and the padding past the block's end.
    /// Nothing is returned unchecked.
    pub fn read_checked(&self, k: usize, raw: &mut Vec<u8>, wld: &mut [u8], depth: Option<&mut Vec<u8>>) -> Result<(), TableError> {
        let e = *self.index.get(k).ok_or_else(|| self.corrupt(format!("no block {k}")))?;
        let len = self.block_len(k);
        if wld.len() != len.div_ceil(4) {
            return Err(self.corrupt(format!("block {k} read into a buffer of the wrong size")));
        }
        let want_depth = depth.is_some();
        if want_depth && self.header.results_only {
            return Err(TableError::ResultsOnly { path: self.path.clone() });
        }
        let n = e.wld_len as usize + if want_depth { e.depth_len as usize } else { 0 };
        // Grown, never shrunk: no zero-filling per read.
        if raw.len() < n {
            raw.resize(n, 0);
        }
        let raw = &mut raw[..n];
        // A file shortened since it was opened gives a short read: an error, not a crash.
        self.file.read_exact_at(raw, e.offset).map_err(|err| match err.kind() {
            io::ErrorKind::UnexpectedEof => TableError::Truncated { path: self.path.clone(), detail: format!("block {k} is past the end of the file (changed since it was opened?)") },
            _ => TableError::Io { path: self.path.clone(), source: err },
        })?;
        let (wld_frame, depth_frame) = raw.split_at(e.wld_len as usize);
        self.check_frame(k, wld_frame, e.wld_check, "WLD")?;
        if wld_frame.is_empty() {
            wld.fill(0);
        } else {
            self.decompress_into(k, wld_frame, wld, "WLD")?;
        }
        if has_code_3(wld) {
            return Err(self.corrupt(format!("block {k} has an invalid WLD code")));
        }
        if !len.is_multiple_of(4) && wld.last().is_some_and(|&x| x >> (2 * (len % 4)) != 0) {
            return Err(self.corrupt(format!("block {k} has codes past its end")));
        }
        if let Some(depth) = depth {
            let decided = decided(wld);
            depth.clear();
            depth.resize(decided, 0);
            self.check_frame(k, depth_frame, e.depth_check, "depth")?;
            match (depth_frame.is_empty(), decided) {
                (true, 0) => {}
                (true, _) => return Err(self.corrupt(format!("block {k} lacks its depth plane"))),
                (false, _) => self.decompress_into(k, depth_frame, depth, "depth")?,
            }
        }
        Ok(())
    }

    /// Checks that `frame` is the frame the block index names for this plane of block
    /// `k` ([`super::frame::is_named_frame`]): exactly one zstd frame carrying the
    /// index's checksum, which zstd then verifies against the decompressed plane. A
    /// frame from another block or table has another checksum, and one followed by
    /// anything (a skippable frame ending in the named checksum) is not one frame.
    fn check_frame(&self, k: usize, frame: &[u8], check: u32, what: &str) -> Result<(), TableError> {
        if super::frame::is_named_frame(frame, check) {
            return Ok(());
        }
        Err(self.corrupt(format!("block {k} {what} frame is not the one its index names (damaged, or moved from elsewhere)")))
    }

    /// The WLD code (0 draw, 1 win, 2 loss) of entry `offset` of block `k`, reading only
    /// the block's WLD plane.
    pub fn read_wld(&self, k: usize, offset: usize) -> Result<u8, TableError> {
        let len = self.block_len(k);
        if offset >= len {
            return Err(self.corrupt(format!("entry {offset} is outside block {k}")));
        }
        BUF.with(|b| {
            let (raw, wld, _) = &mut *b.borrow_mut();
            wld.resize(len.div_ceil(4), 0);
            self.read_checked(k, raw, wld, None)?;
            Ok(wld[offset / 4] >> (2 * (offset % 4)) & 3)
        })
    }

    /// The checked planes of block `k`, for single-entry lookups and the block cache.
    pub fn read_planes(&self, k: usize) -> Result<Planes, TableError> {
        self.planes(k, true)
    }

    /// The checked WLD plane of block `k` alone (its depths empty: only
    /// [`Planes::wld`] answers), for the block cache of results-only probes.
    pub fn read_wld_planes(&self, k: usize) -> Result<Planes, TableError> {
        self.planes(k, false)
    }

    fn planes(&self, k: usize, with_depth: bool) -> Result<Planes, TableError> {
        let mut depth = Vec::new();
        let mut wld = vec![0u8; self.block_len(k).div_ceil(4)];
        BUF.with(|b| self.read_checked(k, &mut b.borrow_mut().0, &mut wld, with_depth.then_some(&mut depth)))?;
        let words = wld
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect();
        Ok(Planes { words, depth })
    }

    /// Decodes block `k` into `out` (exactly the block's length); returns the hash of
    /// its value bytes, for the content checksum.
    fn decode_block(&self, k: usize, out: &mut [u8]) -> Result<u64, TableError> {
        debug_assert_eq!(out.len(), self.block_len(k));
        BUF.with(|b| {
            let (raw, wld, depth) = &mut *b.borrow_mut();
            wld.clear();
            wld.resize(out.len().div_ceil(4), 0);
            self.read_checked(k, raw, wld, Some(depth))?;
            // Table-driven and branch-free: tables mix wins, draws and losses with no
            // pattern a branch predictor could learn.
            let decided = depth.len();
            depth.resize(decided + 4, 0);
            let mut d = 0usize;
            for (q, &x) in wld.iter().enumerate() {
                let dst = &mut out[4 * q..(4 * q + 4).min(self.block_len(k))];
                let lut = &DECODE[x as usize];
                let ds: &[u8; 4] = depth[d..d + 4].try_into().unwrap();
                for (i, v) in dst.iter_mut().enumerate() {
                    let dv = ds[lut.at[i] as usize & 3];
                    *v = lut.win[i] & dv.saturating_add(1) | lut.loss[i] & (dv | 128);
                }
                d += lut.count as usize;
            }
            Ok(xxh3_64(out))
        })
    }

    /// Decodes block `k` (slots from `k * block_size`) into `out`, resized to the block's
    /// length: for readers that stream a table one block at a time.
    pub fn read_block(&self, k: usize, out: &mut Vec<u8>) -> Result<(), TableError> {
        if k >= self.index.len() {
            return Err(self.corrupt(format!("no block {k}")));
        }
        out.clear();
        out.resize(self.block_len(k), 0);
        self.decode_block(k, out).map(|_| ())
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
        let mut map = self.anon((self.header.entries as usize).max(1))?;
        self.read_all_into(&mut map[..self.header.entries as usize])?;
        Ok(map)
    }

    fn anon(&self, len: usize) -> Result<memmap2::MmapMut, TableError> {
        let map = memmap2::MmapMut::map_anon(len).map_err(|source| TableError::Io { path: self.path.clone(), source })?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(map)
    }

    /// The WLD plane of the whole table, packed four 2-bit codes to a byte (0 draw, 1
    /// win, 2 loss; entry `i` in bits `2 * (i % 4)` of byte `i / 4`), in huge-page
    /// memory: a quarter of the size of `read_all` and much faster to load, for
    /// searches that need results but not depths. Every block's plane is checked.
    pub fn read_wld_mapped(&self) -> Result<memmap2::MmapMut, TableError> {
        let block = self.header.block_size as usize;
        let len = (self.header.entries as usize).div_ceil(4);
        let mut map = self.anon(len.max(1))?;
        map[..len].par_chunks_mut(block / 4).enumerate().try_for_each(|(k, chunk)| {
            BUF.with(|b| self.read_checked(k, &mut b.borrow_mut().0, chunk, None))
        })?;
        Ok(map)
    }

    /// Decompresses a frame that must fill `out` exactly.
    fn decompress_into(&self, k: usize, src: &[u8], out: &mut [u8], what: &str) -> Result<(), TableError> {
        let n = DEC.with(|d| {
            let mut d = d.borrow_mut();
            if d.is_none() {
                *d = Some(zstd::bulk::Decompressor::new()?);
            }
            d.as_mut().unwrap().decompress_to_buffer(src, out)
        });
        match n {
            Ok(n) if n == out.len() => Ok(()),
            Ok(n) => Err(self.corrupt(format!("block {k} {what} plane has {n} bytes, expected {}", out.len()))),
            Err(err) => Err(self.corrupt(format!("block {k} {what} plane does not decompress: {err}"))),
        }
    }

    fn read_all_into(&self, out: &mut [u8]) -> Result<(), TableError> {
        if self.header.results_only {
            return Err(TableError::ResultsOnly { path: self.path.clone() });
        }
        let hashes: Vec<u64> =
            out.par_chunks_mut(self.header.block_size as usize).enumerate().map(|(k, chunk)| self.decode_block(k, chunk)).collect::<Result<_, _>>()?;
        let mut content = Xxh3::new();
        for h in hashes {
            content.update(&h.to_le_bytes());
        }
        if !self.deep.is_empty() {
            content.update(&deep_hash(&self.deep_raw).to_le_bytes());
        }
        if content.digest() != self.header.content_hash {
            return Err(self.corrupt("content checksum mismatch"));
        }
        // Every deep byte has its entry and every entry its deep byte: the bytes alone
        // would otherwise decode to a wrong depth.
        let deep_bytes = crate::cpu::fast!(out.par_chunks(1 << 16).map(|c| c.iter().filter(|&&b| is_deep(b)).count()).sum::<usize>());
        let matched = self.deep.entries().iter().all(|&(slot, _)| self.deep.value(out[slot as usize], slot).is_some() && is_deep(out[slot as usize]));
        if deep_bytes != self.deep.len() || !matched {
            return Err(self.corrupt(format!("{deep_bytes} deep value bytes against {} deep entries", self.deep.len())));
        }
        Ok(())
    }

    /// Checks everything the file holds: every frame against its block index
    /// and, for a full table, the content checksum over the decoded values.
    pub fn check(&self) -> Result<Checked, TableError> {
        if !self.header.results_only {
            self.read_all()?;
            return Ok(Checked::Full);
        }
        self.read_wld_mapped()?;
        Ok(Checked::ResultsOnly)
    }

    /// Writes a copy of this table into `dir`, atomically, with every block checked on
    /// the way: without its depth planes if `results_only` (the file of a user who wants
    /// results only), and marked as part of a compact set if `compact`. Returns its size.
    pub fn copy_to(&self, dir: &Path, results_only: bool, compact: bool) -> Result<u64, TableError> {
        let results_only = results_only || self.header.results_only;
        // A results-only file keeps no depth, deep ones included.
        let section: &[u8] = if results_only { &[] } else { &self.deep_raw };
        let header = Header { results_only, compact: compact || self.header.compact, ..self.header.clone() };
        let mut offset = (HEADER_LEN + super::format::INDEX_ENTRY * self.index.len()) as u64;
        let index: Vec<BlockEntry> = self
            .index
            .iter()
            .map(|e| {
                let depth_len = if results_only { 0 } else { e.depth_len };
                let out = BlockEntry { offset, depth_len, ..*e };
                offset += (e.wld_len + depth_len) as u64;
                out
            })
            .collect();
        let header = Header { deep: header.deep.filter(|_| !section.is_empty()).map(|d| super::format::DeepSpan { offset, ..d }), ..header };
        let head = header.to_bytes(&index);
        let name = table_path(Path::new(""), self.header.sector).display().to_string();
        let mut failure = None;
        let written = super::writer::write_atomic(dir, &name, |f| {
            f.write_all(&head)?;
            let (mut raw, mut wld, mut depth) = (Vec::new(), Vec::new(), Vec::new());
            for k in 0..self.index.len() {
                wld.clear();
                wld.resize(self.block_len(k).div_ceil(4), 0);
                if let Err(e) = self.read_checked(k, &mut raw, &mut wld, (!results_only).then_some(&mut depth)) {
                    failure = Some(e);
                    return Err(io::Error::other("a block failed its check"));
                }
                let e = &self.index[k];
                let n = e.wld_len as usize + if results_only { 0 } else { e.depth_len as usize };
                f.write_all(&raw[..n])?;
            }
            f.write_all(section)
        });
        match (failure, written) {
            (Some(e), _) => Err(e),
            (None, w) => w,
        }
    }

    /// Compressed bytes of the WLD planes and of the depth planes.
    pub fn plane_bytes(&self) -> (u64, u64) {
        self.index.iter().fold((0, 0), |(w, d), e| (w + e.wld_len as u64, d + e.depth_len as u64))
    }

    /// Bytes of the file.
    pub fn file_size(&self) -> u64 {
        self.len
    }
}
