//! The two sides.

/// A side. Only the side to move matters to values (they are always from its point of
/// view), so colour is a matter of display and of the notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// `W` on the board, `w` as side to move; places first from the empty board.
    White,
    /// `B` on the board, `b` as side to move.
    Black,
}

impl Color {
    /// The opponent of this side.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    /// `"White"` or `"Black"`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}
