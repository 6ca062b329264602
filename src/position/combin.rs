//! Combinatorial ranking of point sets: colex rank and unrank, and bit
//! compress/expand (`pext`/`pdep`) relative to a mask.
//!
//! The colex rank of a set with bits `p_0 < p_1 < ...` is `Σ C(p_j, j + 1)`. It does not
//! depend on the universe size, so one table serves every subspace. Ranking is done twelve
//! points at a time from precomputed partial sums, to keep `index` free of loops.

use crate::rules::geometry::Bits;

const fn build_binom() -> [[u64; 33]; 33] {
    let mut c = [[0u64; 33]; 33];
    let mut n = 0;
    while n < 33 {
        c[n][0] = 1;
        let mut k = 1;
        while k <= n {
            c[n][k] = c[n - 1][k - 1] + c[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    c
}

/// Binomial coefficients `BINOM[n][k]`, zero for `k > n`.
pub const BINOM: [[u64; 33]; 33] = build_binom();

/// `C(n, k)` for `n <= 32`, from the table: the index's slot arithmetic calls it in hot loops.
#[inline(always)]
pub fn binom(n: usize, k: usize) -> u64 {
    BINOM[n][k]
}

/// The colex rank is read from the set twelve points at a time: the low half's
/// contribution by itself, the high half's by its points and the count below them
/// (0..=12). Two lookups and one popcount per rank: the index ranks twice per child of
/// every position, and byte-wise (three lookups, two popcounts) this was a fifth of a
/// solve's instructions. The table is 224 KB, but the high rows read for the second
/// set's rank (at most 21 points after `pext`, so at most 512 entries a row) are few.
const HALF: usize = 12;

/// `RANK[0][v]`: the contribution of the low half `v`; `RANK[1 + c][v]`: that of the
/// high half `v` above `c` points.
const RANK_ROWS: usize = 1 + HALF + 1;

const fn build_rank() -> [[u32; 1 << HALF]; RANK_ROWS] {
    let mut t = [[0u32; 1 << HALF]; RANK_ROWS];
    let mut row = 0;
    while row < RANK_ROWS {
        let (offset, below) = if row == 0 { (0, 0) } else { (HALF, row - 1) };
        // Each entry is its value's without the highest point, plus that point's term.
        let mut v: usize = 1;
        while v < 1 << HALF {
            let top = usize::BITS as usize - 1 - v.leading_zeros() as usize;
            let j = below + v.count_ones() as usize;
            t[row][v] = t[row][v & !(1 << top)] + BINOM[offset + top][j] as u32;
            v += 1;
        }
        row += 1;
    }
    t
}

/// Built at compile time: a lazily built table costs a `OnceLock` check at every call,
/// 4% of a solve's instructions when it and the symmetry tables had one.
static RANK: [[u32; 1 << HALF]; RANK_ROWS] = build_rank();

/// Colex rank of `x` (a set of the 24-point grid) among the sets of the same size.
#[inline(always)]
pub fn rank(x: Bits) -> u64 {
    let low = (x & ((1 << HALF) - 1)) as usize;
    let high = (x >> HALF & ((1 << HALF) - 1)) as usize;
    let below = low.count_ones() as usize;
    debug_assert!(below <= HALF);
    // SAFETY: `low` and `high` are below `1 << HALF`, and `below`, the number of set
    // bits of a `HALF`-bit value, is at most `HALF`, so `1 + below < RANK_ROWS`.
    unsafe { *RANK.get_unchecked(0).get_unchecked(low) as u64 + *RANK.get_unchecked(1 + below).get_unchecked(high) as u64 }
}

/// The set of size `k` with colex rank `r`.
#[inline]
pub fn unrank(r: u64, k: usize) -> Bits {
    unrank_below(r, k, 24)
}

/// [`unrank`] for a rank below `C(n, k)`, whose set lies in the `n` lowest points.
///
/// Each point is the largest `p` with `C(p, j) <= r`, found by walking down from the
/// point above; the first walk starts at `n` rather than 24, which saves a step per
/// point not free (an index's second set is drawn from the 13 to 21 points the first
/// leaves). A branch-free count over the row of `C(p, j)` was tried instead: it is a
/// chain of dependent loads and sums, and `index/unindex` took 1.5 to 3 times as long.
#[inline]
pub fn unrank_below(mut r: u64, k: usize, n: usize) -> Bits {
    debug_assert!(n <= 24 && r < BINOM[n][k].max(1));
    let mut x = 0;
    let mut p = n.saturating_sub(1);
    for j in (1..=k).rev() {
        // largest p with C(p, j) <= r
        while BINOM[p][j] > r {
            p -= 1;
        }
        x |= 1 << p;
        r -= BINOM[p][j];
        p = p.saturating_sub(1);
    }
    debug_assert_eq!(r, 0);
    x
}

/// How to gather and scatter bits: with the BMI2 instructions or with byte tables,
/// chosen once by `cpu::fast_pext`. A `SubspaceIndex` keeps one, so that its hot paths
/// test a field next to the others they read, not a global at every call (which cost
/// 4% in the index bench).
#[derive(Clone, Copy, Debug)]
pub struct BitOps {
    /// Only true where the processor has BMI2.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    instructions: bool,
}

impl BitOps {
    /// The processor's choice (see `cpu`), read once so that hot loops test a local flag.
    #[inline(always)]
    pub fn detect() -> BitOps {
        BitOps { instructions: cfg!(target_arch = "x86_64") && crate::cpu::fast_pext() }
    }

    /// Gathers the bits of `v` selected by `mask` into the low bits.
    #[inline(always)]
    pub fn pext(self, v: Bits, mask: Bits) -> Bits {
        #[cfg(target_arch = "x86_64")]
        if self.instructions {
            return bmi2_asm::pext(v, mask);
        }
        pext_fallback(v, mask)
    }

    /// Scatters the low bits of `v` to the positions selected by `mask`.
    #[inline(always)]
    pub fn pdep(self, v: Bits, mask: Bits) -> Bits {
        #[cfg(target_arch = "x86_64")]
        if self.instructions {
            return bmi2_asm::pdep(v, mask);
        }
        pdep_fallback(v, mask)
    }
}

/// `BitOps::pext` with the choice read now.
#[inline(always)]
pub fn pext(v: Bits, mask: Bits) -> Bits {
    BitOps::detect().pext(v, mask)
}

/// `BitOps::pdep` with the choice read now.
#[inline(always)]
pub fn pdep(v: Bits, mask: Bits) -> Bits {
    BitOps::detect().pdep(v, mask)
}

/// The instructions as inline assembly, to be called only where the processor has
/// BMI2. The `_pext_u32` intrinsic is inlined only into functions compiled with BMI2,
/// and elsewhere costs a call; assembly needs no such attribute, so `pext` is one
/// instruction in every caller (probes and benches included), not only inside `fast!`.
#[cfg(target_arch = "x86_64")]
mod bmi2_asm {
    use crate::rules::geometry::Bits;
    use std::arch::asm;

    #[inline(always)]
    pub fn pext(v: Bits, mask: Bits) -> Bits {
        let out: Bits;
        // SAFETY: the processor has BMI2 (`BitOps::instructions`); the instruction
        // reads and writes registers only, and leaves the flags alone.
        unsafe { asm!("pext {0:e}, {1:e}, {2:e}", lateout(reg) out, in(reg) v, in(reg) mask, options(pure, nomem, nostack, preserves_flags)) };
        out
    }

    #[inline(always)]
    pub fn pdep(v: Bits, mask: Bits) -> Bits {
        let out: Bits;
        // SAFETY: as in `pext`.
        unsafe { asm!("pdep {0:e}, {1:e}, {2:e}", lateout(reg) out, in(reg) v, in(reg) mask, options(pure, nomem, nostack, preserves_flags)) };
        out
    }
}

/// The tables out of line: inlined, they would make every caller of `pext` too big to
/// be inlined in turn, on the processors that never run them as well.
#[inline(never)]
fn pext_fallback(v: Bits, mask: Bits) -> Bits {
    pext_table(v, mask)
}

#[inline(never)]
fn pdep_fallback(v: Bits, mask: Bits) -> Bits {
    pdep_table(v, mask)
}

/// One byte of `pext` (`deposit` false: the bits of `v` selected by `mask`, gathered)
/// or of `pdep` (`deposit` true: the low bits of `v` spread over the bits of `mask`),
/// for every byte `mask` and `v`.
const fn byte_table(deposit: bool) -> [[u8; 256]; 256] {
    let mut t = [[0u8; 256]; 256];
    let mut m = 0;
    while m < 256 {
        let mut v = 0;
        while v < 256 {
            let (mut out, mut bit, mut k) = (0u8, 0, 0);
            while k < 8 {
                if m >> k & 1 != 0 {
                    let (from, to) = if deposit { (bit, k) } else { (k, bit) };
                    if v >> from & 1 != 0 {
                        out |= 1 << to;
                    }
                    bit += 1;
                }
                k += 1;
            }
            t[m][v] = out;
            v += 1;
        }
        m += 1;
    }
    t
}

/// `PEXT8[mask][v]`: the bits of the byte `v` selected by the byte `mask`, gathered.
static PEXT8: [[u8; 256]; 256] = byte_table(false);

/// `PDEP8[mask][v]`: the low bits of the byte `v` spread over the bits of the byte `mask`.
static PDEP8: [[u8; 256]; 256] = byte_table(true);

/// `pext` by three byte-table lookups: for processors without BMI2, or where `pext`
/// is microcoded and slow (AMD Zen 1 and 2).
#[inline(always)]
pub fn pext_table(v: Bits, mask: Bits) -> Bits {
    let (m0, m1, m2) = ((mask & 0xff) as usize, (mask >> 8 & 0xff) as usize, (mask >> 16 & 0xff) as usize);
    let r0 = PEXT8[m0][(v & 0xff) as usize] as Bits;
    let r1 = PEXT8[m1][(v >> 8 & 0xff) as usize] as Bits;
    let r2 = PEXT8[m2][(v >> 16 & 0xff) as usize] as Bits;
    let (n0, n1) = ((mask & 0xff).count_ones(), (mask & 0xffff).count_ones());
    r0 | r1 << n0 | r2 << n1
}

/// `pdep` by three byte-table lookups, for the same processors as `pext_table`.
#[inline(always)]
pub fn pdep_table(v: Bits, mask: Bits) -> Bits {
    let (m0, m1, m2) = ((mask & 0xff) as usize, (mask >> 8 & 0xff) as usize, (mask >> 16 & 0xff) as usize);
    let (n0, n1) = ((mask & 0xff).count_ones(), (mask & 0xffff).count_ones());
    let r0 = PDEP8[m0][(v & 0xff) as usize] as Bits;
    let r1 = PDEP8[m1][(v >> n0 & 0xff) as usize] as Bits;
    let r2 = PDEP8[m2][(v >> n1 & 0xff) as usize] as Bits;
    r0 | r1 << 8 | r2 << 16
}

#[cfg(test)]
fn pext_soft(v: Bits, mut mask: Bits) -> Bits {
    let mut out = 0;
    let mut bit = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if v & low != 0 {
            out |= 1 << bit;
        }
        bit += 1;
        mask &= mask - 1;
    }
    out
}

#[cfg(test)]
fn pdep_soft(v: Bits, mut mask: Bits) -> Bits {
    let mut out = 0;
    let mut bit = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if v >> bit & 1 != 0 {
            out |= low;
        }
        bit += 1;
        mask &= mask - 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_is_a_bijection_onto_0_to_binom() {
        for k in 0..=6usize {
            let mut seen = vec![false; binom(16, k) as usize];
            for x in 0u32..(1 << 16) {
                if x.count_ones() as usize == k {
                    let r = rank(x) as usize;
                    assert!(!seen[r]);
                    seen[r] = true;
                    assert_eq!(unrank(r as u64, k), x);
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    /// Every rank of every size, against the rank of the set it gives: the walk that
    /// starts below 24 must give the same set as the one from 24.
    #[test]
    fn unrank_below_n_is_the_set_of_that_rank_in_the_n_lowest_points() {
        for n in 0..=24usize {
            for k in 0..=n.min(12) {
                let count = binom(n, k);
                let step = (count / 5000).max(1);
                let mut r = 0;
                while r < count {
                    let x = unrank_below(r, k, n);
                    assert_eq!(x.count_ones() as usize, k, "n {n} k {k} r {r}");
                    assert!(n == 24 || x >> n == 0, "n {n} k {k} r {r}: {x:#x}");
                    assert_eq!(rank(x), r, "n {n} k {k}");
                    r += step;
                }
                if count > 0 {
                    assert_eq!(rank(unrank_below(count - 1, k, n)), count - 1);
                }
            }
        }
    }

    #[test]
    fn rank_of_high_sets() {
        let top9: Bits = 0xff8000; // bits 15..=23
        assert_eq!(rank(top9), binom(24, 9) - 1);
        assert_eq!(unrank(binom(24, 9) - 1, 9), top9);
    }

    #[test]
    fn pext_pdep_match_soft() {
        let mut x = 0x9e3779b9u32;
        for _ in 0..10000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let (v, m) = (x & 0xffffff, x.rotate_left(7) & 0xffffff);
            assert_eq!(pext(v, m), pext_soft(v, m));
            assert_eq!(pext_table(v, m), pext_soft(v, m));
            assert_eq!(pdep(v, m), pdep_soft(v, m));
            assert_eq!(pdep_table(v, m), pdep_soft(v, m));
            assert_eq!(pdep(pext(v, m), m), v & m);
        }
    }
}
