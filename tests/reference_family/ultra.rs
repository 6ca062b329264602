//! The ultra-strong solution of a solved start, as docs/ultra.md defines it,
//! computed plainly (a test oracle for the engine's `ultra`):
//!
//! - `sector_graph`: the sectors `X` of a start, the closure of its sector
//!   under the sector graph, found by generating the moves of the sectors'
//!   positions (every raw position, reached from the start or not).
//! - `sector_counts`: W, D, L, T of every sector of `X` over all its raw
//!   positions, in orbits of the 16 symmetries (a position counts when it is
//!   the smallest of its orbit).
//! - `sector_scores`, `sector_ranks`: the scores as exact fractions and their
//!   dense ranks, literally by the formulas of docs/ultra.md.
//! - `draw_classes`: the class and depth of every drawn raw position of every
//!   sector of `X` (whole sectors: a position's class depends only on the
//!   positions play can reach from it, so the reached positions get the same
//!   as they would from the reached ones alone). Units are solved children
//!   first. Within a unit: an explicit graph of its drawn positions and
//!   drawing moves (`UnitGraph`); the class by the threshold definition, one
//!   attractor per candidate threshold, each a least fixpoint by synchronous
//!   rounds until nothing changes (`unit_classes`); the depth by synchronous
//!   value iteration on the class-keeping moves (`unit_depths`).
//!
//! Readings chosen where docs/ultra.md leaves room (see also `unit_of`):
//! - A sector is a set of positions with the side to move at 3 stones or
//!   more (board plus hand): a move that leaves it below 3 ends the game, and
//!   its "sector" is not in `X` (docs/rules.md: subspaces are 3 <= s, o).
//! - Without `lasker` a placement sector is a unit alone, even a sector
//!   `(s, o, 0, k)` whose slides lead into its mirror `(o, s, k, 0)` (play
//!   passes one way only, never back): such a slide leaves the unit.

use super::index::{expand, masks_with, raw_index, raw_unindex, sector_len};
use super::moves::{for_each_child, terminal, Terminal};
use super::rules::{apply_perm, RefRules};
use super::solve::{mirror, sector_of, Sector, Solver};
use super::{RawPos, RefSolution, RefValue};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Mutex;
use std::time::Instant;

/// Timings on stderr with `REF_VERBOSE` set.
fn verbose() -> bool {
    std::env::var_os("REF_VERBOSE").is_some()
}

/// (wins, draws, losses, total) of a sector, in orbits.
pub type Counts = (u64, u64, u64, u64);

// ---------------------------------------------------------------------------
// Positions of a sector
// ---------------------------------------------------------------------------

/// The raw positions of sector `sec` whose side to move has the stones `m`,
/// in `raw_index` order: the position with `minors[j]` has index
/// `colex(m) * minors.len() + j` (`minors = masks_with(n - s, o)`).
fn block<'a>(rules: &RefRules, sec: Sector, m: u32, minors: &'a [u32]) -> impl Iterator<Item = RawPos> + 'a {
    let free = rules.full() & !m;
    minors.iter().map(move |&c| RawPos { mover: m, opp: expand(c, free), mover_hand: sec.2, opp_hand: sec.3 })
}

fn is_movement(sec: Sector) -> bool {
    sec.2 == 0 && sec.3 == 0
}

/// Is the side to move of this position (or child) still in the game?
fn in_game(p: &RawPos) -> bool {
    p.mover.count_ones() + p.mover_hand >= 3
}

// ---------------------------------------------------------------------------
// The sector graph and X
// ---------------------------------------------------------------------------

/// The sectors that the positions of `sec` lead into by one move: every
/// child sector of every raw position (placements, slides, flights,
/// captures), less finished games. Found by generating moves; the scan stops
/// early once every sector a move could possibly lead into has been seen.
pub fn child_sectors(rules: &RefRules, sec: Sector) -> BTreeSet<Sector> {
    let (s, o, sh, oh) = sec;
    let n = rules.points() as u32;
    // Every sector a move could lead into (a superset): only to stop early.
    let max_take = if rules.take_each { rules.geometry().mills_at.iter().map(|m| m.len() as u32).max().unwrap() } else { 1 };
    let mut maybe = BTreeSet::new();
    for c in 0..=max_take.min(o) {
        if sh > 0 {
            maybe.insert((o - c, s + 1, oh, sh - 1));
        }
        if s > 0 && (sh == 0 || rules.lasker) {
            maybe.insert((o - c, s, oh, sh));
        }
    }
    maybe.retain(|&(cs, _, csh, _)| cs + csh >= 3);

    let movers = masks_with(n, s);
    let minors = masks_with(n - s, o);
    let found = Mutex::new(BTreeSet::new());
    let done = AtomicBool::new(maybe.is_empty());
    movers.par_iter().for_each(|&m| {
        if done.load(AtomicOrdering::Relaxed) {
            return;
        }
        let mut here = BTreeSet::new();
        for p in block(rules, sec, m, &minors) {
            if terminal(rules, &p).is_none() {
                for_each_child(rules, &p, |c| {
                    if in_game(&c) {
                        here.insert(sector_of(&c));
                    }
                });
            }
        }
        let mut f = found.lock().unwrap();
        f.extend(here);
        if f.is_superset(&maybe) {
            done.store(true, AtomicOrdering::Relaxed);
        }
    });
    let found = found.into_inner().unwrap();
    assert!(found.is_subset(&maybe), "{sec:?}: child sectors {found:?} outside {maybe:?}");
    found
}

/// The sectors `X` of the start where the first player has `wk` and the
/// second `bk` stones in hand: the closure of `(0, 0, wk, bk)` under the
/// sector graph, each with its child sectors (`child_sectors`).
pub fn sector_graph(rules: &RefRules, wk: u32, bk: u32) -> BTreeMap<Sector, BTreeSet<Sector>> {
    let mut graph = BTreeMap::new();
    let mut todo = vec![(0, 0, wk, bk)];
    while let Some(x) = todo.pop() {
        if graph.contains_key(&x) {
            continue;
        }
        let kids = child_sectors(rules, x);
        todo.extend(kids.iter().copied());
        graph.insert(x, kids);
    }
    graph
}

/// `sector_graph` of the start of a solution.
fn graph_of(rules: &RefRules, sol: &RefSolution) -> BTreeMap<Sector, BTreeSet<Sector>> {
    let start = sol.start().expect("the solution of a start");
    assert_eq!((start.mover, start.opp), (0, 0));
    sector_graph(rules, start.mover_hand, start.opp_hand)
}

// ---------------------------------------------------------------------------
// Orbits
// ---------------------------------------------------------------------------

/// The board's 16 symmetries as lookup tables, a byte of a mask at a time
/// (the orbit counts look at every position under all 16).
pub struct Symmetries {
    tables: Vec<[[u32; 256]; 3]>,
}

impl Symmetries {
    pub fn new(rules: &RefRules) -> Symmetries {
        assert!(rules.points() <= 24);
        let tables = rules
            .geometry()
            .symmetries
            .iter()
            .map(|perm| {
                let mut t = [[0u32; 256]; 3];
                for (k, row) in t.iter_mut().enumerate() {
                    for (b, slot) in row.iter_mut().enumerate() {
                        *slot = apply_perm(perm, (b as u32) << (8 * k));
                    }
                }
                t
            })
            .collect();
        Symmetries { tables }
    }

    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Image of a mask under symmetry `k` (as `apply_perm`).
    pub fn image(&self, k: usize, m: u32) -> u32 {
        let t = &self.tables[k];
        t[0][(m & 255) as usize] | t[1][((m >> 8) & 255) as usize] | t[2][((m >> 16) & 255) as usize]
    }

    /// Image of a position under symmetry `k` (the hands stay).
    pub fn image_pos(&self, k: usize, p: &RawPos) -> RawPos {
        RawPos { mover: self.image(k, p.mover), opp: self.image(k, p.opp), ..*p }
    }

    /// Is the position the smallest of its orbit, in the order of
    /// `orbits::canonical` (mover mask, then opponent mask)?
    pub fn is_smallest(&self, mover: u32, opp: u32) -> bool {
        let me = ((mover as u64) << 32) | opp as u64;
        (0..self.len()).all(|k| ((self.image(k, mover) as u64) << 32 | self.image(k, opp) as u64) >= me)
    }
}

/// W, D, L, T of all raw positions of `sec`, reached or not, in orbits: a
/// position counts when it is the smallest of its orbit. `sol` must hold the
/// whole sector (`RefSolution::sector_value`).
pub fn sector_orbit_counts(rules: &RefRules, sol: &RefSolution, sec: Sector) -> Counts {
    let syms = Symmetries::new(rules);
    let n = rules.points() as u32;
    let minors = masks_with(n - sec.0, sec.1);
    let (w, d, l) = masks_with(n, sec.0)
        .par_iter()
        .map(|&m| {
            let (mut w, mut d, mut l) = (0u64, 0u64, 0u64);
            for p in block(rules, sec, m, &minors) {
                if !syms.is_smallest(p.mover, p.opp) {
                    continue;
                }
                match sol.sector_value(&p).unwrap_or_else(|| panic!("sector {sec:?} not in the solution")) {
                    RefValue::Win(_) => w += 1,
                    RefValue::Draw => d += 1,
                    RefValue::Loss(_) => l += 1,
                }
            }
            (w, d, l)
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    (w, d, l, w + d + l)
}

/// W, D, L, T (in orbits, over whole sectors) of every sector of `X`, for a
/// start's solution of whole sectors (`Solver::new(..).solve_start`, as
/// `solve_ultra` makes it).
pub fn sector_counts(rules: &RefRules, sol: &RefSolution) -> BTreeMap<Sector, Counts> {
    graph_of(rules, sol).keys().map(|&x| (x, sector_orbit_counts(rules, sol, x))).collect()
}

// ---------------------------------------------------------------------------
// Scores and ranks
// ---------------------------------------------------------------------------

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// An exact fraction `num / den`, `den > 0`, in lowest terms (so equal
/// values have equal fields). Arithmetic panics on overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Frac {
    pub num: i128,
    pub den: i128,
}

impl Frac {
    pub fn new(num: i128, den: i128) -> Frac {
        assert!(den != 0, "zero denominator");
        let g = gcd(num, den).max(1);
        let sign = if den < 0 { -1 } else { 1 };
        Frac { num: sign * num / g, den: sign * den / g }
    }

    pub fn int(k: i128) -> Frac {
        Frac::new(k, 1)
    }

    pub fn sub(self, o: Frac) -> Frac {
        let num = self.num.checked_mul(o.den).and_then(|a| o.num.checked_mul(self.den).and_then(|b| a.checked_sub(b)));
        Frac::new(num.expect("fraction overflow"), self.den.checked_mul(o.den).expect("fraction overflow"))
    }

    pub fn div_int(self, k: i128) -> Frac {
        Frac::new(self.num, self.den.checked_mul(k).expect("fraction overflow"))
    }

    pub fn abs(self) -> Frac {
        Frac { num: self.num.abs(), den: self.den }
    }

    pub fn signum(self) -> i32 {
        self.num.signum() as i32
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl Ord for Frac {
    fn cmp(&self, o: &Frac) -> Ordering {
        let a = self.num.checked_mul(o.den).expect("fraction overflow");
        let b = o.num.checked_mul(self.den).expect("fraction overflow");
        a.cmp(&b)
    }
}

impl PartialOrd for Frac {
    fn partial_cmp(&self, o: &Frac) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// The score `a(x)` of every sector of `X` (the keys of `counts`), by the
/// formulas of docs/ultra.md:
/// - movement: `v(x) = (W(x) + L(x') + D(x)/2 + D(x')/2) / (T(x) + T(x'))`,
///   `a = v - 1/2` (a mirror outside `X` counts as a sector without
///   positions);
/// - placement: `v(x) = (W + D/2) / T`, `a = (v(x) - v(x'))/2` when `x'` is
///   in `X` too, else `a = v(x) - 1/2`;
/// - no positions: 0.
pub fn sector_scores(counts: &BTreeMap<Sector, Counts>) -> BTreeMap<Sector, Frac> {
    let half = Frac::new(1, 2);
    let zero = Frac::int(0);
    counts
        .iter()
        .map(|(&x, &(w, d, l, t))| {
            assert_eq!(w + d + l, t, "{x:?}: T = W + D + L");
            let (w, d, t) = (w as i128, d as i128, t as i128);
            let a = if is_movement(x) {
                let (_, d2, l2, t2) = counts.get(&mirror(x)).copied().unwrap_or((0, 0, 0, 0));
                let (d2, l2, t2) = (d2 as i128, l2 as i128, t2 as i128);
                if t + t2 == 0 {
                    zero
                } else {
                    // (W + L' + D/2 + D'/2) / (T + T'), both halves doubled
                    Frac::new(2 * w + 2 * l2 + d + d2, 2 * (t + t2)).sub(half)
                }
            } else if t == 0 {
                zero
            } else {
                let v = Frac::new(2 * w + d, 2 * t);
                match counts.get(&mirror(x)) {
                    Some(&(w2, d2, _, t2)) => {
                        assert!(t2 > 0, "{:?} has no positions", mirror(x));
                        let v2 = Frac::new(2 * w2 as i128 + d2 as i128, 2 * t2 as i128);
                        v.sub(v2).div_int(2)
                    }
                    None => v.sub(half),
                }
            };
            (x, a)
        })
        .collect()
}

/// The rank of every sector of `X`: the distinct magnitudes `|a(x)| > 0`
/// sorted ascending and numbered from 1 (equal magnitudes share a number);
/// `sign(a(x))` times the number of `|a(x)|`, 0 when `a(x) = 0`.
pub fn sector_ranks(counts: &BTreeMap<Sector, Counts>) -> BTreeMap<Sector, i32> {
    let scores = sector_scores(counts);
    let mut mags: Vec<Frac> = scores.values().filter(|a| a.num != 0).map(|a| a.abs()).collect();
    mags.sort();
    mags.dedup();
    scores
        .iter()
        .map(|(&x, a)| {
            let r = if a.num == 0 { 0 } else { a.signum() * (mags.binary_search(&a.abs()).unwrap() as i32 + 1) };
            (x, r)
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The game of one unit, as an explicit graph
// ---------------------------------------------------------------------------

/// The game of docs/ultra.md on the drawn positions of one unit. Nodes are
/// positions, each seen from its own side to move; `edges` are the drawing
/// moves that stay in the unit. Of the drawing moves that leave it, only the
/// best payoff matters: a player who leaves at a node takes its best exit,
/// and a class-keeping exit exists exactly when the best one keeps the class
/// (no exit pays more than the class).
pub struct UnitGraph {
    /// `u(p)`: the rank of the node's sector (its side to move's payoff if
    /// play stays in the unit forever).
    pub u: Vec<i32>,
    /// The best payoff to the node's side to move of its drawing moves out of
    /// the unit, `-c(q)`; None if it has none.
    pub best_exit: Vec<Option<i32>>,
    /// Terminal draws (no moves; they pay `u`).
    pub terminal: Vec<bool>,
    /// The node's drawing moves within the unit: `edges[offsets[p]..offsets[p + 1]]`.
    pub offsets: Vec<usize>,
    pub edges: Vec<u32>,
}

impl UnitGraph {
    /// A graph from a list of nodes `(u, best_exit, terminal, moves)`.
    pub fn from_nodes(nodes: &[(i32, Option<i32>, bool, Vec<u32>)]) -> UnitGraph {
        let mut g = UnitGraph { u: Vec::new(), best_exit: Vec::new(), terminal: Vec::new(), offsets: vec![0], edges: Vec::new() };
        for (u, e, t, moves) in nodes {
            g.u.push(*u);
            g.best_exit.push(*e);
            g.terminal.push(*t);
            g.edges.extend(moves);
            g.offsets.push(g.edges.len());
        }
        g.check();
        g
    }

    pub fn len(&self) -> usize {
        self.u.len()
    }

    pub fn moves(&self, p: usize) -> &[u32] {
        &self.edges[self.offsets[p]..self.offsets[p + 1]]
    }

    /// A terminal draw has no moves; any other drawn position has one at
    /// least; a move within the unit keeps the payoff of staying (`u(q) =
    /// -u(p)`: the payoffs are zero-sum).
    fn check(&self) {
        let n = self.len();
        assert_eq!((self.best_exit.len(), self.terminal.len(), self.offsets.len()), (n, n, n + 1));
        for p in 0..n {
            let has_moves = !self.moves(p).is_empty() || self.best_exit[p].is_some();
            assert_eq!(has_moves, !self.terminal[p], "node {p}: moves iff not terminal");
            for &q in self.moves(p) {
                assert_eq!(self.u[q as usize], -self.u[p], "move {p} -> {q}: u not zero-sum");
            }
        }
    }
}

/// Attractors for threshold `s`, the least fixpoint of
/// - `a(p)`: the side to move at `p` can force a drawing exit that pays it
///   at least `s`: its best exit pays `>= s`, or one of its moves leads to a
///   `q` with `n(q)`;
/// - `n(p)`: the other side can: `p` is not terminal, every exit of `p`
///   pays the side to move `<= -s` (the other side `>= s`), and every move
///   of `p` within the unit leads to a `q` with `a(q)`;
///
/// by synchronous rounds from empty sets until nothing changes.
pub fn attractors(g: &UnitGraph, s: i32) -> (Vec<bool>, Vec<bool>) {
    let n = g.len();
    let mut a = vec![false; n];
    let mut b = vec![false; n];
    let mut rounds = 0;
    loop {
        let (a2, b2): (Vec<bool>, Vec<bool>) = (0..n)
            .into_par_iter()
            .map(|p| {
                let moves = g.moves(p);
                let ap = a[p] || g.best_exit[p].is_some_and(|e| e >= s) || moves.iter().any(|&q| b[q as usize]);
                let bp = b[p] || (!g.terminal[p] && g.best_exit[p].is_none_or(|e| e <= -s) && moves.iter().all(|&q| a[q as usize]));
                (ap, bp)
            })
            .unzip();
        if a2 == a && b2 == b {
            if verbose() && n > 1_000_000 {
                eprintln!("ultra:   attractors of {s}: {} rounds", rounds);
            }
            return (a, b);
        }
        rounds += 1;
        a = a2;
        b = b2;
    }
}

/// The class of every node, by the threshold definition of docs/ultra.md:
/// for `t > u(p)`, `c(p) >= t` iff `p` is in the attractor `a` of `t`; for
/// `t <= u(p)`, iff the opponent cannot force an exit paying the side to
/// move less than `t`, i.e. paying itself `>= 1 - t` (payoffs are integers):
/// `p` is not in the attractor `n` of `1 - t`. The class is the largest `t`
/// that passes among the payoffs any outcome can give (`±u` and `±` every
/// best exit); smaller candidates must pass too (checked).
pub fn unit_classes(g: &UnitGraph) -> Vec<i32> {
    g.check();
    let n = g.len();
    let mut values: Vec<i32> = g.u.iter().chain(g.best_exit.iter().flatten()).flat_map(|&v| [v, -v]).collect();
    values.sort_unstable_by(|a, b| b.cmp(a));
    values.dedup();
    let mut class: Vec<Option<i32>> = vec![None; n];
    for &t in &values {
        let above = g.u.iter().any(|&u| t > u).then(|| attractors(g, t).0);
        let below = g.u.iter().any(|&u| t <= u).then(|| attractors(g, 1 - t).1);
        class.par_iter_mut().enumerate().for_each(|(p, c)| {
            let at_least_t = if t > g.u[p] { above.as_ref().unwrap()[p] } else { !below.as_ref().unwrap()[p] };
            match c {
                None if at_least_t => *c = Some(t),
                None => {}
                Some(big) => assert!(at_least_t, "node {p}: class >= {big} but not >= {t}"),
            }
        });
    }
    class.into_iter().map(|c| c.expect("every node has a class")).collect()
}

/// The depth of every node (None when its class is its `u`), by the
/// tie-break of docs/ultra.md: on the class-keeping moves (to `q` with
/// `-c(q) = c(p)`, and an exit paying `c(p)`, which counts 1), the favoured
/// side (the side to move when `c(p) > u(p)`) takes `1 + min`, the other
/// `1 + max`. Synchronous value iteration: round r decides the nodes of depth
/// r from those decided before; every node with `c != u` must be decided.
pub fn unit_depths(g: &UnitGraph, class: &[i32]) -> Vec<Option<u32>> {
    let n = g.len();
    let mut depth: Vec<Option<u32>> = vec![None; n];
    let mut todo: Vec<usize> = (0..n).filter(|&p| class[p] != g.u[p]).collect();
    let mut round = 1u32;
    while !todo.is_empty() {
        let found: Vec<(usize, Option<u32>)> = todo
            .par_iter()
            .map(|&p| {
                let t = class[p];
                let favoured = t > g.u[p];
                let mut known: Vec<u32> = Vec::new();
                let mut all_known = true;
                if g.best_exit[p] == Some(t) {
                    known.push(0);
                }
                for &q in g.moves(p) {
                    if class[q as usize] == -t {
                        match depth[q as usize] {
                            Some(d) => known.push(d),
                            None => all_known = false,
                        }
                    }
                }
                let d = if favoured {
                    known.iter().min().map(|d| d + 1)
                } else if all_known {
                    known.iter().max().map(|d| d + 1)
                } else {
                    None
                };
                (p, d)
            })
            .collect();
        let mut left = Vec::new();
        for (p, d) in found {
            match d {
                Some(d) => {
                    assert_eq!(d, round, "node {p}: depth {d} found in round {round}");
                    depth[p] = Some(d);
                }
                None => left.push(p),
            }
        }
        assert!(left.len() < todo.len(), "nodes {left:?} of class != u without a finite depth");
        todo = left;
        round += 1;
    }
    depth
}

// ---------------------------------------------------------------------------
// Draw classes of a start
// ---------------------------------------------------------------------------

/// Marks in the class tables.
const NOT_DRAWN: i32 = i32::MIN;
const UNKNOWN: i32 = i32::MIN + 1;
const NO_DEPTH: u32 = u32::MAX;

/// Sector numbers are at most 12.
const SLOT_BASE: usize = 13;

fn slot((s, o, sh, oh): Sector) -> usize {
    ((s as usize * SLOT_BASE + o as usize) * SLOT_BASE + sh as usize) * SLOT_BASE + oh as usize
}

struct SectorTable {
    sec: Sector,
    /// By `raw_index`: the class, `NOT_DRAWN` for a position that is no draw.
    class: Vec<i32>,
    /// By `raw_index`: the depth, `NO_DEPTH` for none.
    depth: Vec<u32>,
}

/// The class and depth of every drawn raw position of every sector of `X`
/// (reached from the start or not), from its side to move's point of view.
pub struct DrawClasses {
    rules: RefRules,
    n: u32,
    tables: Vec<SectorTable>,
    /// By `slot(sector)`: its number in `tables`, or `usize::MAX`.
    which: Vec<usize>,
    /// The units, in the order solved (children first).
    pub units: Vec<Vec<Sector>>,
}

impl DrawClasses {
    fn table(&self, sec: Sector) -> Option<&SectorTable> {
        if sec.0.max(sec.1).max(sec.2).max(sec.3) as usize >= SLOT_BASE {
            return None;
        }
        self.tables.get(self.which[slot(sec)])
    }

    /// `(class, depth)` of a drawn position of a sector of `X`; None for a
    /// position that is no draw or outside `X`.
    pub fn get(&self, p: &RawPos) -> Option<(i32, Option<u32>)> {
        if p.mover & p.opp != 0 || (p.mover | p.opp) & !self.rules.full() != 0 {
            return None;
        }
        let t = self.table(sector_of(p))?;
        let idx = raw_index(self.n, p.mover, p.opp);
        let c = t.class[idx];
        assert_ne!(c, UNKNOWN);
        (c != NOT_DRAWN).then(|| (c, (t.depth[idx] != NO_DEPTH).then_some(t.depth[idx])))
    }

    /// The sectors of `X`.
    pub fn sectors(&self) -> Vec<Sector> {
        self.tables.iter().map(|t| t.sec).collect()
    }

    /// Every drawn position with its class and depth, sector by sector.
    pub fn iter(&self) -> impl Iterator<Item = (RawPos, i32, Option<u32>)> + '_ {
        let (n, full) = (self.n, self.rules.full());
        self.tables.iter().flat_map(move |t| {
            let (s, o, sh, oh) = t.sec;
            let movers = masks_with(n, s);
            let minors = masks_with(n - s, o);
            (0..t.class.len()).filter(move |&i| t.class[i] != NOT_DRAWN).map(move |i| {
                let m = movers[i / minors.len()];
                let p = RawPos { mover: m, opp: expand(minors[i % minors.len()], full & !m), mover_hand: sh, opp_hand: oh };
                (p, t.class[i], (t.depth[i] != NO_DEPTH).then_some(t.depth[i]))
            })
        })
    }

    /// Number of drawn raw positions.
    pub fn len(&self) -> usize {
        self.tables.iter().map(|t| t.class.iter().filter(|&&c| c != NOT_DRAWN).count()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of drawn raw positions of each class.
    pub fn class_histogram(&self) -> BTreeMap<i32, u64> {
        let mut h = BTreeMap::new();
        for t in &self.tables {
            for &c in &t.class {
                if c != NOT_DRAWN {
                    *h.entry(c).or_insert(0) += 1;
                }
            }
        }
        h
    }

    /// Number of drawn raw positions of each (class, depth).
    pub fn depth_histogram(&self) -> BTreeMap<(i32, Option<u32>), u64> {
        let mut h = BTreeMap::new();
        for t in &self.tables {
            for (&c, &d) in t.class.iter().zip(&t.depth) {
                if c != NOT_DRAWN {
                    *h.entry((c, (d != NO_DEPTH).then_some(d))).or_insert(0) += 1;
                }
            }
        }
        h
    }
}

/// The unit of sector `x` among the sectors `xs`: a movement sector with its
/// mirror, under `lasker` any sector with its mirror (the sectors of `X`
/// with stones on the board on both sides, where moves pass both ways; one
/// side without stones on the board can only be a start, its own mirror),
/// else the sector alone. Sorted.
pub fn unit_of(rules: &RefRules, x: Sector, xs: &BTreeSet<Sector>) -> Vec<Sector> {
    let m = mirror(x);
    if m != x && (is_movement(x) || rules.lasker) && xs.contains(&m) {
        let mut u = vec![x, m];
        u.sort();
        u
    } else {
        vec![x]
    }
}

/// The units of `X`, each after every unit its sectors lead into.
pub fn units_children_first(rules: &RefRules, graph: &BTreeMap<Sector, BTreeSet<Sector>>) -> Vec<Vec<Sector>> {
    let xs: BTreeSet<Sector> = graph.keys().copied().collect();
    fn visit(
        rules: &RefRules,
        graph: &BTreeMap<Sector, BTreeSet<Sector>>,
        xs: &BTreeSet<Sector>,
        unit: Vec<Sector>,
        done: &mut BTreeMap<Vec<Sector>, bool>,
        out: &mut Vec<Vec<Sector>>,
    ) {
        done.insert(unit.clone(), false); // in progress
        for x in &unit {
            for &c in &graph[x] {
                if unit.contains(&c) {
                    continue;
                }
                let cu = unit_of(rules, c, xs);
                match done.get(&cu) {
                    Some(true) => {}
                    Some(false) => panic!("units {unit:?} and {cu:?} lead into each other"),
                    None => visit(rules, graph, xs, cu, done, out),
                }
            }
        }
        done.insert(unit.clone(), true);
        out.push(unit);
    }
    let mut done = BTreeMap::new();
    let mut out = Vec::new();
    for &x in &xs {
        let u = unit_of(rules, x, &xs);
        if !done.contains_key(&u) {
            visit(rules, graph, &xs, u, &mut done, &mut out);
        }
    }
    out
}

/// The graph of the game of one unit: its nodes are the drawn positions of
/// its sectors (sector by sector, each in `raw_index` order), with their
/// raw indices.
fn unit_graph(rules: &RefRules, unit: &[Sector], ranks: &BTreeMap<Sector, i32>, dc: &DrawClasses) -> (UnitGraph, Vec<Vec<u32>>) {
    let n = rules.points() as u32;
    let tables: Vec<&SectorTable> = unit.iter().map(|&x| dc.table(x).unwrap()).collect();
    // node number of each drawn position: the sectors one after the other
    let node_idx: Vec<Vec<u32>> = tables.iter().map(|t| (0..t.class.len()).filter(|&i| t.class[i] == UNKNOWN).map(|i| i as u32).collect()).collect();
    let mut first = vec![0usize];
    for v in &node_idx {
        first.push(first.last().unwrap() + v.len());
    }
    assert!(*first.last().unwrap() < u32::MAX as usize);
    let node_of: Vec<Vec<u32>> = tables
        .iter()
        .zip(&node_idx)
        .zip(&first)
        .map(|((t, idx), &f)| {
            let mut v = vec![u32::MAX; t.class.len()];
            for (k, &i) in idx.iter().enumerate() {
                v[i as usize] = (f + k) as u32;
            }
            v
        })
        .collect();

    type Chunk = (Vec<(i32, Option<i32>, bool, usize)>, Vec<u32>);
    let mut g = UnitGraph { u: Vec::new(), best_exit: Vec::new(), terminal: Vec::new(), offsets: vec![0], edges: Vec::new() };
    for (k, &x) in unit.iter().enumerate() {
        let (s, o, sh, oh) = x;
        let u = ranks[&x];
        let movers = masks_with(n, s);
        let minors = masks_with(n - s, o);
        let chunks: Vec<Chunk> = node_idx[k]
            .par_chunks(4096)
            .map(|idxs| {
                let mut nodes = Vec::with_capacity(idxs.len());
                let mut edges = Vec::new();
                for &i in idxs {
                    let (m, p) = raw_unindex(n, s, o, i as usize, &movers, &minors);
                    let pos = RawPos { mover: m, opp: p, mover_hand: sh, opp_hand: oh };
                    let before = edges.len();
                    let mut best: Option<i32> = None;
                    let term = match terminal(rules, &pos) {
                        Some(Terminal::Draw) => true,
                        Some(Terminal::Loss) => panic!("{pos:?}: a terminal loss marked drawn"),
                        None => false,
                    };
                    if !term {
                        for_each_child(rules, &pos, |c| {
                            if !in_game(&c) {
                                return; // a won game: not a drawing move
                            }
                            let cs = sector_of(&c);
                            let t = dc.table(cs).unwrap_or_else(|| panic!("child sector {cs:?} not in X"));
                            let ci = raw_index(n, c.mover, c.opp);
                            let cc = t.class[ci];
                            if cc == NOT_DRAWN {
                                return;
                            }
                            if let Some(k2) = unit.iter().position(|&y| y == cs) {
                                edges.push(node_of[k2][ci]);
                            } else {
                                assert_ne!(cc, UNKNOWN, "{cs:?} leads out of {unit:?} but is not solved");
                                best = Some(best.map_or(-cc, |b| b.max(-cc)));
                            }
                        });
                    }
                    nodes.push((u, best, term, edges.len() - before));
                }
                (nodes, edges)
            })
            .collect();
        for (nodes, edges) in chunks {
            for (u, best, term, deg) in nodes {
                g.u.push(u);
                g.best_exit.push(best);
                g.terminal.push(term);
                g.offsets.push(g.offsets.last().unwrap() + deg);
            }
            g.edges.extend(edges);
        }
    }
    assert_eq!(g.len(), *first.last().unwrap());
    (g, node_idx)
}

/// The class and depth of every drawn raw position of every sector of `X`
/// (the keys of `ranks`), for a start's solution of whole sectors, with the
/// ranks of docs/ultra.md (`sector_ranks`) or any others that give a sector
/// and its mirror opposite ranks.
pub fn draw_classes(rules: &RefRules, sol: &RefSolution, ranks: &BTreeMap<Sector, i32>) -> DrawClasses {
    let graph = graph_of(rules, sol);
    assert!(graph.keys().eq(ranks.keys()), "ranks must name exactly the sectors of X");
    let n = rules.points() as u32;
    let mut which = vec![usize::MAX; SLOT_BASE.pow(4)];
    let mut tables = Vec::new();
    for &x in graph.keys() {
        let (s, o, _, _) = x;
        let minors = masks_with(n - s, o);
        let mut class = vec![NOT_DRAWN; sector_len(n, s, o)];
        class.par_chunks_mut(minors.len()).zip(masks_with(n, s)).for_each(|(chunk, m)| {
            for (c, p) in chunk.iter_mut().zip(block(rules, x, m, &minors)) {
                let v = sol.sector_value(&p).unwrap_or_else(|| panic!("sector {x:?} not in the solution"));
                if v == RefValue::Draw {
                    *c = UNKNOWN;
                }
            }
        });
        let depth = vec![NO_DEPTH; class.len()];
        which[slot(x)] = tables.len();
        tables.push(SectorTable { sec: x, class, depth });
        if let Some(&r) = ranks.get(&mirror(x)) {
            assert_eq!(r, -ranks[&x], "{x:?}: ranks not antisymmetric");
        }
    }
    let units = units_children_first(rules, &graph);
    let mut dc = DrawClasses { rules: *rules, n, tables, which, units: units.clone() };
    for unit in &units {
        let t0 = Instant::now();
        let (g, node_idx) = unit_graph(rules, unit, ranks, &dc);
        let t1 = Instant::now();
        let class = unit_classes(&g);
        let t2 = Instant::now();
        let depth = unit_depths(&g, &class);
        if verbose() && g.len() > 0 {
            eprintln!(
                "ultra: unit {unit:?}: {} drawn, {} moves within; graph {:.1} s, classes {:.1} s, depths {:.1} s",
                g.len(),
                g.edges.len(),
                (t1 - t0).as_secs_f64(),
                (t2 - t1).as_secs_f64(),
                t2.elapsed().as_secs_f64()
            );
        }
        let mut node = 0;
        for (k, &x) in unit.iter().enumerate() {
            let t = &mut dc.tables[dc.which[slot(x)]];
            for &i in &node_idx[k] {
                t.class[i as usize] = class[node];
                t.depth[i as usize] = depth[node].unwrap_or(NO_DEPTH);
                node += 1;
            }
        }
    }
    dc
}

/// Solves the start (whole sectors: the sector values count them) and
/// computes its ultra-strong solution: the solution, the rank of every
/// sector of `X`, and the class and depth of every drawn position of `X`.
pub fn solve_ultra(rules: &RefRules, wk: u32, bk: u32) -> (RefSolution, BTreeMap<Sector, i32>, DrawClasses) {
    let t0 = Instant::now();
    let sol = Solver::new(rules).solve_start(wk, bk);
    let t1 = Instant::now();
    let counts = sector_counts(rules, &sol);
    let ranks = sector_ranks(&counts);
    let t2 = Instant::now();
    let classes = draw_classes(rules, &sol, &ranks);
    if verbose() {
        eprintln!("ultra: solved in {:.1} s, counts and ranks {:.1} s, classes {:.1} s", (t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64(), t2.elapsed().as_secs_f64());
    }
    (sol, ranks, classes)
}
