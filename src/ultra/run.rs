//! The class pass over a start: its sectors, their values, and the units in an order
//! where every unit's exits are classed before it.

use super::classes::{unit_classes, ClassTables, Classes, NO_CLASS};
use super::values::{SectorCounts, SectorValues};
use crate::game::Game;
use crate::sector::Sector;
use crate::solver::Stats;
use crate::subspace::Unit;
use crate::table::TableError;
use crate::value::{Value, DRAW};
use std::collections::{BTreeSet, HashMap};

/// Every sector the starts reach, movement sectors and what their captures lead to
/// included: the sectors whose counts rank them (`docs/ultra.md`).
pub fn sectors_of(game: &Game, starts: &[(u8, u8)]) -> BTreeSet<Sector> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Sector> = starts.iter().filter_map(|&(w, b)| Sector::start(w, b)).collect();
    while let Some(x) = stack.pop() {
        if seen.insert(x) {
            stack.extend(x.children_in(game));
        }
    }
    seen
}

/// The units of `set` children first: movement units (a sector with its mirror), then
/// placement units, as the strong solver takes them.
pub fn units_of(game: &Game, set: &BTreeSet<Sector>) -> Result<Vec<Vec<Sector>>, TableError> {
    let mut units: Vec<Vec<Sector>> = Unit::all_in_order_up_to(game.rules.stones)
        .into_iter()
        .map(|u| u.members().into_iter().map(Sector::from).collect::<Vec<_>>())
        .filter(|m| m.iter().any(|x| set.contains(x)))
        .collect();
    units.extend(Sector::solve_units_in(set, game)?);
    Ok(units)
}

/// Counts from a table header's figures.
pub fn counts_of(stats: &Stats) -> SectorCounts {
    SectorCounts { wins: stats.wins, draws: stats.draws, losses: stats.losses }
}

/// Strong values and classes in memory.
#[derive(Default)]
pub struct InMemory {
    /// Strong value bytes by sector.
    pub values: HashMap<Sector, Vec<u8>>,
    /// Classes by sector.
    pub classes: HashMap<Sector, Classes>,
}

impl ClassTables for InMemory {
    fn values(&self, sector: Sector) -> &[u8] {
        &self.values[&sector]
    }
    fn classes(&self, sector: Sector) -> &[i16] {
        &self.classes[&sector].class
    }
}

/// Classes every sector of `set`, whose strong values `tables.values` holds, in place.
/// For tests and small starts: everything stays in memory.
pub fn classes_in_memory(game: &Game, set: &BTreeSet<Sector>, values: &SectorValues, tables: &mut InMemory) -> Result<(), TableError> {
    for unit in units_of(game, set)? {
        let strong: Vec<&[u8]> = unit.iter().map(|x| tables.values[x].as_slice()).collect();
        let rank = |x: Sector| values.get(x).expect("every sector of the start is ranked") as i16;
        let out = unit_classes(game, &unit, &strong, &rank, tables);
        for (x, c) in unit.into_iter().zip(out) {
            tables.classes.insert(x, c);
        }
    }
    Ok(())
}

/// One position's class and depth, where the strong value is a draw.
pub fn class_at(classes: &Classes, slot: u64) -> Option<(i16, Option<u16>)> {
    let c = classes.class[slot as usize];
    (c != NO_CLASS).then(|| (c, (classes.depth[slot as usize] != 0).then_some(classes.depth[slot as usize])))
}

/// Whether a value byte is a draw.
pub fn is_draw(byte: u8) -> bool {
    byte == DRAW && Value::decode(byte) == Value::Draw
}
