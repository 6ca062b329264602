//! The symmetry-reduced perfect hash of each movement subspace.
//!
//! A position is split into two stone sets: a *first* set `A` and a *second* set `B`
//! (which of mover and opponent comes first is chosen per subspace, whichever gives
//! fewer slots). `A` is canonicalised by one table lookup that yields its orbit number
//! and a symmetry `g` taking it to the orbit's representative; `g` is applied to `B`,
//! whose colex rank among the points left free by the representative is the offset:
//!
//! `index = orbit(A) * C(n - |A|, |B|) + rank(pext(g·B, free))`, with `n` the board's
//! points (24, or 16 for `six`, whose points are rings 0 and 2 of the same layout, so
//! that the same 16 symmetries act on it).
//!
//! When the representative has a non-trivial stabiliser, `B` is also minimised over
//! that stabiliser, so the index is a true class function. The slots of the
//! non-minimal `B`s are then never used: they are holes (1.9% of all slots over the 49
//! subspaces), which table files store as draws and statistics skip.

use crate::position::combin::pdep;
use crate::position::combin::{binom, rank, unrank_below, BitOps};
use crate::position::subspace::Subspace;
use crate::rules::geometry::Bits;
use crate::rules::symmetry;
use crate::rules::Board;
use std::sync::OnceLock;

/// Orbits of `k`-point sets under the 16 symmetries.
pub struct SetOrbits {
    /// The size of the sets.
    pub k: usize,
    /// The points the sets are drawn from (a board's `mask`).
    pub mask: Bits,
    /// By colex rank of a set (among all 24-point sets, so sparse for a smaller
    /// board): `orbit << 4 | g`, where `g` maps the set to the representative.
    canon: Vec<u32>,
    /// Each orbit's representative and stabiliser, side by side: the index reads both
    /// for every position, so one lookup (one bounds check, one cache line) serves.
    orbits: Vec<Orbit>,
}

/// One orbit of sets.
#[derive(Clone, Copy)]
struct Orbit {
    /// The representative (numerically least member).
    rep: Bits,
    /// The representative's stabiliser, one bit per symmetry.
    stab: u16,
}

impl SetOrbits {
    fn build(mask: Bits, k: usize) -> SetOrbits {
        let points = mask.count_ones() as usize;
        let n = binom(points, k) as usize;
        const UNSET: u32 = u32::MAX;
        // Indexed by the colex rank of the set among all sets of the 24-point grid, on
        // which every board lies.
        let mut canon = vec![UNSET; binom(crate::rules::geometry::MAX_POINTS, k) as usize];
        let mut orbits = Vec::new();
        let inverse: [usize; symmetry::COUNT] = std::array::from_fn(symmetry::inverse);
        // Gosper's hack walks k-sets in increasing numeric order, which is colex order,
        // and spreading them onto `mask` keeps that order, so the first set met of each
        // orbit is its representative (its numeric minimum). Its 16 images are filled in at once, so each orbit costs 16
        // symmetry applications, not each set: a probe process that needs the table
        // builds it in a few milliseconds.
        let mut c: Bits = if k == 0 { 0 } else { (1 << k) - 1 };
        for r in 0..n {
            debug_assert_eq!(rank(c), r as u64);
            let x = pdep(c, mask);
            if canon[rank(x) as usize] == UNSET {
                let orbit = orbits.len() as u32;
                let mut st = 0u16;
                for g in 0..symmetry::COUNT {
                    let y = symmetry::apply(g, x);
                    if y == x {
                        st |= 1 << g;
                    }
                    let ry = rank(y) as usize;
                    // The first symmetry taking `x` to `y`; its inverse takes `y` back.
                    if canon[ry] == UNSET {
                        canon[ry] = orbit << 4 | inverse[g] as u32;
                    }
                }
                orbits.push(Orbit { rep: x, stab: st });
            }
            if k == 0 {
                break;
            }
            let low = c & c.wrapping_neg();
            let rr = c + low;
            c = (((rr ^ c) >> 2) / low) | rr;
        }
        SetOrbits { k, mask, canon, orbits }
    }

    /// Shared tables for sets of `k` points of `board`, built on first use
    /// (process-wide); the two 24-point boards share theirs.
    pub fn get(board: Board, k: usize) -> &'static SetOrbits {
        static T: [OnceLock<SetOrbits>; 25] = [const { OnceLock::new() }; 25];
        static SIX: [OnceLock<SetOrbits>; 17] = [const { OnceLock::new() }; 17];
        match board {
            Board::Nine | Board::NineDiagonal => T[k].get_or_init(|| SetOrbits::build(board.mask(), k)),
            Board::Six => SIX[k].get_or_init(|| SetOrbits::build(board.mask(), k)),
        }
    }

    /// The number of orbits: each orbit of the first set owns `C(n - k, |B|)` slots.
    pub fn count(&self) -> usize {
        self.orbits.len()
    }

    /// The representative (numerically least member) of orbit `orbit`.
    pub fn representative(&self, orbit: u32) -> Bits {
        self.orbits[orbit as usize].rep
    }

    /// A canonical form of the pair `(a, b)` under the 16 symmetries, where `a` has `k`
    /// points: `a`'s orbit number and the least image of `b` under the symmetries
    /// that take `a` to its representative. Equal for two pairs iff they are symmetric.
    #[inline(always)]
    pub fn canonical_pair(&self, a: Bits, b: Bits) -> (u32, Bits) {
        let e = self.canon[rank(a) as usize];
        let orbit = e >> 4;
        (orbit, least_image(self.orbits[orbit as usize].stab, symmetry::apply((e & 15) as usize, b)))
    }

    /// Whether some symmetry other than the identity maps `set` (of `k` points) to itself.
    #[inline]
    pub fn is_symmetric(&self, set: Bits) -> bool {
        self.orbits[(self.canon[rank(set) as usize] >> 4) as usize].stab != 1
    }

    /// How many orbits have a non-trivial stabiliser.
    pub fn symmetric_count(&self) -> usize {
        self.orbits.iter().filter(|o| o.stab != 1).count()
    }
}

/// The least image of `b` under the symmetries in `stab` (a stabiliser, so it holds
/// the identity). The index ranks only this image: `pext` onto the points a
/// representative leaves free, and the colex rank after it, both keep the numeric
/// order of the sets they are given (subsets of those points, of one size), so the
/// least rank is the rank of the least set, and the images need no `pext` or `rank`
/// of their own.
#[inline(always)]
fn least_image(stab: u16, b: Bits) -> Bits {
    let mut best = b;
    if stab != 1 {
        let mut rest = stab & !1;
        while rest != 0 {
            let h = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            best = best.min(symmetry::apply(h, b));
        }
    }
    best
}

/// The first-set half of an index computation (see `SubspaceIndex::prepare`).
#[derive(Clone, Copy)]
pub struct Prepared {
    base: u64,
    /// The symmetry taking the first set to its representative, as its tables.
    g: &'static symmetry::Table,
    free: Bits,
    stab: u16,
}

/// `SubspaceIndex::index` of children whose opponent's stones (the capturer's) repeat
/// from one call to the next: the captures after one move differ only in the stone
/// taken, so the capturer's set is prepared once per move, not once per child. The
/// solver's exits and the placement induction both index captures so. One serves one
/// `SubspaceIndex`: the preparation belongs to the index it was made by.
#[derive(Clone, Copy, Default)]
pub struct CaptureIndex {
    /// The opponent set prepared last, and its preparation.
    last: Bits,
    prep: Option<Prepared>,
}

impl CaptureIndex {
    /// `idx.index(mover, opp)`, preparing `opp` only when it differs from the last
    /// call's. Always the slot `index` gives: a stale or absent preparation is never
    /// used for another set.
    #[inline(always)]
    pub fn index(&mut self, idx: &SubspaceIndex, mover: Bits, opp: Bits) -> u64 {
        if opp != self.last || self.prep.is_none() {
            self.last = opp;
            self.prep = idx.prepare(opp, false);
        }
        idx.index_with(&self.prep, mover, opp)
    }
}

/// The perfect hash of one subspace `s-o`.
#[derive(Clone, Copy)]
pub struct SubspaceIndex {
    /// The stone counts this index ranks.
    pub sub: Subspace,
    /// Whether the side to move's stones form the first set.
    first_is_mover: bool,
    kb: usize,
    /// The points the second set is drawn from, those the first leaves free.
    nb: usize,
    /// Slots per orbit of the first set.
    per_orbit: u64,
    /// The board's points.
    mask: Bits,
    orbits: &'static SetOrbits,
    bits: BitOps,
}

impl SubspaceIndex {
    /// The index of all boards of `board` with `s` stones for the side to move and `o`
    /// for the opponent, `0 <= s, o <= 12`: movement subspaces and the boards of
    /// placement sectors alike (`sub` then names the board, not necessarily a movement
    /// subspace). The 24-point boards share one index, and `six` has its own over its
    /// 16 points.
    pub fn new(board: Board, s: u8, o: u8) -> SubspaceIndex {
        let n = board.points() as usize;
        assert!(s <= 12 && o <= 12 && (s + o) as usize <= n, "board with {s} and {o} stones");
        let sub = Subspace { s, o };
        let (s, o) = (s as usize, o as usize);
        let first_is_mover = Self::slots_for(board, s, o) <= Self::slots_for(board, o, s);
        let (ka, kb) = if first_is_mover { (s, o) } else { (o, s) };
        let orbits = SetOrbits::get(board, ka);
        SubspaceIndex { sub, first_is_mover, kb, nb: n - ka, per_orbit: binom(n - ka, kb), mask: board.mask(), orbits, bits: BitOps::detect() }
    }

    fn slots_for(board: Board, ka: usize, kb: usize) -> u64 {
        let n = board.points() as usize;
        SetOrbits::get(board, ka).count() as u64 * binom(n - ka, kb)
    }

    /// Number of slots (orbits plus holes).
    pub fn len(&self) -> u64 {
        self.orbits.count() as u64 * self.per_orbit
    }

    /// Never true for a real subspace; here because `len` is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Slot of the position with `mover` and `opp` stones (side to move first).
    #[inline(always)]
    pub fn index(&self, mover: Bits, opp: Bits) -> u64 {
        let (a, b) = if self.first_is_mover { (mover, opp) } else { (opp, mover) };
        debug_assert_eq!(a & b, 0);
        let e = self.orbits.canon[rank(a) as usize];
        let orbit = (e >> 4) as usize;
        let Orbit { rep, stab } = self.orbits.orbits[orbit];
        let b = least_image(stab, symmetry::apply((e & 15) as usize, b));
        orbit as u64 * self.per_orbit + rank(self.bits.pext(b, rep ^ self.mask))
    }

    /// Precomputes the first-set half of `index` for many positions that share the
    /// side to move's stones (`mover_fixed`) or the opponent's, when that set is this
    /// index's first set. Move generation keeps one side fixed, so this saves the
    /// canonicalisation for all but the first child.
    #[inline(always)]
    pub fn prepare(&self, fixed: Bits, fixed_is_mover: bool) -> Option<Prepared> {
        if fixed_is_mover != self.first_is_mover {
            return None;
        }
        let e = self.orbits.canon[rank(fixed) as usize];
        let orbit = (e >> 4) as usize;
        let Orbit { rep, stab } = self.orbits.orbits[orbit];
        Some(Prepared { base: orbit as u64 * self.per_orbit, g: symmetry::table((e & 15) as usize), free: rep ^ self.mask, stab })
    }

    /// `index` for a position whose first set was prepared, given the second set.
    #[inline(always)]
    pub fn index_prepared(&self, p: &Prepared, second: Bits) -> u64 {
        let b = least_image(p.stab, symmetry::apply_table(p.g, second));
        p.base + rank(self.bits.pext(b, p.free))
    }

    /// `index(mover, opp)`, through `prep` when it is available.
    #[inline(always)]
    pub fn index_with(&self, prep: &Option<Prepared>, mover: Bits, opp: Bits) -> u64 {
        match prep {
            Some(p) => self.index_prepared(p, if self.first_is_mover { opp } else { mover }),
            None => self.index(mover, opp),
        }
    }

    /// A position (mover, opponent) whose slot is `i`, or, for a hole, of the slot's
    /// orbit (so `index(unindex(i)) != i` exactly for holes).
    #[inline(always)]
    pub fn unindex(&self, i: u64) -> (Bits, Bits) {
        let orbit = (i / self.per_orbit) as usize;
        let r = i % self.per_orbit;
        let a = self.orbits.orbits[orbit].rep;
        let b = self.bits.pdep(unrank_below(r, self.kb, self.nb), a ^ self.mask);
        if self.first_is_mover {
            (a, b)
        } else {
            (b, a)
        }
    }

    /// `unindex` for the consecutive slots `start..end`, yielding `(slot, mover, opp)`.
    /// Walks the second set in colex order (Gosper's hack) instead of unranking each.
    pub fn walk(&self, start: u64, end: u64) -> impl Iterator<Item = (u64, Bits, Bits)> + '_ {
        let mut orbit = (start / self.per_orbit) as usize;
        let mut r = start % self.per_orbit;
        let mut comp: Bits = unrank_below(r, self.kb, self.nb);
        let mut a = if start < end { self.orbits.orbits[orbit].rep } else { 0 };
        let mut free = a ^ self.mask;
        (start..end).map(move |i| {
            if i != start {
                r += 1;
                if r == self.per_orbit {
                    r = 0;
                    orbit += 1;
                    a = self.orbits.orbits[orbit].rep;
                    free = a ^ self.mask;
                    comp = (1 << self.kb) - 1;
                } else {
                    let c = comp & comp.wrapping_neg();
                    let rr = comp + c;
                    comp = (((rr ^ comp) >> 2) / c) | rr;
                }
            }
            let b = self.bits.pdep(comp, free);
            if self.first_is_mover {
                (i, a, b)
            } else {
                (i, b, a)
            }
        })
    }

    /// [`SubspaceIndex::is_hole`] of slot `i`, whose position `(mover, opp)` the caller
    /// has already unindexed (a walk over the slots has it): no unindex again.
    #[inline(always)]
    pub fn is_hole_of(&self, i: u64, mover: Bits, opp: Bits) -> bool {
        let stab = self.orbits.orbits[(i / self.per_orbit) as usize].stab;
        let b = if self.first_is_mover { opp } else { mover };
        stab != 1 && least_image(stab, b) != b
    }

    /// Whether slot `i` holds no position of its own (see the module docs).
    ///
    /// The slot's second set `b` is a hole exactly when a symmetry fixing the
    /// representative maps it lower: `index` ranks only the least image (the
    /// representative's own entry in the canonical table is the identity), and ranks
    /// are distinct for distinct sets, so comparing the images answers without an
    /// `index` of the unindexed position.
    #[inline(always)]
    pub fn is_hole(&self, i: u64) -> bool {
        let orbit = (i / self.per_orbit) as usize;
        let Orbit { rep, stab } = self.orbits.orbits[orbit];
        if stab == 1 {
            return false;
        }
        let b = self.bits.pdep(unrank_below(i % self.per_orbit, self.kb, self.nb), rep ^ self.mask);
        least_image(stab, b) != b
    }

    /// The holes among the slots `start..end`, in increasing order. Walks only the
    /// orbits of the first set with a non-trivial stabiliser (the only ones with
    /// holes), and their second sets in colex order, so a pass over a table's slots
    /// skips its holes without unranking each slot.
    pub fn holes(&self, start: u64, end: u64) -> impl Iterator<Item = u64> + '_ {
        let (first, last) = if start < end { (start / self.per_orbit, (end - 1) / self.per_orbit + 1) } else { (0, 0) };
        (first..last).filter(move |&o| self.orbits.orbits[o as usize].stab != 1).flat_map(move |o| {
            let stab = self.orbits.orbits[o as usize].stab;
            let base = o * self.per_orbit;
            let first_is_mover = self.first_is_mover;
            self.walk(start.max(base), end.min(base + self.per_orbit)).filter_map(move |(i, m, p)| {
                let b = if first_is_mover { p } else { m };
                (least_image(stab, b) != b).then_some(i)
            })
        })
    }

    /// Number of positions (orbits), i.e. slots that are not holes. Only orbits of the
    /// first set with a non-trivial stabiliser can hold holes, so only those are walked.
    pub fn positions(&self) -> u64 {
        use rayon::prelude::*;
        let holes: u64 = (0..self.orbits.count())
            .into_par_iter()
            .filter(|&o| self.orbits.orbits[o].stab != 1)
            .map(|o| {
                crate::cpu::fast!({
                    let base = o as u64 * self.per_orbit;
                    self.holes(base, base + self.per_orbit).count() as u64
                })
            })
            .sum();
        self.len() - holes
    }

    /// Whether slots in orbit block of `i` can be holes at all (cheap pre-check).
    #[inline]
    pub fn may_be_hole(&self, i: u64) -> bool {
        self.orbits.orbits[(i / self.per_orbit) as usize].stab != 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_orbit_counts_match_burnside() {
        // Published (docs/rules.md, "Orbit counts"): orbits of k-stone sets, k = 0..12.
        let expected = [1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880, 124124, 157668, 170854];
        for (k, &e) in expected.iter().enumerate().take(10) {
            assert_eq!(SetOrbits::get(Board::Nine, k).count(), e, "k = {k}");
        }
    }

    #[test]
    fn slots_within_four_percent_of_orbits() {
        let slots: u64 = Subspace::all().map(|s| SubspaceIndex::new(Board::Nine, s.s, s.o).len()).sum();
        assert!(slots as f64 <= 1.04 * 8_904_593_601f64, "{slots}");
        assert!(slots >= 8_904_593_601);
    }

    /// Slots, positions and walks of every board, on the path this processor allows
    /// and on the portable one (see `cpu`); the two must agree exactly.
    fn sample_every_board() -> Vec<u64> {
        crate::cpu::fast!({
            let mut out = Vec::new();
            let mut x = 0x9E3779B97F4A7C15u64;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            for (s, o) in (0..=9u8).flat_map(|s| (0..=9u8).map(move |o| (s, o))) {
                let idx = SubspaceIndex::new(Board::Nine, s, o);
                for _ in 0..300 {
                    // A random position with `s` and `o` stones, from a random slot's
                    // position moved by a random symmetry.
                    let i = next() % idx.len();
                    let (m, p) = idx.unindex(i);
                    let g = (next() % symmetry::COUNT as u64) as usize;
                    let (gm, gp) = (symmetry::apply(g, m), symmetry::apply(g, p));
                    let j = idx.index(gm, gp);
                    assert!(j == i || idx.may_be_hole(i), "{s}-{o}: slot {i} came back as {j}");
                    assert_eq!(idx.index(m, p), j, "{s}-{o}: the index is a class function");
                    assert_eq!(idx.is_hole_of(i, m, p), idx.is_hole(i), "{s}-{o}: slot {i}");
                    assert_eq!(idx.is_hole(i), idx.index(m, p) != i, "{s}-{o}: slot {i}: a hole is a slot whose position indexes elsewhere");
                    out.extend([i, j, (m as u64) << 24 | p as u64, idx.is_hole(i) as u64]);
                }
                let start = next() % idx.len();
                for (i, m, p) in idx.walk(start, (start + 100).min(idx.len())) {
                    assert_eq!((m, p), idx.unindex(i));
                    out.push((m as u64) << 24 | p as u64);
                }
            }
            out
        })
    }

    #[test]
    fn portable_path_gives_the_same_slots() {
        crate::cpu::force_portable(false);
        let detected = sample_every_board();
        crate::cpu::force_portable(true);
        assert_eq!(crate::cpu::describe(), "portable");
        let portable = sample_every_board();
        crate::cpu::force_portable(false);
        assert!(detected == portable, "the code paths disagree");
    }
}
