//! The boards of the family, each drawn once, as `docs/rules.md` draws it: its points
//! by name and its lines. Everything else about a board (adjacency, mills, edges, the
//! reading order of the notation) is derived from the drawing in `geometry`.
//!
//! Every board is concentric squares of 8 points, numbered as in `geometry`. The two
//! squares of `six` are rings 0 and 2 (ring 1 unused): the 16 symmetries, which swap
//! rings 0 and 2 and keep ring 1, are then exactly those of `six`, so one symmetry
//! table and one index serve every board.

use crate::rules::geometry::{Drawing, Geometry, Line, MAX_POINTS};

/// The boards of the family: concentric squares of 8 points each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Board {
    /// 24 points, 32 edges, 16 mills: the standard board.
    Nine,
    /// The standard board with the 4 corner diagonals as edges and mills: 40 edges,
    /// 20 mills (Morabaraba, Twelve Men's Morris).
    NineDiagonal,
    /// 16 points on two squares, 20 edges, 8 mills (Six and Five Men's Morris).
    Six,
}

/// The 24-point boards' names, square by square from the outside, each clockwise from
/// its top-left corner.
#[rustfmt::skip]
const NINE_NAMES: [&str; MAX_POINTS] = [
    "a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4",
    "b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4",
    "c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4",
];

/// The sides of the three squares.
#[rustfmt::skip]
const NINE_SIDES: &[Line] = &[
    &["a7", "d7", "g7"], &["g7", "g4", "g1"], &["g1", "d1", "a1"], &["a1", "a4", "a7"],
    &["b6", "d6", "f6"], &["f6", "f4", "f2"], &["f2", "d2", "b2"], &["b2", "b4", "b6"],
    &["c5", "d5", "e5"], &["e5", "e4", "e3"], &["e3", "d3", "c3"], &["c3", "c4", "c5"],
];

/// The lines across the squares, through the midpoints.
const NINE_ACROSS: &[Line] = &[&["d7", "d6", "d5"], &["g4", "f4", "e4"], &["d1", "d2", "d3"], &["a4", "b4", "c4"]];

/// The corner diagonals of `nine-diagonal`.
const DIAGONALS: &[Line] = &[&["a7", "b6", "c5"], &["g7", "f6", "e5"], &["g1", "f2", "e3"], &["a1", "b2", "c3"]];

/// `six` names its points a1..e5 on rings 0 and 2.
#[rustfmt::skip]
const SIX_NAMES: [&str; MAX_POINTS] = [
    "a5", "c5", "e5", "e3", "e1", "c1", "a1", "a3",
    "", "", "", "", "", "", "", "",
    "b4", "c4", "d4", "d3", "d2", "c2", "b2", "b3",
];

/// The sides of the two squares of `six`.
#[rustfmt::skip]
const SIX_SIDES: &[Line] = &[
    &["a5", "c5", "e5"], &["e5", "e3", "e1"], &["e1", "c1", "a1"], &["a1", "a3", "a5"],
    &["b4", "c4", "d4"], &["d4", "d3", "d2"], &["d2", "c2", "b2"], &["b2", "b3", "b4"],
];

/// The lines across the squares of `six`: 2 points each, edges but not mills.
const SIX_ACROSS: &[Line] = &[&["c5", "c4"], &["e3", "d3"], &["c1", "c2"], &["a3", "b3"]];

/// Indexed by `Board as usize`.
static GEOMETRIES: [Geometry; 3] = [
    Geometry::of(&Drawing { names: NINE_NAMES, lines: &[NINE_SIDES, NINE_ACROSS] }),
    Geometry::of(&Drawing { names: NINE_NAMES, lines: &[NINE_SIDES, NINE_ACROSS, DIAGONALS] }),
    Geometry::of(&Drawing { names: SIX_NAMES, lines: &[SIX_SIDES, SIX_ACROSS] }),
];

impl Board {
    /// Every board, in the order of `docs/rules.md`.
    pub const ALL: [Board; 3] = [Board::Nine, Board::NineDiagonal, Board::Six];

    /// The board's name in rule strings.
    pub fn name(self) -> &'static str {
        match self {
            Board::Nine => "nine",
            Board::NineDiagonal => "nine-diagonal",
            Board::Six => "six",
        }
    }

    /// The board's points, lines and names.
    pub const fn geometry(self) -> &'static Geometry {
        &GEOMETRIES[self as usize]
    }

    /// Points of the board.
    pub const fn points(self) -> u8 {
        self.geometry().points() as u8
    }

    /// The internal points the board uses: all 24, or rings 0 and 2 for `six`, so
    /// that every board shares the 24-point symmetry tables.
    pub const fn mask(self) -> u32 {
        self.geometry().mask()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::symmetry::{self, map_point};
    use std::collections::BTreeSet;

    #[test]
    fn counts_are_those_of_docs_rules_md() {
        for (board, points, edges, mills, per_point) in [(Board::Nine, 24, 32, 16, 2), (Board::NineDiagonal, 24, 40, 20, 3), (Board::Six, 16, 20, 8, 2)] {
            let g = board.geometry();
            assert_eq!((g.points(), g.edges().len(), g.mills().len(), g.mills_per_point()), (points, edges, mills, per_point), "{board:?}");
            assert_eq!(g.reading().iter().copied().collect::<BTreeSet<u8>>().len(), points, "{board:?}: reading order is a permutation");
            assert_eq!(g.mask().count_ones() as usize, points);
            assert!(g.mills().iter().all(|m| m.count_ones() == 3 && m & !g.mask() == 0));
            assert_eq!(g.edges().iter().copied().collect::<BTreeSet<_>>().len(), edges, "{board:?}: no edge twice");
            // A mill is a line: its three points are joined by two edges.
            for &m in g.mills() {
                let joined = g.edges().iter().filter(|&&(p, q)| m >> p & 1 != 0 && m >> q & 1 != 0).count();
                assert_eq!(joined, 2, "{board:?}: mill {m:b}");
            }
            for p in 0..MAX_POINTS {
                let through = g.mills().iter().filter(|&&m| m >> p & 1 != 0).count();
                assert_eq!(g.point_mills()[p].iter().filter(|&&m| m != crate::rules::geometry::NO_MILL).count(), through);
                for q in 0..MAX_POINTS {
                    assert_eq!(g.adj()[p] >> q & 1, g.adj()[q] >> p & 1, "adjacency is symmetric");
                }
            }
        }
        let nine = Board::Nine.geometry();
        let reading: Vec<&str> = nine.reading().iter().map(|&p| nine.name(p as usize)).collect();
        assert_eq!(reading.join(" "), "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1");
        let six = Board::Six.geometry();
        let reading: Vec<&str> = six.reading().iter().map(|&p| six.name(p as usize)).collect();
        assert_eq!(reading.join(" "), "a5 c5 e5 b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1", "the board string order of docs/rules.md");
        assert_eq!(six.mask(), 0xff_00ff, "rings 0 and 2");
    }

    #[test]
    fn named_mills_and_edges() {
        let set = |g: &Geometry, names: &[&str]| names.iter().map(|n| 1u32 << g.point(n).unwrap()).sum::<u32>();
        let nine = Board::Nine.geometry();
        for mill in [["a1", "d1", "g1"], ["a4", "b4", "c4"], ["d5", "d6", "d7"], ["a7", "a4", "a1"]] {
            assert!(nine.mills().contains(&set(nine, &mill)), "{mill:?}");
        }
        assert!(nine.adj()[nine.point("d7").unwrap()] & set(nine, &["d6"]) != 0);
        assert!(nine.adj()[nine.point("a7").unwrap()] & set(nine, &["b6"]) == 0, "no diagonal edges");
        assert_eq!(nine.point("D7"), Some(1), "case-insensitive");
        assert_eq!(nine.point("d4"), None, "the centre is not a point");
        let diagonal = Board::NineDiagonal.geometry();
        for line in [["a7", "b6", "c5"], ["g7", "f6", "e5"], ["g1", "f2", "e3"], ["a1", "b2", "c3"]] {
            assert!(diagonal.mills().contains(&set(diagonal, &line)), "{line:?} is a mill");
            assert!(!nine.mills().contains(&set(nine, &line)));
        }
        let six = Board::Six.geometry();
        assert!(six.adj()[six.point("a3").unwrap()] & set(six, &["b3"]) != 0, "the squares are joined");
        assert_eq!(six.point("b6"), None);
    }

    /// The 16 symmetries of `symmetry` are automorphisms of every board, as its
    /// numbering of the points promises.
    #[test]
    fn symmetries_keep_every_board() {
        for board in Board::ALL {
            let g = board.geometry();
            let edges: BTreeSet<(u8, u8)> = g.edges().iter().copied().collect();
            let mills: BTreeSet<u32> = g.mills().iter().copied().collect();
            for s in 0..symmetry::COUNT {
                assert_eq!(symmetry::apply(s, g.mask()), g.mask(), "{board:?}: symmetry {s} keeps the points");
                let image: BTreeSet<(u8, u8)> = g
                    .edges()
                    .iter()
                    .map(|&(p, q)| {
                        let (a, b) = (map_point(s, p as usize) as u8, map_point(s, q as usize) as u8);
                        (a.min(b), a.max(b))
                    })
                    .collect();
                assert_eq!(image, edges, "{board:?}: symmetry {s} keeps the edges");
                assert_eq!(g.mills().iter().map(|&m| symmetry::apply(s, m)).collect::<BTreeSet<u32>>(), mills, "{board:?}: symmetry {s} keeps the mills");
            }
        }
    }

    /// The names are the coordinates of `docs/rules.md`: the squares nest around the
    /// centre, corners at their corners and midpoints between, so `k` (clockwise from
    /// the top-left corner) runs round each square.
    #[test]
    fn names_are_coordinates_of_nested_squares() {
        for board in Board::ALL {
            let g = board.geometry();
            let rings = g.rings() as i32;
            let used: Vec<usize> = (0..3).filter(|r| g.mask() >> (8 * r) & 1 != 0).collect();
            for (depth, &r) in used.iter().enumerate() {
                let h = rings - depth as i32;
                for (k, (dx, dy)) in [(-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0)].into_iter().enumerate() {
                    let (x, y) = (rings + dx * h, rings + dy * h);
                    assert_eq!(g.name(8 * r + k), format!("{}{}", (b'a' + x as u8) as char, y + 1), "{board:?}");
                }
            }
        }
    }
}
