//! Positions and the notation of RULES.md: `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]`.

use crate::geometry::Bits;
use crate::subspace::Subspace;
use crate::rules::{Board, Rules};
use std::fmt;
use std::str::FromStr;

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

/// Why a position was refused: by the parser ([`Position::from_str`]), by
/// [`Position::from_lists`], or by the checks of [`Position::new`] and
/// [`Position::validate`]. The messages are meant for the user as they are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The board field is not 24 characters long (16 on the `six` board); holds the
    /// length found.
    #[error("board must have 24 characters (W, B or .), or 16 on the board of Six and Five Men's Morris; found {0}")]
    BoardLength(usize),
    /// The position is on another board than the rules': the points of the position's
    /// board, the rules, and the points of theirs.
    #[error("the position is on a board of {0} points, but the rules `{1}` play on {2} points: a board string of {2} characters")]
    WrongBoard(u8, String, u8),
    /// The board field has a character other than `W`, `B` and `.`.
    #[error("invalid board character '{0}' (use W, B or .)")]
    BoardChar(char),
    /// The side-to-move field is not `w` or `b`.
    #[error("side to move must be 'w' or 'b', found '{0}'")]
    Side(String),
    /// A stones-in-hand field is not a number. A number too large for the rules is
    /// [`PositionError::TooMany`], which names the rules' bound.
    #[error("invalid stones-in-hand count '{0}' (a number of stones)")]
    Hand(String),
    /// The text has neither 2 nor 4 whitespace-separated fields; holds the count found.
    #[error("expected `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]`, found {0} fields")]
    Fields(usize),
    /// A point list names something that is not a point.
    #[error("unknown point '{0}' (points are a1..g7, e.g. d7)")]
    Point(String),
    /// A point list names a point twice, or both lists name it.
    #[error("point {0} is listed twice")]
    Duplicate(String),
    /// A side (`"White"` or `"Black"`) has more stones on the board and in hand
    /// together than the rules give it; holds that total and the most allowed.
    #[error("{0} has {1} stones on the board and in hand; at most {2}")]
    TooMany(&'static str, u32, u8),
    /// The bitboards share a point or use bits above the 24 points.
    #[error("a point holds both a white and a black stone, or a bitboard has bits beyond the 24 points")]
    Overlap,
    /// [`Position::play`] of a move that is not legal here: the move and the position.
    #[error("{0} is not a legal move in {1}")]
    IllegalMove(String, String),
}

/// A full position: stones on the board, stones in hand, and the side to move.
///
/// The text form (`FromStr` and `Display`) is the notation of RULES.md:
/// `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]`. `BOARD` is 24 characters `W`, `B` or `.`
/// in reading order, row by row from the top and left to right within a row
/// (`a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1`); `SIDE` is
/// `w` or `b`; the two hands are omitted when both are empty (the movement phase).
///
/// Nothing here knows the values: probe a position with
/// [`Tablebase`](crate::probe::Tablebase), which reports them for the side to move.
///
/// # Examples
///
/// ```rust
/// use morris::{Color, Position};
///
/// // The empty board of the standard game, and a movement position of RULES.md.
/// let start: Position = "........................ w 9 9".parse()?;
/// assert_eq!((start.white_hand, start.to_move), (9, Color::White));
/// assert_eq!(start.legal_moves().len(), 24);
///
/// let pos: Position = ".WW....B.B....B........W b".parse()?;
/// assert_eq!(pos, Position::from_lists("d7,g7,g1", "a4,d5,g4", Color::Black, 0, 0)?);
/// assert!(pos.is_movement());
/// // Black has three stones, so they fly: any stone to any of the 18 empty points.
/// assert_eq!(pos.legal_moves().len(), 3 * 18);
///
/// let next = pos.play(&"a4-a7".parse()?)?;
/// assert_eq!(next.to_string(), "BWW....B......B........W w");
/// assert!(pos.play(&"a4-b4xd7".parse()?).is_err(), "no mill, so no capture");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// White's stones on the board: bit `p` is point `p` of
    /// [`geometry::NAMES`](crate::geometry::NAMES).
    pub white: Bits,
    /// Black's stones on the board, like `white`.
    pub black: Bits,
    /// Stones White has still to place (0 once White has entered the movement phase).
    pub white_hand: u8,
    /// Stones Black has still to place.
    pub black_hand: u8,
    /// The side to move, from whose point of view every value of the position is given.
    pub to_move: Color,
    /// The board the stones stand on, which fixes the notation: [`Board::Nine`] for
    /// the 24-point boards (with or without diagonals), [`Board::Six`] for the
    /// 16-point one, whose points are bits 0..8 and 16..24 (see `board`).
    pub board: Board,
}

impl Position {
    /// A position from bitboards, checked: disjoint stones on the 24 points, at most 9
    /// stones a side on the board and in hand. Whether the position can arise in a game
    /// is not checked (tables hold every position of a sector, reachable or not).
    ///
    /// Mind the argument order: hands before the side to move here, after it in
    /// [`Position::from_lists`].
    pub fn new(white: Bits, black: Bits, white_hand: u8, black_hand: u8, to_move: Color) -> Result<Position, PositionError> {
        Position { white, black, white_hand, black_hand, to_move, board: Board::Nine }.checked()
    }

    /// Whether this position is one `new` accepts (the fields are public, so a position
    /// built field by field is checked here by everything that reads tables with it).
    pub fn validate(&self) -> Result<(), PositionError> {
        self.validate_in(&Rules::STANDARD)
    }

    /// Whether this is a position of the game under `rules`: [`Position::validate`]
    /// with the rules' stones a side (12 in Morabaraba) instead of 9.
    pub fn validate_in(&self, rules: &Rules) -> Result<(), PositionError> {
        if self.board.mask() != rules.board.mask() {
            return Err(PositionError::WrongBoard(self.board.points(), rules.to_string(), rules.board.points()));
        }
        self.checked_max(rules.stones).map(|_| ())
    }

    /// This position with `board`'s tag, for positions built from bitboards of a
    /// rule set's own board (the `six` board's bits, see `board`).
    pub fn on(self, board: Board) -> Position {
        let board = if board == Board::NineDiagonal { Board::Nine } else { board };
        Position { board, ..self }
    }

    /// The side to move's stones in hand.
    pub fn mover_hand(&self) -> u8 {
        if self.to_move == Color::White { self.white_hand } else { self.black_hand }
    }

    /// A movement-phase position from the side to move's and the opponent's stones.
    /// Raw bitboards, not checked: use `new` (or `validate`) for untrusted input.
    pub fn movement(to_move: Color, mover: Bits, opp: Bits) -> Position {
        let (white, black) = if to_move == Color::White { (mover, opp) } else { (opp, mover) };
        Position { white, black, white_hand: 0, black_hand: 0, to_move, board: Board::Nine }
    }

    /// The side to move's stones on the board.
    pub fn mover(&self) -> Bits {
        if self.to_move == Color::White { self.white } else { self.black }
    }

    /// The stones on the board of the side not to move.
    pub fn opponent(&self) -> Bits {
        if self.to_move == Color::White { self.black } else { self.white }
    }

    /// Whether both hands are empty: every move from here on slides (or flies) a stone.
    pub fn is_movement(&self) -> bool {
        self.white_hand == 0 && self.black_hand == 0
    }

    /// The movement subspace, if both hands are empty and both sides have 3..=9 stones.
    /// For any position, [`probe::sector_of`](crate::probe::sector_of) gives the sector.
    pub fn subspace(&self) -> Option<Subspace> {
        if !self.is_movement() {
            return None;
        }
        Subspace::new(self.mover().count_ones() as u8, self.opponent().count_ones() as u8)
    }

    /// Builds a position from point lists such as `d7,g7,g1` (commas or spaces,
    /// case-insensitive), checked as [`Position::new`] checks. Fails on an unknown point
    /// or one listed twice.
    pub fn from_lists(white: &str, black: &str, to_move: Color, white_hand: u8, black_hand: u8) -> Result<Position, PositionError> {
        Self::from_lists_on(Board::Nine, white, black, to_move, white_hand, black_hand)
    }

    /// [`Position::from_lists`] with the point names of `board`.
    pub fn from_lists_on(board: Board, white: &str, black: &str, to_move: Color, white_hand: u8, black_hand: u8) -> Result<Position, PositionError> {
        let geo = board.geometry();
        let parse = |list: &str| -> Result<Bits, PositionError> {
            let mut bits = 0;
            for name in list.split(|c: char| c == ',' || c.is_whitespace()).filter(|n| !n.is_empty()) {
                let p = geo.point(name).ok_or_else(|| PositionError::Point(name.to_string()))?;
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
            return Err(PositionError::Duplicate(geo.names[p].to_string()));
        }
        Position { white: w, black: b, white_hand, black_hand, to_move, board: Board::Nine }.on(board).checked()
    }

    /// Checked against the most stones of any rule set:
    /// the notation is the same for all of them, and a reader checks its own rules'
    /// bound with [`Position::validate_in`].
    fn checked(self) -> Result<Position, PositionError> {
        self.checked_max(crate::sector::STONES)
    }

    fn checked_max(self, most: u8) -> Result<Position, PositionError> {
        if self.white & self.black != 0 || (self.white | self.black) & !self.board.mask() != 0 {
            return Err(PositionError::Overlap);
        }
        let w = self.white.count_ones() + self.white_hand as u32;
        let b = self.black.count_ones() + self.black_hand as u32;
        if w > most as u32 {
            return Err(PositionError::TooMany("White", w, most));
        }
        if b > most as u32 {
            return Err(PositionError::TooMany("Black", b, most));
        }
        Ok(self)
    }

    /// Every legal move (placements while the side to move has stones in hand), in the
    /// notation of RULES.md through `Display`. None once the game is over: a side with
    /// fewer than 3 stones on the board and in hand has lost, and a side that must slide
    /// but cannot is blocked and loses. An invalid position (see [`Position::validate`])
    /// has none either.
    ///
    /// ```rust
    /// use morris::Position;
    ///
    /// // White places its third stone on g7 closing a7-d7-g7, and removes one of Black's.
    /// let pos: Position = "WW............B........B w 1 2".parse()?;
    /// let names: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    /// assert!(names.contains(&"g7xg4".to_string()) && names.contains(&"g7xg1".to_string()));
    /// assert!(!names.contains(&"g7".to_string()), "closing a mill must capture");
    /// assert_eq!(names.len(), 19 + 2, "19 other empty points, 2 captures on g7");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn legal_moves(&self) -> Vec<crate::movegen::Move> {
        self.children().into_iter().map(|(mv, _)| mv).collect()
    }

    /// [`Position::legal_moves`] under `rules`.
    pub fn legal_moves_in(&self, rules: &Rules) -> Vec<crate::movegen::Move> {
        self.children_in(rules).into_iter().map(|(mv, _)| mv).collect()
    }

    /// The position after `mv`, if `mv` is legal here; the error names the move and
    /// the position. A capture must be part of `mv` (`d1xg7`): the plain `d1` that
    /// closes a mill is not a legal move, unless the opponent has no stone on the board
    /// to take (see [`geometry::removable`](crate::geometry::removable)).
    pub fn play(&self, mv: &crate::movegen::Move) -> Result<Position, PositionError> {
        self.play_in(&Rules::STANDARD, mv)
    }

    /// [`Position::play`] under `rules`.
    pub fn play_in(&self, rules: &Rules, mv: &crate::movegen::Move) -> Result<Position, PositionError> {
        self.children_in(rules).into_iter().find(|(m, _)| m == mv).map(|(_, p)| p).ok_or_else(|| PositionError::IllegalMove(mv.to_string(), self.to_string()))
    }

    /// Legal moves with the positions they lead to, in [`Position::legal_moves`] order.
    pub fn children(&self) -> Vec<(crate::movegen::Move, Position)> {
        self.children_in(&Rules::STANDARD)
    }

    /// [`Position::children`] under `rules`. A full board has no
    /// move, under either `full-board` option.
    pub fn children_in(&self, rules: &Rules) -> Vec<(crate::movegen::Move, Position)> {
        use crate::placement::{for_each_ply_move, Ply};
        let game = rules.game();
        let (mh, oh) = if self.to_move == Color::White { (self.white_hand, self.black_hand) } else { (self.black_hand, self.white_hand) };
        let (m, o) = (self.mover().count_ones() as u8, self.opponent().count_ones() as u8);
        if self.validate_in(rules).is_err() || m + mh < 3 || o + oh < 3 {
            return Vec::new();
        }
        let ply = Ply { white_hand: self.white_hand, black_hand: self.black_hand, to_move: self.to_move };
        let mut out = Vec::new();
        for_each_ply_move(game, ply, self.mover(), self.opponent(), |mv, after, opp_after| {
            let next = ply.after(&mv);
            let (white, black) = ply.colours(after, opp_after);
            out.push((mv, Position { white, black, white_hand: next.white_hand, black_hand: next.black_hand, to_move: next.to_move, board: self.board }));
        });
        // Under `take=each` two orders of removal can take the same two stones: one move.
        if game.take_each {
            let mut seen = std::collections::HashSet::new();
            out.retain(|(mv, _)| seen.insert(*mv));
        }
        out
    }

    /// The move `mv` from this position in the notation, with this board's point names.
    pub fn move_name(&self, mv: &crate::movegen::Move) -> String {
        mv.notation(self.board)
    }

    /// The board in reading order (the first field of the notation): 24 characters,
    /// or 16 on the `six` board.
    pub fn board_string(&self) -> String {
        self.board
            .geometry()
            .reading
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

impl Position {
    /// `text` as a position of the game under `rules`: the notation's parse and
    /// [`Position::validate_in`] in one. Every front end reads positions through it, so
    /// that a hand too large names the rules' bound ("at most 9" under the standard
    /// rules), not the 12 the notation allows for every rule set.
    ///
    /// ```rust
    /// use morris::{Position, Rules};
    ///
    /// let err = Position::parse_in("........................ w 13 9", &Rules::STANDARD).unwrap_err();
    /// assert_eq!(err.to_string(), "White has 13 stones on the board and in hand; at most 9");
    /// assert!(Position::parse_in("........................ w 12 12", &"morabaraba".parse()?).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse_in(text: &str, rules: &Rules) -> Result<Position, PositionError> {
        let pos = Self::parse_bounded(text, rules.stones)?;
        pos.validate_in(rules)?;
        Ok(pos)
    }

    /// The notation's parse, with at most `most` stones a side on the board and in hand.
    fn parse_bounded(text: &str, most: u8) -> Result<Position, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 && fields.len() != 4 {
            return Err(PositionError::Fields(fields.len()));
        }
        let chars: Vec<char> = fields[0].chars().collect();
        // The notation's length names the board: 24 points (with or without the
        // diagonals, which the rule set adds) or the 16 of `six`.
        let Some(board) = [Board::Nine, Board::Six].into_iter().find(|b| b.points() as usize == chars.len()) else {
            return Err(PositionError::BoardLength(chars.len()));
        };
        let reading = &board.geometry().reading;
        let (mut white, mut black): (Bits, Bits) = (0, 0);
        for (i, c) in chars.iter().enumerate() {
            let p = reading[i];
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
        let hand = |s: &str| s.parse::<u32>().map_err(|_| PositionError::Hand(s.to_string()));
        let (white_hand, black_hand) = if fields.len() == 4 { (hand(fields[2])?, hand(fields[3])?) } else { (0, 0) };
        // Bounded before the hands are narrowed to bytes: a hand of 13, or of 300, is
        // too many stones for the rules, not a malformed field.
        for (side, stones, in_hand) in [("White", white, white_hand), ("Black", black, black_hand)] {
            let total = stones.count_ones().saturating_add(in_hand);
            if total > most as u32 {
                return Err(PositionError::TooMany(side, total, most));
            }
        }
        Position { white, black, white_hand: white_hand as u8, black_hand: black_hand as u8, to_move, board }.checked_max(most)
    }
}

impl FromStr for Position {
    type Err = PositionError;
    /// Any rule set's position: at most 12 stones a side. Readers bound it by their
    /// rules with [`Position::parse_in`].
    fn from_str(text: &str) -> Result<Position, PositionError> {
        Self::parse_bounded(text, crate::sector::STONES)
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

/// Point names of a bitboard, comma-separated, in internal order (not sorted by name):
/// the format [`Position::from_lists`] reads.
pub fn point_list(bits: Bits) -> String {
    point_list_on(Board::Nine, bits)
}

/// [`point_list`] with the point names of `board`.
pub fn point_list_on(board: Board, bits: Bits) -> String {
    let names = &board.geometry().names;
    crate::geometry::BitIter(bits).map(|p| names[p].as_str()).collect::<Vec<_>>().join(",")
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
        // Parsing allows the most stones of any rule set (12); the standard rules, 9.
        let ten = Position::new(0b111, 0, 7, 0, Color::White).unwrap();
        assert_eq!(ten.validate(), Err(PositionError::TooMany("White", 10, 9)));
        assert_eq!(ten.validate_in(&"morabaraba".parse().unwrap()), Ok(()));
        assert!(matches!(Position::new(0b111, 0, 10, 0, Color::White), Err(PositionError::TooMany("White", 13, 12))));
        assert!(matches!(Position::new(0, 0, 9, 200, Color::White), Err(PositionError::TooMany("Black", 200, 12))));
        let raw = Position { white: 0b11, black: 0b10, white_hand: 0, black_hand: 0, to_move: Color::White, board: Board::Nine };
        assert!(raw.validate().is_err());
    }

    #[test]
    fn rejects_malformed() {
        for bad in ["", "x", "........................", "....................... w", "........................ x",
                    "........................ w 9", "........................ w 13 9", ".......................X w",
                    "WWWWWWWWWWWWW........... w", "........................ w 9 9 9", "WWW..................... w 10 0"] {
            assert!(bad.parse::<Position>().is_err(), "{bad:?}");
        }
        for standard_only in ["........................ w 10 9", "WWWWWWWWWW.............. w", "WWW..................... w 7 0"] {
            assert!(standard_only.parse::<Position>().unwrap().validate().is_err(), "{standard_only:?}: more than 9 stones");
        }
        assert!(Position::from_lists("d7,d7", "", Color::White, 0, 0).is_err());
        assert!(Position::from_lists("d7", "d7", Color::White, 0, 0).is_err());
        assert!(Position::from_lists("z9", "", Color::White, 0, 0).is_err());
    }

    /// The 16-point board has its own notation (VARIANTS.md): 16 characters in the
    /// order a5 c5 e5 b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1, and the names a1..e5.
    #[test]
    fn the_sixteen_point_notation() {
        let six: Rules = "six".parse().unwrap();
        let p: Position = "WW..B..........B b 4 4".parse().unwrap();
        assert_eq!(p.board, Board::Six);
        assert_eq!(p.to_string(), "WW..B..........B b 4 4");
        assert_eq!(p, Position::from_lists_on(Board::Six, "a5,c5", "c4,e1", Color::Black, 4, 4).unwrap());
        assert_eq!(point_list_on(Board::Six, p.black), "e1,c4");
        assert_eq!(p.validate_in(&six), Ok(()));
        assert!(matches!(p.validate(), Err(PositionError::WrongBoard(..))));
        assert!(Position::from_lists_on(Board::Six, "g7", "", Color::White, 0, 0).is_err(), "no g7 on six");
        assert!("WWW............. w 4 0".parse::<Position>().unwrap().validate_in(&six).is_err(), "7 stones");
        // A move names its points on the position's board; placing on e5 closes a5-c5-e5.
        let q: Position = "WW..B..........B w 4 4".parse().unwrap();
        let names: Vec<String> = q.children_in(&six).iter().map(|(m, _)| q.move_name(m)).collect();
        assert!(names.contains(&"e5xc4".to_string()) && names.contains(&"e5xe1".to_string()), "{names:?}");
        let mv = crate::movegen::Move::parse_on(Board::Six, "e5xc4").unwrap();
        assert_eq!(q.play_in(&six, &mv).unwrap().to_string(), "WWW............B b 3 4");
    }
}
