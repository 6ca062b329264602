//! Exact depths of the values too deep for a byte, while a unit is solved.

use crate::position::value::{is_deep, Deep};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// A map from slot to depth behind one lock per shard: deep values are rare, and the
/// threads of one level touch different slots.
pub(crate) struct Sharded(Vec<Mutex<HashMap<u32, u16>>>);

impl Sharded {
    const SHARDS: usize = 64;

    pub(crate) fn new() -> Sharded {
        Sharded((0..Self::SHARDS).map(|_| Mutex::new(HashMap::new())).collect())
    }

    /// The locked shard of `slot`: a caller that sets a byte and its depth together
    /// holds it across both.
    pub(crate) fn shard(&self, slot: u32) -> MutexGuard<'_, HashMap<u32, u16>> {
        self.0[slot as usize % Self::SHARDS].lock().unwrap()
    }

    pub(crate) fn get(&self, slot: u32) -> Option<u16> {
        self.shard(slot).get(&slot).copied()
    }

    pub(crate) fn set(&self, slot: u32, depth: u16) {
        self.shard(slot).insert(slot, depth);
    }

    /// The entries whose slot still holds a deep byte in `values` (a deep win later
    /// bettered to a byte of its own leaves a stale entry).
    pub(crate) fn into_deep(self, values: &[u8]) -> Deep {
        Deep::new(self.0.into_iter().flat_map(|m| m.into_inner().unwrap()).filter(|&(slot, _)| is_deep(values[slot as usize])).map(|(slot, d)| (slot as u64, d)).collect())
    }
}
