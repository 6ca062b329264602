//! Dense indexing of the raw positions of one sector (no symmetry).
//!
//! A sector `(s, o, sh, oh)` holds every placement of `s` mover stones and
//! `o` opponent stones on the board's `N` points. Its index is
//! `colex(mover) * C(N - s, o) + colex(opp squeezed onto the N - s points
//! the mover leaves free)`. Colex rank of a k-bit mask = its position among
//! the k-bit masks in increasing numeric order.

const fn binom_table() -> [[u64; 33]; 33] {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n < 33 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}
pub const BINOM: [[u64; 33]; 33] = binom_table();

pub fn binom(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Iterator over the set bits of a mask, lowest first.
pub fn bits(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(i)
        }
    })
}

/// Colex rank of a mask among the masks with as many bits.
#[inline]
pub fn colex_rank(mask: u32) -> u64 {
    let mut r = 0;
    let mut x = mask;
    let mut i = 1;
    while x != 0 {
        r += BINOM[x.trailing_zeros() as usize][i];
        i += 1;
        x &= x - 1;
    }
    r
}

/// All `nbits`-bit masks with exactly `k` bits set, in increasing (= colex)
/// order. (Gosper's hack steps to the next larger mask with as many bits.)
pub fn masks_with(nbits: u32, k: u32) -> Vec<u32> {
    if k > nbits {
        return Vec::new();
    }
    if k == 0 {
        return vec![0];
    }
    let mut out = Vec::with_capacity(binom(nbits, k) as usize);
    let mut m: u64 = (1 << k) - 1;
    while m < 1 << nbits {
        out.push(m as u32);
        let low = m & m.wrapping_neg();
        let r = m + low;
        m = (((r ^ m) >> 2) / low) | r;
    }
    debug_assert_eq!(out.len() as u64, binom(nbits, k));
    out
}

/// Squeeze `mask` (a subset of `free`) onto bit positions 0..|free|.
#[inline]
pub fn compress(mask: u32, free: u32) -> u32 {
    debug_assert!(mask & !free == 0);
    let mut out = 0;
    let mut x = mask;
    while x != 0 {
        let q = x.trailing_zeros();
        out |= 1 << (free & ((1u32 << q) - 1)).count_ones();
        x &= x - 1;
    }
    out
}

/// Inverse of `compress`: bit j of `c` selects the j-th point of `free`.
pub fn expand(c: u32, free: u32) -> u32 {
    let mut out = 0;
    for (j, q) in bits(free).enumerate() {
        if c & (1 << j) != 0 {
            out |= 1 << q;
        }
    }
    out
}

/// Number of raw positions of a sector with `s` and `o` stones on `n` points.
pub fn sector_len(n: u32, s: u32, o: u32) -> usize {
    (binom(n, s) * binom(n - s, o)) as usize
}

/// Index of (mover, opp) in its sector on an `n`-point board.
#[inline]
pub fn raw_index(n: u32, mover: u32, opp: u32) -> usize {
    raw_index_so(n, mover.count_ones(), opp.count_ones(), mover, opp)
}

/// `raw_index` for a mover of `s` stones and an opponent of `o` stones:
/// `colex(mover) * C(n - s, o) + colex(compress(opp, !mover))`, with the
/// squeeze written into the second sum (the hot path of the solver): the
/// opponent stone on point q lands on bit q - |mover below q|.
#[inline(always)]
pub fn raw_index_so(n: u32, s: u32, o: u32, mover: u32, opp: u32) -> usize {
    debug_assert_eq!(mover & opp, 0);
    debug_assert_eq!((mover.count_ones(), opp.count_ones()), (s, o));
    let mut major = 0u64;
    let mut x = mover;
    let mut i = 1;
    while x != 0 {
        major += BINOM[x.trailing_zeros() as usize][i];
        i += 1;
        x &= x - 1;
    }
    let mut minor = 0u64;
    let mut x = opp;
    let mut i = 1;
    while x != 0 {
        let q = x.trailing_zeros();
        let j = q - (mover & ((1u32 << q) - 1)).count_ones();
        minor += BINOM[j as usize][i];
        i += 1;
        x &= x - 1;
    }
    (major * BINOM[(n - s) as usize][o as usize] + minor) as usize
}

/// `raw_index` for many positions with the same mover, e.g. the children
/// of one position by moves without removal (their side to move is the
/// position's opponent): the mover's colex rank and, for every point, its
/// rank among the points the mover leaves free, computed once.
pub struct SameMover {
    pub mover: u32,
    /// stones of the mover
    pub s: u32,
    colex: u64,
    free_rank: [u8; 32],
}

impl SameMover {
    pub fn new(mover: u32) -> SameMover {
        let mut free_rank = [0u8; 32];
        let mut r = 0;
        for (q, slot) in free_rank.iter_mut().enumerate() {
            *slot = r;
            if mover & (1 << q) == 0 {
                r += 1;
            }
        }
        SameMover { mover, s: mover.count_ones(), colex: colex_rank(mover), free_rank }
    }

    /// `raw_index(n, self.mover, opp)`.
    #[inline(always)]
    pub fn index(&self, n: u32, opp: u32) -> usize {
        debug_assert_eq!(self.mover & opp, 0);
        let mut minor = 0u64;
        let mut x = opp;
        let mut i = 1;
        while x != 0 {
            minor += BINOM[self.free_rank[x.trailing_zeros() as usize] as usize][i];
            i += 1;
            x &= x - 1;
        }
        let o = i - 1;
        let idx = (self.colex * BINOM[(n - self.s) as usize][o] + minor) as usize;
        debug_assert_eq!(idx, raw_index(n, self.mover, opp));
        idx
    }
}

/// Inverse of `raw_index` for a sector with `s` and `o` stones.
pub fn raw_unindex(n: u32, s: u32, o: u32, idx: usize, movers: &[u32], minors: &[u32]) -> (u32, u32) {
    debug_assert_eq!(movers.len() as u64, binom(n, s));
    debug_assert_eq!(minors.len() as u64, binom(n - s, o));
    let m = movers[idx / minors.len()];
    let full = (1u32 << n) - 1;
    (m, expand(minors[idx % minors.len()], full & !m))
}
