//! The check of one table: each position's stored value against the best of its
//! children's, for movement subspaces and placement sectors alike. Moves are generated
//! forward by the ply generator of the rules, and each child is found in the table of
//! its sector by its stone counts.

use super::{Mismatch, Outcome};
use crate::position::index::SubspaceIndex;
use crate::position::sector::Sector;
use crate::position::{Color, Position};
use crate::probe::Grade;
use crate::probe::NO_KEY;
use crate::rules::game::Game;
use crate::rules::movegen::NONE;
use crate::rules::ply::{for_each_ply_move, Ply};
use crate::solve::progress::Progress;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// Disagreements kept per table, for the report; all are counted.
const KEEP: usize = 100;

/// Slots a parallel task walks.
const CHUNK: u64 = 1 << 14;

/// Children whose entries are in flight at once (see the ring in `check`).
const AHEAD: usize = 8;

/// Checks every position of `sector` against its children's values; `loaded` holds
/// the whole tables of `sector` and of every sector its moves lead into.
pub(super) fn check<V: Grade>(game: &Game, sector: Sector, loaded: &HashMap<Sector, V::Whole>, progress: &dyn Progress) -> Outcome<V> {
    let board = game.rules().board();
    let idx = sector.index(board);
    let own = &loaded[&sector];
    let ply = Ply { white_hand: sector.sh, black_hand: sector.oh, to_move: Color::White };
    // Each child sector's index and values by whether the move placed a stone and how
    // many it removed, which its stone counts give: looked up once, not per child.
    let kids: [[Option<(SubspaceIndex, &V::Whole)>; 3]; 2] = std::array::from_fn(|placed| {
        std::array::from_fn(|removed| {
            let (placed, removed) = (placed as u8, removed as u8);
            let child = Sector { s: sector.o.checked_sub(removed)?, o: sector.s + placed, sh: sector.oh, oh: sector.sh.checked_sub(placed)? };
            sector.children(game).contains(&child).then(|| (child.index(board), &loaded[&child]))
        })
    });
    // Most moves lead to the plain child: a placement's, or in the movement phase a
    // slide's, without removal. It keeps the opponent's stones, which become its side
    // to move's, so its index is prepared once a position; a child with one fewer
    // cannot be prepared from them. Under Lasker rules a placement sector's slides
    // without removal lead to another child.
    let places = sector.places();
    let (plain, plain_values) = kids[places as usize][0].as_ref().map(|(x, v)| (x, *v)).expect("a move without removal leads to a sector of the game");
    let slides_too = places && game.rules().lasker();
    let (oh, o_stones) = (sector.oh, sector.o);
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
                for (i, m, o) in idx.walk(start, end) {
                    if idx.may_be_hole(i) && idx.is_hole(i) {
                        continue; // a don't-care entry
                    }
                    // The prepared index must only be used for the plain child's slots.
                    let prep = plain.prepare(o, true);
                    // Each child's entry is prefetched when its slot is known and read
                    // `AHEAD` children later, from a ring: its load overlaps the work
                    // on the children between.
                    let mut ring: [(&V::Whole, u64); AHEAD] = [(plain_values, 0); AHEAD];
                    let (mut pushed, mut best) = (0usize, NO_KEY);
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
                            let child = if cs == o_stones && !(slides_too && mv.from != NONE) {
                                (plain_values, plain.index_with(&prep, opp_after, after))
                            } else if cs + oh < 3 {
                                debug_assert!(mv.capture != NONE, "a move without capture leaves both sides in the game");
                                wins_now = true;
                                return;
                            } else {
                                let (index, values) = kids[(mv.from == NONE) as usize][(o_stones - cs) as usize].as_ref().expect("every child is in a child sector");
                                (*values, index.index(opp_after, after))
                            };
                            V::prefetch(child.0, child.1);
                            let slot = &mut ring[pushed % AHEAD];
                            if pushed >= AHEAD {
                                best = best.max(V::parent_key(slot.0, slot.1));
                            }
                            *slot = child;
                            pushed += 1;
                        },
                    );
                    for &(values, ci) in &ring[..pushed.min(AHEAD)] {
                        best = best.max(V::parent_key(values, ci));
                    }
                    let expected = if wins_now {
                        V::WIN_NOW
                    } else if pushed == 0 && full_draw && m | o == full {
                        V::DRAW
                    } else if pushed == 0 {
                        V::LOST
                    } else {
                        V::of_key(best)
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
