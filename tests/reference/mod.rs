//! Independent, deliberately plain reference solver for Nine Men's Morris
//! movement-phase endgames. Used as a test oracle for the fast engine.
//!
//! Everything here is derived from the rules alone (now `docs/rules.md`). It shares no code
//! with the `morris` crate and does not depend on it: only `std` and `rayon`.
//!
//! Conventions
//! - Masks are `u32` with bit `i` = the i-th point of the notation's reading
//!   order (`POINT_NAMES`): bit 0 = a7, bit 23 = g1.
//! - A position of subspace `s-o` is `(mover, opponent)`: the side to move has
//!   `s` stones, the opponent `o`, both hands empty.
//! - `RefValue` is the value for the side to move, with depth in plies to the
//!   end of the game (winner shortest, loser longest), counted through
//!   captures into smaller subspaces.
//!
//! Algorithm: synchronous (Jacobi) value iteration over every raw position of
//! the system {s-o, o-s}. Round `n` only assigns depth `n`:
//! - `Win(n)`  if some child is a loss of depth `n-1`;
//! - `Loss(n)` if every child is a win of depth `< n` (blocked: round 0).
//!
//! Children reached by a capture live in an already solved smaller subspace
//! (or are terminal: the opponent is left with 2 stones, which is `Loss(0)`
//! for the opponent) and are known from the start, but a child of depth `d`
//! is only "visible" from round `d+1` on. Whatever is still undetermined when
//! the iteration can no longer change anything is a draw.
//!
//! The only speed measures: rounds run in parallel (rayon); determined
//! positions are skipped; and a position whose visible children cannot have
//! changed since the previous round (see `solve_system`) is not re-evaluated.
//! No symmetry, no retrograde/unmove generation, no child counters.
//!
//! Independent checks: `RefSolver::verify` re-derives every value from its
//! children's values, and `RefTable::orbit_histogram` counts orbits (Burnside)
//! for comparison with published figures.
#![allow(dead_code)]

use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Points and geometry
// ---------------------------------------------------------------------------

/// The 24 points in the notation's reading order (bit i of a mask = POINT_NAMES[i]).
pub const POINT_NAMES: [&str; 24] =
    ["a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1"];

/// All 24 points.
pub const FULL: u32 = (1 << 24) - 1;

/// Index (bit number) of a point name such as "d7".
pub fn point_index(name: &str) -> Option<usize> {
    POINT_NAMES.iter().position(|&p| p == name.trim())
}

/// Mask of a comma/space separated list of point names, e.g. "d7,g7,g1".
pub fn mask_of(points: &str) -> u32 {
    let mut m = 0u32;
    for name in points.split(|c: char| c == ',' || c.is_whitespace()) {
        if name.is_empty() {
            continue;
        }
        let i = point_index(name).unwrap_or_else(|| panic!("bad point name {name:?}"));
        assert!(m & (1 << i) == 0, "point {name} listed twice");
        m |= 1 << i;
    }
    m
}

/// Point names of a mask, in reading order.
pub fn names_of(mask: u32) -> Vec<&'static str> {
    (0..24).filter(|&i| mask & (1 << i) != 0).map(|i| POINT_NAMES[i]).collect()
}

/// Parse the BOARD part of a position string (24 chars of W/B/.).
/// Returns (white mask, black mask).
pub fn parse_board(board: &str) -> (u32, u32) {
    let chars: Vec<char> = board.chars().collect();
    assert_eq!(chars.len(), 24, "board must have 24 characters");
    let (mut w, mut b) = (0u32, 0u32);
    for (i, c) in chars.into_iter().enumerate() {
        match c {
            'W' => w |= 1 << i,
            'B' => b |= 1 << i,
            '.' => {}
            _ => panic!("bad board character {c:?}"),
        }
    }
    (w, b)
}

/// Board coordinates of a point: column a..g -> x 0..6, row 1..7 -> y 0..6.
pub fn coords(i: usize) -> (i32, i32) {
    let b = POINT_NAMES[i].as_bytes();
    ((b[0] - b'a') as i32, (b[1] - b'1') as i32)
}

fn point_at(x: i32, y: i32) -> Option<usize> {
    (0..24).find(|&i| coords(i) == (x, y))
}

/// Mills and adjacency, derived from the coordinates of the points.
pub struct Geometry {
    /// The 16 mills as masks.
    pub mills: Vec<u32>,
    /// The 32 edges as (a, b) with a < b.
    pub edges: Vec<(usize, usize)>,
    /// adj[i] = mask of points joined to i by an edge.
    pub adj: [u32; 24],
    /// mills_at[i] = the mills (masks) through point i.
    pub mills_at: [[u32; 2]; 24],
}

/// Lines of the board: for each row (and each column), the points on it
/// sorted by the other coordinate; the middle row/column (coordinate 3) has
/// six points and a gap at the centre, so it is split into its two halves.
/// Every such line of three is a mill, and consecutive points on it are
/// joined by an edge.
fn build_geometry() -> Geometry {
    let mut lines: Vec<Vec<usize>> = Vec::new();
    for horizontal in [true, false] {
        for c in 0..7 {
            let mut pts: Vec<usize> = (0..24)
                .filter(|&i| {
                    let (x, y) = coords(i);
                    if horizontal {
                        y == c
                    } else {
                        x == c
                    }
                })
                .collect();
            let along = |i: usize| if horizontal { coords(i).0 } else { coords(i).1 };
            pts.sort_by_key(|&i| along(i));
            // split at the centre (coordinate 3 is never occupied on a line
            // through the centre, and no line crosses it)
            let low: Vec<usize> = pts.iter().copied().filter(|&i| along(i) < 3).collect();
            let high: Vec<usize> = pts.iter().copied().filter(|&i| along(i) > 3).collect();
            let mid: Vec<usize> = pts.iter().copied().filter(|&i| along(i) == 3).collect();
            if c == 3 {
                assert!(mid.is_empty());
                assert_eq!(low.len(), 3);
                assert_eq!(high.len(), 3);
                lines.push(low);
                lines.push(high);
            } else {
                assert_eq!(pts.len(), 3, "row/column {c} should hold 3 points");
                lines.push(pts);
            }
        }
    }
    assert_eq!(lines.len(), 16);
    let mut mills = Vec::new();
    let mut edges = Vec::new();
    let mut adj = [0u32; 24];
    let mut mills_at: [Vec<u32>; 24] = Default::default();
    for line in &lines {
        let m = line.iter().fold(0u32, |m, &i| m | (1 << i));
        mills.push(m);
        for &i in line {
            mills_at[i].push(m);
        }
        for w in line.windows(2) {
            let (a, b) = (w[0].min(w[1]), w[0].max(w[1]));
            edges.push((a, b));
            adj[a] |= 1 << b;
            adj[b] |= 1 << a;
        }
    }
    assert_eq!(edges.len(), 32);
    for i in 0..24 {
        assert_eq!(mills_at[i].len(), 2, "every point lies on exactly 2 mills");
    }
    let mills_at = std::array::from_fn(|i| [mills_at[i][0], mills_at[i][1]]);
    Geometry { mills, edges, adj, mills_at }
}

pub fn geometry() -> &'static Geometry {
    static G: OnceLock<Geometry> = OnceLock::new();
    G.get_or_init(build_geometry)
}

/// The 16 board symmetries as point permutations (perm[i] = image of i):
/// the 8 symmetries of the square, each with and without swapping the inner
/// and outer squares. Only used for counting orbits in tests.
pub fn symmetries() -> Vec<[usize; 24]> {
    let mut out = Vec::new();
    for swap_rings in [false, true] {
        for transpose in [false, true] {
            for fx in [1, -1] {
                for fy in [1, -1] {
                    let mut perm = [0usize; 24];
                    for i in 0..24 {
                        let (x, y) = coords(i);
                        let (mut dx, mut dy) = (x - 3, y - 3);
                        if swap_rings {
                            let r = dx.abs().max(dy.abs()); // 3 outer, 2 middle, 1 inner
                            let r2 = 4 - r;
                            dx = dx / r * r2;
                            dy = dy / r * r2;
                        }
                        if transpose {
                            std::mem::swap(&mut dx, &mut dy);
                        }
                        dx *= fx;
                        dy *= fy;
                        perm[i] = point_at(3 + dx, 3 + dy).expect("symmetry maps points to points");
                    }
                    out.push(perm);
                }
            }
        }
    }
    out
}

pub fn apply_perm(perm: &[usize; 24], mask: u32) -> u32 {
    let mut out = 0;
    for i in 0..24 {
        if mask & (1 << i) != 0 {
            out |= 1 << perm[i];
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Move rules
// ---------------------------------------------------------------------------

fn bits(mut m: u32) -> impl Iterator<Item = usize> {
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

/// Does `stones` contain a full mill through point `p`?
#[inline]
pub fn in_mill(stones: u32, p: usize) -> bool {
    let [m1, m2] = geometry().mills_at[p];
    stones & m1 == m1 || stones & m2 == m2
}

/// Stones of `opp` that may be removed by a capture: those not in a mill,
/// or all of them if every one is in a mill.
pub fn removable(opp: u32) -> u32 {
    let mut free = 0;
    for i in bits(opp) {
        if !in_mill(opp, i) {
            free |= 1 << i;
        }
    }
    if free != 0 {
        free
    } else {
        opp
    }
}

/// Calls `f(child_mover, child_opponent)` for every legal move of the side
/// to move (`mover`) against `opp`, movement phase. The child is given from
/// the point of view of its own side to move (the former opponent).
/// After a capture the child's mover may have only 2 stones (game over).
/// Moves leading to the same position are reported once per move.
pub fn for_each_child(mover: u32, opp: u32, mut f: impl FnMut(u32, u32)) {
    debug_assert!(mover & opp == 0);
    let g = geometry();
    let flying = mover.count_ones() == 3;
    let empty = FULL & !(mover | opp);
    for from in bits(mover) {
        let targets = if flying { empty } else { g.adj[from] & empty };
        for to in bits(targets) {
            let moved = (mover & !(1 << from)) | (1 << to);
            if in_mill(moved, to) {
                for x in bits(removable(opp)) {
                    f(opp & !(1 << x), moved);
                }
            } else {
                f(opp, moved);
            }
        }
    }
}

/// All children of a position (see `for_each_child`).
pub fn children(mover: u32, opp: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for_each_child(mover, opp, |a, b| v.push((a, b)));
    v
}

// ---------------------------------------------------------------------------
// Combinatorial indexing (colex ranks, no symmetry)
// ---------------------------------------------------------------------------

const fn binom_table() -> [[u64; 25]; 25] {
    let mut t = [[0u64; 25]; 25];
    let mut n = 0;
    while n < 25 {
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
const BINOM: [[u64; 25]; 25] = binom_table();

pub fn binom(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Colex rank of a mask among masks with the same number of bits
/// (= its position among them in increasing numeric order).
pub fn colex_rank(mask: u32) -> u64 {
    let mut r = 0;
    for (i, b) in bits(mask).enumerate() {
        r += binom(b as u32, i as u32 + 1);
    }
    r
}

/// All masks of `nbits` bits with exactly `k` set, in increasing order
/// (which is colex order).
pub fn masks_with(nbits: u32, k: u32) -> Vec<u32> {
    (0u32..(1u32 << nbits)).filter(|m| m.count_ones() == k).collect()
}

/// Squeeze `mask` (a subset of `free`) onto bit positions 0..|free|.
pub fn compress(mask: u32, free: u32) -> u32 {
    assert!(mask & !free == 0);
    let mut out = 0;
    for q in bits(mask) {
        let j = (free & ((1u32 << q) - 1)).count_ones();
        out |= 1 << j;
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

/// Number of raw positions of subspace s-o.
pub fn subspace_len(s: u32, o: u32) -> usize {
    (binom(24, s) * binom(24 - s, o)) as usize
}

/// Index of (mover, opp) in a table of subspace s-o:
/// colex_rank(mover) * C(24-s, o) + colex_rank(opp squeezed onto the 24-s
/// points not occupied by the mover). (Written out with the squeeze inlined,
/// as it is the hot path; `compress` + `colex_rank` give the same.)
#[inline]
pub fn raw_index(s: u32, o: u32, mover: u32, opp: u32) -> usize {
    debug_assert_eq!(mover.count_ones(), s);
    debug_assert_eq!(opp.count_ones(), o);
    debug_assert_eq!(mover & opp, 0);
    let mut major = 0u64;
    let mut x = mover;
    let mut i = 1;
    while x != 0 {
        let q = x.trailing_zeros() as usize;
        major += BINOM[q][i];
        i += 1;
        x &= x - 1;
    }
    let mut minor = 0u64;
    let mut x = opp;
    let mut i = 1;
    while x != 0 {
        let q = x.trailing_zeros();
        // position of point q among the points not occupied by the mover
        let j = (q - (mover & ((1u32 << q) - 1)).count_ones()) as usize;
        minor += BINOM[j][i];
        i += 1;
        x &= x - 1;
    }
    (major * BINOM[24 - s as usize][o as usize] + minor) as usize
}

// ---------------------------------------------------------------------------
// Values and tables
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefValue {
    Win(u16),
    Loss(u16),
    Draw,
}

impl RefValue {
    pub fn depth(self) -> Option<u16> {
        match self {
            RefValue::Win(d) | RefValue::Loss(d) => Some(d),
            RefValue::Draw => None,
        }
    }
}

/// Values of every raw position of movement-phase subspace s-o.
pub struct RefTable {
    pub s: u32,
    pub o: u32,
    values: Vec<RefValue>,
}

impl RefTable {
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn index(&self, mover: u32, opp: u32) -> usize {
        raw_index(self.s, self.o, mover, opp)
    }

    /// Value for the side to move (`mover`), masks in reading order.
    pub fn get(&self, mover: u32, opp: u32) -> RefValue {
        assert_eq!(mover.count_ones(), self.s, "mover stone count != {}", self.s);
        assert_eq!(opp.count_ones(), self.o, "opponent stone count != {}", self.o);
        assert_eq!(mover & opp, 0, "overlapping masks");
        assert_eq!((mover | opp) & !FULL, 0, "bits beyond 24 points");
        self.values[self.index(mover, opp)]
    }

    /// (mover, opponent, value) for every raw position, in index order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32, RefValue)> + '_ {
        let majors = masks_with(24, self.s);
        let minors = masks_with(24 - self.s, self.o);
        let nminor = minors.len();
        (0..self.values.len()).map(move |idx| {
            let m = majors[idx / nminor];
            let p = expand(minors[idx % nminor], FULL & !m);
            (m, p, self.values[idx])
        })
    }

    /// (wins, draws, losses) over raw positions.
    pub fn counts(&self) -> (u64, u64, u64) {
        let (mut w, mut d, mut l) = (0, 0, 0);
        for v in &self.values {
            match v {
                RefValue::Win(_) => w += 1,
                RefValue::Draw => d += 1,
                RefValue::Loss(_) => l += 1,
            }
        }
        (w, d, l)
    }

    pub fn deepest_win(&self) -> Option<u16> {
        self.values.iter().filter_map(|v| if let RefValue::Win(d) = v { Some(*d) } else { None }).max()
    }

    pub fn deepest_loss(&self) -> Option<u16> {
        self.values.iter().filter_map(|v| if let RefValue::Loss(d) = v { Some(*d) } else { None }).max()
    }

    /// Number of raw positions per value.
    pub fn histogram(&self) -> HashMap<RefValue, u64> {
        let mut h = HashMap::new();
        for v in &self.values {
            *h.entry(*v).or_insert(0) += 1;
        }
        h
    }

    /// Number of orbits (under the 16 board symmetries) per value, by
    /// Burnside's lemma: orbits in a symmetric set = average number of its
    /// elements fixed by each symmetry. (Values are symmetric, so every
    /// value class is a union of orbits.)
    pub fn orbit_histogram(&self) -> HashMap<RefValue, u64> {
        let syms = symmetries();
        let majors = masks_with(24, self.s);
        let minors = masks_with(24 - self.s, self.o);
        let nminor = minors.len();
        // the identity fixes everything
        let mut fixed: HashMap<RefValue, u64> = self.histogram();
        for perm in &syms[1..] {
            assert!(perm.iter().enumerate().any(|(i, &j)| i != j), "identity must come first");
            let part: Vec<RefValue> = majors
                .par_iter()
                .enumerate()
                .filter(|&(_, &m)| apply_perm(perm, m) == m)
                .flat_map_iter(|(r1, &m)| {
                    let free = FULL & !m;
                    minors.iter().enumerate().filter_map(move |(r2, &c)| {
                        let p = expand(c, free);
                        (apply_perm(perm, p) == p).then(|| self.values[r1 * nminor + r2])
                    })
                })
                .collect();
            for v in part {
                *fixed.entry(v).or_insert(0) += 1;
            }
        }
        fixed
            .into_iter()
            .map(|(v, n)| {
                assert_eq!(n % syms.len() as u64, 0, "Burnside sum not divisible for {v:?}");
                (v, n / syms.len() as u64)
            })
            .collect()
    }

    /// (wins, draws, losses) counted in orbits.
    pub fn orbit_counts(&self) -> (u64, u64, u64) {
        let (mut w, mut d, mut l) = (0, 0, 0);
        for (v, n) in self.orbit_histogram() {
            match v {
                RefValue::Win(_) => w += n,
                RefValue::Draw => d += n,
                RefValue::Loss(_) => l += n,
            }
        }
        (w, d, l)
    }
}

// ---------------------------------------------------------------------------
// Solver
// ---------------------------------------------------------------------------

/// Where the children of a position of one subspace live.
#[derive(Clone, Copy)]
enum CaptureTarget<'a> {
    /// The opponent is left with 2 stones: the game is over, Loss(0) for it.
    Terminal,
    /// An already solved smaller subspace.
    Table(&'a RefTable),
}

/// Evaluate one undetermined position in round `n`, given a lookup of the
/// current (start-of-round) values of its children. Only children of depth
/// < n count as known.
fn evaluate(mover: u32, opp: u32, n: u16, lookup: impl Fn(u32, u32) -> RefValue) -> Option<RefValue> {
    let mut min_loss: Option<u16> = None;
    let mut max_win: Option<u16> = None;
    let mut all_children_known_wins = true;
    for_each_child(mover, opp, |cm, co| match lookup(cm, co) {
        RefValue::Loss(d) if d < n => min_loss = Some(min_loss.map_or(d, |x| x.min(d))),
        RefValue::Win(d) if d < n => max_win = Some(max_win.map_or(d, |x| x.max(d))),
        _ => all_children_known_wins = false,
    });
    if let Some(d) = min_loss {
        // A shorter loss child would have made this a win in an earlier round.
        assert_eq!(d + 1, n, "Jacobi invariant broken (win)");
        Some(RefValue::Win(n))
    } else if all_children_known_wins {
        // No children at all = blocked = Loss(0), found in round 0.
        let depth = max_win.map_or(0, |d| d + 1);
        assert_eq!(depth, n, "Jacobi invariant broken (loss)");
        Some(RefValue::Loss(n))
    } else {
        None
    }
}

/// Everything `solve_system` needs to find and read the children of a
/// position of subspace a-b.
struct SubspaceView<'a> {
    a: u32,
    b: u32,
    /// values of b-a (same system) at the start of the round
    same: &'a [RefValue],
    capture: CaptureTarget<'a>,
}

impl SubspaceView<'_> {
    /// Current value of a child (child mover, child opponent) of a position
    /// of subspace a-b.
    #[inline]
    fn lookup(&self, cm: u32, co: u32) -> RefValue {
        let cs = cm.count_ones();
        if cs == self.b {
            self.same[raw_index(self.b, self.a, cm, co)]
        } else {
            debug_assert_eq!(cs, self.b - 1);
            match self.capture {
                CaptureTarget::Terminal => RefValue::Loss(0),
                CaptureTarget::Table(t) => t.values[raw_index(self.b - 1, self.a, cm, co)],
            }
        }
    }
}

/// Bit of an event mask for round `r` (rounds >= 63 share bit 63, which then
/// means "evaluate in every round from 63 on").
fn event_bit(r: u16) -> u64 {
    1u64 << r.min(63)
}

/// Rounds at which capture children of (mover, opp) become visible: a child
/// of depth d is visible from round d+1 on. Capture values never change.
fn capture_events(view: &SubspaceView, mover: u32, opp: u32) -> u64 {
    let mut ev = 0u64;
    for_each_child(mover, opp, |cm, co| {
        if cm.count_ones() != view.b {
            if let Some(d) = view.lookup(cm, co).depth() {
                ev |= event_bit(d + 1);
            }
        }
    });
    ev
}

/// Solve the system {s-o, o-s} given the solved tables it captures into.
///
/// Besides the values (indexed by `raw_index`, major = mover), each subspace
/// a-b keeps, in "iteration order" (major = opponent p, minor = the mover
/// squeezed onto the points not in p, i.e. `raw_index(b, a, p, m)`):
/// - `open`: the position is still undetermined;
/// - `events`: the rounds at which one of its capture children appears.
///
/// Iterating by opponent p groups the positions whose non-capture children
/// all lie in one block of the partner table b-a (the block of positions
/// whose mover is p). That gives cache locality and a cheap, exact skip rule:
/// if that block got no new value in round n-1 and no capture child has
/// depth n-1, the position sees exactly the same known children with the
/// same values in round n as in round n-1, where it stayed undetermined, so
/// it stays undetermined in round n and need not be evaluated.
fn solve_system(solved: &HashMap<(u32, u32), RefTable>, s: u32, o: u32) -> Vec<RefTable> {
    let verbose = std::env::var_os("REF_VERBOSE").is_some();
    let subs: Vec<(u32, u32)> = if s == o { vec![(s, o)] } else { vec![(s, o), (o, s)] };
    // capture from a-b leads to (b-1)-a
    let targets: Vec<CaptureTarget> =
        subs.iter().map(|&(a, b)| if b - 1 < 3 { CaptureTarget::Terminal } else { CaptureTarget::Table(solved.get(&(b - 1, a)).expect("dependency solved first")) }).collect();
    let partner: Vec<usize> = subs.iter().map(|&(a, b)| subs.iter().position(|&x| x == (b, a)).unwrap()).collect();
    // Deepest value among capture children (all known from the start).
    let ext_max_depth: u16 = targets
        .iter()
        .map(|t| match t {
            CaptureTarget::Terminal => 0,
            CaptureTarget::Table(t) => t.values.iter().filter_map(|v| v.depth()).max().unwrap_or(0),
        })
        .max()
        .unwrap();

    // Draw doubles as "not determined yet" during the iteration.
    let mut vals: Vec<Vec<RefValue>> = subs.iter().map(|&(a, b)| vec![RefValue::Draw; subspace_len(a, b)]).collect();
    let opps: Vec<Vec<u32>> = subs.iter().map(|&(_, b)| masks_with(24, b)).collect();
    let movers_c: Vec<Vec<u32>> = subs.iter().map(|&(a, b)| masks_with(24 - b, a)).collect();
    let mut open: Vec<Vec<bool>> = subs.iter().map(|&(a, b)| vec![true; subspace_len(a, b)]).collect();
    // block_changed[k][rank(mover)]: some position of subspace k with that
    // mover got its value in the previous round. All true before round 0.
    let mut block_changed: Vec<Vec<bool>> = subs.iter().map(|&(a, _)| vec![true; binom(24, a) as usize]).collect();
    let events: Vec<Vec<u64>> = (0..subs.len())
        .map(|k| {
            let (a, b) = subs[k];
            let view = SubspaceView { a, b, same: &vals[partner[k]], capture: targets[k] };
            let mut ev = vec![0u64; subspace_len(a, b)];
            ev.par_chunks_mut(movers_c[k].len()).enumerate().for_each(|(rp, chunk)| {
                let p = opps[k][rp];
                let free = FULL & !p;
                for (slot, &c) in chunk.iter_mut().zip(&movers_c[k]) {
                    *slot = capture_events(&view, expand(c, free), p);
                }
            });
            ev
        })
        .collect();

    let mut n: u16 = 0;
    loop {
        // One synchronous round: compute all updates from the start-of-round
        // values, then apply them together.
        let mut evaluated = vec![0usize; subs.len()];
        let all_updates: Vec<Vec<(usize, usize, RefValue)>> = (0..subs.len())
            .map(|k| {
                let (a, b) = subs[k];
                let view = SubspaceView { a, b, same: &vals[partner[k]], capture: targets[k] };
                let nminor = movers_c[k].len();
                let (open_k, events_k, partner_changed) = (&open[k], &events[k], &block_changed[partner[k]]);
                let counted = std::sync::atomic::AtomicUsize::new(0);
                let ups: Vec<(usize, usize, RefValue)> = opps[k]
                    .par_iter()
                    .enumerate()
                    .flat_map_iter(|(rp, &p)| {
                        let mut out = Vec::new();
                        let dirty = partner_changed[rp];
                        let free = FULL & !p;
                        let mut cnt = 0;
                        for (rc, &c) in movers_c[k].iter().enumerate() {
                            let it = rp * nminor + rc;
                            if !open_k[it] || !(dirty || events_k[it] & event_bit(n) != 0) {
                                continue;
                            }
                            cnt += 1;
                            let m = expand(c, free);
                            if let Some(v) = evaluate(m, p, n, |cm, co| view.lookup(cm, co)) {
                                out.push((it, raw_index(a, b, m, p), v));
                            }
                        }
                        counted.fetch_add(cnt, std::sync::atomic::Ordering::Relaxed);
                        out
                    })
                    .collect();
                evaluated[k] = counted.into_inner();
                ups
            })
            .collect();
        let changed: usize = all_updates.iter().map(|u| u.len()).sum();
        if verbose {
            eprintln!("  round {n}: evaluated {evaluated:?}, determined {:?}", all_updates.iter().map(|u| u.len()).collect::<Vec<_>>());
        }
        for (k, updates) in all_updates.into_iter().enumerate() {
            let (a, b) = subs[k];
            let nminor_val = binom(24 - a, b) as usize;
            block_changed[k].iter_mut().for_each(|x| *x = false);
            for (it, idx, v) in updates {
                debug_assert_eq!(vals[k][idx], RefValue::Draw);
                open[k][it] = false;
                vals[k][idx] = v;
                block_changed[k][idx / nminor_val] = true;
            }
        }
        // After a quiet round the values stay frozen; a later round r could
        // only differ through a capture child of depth r-1 becoming visible,
        // and there is none beyond ext_max_depth.
        if changed == 0 && n > ext_max_depth {
            break;
        }
        n += 1;
    }

    subs.iter().zip(vals).map(|(&(a, b), values)| RefTable { s: a, o: b, values }).collect()
}

/// Solves and caches subspaces (and everything they capture into).
pub struct RefSolver {
    tables: HashMap<(u32, u32), RefTable>,
    /// Wall time of each solved system, keyed by the subspace that was asked
    /// for (its partner o-s was solved in the same run).
    pub timings: Vec<((u32, u32), Duration)>,
}

impl Default for RefSolver {
    fn default() -> Self {
        Self::new()
    }
}

impl RefSolver {
    pub fn new() -> Self {
        RefSolver { tables: HashMap::new(), timings: Vec::new() }
    }

    pub fn is_solved(&self, s: u32, o: u32) -> bool {
        self.tables.contains_key(&(s, o))
    }

    pub fn solve(&mut self, s: u32, o: u32) -> &RefTable {
        assert!((3..=9).contains(&s) && (3..=9).contains(&o), "subspace {s}-{o} out of range");
        if !self.tables.contains_key(&(s, o)) {
            // captures from s-o lead to (o-1)-s, from o-s to (s-1)-o
            if o > 3 {
                self.solve(o - 1, s);
            }
            if s > 3 {
                self.solve(s - 1, o);
            }
            let t0 = Instant::now();
            let tables = solve_system(&self.tables, s, o);
            let dt = t0.elapsed();
            eprintln!("reference: solved {s}-{o} and {o}-{s} in {:.1} s", dt.as_secs_f64());
            self.timings.push(((s, o), dt));
            for t in tables {
                self.tables.insert((t.s, t.o), t);
            }
        }
        &self.tables[&(s, o)]
    }

    /// A solved table, if any.
    pub fn table(&self, s: u32, o: u32) -> Option<&RefTable> {
        self.tables.get(&(s, o))
    }

    /// Independent check of a solved table: every position's value must
    /// satisfy the game equations with respect to its children's values
    /// (read back through `get`):
    /// - Win(d+1) where d is the shortest loss among the children;
    /// - else Loss(d+1) if all children are wins, d the longest (Loss(0) if
    ///   there are no children);
    /// - else Draw.
    ///
    /// Together with finite depths this has only one solution (induction on
    /// depth), so passing it proves the table right given the move rules.
    /// Panics with the first offending position.
    pub fn verify(&self, s: u32, o: u32) {
        let t = self.table(s, o).expect("solve first");
        let same = self.table(o, s).expect("partner solved");
        let capture = if o > 3 { Some(self.table(o - 1, s).expect("capture target solved")) } else { None };
        // grouped by opponent p, so that the children (mostly in the block
        // of `same` with mover p) stay in cache
        let opps = masks_with(24, o);
        let movers_c = masks_with(24 - o, s);
        opps.par_iter().for_each(|&p| {
            let free = FULL & !p;
            for &c in &movers_c {
                let m = expand(c, free);
                let v = t.get(m, p);
                let mut min_loss: Option<u16> = None;
                let mut max_win: Option<u16> = None;
                let mut all_wins = true;
                for_each_child(m, p, |cm, co| {
                    let cv = match cm.count_ones() {
                        2 => RefValue::Loss(0),
                        k if k == o => same.get(cm, co),
                        k => {
                            assert_eq!(k, o - 1);
                            capture.unwrap().get(cm, co)
                        }
                    };
                    match cv {
                        RefValue::Loss(d) => min_loss = Some(min_loss.map_or(d, |x| x.min(d))),
                        RefValue::Win(d) => max_win = Some(max_win.map_or(d, |x| x.max(d))),
                        RefValue::Draw => all_wins = false,
                    }
                });
                let expect = if let Some(d) = min_loss {
                    RefValue::Win(d + 1)
                } else if all_wins {
                    RefValue::Loss(max_win.map_or(0, |d| d + 1))
                } else {
                    RefValue::Draw
                };
                assert_eq!(v, expect, "{s}-{o}: mover {:?} opponent {:?}", names_of(m), names_of(p));
            }
        });
    }
}
