//! The rules of play: terminal positions and the children of a position,
//! written from the rules (docs/rules.md). Forward generation only.

use super::index::bits;
use super::rules::{Geometry, RefRules, Removal};
use super::RawPos;

/// How a finished game ended, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminal {
    /// Fewer than 3 stones (board plus hand), or a full board under
    /// `full-board=loss`. (Being blocked on a board that is not full is
    /// found by having no children.)
    Loss,
    /// A full board under `full-board=draw`.
    Draw,
}

/// Is the game over before the side to move plays?
pub fn terminal(rules: &RefRules, pos: &RawPos) -> Option<Terminal> {
    if pos.mover.count_ones() + pos.mover_hand < 3 {
        Some(Terminal::Loss)
    } else if pos.mover | pos.opp == rules.full() {
        Some(if rules.full_board_draw { Terminal::Draw } else { Terminal::Loss })
    } else {
        None
    }
}

/// Does `stones` hold a whole mill through point `p`? (clippy's `contains` would
/// compare each mill with the stones it holds, not ask whether they fill it.)
#[allow(clippy::manual_contains)]
pub fn in_mill(rules: &RefRules, stones: u32, p: usize) -> bool {
    rules.geometry().mills_at[p].iter().any(|&m| stones & m == m)
}

/// Number of mills through `p` that `stones` holds whole.
pub fn mills_closed(g: &Geometry, stones: u32, p: usize) -> u32 {
    g.mills_at[p].iter().filter(|&&m| stones & m == m).count() as u32
}

/// The opponent stones one removal may take (0: the mill removes nothing).
pub fn removable(rules: &RefRules, opp: u32) -> u32 {
    let free = bits(opp).filter(|&i| !in_mill(rules, opp, i)).fold(0u32, |m, i| m | (1 << i));
    match rules.removal {
        Removal::Standard => {
            if free != 0 {
                free
            } else {
                opp
            }
        }
        Removal::Strict => free,
        Removal::Lenient => opp,
    }
}

/// Calls `f(opp after the removals)` for every way to make `count` removals
/// one after the other. Each removal is chosen in the situation left by the
/// previous one. A removal that finds nothing to take (strict, or no stone on
/// the board) takes nothing, and so would any further one. Removing stops
/// when the opponent is down to fewer than 3 stones: the game is over.
fn for_each_removal(rules: &RefRules, opp: u32, opp_hand: u32, count: u32, f: &mut impl FnMut(u32)) {
    if count == 0 || opp.count_ones() + opp_hand < 3 {
        f(opp);
        return;
    }
    let r = removable(rules, opp);
    if r == 0 {
        f(opp);
        return;
    }
    for x in bits(r) {
        for_each_removal(rules, opp & !(1 << x), opp_hand, count - 1, f);
    }
}

/// Calls `f(child)` for every legal move of the side to move, each with all
/// its removals; the child is given from its own side to move's point of
/// view. A child whose side to move has fewer than 3 stones is a finished
/// game. Moves that lead to the same child are reported once per move (and,
/// under `take=each`, once per order of the removals). Does not look at
/// `terminal`: call that first.
pub fn for_each_child(rules: &RefRules, pos: &RawPos, mut f: impl FnMut(RawPos)) {
    let g = rules.geometry();
    let RawPos { mover, opp, mover_hand, opp_hand } = *pos;
    debug_assert_eq!(mover & opp, 0);
    debug_assert_eq!((mover | opp) & !rules.full(), 0);
    let empty = rules.full() & !(mover | opp);
    let can_place = mover_hand > 0;
    let can_move = mover != 0 && (mover_hand == 0 || rules.lasker);
    let flies = rules.flying && mover.count_ones() + mover_hand == 3;

    // One placement or move: the stone lands on `to`, the mover's stones
    // become `moved` and its hand `hand`.
    let mut land = |moved: u32, to: usize, hand: u32| {
        let closed = mills_closed(g, moved, to);
        let count = if rules.take_each { closed } else { closed.min(1) };
        for_each_removal(rules, opp, opp_hand, count, &mut |opp_left| f(RawPos { mover: opp_left, opp: moved, mover_hand: opp_hand, opp_hand: hand }));
    };
    if can_place {
        for to in bits(empty) {
            land(mover | (1 << to), to, mover_hand - 1);
        }
    }
    if can_move {
        for from in bits(mover) {
            let targets = if flies { empty } else { g.adj[from] & empty };
            for to in bits(targets) {
                land((mover & !(1 << from)) | (1 << to), to, mover_hand);
            }
        }
    }
}

/// All children of a position (see `for_each_child`); empty if it is terminal.
pub fn children(rules: &RefRules, pos: &RawPos) -> Vec<RawPos> {
    let mut v = Vec::new();
    if terminal(rules, pos).is_none() {
        for_each_child(rules, pos, |c| v.push(c));
    }
    v
}
