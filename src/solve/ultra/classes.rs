//! Draw classes of one unit, by retrograde analysis over its drawn positions
//! (`docs/ultra.md`, "Draw classes" and "The depth of a draw class").
//!
//! Relative to the unit's own value `u` (the rank of the side to move's sector), a
//! drawn position's class is `u + δ`: `δ > 0` when the side to move can force play out
//! of the unit into a draw better than staying, `δ < 0` when the opponent can force
//! one worse, 0 otherwise. Within the unit a move negates `δ` (the two sectors' ranks
//! are opposite), so `δ` is a negamax value with several win and loss levels and
//! infinite play worth 0, and it is solved as the strong solver solves wins and
//! losses, one level at a time from the most extreme (Gévay & Danner's "extreme
//! values first"):
//!
//! 1. **Initialise.** For each drawn position: the best exit it has (a drawing move
//!    out of the unit, worth minus the child's class, less `u`), and the number of
//!    distinct drawn children inside the unit.
//! 2. **Levels.** For each magnitude `L` that an exit has, from the largest: positions
//!    with an exit worth `L` win the level in 1 ply; positions whose every drawn child
//!    in the unit has already won a level `>= L` and whose best exit is worth at most
//!    `-L` lose the level. Both spread by depth, as the strong solver's wins and
//!    losses do: a position with a child that loses the level wins it one ply later
//!    (the first such child is the fastest), and a position's last child to win the
//!    level makes it lose one ply after that child (the longest resistance).
//! 3. What is left stays in the unit: `δ = 0`, no depth.

use crate::position::index::{SetOrbits, SubspaceIndex};
use crate::position::sector::Sector;
use crate::position::value::DRAW;
use crate::rules::game::Game;
use crate::rules::movegen::for_each_unmove_with;
use crate::solve::placement::for_each_ply_move;
use crate::solve::solver::dedup_sorted;
pub use crate::table::class::{Classes, NO_CLASS};
use rayon::prelude::*;
use std::sync::atomic::{AtomicI16, AtomicU16, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

/// `δ` not yet decided.
const OPEN: i16 = i16::MIN;
/// No drawing exit.
const NO_EXIT: i16 = i16::MIN;
const CHUNK: usize = 1 << 14;

/// What the class pass reads of sectors solved before: strong values and classes.
/// A sector it does not hold is one no move of the unit reaches (outside the start's
/// sectors); a move into it is a bug in the caller, and panics.
pub trait ClassTables: Sync {
    /// The strong value bytes of `sector`.
    fn values(&self, sector: Sector) -> Option<&[u8]>;
    /// The classes of `sector` (one per slot, [`NO_CLASS`] where not a draw).
    fn classes(&self, sector: Sector) -> Option<&[i16]>;
}

struct Member<'a> {
    sector: Sector,
    index: SubspaceIndex,
    values: &'a [u8],
    rank: i16,
    delta: Vec<AtomicI16>,
    depth: Vec<AtomicU16>,
    counter: Vec<AtomicU8>,
    /// Best exit, relative to `rank`, or [`NO_EXIT`].
    exit: Vec<i16>,
    target: Option<usize>,
}

/// Slots decided, by level and depth: `lists[member][depth]` of the current level,
/// and the losing seeds of later levels, found when a counter reached 0 early.
struct Work {
    lists: Vec<Vec<Mutex<Vec<u32>>>>,
    /// `(level, member, slot)` of positions to lose a lower level in 1 ply.
    later: Mutex<Vec<(i16, usize, u32)>>,
}

impl Work {
    fn push(&self, member: usize, depth: u16, buf: &mut Vec<u32>) {
        if !buf.is_empty() {
            let mut l = self.lists[member][depth as usize].lock().unwrap();
            l.append(buf);
        }
    }
}

/// Computes the classes of a unit: `members` are one sector, or a sector and its
/// mirror (as the strong solver takes them), with their strong values in `strong`;
/// `rank` gives each sector's rank; `tables` holds every sector their moves leave
/// the unit into. Returns each member's classes, in `members` order.
pub fn unit_classes(game: &Game, members_in: &[Sector], strong: &[&[u8]], rank: &dyn Fn(Sector) -> i16, tables: &dyn ClassTables) -> Vec<Classes> {
    let atomic_i16 = |n: usize| (0..n).map(|_| AtomicI16::new(OPEN)).collect::<Vec<_>>();
    let mut members: Vec<Member> = members_in
        .iter()
        .zip(strong)
        .map(|(&sector, &values)| {
            let index = sector.index(game.rules().board());
            let n = index.len() as usize;
            assert_eq!(values.len(), n, "strong values of {sector}");
            let target = if sector.slides(game) { members_in.iter().position(|&t| t == sector.after_slide()) } else { None };
            Member {
                sector,
                index,
                values,
                rank: rank(sector),
                delta: atomic_i16(n),
                depth: (0..n).map(|_| AtomicU16::new(0)).collect(),
                counter: (0..n).map(|_| AtomicU8::new(0)).collect(),
                exit: vec![NO_EXIT; n],
                target,
            }
        })
        .collect();
    let work = Work { lists: (0..members.len()).map(|_| (0..=u16::MAX as usize / 64).map(|_| Mutex::new(Vec::new())).collect()).collect(), later: Mutex::new(Vec::new()) };

    // 1. Initialise: exits and counters of the drawn positions.
    for j in 0..members.len() {
        let target = members[j].target.map(|t| (members[t].index, members[t].values));
        let m = &mut members[j];
        let sector = m.sector;
        let table = |x: Option<Sector>| x.and_then(|c| Some((c.index(game.rules().board()), tables.values(c)?, tables.classes(c)?)));
        let take_two = |k: u8| k == 1 || game.take_each();
        let slides = sector.slides(game);
        let outside: [[Option<(SubspaceIndex, &[u8], &[i16])>; 3]; 2] = [
            [
                if slides && target.is_none() { table(Some(sector.after_slide())) } else { None },
                table(sector.after_slide_removing(1).filter(|_| slides)),
                table(sector.after_slide_removing(2).filter(|_| slides && take_two(2))),
            ],
            [
                table(Some(sector.after_move()).filter(|_| sector.places())),
                table(sector.after_removing(1).filter(|_| sector.places())),
                table(sector.after_removing(2).filter(|_| sector.places() && take_two(2))),
            ],
        ];
        // Children that exist (the game goes on) but whose tables were not given.
        let child = |p: usize, r: u8| match (p, r) {
            (0, 0) => Some(sector.after_slide()).filter(|_| slides && target.is_none()),
            (0, r) => sector.after_slide_removing(r).filter(|_| slides && take_two(r)),
            (_, 0) => Some(sector.after_move()).filter(|_| sector.places()),
            (_, r) => sector.after_removing(r).filter(|_| sector.places() && take_two(r)),
        };
        let unheld: [[bool; 3]; 2] = std::array::from_fn(|p| std::array::from_fn(|r| child(p, r as u8).is_some() && outside[p][r].is_none()));
        let ply = crate::solve::placement::Ply { white_hand: sector.sh, black_hand: sector.oh, to_move: crate::position::Color::White };
        let (index, values, counter, delta, rank) = (&m.index, m.values, &m.counter, &m.delta, m.rank);
        let opp_orbits = SetOrbits::get(game.rules().board(), sector.o as usize);
        m.exit.par_chunks_mut(CHUNK).enumerate().for_each(|(c, exits)| {
            crate::cpu::fast!({
                let mut kids = [0u64; 128];
                let first = c * CHUNK;
                for (k, exit) in exits.iter_mut().enumerate() {
                    let i = first + k;
                    if values[i] != DRAW || (index.may_be_hole(i as u64) && index.is_hole(i as u64)) {
                        continue;
                    }
                    let (mover, opp) = index.unindex(i as u64);
                    let (mut n, mut best, mut any) = (0usize, NO_EXIT, false);
                    for_each_ply_move(
                        game,
                        ply,
                        mover,
                        opp,
                        #[inline(always)]
                        |mv, after, opp_after| {
                            any = true;
                            let (cm, co) = (opp_after, after);
                            let removed = (sector.o as u32 - cm.count_ones()) as usize;
                            let placed = (mv.from == crate::rules::movegen::NONE) as usize;
                            if let (0, 0, Some((ti, tv))) = (removed, placed, target.as_ref()) {
                                let slot = ti.index(cm, co);
                                if tv[slot as usize] == DRAW {
                                    kids[n] = slot;
                                    n += 1;
                                }
                            } else if let Some((ci, cv, cc)) = &outside[placed][removed] {
                                let slot = ci.index(cm, co) as usize;
                                if cv[slot] == DRAW {
                                    let e = -cc[slot] - rank;
                                    best = best.max(e);
                                }
                            } else if unheld[placed][removed] {
                                panic!("{sector}: a move leads into a sector the class pass was not given");
                            }
                        },
                    );
                    let distinct = if opp_orbits.is_symmetric(opp) { dedup_sorted(&mut kids[..n]) } else { n };
                    counter[i].store(distinct as u8, Relaxed);
                    *exit = best;
                    if !any {
                        // A terminal draw (a full board): it stays.
                        delta[i].store(0, Relaxed);
                    }
                }
            })
        });
    }

    // The levels: every magnitude an exit has.
    let mut levels: Vec<i16> =
        members.iter().flat_map(|m| m.exit.par_iter().filter(|&&e| e != NO_EXIT && e != 0).map(|e| e.abs()).collect::<std::collections::BTreeSet<i16>>()).collect();
    levels.sort_unstable();
    levels.dedup();
    // Losing seeds found at the start: no drawn child in the unit, a losing best exit.
    for (j, m) in members.iter().enumerate() {
        let mut later = work.later.lock().unwrap();
        for (i, (&e, c)) in m.exit.iter().zip(&m.counter).enumerate() {
            if e != NO_EXIT && e < 0 && c.load(Relaxed) == 0 && m.values[i] == DRAW && m.delta[i].load(Relaxed) == OPEN {
                later.push((-e, j, i as u32));
            }
        }
    }

    // 2. Levels, from the most extreme.
    for &level in levels.iter().rev() {
        // Seeds: winning exits worth exactly `level`, and the losing seeds of this level.
        for (j, m) in members.iter().enumerate() {
            let mut seeds: Vec<u32> =
                m.exit.par_iter().enumerate().filter(|&(i, &e)| e == level && m.delta[i].compare_exchange(OPEN, level, Relaxed, Relaxed).is_ok()).map(|(i, _)| i as u32).collect();
            for &i in &seeds {
                m.depth[i as usize].store(1, Relaxed);
            }
            work.push(j, 1, &mut seeds);
        }
        let mut rest = Vec::new();
        for (l, j, i) in std::mem::take(&mut *work.later.lock().unwrap()) {
            let m = &members[j];
            if l == level {
                if m.delta[i as usize].compare_exchange(OPEN, -level, Relaxed, Relaxed).is_ok() {
                    m.depth[i as usize].store(1, Relaxed);
                    work.push(j, 1, &mut vec![i]);
                }
            } else {
                rest.push((l, j, i));
            }
        }
        *work.later.lock().unwrap() = rest;

        // Spread by depth within the level.
        let mut d: u16 = 1;
        loop {
            // Every decision of depth `d + 1` comes from depth `d`: an empty depth ends the level.
            let lists: Vec<Vec<u32>> = (0..members.len()).map(|j| std::mem::take(&mut *work.lists[j][d as usize].lock().unwrap())).collect();
            if lists.iter().all(|l| l.is_empty()) {
                break;
            }
            for (j, list) in lists.iter().enumerate() {
                let child = &members[j];
                let Some(parent_at) = child.target else { continue };
                let parent = &members[parent_at];
                let parent_hand = child.sector.oh;
                let mover_orbits = SetOrbits::get(game.rules().board(), child.index.sub.s as usize);
                let work = &work;
                list.par_chunks(CHUNK / 4).for_each(|slots| {
                    crate::cpu::fast!({
                        let mut preds = [0u64; 256];
                        let mut next: Vec<u32> = Vec::new();
                        for &i in slots {
                            let cd = child.delta[i as usize].load(Relaxed);
                            let (mover, opp) = child.index.unindex(i as u64);
                            let mut k = 0;
                            for_each_unmove_with(game, mover, opp, parent_hand, |pm, po| {
                                preds[k] = parent.index.index(pm, po);
                                k += 1;
                            });
                            let k = if mover_orbits.is_symmetric(mover) { dedup_sorted(&mut preds[..k]) } else { k };
                            for &p in &preds[..k] {
                                let p = p as usize;
                                if parent.values[p] != DRAW {
                                    continue;
                                }
                                if cd == -level {
                                    // The child loses the level: the parent wins it, first come fastest.
                                    if parent.delta[p].compare_exchange(OPEN, level, Relaxed, Relaxed).is_ok() {
                                        parent.depth[p].store(d + 1, Relaxed);
                                        next.push(p as u32);
                                    }
                                } else if parent.counter[p].fetch_sub(1, Relaxed) == 1 && parent.delta[p].load(Relaxed) == OPEN {
                                    // The last drawn child has won a level: the parent loses
                                    // this one if no exit saves it, else a lower one (or none).
                                    let e = parent.exit[p];
                                    if e == NO_EXIT || e <= -level {
                                        if parent.delta[p].compare_exchange(OPEN, -level, Relaxed, Relaxed).is_ok() {
                                            parent.depth[p].store(d + 1, Relaxed);
                                            next.push(p as u32);
                                        }
                                    } else if e < 0 {
                                        work.later.lock().unwrap().push((-e, parent_at, p as u32));
                                    }
                                }
                            }
                        }
                        work.push(parent_at, d + 1, &mut next);
                    })
                });
            }
            d += 1;
            assert!((d as usize) < work.lists[0].len(), "class depth {d} exceeds the work lists");
        }
    }

    // 3. The rest stays in the unit.
    members
        .into_iter()
        .map(|m| {
            let n = m.values.len();
            let mut class = vec![NO_CLASS; n];
            let mut depth = vec![0u16; n];
            class.par_iter_mut().zip(depth.par_iter_mut()).enumerate().for_each(|(i, (c, dp))| {
                if m.values[i] == DRAW && !(m.index.may_be_hole(i as u64) && m.index.is_hole(i as u64)) {
                    let delta = m.delta[i].load(Relaxed);
                    let delta = if delta == OPEN { 0 } else { delta };
                    *c = m.rank + delta;
                    *dp = if delta == 0 { 0 } else { m.depth[i].load(Relaxed) };
                }
            });
            Classes { class, depth }
        })
        .collect()
}
