//! The first stage of the values pass: every position's moves out of the unit, whose
//! values are known, and its distinct children inside it, counted.
//!
//! A move out of the unit leads into a sector solved before: a move into a loss makes
//! the position a (tentative) win, one into a draw rules out a loss, and the deepest
//! win such a move leaves the opponent is kept for the loser's longest resistance. A
//! position decided here (a tentative win, a loss with no child inside the unit, a
//! blocked side) is listed at its depth.

use super::distinct::dedup_sorted;
use super::exits::{Child, Exits};
use super::frontier::Frontier;
use super::members::Member;
use super::state::{State, CAP_DEEP, NEVER_LOSES};
use crate::cpu::prefetch;
use crate::position::index::SetOrbits;
use crate::position::value::{parent_key, Deep, Value, NO_KEY};
use crate::rules::game::Game;
use crate::solve::limits::Limits;
use crate::solve::progress::Progress;
use crate::solve::tables::SectorTables;
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// Slots per task.
const CHUNK: usize = 1 << 14;
/// More than the most moves without removal a position has.
const MAX_CHILDREN: usize = 128;

/// Initialises the values pass's tables `states` of the unit of `members`, reading
/// the sectors its moves leave into from `tables`, and lists what it decides.
pub(crate) fn initialise(
    game: &Game,
    members: &[Member],
    states: &mut [State],
    tables: &dyn SectorTables,
    limits: Limits,
    frontier: &Frontier,
    progress: &dyn Progress,
    name: &str,
) {
    let total: u64 = members.iter().map(|m| m.index.len()).sum();
    progress.begin(&format!("{name}: initialise"), total);
    for (j, state) in states.iter_mut().enumerate() {
        let shared: &Exits<(&[u8], Option<&Deep>)> = &Exits::new(game, members, j, |c| (tables.values(c), tables.deep(c)));
        let sector = members[j].sector;
        let index = &members[j].index;
        let (full_draw, full) = (game.full_board_draw(), game.full());
        let State { value, counter, cap_max, deep, cap_deep } = state;
        let (value, counter, deep, cap_deep) = (&*value, &*counter, &*deep, &*cap_deep);
        let opp_orbits = SetOrbits::get(game.rules().board(), sector.o as usize);
        cap_max.par_chunks_mut(CHUNK).enumerate().for_each(|(c, cap_chunk)| {
            crate::cpu::fast!({
                // A copy of its own, which the compiler keeps beside the loop's locals: read
                // through the shared one, the solve took 1% more instructions.
                let exits = *shared;
                let mut kids = [0u64; MAX_CHILDREN];
                // The children in sectors solved before, read once all are found: each
                // read is asked for when its slot is known, so they overlap.
                let mut outside: Vec<(&(&[u8], Option<&Deep>), u64)> = Vec::with_capacity(MAX_CHILDREN);
                let mut decided: Vec<(u16, u32)> = Vec::new();
                let first = (c * CHUNK) as u64;
                for ((i, mover, opp), cap_slot) in index.walk(first, first + cap_chunk.len() as u64).zip(cap_chunk.iter_mut()) {
                    let i = i as usize;
                    if index.is_hole_of(i as u64, mover, opp) {
                        continue;
                    }
                    // `n` counts the moves into this unit; `other` records any other move, so
                    // that the common move sets no flag of its own.
                    let (mut n, mut other) = (0usize, false);
                    // Two moves reach one child slot only through a symmetry that fixes the
                    // opponent's stones (which every move inside the unit keeps): where none
                    // does, the children are counted without their slots.
                    let symmetric = opp_orbits.is_symmetric(opp);
                    let (mut best_loss, mut cap_win, mut cap_draw) = (u16::MAX, 0u16, false);
                    exits.for_each_child(
                        game,
                        mover,
                        opp,
                        symmetric,
                        #[inline(always)]
                        |child| match child {
                            Child::Inside(slot) => {
                                kids[n] = slot;
                                n += 1;
                            }
                            Child::Exit(table, slot) => {
                                other = true;
                                prefetch(table.0.as_ptr().wrapping_add(slot as usize));
                                outside.push((table, slot));
                            }
                            Child::Wins => {
                                other = true;
                                best_loss = 0; // the opponent is left with two stones
                            }
                        },
                    );
                    // The best move out of the unit, as the greatest key (see `parent_key`):
                    // into a loss, the quickest; else into a draw; else the win that the
                    // opponent takes longest to play, which caps this position's loss.
                    let mut best = NO_KEY;
                    for (&(values, deep), slot) in outside.drain(..) {
                        best = best.max(parent_key(values[slot as usize], slot, deep));
                    }
                    if best != NO_KEY {
                        match Value::of_goodness(best) {
                            Value::Win(d) => best_loss = best_loss.min(d - 1),
                            Value::Draw => cap_draw = true,
                            Value::Loss(d) => cap_win = d - 1,
                        }
                    }
                    let distinct = if symmetric { dedup_sorted(&mut kids[..n]) } else { n };
                    counter[i].store(distinct as u8, Relaxed);
                    *cap_slot = if cap_draw {
                        NEVER_LOSES
                    } else if limits.is_deep(Value::Win(cap_win)) {
                        cap_deep.set(i as u32, cap_win);
                        CAP_DEEP
                    } else {
                        cap_win as u8
                    };
                    let v = if n == 0 && !other {
                        // Blocked: a loss, unless the board is full and the rules call that a
                        // draw, which no later level changes (it has no child to decide it).
                        (!(full_draw && mover | opp == full)).then_some(Value::Loss(0))
                    } else if best_loss != u16::MAX {
                        Some(Value::Win(best_loss + 1))
                    } else if distinct == 0 && !cap_draw {
                        Some(Value::Loss(cap_win + 1))
                    } else {
                        None
                    };
                    if let Some(v) = v {
                        let (byte, is_deep) = limits.byte(v);
                        if is_deep {
                            deep.set(i as u32, v.plies().unwrap_or(0));
                        }
                        value[i].store(byte, Relaxed);
                        decided.push((v.plies().unwrap_or(0), i as u32));
                    }
                }
                frontier.flush(j, &mut decided);
                progress.advance(cap_chunk.len() as u64);
            })
        });
    }
}
