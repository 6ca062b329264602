//! Positions and the notation of RULES.md: `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]`.

use crate::geometry::{point_by_name, Bits, NAMES, READING_ORDER};
use crate::subspace::Subspace;
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("board must have 24 characters (W, B or .), found {0}")]
    BoardLength(usize),
    #[error("invalid board character '{0}' (use W, B or .)")]
    BoardChar(char),
    #[error("side to move must be 'w' or 'b', found '{0}'")]
    Side(String),
    #[error("invalid stones-in-hand count '{0}' (0..=9)")]
    Hand(String),
    #[error("expected `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]`, found {0} fields")]
    Fields(usize),
    #[error("unknown point '{0}' (points are a1..g7, e.g. d7)")]
    Point(String),
    #[error("point {0} is listed twice")]
    Duplicate(String),
    #[error("{0} has {1} stones on the board and in hand; at most 9")]
    TooMany(&'static str, u32),
    #[error("a point holds both a white and a black stone, or a bitboard has bits beyond the 24 points")]
    Overlap,
}

/// A full position: stones on the board, stones in hand, and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub white: Bits,
    pub black: Bits,
    pub white_hand: u8,
    pub black_hand: u8,
    pub to_move: Color,
}

impl Position {
    /// A position from bitboards, checked: disjoint stones on the 24 points, at most 9
    /// stones a side on the board and in hand.
    pub fn new(white: Bits, black: Bits, white_hand: u8, black_hand: u8, to_move: Color) -> Result<Position, PositionError> {
        Position { white, black, white_hand, black_hand, to_move }.checked()
    }

    /// Whether this position is one `new` accepts (the fields are public, so a position
    /// built field by field is checked here by everything that reads tables with it).
    pub fn validate(&self) -> Result<(), PositionError> {
        self.checked().map(|_| ())
    }

    /// A movement-phase position from the side to move's and the opponent's stones.
    /// Raw bitboards, not checked: use `new` (or `validate`) for untrusted input.
    pub fn movement(to_move: Color, mover: Bits, opp: Bits) -> Position {
        let (white, black) = if to_move == Color::White { (mover, opp) } else { (opp, mover) };
        Position { white, black, white_hand: 0, black_hand: 0, to_move }
    }

    pub fn mover(&self) -> Bits {
        if self.to_move == Color::White { self.white } else { self.black }
    }

    pub fn opponent(&self) -> Bits {
        if self.to_move == Color::White { self.black } else { self.white }
    }

    pub fn is_movement(&self) -> bool {
        self.white_hand == 0 && self.black_hand == 0
    }

    /// The movement subspace, if both hands are empty and both sides have 3..=9 stones.
    pub fn subspace(&self) -> Option<Subspace> {
        if !self.is_movement() {
            return None;
        }
        Subspace::new(self.mover().count_ones() as u8, self.opponent().count_ones() as u8)
    }

    /// Builds a position from point lists such as `d7,g7,g1`.
    pub fn from_lists(white: &str, black: &str, to_move: Color, white_hand: u8, black_hand: u8) -> Result<Position, PositionError> {
        let parse = |list: &str| -> Result<Bits, PositionError> {
            let mut bits = 0;
            for name in list.split(|c: char| c == ',' || c.is_whitespace()).filter(|n| !n.is_empty()) {
                let p = point_by_name(name).ok_or_else(|| PositionError::Point(name.to_string()))?;
                if bits & (1 << p) != 0 {
                    return Err(PositionError::Duplicate(name.to_string()));
                }
                bits |= 1 << p;
            }
            Ok(bits)
        };
        let (w, b) = (parse(white)?, parse(black)?);
        if w & b != 0 {
            let p = (w & b).trailing_zeros() as usize;
            return Err(PositionError::Duplicate(NAMES[p].to_string()));
        }
        Position { white: w, black: b, white_hand, black_hand, to_move }.checked()
    }

    fn checked(self) -> Result<Position, PositionError> {
        if self.white & self.black != 0 || (self.white | self.black) & !crate::geometry::FULL != 0 {
            return Err(PositionError::Overlap);
        }
        let w = self.white.count_ones() + self.white_hand as u32;
        let b = self.black.count_ones() + self.black_hand as u32;
        if w > 9 {
            return Err(PositionError::TooMany("White", w));
        }
        if b > 9 {
            return Err(PositionError::TooMany("Black", b));
        }
        Ok(self)
    }

    /// Every legal move (placements while the side to move has stones in hand), in the
    /// notation of RULES.md through `Display`. None once the game is over.
    pub fn legal_moves(&self) -> Vec<crate::movegen::Move> {
        self.children().into_iter().map(|(mv, _)| mv).collect()
    }

    /// The position after `mv`, if `mv` is legal here.
    pub fn play(&self, mv: &crate::movegen::Move) -> Result<Position, String> {
        self.children().into_iter().find(|(m, _)| m == mv).map(|(_, p)| p).ok_or_else(|| format!("{mv} is not a legal move in {self}"))
    }

    /// Legal moves with the positions they lead to.
    pub fn children(&self) -> Vec<(crate::movegen::Move, Position)> {
        use crate::placement::{for_each_ply_move, Ply};
        let (mh, oh) = if self.to_move == Color::White { (self.white_hand, self.black_hand) } else { (self.black_hand, self.white_hand) };
        let (m, o) = (self.mover().count_ones() as u8, self.opponent().count_ones() as u8);
        if self.validate().is_err() || m + mh < 3 || o + oh < 3 {
            return Vec::new();
        }
        let ply = Ply { white_hand: self.white_hand, black_hand: self.black_hand, to_move: self.to_move };
        let next = ply.next();
        let mut out = Vec::new();
        for_each_ply_move(ply, self.mover(), self.opponent(), |mv, after, opp_after| {
            let (white, black) = ply.colours(after, opp_after);
            out.push((mv, Position { white, black, white_hand: next.white_hand, black_hand: next.black_hand, to_move: next.to_move }));
        });
        out
    }

    /// The 24-character board in reading order.
    pub fn board_string(&self) -> String {
        READING_ORDER
            .iter()
            .map(|&p| {
                if self.white >> p & 1 != 0 {
                    'W'
                } else if self.black >> p & 1 != 0 {
                    'B'
                } else {
                    '.'
                }
            })
            .collect()
    }
}

impl FromStr for Position {
    type Err = PositionError;
    fn from_str(text: &str) -> Result<Position, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 && fields.len() != 4 {
            return Err(PositionError::Fields(fields.len()));
        }
        let board: Vec<char> = fields[0].chars().collect();
        if board.len() != 24 {
            return Err(PositionError::BoardLength(board.len()));
        }
        let (mut white, mut black) = (0, 0);
        for (i, c) in board.iter().enumerate() {
            let p = READING_ORDER[i];
            match c {
                'W' => white |= 1 << p,
                'B' => black |= 1 << p,
                '.' => {}
                other => return Err(PositionError::BoardChar(*other)),
            }
        }
        let to_move = match fields[1] {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            other => return Err(PositionError::Side(other.to_string())),
        };
        let hand = |s: &str| -> Result<u8, PositionError> {
            s.parse::<u8>().ok().filter(|&h| h <= 9).ok_or_else(|| PositionError::Hand(s.to_string()))
        };
        let (white_hand, black_hand) = if fields.len() == 4 { (hand(fields[2])?, hand(fields[3])?) } else { (0, 0) };
        Position { white, black, white_hand, black_hand, to_move }.checked()
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = if self.to_move == Color::White { "w" } else { "b" };
        write!(f, "{} {}", self.board_string(), side)?;
        if !self.is_movement() {
            write!(f, " {} {}", self.white_hand, self.black_hand)?;
        }
        Ok(())
    }
}

/// Point names of a bitboard, comma-separated, in internal order.
pub fn point_list(bits: Bits) -> String {
    crate::geometry::BitIter(bits).map(|p| NAMES[p]).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_examples_from_rules() {
        let p: Position = ".WW....B.B....B........W b".parse().unwrap();
        let q = Position::from_lists("d7,g7,g1", "a4,d5,g4", Color::Black, 0, 0).unwrap();
        assert_eq!(p, q);
        assert_eq!(p.to_string(), ".WW....B.B....B........W b");
        assert_eq!(p.subspace(), Some(Subspace { s: 3, o: 3 }));
        let start: Position = "........................ w 9 9".parse().unwrap();
        assert_eq!(start.to_string(), "........................ w 9 9");
        assert_eq!(start.subspace(), None);
    }

    #[test]
    fn bitboard_positions_are_checked() {
        assert!(Position::new(0b111, 0b1000, 6, 6, Color::White).is_ok());
        assert_eq!(Position::new(0b11, 0b10, 0, 0, Color::White), Err(PositionError::Overlap));
        assert_eq!(Position::new(1 << 24, 0, 0, 0, Color::White), Err(PositionError::Overlap));
        assert!(matches!(Position::new(0b111, 0, 7, 0, Color::White), Err(PositionError::TooMany("White", 10))));
        assert!(matches!(Position::new(0, 0, 9, 200, Color::White), Err(PositionError::TooMany("Black", 200))));
        let raw = Position { white: 0b11, black: 0b10, white_hand: 0, black_hand: 0, to_move: Color::White };
        assert!(raw.validate().is_err());
    }

    #[test]
    fn rejects_malformed() {
        for bad in ["", "x", "........................", "....................... w", "........................ x",
                    "........................ w 9", "........................ w 10 9", ".......................X w",
                    "WWWWWWWWWW.............. w", "........................ w 9 9 9", "WWW..................... w 7 0"] {
            assert!(bad.parse::<Position>().is_err(), "{bad:?}");
        }
        assert!(Position::from_lists("d7,d7", "", Color::White, 0, 0).is_err());
        assert!(Position::from_lists("d7", "d7", Color::White, 0, 0).is_err());
        assert!(Position::from_lists("z9", "", Color::White, 0, 0).is_err());
    }
}
