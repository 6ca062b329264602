//! The block cache of a [`Tablebase`](super::Tablebase): decoded, checked blocks,
//! kept so that probes near one another decompress once.

use crate::position::sector::Sector;
use crate::table::Planes;
use std::collections::HashMap;
use std::sync::Arc;

/// Recently used blocks, at most a given number (about 10 KB each).
#[derive(Default)]
pub(super) struct BlockCache {
    blocks: HashMap<(Sector, u32), (Arc<Planes>, u64)>,
    clock: u64,
}

impl BlockCache {
    pub(super) fn get(&mut self, key: (Sector, u32)) -> Option<Arc<Planes>> {
        self.clock += 1;
        let now = self.clock;
        self.blocks.get_mut(&key).map(|(b, used)| {
            *used = now;
            b.clone()
        })
    }

    /// Only blocks that passed their checks are put here (`TableFile::read_planes`).
    pub(super) fn put(&mut self, key: (Sector, u32), block: Arc<Planes>, capacity: usize) {
        if capacity == 0 {
            return;
        }
        if self.blocks.len() >= capacity {
            // Evict the least recently used half: amortised O(1) per insertion.
            let mut ages: Vec<u64> = self.blocks.values().map(|(_, u)| *u).collect();
            ages.sort_unstable();
            let cut = ages[ages.len() / 2];
            self.blocks.retain(|_, (_, u)| *u > cut);
        }
        self.clock += 1;
        self.blocks.insert(key, (block, self.clock));
    }
}
