//! Boards and rule options of the Morris family (docs/rules.md), and the
//! board geometry (edges, mills, symmetries) derived from point coordinates.

use std::sync::OnceLock;

/// The 24 points of `nine` and `nine-diagonal` in the notation's reading order.
pub const NINE_NAMES: [&str; 24] = ["a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1"];

/// The 16 points of `six` in the notation's reading order.
pub const SIX_NAMES: [&str; 16] = ["a5", "c5", "e5", "b4", "c4", "d4", "a3", "b3", "d3", "e3", "b2", "c2", "d2", "a1", "c1", "e1"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Board {
    Nine,
    NineDiagonal,
    Six,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Removal {
    /// Not a stone in a mill, unless every opponent stone is in a mill.
    Standard,
    /// Never a stone in a mill; if all are in mills, nothing is removed.
    Strict,
    /// Any stone.
    Lenient,
}

/// A board plus a value for every option of docs/rules.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RefRules {
    pub board: Board,
    /// Stones each player has in hand at the start (the default for `solve_start`).
    pub stones: u32,
    /// `flying=3`: a player with exactly 3 stones (board plus hand) may fly.
    pub flying: bool,
    pub lasker: bool,
    pub removal: Removal,
    /// `take=each`: one removal per mill closed (else one per move).
    pub take_each: bool,
    /// `full-board=draw` (else `loss`).
    pub full_board_draw: bool,
}

impl RefRules {
    /// A named rule set, optionally followed by `,OPTION=VALUE` overrides:
    /// `standard`, `six,stones=8,full-board=draw`, ...
    pub fn parse(s: &str) -> Result<RefRules, String> {
        let mut parts = s.split(',').map(str::trim);
        let name = parts.next().unwrap_or("");
        let mut r = match name {
            "standard" => RefRules { board: Board::Nine, stones: 9, flying: true, lasker: false, removal: Removal::Standard, take_each: false, full_board_draw: false },
            "lasker" => RefRules { board: Board::Nine, stones: 10, flying: true, lasker: true, removal: Removal::Standard, take_each: false, full_board_draw: false },
            "morabaraba" | "twelve" => RefRules {
                board: Board::NineDiagonal,
                stones: 12,
                flying: name == "morabaraba",
                lasker: false,
                removal: Removal::Standard,
                take_each: false,
                full_board_draw: true,
            },
            "six" | "five" => RefRules {
                board: Board::Six,
                stones: if name == "six" { 6 } else { 5 },
                flying: false,
                lasker: false,
                removal: Removal::Standard,
                take_each: false,
                full_board_draw: false,
            },
            _ => return Err(format!("unknown rule set {name:?}")),
        };
        for opt in parts {
            let (key, value) = opt.split_once('=').ok_or_else(|| format!("option {opt:?} is not OPTION=VALUE"))?;
            let bad = || format!("bad value {value:?} for option {key:?}");
            match key.trim() {
                "stones" => r.stones = value.trim().parse().map_err(|_| bad())?,
                "flying" => {
                    r.flying = match value {
                        "3" => true,
                        "none" => false,
                        _ => return Err(bad()),
                    }
                }
                "lasker" => {
                    r.lasker = match value {
                        "yes" => true,
                        "no" => false,
                        _ => return Err(bad()),
                    }
                }
                "removal" => {
                    r.removal = match value {
                        "standard" => Removal::Standard,
                        "strict" => Removal::Strict,
                        "lenient" => Removal::Lenient,
                        _ => return Err(bad()),
                    }
                }
                "take" => {
                    r.take_each = match value {
                        "one" => false,
                        "each" => true,
                        _ => return Err(bad()),
                    }
                }
                "full-board" => {
                    r.full_board_draw = match value {
                        "draw" => true,
                        "loss" => false,
                        _ => return Err(bad()),
                    }
                }
                _ => return Err(format!("unknown option {key:?}")),
            }
        }
        if !(3..=12).contains(&r.stones) || 2 * r.stones as usize > r.points() {
            return Err(format!("stones={} out of range (3..12, at most half of {} points)", r.stones, r.points()));
        }
        Ok(r)
    }

    pub fn points(&self) -> usize {
        match self.board {
            Board::Nine | Board::NineDiagonal => 24,
            Board::Six => 16,
        }
    }

    /// Point names in the board-string reading order (bit i of a mask = name i).
    pub fn point_names(&self) -> Vec<&'static str> {
        self.names().to_vec()
    }

    pub fn names(&self) -> &'static [&'static str] {
        match self.board {
            Board::Nine | Board::NineDiagonal => &NINE_NAMES,
            Board::Six => &SIX_NAMES,
        }
    }

    pub fn stones(&self) -> u32 {
        self.stones
    }

    /// Mask of every point of the board.
    pub fn full(&self) -> u32 {
        (1u32 << self.points()) - 1
    }

    pub fn geometry(&self) -> &'static Geometry {
        geometry(self.board)
    }

    /// Mask of a comma/space separated list of point names, e.g. "d7,g7,g1".
    pub fn mask(&self, points: &str) -> u32 {
        let mut m = 0u32;
        for name in points.split(|c: char| c == ',' || c.is_whitespace()) {
            if name.is_empty() {
                continue;
            }
            let i = self.names().iter().position(|&p| p == name).unwrap_or_else(|| panic!("no point {name:?} on {:?}", self.board));
            assert!(m & (1 << i) == 0, "point {name} listed twice");
            m |= 1 << i;
        }
        m
    }

    /// Point names of a mask, in reading order.
    pub fn names_of(&self, mask: u32) -> Vec<&'static str> {
        (0..self.points()).filter(|&i| mask & (1 << i) != 0).map(|i| self.names()[i]).collect()
    }
}

// ---------------------------------------------------------------------------
// Geometry
// ---------------------------------------------------------------------------

/// Edges, mills and symmetries of one board, all derived from coordinates.
pub struct Geometry {
    pub names: &'static [&'static str],
    /// Board coordinates of each point: column a.. -> x 0.., row 1.. -> y 0...
    pub coords: Vec<(i32, i32)>,
    /// The mills as masks.
    pub mills: Vec<u32>,
    /// The edges as (a, b) with a < b.
    pub edges: Vec<(usize, usize)>,
    /// adj[i] = mask of the points joined to i by an edge.
    pub adj: Vec<u32>,
    /// mills_at[i] = the mills (masks) through point i.
    pub mills_at: Vec<Vec<u32>>,
    /// The 16 symmetries as permutations (perm[i] = image of point i);
    /// the identity first.
    pub symmetries: Vec<Vec<usize>>,
}

pub fn geometry(board: Board) -> &'static Geometry {
    static G: [OnceLock<Geometry>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let k = match board {
        Board::Nine => 0,
        Board::NineDiagonal => 1,
        Board::Six => 2,
    };
    G[k].get_or_init(|| build_geometry(board))
}

/// Lines of the board, as point lists sorted along the line:
/// - every row and every column of points, split in two at the centre when
///   it passes through the centre (which holds no point);
/// - with diagonals, the four half-diagonals from the centre outwards.
///
/// Consecutive points on a line are joined by an edge, and a line of three
/// points is a mill. On `six` the lines through the centre have two points
/// each: edges, not mills.
fn build_geometry(board: Board) -> Geometry {
    let names: &'static [&'static str] = match board {
        Board::Nine | Board::NineDiagonal => &NINE_NAMES,
        Board::Six => &SIX_NAMES,
    };
    let n = names.len();
    let coords: Vec<(i32, i32)> = names
        .iter()
        .map(|s| {
            let b = s.as_bytes();
            ((b[0] - b'a') as i32, (b[1] - b'1') as i32)
        })
        .collect();
    let squares = (n / 8) as i32; // 3 or 2
    let c = squares; // centre coordinate (3 on nine, 2 on six)
    let point_at = |x: i32, y: i32| coords.iter().position(|&p| p == (x, y));

    let mut lines: Vec<Vec<usize>> = Vec::new();
    for horizontal in [true, false] {
        for fixed in 0..=2 * c {
            for side in [-1, 1] {
                // the points of this row/column on one side of the centre
                // line (the whole row when it does not pass the centre)
                let mut pts: Vec<(i32, usize)> = (0..n)
                    .filter_map(|i| {
                        let (x, y) = coords[i];
                        let (f, along) = if horizontal { (y, x) } else { (x, y) };
                        let on_side = if fixed == c { (along - c).signum() == side } else { side == 1 };
                        (f == fixed && on_side).then_some((along, i))
                    })
                    .collect();
                pts.sort();
                if pts.len() >= 2 {
                    lines.push(pts.into_iter().map(|(_, i)| i).collect());
                }
            }
        }
    }
    if board == Board::NineDiagonal {
        for (sx, sy) in [(-1, -1), (-1, 1), (1, -1), (1, 1)] {
            let pts: Vec<usize> = (1..=c).map(|r| point_at(c + sx * r, c + sy * r).expect("corner")).collect();
            lines.push(pts);
        }
    }

    let mut mills = Vec::new();
    let mut edges = Vec::new();
    let mut adj = vec![0u32; n];
    let mut mills_at = vec![Vec::new(); n];
    for line in &lines {
        if line.len() == 3 {
            let m = line.iter().fold(0u32, |m, &i| m | (1 << i));
            mills.push(m);
            for &i in line {
                mills_at[i].push(m);
            }
        }
        for w in line.windows(2) {
            let (a, b) = (w[0].min(w[1]), w[0].max(w[1]));
            edges.push((a, b));
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
    }
    let expect = match board {
        Board::Nine => (32, 16),
        Board::NineDiagonal => (40, 20),
        Board::Six => (20, 8),
    };
    assert_eq!((edges.len(), mills.len()), expect, "{board:?} geometry");

    // Symmetries: the 8 of the square (transpose, mirror x, mirror y), each
    // with or without reversing the order of the squares (ring r <-> squares+1-r).
    let mut symmetries = Vec::new();
    for swap_rings in [false, true] {
        for transpose in [false, true] {
            for fx in [1, -1] {
                for fy in [1, -1] {
                    let perm: Vec<usize> = (0..n)
                        .map(|i| {
                            let (x, y) = coords[i];
                            let (mut dx, mut dy) = (x - c, y - c);
                            if swap_rings {
                                let r = dx.abs().max(dy.abs());
                                let r2 = squares + 1 - r;
                                dx = dx / r * r2;
                                dy = dy / r * r2;
                            }
                            if transpose {
                                std::mem::swap(&mut dx, &mut dy);
                            }
                            point_at(c + fx * dx, c + fy * dy).expect("symmetry maps points to points")
                        })
                        .collect();
                    symmetries.push(perm);
                }
            }
        }
    }
    Geometry { names, coords, mills, edges, adj, mills_at, symmetries }
}

/// Image of a mask under a point permutation.
pub fn apply_perm(perm: &[usize], mask: u32) -> u32 {
    let mut out = 0;
    for (i, &j) in perm.iter().enumerate() {
        if mask & (1 << i) != 0 {
            out |= 1 << j;
        }
    }
    out
}
