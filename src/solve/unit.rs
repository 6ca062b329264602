//! The solver's one entry point: a unit of sectors in, their tables out.
//!
//! A unit is what must be solved together: a movement unit (`s-o` with `o-s`, or
//! `s-s`), one placement sector, or under Lasker rules a placement sector with its
//! mirror. A placement sector without a cycle takes one pass of backward induction
//! ([`placement::induction`](crate::solve::placement::induction)); every other unit
//! is solved by retrograde analysis (`retro`).

use crate::position::sector::Sector;
use crate::position::value::{Deep, TooDeep};
use crate::rules::game::Game;
use crate::solve::limits::Limits;
use crate::solve::placement::induction;
use crate::solve::progress::Progress;
use crate::solve::retro;
use crate::solve::tables::SectorTables;

/// What becomes of values deeper than a byte of their own holds (some rule sets go
/// past 252 plies).
#[derive(Clone, Copy, Debug)]
pub enum DeepValues {
    /// They are an error: [`TooDeep`] names the sector of the shallowest, where the
    /// depth first ran out.
    Refuse,
    /// They are kept exactly: their bytes are [`DEEP_WIN`](crate::position::value::DEEP_WIN)
    /// or [`DEEP_LOSS`](crate::position::value::DEEP_LOSS), and each sector's [`Deep`]
    /// list holds their depths. Deeper means beyond the limits given:
    /// [`Limits::TABLE`], or lower in tests, to reach the deep paths on small sectors.
    Keep(Limits),
}

/// One sector of a unit, solved.
#[derive(Clone, Debug)]
pub struct SolvedSector {
    pub sector: Sector,
    /// One value byte per slot of the sector's index.
    pub values: Vec<u8>,
    /// The exact depths of the deep bytes; empty under [`DeepValues::Refuse`].
    pub deep: Deep,
}

/// Solves the unit of `sectors` under `game`'s rules: one sector, or a sector and its
/// `after_slide` mirror. `tables` must hold every sector their moves lead into outside
/// the unit. Returns each sector's table, in the order of `sectors`.
pub fn solve_unit(game: &Game, sectors: &[Sector], tables: &dyn SectorTables, progress: &dyn Progress, deep: DeepValues) -> Result<Vec<SolvedSector>, TooDeep> {
    let limits = match deep {
        DeepValues::Refuse => Limits::TABLE,
        DeepValues::Keep(limits) => limits,
    };
    // Induction knows placements only: a Lasker sector's moves go to the retrograde
    // solver even where they leave the unit.
    let solved = if sectors.len() == 1 && !sectors[0].cyclic(game) && !game.rules().lasker() {
        vec![induction::solve_sector(game, sectors[0], tables, progress, limits)]
    } else {
        retro::solve(game, sectors, tables, progress, limits)
    };
    let solved: Vec<SolvedSector> = sectors.iter().zip(solved).map(|(&sector, (values, deep))| SolvedSector { sector, values, deep }).collect();
    if let DeepValues::Refuse = deep {
        let shallowest = solved.iter().filter_map(|s| s.deep.entries().iter().map(|e| e.1).min().map(|d| (d, s.sector))).min_by_key(|e| e.0);
        if let Some((depth, sector)) = shallowest {
            return Err(TooDeep { sector, depth });
        }
    }
    Ok(solved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::index::SubspaceIndex;
    use crate::position::subspace::{Subspace, Unit};
    use crate::position::value::{enc_loss, is_deep, Value, MAX_LOSS};
    use crate::solve::progress::NoProgress;
    use std::collections::HashMap;

    /// A child table of losses in 252 plies, the deepest loss a byte holds, makes the
    /// captures into it wins in 253: an error naming the unit, not a panic or a wrong
    /// byte. The same unit over the true 3-3 table solves.
    #[test]
    fn values_beyond_the_encoding_are_an_error() {
        let game = Game::standard();
        let sub34 = Subspace::new(3, 4).unwrap();
        let unit = sub34.unit();
        let sub33 = Subspace::new(3, 3).unwrap();
        let deep: HashMap<Subspace, Vec<u8>> = [(sub33, vec![enc_loss(MAX_LOSS); SubspaceIndex::new(crate::rules::Board::Nine, sub33.s, sub33.o).len() as usize])].into();
        let err = solve_unit(game, &unit.sectors(), &deep, &NoProgress, DeepValues::Refuse).unwrap_err();
        assert_eq!(err.depth, 253);
        // Only 3-4's captures lead into 3-3 (4-3's leave two stones): the error names it,
        // whichever member comes first in the unit.
        assert_eq!(err.sector.subspace(), Some(sub34), "{err}");
        let reversed: Vec<Sector> = unit.sectors().into_iter().rev().collect();
        assert_eq!(reversed[1].subspace(), Some(sub34));
        let err = solve_unit(game, &reversed, &deep, &NoProgress, DeepValues::Refuse).unwrap_err();
        assert_eq!(err.sector, reversed[1], "{err}");
        assert!(err.to_string().contains("253 plies"), "{err}");
        let unit33 = Unit::all_in_order()[0];
        let real: HashMap<Subspace, Vec<u8>> = solve_unit(game, &unit33.sectors(), &HashMap::<Subspace, Vec<u8>>::new(), &NoProgress, DeepValues::Refuse)
            .unwrap()
            .into_iter()
            .map(|s| (s.sector.subspace().unwrap(), s.values))
            .collect();
        assert!(solve_unit(game, &unit.sectors(), &real, &NoProgress, DeepValues::Refuse).is_ok());
    }

    /// Tables with the depths of their deep values, by sector.
    struct WithDeep(HashMap<Sector, (Vec<u8>, Deep)>);

    impl SectorTables for WithDeep {
        fn values(&self, sector: Sector) -> &[u8] {
            &self.0[&sector].0
        }
        fn deep(&self, sector: Sector) -> Option<&Deep> {
            Some(&self.0[&sector].1)
        }
    }

    /// With the byte's limits lowered to a few plies, most values of the small sectors
    /// are deep: each one decoded through its [`Deep`] list must equal the plain
    /// solve's byte, value and depth. Over the movement units up to 8 stones, whose
    /// captures read deep children and deep capture wins, and the placement sectors
    /// of the 4-4 start, which induction solves (under Lasker rules, the retrograde
    /// solver).
    #[test]
    fn deep_values_equal_the_plain_solve() {
        for rules in ["standard", "morabaraba", "standard,flying=none", "lasker"] {
            let game = rules.parse::<crate::Rules>().unwrap().game();
            let low = Limits { max_win: 5, max_loss: 6 };
            let mut plain: HashMap<Sector, Vec<u8>> = HashMap::new();
            let mut deep = WithDeep(HashMap::new());
            let (mut deep_values, mut deepest) = (0, 0);
            let movement = Unit::all_in_order_up_to(game.rules().stones()).into_iter().filter(|u| u.total() <= 8).map(|u| u.sectors());
            let start = Sector::start(4, 4).unwrap();
            let placement = Sector::solve_units(&Sector::reachable(start, game), game).unwrap().into_iter().filter(|u| !u[0].is_movement());
            for unit in movement.chain(placement) {
                let a = solve_unit(game, &unit, &plain, &NoProgress, DeepValues::Refuse).unwrap();
                let b = solve_unit(game, &unit, &deep, &NoProgress, DeepValues::Keep(low)).unwrap();
                for (want, got) in a.into_iter().zip(b) {
                    let sector = want.sector;
                    let index = sector.index(game.rules().board());
                    for (i, (&w, &b)) in want.values.iter().zip(&got.values).enumerate() {
                        if index.may_be_hole(i as u64) && index.is_hole(i as u64) {
                            continue;
                        }
                        assert_eq!(got.deep.value(b, i as u64), Some(Value::decode(w)), "{rules} {sector} slot {i}");
                        assert_eq!(is_deep(b), low.is_deep(Value::decode(w)), "{rules} {sector} slot {i}");
                    }
                    deep_values += got.deep.len();
                    deepest = deepest.max(got.deep.entries().iter().map(|e| e.1).max().unwrap_or(0));
                    plain.insert(sector, want.values);
                    deep.0.insert(sector, (got.values, got.deep));
                }
            }
            assert!(deep_values > 1000 && deepest > 20, "{rules}: {deep_values} deep values, deepest {deepest}");
        }
    }
}
