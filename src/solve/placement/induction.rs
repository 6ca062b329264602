//! Backward induction over the sector graph: the exact value of every position of a
//! placement sector, from the tables of the sectors its moves lead into.
//!
//! Every move out of a placement sector leaves it (a placement empties a hand by one;
//! a side that moves while the other places hands the turn to a placing side), so a
//! sector needs no iteration: each position is the best of its children, read from
//! tables solved before it. The retrograde solver (`retro`) handles the sectors with
//! cycles, which under the standard rules are the movement subspaces.
//!
//! Move generation is `for_each_ply_move`, the one the placement search uses, so the
//! two agree on every rule by construction and tests compare their values.

use super::{for_each_ply_move, Ply};
use crate::cpu::prefetch;
use crate::position::index::{CaptureIndex, SubspaceIndex};
use crate::position::sector::Sector;
use crate::position::value::{parent_key, Deep, Value, NO_KEY};
use crate::position::Color;
use crate::rules::game::Game;
use crate::rules::geometry::Bits;
use crate::rules::movegen::NONE;
use crate::solve::limits::Limits;
use crate::solve::progress::Progress;
use crate::solve::tables::SectorTables;
use rayon::prelude::*;

const CHUNK: usize = 1 << 14;
/// More than the most moves a position has: at most 24 - o empty points, each with up
/// to o captures, or o(o - 1) ordered pairs after a double mill under `take=each`;
/// with o <= 12 that is at most 12 * 12 * 11 = 1,584.
const MAX_CHILDREN: usize = 4096;

/// One child table: its index, its values and the depths of its deep values.
struct Target<'a> {
    index: SubspaceIndex,
    values: &'a [u8],
    deep: Option<&'a Deep>,
}

/// Solves a sector with stones in hand under `game`'s rules (not `lasker`, whose
/// sectors with stones in hand have cycles). `tables` holds `sector.children(game)`.
/// Values deeper than `limits` take the byte [`DEEP_WIN`](crate::position::value::DEEP_WIN)
/// or [`DEEP_LOSS`](crate::position::value::DEEP_LOSS), their depths in the [`Deep`] list.
pub(crate) fn solve_sector(game: &Game, sector: Sector, tables: &dyn SectorTables, progress: &dyn Progress, limits: Limits) -> (Vec<u8>, Deep) {
    assert!(!sector.is_movement(), "{sector} is a movement subspace: use the retrograde solver");
    assert!(!game.rules().lasker(), "Lasker sectors with stones in hand have cycles");
    let idx = sector.index(game.rules().board());
    let plain = sector.after_move();
    let plain = Target { index: plain.index(game.rules().board()), values: tables.values(plain), deep: tables.deep(plain) };
    // Children by stones removed: one, and two under `take=each`.
    let captures: [Option<Target>; 2] = [1, 2].map(|k| {
        if k == 1 || game.take_each() {
            sector.after_removing(k).map(|c| Target { index: c.index(game.rules().board()), values: tables.values(c), deep: tables.deep(c) })
        } else {
            None
        }
    });
    let mut out = vec![0u8; idx.len() as usize];
    progress.begin(&format!("sector {sector}"), out.len() as u64);
    let deep: Vec<(u64, u16)> = out
        .par_chunks_mut(CHUNK)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            crate::cpu::fast!({
                let start = (c * CHUNK) as u64;
                let mut at = [0u64; MAX_CHILDREN];
                let mut deep = Vec::new();
                for ((i, m, o), slot) in idx.walk(start, start + chunk.len() as u64).zip(chunk.iter_mut()) {
                    let v = value_of(game, sector, m, o, &plain, &captures, &mut at);
                    debug_assert!(v.byte().is_some(), "a best value has the parity of its result");
                    let (byte, deep_byte) = limits.byte(v);
                    *slot = byte;
                    if deep_byte {
                        if idx.may_be_hole(i) && idx.is_hole(i) {
                            // A hole is no position: it keeps no deep entry.
                            *slot -= 1;
                        } else {
                            deep.push((i, v.plies().unwrap_or(0)));
                        }
                    }
                }
                progress.advance(chunk.len() as u64);
                deep
            })
        })
        .collect();
    (out, Deep::new(deep))
}

/// The value of the position `(mover, opp)` of `sector`.
#[inline(always)]
fn value_of(game: &Game, sector: Sector, mover: Bits, opp: Bits, plain: &Target, captures: &[Option<Target>; 2], at: &mut [u64; MAX_CHILDREN]) -> Value {
    let ply = Ply { white_hand: sector.sh, black_hand: sector.oh, to_move: Color::White };
    // Every non-capturing child has the same side to move, the current opponent.
    let prep = plain.index.prepare(opp, true);
    // Plain children's slots fill `at` from the front, captures' from the back, so
    // that each kind is read in a loop of its own, without a test of its kind.
    let (mut n, mut c, mut wins_now) = (0usize, MAX_CHILDREN, false);
    // The captures after one move share the capturer's stones (the child's opponent
    // set), so their canonicalisation is prepared once per move.
    let mut capture_index = [CaptureIndex::default(); 2];
    for_each_ply_move(
        game,
        ply,
        mover,
        opp,
        #[inline(always)]
        |mv, after, opp_after| {
            if mv.capture == NONE {
                let i = plain.index.index_with(&prep, opp_after, after);
                prefetch(plain.values.as_ptr().wrapping_add(i as usize));
                at[n] = i;
                n += 1;
                return;
            }
            let removed = (opp.count_ones() - opp_after.count_ones()) as u64;
            if let Some(t) = &captures[removed as usize - 1] {
                let i = capture_index[removed as usize - 1].index(&t.index, opp_after, after);
                prefetch(t.values.as_ptr().wrapping_add(i as usize));
                c -= 1;
                at[c] = i | (removed - 1) << 63;
            } else {
                wins_now = true;
            }
        },
    );
    if wins_now {
        return Value::Win(1);
    }
    // The best child as the greatest key (see `parent_key`).
    let key = |t: &Target, slot: u64| parent_key(t.values[slot as usize], slot, t.deep);
    let mut best = NO_KEY;
    for &slot in &at[..n] {
        best = best.max(key(plain, slot));
    }
    for &a in &at[c..] {
        let t = captures[(a >> 63) as usize].as_ref().expect("capture table");
        best = best.max(key(t, a & !(1 << 63)));
    }
    // No legal move: a side that moves is blocked (a placing side always has a move).
    if best == NO_KEY {
        Value::Loss(0)
    } else {
        Value::of_goodness(best)
    }
}
