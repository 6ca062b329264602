//! Forward moves and backward (non-capturing) unmoves of the movement phase.
//!
//! Positions here are side-relative: `(mover, opp)`. A child is given from the point of
//! view of its own side to move, so after a move the roles swap.

use crate::rules::board24::{on_board, Board24};
use crate::rules::game::Game;
use crate::rules::geometry::{BitIter, Bits};
use crate::rules::Board;
use std::fmt;

/// The point number that stands for "no point" in [`Move`]: no `from` in a placement,
/// no `capture` in a move that takes nothing.
pub const NONE: u8 = u8::MAX;

/// A move: `from` is `NONE` for a placement; `capture` is `NONE` without a capture.
///
/// Points are internal point numbers (see [`geometry`](crate::rules::geometry)), and the text
/// form is the notation of `docs/rules.md`: `d1` places a stone, `a1-a4` slides (or, with three
/// stones, flies) one, and `x` followed by a point adds the capture that closing a mill
/// makes: `d1xg7`, `a1-a4xd7`. Parsing checks the notation only; whether a move is
/// legal depends on the position (see [`Position::legal_moves`](crate::Position::legal_moves)
/// and [`Position::play`](crate::Position::play)).
///
/// # Examples
///
/// ```rust
/// use morris::rules::movegen::{Move, NONE};
/// use morris::rules::Board;
///
/// let m: Move = "a1-a4xd7".parse()?;
/// let point = |name| Board::Nine.geometry().point(name).unwrap() as u8;
/// assert_eq!(m, Move { from: point("a1"), to: point("a4"), capture: point("d7"), capture2: NONE });
///
/// let place: Move = "d1".parse()?;
/// assert_eq!((place.from, place.capture), (NONE, NONE));
///
/// for text in ["d1", "d1xg7", "a1-a4", "a1-a4xd7"] {
///     assert_eq!(text.parse::<Move>()?.to_string(), text);
/// }
/// assert_eq!(" A1-A4 ".parse::<Move>()?.to_string(), "a1-a4");
/// assert!("a1-z9".parse::<Move>().is_err());
/// // A double mill under `take=each` takes two stones, named in either order.
/// assert_eq!("d1xg7xa7".parse::<Move>()?.to_string(), "d1xa7xg7");
/// assert!("d1xa7xa7".parse::<Move>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The point the stone leaves, or [`NONE`] for a placement.
    pub from: u8,
    /// The point the stone is placed on or moved to.
    pub to: u8,
    /// The opponent's stone removed, or [`NONE`].
    pub capture: u8,
    /// A second stone removed by a double mill under `take=each` (the higher-numbered
    /// of the two, so that a move names a set of stones, whatever the order of
    /// removal), or [`NONE`].
    pub capture2: u8,
}

impl fmt::Display for Move {
    /// The notation on the 24-point boards; [`Move::notation`] names the points of any board.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation(Board::Nine))
    }
}

impl Move {
    /// The move in the notation of `docs/rules.md`, with the point names of `board`
    /// (`six` names its 16 points a1..e5).
    pub fn notation(&self, board: Board) -> String {
        let geo = board.geometry();
        let mut out = String::new();
        if self.from != NONE {
            out += geo.name(self.from as usize);
            out.push('-');
        }
        out += geo.name(self.to as usize);
        for c in [self.capture, self.capture2] {
            if c != NONE {
                out.push('x');
                out += geo.name(c as usize);
            }
        }
        out
    }

    /// Parses the notation with the point names of `board` (see `FromStr`).
    pub fn parse_on(board: Board, text: &str) -> Result<Move, MoveParseError> {
        let err = || MoveParseError::Malformed(text.to_string());
        let geo = board.geometry();
        let point = |s: &str| geo.point(s).map(|p| p as u8).ok_or_else(|| MoveParseError::UnknownPoint(text.to_string(), s.to_string()));
        let mut parts = text.trim().split('x');
        let head = parts.next().unwrap_or_default();
        let captures = parts.map(point).collect::<Result<Vec<u8>, _>>()?;
        let (capture, capture2) = match captures[..] {
            [] => (NONE, NONE),
            [c] => (c, NONE),
            // Two stones taken by a double mill (`take=each`), named in either order.
            [a, b] if a != b => (a.min(b), a.max(b)),
            _ => return Err(err()),
        };
        let (from, to) = match head.split_once('-') {
            Some((f, t)) => (point(f)?, point(t)?),
            None => (NONE, point(head)?),
        };
        Ok(Move { from, to, capture, capture2 })
    }
}

/// Why a move string is not a move of the notation; each holds the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveParseError {
    /// A name in it is not a point of the board: the text and the name.
    #[error("invalid move '{0}': '{1}' is not a point of this board; expected d1, a1-a4, a1-a4xd7 or d1xg7 (d1xg7xa7 where a double mill takes two stones)")]
    UnknownPoint(String, String),
    /// Its shape is not a move's (three captures, a stone taken twice, ...).
    #[error("invalid move '{0}': expected d1, a1-a4, a1-a4xd7 or d1xg7 (d1xg7xa7 where a double mill takes two stones)")]
    Malformed(String),
}

impl std::str::FromStr for Move {
    type Err = MoveParseError;
    /// The notation of `docs/rules.md`: `d1` (placement), `a1-a4` (slide or flight), with
    /// `xd7` appended for a capture: `a1-a4xd7`, `d1xg7`. Point names are
    /// case-insensitive, the `x` and `-` are not; surrounding whitespace is ignored.
    fn from_str(text: &str) -> Result<Move, MoveParseError> {
        Move::parse_on(Board::Nine, text)
    }
}

/// Calls `f(move, child_mover, child_opp)` for every legal movement-phase move under
/// the rules of `g`. A child after a capture has fewer stones for its side to move
/// (two fewer after a double mill under `take=each`); under `removal=strict` a mill
/// can take nothing, and its child then has as many.
///
/// The child is given from its own side to move's point of view: `child_mover` is the
/// old `opp` (less the removed stones) and `child_opp` the old `mover` after the move.
/// `move.capture` is [`NONE`] when nothing was removed, else the lowest stone removed.
/// No call at all means the side to move is blocked (see [`is_blocked`]).
#[inline(always)]
pub fn for_each_move(g: &Game, mover: Bits, opp: Bits, f: impl FnMut(Move, Bits, Bits)) {
    for_each_move_with(g, mover, opp, 0, 0, f)
}

/// [`for_each_move`] with stones in hand: `mover_hand` counts towards the 3 stones
/// that fly (a Lasker player may move with stones in hand), and against an opponent
/// with `opp_hand` stones in hand the removals of `take=each` stop once it has fewer
/// than 3 stones on the board and in hand.
#[inline(always)]
pub fn for_each_move_with(g: &Game, mover: Bits, opp: Bits, mover_hand: u8, opp_hand: u8, f: impl FnMut(Move, Bits, Bits)) {
    on_board!(g, B => moves_on::<B>(g, mover, opp, mover_hand, opp_hand, f))
}

#[inline(always)]
fn moves_on<B: Board24>(g: &Game, mover: Bits, opp: Bits, mover_hand: u8, opp_hand: u8, mut f: impl FnMut(Move, Bits, Bits)) {
    let empty = !(mover | opp) & g.full();
    let rem = g.removable_on::<B>(opp);
    let flies = g.flies(mover.count_ones() + mover_hand as u32);
    // A flight has a dozen or more destinations a stone, and a move closes a mill only
    // onto a point that completes one of `mover`'s (`Game::mill_completions`): found
    // once here, it spares most of their tests. A slide has two or three, fewer tests
    // than the pass over the mills would cost.
    let closers = if flies { Game::mill_completions_on::<B>(mover) } else { !0 };
    for from in BitIter(mover) {
        let to_points = if flies { empty } else { B::ADJ[from] & empty };
        for to in BitIter(to_points) {
            let after = mover ^ (1 << from) ^ (1 << to);
            // A mill that can take nothing (see `Game::removable`) is a plain move.
            if rem == 0 || closers & (1 << to) == 0 || !Game::closes_mill_on::<B>(after, to) {
                f(Move { from: from as u8, to: to as u8, capture: NONE, capture2: NONE }, opp, after);
            } else {
                captures_on::<B>(g, from as u8, to as u8, after, opp, opp_hand, rem, &mut f);
            }
        }
    }
}

/// The moves of the side to move a stone at a time: `f(from, plain, closing)` for each
/// of its stones, with the points it can reach split into those where the move closes
/// no mill that removes a stone (`plain`: one child each, the move alone) and those
/// where it closes one (`closing`: a child per removal, [`for_each_capture`]).
/// It gives the children of [`for_each_move_with`], which walks them one by one in
/// a loop of its own (written on this, per-child callers ran 5 to 10 % slower under
/// Lasker rules), and a test holds the two equal. A caller that only counts the plain
/// children takes `plain.count_ones()`, and one that values them walks `plain` in a
/// loop of its own, not through a callback per child (the solver's values pass and
/// the verifier).
#[inline(always)]
pub fn for_each_move_group(g: &Game, mover: Bits, opp: Bits, mover_hand: u8, f: impl FnMut(u8, Bits, Bits)) {
    on_board!(g, B => groups_on::<B>(g, mover, opp, mover_hand, g.removable_on::<B>(opp), f))
}

/// [`for_each_move_group`], given the opponent's stones a removal may take (`rem`).
#[inline(always)]
fn groups_on<B: Board24>(g: &Game, mover: Bits, opp: Bits, mover_hand: u8, rem: Bits, mut f: impl FnMut(u8, Bits, Bits)) {
    let empty = !(mover | opp) & g.full();
    let flies = g.flies(mover.count_ones() + mover_hand as u32);
    // A flight has a dozen or more destinations a stone, and a move closes a mill only
    // onto a point that completes one of `mover`'s (`Game::mill_completions`): found
    // once here, it spares most of their tests. A slide has two or three, fewer tests
    // than the pass over the mills would cost.
    let closers = if flies { Game::mill_completions_on::<B>(mover) } else { !0 };
    for from in BitIter(mover) {
        let to_points = if flies { empty } else { B::ADJ[from] & empty };
        let mut closing = 0;
        // A mill that can take nothing (see `Game::removable`) is a plain move.
        if rem != 0 {
            // Without a branch: whether a move closes a mill is data the processor
            // cannot predict.
            for to in BitIter(to_points & closers) {
                closing |= (Game::closes_mill_on::<B>(mover ^ (1 << from) ^ (1 << to), to) as Bits) << to;
            }
        }
        f(from as u8, to_points & !closing, closing);
    }
}

/// The children of the move `from`-`to` of the side with `mover` stones, which closes a
/// mill (a `closing` point of [`for_each_move_group`]): one per removal, as
/// [`for_each_move_with`] gives them, `opp_hand` the opponent's stones in hand.
#[inline(always)]
pub fn for_each_capture(g: &Game, from: u8, to: u8, mover: Bits, opp: Bits, opp_hand: u8, mut f: impl FnMut(Move, Bits, Bits)) {
    let after = mover ^ (1 << from) ^ (1 << to);
    on_board!(g, B => captures_on::<B>(g, from, to, after, opp, opp_hand, g.removable_on::<B>(opp), &mut f))
}

/// The children of a move that closed a mill, `rem` the stones a removal may take.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn captures_on<B: Board24>(g: &Game, from: u8, to: u8, after: Bits, opp: Bits, opp_hand: u8, rem: Bits, f: &mut impl FnMut(Move, Bits, Bits)) {
    if g.take_each() {
        // One removal per mill closed (a slide closes two only on the diagonal board).
        double_mill(g, from, to, after, opp, opp_hand, Game::mills_closed_on::<B>(after, to as usize), f);
    } else {
        for r in BitIter(rem) {
            f(Move { from, to, capture: r as u8, capture2: NONE }, opp ^ (1 << r), after);
        }
    }
}

/// The children of a move that closed `mills` mills under `take=each`, kept out of
/// line so that the common loop stays small.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn double_mill(g: &Game, from: u8, to: u8, after: Bits, opp: Bits, opp_hand: u8, mills: u32, f: &mut impl FnMut(Move, Bits, Bits)) {
    g.for_each_removal(opp, opp_hand as u32, mills, |left| {
        let (capture, capture2) = removed_pair(opp, left);
        f(Move { from, to, capture, capture2 }, left, after)
    });
}

/// The stones removed from `opp` to leave `left`, lowest first, as a move names them:
/// (`NONE`, `NONE`) for none, (`p`, `NONE`) for one.
#[inline]
pub fn removed_pair(opp: Bits, left: Bits) -> (u8, u8) {
    let gone = opp & !left;
    let first = if gone == 0 { NONE } else { gone.trailing_zeros() as u8 };
    let rest = gone & gone.wrapping_sub(1);
    let second = if rest == 0 { NONE } else { rest.trailing_zeros() as u8 };
    (first, second)
}

/// Whether the side to move has no legal move (it cannot fly and every stone is stuck).
#[inline]
pub fn is_blocked(g: &Game, mover: Bits, opp: Bits) -> bool {
    if g.flies(mover.count_ones()) {
        return false;
    }
    let empty = !(mover | opp) & g.full();
    BitIter(mover).all(|p| g.adj()[p] & empty == 0)
}

/// Calls `f(parent_mover, parent_opp)` for every position that reaches `(mover, opp)`
/// by a move that removed nothing. The parent's side to move owns `opp` here.
#[inline]
pub fn for_each_unmove(g: &Game, mover: Bits, opp: Bits, f: impl FnMut(Bits, Bits)) {
    for_each_unmove_with(g, mover, opp, 0, f)
}

/// [`for_each_unmove`] into a parent whose side to move had `parent_hand` stones in
/// hand (a Lasker player moves with stones in hand; they count towards flying).
#[inline(always)]
pub fn for_each_unmove_with(g: &Game, mover: Bits, opp: Bits, parent_hand: u8, f: impl FnMut(Bits, Bits)) {
    on_board!(g, B => unmoves_on::<B>(g, mover, opp, parent_hand, f))
}

#[inline(always)]
fn unmoves_on<B: Board24>(g: &Game, mover: Bits, opp: Bits, parent_hand: u8, mut f: impl FnMut(Bits, Bits)) {
    let empty = !(mover | opp) & g.full();
    let flying = g.flies(opp.count_ones() + parent_hand as u32);
    // A move onto `to` that completed a mill removed a stone of `mover`, unless the
    // rules left none to remove (`removal=strict` with every stone in a mill).
    let mills_remove = match g.removal() {
        // Under the other rules any stone can go when none is free.
        crate::rules::Removal::Strict => g.removable_on::<B>(mover) != 0,
        _ => mover != 0,
    };
    for to in BitIter(opp) {
        if mills_remove && Game::closes_mill_on::<B>(opp, to) {
            continue;
        }
        let sources = if flying { empty } else { B::ADJ[to] & empty };
        for from in BitIter(sources) {
            f(opp ^ (1 << to) ^ (1 << from), mover);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point_by_name(name: &str) -> Option<usize> {
        Board::Nine.geometry().point(name)
    }

    fn set(names: &str) -> Bits {
        names.split(',').filter(|n| !n.is_empty()).map(|n| 1 << point_by_name(n).unwrap()).sum()
    }

    #[test]
    fn capture_respects_mill_protection() {
        // White d7,g7 slides a4->a7? Use: white a1,d1 + f2 moves to g1? Build a simple one:
        // White: a1, d1, g4 (g4 -> g1 closes a1-d1-g1). Black: a7,d7,g7 (a mill) + b4.
        let (w, b) = (set("a1,d1,g4,b6"), set("a7,d7,g7,b4"));
        let mut caps = vec![];
        for_each_move(Game::standard(), w, b, |m, _, _| {
            if m.capture != NONE {
                caps.push(Board::Nine.geometry().name(m.capture as usize));
            }
        });
        assert_eq!(caps, vec!["b4"], "only the stone outside the mill can be taken");
        // If every black stone stands in a mill, any may be taken.
        let b2 = set("a7,d7,g7");
        let mut n = 0;
        for_each_move(Game::standard(), w, b2, |m, _, _| n += (m.capture != NONE) as usize);
        assert_eq!(n, 3);
    }

    #[test]
    fn flying_and_blocking() {
        let w = set("a7,d7,g7");
        let b = set("a1,d1,g1,a4");
        let mut n = 0;
        for_each_move(Game::standard(), w, b, |_, _, _| n += 1);
        // three stones fly to any of 17 empty points; a7-d7-g7 moves never re-close that mill... count moves
        assert!(n >= 3 * 17);
        // Black a1 d1 g1 a4 g4 hemmed in: black at a7? Construct a blocked side:
        let blocked_b = set("a7,d7");
        let blockers = set("g7,d6,a4");
        assert!(!is_blocked(Game::standard(), blocked_b | set("a1"), blockers)); // a1 can move
        let four = set("a7,d7,g7,g4");
        let walls = set("a4,d6,g1,f4");
        assert!(is_blocked(Game::standard(), four, walls));
    }

    #[test]
    fn a_strict_mill_that_takes_nothing_stays_in_the_unit() {
        let strict = "standard,removal=strict".parse::<crate::Rules>().unwrap();
        let (w, b) = (set("a1,d1,g4,b6"), set("a7,d7,g7"));
        let (child_mover, child_opp) = (b, set("a1,d1,g1,b6"));
        for (game, takes) in [(strict.game(), false), (Game::standard(), true)] {
            let mut plain = false;
            for_each_move(game, w, b, |m, cm, co| plain |= m.to as usize == point_by_name("g1").unwrap() && (cm, co) == (child_mover, child_opp));
            assert_eq!(plain, !takes, "g4-g1 closes a mill; only the standard rule removes a stone of Black's mill");
            let mut parent = false;
            for_each_unmove(game, child_mover, child_opp, |pm, po| parent |= (pm, po) == (w, b));
            assert_eq!(parent, !takes, "the unmove lists the parent exactly when the move removed nothing");
        }
    }

    #[test]
    fn unmove_is_inverse_of_move() {
        let (w, b) = (set("a1,d1,g4,b6,d2"), set("a7,d7,g7,b4,f4"));
        for_each_move(Game::standard(), w, b, |m, cm, co| {
            if m.capture == NONE {
                let mut found = false;
                for_each_unmove(Game::standard(), cm, co, |pm, po| found |= pm == w && po == b);
                assert!(found, "{m}");
            }
        });
    }
}
