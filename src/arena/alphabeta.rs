//! A fallible opponent: alpha-beta search with iterative deepening to a node budget,
//! over a simple evaluation, with random tie-breaks so that games differ. It knows the
//! rules (the engine's move generator) and nothing of the tables: it stands in for the
//! α-β programs Gévay & Danner measured their perfect players against.

use super::Rng;
use crate::position::Position;
use crate::rules::game::Game;
use crate::rules::geometry::Bits;
use crate::rules::movegen::{Move, NONE};
use crate::rules::Rules;
use crate::solve::placement::{for_each_ply_move, Ply};

const WIN: i32 = 1_000_000;
/// Weights of the evaluation, from the side to move's point of view.
const STONE: i32 = 100;
const MILL: i32 = 12;
const OPEN_MILL: i32 = 8;
const FREEDOM: i32 = 3;

struct Search<'a> {
    game: &'a Game,
    mills: &'a [Bits],
    adj: &'a [Bits],
    full: Bits,
    nodes: u64,
    budget: u64,
    /// One move list per height, reused: a node allocates nothing.
    lists: Vec<Vec<Child>>,
}

/// `(move, mover after, opponent after, ply after)`.
type Child = (Move, Bits, Bits, Ply);

/// Children of a node into `out`, captures first.
fn children_into(game: &Game, ply: Ply, mover: Bits, opp: Bits, out: &mut Vec<Child>) {
    out.clear();
    for_each_ply_move(game, ply, mover, opp, |mv, after, opp_after| out.push((mv, after, opp_after, ply.after(&mv))));
    // Captures to the front in place, each side keeping its order (no allocation).
    let mut front = 0;
    for k in 0..out.len() {
        if out[k].0.capture != NONE {
            out[front..=k].rotate_right(1);
            front += 1;
        }
    }
}

/// Children of a node, captures first.
fn children(game: &Game, ply: Ply, mover: Bits, opp: Bits) -> Vec<Child> {
    let mut out = Vec::new();
    children_into(game, ply, mover, opp, &mut out);
    out
}

impl Search<'_> {
    /// Material, mills, open mills and freedom of movement, for the side to move.
    fn evaluate(&self, ply: Ply, mover: Bits, opp: Bits) -> i32 {
        let empty = self.full & !(mover | opp);
        let side = |own: Bits, hand: u8| -> i32 {
            let mut s = STONE * (own.count_ones() as i32 + hand as i32);
            for &m in self.mills {
                let k = (own & m).count_ones();
                if k == 3 {
                    s += MILL;
                } else if k == 2 && (empty & m).count_ones() == 1 {
                    s += OPEN_MILL;
                }
            }
            let mut free = 0;
            let mut b = own;
            while b != 0 {
                let p = b.trailing_zeros() as usize;
                b &= b - 1;
                free += (self.adj[p] & empty).count_ones() as i32;
            }
            s + FREEDOM * free
        };
        side(mover, ply.mover_hand()) - side(opp, ply.opp_hand())
    }

    /// Negamax score of the node for its side to move; `None` once the budget is spent.
    fn negamax(&mut self, ply: Ply, mover: Bits, opp: Bits, depth: u32, height: i32, mut alpha: i32, beta: i32) -> Option<i32> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        if mover.count_ones() + (ply.mover_hand() as u32) < 3 {
            return Some(-WIN + height);
        }
        // A leaf needs only whether any move exists, not the moves.
        if depth == 0 {
            let none = if ply.mover_hand() > 0 { mover | opp == self.full } else { crate::rules::movegen::is_blocked(self.game, mover, opp) };
            if !none {
                return Some(self.evaluate(ply, mover, opp));
            }
        }
        let h = height as usize;
        if self.lists.len() <= h {
            self.lists.resize_with(h + 1, Vec::new);
        }
        let mut kids = std::mem::take(&mut self.lists[h]);
        children_into(self.game, ply, mover, opp, &mut kids);
        let result = if kids.is_empty() {
            let drawn = self.game.full_board_draw() && mover | opp == self.full;
            Some(if drawn { 0 } else { -WIN + height })
        } else if depth == 0 {
            Some(self.evaluate(ply, mover, opp))
        } else {
            let mut best = Some(-WIN - 1);
            for &(_, after, opp_after, next) in &kids {
                let Some(v) = self.negamax(next, opp_after, after, depth - 1, height + 1, -beta, -alpha) else {
                    best = None;
                    break;
                };
                let s = -v;
                best = best.map(|b| b.max(s));
                alpha = alpha.max(s);
                if alpha >= beta {
                    break;
                }
            }
            best
        };
        self.lists[h] = kids;
        result
    }
}

/// The move the engine plays from `pos` within `budget` nodes: the best of the
/// deepest search that finished (at least depth 1), chosen at random among the moves
/// of equal score. `None` when there is no legal move.
pub fn best_move(rules: &Rules, pos: &Position, budget: u64, rng: &mut Rng) -> Option<Move> {
    let game = rules.game();
    let geo = rules.board().geometry();
    let ply = Ply { white_hand: pos.white_hand, black_hand: pos.black_hand, to_move: pos.to_move };
    let mut root = children(game, ply, pos.mover(), pos.opponent());
    if root.is_empty() {
        return None;
    }
    // A random order first, so that equal moves are tried, and kept, in varying order.
    for i in (1..root.len()).rev() {
        root.swap(i, rng.below(i + 1));
    }
    root.sort_by_key(|c| c.0.capture == NONE);
    let mut s = Search { game, mills: geo.mills(), adj: geo.adj(), full: geo.mask(), nodes: 0, budget, lists: Vec::new() };
    let mut chosen: Vec<Move> = vec![root[0].0];
    for depth in 0..64u32 {
        let mut scores: Vec<(i32, usize)> = Vec::with_capacity(root.len());
        let mut alpha = -WIN - 1;
        let mut finished = true;
        for (k, &(_, after, opp_after, next)) in root.iter().enumerate() {
            // A window one wider than alpha keeps every move that ties the best exact.
            match s.negamax(next, opp_after, after, depth, 1, -WIN - 1, -(alpha - 1)) {
                Some(v) => {
                    let v = -v;
                    alpha = alpha.max(v);
                    scores.push((v, k));
                }
                None => {
                    finished = false;
                    break;
                }
            }
        }
        if !finished {
            break;
        }
        let top = scores.iter().map(|x| x.0).max().unwrap();
        let ties: Vec<usize> = scores.iter().filter(|x| x.0 == top).map(|x| x.1).collect();
        chosen = ties.iter().map(|&k| root[k].0).collect();
        // The best first next time: deeper searches cut more.
        let mut order: Vec<usize> = scores.iter().map(|x| x.1).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(scores.iter().find(|x| x.1 == k).unwrap().0));
        root = order.into_iter().map(|k| root[k]).collect();
        if top.abs() > WIN / 2 {
            break; // a forced result: deeper search changes nothing
        }
    }
    Some(chosen[rng.below(chosen.len())])
}
