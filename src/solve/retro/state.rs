//! The values pass's tables of one member while its unit is solved, and what they
//! become once it is: the value bytes and the exact depths of the deep ones.

use super::sharded::Sharded;
use crate::position::value::Deep;
use std::sync::atomic::AtomicU8;

/// Marks a position that cannot lose because a capture leads to a draw.
pub(crate) const NEVER_LOSES: u8 = u8::MAX;
/// Marks a capture win too deep for the byte: its depth is in `State::cap_deep`.
pub(crate) const CAP_DEEP: u8 = u8::MAX - 1;

/// Three bytes per slot, and the rare deep depths beside them.
pub(crate) struct State {
    /// The value byte, [`DRAW`](crate::position::value::DRAW) while undecided.
    pub value: Vec<AtomicU8>,
    /// The distinct children inside the unit not yet known to win.
    pub counter: Vec<AtomicU8>,
    /// The deepest win a move out of the unit leaves the opponent, [`NEVER_LOSES`]
    /// if one leaves a draw, or [`CAP_DEEP`]: the depth a loss takes once every
    /// child inside the unit wins.
    pub cap_max: Vec<u8>,
    /// Exact depths of the deep values set so far, by slot (stale for a win later
    /// bettered to a byte of its own: only slots holding a deep byte are read).
    pub deep: Sharded,
    /// Exact depths of the capture wins marked [`CAP_DEEP`].
    pub cap_deep: Sharded,
}

impl State {
    /// Every slot a draw, with no child counted.
    pub(crate) fn new(slots: u64) -> State {
        let n = slots as usize;
        State { value: atomic_vec(n), counter: atomic_vec(n), cap_max: vec![0; n], deep: Sharded::new(), cap_deep: Sharded::new() }
    }

    /// The finished table: the value bytes, and the depths of the deep ones.
    pub(crate) fn finish(self) -> (Vec<u8>, Deep) {
        let values = into_plain(self.value);
        let deep = self.deep.into_deep(&values);
        (values, deep)
    }
}

/// `n` zero atomics, allocated as plain zeroed bytes (the allocator's zeroed pages,
/// not a loop of stores).
fn atomic_vec(n: usize) -> Vec<AtomicU8> {
    let v = vec![0u8; n];
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: AtomicU8 has the same size, alignment and bit validity as u8.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut AtomicU8, v.len(), v.capacity()) }
}

/// The bytes of atomics no other thread holds any more, without a copy.
fn into_plain(v: Vec<AtomicU8>) -> Vec<u8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: as in `atomic_vec`; no other reference to the atomics remains.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut u8, v.len(), v.capacity()) }
}
