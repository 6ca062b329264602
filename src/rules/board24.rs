//! A board as a type, with its tables as constants: move generation is compiled once
//! for each board, so the compiler unrolls the loops over a board's mills, and the
//! diagonal board's third mill through a corner costs the other boards nothing.
//! Options stay run-time fields of [`Game`](crate::rules::game::Game): each is one
//! well-predicted branch.

use crate::rules::geometry::{Bits, MAX_MILLS, MAX_POINTS};
use crate::rules::Board;

/// A board of the family as a type (all lie on the 24 internal points).
pub trait Board24 {
    /// Neighbours of each point.
    const ADJ: [Bits; MAX_POINTS];
    /// Mills through each point, at most `PER_POINT`; unused entries
    /// [`NO_MILL`](crate::rules::geometry::NO_MILL).
    const POINT_MILLS: [[Bits; 3]; MAX_POINTS];
    /// Mills through a point, at most.
    const PER_POINT: usize;
    /// Every mill, then [`NO_MILL`](crate::rules::geometry::NO_MILL).
    const MILLS: [Bits; MAX_MILLS];
    /// Mills of the board.
    const COUNT: usize;
}

/// The standard board (`nine`).
pub struct Nine;
/// The board with corner diagonals (`nine-diagonal`).
pub struct NineDiagonal;
/// The 16-point board (`six`), on rings 0 and 2 of the internal points.
pub struct Six;

/// The constants of a board's [`Geometry`](crate::rules::geometry::Geometry), evaluated at compile time.
macro_rules! board24 {
    ($t:ty, $board:expr) => {
        impl Board24 for $t {
            const ADJ: [Bits; MAX_POINTS] = *$board.geometry().adj();
            const POINT_MILLS: [[Bits; 3]; MAX_POINTS] = *$board.geometry().point_mills();
            const PER_POINT: usize = $board.geometry().mills_per_point();
            const MILLS: [Bits; MAX_MILLS] = *$board.geometry().padded_mills();
            const COUNT: usize = $board.geometry().mills().len();
        }
    };
}
board24!(Nine, Board::Nine);
board24!(NineDiagonal, Board::NineDiagonal);
board24!(Six, Board::Six);

/// Runs `$e` with `$B` the [`Board24`] type of the game `$g`'s board: one
/// monomorphised copy of the hot loop per board, chosen by two well-predicted branches.
macro_rules! on_board {
    ($g:expr, $B:ident => $e:expr) => {
        if $g.diagonals {
            type $B = $crate::rules::board24::NineDiagonal;
            $e
        } else if $g.six {
            type $B = $crate::rules::board24::Six;
            $e
        } else {
            type $B = $crate::rules::board24::Nine;
            $e
        }
    };
}
pub(crate) use on_board;
