//! Distinct slots among the children or parents of one position.
//!
//! Counting distinct child slots forward and distinct parent slots backward keeps the
//! counters exact under symmetry: parent orbit P reaches child orbit C by some move if
//! and only if C's representative has an unmove into P's orbit. Two moves can reach
//! one slot only through a symmetry that fixes the stones every such move keeps (the
//! opponent's, forward; the mover's, backward), so only a symmetric such set costs a
//! sort.

use crate::position::index::SetOrbits;
use crate::rules::geometry::Bits;

/// How many distinct slots `slots` holds, which it keeps at its front, given that
/// every one of them was reached keeping `kept` (a set of stones) in place; `orbits`
/// are the orbits of sets of its size, looked up once for many positions.
#[inline(always)]
pub(crate) fn distinct(orbits: &SetOrbits, kept: Bits, slots: &mut [u64]) -> usize {
    if orbits.is_symmetric(kept) {
        dedup_sorted(slots)
    } else {
        slots.len()
    }
}

/// Sorts `buf` and moves its distinct values to the front; returns how many there are.
#[inline]
pub(crate) fn dedup_sorted(buf: &mut [u64]) -> usize {
    buf.sort_unstable();
    let mut n = 0;
    for k in 0..buf.len() {
        if k == 0 || buf[k] != buf[n - 1] {
            buf[n] = buf[k];
            n += 1;
        }
    }
    n
}
