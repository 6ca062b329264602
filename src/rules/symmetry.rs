//! The 16 board symmetries: the 8 symmetries of the square, each with or without
//! swapping the inner and outer squares.
//!
//! Symmetry `g` (0..16) is `rot = g & 3` quarter turns after an optional mirror
//! (`g & 4`), then an optional inner/outer swap (`g & 8`). Applying one to a bitboard
//! costs three byte-table lookups, because each symmetry maps whole rings to rings.

use crate::rules::geometry::{Bits, MAX_POINTS as POINTS};

/// Number of board symmetries; symmetry `0` is the identity.
pub const COUNT: usize = 16;

/// Where symmetry `g` sends point `p`.
pub const fn map_point(g: usize, p: usize) -> usize {
    let (mut r, mut k) = (p / 8, p % 8);
    if g & 4 != 0 {
        k = (10 - k) % 8;
    }
    k = (k + 2 * (g & 3)) % 8;
    if g & 8 != 0 {
        r = 2 - r;
    }
    8 * r + k
}

/// `BYTES[g][ring][v]`: the image under `g` of the stones `v` of one ring.
const fn build_bytes() -> [[[Bits; 256]; 3]; COUNT] {
    let mut t = [[[0; 256]; 3]; COUNT];
    let mut g = 0;
    while g < COUNT {
        let mut b = 0;
        while b < 3 {
            let mut v = 0;
            while v < 256 {
                let mut out = 0;
                let mut i = 0;
                while i < 8 {
                    if v >> i & 1 != 0 {
                        out |= 1 << map_point(g, 8 * b + i);
                    }
                    i += 1;
                }
                t[g][b][v] = out;
                v += 1;
            }
            b += 1;
        }
        g += 1;
    }
    t
}

/// Built at compile time: the index applies a symmetry to every child of every
/// position, and a lazily built table cost a `OnceLock` check at each of those calls.
static BYTES: [[[Bits; 256]; 3]; COUNT] = build_bytes();

/// Whether `c` and `a ∘ b` move every point alike.
const fn is_composition(c: usize, a: usize, b: usize) -> bool {
    let mut p = 0;
    while p < POINTS {
        if map_point(c, p) != map_point(a, map_point(b, p)) {
            return false;
        }
        p += 1;
    }
    true
}

/// `COMPOSE[a][b]` is `a ∘ b`.
const fn build_compose() -> [[u8; COUNT]; COUNT] {
    let mut t = [[0u8; COUNT]; COUNT];
    let mut a = 0;
    while a < COUNT {
        let mut b = 0;
        while b < COUNT {
            let mut c = 0;
            while !is_composition(c, a, b) {
                c += 1; // the group is closed: some `c < COUNT` matches
            }
            t[a][b] = c as u8;
            b += 1;
        }
        a += 1;
    }
    t
}

static COMPOSE: [[u8; COUNT]; COUNT] = build_compose();

/// One symmetry's lookup tables: the images of each ring's 256 stone patterns.
pub type Table = [[Bits; 256]; 3];

/// The tables of symmetry `g`, which must be below `COUNT`: for a caller that applies
/// one symmetry to many sets (the index's children of one position), so that each
/// application is the three lookups alone.
///
/// `g` is taken modulo `COUNT` rather than bounds-checked: callers pass a symmetry
/// from a table or a stabiliser's bits, which the compiler cannot see are in range, and
/// the check cost a compare and a branch on every child of every position.
#[inline(always)]
pub fn table(g: usize) -> &'static Table {
    debug_assert!(g < COUNT, "symmetry {g}");
    &BYTES[g % COUNT]
}

/// Applies the symmetry whose tables are `t` to a bitboard.
#[inline(always)]
pub fn apply_table(t: &Table, x: Bits) -> Bits {
    t[0][x as u8 as usize] | t[1][(x >> 8) as u8 as usize] | t[2][(x >> 16) as u8 as usize]
}

/// Applies symmetry `g` to a bitboard; `g` must be below `COUNT` (see [`table`]).
#[inline(always)]
pub fn apply(g: usize, x: Bits) -> Bits {
    apply_table(table(g), x)
}

/// The symmetry `a ∘ b` (apply `b`, then `a`).
pub fn compose(a: usize, b: usize) -> usize {
    COMPOSE[a][b] as usize
}

/// The symmetry that undoes `g`: `compose(inverse(g), g) == 0`.
pub fn inverse(g: usize) -> usize {
    COMPOSE[g].iter().position(|&c| c == 0).expect("every symmetry has an inverse")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each board's edges and mills are kept by every symmetry (tested in `board`).
    #[test]
    fn symmetries_are_distinct_permutations() {
        let mut images = std::collections::HashSet::new();
        for g in 0..COUNT {
            let img: Vec<usize> = (0..POINTS).map(|p| map_point(g, p)).collect();
            assert_eq!(img.iter().copied().collect::<std::collections::BTreeSet<_>>().len(), POINTS);
            assert!(images.insert(img));
        }
    }

    #[test]
    fn group_laws() {
        for a in 0..COUNT {
            assert_eq!(compose(a, 0), a);
            assert_eq!(compose(0, a), a);
            assert_eq!(compose(a, inverse(a)), 0);
            for b in 0..COUNT {
                for c in 0..COUNT {
                    assert_eq!(compose(compose(a, b), c), compose(a, compose(b, c)));
                }
                for x in [0x123456u32, 0xfff, 0x800001, 0xabcdef] {
                    assert_eq!(apply(a, apply(b, x)), apply(compose(a, b), x));
                }
            }
        }
    }
}
