//! The boards of the Morris family as data, derived from coordinates: points, names,
//! the notation's reading order, edges, mills and the 16 symmetries.
//!
//! Every board is concentric squares of 8 points (`docs/rules.md`), so a point is
//! numbered `8 * ring + k` as on the standard board (`geometry`): ring 0 the outer
//! square, `k` clockwise from the top-left corner, even `k` the corners and odd `k`
//! the side midpoints. The two squares of `six` are rings 0 and 2 (ring 1 unused):
//! the standard board's 16 symmetries, which swap rings 0 and 2 and keep ring 1,
//! are then exactly those of `six`, so one symmetry table and one index serve every
//! board. One construction then serves all three boards: the sides of
//! each square are its mills, the midpoints of neighbouring squares are joined (and
//! with diagonals, the corners too), and a symmetry acts on `k` as the square's
//! symmetry does and on the ring as the inner/outer swap does. For the standard board
//! this gives exactly the constants of `geometry` and `symmetry` (tested), which is
//! what lets the engine move from those constants to these tables.

use crate::rules::Board;
use std::sync::OnceLock;

/// One board's points, lines and symmetries.
#[derive(Debug)]
pub struct Geometry {
    /// The board.
    pub board: Board,
    /// Points: 24 or 16.
    pub points: usize,
    /// Squares: 3 or 2.
    pub rings: usize,
    /// The internal points in use: all 24 bits, or rings 0 and 2 on `six`.
    pub mask: u32,
    /// Algebraic name of each internal point (`8 * ring + k`); empty for the unused
    /// ring 1 of `six`.
    pub names: Vec<String>,
    /// The notation's reading order (rows from the top, left to right) as internal
    /// point numbers: character `i` of a board string is point `reading[i]`.
    pub reading: Vec<u8>,
    /// Neighbours of each internal point, as bits (24 entries).
    pub adj: Vec<u32>,
    /// Every edge once, `(p, q)` with `p < q`.
    pub edges: Vec<(u8, u8)>,
    /// The mills, as point sets.
    pub mills: Vec<u32>,
    /// The 16 symmetries as permutations of the 24 internal points: point `p` goes to
    /// `symmetries[g][p]`. Symmetry 0 is the identity.
    pub symmetries: Vec<Vec<u8>>,
}

/// The 8 symmetries of the square on `k`: four rotations, each with or without the
/// mirror `k -> 2 - k` (left and right swapped).
fn square_symmetry(s: usize, k: usize) -> usize {
    let rotated = (k + 2 * (s % 4)) % 8;
    if s >= 4 {
        (10 - rotated) % 8
    } else {
        rotated
    }
}

impl Geometry {
    fn build(board: Board) -> Geometry {
        let rings = board.points() as usize / 8;
        // The internal rings in use, outermost first.
        let used: Vec<usize> = if rings == 3 { vec![0, 1, 2] } else { vec![0, 2] };
        let mask: u32 = used.iter().map(|&r| 0xffu32 << (8 * r)).sum();
        let points = 8 * rings;
        // Coordinates: column and row from 0, centre at (rings, rings).
        let coord = |p: usize| -> (i32, i32) {
            let (r, k) = (p / 8, p % 8);
            let depth = used.iter().position(|&u| u == r).expect("a point of the board");
            let h = (rings - depth) as i32;
            let (dx, dy) = [(-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0)][k];
            (rings as i32 + dx * h, rings as i32 + dy * h)
        };
        let on = |p: usize| mask >> p & 1 != 0;
        let names: Vec<String> = (0..24).map(|p| {
            if !on(p) {
                return String::new();
            }
            let (x, y) = coord(p);
            format!("{}{}", (b'a' + x as u8) as char, y + 1)
        }).collect();
        let mut reading: Vec<u8> = (0..24u8).filter(|&p| on(p as usize)).collect();
        reading.sort_by_key(|&p| {
            let (x, y) = coord(p as usize);
            (-y, x)
        });
        let mut edges = vec![];
        for (i, &r) in used.iter().enumerate() {
            for k in 0..8 {
                edges.push((8 * r + k, 8 * r + (k + 1) % 8));
                let joined = k % 2 == 1 || board == Board::NineDiagonal;
                if let Some(&next) = used.get(i + 1) {
                    if joined {
                        edges.push((8 * r + k, 8 * next + k));
                    }
                }
            }
        }
        let edges: Vec<(u8, u8)> = edges.into_iter().map(|(p, q)| (p.min(q) as u8, p.max(q) as u8)).collect();
        let mut adj = vec![0u32; 24];
        for &(p, q) in &edges {
            adj[p as usize] |= 1 << q;
            adj[q as usize] |= 1 << p;
        }
        let mut mills = vec![];
        for &r in &used {
            for k in (0..8).step_by(2) {
                mills.push((1u32 << (8 * r + k)) | 1 << (8 * r + k + 1) | 1 << (8 * r + (k + 2) % 8));
            }
        }
        // Lines across the squares: through the midpoints, and with diagonals through
        // the corners; a line of 2 points (the `six` board) is no mill.
        if rings == 3 {
            for k in 0..8 {
                if k % 2 == 1 || board == Board::NineDiagonal {
                    mills.push((0..3).map(|r| 1u32 << (8 * r + k)).sum());
                }
            }
        }
        let symmetries = (0..16)
            .map(|g| {
                (0..24)
                    .map(|p| {
                        let (r, k) = (p / 8, p % 8);
                        let r = if g >= 8 { 2 - r } else { r };
                        (8 * r + square_symmetry(g % 8, k)) as u8
                    })
                    .collect()
            })
            .collect();
        Geometry { board, points, rings, mask, names, reading, adj, edges, mills, symmetries }
    }

    /// The internal point of an algebraic name (case-insensitive), if the board has it.
    pub fn point(&self, name: &str) -> Option<usize> {
        let lower = name.trim().to_ascii_lowercase();
        self.names.iter().position(|n| !n.is_empty() && *n == lower)
    }

    /// The image of the point set `x` under symmetry `g`.
    pub fn apply(&self, g: usize, x: u32) -> u32 {
        (0..24).filter(|&p| x >> p & 1 != 0).map(|p| 1u32 << self.symmetries[g][p]).sum()
    }
}

impl Board {
    /// The board's geometry, built once.
    pub fn geometry(self) -> &'static Geometry {
        static CELLS: [OnceLock<Geometry>; 3] = [const { OnceLock::new() }; 3];
        let i = Board::ALL.iter().position(|&b| b == self).expect("every board is in ALL");
        CELLS[i].get_or_init(|| Geometry::build(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn counts_are_those_of_variants_md() {
        for (board, points, edges, mills) in [(Board::Nine, 24, 32, 16), (Board::NineDiagonal, 24, 40, 20), (Board::Six, 16, 20, 8)] {
            let g = board.geometry();
            assert_eq!((g.points, g.edges.len(), g.mills.len()), (points, edges, mills), "{board:?}");
            assert_eq!(g.reading.iter().copied().collect::<BTreeSet<u8>>().len(), points, "{board:?}: reading order is a permutation");
            assert!(g.mills.iter().all(|m| m.count_ones() == 3));
            // A mill is a line: its three points are joined by two edges.
            for &m in &g.mills {
                let joined = g.edges.iter().filter(|&&(p, q)| m >> p & 1 != 0 && m >> q & 1 != 0).count();
                assert_eq!(joined, 2, "{board:?}: mill {m:b}");
            }
        }
        let six = Board::Six.geometry();
        let reading: Vec<&str> = six.reading.iter().map(|&p| six.names[p as usize].as_str()).collect();
        assert_eq!(reading.join(" "), "a5 c5 e5 b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1", "the board string order of docs/rules.md");
        let diagonal = Board::NineDiagonal.geometry();
        for line in [["a7", "b6", "c5"], ["g7", "f6", "e5"], ["g1", "f2", "e3"], ["a1", "b2", "c3"]] {
            let m: u32 = line.iter().map(|n| 1u32 << diagonal.point(n).unwrap()).sum();
            assert!(diagonal.mills.contains(&m), "{line:?} is a mill");
            assert!(!Board::Nine.geometry().mills.contains(&m));
        }
    }

    #[test]
    fn symmetries_are_sixteen_distinct_automorphisms() {
        for board in Board::ALL {
            let g = board.geometry();
            let distinct: BTreeSet<&Vec<u8>> = g.symmetries.iter().collect();
            assert_eq!(distinct.len(), 16, "{board:?}");
            assert!(g.symmetries[0].iter().enumerate().all(|(p, &q)| p == q as usize), "symmetry 0 is the identity");
            let edges: BTreeSet<(u8, u8)> = g.edges.iter().copied().collect();
            let mills: BTreeSet<u32> = g.mills.iter().copied().collect();
            for s in 0..16 {
                let image: BTreeSet<(u8, u8)> = g.edges.iter().map(|&(p, q)| {
                    let (a, b) = (g.symmetries[s][p as usize], g.symmetries[s][q as usize]);
                    (a.min(b), a.max(b))
                }).collect();
                assert_eq!(image, edges, "{board:?}: symmetry {s} keeps the edges");
                assert_eq!(g.mills.iter().map(|&m| g.apply(s, m)).collect::<BTreeSet<u32>>(), mills, "{board:?}: symmetry {s} keeps the mills");
            }
        }
    }

    /// The standard board built from coordinates is the engine's: the same names,
    /// reading order, adjacency, mills and symmetry group.
    #[test]
    fn the_nine_board_is_the_engines() {
        use crate::rules::geometry::{ADJ, MILLS, NAMES, READING_ORDER};
        let g = Board::Nine.geometry();
        assert_eq!(g.names, NAMES.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(g.mask, crate::rules::geometry::FULL);
        assert_eq!(g.reading, READING_ORDER.to_vec());
        assert_eq!(g.adj, ADJ.to_vec());
        assert_eq!(g.mills.iter().copied().collect::<BTreeSet<u32>>(), MILLS.iter().copied().collect::<BTreeSet<u32>>());
        let engine: BTreeSet<Vec<u8>> = (0..crate::rules::symmetry::COUNT).map(|s| (0..24).map(|p| crate::rules::symmetry::map_point(s, p) as u8).collect()).collect();
        assert_eq!(g.symmetries.iter().cloned().collect::<BTreeSet<Vec<u8>>>(), engine);
    }
}
