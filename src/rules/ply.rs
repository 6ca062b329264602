//! One ply of any phase under a rule set: placements while the side to move has
//! stones in hand, slides or flights after, Lasker's choice between the two, and the
//! removals of a mill, each written once. Every solver, the search, the verifier, the
//! draw classes and [`Position::children`](crate::position::Position::children)
//! generate moves here.

use crate::rules::game::Game;
use crate::rules::geometry::{BitIter, Bits};
use crate::rules::movegen::{for_each_capture, for_each_move_group, for_each_move_with, Move, NONE};
use crate::rules::Color;

/// Hands and side to move at one ply from the root.
#[derive(Clone, Copy, Debug)]
pub struct Ply {
    pub white_hand: u8,
    pub black_hand: u8,
    pub to_move: Color,
}

impl Ply {
    pub fn next(self) -> Ply {
        let mut p = self;
        match self.to_move {
            Color::White if p.white_hand > 0 => p.white_hand -= 1,
            Color::Black if p.black_hand > 0 => p.black_hand -= 1,
            _ => {}
        }
        p.to_move = self.to_move.other();
        p
    }
    /// The ply after `mv`: a placement empties the hand by one, a move (Lasker, with
    /// stones in hand) keeps it.
    pub fn after(self, mv: &Move) -> Ply {
        if mv.from == NONE {
            self.next()
        } else {
            Ply { to_move: self.to_move.other(), ..self }
        }
    }
    pub fn mover_hand(self) -> u8 {
        if self.to_move == Color::White {
            self.white_hand
        } else {
            self.black_hand
        }
    }
    pub fn opp_hand(self) -> u8 {
        if self.to_move == Color::White {
            self.black_hand
        } else {
            self.white_hand
        }
    }
    pub fn is_movement(self) -> bool {
        self.white_hand == 0 && self.black_hand == 0
    }
    /// The plies of a game from this one up to and including the first movement ply.
    pub fn schedule(self) -> Vec<Ply> {
        let mut plies = vec![self];
        while !plies.last().unwrap().is_movement() {
            let next = plies.last().unwrap().next();
            plies.push(next);
        }
        plies
    }
    /// (white, black) from (mover, opponent) at this ply.
    pub fn colours(self, mover: Bits, opp: Bits) -> (Bits, Bits) {
        if self.to_move == Color::White {
            (mover, opp)
        } else {
            (opp, mover)
        }
    }
}

/// Calls `f(move, mover_after, opp_after)` for every move of the side to move at a ply
/// (placements while it has stones in hand, moves after), from its own point of view,
/// under `game`'s rules. Under `lasker` a side with stones both in hand and on the
/// board may also move a stone (the moves come after the placements); the hand of a
/// side that moves stays as it is (see [`Ply::after`]).
#[inline(always)]
pub fn for_each_ply_move(game: &Game, ply: Ply, mover: Bits, opp: Bits, mut f: impl FnMut(Move, Bits, Bits)) {
    if ply.mover_hand() == 0 {
        for_each_move_with(
            game,
            mover,
            opp,
            0,
            ply.opp_hand(),
            #[inline(always)]
            |mv, child_mover, child_opp| f(mv, child_opp, child_mover),
        );
        return;
    }
    // Lasker: a side with stones both in hand and on the board may move instead.
    if game.rules().lasker && mover != 0 {
        for_each_move_with(
            game,
            mover,
            opp,
            ply.mover_hand(),
            ply.opp_hand(),
            #[inline(always)]
            |mv, child_mover, child_opp| f(mv, child_opp, child_mover),
        );
    }
    let empty = !(mover | opp) & game.full();
    // Empty when a mill takes nothing: against an empty board, or `removal=strict`
    // with every stone in a mill (see `Game::removable`).
    let rem = game.removable(opp);
    // A placement closes a mill exactly where it completes one of `mover`'s: one pass
    // over the mills, not a test at each empty point.
    let closers = game.mill_completions(mover);
    for to in BitIter(empty) {
        let after = mover | 1 << to;
        let mills = if closers & (1 << to) == 0 { 0 } else { game.mills_closed(after, to) };
        if mills == 0 || rem == 0 {
            f(Move { from: NONE, to: to as u8, capture: NONE, capture2: NONE }, after, opp);
        } else {
            placement_captures(game, ply, to as u8, after, opp, rem, mills, &mut f);
        }
    }
}

/// The children of a placement onto `to` that closed `mills` mills (at least one),
/// `rem` the stones a removal may take (not none): one per removal.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn placement_captures(game: &Game, ply: Ply, to: u8, after: Bits, opp: Bits, rem: Bits, mills: u32, f: &mut impl FnMut(Move, Bits, Bits)) {
    if mills >= 2 && game.take_each() {
        game.for_each_removal(opp, ply.opp_hand() as u32, mills, |left| {
            let (capture, capture2) = crate::rules::movegen::removed_pair(opp, left);
            f(Move { from: NONE, to, capture, capture2 }, after, left)
        });
    } else {
        for r in BitIter(rem) {
            f(Move { from: NONE, to, capture: r as u8, capture2: NONE }, after, opp & !(1 << r));
        }
    }
}

/// The moves of a ply a group at a time: `f(from, plain, closing)` for each stone that
/// moves and, with `from` [`NONE`], for the placements, with the points each reaches
/// split into those where no mill that removes a stone is closed (`plain`: one child
/// each) and those where one is (`closing`: a child per removal, see
/// [`for_each_ply_capture`]): the children of [`for_each_ply_move`] (a test holds
/// them equal), in its order of stones; under `lasker` the moves before the
/// placements. See
/// [`for_each_move_group`](crate::rules::movegen::for_each_move_group).
#[inline(always)]
pub fn for_each_ply_group(game: &Game, ply: Ply, mover: Bits, opp: Bits, mut f: impl FnMut(u8, Bits, Bits)) {
    if ply.mover_hand() == 0 {
        for_each_move_group(game, mover, opp, 0, f);
        return;
    }
    // Lasker: a side with stones both in hand and on the board may move instead.
    if game.rules().lasker && mover != 0 {
        for_each_move_group(game, mover, opp, ply.mover_hand(), &mut f);
    }
    let empty = !(mover | opp) & game.full();
    // A placement closes a mill exactly where it completes one of `mover`'s (one pass
    // over the mills, not a test at each empty point); one against an opponent whose
    // stones a removal cannot take (see `Game::removable`) is a plain move.
    let closing = if game.removable(opp) == 0 { 0 } else { empty & game.mill_completions(mover) };
    f(NONE, empty & !closing, closing);
}

/// The children of the move `from`-`to` of a ply (`from` [`NONE`] for a placement),
/// which closes a mill (a `closing` point of [`for_each_ply_group`]), as
/// [`for_each_ply_move`] gives them: one per removal, from the mover's point of view.
#[inline]
pub fn for_each_ply_capture(game: &Game, ply: Ply, from: u8, to: u8, mover: Bits, opp: Bits, mut f: impl FnMut(Move, Bits, Bits)) {
    if from != NONE {
        for_each_capture(game, from, to, mover, opp, ply.opp_hand(), |mv, child_mover, child_opp| f(mv, child_opp, child_mover));
        return;
    }
    let after = mover | 1 << to;
    placement_captures(game, ply, to, after, opp, game.removable(opp), game.mills_closed(after, to as usize), &mut f);
}

/// Whether the side to move at `ply` has already lost, before any move: fewer than 3
/// stones on the board and in hand.
pub fn has_lost(ply: Ply, mover: Bits) -> bool {
    mover.count_ones() + (ply.mover_hand() as u32) < 3
}

/// The children of a position under `game`'s rules, each from its own side to move's
/// point of view: `(mover, opp, mover_hand, opp_hand)` after the move and its
/// removals. `mover_hand` and `opp_hand` are the stones in hand before the move. For
/// tests that compare move generation with an independent implementation; the solvers
/// use the same generator through `for_each_ply_move`.
pub fn children(game: &Game, mover: Bits, opp: Bits, mover_hand: u8, opp_hand: u8) -> Vec<(Bits, Bits, u8, u8)> {
    let ply = Ply { white_hand: mover_hand, black_hand: opp_hand, to_move: Color::White };
    let mut out = Vec::new();
    for_each_ply_move(game, ply, mover, opp, |mv, after, opp_after| {
        let next = ply.after(&mv);
        out.push((opp_after, after, next.black_hand, next.white_hand))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mill closed against an opponent with no stone on the board: the placement is
    /// legal and removes nothing (see `Game::removable`).
    #[test]
    fn mill_against_an_empty_board_removes_nothing() {
        let geo = crate::rules::Board::Nine.geometry();
        let white = (1 << geo.point("a1").unwrap()) | (1 << geo.point("d1").unwrap());
        let ply = Ply { white_hand: 1, black_hand: 3, to_move: Color::White };
        let mut moves = vec![];
        for_each_ply_move(Game::standard(), ply, white, 0, |mv, after, opp| moves.push((mv.to_string(), after, opp)));
        assert_eq!(moves.len(), 22);
        let g1 = moves.iter().find(|m| m.0 == "g1").expect("closing the mill is a legal placement");
        assert_eq!(g1.2, 0);
        assert_eq!(g1.1.count_ones(), 3);
    }

    /// The moves a group at a time, with each closing point's captures, are exactly
    /// the moves one by one, in every named rule set and option that changes them:
    /// random positions with random hands, each side up to its stones.
    #[test]
    fn groups_give_the_moves_one_by_one() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for name in ["standard", "lasker", "morabaraba", "twelve", "six", "five", "standard,take=each", "standard,removal=strict", "lasker,take=each", "standard,removal=lenient"] {
            let rules: crate::Rules = name.parse().unwrap();
            let game = Game::of(rules);
            let points: Vec<usize> = BitIter(game.full()).collect();
            let stones = rules.stones as u64;
            for _ in 0..3000 {
                let mut sides = [0 as Bits; 2];
                for side in 0..2 {
                    for _ in 0..rnd(stones + 1) {
                        let p = points[rnd(points.len() as u64) as usize];
                        if (sides[0] | sides[1]) & (1 << p) == 0 {
                            sides[side] |= 1 << p;
                        }
                    }
                }
                let [mover, opp] = sides;
                let (mh, oh) = (rnd(stones - mover.count_ones() as u64 + 1) as u8, rnd(stones - opp.count_ones() as u64 + 1) as u8);
                let ply = Ply { white_hand: mh, black_hand: oh, to_move: Color::White };
                let mut one_by_one = Vec::new();
                for_each_ply_move(game, ply, mover, opp, |mv, a, o| one_by_one.push((mv, a, o)));
                let mut grouped = Vec::new();
                for_each_ply_group(game, ply, mover, opp, |from, plain, closing| {
                    assert_eq!(plain & closing, 0);
                    let base = if from == NONE { mover } else { mover ^ (1 << from) };
                    for to in BitIter(plain) {
                        grouped.push((Move { from, to: to as u8, capture: NONE, capture2: NONE }, base | (1 << to), opp));
                    }
                    for to in BitIter(closing) {
                        let before = grouped.len();
                        for_each_ply_capture(game, ply, from, to as u8, mover, opp, |mv, a, o| grouped.push((mv, a, o)));
                        assert!(grouped.len() > before, "{name}: a closing point with no capture");
                    }
                });
                let key = |v: &mut Vec<(Move, Bits, Bits)>| v.sort_by_key(|(m, a, o)| (m.from, m.to, m.capture, m.capture2, *a, *o));
                key(&mut one_by_one);
                key(&mut grouped);
                assert_eq!(one_by_one, grouped, "{name}: {mover:#x} {opp:#x} hands {mh} {oh}");
            }
        }
    }
}
