//! The members of a unit: its sectors, their indexes, and which member the moves
//! without removal lead to. Every pass over a unit (values, draw classes) lays its own
//! per-slot tables over this one layout.

use crate::position::index::SubspaceIndex;
use crate::position::sector::Sector;
use crate::rules::game::Game;

/// One sector of a unit.
pub(crate) struct Member {
    pub sector: Sector,
    pub index: SubspaceIndex,
    /// Position in the unit of the sector that moves without removal lead to (none
    /// where the side to move cannot move a stone, or its move leaves the unit). The
    /// two members of a unit mirror each other: each is the other's target.
    pub target: Option<usize>,
}

/// The layout of the unit of `sectors` (one sector, or a sector and its
/// `after_slide` mirror), in their order.
pub(crate) fn members(game: &Game, sectors: &[Sector]) -> Vec<Member> {
    sectors
        .iter()
        .map(|&sector| {
            let index = sector.index(game.rules().board());
            assert!(index.len() < u32::MAX as u64, "slots fit in u32");
            let target = if sector.slides(game) { sectors.iter().position(|&t| t == sector.after_slide()) } else { None };
            Member { sector, index, target }
        })
        .collect()
}

/// The name of the unit in progress reports: `3-4 + 4-3`.
pub(crate) fn name(members: &[Member]) -> String {
    members.iter().map(|m| m.sector.to_string()).collect::<Vec<_>>().join(" + ")
}
