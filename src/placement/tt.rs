//! A lock-free transposition table of value bounds, shared by the search threads.
//!
//! Each entry is two words, `key ^ data` and `data` (Hyatt's lockless hashing): a torn
//! write by two threads fails the key check and reads as a miss, so no lock is needed
//! and a wrong bound can never be returned. Buckets hold four entries in one cache
//! line. On a miss the entry with the fewest placement plies left is replaced: entries
//! far from the movement phase stand for the largest subtrees and are the most
//! expensive to recompute.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};


const WAYS: usize = 4;
/// Bounds are stored offset by this, in 21 bits each.
const OFFSET: i32 = 1 << 20;
const MASK: u64 = (1 << 21) - 1;

#[repr(align(64))]
struct Bucket([AtomicU64; 2 * WAYS]);

/// Shared value bounds of placement positions; see the module documentation.
pub struct Tt {
    map: memmap2::MmapMut,
    mask: u64,
}

/// Value bounds of a node, in `Value::goodness` units: `lower <= value <= upper`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lower: i32,
    pub upper: i32,
}

fn pack(b: Bounds, work: u32) -> u64 {
    1 << 63 | (work as u64) << 42 | ((b.upper + OFFSET) as u64 & MASK) << 21 | ((b.lower + OFFSET) as u64 & MASK)
}

fn unpack(d: u64) -> (Bounds, u32) {
    let lower = (d & MASK) as i32 - OFFSET;
    let upper = (d >> 21 & MASK) as i32 - OFFSET;
    (Bounds { lower, upper }, (d >> 42 & 31) as u32)
}

#[inline]
fn mix(k: u64) -> u64 {
    let k = (k ^ (k >> 31)).wrapping_mul(0x7fb5_d329_728e_a185);
    let k = (k ^ (k >> 27)).wrapping_mul(0x81da_def4_bc2d_d44d);
    k ^ (k >> 33)
}

/// `n` empty buckets in zeroed anonymous memory, which the OS maps lazily (a large
/// table that a small search barely touches costs almost nothing) and backs with huge
/// pages where it can (random probes then miss the TLB far less).
fn zeroed(n: usize) -> memmap2::MmapMut {
    let map = memmap2::MmapMut::map_anon(n * std::mem::size_of::<Bucket>()).expect("memory for the transposition table");
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    map
}

impl Tt {
    /// A table of about `bytes` bytes (rounded down to a power of two buckets).
    pub fn new(bytes: usize) -> Tt {
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let n = 1usize << (usize::BITS - 1 - n.leading_zeros());
        Tt { map: zeroed(n), mask: n as u64 - 1 }
    }

    fn buckets(&self) -> &[Bucket] {
        // SAFETY: the map is page-aligned, a multiple of the bucket size long, and
        // all-zero bytes (what a fresh map holds) are valid atomics; every later write
        // goes through those atomics.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr() as *const Bucket, self.mask as usize + 1) }
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets()[(mix(key) & self.mask) as usize]
    }

    /// Starts loading the bucket of `key` into the cache.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        super::prefetch(self.bucket(key));
    }

    /// The bounds stored for `key`, if any. `key` must be non-zero.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Bounds> {
        let b = self.bucket(key);
        for w in 0..WAYS {
            let d = b.0[2 * w + 1].load(Relaxed);
            if d != 0 && b.0[2 * w].load(Relaxed) ^ d == key {
                return Some(unpack(d).0);
            }
        }
        None
    }

    /// Narrows the bounds stored for `key` by `new`. `work` (0..32) ranks how costly
    /// the node is to search again.
    pub fn put(&self, key: u64, work: u32, new: Bounds) {
        let b = self.bucket(key);
        let mut victim = 0;
        let mut victim_work = u32::MAX;
        for w in 0..WAYS {
            let d = b.0[2 * w + 1].load(Relaxed);
            if d == 0 {
                victim = w;
                victim_work = 0;
                continue;
            }
            if b.0[2 * w].load(Relaxed) ^ d == key {
                let (old, _) = unpack(d);
                let merged = Bounds { lower: old.lower.max(new.lower), upper: old.upper.min(new.upper) };
                let d = pack(merged, work);
                b.0[2 * w].store(key ^ d, Relaxed);
                b.0[2 * w + 1].store(d, Relaxed);
                return;
            }
            let (_, p) = unpack(d);
            if p < victim_work {
                victim = w;
                victim_work = p;
            }
        }
        let d = pack(new, work);
        b.0[2 * victim].store(key ^ d, Relaxed);
        b.0[2 * victim + 1].store(d, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_round_trip_and_merge() {
        let tt = Tt::new(1 << 12);
        assert_eq!(tt.get(7), None);
        tt.put(7, 3, Bounds { lower: -100_000, upper: 99_999 });
        tt.put(7, 3, Bounds { lower: 0, upper: 1_000_000 });
        assert_eq!(tt.get(7), Some(Bounds { lower: 0, upper: 99_999 }));
        assert_eq!(tt.get(8), None);
        // More keys than ways in one bucket: the table keeps what fits, never a wrong bound.
        for k in 1..10_000u64 {
            tt.put(k << 8, (k % 20) as u32, Bounds { lower: k as i32, upper: k as i32 });
        }
        for k in 1..10_000u64 {
            if let Some(b) = tt.get(k << 8) {
                assert_eq!(b, Bounds { lower: k as i32, upper: k as i32 });
            }
        }
    }
}
