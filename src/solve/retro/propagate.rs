//! The engine of every propagation over a unit: level by level in order of depth,
//! from the work lists of a [`Frontier`], each listed position's distinct parents in
//! the unit (by unmove generation) are told that this child is decided.
//!
//! What a decided child does to its parents is the pass's: the values pass makes a
//! parent of a lost child a win and counts down a parent's undecided children (see
//! `values.rs`); the class pass does the same with the levels of its draw classes
//! (`ultra/classes.rs`). Every value a level sets is deeper than the level, so each
//! list is final when its level takes it.

use super::distinct::distinct;
use super::frontier::Frontier;
use super::members::Member;
use crate::position::index::SetOrbits;
use crate::rules::game::Game;
use crate::rules::movegen::for_each_unmove_with;
use crate::solve::progress::Progress;
use rayon::prelude::*;

/// Listed slots per task.
const CHUNK: usize = 1 << 12;
/// More than the most unmoves a position has.
const MAX_PARENTS: usize = 256;

/// What decided children do to their parents, for one kind of value.
pub(crate) trait Propagation: Sync {
    /// One level's updates from one member into the member its parents are in.
    type Edge<'a>: Edge
    where
        Self: 'a;
    /// The updates of the children of member `child` listed at `depth` into their
    /// parents in member `parent`: what the level fixes is worked out here, once.
    fn edge(&self, depth: u16, child: usize, parent: usize) -> Self::Edge<'_>;
}

/// One level's updates from one member's children into their parents.
pub(crate) trait Edge: Sync {
    /// Whether the child at `slot`, listed at this level, is still decided at it (a
    /// tentative win can have been bettered since it was listed).
    fn listed(&self, slot: u32) -> bool;
    /// Asks for the parent's tables at `slot` before [`Edge::update`] reads them.
    #[inline(always)]
    fn prefetch(&self, _slot: u64) {}
    /// Tells the distinct parents of the child at `slot` that it is decided, and adds
    /// `(depth, slot)` of every parent this decides to `decided`.
    fn update(&self, slot: u32, parents: &[u64], decided: &mut Vec<(u16, u32)>);
}

/// Runs `pass` over the unit of `members` until no list of `frontier` holds a slot.
/// Reports each level to `progress` under the unit's `name`.
pub(crate) fn propagate<P: Propagation>(game: &Game, members: &[Member], frontier: &Frontier, pass: &P, progress: &dyn Progress, name: &str) {
    let mut next = 0u16;
    while frontier.any_from(next) {
        let d = next;
        next += 1;
        let lists: Vec<Vec<u32>> = (0..members.len()).map(|j| frontier.take(j, d)).collect();
        let count: usize = lists.iter().map(|l| l.len()).sum();
        if count == 0 {
            continue;
        }
        progress.begin(&format!("{name}: depth {d}"), count as u64);
        for (j, list) in lists.iter().enumerate() {
            let child = &members[j];
            // Parents reach this member by a move without removal: they are the member
            // this one's own such moves lead to (the two mirror each other).
            let Some(parent_at) = child.target else { continue };
            let parent = &members[parent_at];
            debug_assert_eq!(parent.target, Some(j), "a unit's members mirror each other");
            // The parent's side to move is this sector's opponent, with its hand.
            let parent_hand = child.sector.oh;
            let edge = pass.edge(d, j, parent_at);
            let mover_orbits = SetOrbits::get(game.rules().board(), child.index.sub.s as usize);
            list.par_chunks(CHUNK).for_each(|slots| {
                crate::cpu::fast!({
                    let mut preds = [0u64; MAX_PARENTS];
                    let mut decided: Vec<(u16, u32)> = Vec::new();
                    for &i in slots {
                        if !edge.listed(i) {
                            continue;
                        }
                        let (mover, opp) = child.index.unindex(i as u64);
                        let mut k = 0;
                        // Parents keep this position's mover as their opponent.
                        let prep = parent.index.prepare(mover, false);
                        for_each_unmove_with(
                            game,
                            mover,
                            opp,
                            parent_hand,
                            #[inline(always)]
                            |pm, po| {
                                let p = parent.index.index_with(&prep, pm, po);
                                edge.prefetch(p);
                                preds[k] = p;
                                k += 1;
                            },
                        );
                        // Parents share this position's mover set; only its symmetries can merge them.
                        let k = distinct(mover_orbits, mover, &mut preds[..k]);
                        edge.update(i, &preds[..k], &mut decided);
                    }
                    frontier.flush(parent_at, &mut decided);
                    progress.advance(slots.len() as u64);
                })
            });
        }
    }
}
