//! A game as a graph of solve units, for running it on many machines (`morris plan`,
//! `morris solve --unit`, docs/distributed.md): what each unit writes and reads,
//! which units must come before it, and what it costs.
//!
//! A unit is what the solver takes in one piece ([`Sector::unit`]): a movement
//! subspace `s-s`, a pair `s-o` + `o-s`, a placement sector, or under Lasker rules a
//! placement sector with its mirror. Its ID is its sectors' names joined by `+`, in
//! the order the solver takes them (`5-5`, `3-4+4-3`, `4-4-2-1`,
//! `3-4-2-1+4-3-1-2`): stable across builds, as the table names are, and typed as
//! they are written.

use crate::position::sector::{Sector, SectorParseError};
use crate::solve::generate::{plan, plan_units, within_rules, Options};
use crate::table::TableError;
use std::collections::HashMap;
use std::fmt;

/// A solve unit, named by its sectors ([`UnitId::parse`], the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnitId(Vec<Sector>);

/// Why a text names no unit of the rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitIdError {
    /// A part is no sector name.
    #[error("invalid unit '{given}': {source}")]
    Sector {
        /// The text given.
        given: String,
        /// Why the part is no sector.
        source: SectorParseError,
    },
    /// A sector with more stones a side than the rules give.
    #[error("invalid unit '{given}': sector {sector} has more stones a side than the rules `{rules}` give (at most {})", rules.stones())]
    BeyondRules {
        /// The text given.
        given: String,
        /// The sector.
        sector: Sector,
        /// The rules.
        rules: crate::Rules,
    },
    /// Sectors that the solver does not take together.
    #[error("invalid unit '{given}': {first} is solved in the unit {unit}")]
    NotAUnit {
        /// The text given.
        given: String,
        /// Its first sector.
        first: Sector,
        /// The unit that sector is solved in.
        unit: UnitId,
    },
}

impl UnitId {
    /// The unit `sector` is solved in under `game`'s rules.
    pub fn of(sector: Sector, game: &crate::rules::game::Game) -> UnitId {
        UnitId(sector.unit(game))
    }

    /// Reads a unit ID under `rules`: the sectors joined by `+`, or the name of any
    /// one of its sectors (`4-3` is the unit `3-4+4-3`).
    pub fn parse(text: &str, rules: &crate::Rules) -> Result<UnitId, UnitIdError> {
        let given = text.trim().to_string();
        let mut parts = Vec::new();
        for part in given.split('+') {
            let sector: Sector = part.parse().map_err(|source| UnitIdError::Sector { given: given.clone(), source })?;
            if sector.s + sector.sh > rules.stones() || sector.o + sector.oh > rules.stones() {
                return Err(UnitIdError::BeyondRules { given, sector, rules: *rules });
            }
            parts.push(sector);
        }
        let unit = UnitId::of(parts[0], rules.game());
        if parts.len() == 1 || parts == unit.0 {
            Ok(unit)
        } else {
            Err(UnitIdError::NotAUnit { given, first: parts[0], unit })
        }
    }

    /// The sectors of the unit, in the order the solver takes them.
    pub fn sectors(&self) -> &[Sector] {
        &self.0
    }

    /// The tables the unit reads: where its moves leave it to, sorted.
    pub fn reads(&self, game: &crate::rules::game::Game) -> Vec<Sector> {
        let mut out: Vec<Sector> = self.0.iter().flat_map(|x| x.children(game)).filter(|c| !self.0.contains(c)).collect();
        out.sort();
        out.dedup();
        out
    }

    /// Whether the solver solves the unit by retrograde analysis (it has a cycle:
    /// movement units, Lasker placement units), rather than by one pass of induction.
    pub fn retrograde(&self, game: &crate::rules::game::Game) -> bool {
        self.0.len() > 1 || self.0[0].cyclic(game) || game.rules().lasker()
    }
}

impl fmt::Display for UnitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, s) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str("+")?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

/// One unit of the graph.
#[derive(Clone, Debug)]
pub struct Node {
    /// The unit.
    pub id: UnitId,
    /// The units that write the tables it reads, each earlier in the graph.
    pub depends_on: Vec<UnitId>,
    /// The tables it reads.
    pub reads: Vec<Sector>,
    /// Index slots of its tables, holes included.
    pub slots: u64,
    /// Index slots of the tables it reads, which it holds decoded while it solves.
    pub read_slots: u64,
    /// Solved by retrograde analysis ([`UnitId::retrograde`]).
    pub retrograde: bool,
    /// What it costs.
    pub estimate: Estimate,
}

/// What a unit costs on one machine, from its slots and the rates measured below.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Peak resident memory of `morris solve --unit`, bytes.
    pub memory_bytes: u64,
    /// Wall time on two cores, seconds.
    pub seconds: f64,
}

/// Rates and sizes fitted to `/usr/bin/time -v morris solve --unit ID` of all 131 units
/// of `--max-stones 12 --start 6-6` (standard rules) on the reference machine (2 vCPU
/// Xeon, 24 GiB, while another solve ran at nice 19; `scripts/unit-times.py`,
/// docs/distributed.md). The estimates are these times the unit's slots, so they scale
/// with the unit. Memory is on the safe side: every unit's peak RSS was 22 to 85 % of
/// its estimate. Time is rougher, because a retrograde unit's time grows with its
/// number of levels as well as its slots, and the machine was shared: the units above
/// a million slots took 0.15 to 2.4 times their estimate (the 3-9 pair the most, 5-5
/// the least); the workflow gives each job four times its estimate. The whole standard
/// game is estimated at 83 minutes of retrograde units (47 measured in one process on
/// an idle machine) and 197 of placement units (45 in one process, which decodes each
/// child table once where a unit alone decodes all of its own).
pub mod rates {
    /// Resident memory of a unit solver before its tables: the binary, the index's
    /// lookup tables, buffers (19 MB measured for the smallest units).
    pub const BASE_BYTES: u64 = 32 << 20;
    /// Bytes per slot of a unit solved by retrograde analysis: the value byte, the
    /// child counters and the work lists (3.0 to 5.2 measured beyond the tables read).
    pub const RETRO_BYTES_PER_SLOT: f64 = 6.0;
    /// Bytes per slot of a placement sector solved by induction: the value byte and
    /// the writer's planes (1.1 to 2.2 measured).
    pub const INDUCTION_BYTES_PER_SLOT: f64 = 2.5;
    /// Bytes per slot of a table read: decoded, one value byte each.
    pub const READ_BYTES_PER_SLOT: f64 = 1.0;
    /// Slots per second of retrograde analysis, writing included (0.8 M measured for
    /// the pairs 3-8 and 3-9 with their long chains of levels, 12 M for 5-5, 3.2 M over
    /// the 49 standard subspaces in one process).
    pub const RETRO_SLOTS_PER_SECOND: f64 = 2.0e6;
    /// Slots per second of induction, writing included.
    pub const INDUCTION_SLOTS_PER_SECOND: f64 = 3.0e6;
    /// Slots per second of reading and decoding the tables a unit reads.
    pub const READ_SLOTS_PER_SECOND: f64 = 8.0e6;
    /// Seconds of a unit however small: the process, the rule check, opening files
    /// (0.1 to 0.3 s measured).
    pub const BASE_SECONDS: f64 = 0.2;
}

impl Estimate {
    /// The estimate of a unit of `slots` read over tables of `read_slots`.
    pub fn of(slots: u64, read_slots: u64, retrograde: bool) -> Estimate {
        use rates::*;
        let (bytes, rate) = if retrograde { (RETRO_BYTES_PER_SLOT, RETRO_SLOTS_PER_SECOND) } else { (INDUCTION_BYTES_PER_SLOT, INDUCTION_SLOTS_PER_SECOND) };
        let memory = BASE_BYTES as f64 + bytes * slots as f64 + READ_BYTES_PER_SLOT * read_slots as f64;
        Estimate { memory_bytes: memory.ceil() as u64, seconds: BASE_SECONDS + slots as f64 / rate + read_slots as f64 / READ_SLOTS_PER_SECOND }
    }
}

/// The units that `opts` asks for ([`plan`] and [`plan_units`], with what they
/// depend on), each after every unit it depends on: movement units, then placement
/// units children first, the order in which `morris solve` solves them.
pub fn graph(opts: &Options) -> Result<Vec<Node>, TableError> {
    within_rules(opts)?;
    let game = opts.rules.game();
    let board = opts.rules.board();
    let mut ids: Vec<UnitId> = plan(opts).iter().map(|u| UnitId(u.sectors())).collect();
    ids.extend(plan_units(opts)?.into_iter().map(UnitId));
    let mut slots_of: HashMap<Sector, u64> = HashMap::new();
    let mut slots = |x: Sector| *slots_of.entry(x).or_insert_with(|| x.index(board).len());
    let mut nodes = Vec::with_capacity(ids.len());
    for id in ids {
        let reads = id.reads(game);
        let mut depends_on: Vec<UnitId> = reads.iter().map(|&r| UnitId::of(r, game)).collect();
        depends_on.sort();
        depends_on.dedup();
        let own: u64 = id.sectors().iter().map(|&x| slots(x)).sum();
        let read_slots: u64 = reads.iter().map(|&x| slots(x)).sum();
        let retrograde = id.retrograde(game);
        nodes.push(Node { estimate: Estimate::of(own, read_slots, retrograde), id, depends_on, reads, slots: own, read_slots, retrograde });
    }
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    /// IDs read back as they print, a member's name names its unit, and a set the
    /// solver does not take together is refused, naming the unit.
    #[test]
    fn unit_ids() {
        let lasker: Rules = "lasker".parse().unwrap();
        for (rules, text, id) in
            [(Rules::STANDARD, "4-3", "3-4+4-3"), (Rules::STANDARD, "3-4+4-3", "3-4+4-3"), (Rules::STANDARD, "5-5", "5-5"), (Rules::STANDARD, "4-4-2-1", "4-4-2-1")]
        {
            let u = UnitId::parse(text, &rules).unwrap();
            assert_eq!(u.to_string(), id);
            assert_eq!(UnitId::parse(&u.to_string(), &rules).unwrap(), u);
        }
        let pair = UnitId::parse("4-3-2-1", &lasker).unwrap();
        assert_eq!(pair.sectors().len(), 2, "{pair}");
        assert!(matches!(UnitId::parse("4-3+5-5", &Rules::STANDARD), Err(UnitIdError::NotAUnit { .. })));
        assert!(matches!(UnitId::parse("4-3+3-4", &Rules::STANDARD), Err(UnitIdError::NotAUnit { .. })), "the solver's order");
        assert!(matches!(UnitId::parse("10-3", &Rules::STANDARD), Err(UnitIdError::BeyondRules { .. })));
        assert!(matches!(UnitId::parse("3-3-7-0", &Rules::STANDARD), Err(UnitIdError::BeyondRules { .. })));
        assert!(matches!(UnitId::parse("x", &Rules::STANDARD), Err(UnitIdError::Sector { .. })));
    }
}
