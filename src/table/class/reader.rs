//! Reading class files: the [`Groups`] kind of [`BlockFile`], always beside the strong
//! table it was made from, whose blocks say which slots are draws.

use super::group::decode_group;
use super::{class_path, drawn, Classes, Groups, NO_CLASS};
use crate::table::block::BlockFile;
use crate::table::{TableError, TableFile};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// An open class file, checked against the strong table beside it. Blocks are read
/// with `pread`, so a file cut short while it is open gives an error, not a crash.
pub type ClassFile = BlockFile<Groups>;

/// The entries of each block of a group, as its frame holds them.
type Group = Vec<Vec<(i16, u16)>>;

/// Decoded groups a class file keeps ([`ClassFile::block`]).
const RECENT: usize = 8;

/// The last groups decoded, newest first: a favoured draw's depth reads its children,
/// which often share groups.
#[derive(Default)]
pub struct Recent(Mutex<Vec<(usize, Arc<Group>)>>);

impl ClassFile {
    /// Opens the classes of `strong`'s sector in `dir`, and checks that they belong to
    /// that table, its rules and the sector values `values_fingerprint`.
    pub fn open(dir: &Path, strong: &TableFile, values_fingerprint: u64) -> Result<ClassFile, TableError> {
        let sector = strong.header.sector;
        let path = class_path(dir, sector);
        let f = BlockFile::<Groups>::open_kind(&path, sector)?;
        let (h, s) = (&f.header, &strong.header);
        if h.rules != s.rules {
            return Err(TableError::WrongRules { path, found: h.rules, expected: s.rules });
        }
        if h.sector != sector || h.entries != s.entries || h.block_size != s.block_size || h.blocks != s.blocks {
            return Err(f.corrupt(format!("the classes are of another table than {sector}")));
        }
        if h.strong_hash != s.content_hash {
            return Err(f.corrupt("the classes were made from other strong values than the table beside them (solve the classes again)"));
        }
        if h.values_fingerprint != values_fingerprint {
            return Err(f.corrupt("the classes were made from other sector values than the ones given (solve the classes again)"));
        }
        Ok(f)
    }

    /// The entries of every block of group `g`, as its frame holds them; the callers
    /// check each block's count against the draws of the strong block.
    fn group(&self, g: usize) -> Result<Group, TableError> {
        let e = *self.index.get(g).ok_or_else(|| self.corrupt(format!("no group {g}")))?;
        let per = self.header.group as usize;
        let blocks = per.min(self.header.blocks as usize - g * per);
        if e.len == 0 {
            return Ok(vec![Vec::new(); blocks]);
        }
        let mut frame = vec![0u8; e.len as usize];
        self.read_at(&mut frame, e.offset, format_args!("group {g}"))?;
        self.check_frame(&frame, e.check, format_args!("group {g}"))?;
        let bound = 2 * blocks + 1 + 2 * 255 + 3 * blocks * self.header.block_size as usize;
        let raw = self.decompress(&frame, bound, format_args!("group {g}"))?;
        decode_group(&raw, blocks, self.header.rank).ok_or_else(|| self.corrupt(format!("group {g}: the bytes do not decode")))
    }

    /// Group `g`, from the groups decoded last if it is one of them.
    fn recent_group(&self, g: usize) -> Result<Arc<Group>, TableError> {
        let recent = || self.state.0.lock().unwrap_or_else(|e| e.into_inner());
        let hit = {
            let mut recent = recent();
            recent.iter().position(|(h, _)| *h == g).map(|at| {
                let e = recent.remove(at);
                recent.insert(0, e.clone());
                e.1
            })
        };
        if let Some(group) = hit {
            return Ok(group);
        }
        let group = Arc::new(self.group(g)?);
        let mut recent = recent();
        recent.insert(0, (g, group.clone()));
        recent.truncate(RECENT);
        Ok(group)
    }

    /// Checks that block `k`'s entries match its strong block's draws in number.
    fn fits(&self, k: usize, entries: &[(i16, u16)], strong: &[u8]) -> Result<(), TableError> {
        let n = drawn(strong).count();
        if entries.len() != n {
            return Err(self.corrupt(format!("block {k}: {} classes for its {n} draws", entries.len())));
        }
        Ok(())
    }

    /// The `(class, depth)` of every drawn slot of block `k`, in slot order, favoured
    /// depths as 0 (see [`super::encode_group`]); `strong` is that block of the strong
    /// table as stored. Decodes `k`'s whole group.
    pub fn block(&self, k: usize, strong: &[u8]) -> Result<Vec<(i16, u16)>, TableError> {
        let per = self.header.group as usize;
        let entries = self.recent_group(k / per)?[k % per].clone();
        self.fits(k, &entries, strong)?;
        Ok(entries)
    }

    /// Every slot's class, as the class pass made it (holes as stored), with the depths
    /// of unfavoured draws; favoured draws have depth 0 until the solver's check
    /// (`solve::ultra::check::fill_favoured`) finds theirs.
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
}
