//! Exact alpha-beta search of the placement phase over the movement tables.
//!
//! Scores are `Value::goodness`: a win in `d` is `100_000 - d`, a loss in `d` is
//! `-100_000 + d`, a draw `0`. A child's score `g` is worth `shrink(-g)` to its parent
//! (one ply further from the end), and `shrink` is monotone, so alpha-beta with windows
//! mapped through `grow` is exact on depths as well as on results. No score lies
//! strictly between -1 and 1 except the draw, so one search with the window (-1, 1)
//! settles win/draw/loss; a second one, on the winning or losing side only, finds the
//! depth. Bounds go to a transposition table keyed by the position up to the 16
//! symmetries and the ply, so transpositions of placement order, which are the rule in
//! this phase, are searched once.
//!
//! Move ordering: a child whose table entry already cuts off is taken without search
//! (enhanced transposition cutoff); then captures, moves that block a mill the
//! opponent threatens, and moves that make a two-in-a-row, each with a history bonus.
//! Near the root, children after the first are searched in parallel (young brothers
//! wait), sharing the table.

use super::tt::Bounds;
pub use super::tt::Tt;
use super::{for_each_ply_move, movement_root, terminal, MovementTables, Ply, Solution};
use crate::cpu::prefetch;
use crate::position::index::SetOrbits;
use crate::position::value::Value;
use crate::position::value::{sort_moves, MoveInfo};
use crate::position::Position;
use crate::rules::game::Game;
use crate::rules::geometry::{Bits, MAX_POINTS};
use crate::solve::progress::Progress;
use rayon::prelude::*;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering::Relaxed};

const INF: i32 = 1_000_000;
/// Score of a win in one ply, the best there is.
const WIN_NOW: i32 = 99_999;
/// Scores of the longest win and loss the value encoding holds.
/// Plies the placement phase can add to a movement value's depth, and more: 2 x 12
/// stones.
const PLACEMENT_PLIES: i32 = 32;
/// Key flag of searches over the packed result tables, where a leaf's score is only
/// its result (a win counts as a win in 1, a loss as a loss in 0). Such scores are
/// right on the side of 0 they fall, which is all a (-1, 1) window asks; their bounds
/// are kept apart from exact ones by this flag.
const WLD_ONLY: u64 = 1 << 56;
/// Nodes this close to the root search their later children in parallel.
const PARALLEL_PLIES: usize = 4;

#[inline]
fn grow(x: i32) -> i32 {
    x + x.signum()
}

#[inline]
fn shrink(x: i32) -> i32 {
    x - x.signum()
}

/// A transposition table size suited to the placement plies left from `root`:
/// touching fresh memory costs time (the OS zeroes it), so small searches get small
/// tables.
pub fn table_bytes_for(root: &Position) -> usize {
    let plies = super::schedule(root).len() - 1;
    1 << (12 + 2 * plies.min(9))
}

struct Child {
    mover: Bits,
    opp: Bits,
    key: u64,
    order: i32,
}

/// The search from one root: its plies, the tables it reads and the statistics it
/// keeps. [`solve`] and [`solve_with_tt`] drive it; use it directly to value positions of
/// the root's game one by one with [`Search::exact`].
pub struct Search<'a> {
    /// The rules of the tables, which the search plays by.
    game: &'static Game,
    plies: Vec<Ply>,
    /// Index of the first movement ply.
    last: usize,
    tables: &'a MovementTables,
    tt: &'a Tt,
    /// Scores no win is below and no loss above (see [`MovementTables::deepest`]).
    longest_win: i32,
    longest_loss: i32,
    nodes: AtomicU64,
    /// Cutoffs per (ply, destination point), for move ordering.
    history: Vec<AtomicU64>,
    progress: &'a dyn Progress,
}

/// The transposition key of a node: the position up to symmetry, the mover's stone
/// count (orbit numbers are per count) and both hands, all from the side to move's point
/// of view. A value depends on nothing else (not on colour, nor on the root), so one
/// table serves any number of searches of one rule set.
#[inline(always)]
fn key(game: &Game, ply: Ply, mover: Bits, opp: Bits) -> u64 {
    let k = mover.count_ones();
    let (orbit, b) = SetOrbits::get(game.rules().board(), k as usize).canonical_pair(mover, opp);
    let (mh, oh) = (ply.mover_hand() as u64, (ply.white_hand + ply.black_hand - ply.mover_hand()) as u64);
    1 << 54 | oh << 50 | mh << 46 | (k as u64) << 42 | (orbit as u64) << MAX_POINTS | b as u64
}

/// The best score over children that are movement positions, stopping at `beta`.
/// Every child's entry is located (and prefetched) before any is read, so that their
/// cache misses overlap. Inlined whole, loop included (no `collect`), so that the index
/// computations land in the search's `fast!` copy.
#[inline(always)]
fn best_of_leaves<'t, A: Copy>(children: &[Child], beta: i32, locate: impl Fn(&Child) -> A, byte: impl Fn(A) -> Option<&'t u8>, score: impl Fn(A, &Child) -> i32) -> i32 {
    let mut at: Vec<A> = Vec::with_capacity(children.len());
    for c in children {
        let a = locate(c);
        if let Some(p) = byte(a) {
            prefetch(p);
        }
        at.push(a);
    }
    let mut best = -INF;
    for (a, c) in at.into_iter().zip(children) {
        best = best.max(shrink(-score(a, c)));
        if best >= beta {
            break;
        }
    }
    best
}

/// Points where `side` would close a mill by adding one stone.
#[inline]
fn mill_threats(game: &Game, side: Bits, empty: Bits) -> Bits {
    let mut out = 0;
    let mut e = empty;
    while e != 0 {
        let p = e.trailing_zeros() as usize;
        e &= e - 1;
        // Unused entries are `NO_MILL`, a point no side holds.
        let [m1, m2, m3] = game.point_mills()[p];
        let (r1, r2, r3) = (m1 & !(1 << p), m2 & !(1 << p), m3 & !(1 << p));
        if side & r1 == r1 || side & r2 == r2 || side & r3 == r3 {
            out |= 1 << p;
        }
    }
    out
}

impl<'a> Search<'a> {
    /// A search of the game from `root`, reading `tables` and storing bounds in `tt`
    /// (which may be shared with other searches).
    pub fn new(root: &Position, tables: &'a MovementTables, tt: &'a Tt, progress: &'a dyn Progress) -> Search<'a> {
        let plies = super::schedule(root);
        let last = plies.len() - 1;
        // A placement node's value is at most the placement plies deeper than the
        // deepest movement value, a win or a loss (a win one ply up is a loss's depth
        // plus one).
        let (win, loss) = tables.deepest();
        let longest = win.max(loss) as i32 + PLACEMENT_PLIES;
        Search {
            longest_win: 100_000 - longest,
            longest_loss: -100_000 + longest,
            game: tables.game(),
            history: (0..plies.len() * MAX_POINTS).map(|_| AtomicU64::new(0)).collect(),
            plies,
            last,
            tables,
            tt,
            nodes: AtomicU64::new(0),
            progress,
        }
    }

    /// The exact score of the node at ply `t` for its side to move, in
    /// [`Value::goodness`] units. `t` counts plies from the root of [`Search::new`],
    /// which fixes the hands and the side to move; `mover` and `opp` are the stones of
    /// that side and of the other.
    pub fn exact(&self, t: usize, mover: Bits, opp: Bits) -> i32 {
        if t == self.last {
            return self.tables.value(mover, opp).goodness();
        }
        if let Some(v) = terminal(self.plies[t], mover) {
            return v.goodness();
        }
        let k = key(self.game, self.plies[t], mover, opp);
        // The result first, over the packed result tables.
        if self.search(t, mover, opp, k | WLD_ONLY, -1, 1) == 0 {
            return 0;
        }
        // Then the depth, over the full tables. The same first test there gives a
        // fail-soft bound on the depth's side of 0 to start from. Then narrow
        // [lower, upper] with null-window tests, each of which needs only a proof
        // tree (one move at the prover's nodes); a full window would search every
        // winning line for the shortest.
        let v = self.search(t, mover, opp, k, -1, 1);
        // A win's depth is odd and a loss's even, so its score is odd for a win and
        // even for a loss: bounds snap to those, and no test is spent in between.
        let parity = (v > 0) as i32;
        let snap_up = |x: i32| if x.rem_euclid(2) == parity { x } else { x + 1 };
        let snap_down = |x: i32| if x.rem_euclid(2) == parity { x } else { x - 1 };
        let (mut lower, mut upper) = if v > 0 { (snap_up(v), WIN_NOW) } else { (-100_000, snap_down(v)) };
        while lower < upper {
            let mid = snap_up(lower + (upper - lower + 1) / 2);
            let r = self.search(t, mover, opp, k, mid - 1, mid);
            if r >= mid {
                lower = snap_up(r);
            } else {
                upper = snap_down(r);
            }
        }
        lower
    }

    /// Fail-soft alpha-beta: the exact score if it lies strictly inside (alpha, beta),
    /// else a bound on the same side of the window. The node is not terminal and `t`
    /// is a placement-phase ply.
    fn search(&self, t: usize, mover: Bits, opp: Bits, key: u64, alpha: i32, beta: i32) -> i32 {
        // The recursion goes through here, so each node picks the code path anew.
        crate::cpu::fast!(self.node(t, mover, opp, key, alpha, beta))
    }

    #[inline(always)]
    fn node(&self, t: usize, mover: Bits, opp: Bits, key: u64, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes.fetch_add(1, Relaxed);
        if let Some(b) = self.bounds(key) {
            if b.lower >= beta || b.lower == b.upper {
                return b.lower;
            }
            if b.upper <= alpha {
                return b.upper;
            }
            alpha = alpha.max(b.lower);
            beta = beta.min(b.upper);
        }
        let (ply, next) = (self.plies[t], self.plies[t + 1]);
        let mut children = Vec::with_capacity(64);
        let empty = !(mover | opp) & self.game.full();
        let (threats, mine) = (mill_threats(self.game, opp, empty), mill_threats(self.game, mover, empty));
        let mut best = -INF;
        let mut moved_to = Vec::with_capacity(64);
        for_each_ply_move(self.game, ply, mover, opp, |mv, after, opp_after| {
            let mut order = 0;
            if opp_after != opp {
                order += 4000;
            }
            if threats >> mv.to & 1 != 0 {
                order += 2000;
            }
            if mine >> mv.to & 1 != 0 {
                order += 500;
            }
            children.push(Child { mover: opp_after, opp: after, key: 0, order });
            moved_to.push(mv.to);
        });
        if children.is_empty() {
            // Only a side that moves can be without a move: it is blocked and loses.
            let v = Value::Loss(0).goodness();
            self.tt.put(key, self.remaining(t), Bounds { lower: v, upper: v });
            return v;
        }
        if t + 1 == self.last {
            // Children are movement positions, valued by the tables.
            children.sort_unstable_by_key(|c| -c.order);
            let best = if key & WLD_ONLY != 0 {
                let score = |a, _: &Child| [-100_000, 0, WIN_NOW][(MovementTables::read_wld(a) + 1) as usize];
                best_of_leaves(
                    &children,
                    beta,
                    #[inline(always)]
                    |c| self.tables.locate_wld(c.mover, c.opp),
                    |a| a.map(|x| x.0),
                    score,
                )
            } else {
                let score = |a, c: &Child| self.tables.read_at(a, c.mover, c.opp).goodness();
                best_of_leaves(
                    &children,
                    beta,
                    #[inline(always)]
                    |c| self.tables.locate(c.mover, c.opp),
                    |a| a,
                    score,
                )
            };
            self.store(key, t, best, alpha, beta);
            return best;
        }
        let hist = &self.history[t * MAX_POINTS..(t + 1) * MAX_POINTS];
        let mut floor = -INF;
        let mut kept = Vec::with_capacity(children.len());
        for c in children.iter_mut() {
            c.key = self::key(self.game, next, c.mover, c.opp) | (key & WLD_ONLY);
            self.tt.prefetch(c.key);
            if key & WLD_ONLY == 0 {
                self.tt.prefetch(c.key | WLD_ONLY);
            }
        }
        for (mut c, to) in children.into_iter().zip(moved_to) {
            if terminal(next, c.mover).is_some() {
                // The best there is: exact.
                self.store(key, t, WIN_NOW, WIN_NOW - 1, INF);
                return WIN_NOW;
            }
            if let Some(b) = self.bounds(c.key) {
                let (at_least, at_most) = (shrink(-b.upper), shrink(-b.lower));
                if at_least >= beta {
                    self.store(key, t, at_least, alpha, beta);
                    return at_least;
                }
                if at_most <= alpha {
                    // Cannot raise alpha; it still bounds the result from above.
                    floor = floor.max(at_most);
                    continue;
                }
                if b.upper < INF {
                    // A proven floor for the parent: the higher, the sooner.
                    c.order += 8000 + at_least.clamp(-100_000, 100_000) / 32;
                }
            }
            c.order += (hist[to as usize].load(Relaxed).min(1 << 20) as i32) / 1024;
            kept.push((c, to));
        }
        best = best.max(floor);
        kept.sort_by_key(|(c, _)| -c.order);
        let parallel = t < PARALLEL_PLIES && kept.len() > 1;
        let mut rest = &kept[..];
        if parallel {
            // Young brothers wait: the first child narrows the window for the others.
            let (c, to) = &kept[0];
            let v = shrink(-self.search(t + 1, c.mover, c.opp, c.key, -grow(beta), -grow(alpha.max(best))));
            best = best.max(v);
            if best >= beta {
                hist[*to as usize].fetch_add(1 << (self.last - t), Relaxed);
            }
            self.tick(t, key);
            rest = &kept[1..];
        }
        if best < beta {
            if parallel {
                let shared = AtomicI32::new(best);
                rest.par_iter().for_each(|(c, to)| {
                    let now = shared.load(Relaxed);
                    if now < beta {
                        let v = shrink(-self.search(t + 1, c.mover, c.opp, c.key, -grow(beta), -grow(alpha.max(now))));
                        if shared.fetch_max(v, Relaxed) < beta && v >= beta {
                            hist[*to as usize].fetch_add(1 << (self.last - t), Relaxed);
                        }
                    }
                    self.tick(t, key);
                });
                best = shared.into_inner();
            } else {
                for (c, to) in rest {
                    let v = shrink(-self.search(t + 1, c.mover, c.opp, c.key, -grow(beta), -grow(alpha.max(best))));
                    if v > best {
                        best = v;
                        if best >= beta {
                            hist[*to as usize].fetch_add(1 << (self.last - t), Relaxed);
                            break;
                        }
                    }
                }
            }
        }
        self.store(key, t, best, alpha, beta);
        best
    }

    /// What the table knows of a node. A depth search also uses what the result pass
    /// learned of it: a draw is exact, a win is at least the longest win there can be,
    /// a loss at most the longest loss.
    #[inline]
    fn bounds(&self, key: u64) -> Option<Bounds> {
        let exact = self.tt.get(key);
        if key & WLD_ONLY != 0 {
            return exact;
        }
        let Some(w) = self.tt.get(key | WLD_ONLY) else { return exact };
        // Scores in the result pass have the sign of the true score.
        let lower = if w.lower > 0 {
            self.longest_win
        } else if w.lower == 0 {
            0
        } else {
            -INF
        };
        let upper = if w.upper < 0 {
            self.longest_loss
        } else if w.upper == 0 {
            0
        } else {
            INF
        };
        let b = exact.unwrap_or(Bounds { lower: -INF, upper: INF });
        Some(Bounds { lower: b.lower.max(lower), upper: b.upper.min(upper) })
    }

    /// Plies left before the movement phase: how much work a node's entry saves.
    fn remaining(&self, t: usize) -> u32 {
        (self.last - t) as u32
    }

    /// Progress counts the grandchildren of the root settled by the result pass (the
    /// depth passes that follow for a decided start are not counted).
    fn tick(&self, t: usize, key: u64) {
        if t == 1 && key & WLD_ONLY != 0 {
            self.progress.advance(1);
        }
    }

    fn store(&self, key: u64, t: usize, best: i32, alpha: i32, beta: i32) {
        let b = if best >= beta {
            Bounds { lower: best, upper: INF }
        } else if best <= alpha {
            Bounds { lower: -INF, upper: best }
        } else {
            Bounds { lower: best, upper: best }
        };
        self.tt.put(key, self.remaining(t), b);
    }

    /// Nodes searched so far, transposition hits included.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }
}

/// Solves the game from `root` exactly: its value and every legal move's, with depths.
/// Tables that `MovementTables::needed(root)` lists may be read.
pub fn solve(root: &Position, tables: &MovementTables, progress: &dyn Progress) -> Solution {
    solve_with_tt(root, tables, &Tt::new(table_bytes_for(root)), progress)
}

/// `solve` with a given transposition table, which may be shared with other searches
/// (before, after or at the same time) and keeps what they learned.
pub fn solve_with_tt(root: &Position, tables: &MovementTables, tt: &Tt, progress: &dyn Progress) -> Solution {
    if root.is_movement() {
        return movement_root(root, tables);
    }
    let searcher = Search::new(root, tables, tt, progress);
    let (ply, next) = (searcher.plies[0], searcher.plies[1]);
    let (m, o) = (root.mover(), root.opponent());
    if terminal(ply, m).is_some() {
        return Solution { value: Value::Loss(0), moves: vec![], nodes: 0 };
    }
    let game = tables.game();
    let mut moves = vec![];
    for_each_ply_move(game, ply, m, o, |mv, after, opp_after| moves.push((mv, after, opp_after)));
    // Symmetric first moves lead to the same child; solve each distinct child once.
    let mut keyed: Vec<(u64, Bits, Bits)> = moves.iter().map(|&(_, a, oa)| (key(game, next, oa, a), oa, a)).collect();
    keyed.sort_unstable();
    keyed.dedup_by_key(|k| k.0);
    let work: u64 = keyed
        .iter()
        .map(|&(_, cm, co)| {
            let mut n = 0;
            if 1 < searcher.last && terminal(next, cm).is_none() {
                for_each_ply_move(game, next, cm, co, |_, _, _| n += 1);
            }
            n
        })
        .sum();
    progress.begin("placement search: results", work);
    let scores: Vec<(u64, i32)> = keyed.par_iter().map(|&(k, cm, co)| (k, searcher.exact(1, cm, co))).collect();
    let mut out = Vec::with_capacity(moves.len());
    for (mv, after, opp_after) in moves {
        let k = key(game, next, opp_after, after);
        let g = scores[scores.binary_search_by_key(&k, |s| s.0).unwrap()].1;
        let (w, b) = next.colours(opp_after, after);
        let pos = Position::unchecked(root.rules(), w, b, next.white_hand, next.black_hand, next.to_move);
        out.push(MoveInfo { mv, child: pos, value: from_goodness(g).parent() });
    }
    sort_moves(&mut out);
    let value = out.first().map_or(Value::Loss(0), |m| m.value);
    Solution { value, moves: out, nodes: searcher.nodes() }
}

/// The value with this goodness score.
fn from_goodness(g: i32) -> Value {
    match g {
        0 => Value::Draw,
        g if g > 0 => Value::Win((100_000 - g) as u16),
        g => Value::Loss((g + 100_000) as u16),
    }
}
