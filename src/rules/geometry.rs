//! What a board's drawing gives the engine: point sets as bits, and the adjacency,
//! mills, edges, names and reading order derived from the drawing (`board`) by `const
//! fn`s, so the same numbers serve the hot loops as compile-time constants and every
//! other reader through [`Board::geometry`](crate::rules::Board::geometry).
//!
//! Points are numbered `p = 8 * ring + k`, ring 0 the outer square, 1 the middle and
//! 2 the inner; `k` runs clockwise from the top-left corner, so even `k` are corners
//! and odd `k` are side midpoints. With this layout every board symmetry acts on a
//! bitboard byte by byte (rotations are byte rotations, the inner/outer swap is a
//! byte swap), which keeps `symmetry` table-driven and cheap, and one symmetry table
//! serves every board: `six` lies on rings 0 and 2, which the swap exchanges.

/// A set of points, one bit per point (bit `p`), 24 bits used.
pub type Bits = u32;

/// The most points of any board of the family: the bits a bitboard may use.
pub const MAX_POINTS: usize = 24;
/// The most mills of any board of the family (`nine-diagonal`).
pub const MAX_MILLS: usize = 20;
/// The most edges of any board of the family (`nine-diagonal`).
const MAX_EDGES: usize = 40;
/// A stand-in for "no mill": a point beyond every board, so no stones complete it.
/// Fixed-length arrays padded with it let the compiler unroll the loops over mills.
pub const NO_MILL: Bits = 1 << 31;

/// A straight line of points, by name: neighbours on it are joined by an edge, and a
/// line of three is a mill.
pub(crate) type Line = &'static [&'static str];

/// A board as `docs/rules.md` draws it, the one place its points and lines are written.
pub(crate) struct Drawing {
    /// The name of each internal point `8 * ring + k`; `""` where the board has no point.
    pub names: [&'static str; MAX_POINTS],
    /// Every line, in groups (sides of the squares, lines across them, ...). The order
    /// of the mills follows it.
    pub lines: &'static [&'static [Line]],
}

/// One board's points, lines and mills, in the forms its readers need.
#[derive(Debug)]
pub struct Geometry {
    points: usize,
    mask: Bits,
    names: [&'static str; MAX_POINTS],
    reading: [u8; MAX_POINTS],
    adj: [Bits; MAX_POINTS],
    edges: [(u8, u8); MAX_EDGES],
    edge_count: usize,
    mills: [Bits; MAX_MILLS],
    mill_count: usize,
    point_mills: [[Bits; 3]; MAX_POINTS],
    per_point: usize,
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The internal point named `name`; a name the drawing lacks fails the build.
const fn point_of(names: &[&str; MAX_POINTS], name: &str) -> usize {
    let mut p = 0;
    while p < MAX_POINTS {
        if !names[p].is_empty() && str_eq(names[p], name) {
            return p;
        }
        p += 1;
    }
    panic!("a line names a point the board does not have")
}

/// Where a point is read in the notation: rows from the top, left to right.
const fn reading_key(name: &str) -> u32 {
    let b = name.as_bytes();
    (0xff - b[1] as u32) << 8 | b[0] as u32
}

impl Geometry {
    /// Derives every table of a board from its drawing.
    pub(crate) const fn of(d: &Drawing) -> Geometry {
        let mut g = Geometry {
            points: 0,
            mask: 0,
            names: d.names,
            reading: [0; MAX_POINTS],
            adj: [0; MAX_POINTS],
            edges: [(0, 0); MAX_EDGES],
            edge_count: 0,
            mills: [NO_MILL; MAX_MILLS],
            mill_count: 0,
            point_mills: [[NO_MILL; 3]; MAX_POINTS],
            per_point: 0,
        };
        let mut p = 0;
        while p < MAX_POINTS {
            if !d.names[p].is_empty() {
                g.mask |= 1 << p;
                g.points += 1;
            }
            p += 1;
        }
        // Reading order: the points sorted by their key, by selection.
        let mut i = 0;
        let mut last = 0u32;
        while i < g.points {
            let mut best = u32::MAX;
            let mut p = 0;
            while p < MAX_POINTS {
                if !d.names[p].is_empty() {
                    let key = reading_key(d.names[p]);
                    if (i == 0 || key > last) && key < best {
                        best = key;
                        g.reading[i] = p as u8;
                    }
                }
                p += 1;
            }
            last = best;
            i += 1;
        }
        let mut group = 0;
        while group < d.lines.len() {
            let lines = d.lines[group];
            let mut l = 0;
            while l < lines.len() {
                let line = lines[l];
                let mut mill: Bits = 0;
                let mut j = 0;
                while j < line.len() {
                    let p = point_of(&d.names, line[j]);
                    mill |= 1 << p;
                    if j > 0 {
                        let q = point_of(&d.names, line[j - 1]);
                        g.adj[p] |= 1 << q;
                        g.adj[q] |= 1 << p;
                        g.edges[g.edge_count] = if p < q { (p as u8, q as u8) } else { (q as u8, p as u8) };
                        g.edge_count += 1;
                    }
                    j += 1;
                }
                if line.len() == 3 {
                    g.mills[g.mill_count] = mill;
                    g.mill_count += 1;
                    let mut p = 0;
                    while p < MAX_POINTS {
                        if mill >> p & 1 != 0 {
                            let mut slot = 0;
                            while g.point_mills[p][slot] != NO_MILL {
                                slot += 1;
                            }
                            g.point_mills[p][slot] = mill;
                            if slot + 1 > g.per_point {
                                g.per_point = slot + 1;
                            }
                        }
                        p += 1;
                    }
                }
                l += 1;
            }
            group += 1;
        }
        g
    }

    /// Points of the board: 24 or 16.
    pub const fn points(&self) -> usize {
        self.points
    }

    /// Squares of the board: 3 or 2.
    pub const fn rings(&self) -> usize {
        self.points / 8
    }

    /// The internal points in use: all 24 bits, or rings 0 and 2 on `six`.
    pub const fn mask(&self) -> Bits {
        self.mask
    }

    /// The algebraic name of internal point `p`; `""` for a point the board lacks
    /// (ring 1 of `six`).
    pub const fn name(&self, p: usize) -> &'static str {
        self.names[p]
    }

    /// The internal point of an algebraic name (case-insensitive), if the board has it.
    pub fn point(&self, name: &str) -> Option<usize> {
        let lower = name.trim().to_ascii_lowercase();
        self.names.iter().position(|n| !n.is_empty() && *n == lower)
    }

    /// The notation's reading order (rows from the top, left to right) as internal
    /// point numbers: character `i` of a board string is point `reading()[i]`.
    pub const fn reading(&self) -> &[u8] {
        self.reading.split_at(self.points).0
    }

    /// Neighbours of each internal point (24 entries, 0 for a point the board lacks).
    pub const fn adj(&self) -> &[Bits; MAX_POINTS] {
        &self.adj
    }

    /// Every edge once, `(p, q)` with `p < q`.
    pub const fn edges(&self) -> &[(u8, u8)] {
        self.edges.split_at(self.edge_count).0
    }

    /// The mills, as point sets.
    pub const fn mills(&self) -> &[Bits] {
        self.mills.split_at(self.mill_count).0
    }

    /// The mills, then [`NO_MILL`] up to [`MAX_MILLS`].
    pub const fn padded_mills(&self) -> &[Bits; MAX_MILLS] {
        &self.mills
    }

    /// The mills through each point, at most 3 (a corner of `nine-diagonal`); unused
    /// entries are [`NO_MILL`], which no set of points completes.
    pub const fn point_mills(&self) -> &[[Bits; 3]; MAX_POINTS] {
        &self.point_mills
    }

    /// The most mills through one point: 2, or 3 with diagonals.
    pub const fn mills_per_point(&self) -> usize {
        self.per_point
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
