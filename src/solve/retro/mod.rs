//! Retrograde analysis of a unit of sectors joined by moves without removal (`s-o`
//! with `o-s`, or `s-s`; under Lasker rules a placement sector with its mirror), with
//! exact depths. The stages, each in its own file:
//!
//! 1. **Layout** ([`members`]): the unit's sectors, their indexes, and which member
//!    the moves without removal lead to.
//! 2. **Exits** ([`exits`]): the sectors solved before that every other move leaves
//!    into, with their tables.
//! 3. **Initialise** ([`initialise`]): each position's moves out of the unit decide it
//!    at once or bound it; its distinct children inside the unit are counted
//!    ([`distinct`]). What is decided is listed by depth ([`frontier`]).
//! 4. **Propagate by depth** ([`propagate`], with the updates of [`values`]): level `d`
//!    takes every position decided at depth `d`, which is final, because every value
//!    set later is deeper, and tells its distinct parents (by unmove generation): a
//!    lost child makes a parent a win in `d + 1` unless it already wins faster; a won
//!    child counts down the parent's counter, and the last one makes it a loss in
//!    `max(d, deepest capture win) + 1`, the loser's longest resistance.
//! 5. **Finish** ([`state`]): whatever is still open is a draw; the atomics become the
//!    value bytes, and the depths of the values too deep for a byte their
//!    [`Deep`] list.
//!
//! The class pass of the ultra-strong solution (`ultra/classes.rs`) runs over the same
//! layout, exits, counting and engine, with updates of its own.

pub(crate) mod distinct;
pub(crate) mod exits;
pub(crate) mod frontier;
pub(crate) mod initialise;
pub(crate) mod members;
pub(crate) mod propagate;
pub(crate) mod sharded;
pub(crate) mod state;
pub(crate) mod values;

use crate::position::sector::Sector;
use crate::position::value::Deep;
use crate::rules::game::Game;
use crate::solve::limits::Limits;
use crate::solve::progress::Progress;
use crate::solve::tables::SectorTables;

/// Solves the unit of `sectors` (one sector, or a sector and its `after_slide`
/// mirror): `tables` holds every sector their other moves lead into. Values deeper
/// than `limits` take a deep byte and keep their depth in the [`Deep`] list. Returns
/// each member's table, in the order of `sectors`.
pub(crate) fn solve(game: &Game, sectors: &[Sector], tables: &dyn SectorTables, progress: &dyn Progress, limits: Limits) -> Vec<(Vec<u8>, Deep)> {
    let members = members::members(game, sectors);
    let name = members::name(&members);
    let mut states: Vec<state::State> = members.iter().map(|m| state::State::new(m.index.len())).collect();
    let frontier = frontier::Frontier::new(members.len());
    initialise::initialise(game, &members, &mut states, tables, limits, &frontier, progress, &name);
    propagate::propagate(game, &members, &frontier, &values::WinsAndLosses { states: &states, limits }, progress, &name);
    states.into_iter().map(state::State::finish).collect()
}
