//! A lock-free transposition table of value bounds, shared by the search threads.
//!
//! Each entry is two words, `check(key) ^ data` and `data` (Hyatt's lockless hashing,
//! with a 64-bit hash of the key in place of the key): a torn write by two threads
//! pairs words of two entries, and such a pair passes the check of some key only with
//! probability 2^-64, where with the key itself it could pass as another valid key's
//! entry. So no lock is needed and a wrong bound is, for all practical purposes, never
//! returned. Buckets hold four entries in one cache
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
    /// Owns the memory; never read or written through, only through `buckets`.
    _map: memmap2::MmapMut,
    /// The buckets, derived once from the map's mutable pointer: writes go through
    /// atomics (interior mutability), so shared references to them are sound.
    buckets: *const Bucket,
    mask: u64,
}

// SAFETY: `buckets` points into `_map`, which the table owns and never moves or frees
// before it is dropped; every access goes through atomics.
unsafe impl Send for Tt {}
unsafe impl Sync for Tt {}

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

/// The hash of a key stored beside its data (distinct from the bucket hash).
#[inline]
fn check(key: u64) -> u64 {
    mix(key ^ 0x9e37_79b9_7f4a_7c15) | 1
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
        let mut map = zeroed(n);
        let buckets = map.as_mut_ptr() as *const Bucket;
        Tt { _map: map, buckets, mask: n as u64 - 1 }
    }

    fn buckets(&self) -> &[Bucket] {
        // SAFETY: the map is page-aligned, `n` buckets long, and all-zero bytes (what a
        // fresh anonymous map holds) are valid atomics. The pointer was taken from the
        // map's mutable pointer, and every write goes through the atomics.
        unsafe { std::slice::from_raw_parts(self.buckets, self.mask as usize + 1) }
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets()[(mix(key) & self.mask) as usize]
    }

    /// Starts loading the bucket of `key` into the cache.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        crate::cpu::prefetch(self.bucket(key));
    }

    /// The bounds stored for `key`, if any. `key` must be non-zero.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Bounds> {
        let b = self.bucket(key);
        for w in 0..WAYS {
            let d = b.0[2 * w + 1].load(Relaxed);
            if d != 0 && b.0[2 * w].load(Relaxed) ^ d == check(key) {
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
            if b.0[2 * w].load(Relaxed) ^ d == check(key) {
                let (old, _) = unpack(d);
                let merged = Bounds { lower: old.lower.max(new.lower), upper: old.upper.min(new.upper) };
                let d = pack(merged, work);
                b.0[2 * w].store(check(key) ^ d, Relaxed);
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
        b.0[2 * victim].store(check(key) ^ d, Relaxed);
        b.0[2 * victim + 1].store(d, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A torn entry (the key word of one write with the data word of another) passes
    /// no key's check, including the key that plain `key ^ data` checks would accept.
    #[test]
    fn torn_entries_are_misses() {
        let tt = Tt::new(1 << 12);
        let (ka, kb) = (0x1234_5678_9abc_def0u64, 0x0fed_cba9_8765_4321u64);
        let (da, db) = (pack(Bounds { lower: 5, upper: 9 }, 3), pack(Bounds { lower: -7, upper: 2 }, 4));
        let forged = ka ^ da ^ db; // what a torn write would "be" under the old check
        let b = tt.bucket(forged);
        b.0[0].store(check(ka) ^ da, Relaxed);
        b.0[1].store(db, Relaxed);
        assert_eq!(tt.get(forged), None);
        let b = tt.bucket(ka);
        b.0[0].store(check(ka) ^ da, Relaxed);
        b.0[1].store(db, Relaxed);
        assert_eq!(tt.get(ka), None);
        assert_eq!(tt.get(kb), None);
    }

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
