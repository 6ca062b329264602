//! The 16 board symmetries: the 8 symmetries of the square, each with or without
//! swapping the inner and outer squares.
//!
//! Symmetry `g` (0..16) is `rot = g & 3` quarter turns after an optional mirror
//! (`g & 4`), then an optional inner/outer swap (`g & 8`). Applying one to a bitboard
//! costs three byte-table lookups, because each symmetry maps whole rings to rings.

use crate::rules::geometry::{Bits, MAX_POINTS as POINTS};
use std::sync::OnceLock;

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

struct Tables {
    bytes: [[[Bits; 256]; 3]; COUNT],
    compose: [[u8; COUNT]; COUNT],
    inverse: [u8; COUNT],
}

fn tables() -> &'static Tables {
    static T: OnceLock<Box<Tables>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new(Tables { bytes: [[[0; 256]; 3]; COUNT], compose: [[0; COUNT]; COUNT], inverse: [0; COUNT] });
        for g in 0..COUNT {
            for b in 0..3 {
                for v in 0..256usize {
                    let mut out = 0;
                    for i in 0..8 {
                        if v >> i & 1 != 0 {
                            out |= 1 << map_point(g, 8 * b + i);
                        }
                    }
                    t.bytes[g][b][v] = out;
                }
            }
        }
        let perm = |g: usize| -> [usize; POINTS] { std::array::from_fn(|p| map_point(g, p)) };
        for a in 0..COUNT {
            for b in 0..COUNT {
                // compose[a][b] = a after b
                let (pa, pb) = (perm(a), perm(b));
                let target: [usize; POINTS] = std::array::from_fn(|p| pa[pb[p]]);
                let c = (0..COUNT).find(|&c| perm(c) == target).expect("group is closed");
                t.compose[a][b] = c as u8;
                if c == 0 {
                    t.inverse[b] = a as u8;
                }
            }
        }
        t
    })
}

/// Applies symmetry `g` to a bitboard. Panics unless `g < COUNT`.
#[inline(always)]
pub fn apply(g: usize, x: Bits) -> Bits {
    let t = &tables().bytes[g];
    t[0][(x & 0xff) as usize] | t[1][(x >> 8 & 0xff) as usize] | t[2][(x >> 16) as usize]
}

/// The symmetry `a ∘ b` (apply `b`, then `a`).
pub fn compose(a: usize, b: usize) -> usize {
    tables().compose[a][b] as usize
}

/// The symmetry that undoes `g`: `compose(inverse(g), g) == 0`.
pub fn inverse(g: usize) -> usize {
    tables().inverse[g] as usize
}

/// Forces the lookup tables to be built (so benches do not time the first call).
pub fn warm_up() {
    let _ = tables();
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
