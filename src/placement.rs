//! The placement phase, solved exactly by backward induction over plies.
//!
//! Whether a side places or moves depends only on its stones in hand, and each side's
//! hand shrinks by one on each of its turns until it is empty, so the hands and the
//! side to move at ply `t` of a game from a given position are fixed in advance. The
//! positions reachable at ply `t` therefore form a layer, and the placement phase is a
//! layered DAG (this is Malom's observation, with plies in place of sectors). Layers are
//! built forward from the root (canonical under the 16 symmetries, sorted, deduplicated)
//! and evaluated backward: the last layer's children are movement positions, read from
//! the movement tables. Every node's value is exact, with depth to the end of the game.
//!
//! This handles the generalised starts of Gévay & Danner's Table II, where one side may
//! still place while the other already moves.

use crate::geometry::{closes_mill, removable, BitIter, Bits, FULL};
use crate::index::{SetOrbits, SubspaceIndex};
use crate::movegen::{for_each_move, Move, NONE};
use crate::position::{Color, Position};
use crate::solver::Progress;
use crate::subspace::Subspace;
use crate::value::Value;
use rayon::prelude::*;
use std::collections::HashMap;

/// Values of movement positions, by subspace, fully in memory.
pub struct MovementTables {
    pub tables: HashMap<Subspace, Vec<u8>>,
}

impl MovementTables {
    /// The movement subspaces a game from `root` can reach once both hands are empty.
    pub fn needed(root: &Position) -> Vec<Subspace> {
        let w = (root.white.count_ones() + root.white_hand as u32) as u8;
        let b = (root.black.count_ones() + root.black_hand as u32) as u8;
        let mut out = vec![];
        for ws in 3..=w {
            for bs in 3..=b {
                out.push(Subspace { s: ws, o: bs });
                out.push(Subspace { s: bs, o: ws });
            }
        }
        out.sort();
        out.dedup();
        out
    }

    #[inline]
    fn value(&self, mover: Bits, opp: Bits) -> Value {
        if mover.count_ones() < 3 {
            return Value::Loss(0);
        }
        let sub = Subspace::new(mover.count_ones() as u8, opp.count_ones() as u8).expect("movement position in range");
        let idx = SubspaceIndex::new(sub);
        Value::decode(self.tables[&sub][idx.index(mover, opp) as usize])
    }
}

/// Hands and side to move at each ply from the root.
#[derive(Clone, Copy, Debug)]
struct Ply {
    white_hand: u8,
    black_hand: u8,
    to_move: Color,
}

impl Ply {
    fn next(self) -> Ply {
        let mut p = self;
        match self.to_move {
            Color::White if p.white_hand > 0 => p.white_hand -= 1,
            Color::Black if p.black_hand > 0 => p.black_hand -= 1,
            _ => {}
        }
        p.to_move = self.to_move.other();
        p
    }
    fn mover_hand(self) -> u8 {
        if self.to_move == Color::White { self.white_hand } else { self.black_hand }
    }
    fn is_movement(self) -> bool {
        self.white_hand == 0 && self.black_hand == 0
    }
}

fn key(white: Bits, black: Bits) -> u64 {
    (white as u64) << 24 | black as u64
}

/// A symmetry-invariant key that `unkey` turns back into a member of the class.
fn canonical(white: Bits, black: Bits) -> u64 {
    let orbits = SetOrbits::get(white.count_ones() as usize);
    let (orbit, b) = orbits.canonical_pair(white, black);
    key(orbits.representative(orbit), b)
}

fn unkey(k: u64) -> (Bits, Bits) {
    ((k >> 24) as Bits, (k & FULL as u64) as Bits)
}

/// Calls `f(move, mover_after, opp_after)` for every move of the side to move at a ply
/// (placements while it has stones in hand, moves after), from its own point of view.
fn for_each_ply_move(ply: Ply, mover: Bits, opp: Bits, mut f: impl FnMut(Move, Bits, Bits)) {
    if ply.mover_hand() == 0 {
        for_each_move(mover, opp, |mv, child_mover, child_opp| f(mv, child_opp, child_mover));
        return;
    }
    let empty = !(mover | opp) & FULL;
    let rem = removable(opp);
    for to in BitIter(empty) {
        let after = mover | 1 << to;
        if closes_mill(after, to) {
            for r in BitIter(rem) {
                f(Move { from: NONE, to: to as u8, capture: r as u8 }, after, opp & !(1 << r));
            }
        } else {
            f(Move { from: NONE, to: to as u8, capture: NONE }, after, opp);
        }
    }
}

/// The result of a placement search from one root.
pub struct Solution {
    pub value: Value,
    /// Every legal move from the root with the position it leads to and its value for
    /// the side that plays it, best first.
    pub moves: Vec<(Move, Position, Value)>,
    /// Distinct positions (up to symmetry) evaluated, per ply.
    pub layer_sizes: Vec<usize>,
}

/// The terminal value of a position before any move, if the game is already over.
fn terminal(ply: Ply, mover: Bits) -> Option<Value> {
    if mover.count_ones() + (ply.mover_hand() as u32) < 3 {
        Some(Value::Loss(0))
    } else {
        None
    }
}

/// Solves the game from `root` exactly. `tables` must hold `MovementTables::needed(root)`.
pub fn solve(root: &Position, tables: &MovementTables, progress: &dyn Progress) -> Solution {
    if root.is_movement() {
        let (m, o) = (root.mover(), root.opponent());
        let mut moves = Vec::new();
        if m.count_ones() >= 3 {
            for_each_move(m, o, |mv, cm, co| {
                moves.push((mv, Position::movement(root.to_move.other(), cm, co), tables.value(cm, co).parent()))
            });
        }
        moves.sort_by_key(|(mv, _, v)| (-v.goodness(), mv.from, mv.to, mv.capture));
        return Solution { value: tables.value(m, o), moves, layer_sizes: vec![1] };
    }
    let mut plies = vec![Ply { white_hand: root.white_hand, black_hand: root.black_hand, to_move: root.to_move }];
    while !plies.last().unwrap().is_movement() {
        let next = plies.last().unwrap().next();
        plies.push(next);
    }
    // plies[t] for t < last are placement-phase plies; plies[last] is movement.
    let last = plies.len() - 1;
    let split = |ply: Ply, k: u64| -> (Bits, Bits) {
        let (w, b) = unkey(k);
        if ply.to_move == Color::White { (w, b) } else { (b, w) }
    };
    let join = |ply: Ply, mover: Bits, opp: Bits| -> (Bits, Bits) {
        if ply.to_move == Color::White { (mover, opp) } else { (opp, mover) }
    };

    // Forward: the layers of placement-phase positions, canonical and sorted.
    let mut layers: Vec<Vec<u64>> = vec![vec![canonical(root.white, root.black)]];
    for t in 0..last.saturating_sub(1) {
        progress.begin(&format!("placement: ply {} forward", t + 1), layers[t].len() as u64);
        let (ply, next) = (plies[t], plies[t + 1]);
        let mut children: Vec<u64> = layers[t]
            .par_iter()
            .flat_map_iter(|&k| {
                let (m, o) = split(ply, k);
                let mut out = Vec::new();
                if terminal(ply, m).is_none() {
                    for_each_ply_move(ply, m, o, |_, cm, co| {
                        // children are seen from the next side to move: (co, cm) in its colours
                        let (w, b) = join(next, co, cm);
                        out.push(canonical(w, b));
                    });
                }
                progress.advance(1);
                out
            })
            .collect();
        children.par_sort_unstable();
        children.dedup();
        layers.push(children);
    }

    // Backward: values of each layer from the next one (or the movement tables).
    let mut next_values: Vec<u8> = Vec::new();
    let mut root_moves = Vec::new();
    for t in (0..layers.len()).rev() {
        let (ply, next) = (plies[t], plies[t + 1]);
        progress.begin(&format!("placement: ply {t} values"), layers[t].len() as u64);
        let child_layer = layers.get(t + 1);
        let child_value = |cm: Bits, co: Bits| -> Value {
            // (cm, co): the child's side to move and its opponent
            if let Some(v) = terminal(next, cm) {
                return v;
            }
            if t + 1 == last {
                return tables.value(cm, co);
            }
            let (w, b) = join(next, cm, co);
            let layer = child_layer.expect("child layer exists");
            let at = layer.binary_search(&canonical(w, b)).expect("child is in the next layer");
            Value::decode(next_values[at])
        };
        let values: Vec<u8> = layers[t]
            .par_iter()
            .map(|&k| {
                let (m, o) = split(ply, k);
                let v = terminal(ply, m).unwrap_or_else(|| {
                    let mut best: Option<Value> = None;
                    for_each_ply_move(ply, m, o, |_, cm, co| {
                        let v = child_value(co, cm).parent();
                        if best.is_none_or(|b| v.goodness() > b.goodness()) {
                            best = Some(v);
                        }
                    });
                    best.unwrap_or(Value::Loss(0))
                });
                progress.advance(1);
                v.encode().expect("depth fits the value encoding")
            })
            .collect();
        if t == 0 {
            let (m, o) = (root.mover(), root.opponent());
            if terminal(ply, m).is_none() {
                for_each_ply_move(ply, m, o, |mv, cm, co| {
                    let v = child_value(co, cm).parent();
                    let (w, b) = join(next, co, cm);
                    let pos = Position {
                        white: w,
                        black: b,
                        white_hand: next.white_hand,
                        black_hand: next.black_hand,
                        to_move: next.to_move,
                    };
                    root_moves.push((mv, pos, v));
                });
            }
        }
        next_values = values;
    }
    root_moves.sort_by_key(|(mv, _, v)| (-v.goodness(), mv.from, mv.to, mv.capture));
    Solution { value: Value::decode(next_values[0]), moves: root_moves, layer_sizes: layers.iter().map(|l| l.len()).collect() }
}
