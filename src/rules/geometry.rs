//! Board geometry: the 24 points, their adjacency and the 16 mills.
//!
//! Points are numbered `p = 8 * ring + k`, ring 0 the outer square, 1 the middle and
//! 2 the inner; `k` runs clockwise from the top-left corner, so even `k` are corners
//! and odd `k` are side midpoints. With this layout every board symmetry acts on a
//! bitboard byte by byte (rotations are byte rotations, the inner/outer swap is a
//! byte swap), which keeps `symmetry` table-driven and cheap.

/// A set of points, one bit per point (bit `p`), 24 bits used.
pub type Bits = u32;

/// Points on the board.
pub const POINTS: usize = 24;
/// Every point: the bits a valid bitboard may use.
pub const FULL: Bits = (1 << POINTS) - 1;

/// Algebraic names by internal point number: `NAMES[p]` is the name of bit `p`.
pub const NAMES: [&str; POINTS] = [
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4", // outer
    "b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4", // middle
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4", // inner
];

/// The reading order of the position notation (`docs/rules.md`), as internal point numbers.
pub const READING_ORDER: [u8; POINTS] = {
    const ORDER: [&str; POINTS] = [
        "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4",
        "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
    ];
    let mut out = [0u8; POINTS];
    let mut i = 0;
    while i < POINTS {
        let mut p = 0;
        while p < POINTS {
            if str_eq(ORDER[i], NAMES[p]) {
                out[i] = p as u8;
            }
            p += 1;
        }
        i += 1;
    }
    out
};

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a[0] == b[0] && a[1] == b[1]
}

/// Looks up a point by its algebraic name (`"d7"`), case-insensitively: the internal
/// point number, the bit of the point in a [`Bits`].
///
/// ```rust
/// use morris::rules::geometry::{point_by_name, NAMES};
///
/// let p = point_by_name("D7").unwrap();
/// assert_eq!(NAMES[p], "d7");
/// assert_eq!(point_by_name("d4"), None, "the centre is not a point");
/// ```
pub fn point_by_name(name: &str) -> Option<usize> {
    let lower = name.trim().to_ascii_lowercase();
    NAMES.iter().position(|n| *n == lower)
}

const fn build_adjacency() -> [Bits; POINTS] {
    let mut adj = [0 as Bits; POINTS];
    let mut r = 0;
    while r < 3 {
        let mut k = 0;
        while k < 8 {
            let p = 8 * r + k;
            adj[p] |= 1 << (8 * r + (k + 1) % 8);
            adj[p] |= 1 << (8 * r + (k + 7) % 8);
            if k % 2 == 1 {
                if r > 0 {
                    adj[p] |= 1 << (p - 8);
                }
                if r < 2 {
                    adj[p] |= 1 << (p + 8);
                }
            }
            k += 1;
        }
        r += 1;
    }
    adj
}

/// Neighbours of each point along the board's lines.
pub const ADJ: [Bits; POINTS] = build_adjacency();

const fn build_mills() -> [Bits; 16] {
    let mut mills = [0 as Bits; 16];
    let mut n = 0;
    let mut r = 0;
    while r < 3 {
        let mut k = 0;
        while k < 8 {
            mills[n] = (1 << (8 * r + k)) | (1 << (8 * r + k + 1)) | (1 << (8 * r + (k + 2) % 8));
            n += 1;
            k += 2;
        }
        r += 1;
    }
    let mut k = 1;
    while k < 8 {
        mills[n] = (1 << k) | (1 << (8 + k)) | (1 << (16 + k));
        n += 1;
        k += 2;
    }
    mills
}

/// The 16 mills as point sets.
pub const MILLS: [Bits; 16] = build_mills();

const fn build_point_mills() -> [[Bits; 2]; POINTS] {
    let mut out = [[0 as Bits; 2]; POINTS];
    let mut count = [0usize; POINTS];
    let mut m = 0;
    while m < 16 {
        let mut p = 0;
        while p < POINTS {
            if MILLS[m] & (1 << p) != 0 {
                out[p][count[p]] = MILLS[m];
                count[p] += 1;
            }
            p += 1;
        }
        m += 1;
    }
    out
}

/// The two mills through each point (every point lies on exactly two).
pub const POINT_MILLS: [[Bits; 2]; POINTS] = build_point_mills();

/// Whether the stones `own` (which include `p`) complete a mill through `p`.
#[inline(always)]
pub fn closes_mill(own: Bits, p: usize) -> bool {
    let [m1, m2] = POINT_MILLS[p];
    own & m1 == m1 || own & m2 == m2
}

/// The stones of `own` that stand in at least one complete mill.
#[inline]
pub fn stones_in_mills(own: Bits) -> Bits {
    let mut out = 0;
    for &m in MILLS.iter() {
        if own & m == m {
            out |= m;
        }
    }
    out
}

/// The opponent stones that a capture may remove: those outside mills, or any
/// stone when all of them stand in mills.
///
/// Empty when the opponent has no stone on the board (it still has stones in hand).
/// The rule for that case, decided here once for every move generator (movement,
/// placement, the search, the brute-force checks in the tests): the move that closes
/// the mill is legal and removes nothing, as there is nothing to remove. A mill is
/// a capture only where a stone is actually taken. This case occurs only in placement
/// positions, never in the movement phase, where each side has at least 3 stones.
#[inline]
pub fn removable(opp: Bits) -> Bits {
    let free = opp & !stones_in_mills(opp);
    if free == 0 {
        opp
    } else {
        free
    }
}

/// Iterates over the set bits of a bitboard, lowest first.
#[derive(Clone, Copy)]
pub struct BitIter(pub Bits);

impl Iterator for BitIter {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            let p = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            Some(p)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_has_32_edges_and_16_mills() {
        let degree_sum: u32 = ADJ.iter().map(|a| a.count_ones()).sum();
        assert_eq!(degree_sum, 64);
        for p in 0..POINTS {
            for q in BitIter(ADJ[p]) {
                assert!(ADJ[q] & (1 << p) != 0, "adjacency is symmetric");
            }
        }
        assert_eq!(MILLS.iter().filter(|m| m.count_ones() == 3).count(), 16);
        let mut seen = std::collections::HashSet::new();
        assert!(MILLS.iter().all(|m| seen.insert(*m)));
    }

    #[test]
    fn named_mills_from_rules() {
        let set = |names: &[&str]| names.iter().map(|n| 1 << point_by_name(n).unwrap()).sum::<Bits>();
        for mill in [["a1", "d1", "g1"], ["a4", "b4", "c4"], ["d5", "d6", "d7"], ["a7", "a4", "a1"]] {
            assert!(MILLS.contains(&set(&mill)), "{mill:?}");
        }
        assert!(!MILLS.contains(&set(&["a7", "b6", "c5"])), "diagonals are not mills");
        assert!(ADJ[point_by_name("d7").unwrap()] & set(&["d6"]) != 0);
        assert!(ADJ[point_by_name("a7").unwrap()] & set(&["b6"]) == 0, "no diagonal edges");
    }

    #[test]
    fn reading_order_is_a_permutation() {
        let mut seen = 0u32;
        for &p in READING_ORDER.iter() {
            seen |= 1 << p;
        }
        assert_eq!(seen, FULL);
        assert_eq!(NAMES[READING_ORDER[0] as usize], "a7");
        assert_eq!(NAMES[READING_ORDER[23] as usize], "g1");
        assert_eq!(NAMES[READING_ORDER[9] as usize], "a4");
    }
}
