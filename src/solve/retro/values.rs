//! How a decided child sets its parents' values: the values pass's [`Propagation`].
//!
//! A lost child makes each parent a win one ply further out, unless it already wins
//! faster. A won child counts down its parent's undecided children, and the last one
//! makes the parent a loss: one ply after the deeper of this child and the deepest
//! win a move out of the unit leaves the opponent (the loser's longest resistance),
//! unless such a move leads to a draw.

use super::propagate::{Edge, Propagation};
use super::state::{State, CAP_DEEP, NEVER_LOSES};
use crate::cpu::prefetch;
use crate::position::value::{enc_win, Value, DEEP_WIN, DRAW};
use crate::solve::limits::Limits;
use std::sync::atomic::Ordering::Relaxed;

/// Wins and losses by depth, over the values pass's tables of each member.
pub(crate) struct WinsAndLosses<'a> {
    pub states: &'a [State],
    pub limits: Limits,
}

/// What a level does to the parents of the positions it takes.
#[derive(Clone, Copy)]
enum Update {
    /// Lost children: their parents win with this byte, unless they win faster.
    Win(u8),
    /// Lost children, whose parents' win is too deep for a byte of its own.
    DeepWin,
    /// Won children: their parents count them down.
    Count,
}

/// One level of [`WinsAndLosses`] from one member into its mirror.
pub(crate) struct Level<'a> {
    child: &'a State,
    parent: &'a State,
    depth: u16,
    limits: Limits,
    /// The byte a position listed at this level still holds if the level decides it.
    byte: u8,
    /// Whether that byte is deep, so that its depth is in `child.deep`.
    deep: bool,
    update: Update,
}

impl Propagation for WinsAndLosses<'_> {
    type Edge<'a>
        = Level<'a>
    where
        Self: 'a;

    fn edge(&self, depth: u16, child: usize, parent: usize) -> Level<'_> {
        let value = if depth % 2 == 1 { Value::Win(depth) } else { Value::Loss(depth) };
        let (byte, deep) = self.limits.byte(value);
        let update = if depth % 2 == 1 {
            Update::Count
        } else if self.limits.is_deep(Value::Win(depth + 1)) {
            Update::DeepWin
        } else {
            Update::Win(enc_win(depth + 1))
        };
        Level { child: &self.states[child], parent: &self.states[parent], depth, limits: self.limits, byte, deep, update }
    }
}

impl Edge for Level<'_> {
    #[inline(always)]
    fn listed(&self, slot: u32) -> bool {
        self.child.value[slot as usize].load(Relaxed) == self.byte && (!self.deep || self.child.deep.get(slot) == Some(self.depth))
    }

    #[inline(always)]
    fn prefetch_listed(&self, slot: u32) {
        prefetch(self.child.value.as_ptr().wrapping_add(slot as usize));
    }

    #[inline(always)]
    fn prefetch(&self, slot: u32) {
        // A prefetch never faults: no bounds check. A win level reads the parent's value
        // alone, a counting level its counter (and its value only at the last child).
        match self.update {
            Update::Count => prefetch(self.parent.counter.as_ptr().wrapping_add(slot as usize)),
            _ => prefetch(self.parent.value.as_ptr().wrapping_add(slot as usize)),
        }
    }

    /// No other thread touches this parent meanwhile (see [`Edge::update`]): a load and a
    /// store where an atomic update would lock.
    #[inline(always)]
    fn update(&self, _tag: bool, p: u32, decided: &mut Vec<(u16, u32)>) {
        let (d, parent) = (self.depth, self.parent);
        match self.update {
            Update::DeepWin => {
                // Every update of this level sets the same deep win, under the lock of
                // the parent's shard, so the byte and its depth agree.
                let slot = &parent.value[p as usize];
                let mut depths = parent.deep.shard(p);
                let cur = slot.load(Relaxed);
                let better = cur == DRAW || (cur == DEEP_WIN && depths.get(&p).is_some_and(|&w| w > d + 1));
                if better {
                    slot.store(DEEP_WIN, Relaxed);
                    depths.insert(p, d + 1);
                    decided.push((d + 1, p));
                }
            }
            Update::Win(win) => {
                let slot = &parent.value[p as usize];
                let cur = slot.load(Relaxed);
                if cur == DRAW || (cur < 128 && cur > win) {
                    slot.store(win, Relaxed);
                    decided.push((d + 1, p));
                }
            }
            Update::Count => {
                let p = p as usize;
                let left = parent.counter[p].load(Relaxed);
                parent.counter[p].store(left.wrapping_sub(1), Relaxed);
                if left == 1 {
                    let cap = parent.cap_max[p];
                    if cap != NEVER_LOSES && parent.value[p].load(Relaxed) == DRAW {
                        let cap = if cap == CAP_DEEP { parent.cap_deep.get(p as u32).expect("a deep capture win has its depth") } else { cap as u16 };
                        let depth = d.max(cap) + 1;
                        let (byte, is_deep) = self.limits.byte(Value::Loss(depth));
                        if is_deep {
                            // Set before the byte: a reader of the byte finds it.
                            parent.deep.set(p as u32, depth);
                        }
                        parent.value[p].store(byte, Relaxed);
                        decided.push((depth, p as u32));
                    }
                }
            }
        }
    }
}
