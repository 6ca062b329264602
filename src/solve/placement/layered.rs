//! Plain backward induction over every placement position reachable from a root.
//!
//! Layers of positions (canonical under the 16 symmetries, sorted, deduplicated) are
//! built forward ply by ply and evaluated backward; the last layer's children are read
//! from the movement tables. It shares no search logic with [`super::search`], and
//! tests compare the two. Its memory grows with every reachable position, so it suits
//! small starts and late placement positions only.

use super::{for_each_ply_move, movement_root, terminal, MovementTables, Ply, Solution};
use crate::position::index::SetOrbits;
use crate::position::value::Value;
use crate::position::value::{sort_moves, MoveInfo};
use crate::position::{Color, Position};
use crate::rules::game::Game;
use crate::rules::geometry::{Bits, MAX_POINTS};
use crate::solve::progress::Progress;
use rayon::prelude::*;

fn key(white: Bits, black: Bits) -> u64 {
    (white as u64) << MAX_POINTS | black as u64
}

/// A symmetry-invariant key that `unkey` turns back into a member of the class.
fn canonical(game: &Game, white: Bits, black: Bits) -> u64 {
    let orbits = SetOrbits::get(game.rules().board(), white.count_ones() as usize);
    let (orbit, b) = orbits.canonical_pair(white, black);
    key(orbits.representative(orbit), b)
}

fn unkey(k: u64) -> (Bits, Bits) {
    ((k >> MAX_POINTS) as Bits, (k & ((1 << MAX_POINTS) - 1)) as Bits)
}

/// Solves the game from `root` exactly. `tables` must hold `MovementTables::needed(root)`.
pub fn solve(root: &Position, tables: &MovementTables, progress: &dyn Progress) -> Solution {
    if root.is_movement() {
        return movement_root(root, tables);
    }
    let game = tables.game();
    let plies = super::schedule(root);
    // plies[t] for t < last are placement-phase plies; plies[last] is movement.
    let last = plies.len() - 1;
    let split = |ply: Ply, k: u64| -> (Bits, Bits) {
        let (w, b) = unkey(k);
        if ply.to_move == Color::White {
            (w, b)
        } else {
            (b, w)
        }
    };
    let join = |ply: Ply, mover: Bits, opp: Bits| -> (Bits, Bits) {
        if ply.to_move == Color::White {
            (mover, opp)
        } else {
            (opp, mover)
        }
    };

    // Forward: the layers of placement-phase positions, canonical and sorted.
    let mut layers: Vec<Vec<u64>> = vec![vec![canonical(game, root.white, root.black)]];
    for t in 0..last.saturating_sub(1) {
        progress.begin(&format!("placement: ply {} forward", t + 1), layers[t].len() as u64);
        let (ply, next) = (plies[t], plies[t + 1]);
        let mut children: Vec<u64> = layers[t]
            .par_iter()
            .flat_map_iter(|&k| {
                let (m, o) = split(ply, k);
                let mut out = Vec::new();
                if terminal(ply, m).is_none() {
                    for_each_ply_move(game, ply, m, o, |_, cm, co| {
                        // children are seen from the next side to move: (co, cm) in its colours
                        let (w, b) = join(next, co, cm);
                        out.push(canonical(game, w, b));
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
    let mut next_values: Vec<Value> = Vec::new();
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
            let at = layer.binary_search(&canonical(game, w, b)).expect("child is in the next layer");
            next_values[at]
        };
        // Values, not bytes: a plain solver keeps any depth, deep ones included.
        let values: Vec<Value> = layers[t]
            .par_iter()
            .map(|&k| {
                let (m, o) = split(ply, k);
                let v = terminal(ply, m).unwrap_or_else(|| {
                    let mut best: Option<Value> = None;
                    for_each_ply_move(game, ply, m, o, |_, cm, co| {
                        let v = child_value(co, cm).parent();
                        if best.is_none_or(|b| v.goodness() > b.goodness()) {
                            best = Some(v);
                        }
                    });
                    best.unwrap_or(Value::Loss(0))
                });
                progress.advance(1);
                v
            })
            .collect();
        if t == 0 {
            let (m, o) = (root.mover(), root.opponent());
            if terminal(ply, m).is_none() {
                for_each_ply_move(game, ply, m, o, |mv, cm, co| {
                    let v = child_value(co, cm).parent();
                    let (w, b) = join(next, co, cm);
                    let pos = Position::unchecked(root.rules(), w, b, next.white_hand, next.black_hand, next.to_move);
                    root_moves.push(MoveInfo { mv, child: pos, value: v });
                });
            }
        }
        next_values = values;
    }
    sort_moves(&mut root_moves);
    Solution { value: next_values[0], moves: root_moves, nodes: layers.iter().map(|l| l.len() as u64).sum() }
}
