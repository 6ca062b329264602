//! Reading strong tables: the [`Strong`] kind of [`BlockFile`]. Every read of a block,
//! whatever its size, goes through [`TableFile::read_checked`], which checks that each
//! frame is the one its block index names before a single value is returned: a
//! damaged, moved or spliced frame is an error naming the table, never a wrong value.

use super::block::BlockFile;
use super::format::{deep_hash, BlockEntry, Header, Strong, DEEP_ENTRY, HEADER_LEN};
use super::{layout_fingerprint, table_path, TableError};
use crate::position::sector::Sector;
use crate::position::value::{is_deep, Deep, Value};
use crate::position::wld;
use crate::rules::Rules;
use rayon::prelude::*;
use std::cell::RefCell;
use std::io;
use std::path::Path;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

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
        let word = k / wld::PER_WORD;
        let code = wld::in_word(*self.words.get(word)?, k);
        if code == wld::DRAW {
            return Some(0);
        }
        // Up to 256 popcounts a probe: worth the copy compiled with popcnt.
        let before: usize = crate::cpu::fast!(
            self.words[..word].iter().map(|&w| wld::decided_mask(w).count_ones() as usize).sum::<usize>()
                + (wld::decided_mask(self.words[word]) & wld::before_mask(k)).count_ones() as usize
        );
        let d = *self.depth.get(before)?;
        match code {
            wld::WIN if d < 127 => Some(d + 1),
            wld::LOSS if d < 128 => Some(d | 128),
            _ => None,
        }
    }

    /// Win/draw/loss of entry `k` without touching the depth plane: 0, 1 or 2 (3 or
    /// `None` for an entry outside the block: corrupt).
    #[inline]
    pub fn wld(&self, k: usize) -> Option<u8> {
        Some(wld::in_word(*self.words.get(k / wld::PER_WORD)?, k))
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
        while i < wld::PER_BYTE {
            let c = wld::in_byte(x as u8, i);
            t[x].at[i] = n;
            t[x].win[i] = if c == wld::WIN { 0xff } else { 0 };
            t[x].loss[i] = if c == wld::LOSS { 0xff } else { 0 };
            n += (c != wld::DRAW) as u8;
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
    /// Raw frames, the WLD plane and the depth plane of the block being read.
    static BUF: RefCell<(Vec<u8>, Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// A strong table opened for reading: its header and block index are in memory, its
/// blocks are read on demand.
///
/// Reads come in three sizes: one entry ([`TableFile::read_wld`], or the planes of its
/// block, [`TableFile::read_planes`]), the whole table ([`TableFile::read_all`]), and
/// the whole table's results ([`TableFile::read_wld_mapped`]); all go through
/// [`TableFile::read_checked`]. Probes go through [`Tablebase`](crate::probe::Tablebase),
/// which finds the entry of a position.
pub type TableFile = BlockFile<Strong>;

/// The deep section of a table, read when it is opened: a probe of a deep value needs
/// it, and a copy of the table copies it.
#[derive(Default)]
pub struct DeepSection {
    deep: Deep,
    /// Its bytes as stored.
    raw: Vec<u8>,
}

impl TableFile {
    /// Opens and checks the header and block index (not the blocks themselves): that
    /// the file is a regular file holding `expected`, made under `rules` with this
    /// build's index layout. A missing file is [`TableError::Missing`].
    pub fn open(path: &Path, expected: impl Into<Sector>, rules: &Rules) -> Result<TableFile, TableError> {
        let expected: Sector = expected.into();
        let mut t = BlockFile::<Strong>::open_kind(path, expected)?;
        let header = &t.header;
        if header.rules != *rules {
            return Err(TableError::WrongRules { path: path.to_owned(), found: header.rules, expected: *rules });
        }
        if header.sector != expected {
            return Err(t.corrupt(format!("holds sector {}, expected {expected}", header.sector)));
        }
        if header.entries != expected.index(rules.board()).len() {
            return Err(t.corrupt("entry count does not match the index"));
        }
        if header.layout != layout_fingerprint(&expected.index(rules.board())) {
            return Err(t.corrupt("index layout fingerprint differs: the file was written by a build that orders positions differently; solve it again"));
        }
        if let Some(span) = header.deep {
            t.state = t.read_deep(span)?;
        }
        Ok(t)
    }

    /// Reads and checks the deep section: its hash, and entries by increasing slot,
    /// inside the table, each with a depth a byte does not hold.
    fn read_deep(&self, span: super::format::DeepSpan) -> Result<DeepSection, TableError> {
        let mut raw = vec![0u8; span.count as usize * DEEP_ENTRY];
        self.read_at(&mut raw, span.offset, format_args!("the deep section"))?;
        if deep_hash(&raw) as u32 != span.check {
            return Err(self.corrupt("deep section checksum mismatch"));
        }
        let entries: Vec<(u64, u16)> =
            raw.chunks_exact(DEEP_ENTRY).map(|e| (u64::from_le_bytes(e[..8].try_into().unwrap()), u16::from_le_bytes(e[8..].try_into().unwrap()))).collect();
        let deep_depth = |d: u16| (d % 2 == 1 && d > crate::position::value::MAX_WIN) || (d.is_multiple_of(2) && d > crate::position::value::MAX_LOSS);
        let ordered = entries.windows(2).all(|w| w[0].0 < w[1].0);
        if !ordered || entries.iter().any(|&(slot, d)| slot >= self.header.entries || !deep_depth(d)) {
            return Err(self.corrupt("deep section entries out of order, outside the table, or not deep"));
        }
        Ok(DeepSection { deep: Deep::new(entries), raw })
    }

    /// The exact depths of the values deeper than a byte (empty for most rule sets).
    pub fn deep(&self) -> &Deep {
        &self.state.deep
    }

    /// The value of the byte `b` read from slot `slot`: a deep byte through the deep
    /// section, where its absence is an error naming the table.
    #[inline]
    pub fn value_of(&self, b: u8, slot: u64) -> Result<Value, TableError> {
        self.state.deep.value(b, slot).ok_or_else(|| self.corrupt(format!("slot {slot} holds a deep value byte without its depth")))
    }

    /// Entries in block `k`.
    pub fn block_len(&self, k: usize) -> usize {
        let start = k as u64 * self.header.block_size as u64;
        self.header.entries.saturating_sub(start).min(self.header.block_size as u64) as usize
    }

    /// The one read of a block's data: reads its frames (into the start of `raw`, as
    /// stored: the WLD frame, then the depth frame if `depth` is asked for),
    /// decompresses the WLD plane into `wld` (exactly the block's `wld::packed_len(len)`
    /// bytes) and the depth plane into `depth`, and checks each frame against the
    /// checksum its block index names, the codes, and the padding past the block's end.
    /// Nothing is returned unchecked.
    pub fn read_checked(&self, k: usize, raw: &mut Vec<u8>, wld: &mut [u8], depth: Option<&mut Vec<u8>>) -> Result<(), TableError> {
        let e = *self.index.get(k).ok_or_else(|| self.corrupt(format!("no block {k}")))?;
        let len = self.block_len(k);
        if wld.len() != wld::packed_len(len) {
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
        self.read_at(raw, e.offset, format_args!("block {k}"))?;
        let (wld_frame, depth_frame) = raw.split_at(e.wld_len as usize);
        // Exactly one zstd frame carrying the index's checksum, which zstd then
        // verifies against the plane: a frame from another block or table has another
        // checksum.
        self.check_frame(wld_frame, e.wld_check, format_args!("block {k} WLD"))?;
        if wld_frame.is_empty() {
            wld.fill(0);
        } else {
            self.decompress_into(wld_frame, wld, format_args!("block {k} WLD plane"))?;
        }
        if wld::has_code_3(wld) {
            return Err(self.corrupt(format!("block {k} has an invalid WLD code")));
        }
        if wld::has_codes_past(wld, len) {
            return Err(self.corrupt(format!("block {k} has codes past its end")));
        }
        if let Some(depth) = depth {
            let decided = crate::cpu::fast!(wld::decided(wld));
            depth.clear();
            depth.resize(decided, 0);
            self.check_frame(depth_frame, e.depth_check, format_args!("block {k} depth"))?;
            match (depth_frame.is_empty(), decided) {
                (true, 0) => {}
                (true, _) => return Err(self.corrupt(format!("block {k} lacks its depth plane"))),
                (false, _) => self.decompress_into(depth_frame, depth, format_args!("block {k} depth plane"))?,
            }
        }
        Ok(())
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
            wld.resize(wld::packed_len(len), 0);
            self.read_checked(k, raw, wld, None)?;
            Ok(wld::get(wld, offset))
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
        let mut wld = vec![0u8; wld::packed_len(self.block_len(k))];
        BUF.with(|b| self.read_checked(k, &mut b.borrow_mut().0, &mut wld, with_depth.then_some(&mut depth)))?;
        Ok(Planes { words: wld::words(&wld), depth })
    }

    /// Decodes block `k` into `out` (exactly the block's length); returns the hash of
    /// its value bytes, for the content checksum.
    fn decode_block(&self, k: usize, out: &mut [u8]) -> Result<u64, TableError> {
        debug_assert_eq!(out.len(), self.block_len(k));
        BUF.with(|b| {
            let (raw, wld, depth) = &mut *b.borrow_mut();
            wld.clear();
            wld.resize(wld::packed_len(out.len()), 0);
            self.read_checked(k, raw, wld, Some(depth))?;
            // Table-driven and branch-free: tables mix wins, draws and losses with no
            // pattern a branch predictor could learn.
            let decided = depth.len();
            depth.resize(decided + 4, 0);
            let mut d = 0usize;
            for (dst, &x) in out.chunks_mut(wld::PER_BYTE).zip(wld.iter()) {
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

    /// The WLD plane of the whole table, packed as [`wld`] packs codes, in huge-page
    /// memory: a quarter of the size of `read_all` and much faster to load, for
    /// searches that need results but not depths. Every block's plane is checked.
    pub fn read_wld_mapped(&self) -> Result<memmap2::MmapMut, TableError> {
        let block = self.header.block_size as usize;
        let len = wld::packed_len(self.header.entries as usize);
        let mut map = self.anon(len.max(1))?;
        map[..len].par_chunks_mut(wld::packed_len(block)).enumerate().try_for_each(|(k, chunk)| BUF.with(|b| self.read_checked(k, &mut b.borrow_mut().0, chunk, None)))?;
        Ok(map)
    }

    fn read_all_into(&self, out: &mut [u8]) -> Result<(), TableError> {
        if self.header.results_only {
            return Err(TableError::ResultsOnly { path: self.path.clone() });
        }
        let hashes: Vec<u64> = out.par_chunks_mut(self.header.block_size as usize).enumerate().map(|(k, chunk)| self.decode_block(k, chunk)).collect::<Result<_, _>>()?;
        let mut content = Xxh3::new();
        for h in hashes {
            content.update(&h.to_le_bytes());
        }
        let deep = &self.state.deep;
        if !deep.is_empty() {
            content.update(&deep_hash(&self.state.raw).to_le_bytes());
        }
        if content.digest() != self.header.content_hash {
            return Err(self.corrupt("content checksum mismatch"));
        }
        // Every deep byte has its entry and every entry its deep byte: the bytes alone
        // would otherwise decode to a wrong depth.
        let deep_bytes = crate::cpu::fast!(out.par_chunks(1 << 16).map(|c| c.iter().filter(|&&b| is_deep(b)).count()).sum::<usize>());
        let matched = deep.entries().iter().all(|&(slot, _)| deep.value(out[slot as usize], slot).is_some() && is_deep(out[slot as usize]));
        if deep_bytes != deep.len() || !matched {
            return Err(self.corrupt(format!("{deep_bytes} deep value bytes against {} deep entries", deep.len())));
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
        let section: &[u8] = if results_only { &[] } else { &self.state.raw };
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
                wld.resize(wld::packed_len(self.block_len(k)), 0);
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
            (None, w) => {
                debug_assert!(w.as_ref().map_or(true, |&n| n == self.copy_len(results_only)), "copy_len foretells what copy_to writes");
                w
            }
        }
    }

    /// The bytes `copy_to(_, results_only, _)` writes, known without writing them, so
    /// that a user learns what a compact set needs before the disk fills.
    pub fn copy_len(&self, results_only: bool) -> u64 {
        let results_only = results_only || self.header.results_only;
        let (wld, depth) = self.plane_bytes();
        let section = if results_only { 0 } else { self.state.raw.len() as u64 };
        (HEADER_LEN + super::format::INDEX_ENTRY * self.index.len()) as u64 + wld + if results_only { 0 } else { depth } + section
    }

    /// Compressed bytes of the WLD planes and of the depth planes.
    pub fn plane_bytes(&self) -> (u64, u64) {
        self.index.iter().fold((0, 0), |(w, d), e| (w + e.wld_len as u64, d + e.depth_len as u64))
    }
}
