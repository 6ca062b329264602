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
//!
//! The unit's layout, its exits, the counting of distinct children and the engine
//! that spreads a level by depth are the strong solver's (`solve/retro`); what is
//! this pass's own is what it reads of the exits (their classes), and what a decided
//! child does to its parents (`Level`).

use crate::position::index::SetOrbits;
use crate::position::sector::Sector;
use crate::position::value::DRAW;
use crate::rules::game::Game;
use crate::solve::progress::NoProgress;
use crate::solve::retro::distinct::distinct;
use crate::solve::retro::exits::{Child, Exits};
use crate::solve::retro::frontier::Frontier;
use crate::solve::retro::members::{self, Member};
use crate::solve::retro::propagate::{propagate, Edge, Propagation};
pub use crate::table::class::{Classes, NO_CLASS};
use rayon::prelude::*;
use std::sync::atomic::{AtomicI16, AtomicU16, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

/// `δ` not yet decided.
const OPEN: i16 = i16::MIN;
/// No drawing exit.
const NO_EXIT: i16 = i16::MIN;
/// Slots per task of the initialisation.
const CHUNK: usize = 1 << 14;
/// More than the most moves without removal a position has.
const MAX_CHILDREN: usize = 128;

/// What the class pass reads of sectors solved before: strong values and classes.
/// A sector it does not hold is one no move of the unit reaches (outside the start's
/// sectors); a move into it is a bug in the caller, and panics.
pub trait ClassTables: Sync {
    /// The strong value bytes of `sector`.
    fn values(&self, sector: Sector) -> Option<&[u8]>;
    /// The classes of `sector` (one per slot, [`NO_CLASS`] where not a draw).
    fn classes(&self, sector: Sector) -> Option<&[i16]>;
}

/// The class pass's tables of one member.
struct State<'a> {
    /// The member's strong values: only its draws have a class.
    values: &'a [u8],
    rank: i16,
    delta: Vec<AtomicI16>,
    depth: Vec<AtomicU16>,
    /// The distinct drawn children inside the unit that have not yet won a level.
    counter: Vec<AtomicU8>,
    /// Best exit, relative to `rank`, or [`NO_EXIT`].
    exit: Vec<i16>,
}

/// Computes the classes of a unit: `members` are one sector, or a sector and its
/// mirror (as the strong solver takes them), with their strong values in `strong`;
/// `rank` gives each sector's rank; `tables` holds every sector their moves leave
/// the unit into. Returns each member's classes, in `members` order.
pub fn unit_classes(game: &Game, members_in: &[Sector], strong: &[&[u8]], rank: &dyn Fn(Sector) -> i16, tables: &dyn ClassTables) -> Vec<Classes> {
    let members = members::members(game, members_in);
    let mut states: Vec<State> = members
        .iter()
        .zip(strong)
        .map(|(m, &values)| {
            let n = m.index.len() as usize;
            assert_eq!(values.len(), n, "strong values of {}", m.sector);
            State {
                values,
                rank: rank(m.sector),
                delta: (0..n).map(|_| AtomicI16::new(OPEN)).collect(),
                depth: (0..n).map(|_| AtomicU16::new(0)).collect(),
                counter: (0..n).map(|_| AtomicU8::new(0)).collect(),
                exit: vec![NO_EXIT; n],
            }
        })
        .collect();

    // 1. Initialise: exits and counters of the drawn positions.
    for j in 0..members.len() {
        initialise(game, &members, &mut states, j, tables);
    }

    // The levels: every magnitude an exit has.
    let mut levels: Vec<i16> =
        states.iter().flat_map(|m| m.exit.par_iter().filter(|&&e| e != NO_EXIT && e != 0).map(|e| e.abs()).collect::<std::collections::BTreeSet<i16>>()).collect();
    levels.sort_unstable();
    levels.dedup();
    // Losing seeds found at the start: no drawn child in the unit, a losing best exit.
    let later: Mutex<Vec<(i16, usize, u32)>> = Mutex::new(Vec::new());
    for (j, m) in states.iter().enumerate() {
        let mut later = later.lock().unwrap();
        for (i, (&e, c)) in m.exit.iter().zip(&m.counter).enumerate() {
            if e != NO_EXIT && e < 0 && c.load(Relaxed) == 0 && m.values[i] == DRAW && m.delta[i].load(Relaxed) == OPEN {
                later.push((-e, j, i as u32));
            }
        }
    }

    // 2. Levels, from the most extreme.
    let frontier = Frontier::new(members.len());
    let name = members::name(&members);
    for &level in levels.iter().rev() {
        // Seeds: winning exits worth exactly `level`, and the losing seeds of this level.
        for (j, m) in states.iter().enumerate() {
            let mut seeds: Vec<(u16, u32)> = m
                .exit
                .par_iter()
                .enumerate()
                .filter(|&(i, &e)| e == level && m.delta[i].compare_exchange(OPEN, level, Relaxed, Relaxed).is_ok())
                .map(|(i, _)| (1, i as u32))
                .collect();
            for &(_, i) in &seeds {
                m.depth[i as usize].store(1, Relaxed);
            }
            frontier.flush(j, &mut seeds);
        }
        let mut rest = Vec::new();
        for (l, j, i) in std::mem::take(&mut *later.lock().unwrap()) {
            let m = &states[j];
            if l == level {
                if m.delta[i as usize].compare_exchange(OPEN, -level, Relaxed, Relaxed).is_ok() {
                    m.depth[i as usize].store(1, Relaxed);
                    frontier.flush(j, &mut vec![(1, i)]);
                }
            } else {
                rest.push((l, j, i));
            }
        }
        *later.lock().unwrap() = rest;
        // Spread by depth within the level.
        propagate(game, &members, &frontier, &Levels { states: &states, level, later: &later }, &NoProgress, &name);
    }

    // 3. The rest stays in the unit.
    members
        .into_iter()
        .zip(states)
        .map(|(member, m)| {
            let n = m.values.len();
            let mut class = vec![NO_CLASS; n];
            let mut depth = vec![0u16; n];
            class.par_iter_mut().zip(depth.par_iter_mut()).enumerate().for_each(|(i, (c, dp))| {
                if m.values[i] == DRAW && !(member.index.may_be_hole(i as u64) && member.index.is_hole(i as u64)) {
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

/// The best exit and the count of distinct drawn children inside the unit of every
/// drawn position of member `j`; a drawn position without a move (a full board) stays.
fn initialise(game: &Game, members: &[Member], states: &mut [State], j: usize, tables: &dyn ClassTables) {
    let sector = members[j].sector;
    let exits = Exits::new(game, members, j, |c| tables.values(c).zip(tables.classes(c)));
    let exits = &exits;
    let inside: Option<&[u8]> = members[j].target.map(|t| states[t].values);
    let index = &members[j].index;
    let m = &mut states[j];
    let (values, counter, delta, rank) = (m.values, &m.counter, &m.delta, m.rank);
    let opp_orbits = SetOrbits::get(game.rules().board(), sector.o as usize);
    m.exit.par_chunks_mut(CHUNK).enumerate().for_each(|(c, exits_out)| {
        crate::cpu::fast!({
            let mut kids = [0u64; MAX_CHILDREN];
            let first = c * CHUNK;
            for (k, exit) in exits_out.iter_mut().enumerate() {
                let i = first + k;
                if values[i] != DRAW || (index.may_be_hole(i as u64) && index.is_hole(i as u64)) {
                    continue;
                }
                let (mover, opp) = index.unindex(i as u64);
                let (mut n, mut best, mut any) = (0usize, NO_EXIT, false);
                exits.for_each_child(
                    game,
                    mover,
                    opp,
                    true,
                    #[inline(always)]
                    |child| {
                        any = true;
                        match child {
                            Child::Inside(slot) => {
                                if inside.is_some_and(|tv| tv[slot as usize] == DRAW) {
                                    kids[n] = slot;
                                    n += 1;
                                }
                            }
                            Child::Exit(Some((cv, cc)), slot) => {
                                if cv[slot as usize] == DRAW {
                                    best = best.max(-cc[slot as usize] - rank);
                                }
                            }
                            Child::Exit(None, _) => panic!("{sector}: a move leads into a sector the class pass was not given"),
                            // A win at once: not a draw's move.
                            Child::Wins => {}
                        }
                    },
                );
                let distinct = distinct(opp_orbits, opp, &mut kids[..n]);
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

/// One level of the classes: its magnitude, and where a position whose last drawn
/// child has won a level, but whose exit saves it from losing this one, waits for a
/// lower level.
struct Levels<'a> {
    states: &'a [State<'a>],
    level: i16,
    /// `(level, member, slot)` of positions to lose a lower level in 1 ply.
    later: &'a Mutex<Vec<(i16, usize, u32)>>,
}

/// One depth of a level from one member's children into their parents.
struct Level<'a> {
    child: &'a State<'a>,
    parent: &'a State<'a>,
    parent_at: usize,
    level: i16,
    depth: u16,
    later: &'a Mutex<Vec<(i16, usize, u32)>>,
}

impl Propagation for Levels<'_> {
    type Edge<'a>
        = Level<'a>
    where
        Self: 'a;

    fn edge(&self, depth: u16, child: usize, parent: usize) -> Level<'_> {
        Level { child: &self.states[child], parent: &self.states[parent], parent_at: parent, level: self.level, depth, later: self.later }
    }
}

impl Edge for Level<'_> {
    /// A position's `δ` is set once: every listed one is decided at its depth.
    #[inline(always)]
    fn listed(&self, _slot: u32) -> bool {
        true
    }

    #[inline(always)]
    fn prefetch_listed(&self, slot: u32) {
        crate::cpu::prefetch(self.child.delta.as_ptr().wrapping_add(slot as usize));
    }

    /// Whether the child loses the level (else it has won it).
    #[inline(always)]
    fn tag(&self, slot: u32) -> bool {
        self.child.delta[slot as usize].load(Relaxed) == -self.level
    }

    #[inline(always)]
    fn update(&self, loses: bool, p: u32, decided: &mut Vec<(u16, u32)>) {
        let (parent, level, d) = (self.parent, self.level, self.depth);
        let p = p as usize;
        if parent.values[p] != DRAW {
            return;
        }
        if loses {
            // The child loses the level: the parent wins it, first come fastest.
            if parent.delta[p].compare_exchange(OPEN, level, Relaxed, Relaxed).is_ok() {
                parent.depth[p].store(d + 1, Relaxed);
                decided.push((d + 1, p as u32));
            }
        } else if parent.counter[p].fetch_sub(1, Relaxed) == 1 && parent.delta[p].load(Relaxed) == OPEN {
            // The last drawn child has won a level: the parent loses
            // this one if no exit saves it, else a lower one (or none).
            let e = parent.exit[p];
            if e == NO_EXIT || e <= -level {
                if parent.delta[p].compare_exchange(OPEN, -level, Relaxed, Relaxed).is_ok() {
                    parent.depth[p].store(d + 1, Relaxed);
                    decided.push((d + 1, p as u32));
                }
            } else if e < 0 {
                self.later.lock().unwrap().push((-e, self.parent_at, p as u32));
            }
        }
    }
}
