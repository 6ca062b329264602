//! Writing class files: one frame a group of strong blocks, each holding the classes of
//! the slots its blocks store as draws.

use super::group::encode_group;
use super::{class_path, drawn, ClassHeader, Classes, GroupEntry, GROUP, NO_CLASS};
use crate::position::value::DRAW;
use crate::table::writer::{frame_check, write_atomic};
use crate::table::{TableError, TableFile};
use rayon::prelude::*;
use std::path::Path;

/// zstd's level for class frames: they are written once, by the class pass, and read
/// a group at a time, so the smallest file is worth the slowest compression.
const ZSTD_LEVEL: i32 = 19;

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
            let mut z = zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("zstd compressor");
            z.include_checksum(true).expect("zstd parameter");
            Ok(z.compress(&body).expect("zstd compression of an in-memory block"))
        })
        .collect::<Result<Vec<_>, TableError>>()?;
    let header = ClassHeader {
        sector: h.sector,
        entries: h.entries,
        block_size: h.block_size,
        blocks: h.blocks,
        strong_hash: h.content_hash,
        values_fingerprint,
        rules: h.rules,
        draws: stored.iter().filter(|&&b| b == DRAW).count() as u64,
        rank,
        group: GROUP,
    };
    // The offsets are implied by the lengths; the header does not store them.
    let index: Vec<GroupEntry> = frames.iter().map(|f| GroupEntry { offset: 0, len: f.len() as u32, check: frame_check(f) }).collect();
    let head = header.to_bytes(&index);
    let file = class_path(Path::new(""), h.sector).display().to_string();
    write_atomic(dir, &file, |w| {
        w.write_all(&head)?;
        frames.iter().try_for_each(|f| w.write_all(f))
    })
}
