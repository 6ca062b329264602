//! The exits of a unit: where each kind of move of a member leads, and the tables
//! solved before that a move leaving the unit reads.
//!
//! A move without removal of a side that moves a stone stays in the unit, in the
//! member it targets. Every other move (a placement, a removal, a slide into a sector
//! outside the unit) leads into a sector solved before, so its value is known before
//! the unit's own propagation starts. Each pass over the unit reads something of
//! those sectors (the values pass their values, the class pass their values and
//! classes): `T` is what it reads.

use super::members::Member;
use crate::position::index::{CaptureIndex, SubspaceIndex};
use crate::position::sector::Sector;
use crate::position::Color;
use crate::rules::game::Game;
use crate::rules::geometry::Bits;
use crate::rules::movegen::NONE;
use crate::rules::ply::{for_each_ply_move, Ply};

/// Where one member's moves lead. A copy is cheap, and each task of a hot loop takes
/// its own, which the compiler keeps beside the loop's other locals.
#[derive(Clone, Copy)]
pub(crate) struct Exits<T> {
    ply: Ply,
    /// The index of the member that moves without removal lead to, if the unit holds it.
    inside: Option<SubspaceIndex>,
    /// By [a stone placed (1) or moved (0)][stones removed]: the sector left into, and
    /// what the pass reads of it. `None` where no such move exists, or where the removal
    /// leaves the opponent below 3 stones (a win at once, with no sector).
    out: [[Option<(SubspaceIndex, T)>; 3]; 2],
}

/// Where one move leads.
pub(crate) enum Child<'a, T> {
    /// The slot of the child in the member the moves without removal target (0 where
    /// the caller did not ask for the slots of such children).
    Inside(u64),
    /// What the pass reads of the sector the move leaves into, and the child's slot there.
    Exit(&'a T, u64),
    /// A removal that leaves the opponent two stones: the mover wins at once.
    Wins,
}

impl<T> Exits<T> {
    /// The exits of `members[at]`; `table` gives what the pass reads of each sector
    /// that a move leaves the unit into.
    pub(crate) fn new(game: &Game, members: &[Member], at: usize, mut table: impl FnMut(Sector) -> T) -> Exits<T> {
        let member = &members[at];
        let sector = member.sector;
        let slides = sector.slides(game);
        let places = sector.places();
        let sectors: [[Option<Sector>; 3]; 2] = [
            [
                Some(sector.after_slide()).filter(|_| slides && member.target.is_none()),
                sector.after_slide_removing(1).filter(|_| slides),
                sector.after_slide_removing(2).filter(|_| slides && game.take_each()),
            ],
            [Some(sector.after_move()).filter(|_| places), sector.after_removing(1).filter(|_| places), sector.after_removing(2).filter(|_| places && game.take_each())],
        ];
        let mut out = |x: Option<Sector>| x.map(|c| (c.index(game.rules().board()), table(c)));
        Exits {
            ply: Ply { white_hand: sector.sh, black_hand: sector.oh, to_move: Color::White },
            inside: member.target.map(|t| members[t].index),
            out: [[out(sectors[0][0]), out(sectors[0][1]), out(sectors[0][2])], [out(sectors[1][0]), out(sectors[1][1]), out(sectors[1][2])]],
        }
    }

    /// Calls `f` with where each move of the position `(mover, opp)` leads, in the
    /// order of the move generator. With `inside_slots` false, a child inside the unit
    /// comes without its slot: a caller that only counts them saves indexing each,
    /// which is most of the work of a position with many slides.
    #[inline(always)]
    pub(crate) fn for_each_child<'s>(&'s self, game: &Game, mover: Bits, opp: Bits, inside_slots: bool, mut f: impl FnMut(Child<'s, T>)) {
        // Children inside the unit keep our opponent's stones as their mover's.
        let prep = if inside_slots { self.inside.as_ref().and_then(|t| t.prepare(opp, true)) } else { None };
        // A placement without removal keeps our opponent's stones as the child's mover,
        // so where that set comes first in the child's index it is prepared once here
        // (Lasker placement sectors: a dozen placements a position).
        let place = self.out[1][0].as_ref().map(|(ci, _)| ci.prepare(opp, true));
        // Captures after one move share the capturer's stones (the child's opponent
        // set), so their canonicalisation is prepared once per move; by [placed][removed].
        let mut captures = [[CaptureIndex::default(); 3]; 2];
        for_each_ply_move(
            game,
            self.ply,
            mover,
            opp,
            #[inline(always)]
            |mv, after, opp_after| {
                let (cm, co) = (opp_after, after);
                // A move names every stone it removes (two for a double mill under `take=each`).
                let removed = (mv.capture != NONE) as usize + (mv.capture2 != NONE) as usize;
                let placed = (mv.from == NONE) as usize;
                if let (0, 0, Some(t)) = (removed, placed, self.inside.as_ref()) {
                    f(Child::Inside(if inside_slots { t.index_with(&prep, cm, co) } else { 0 }));
                } else if let Some((ci, table)) = &self.out[placed][removed] {
                    let slot = match (placed, removed, &place) {
                        (1, 0, Some(prep)) => ci.index_with(prep, cm, co),
                        _ => captures[placed][removed].index(ci, cm, co),
                    };
                    f(Child::Exit(table, slot));
                } else {
                    debug_assert!(removed > 0, "a move without removal has a child sector");
                    f(Child::Wins);
                }
            },
        );
    }
}
