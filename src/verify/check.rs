//! The check of one table: each position's stored value against the best of its
//! children's, for movement subspaces and placement sectors alike. Moves are generated
//! forward by the ply generator of the rules, and each child is found in the table of
//! its sector by its stone counts.

use super::{Mismatch, Outcome};
use crate::position::index::SubspaceIndex;
use crate::position::sector::Sector;
use crate::position::{Color, Position};
use crate::probe::Grade;
use crate::rules::game::Game;
use crate::rules::movegen::NONE;
use crate::rules::ply::{for_each_ply_move, Ply};
use crate::solve::solver::Progress;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// Disagreements kept per table, for the report; all are counted.
const KEEP: usize = 100;

/// Slots a parallel task walks.
const CHUNK: u64 = 1 << 14;

/// Checks every position of `sector` against its children's values; `loaded` holds
/// the whole tables of `sector` and of every sector its moves lead into.
pub(super) fn check<V: Grade>(game: &Game, sector: Sector, loaded: &HashMap<Sector, V::Whole>, progress: &dyn Progress) -> Outcome<V> {
    let board = game.rules().board();
    let idx = sector.index(board);
    let own = &loaded[&sector];
    let ply = Ply { white_hand: sector.sh, black_hand: sector.oh, to_move: Color::White };
    // The child sectors' indexes and values, looked up once rather than per child.
    let children: Vec<(Sector, SubspaceIndex, &V::Whole)> = sector.children(game).into_iter().map(|c| (c, c.index(board), &loaded[&c])).collect();
    // A child's sector by whether its move placed a stone and how many it removed:
    // its stone counts, which a look-up per child would compare one sector at a time.
    let mut child_of = [[None; 3]; 2];
    for (placed, row) in child_of.iter_mut().enumerate() {
        for (removed, k) in row.iter_mut().enumerate() {
            let (placed, removed) = (placed as u8, removed as u8);
            let Some(s) = sector.o.checked_sub(removed) else { continue };
            let Some(sh) = sector.sh.checked_sub(placed) else { continue };
            *k = children.iter().position(|c| c.0 == Sector { s, o: sector.s + placed, sh: sector.oh, oh: sh });
        }
    }
    // Only the child of a move without removal keeps the opponent's stones, which
    // become its side to move's: its index is prepared once a position. A child with
    // one fewer cannot be prepared from them.
    let plain = children.iter().position(|c| c.0 == sector.after_move());
    let (full_draw, full) = (game.full_board_draw(), game.full());
    let found = Mutex::new(Vec::new());
    let n = idx.len();
    progress.begin(&format!("verify {sector}"), n);
    let (checked, bad): (u64, u64) = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            crate::cpu::fast!({
                let (mut checked, mut bad) = (0u64, 0u64);
                let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                // Child slots of one position: found first and prefetched, read after.
                let mut at: Vec<(usize, u64)> = Vec::with_capacity(256);
                for (i, m, o) in idx.walk(start, end) {
                    if idx.may_be_hole(i) && idx.is_hole(i) {
                        continue; // a don't-care entry
                    }
                    // The prepared index must only be used for the plain child's slots.
                    let prep = plain.and_then(|k| children[k].1.prepare(o, true));
                    at.clear();
                    let mut wins_now = false;
                    for_each_ply_move(
                        game,
                        ply,
                        m,
                        o,
                        #[inline(always)]
                        |mv, after, opp_after| {
                            // The child, from its own side to move's point of view.
                            let cs = opp_after.count_ones() as u8;
                            if cs + sector.oh < 3 {
                                debug_assert!(mv.capture != NONE, "a move without capture leaves both sides in the game");
                                wins_now = true;
                                return;
                            }
                            let k = child_of[(mv.from == NONE) as usize][(sector.o - cs) as usize].expect("every child is in a child sector");
                            let ci = children[k].1.index_with(if Some(k) == plain { &prep } else { &None }, opp_after, after);
                            V::prefetch(children[k].2, ci);
                            at.push((k, ci));
                        },
                    );
                    let expected = if wins_now {
                        V::WIN_NOW
                    } else if at.is_empty() && full_draw && m | o == full {
                        V::DRAW
                    } else {
                        at.iter().map(|&(k, ci)| V::at(children[k].2, ci).parent()).max().unwrap_or(V::LOST)
                    };
                    let stored = V::at(own, i);
                    checked += 1;
                    if expected != stored {
                        bad += 1;
                        let mut f = found.lock().unwrap();
                        if f.len() < KEEP {
                            let position = Position::unchecked(game.rules(), m, o, sector.sh, sector.oh, Color::White);
                            f.push(Mismatch { sector, slot: i, position: position.to_string(), stored, expected });
                        }
                    }
                }
                progress.advance(end - start);
                (checked, bad)
            })
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    Outcome { checked, mismatches: found.into_inner().unwrap(), mismatch_count: bad }
}
