//! Positions and their notation (`docs/rules.md`): `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]`.

pub mod combin;
pub mod index;
pub mod sector;
pub mod subspace;
pub mod value;
pub mod wld;

use crate::position::subspace::Subspace;
use crate::rules::geometry::Bits;
use crate::rules::{Board, Rules};
use std::fmt;

pub use crate::rules::Color;

/// Why a position was refused: by the parser ([`Position::parse`]), by
/// [`Position::from_lists`], or by the checks of [`Position::new`] and
/// [`Position::validate`]. The messages are meant for the user as they are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The board field does not have one character a point of the rules' board: the
    /// length found and the points of the board.
    #[error("board must have {1} characters (W, B or .); found {0}")]
    BoardLength(usize, u8),
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
    /// The bitboards share a point or use bits outside the rules' board.
    #[error("a point holds both a white and a black stone, or a bitboard has bits outside the board")]
    Overlap,
    /// A position of one rule set given to a reader or engine of another: the
    /// position's rules and the reader's.
    #[error("the position is played under `{0}`, but this reader serves `{1}`")]
    OtherRules(String, String),
    /// [`Position::play`] of a move that is not legal here: the move and the position.
    #[error("{0} is not a legal move in {1}")]
    IllegalMove(String, String),
}

/// A full position of one rule set's game: stones on the board, stones in hand, the
/// side to move, and the rules it is played under. Its moves, its limits and the
/// tables that may value it are those of its own rules: there is no way to ask for
/// the standard game's moves of a Morabaraba position.
///
/// The text form ([`Position::parse`] and `Display`) is the notation of
/// `docs/rules.md`: `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]`. `BOARD` is 24
/// characters `W`, `B` or `.` in reading order, row by row from the top and left to
/// right within a row (`a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2
/// a1 d1 g1`; 16 on the board of Six and Five Men's Morris); `SIDE` is `w` or `b`; the
/// two hands are omitted when both are empty (the movement phase).
///
/// Nothing here knows the values: probe a position with
/// [`Tablebase`](crate::probe::Tablebase), which reports them for the side to move
/// and refuses a position of other rules than its tables'.
///
/// # Examples
///
/// ```rust
/// use morris::{Color, Position, Rules};
///
/// // The empty board of the standard game, and a movement position.
/// let start = Position::parse("........................ w 9 9", Rules::STANDARD)?;
/// assert_eq!((start.white_hand, start.to_move), (9, Color::White));
/// assert_eq!(start.legal_moves().len(), 24);
///
/// let pos = Position::parse(".WW....B.B....B........W b", Rules::STANDARD)?;
/// assert_eq!(pos, Position::from_lists(Rules::STANDARD, "d7,g7,g1", "a4,d5,g4", Color::Black, 0, 0)?);
/// assert!(pos.is_movement());
/// // Black has three stones, so they fly: any stone to any of the 18 empty points.
/// assert_eq!(pos.legal_moves().len(), 3 * 18);
///
/// let next = pos.play(&pos.parse_move("a4-a7")?)?;
/// assert_eq!(next.to_string(), "BWW....B......B........W w");
/// assert!(pos.play(&pos.parse_move("a4-b4xd7")?).is_err(), "no mill, so no capture");
///
/// // Under Morabaraba's rules the same stones have the diagonals too, and 12 a side.
/// let morabaraba: Rules = "morabaraba".parse()?;
/// let diag = Position::parse(".WW....B.B....B........W b", morabaraba)?;
/// assert_ne!(diag, pos, "a position knows its rules");
/// assert!(Position::parse("........................ w 12 12", Rules::STANDARD).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// White's stones on the board: bit `p` is internal point `p` of the rules' board
    /// (see [`Geometry::name`](crate::rules::geometry::Geometry::name)).
    pub white: Bits,
    /// Black's stones on the board, like `white`.
    pub black: Bits,
    /// Stones White has still to place (0 once White has entered the movement phase).
    pub white_hand: u8,
    /// Stones Black has still to place.
    pub black_hand: u8,
    /// The side to move, from whose point of view every value of the position is given.
    pub to_move: Color,
    /// The rule set the position is played under: its board fixes the notation and
    /// the point names ([`Board::Six`]'s 16 points are bits 0..8 and 16..24, see
    /// `board`), and its moves, limits and tables are those of these rules alone.
    /// Private, so that a position cannot change rules behind a reader's back.
    rules: Rules,
}

impl Position {
    /// A position of the game under `rules` from bitboards, checked: disjoint stones on
    /// the rules' board, at most the rules' stones a side on the board and in hand.
    /// Whether the position can arise in a game is not checked (tables hold every
    /// position of a sector, reachable or not).
    ///
    /// Mind the argument order: hands before the side to move here, after it in
    /// [`Position::from_lists`].
    pub fn new(rules: Rules, white: Bits, black: Bits, white_hand: u8, black_hand: u8, to_move: Color) -> Result<Position, PositionError> {
        let pos = Position { white, black, white_hand, black_hand, to_move, rules };
        pos.validate()?;
        Ok(pos)
    }

    /// A position from bitboards, not checked: for the engine's own loops, which build
    /// positions from positions of the same rules. Use [`Position::new`] for anything
    /// else.
    pub fn unchecked(rules: Rules, white: Bits, black: Bits, white_hand: u8, black_hand: u8, to_move: Color) -> Position {
        Position { white, black, white_hand, black_hand, to_move, rules }
    }

    /// Parses the notation `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]` under `rules`:
    /// the board string has as many characters as the rules' board has points (24, or
    /// 16 for Six and Five Men's Morris), and the position is checked as
    /// [`Position::new`] checks it.
    pub fn parse(text: &str, rules: Rules) -> Result<Position, PositionError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 && fields.len() != 4 {
            return Err(PositionError::Fields(fields.len()));
        }
        let chars: Vec<char> = fields[0].chars().collect();
        let board = rules.board();
        if chars.len() != board.points() as usize {
            return Err(if [24, 16].contains(&chars.len()) {
                PositionError::WrongBoard(chars.len() as u8, rules.to_string(), board.points())
            } else {
                PositionError::BoardLength(chars.len(), board.points())
            });
        }
        let reading = board.geometry().reading();
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
        // too many stones for the rules ("at most 9" under the standard rules), not a
        // malformed field.
        let most = rules.stones();
        for (side, stones, in_hand) in [("White", white, white_hand), ("Black", black, black_hand)] {
            let total = (stones as Bits).count_ones().saturating_add(in_hand);
            if total > most as u32 {
                return Err(PositionError::TooMany(side, total, most));
            }
        }
        Position::new(rules, white, black, white_hand as u8, black_hand as u8, to_move)
    }

    /// The rule set of this position.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The board of this position's rules.
    pub fn board(&self) -> Board {
        self.rules.board()
    }

    /// Whether this is a position of its rules' game: disjoint stones on the rules'
    /// board, at most the rules' stones a side. The bitboard fields are public, so a
    /// position changed field by field is checked here by everything that reads
    /// tables with it.
    pub fn validate(&self) -> Result<(), PositionError> {
        let most = self.rules.stones();
        if self.white & self.black != 0 || (self.white | self.black) & !self.rules.board().mask() != 0 {
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
        Ok(())
    }

    /// The side to move's stones in hand.
    pub fn mover_hand(&self) -> u8 {
        if self.to_move == Color::White {
            self.white_hand
        } else {
            self.black_hand
        }
    }

    /// A movement-phase position under `rules` from the side to move's and the
    /// opponent's stones. Raw bitboards, not checked: use `new` (or `validate`) for
    /// untrusted input.
    pub fn movement(rules: Rules, to_move: Color, mover: Bits, opp: Bits) -> Position {
        let (white, black) = if to_move == Color::White { (mover, opp) } else { (opp, mover) };
        Position { white, black, white_hand: 0, black_hand: 0, to_move, rules }
    }

    /// The side to move's stones on the board.
    pub fn mover(&self) -> Bits {
        if self.to_move == Color::White {
            self.white
        } else {
            self.black
        }
    }

    /// The stones on the board of the side not to move.
    pub fn opponent(&self) -> Bits {
        if self.to_move == Color::White {
            self.black
        } else {
            self.white
        }
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

    /// Builds a position under `rules` from point lists such as `d7,g7,g1` (commas or
    /// spaces, case-insensitive; the point names of the rules' board), checked as
    /// [`Position::new`] checks. Fails on an unknown point or one listed twice.
    pub fn from_lists(rules: Rules, white: &str, black: &str, to_move: Color, white_hand: u8, black_hand: u8) -> Result<Position, PositionError> {
        let geo = rules.board().geometry();
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
            return Err(PositionError::Duplicate(geo.name(p).to_string()));
        }
        Position::new(rules, w, b, white_hand, black_hand, to_move)
    }

    /// Every legal move (placements while the side to move has stones in hand), in the
    /// notation of `docs/rules.md` through `Display`. None once the game is over: a side with
    /// fewer than 3 stones on the board and in hand has lost, and a side that must slide
    /// but cannot is blocked and loses. An invalid position (see [`Position::validate`])
    /// has none either.
    ///
    /// ```rust
    /// use morris::Position;
    ///
    /// // White places its third stone on g7 closing a7-d7-g7, and removes one of Black's.
    /// let pos = Position::parse("WW............B........B w 1 2", morris::Rules::STANDARD)?;
    /// let names: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    /// assert!(names.contains(&"g7xg4".to_string()) && names.contains(&"g7xg1".to_string()));
    /// assert!(!names.contains(&"g7".to_string()), "closing a mill must capture");
    /// assert_eq!(names.len(), 19 + 2, "19 other empty points, 2 captures on g7");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn legal_moves(&self) -> Vec<crate::rules::movegen::Move> {
        self.children().into_iter().map(|(mv, _)| mv).collect()
    }

    /// The position after `mv`, if `mv` is legal here under the position's rules; the
    /// error names the move and the position. A capture must be part of `mv`
    /// (`d1xg7`): the plain `d1` that closes a mill is not a legal move, unless the
    /// opponent has no stone on the board to take.
    pub fn play(&self, mv: &crate::rules::movegen::Move) -> Result<Position, PositionError> {
        self.children().into_iter().find(|(m, _)| m == mv).map(|(_, p)| p).ok_or_else(|| PositionError::IllegalMove(self.move_name(mv), self.to_string()))
    }

    /// Legal moves with the positions they lead to, in [`Position::legal_moves`] order,
    /// under the position's rules. A full board has no move, under either `full-board`
    /// option.
    pub fn children(&self) -> Vec<(crate::rules::movegen::Move, Position)> {
        use crate::rules::ply::{for_each_ply_move, Ply};
        let game = self.rules.game();
        let (mh, oh) = if self.to_move == Color::White { (self.white_hand, self.black_hand) } else { (self.black_hand, self.white_hand) };
        let (m, o) = (self.mover().count_ones() as u8, self.opponent().count_ones() as u8);
        if self.validate().is_err() || m + mh < 3 || o + oh < 3 {
            return Vec::new();
        }
        let ply = Ply { white_hand: self.white_hand, black_hand: self.black_hand, to_move: self.to_move };
        let mut out = Vec::new();
        for_each_ply_move(game, ply, self.mover(), self.opponent(), |mv, after, opp_after| {
            let next = ply.after(&mv);
            let (white, black) = ply.colours(after, opp_after);
            out.push((mv, Position { white, black, white_hand: next.white_hand, black_hand: next.black_hand, to_move: next.to_move, rules: self.rules }));
        });
        out
    }

    /// Parses a move in the notation (`d1`, `a1-a4`, `a1-a4xd7`, `d1xg7`, `d1xg7xa7`)
    /// with the point names of this position's board. Whether it is legal here is
    /// [`Position::play`]'s question.
    pub fn parse_move(&self, text: &str) -> Result<crate::rules::movegen::Move, crate::rules::movegen::MoveParseError> {
        crate::rules::movegen::Move::parse_on(self.rules.board(), text)
    }

    /// The move `mv` from this position in the notation, with this board's point names.
    pub fn move_name(&self, mv: &crate::rules::movegen::Move) -> String {
        mv.notation(self.rules.board())
    }

    /// The board in reading order (the first field of the notation): 24 characters,
    /// or 16 on the `six` board.
    pub fn board_string(&self) -> String {
        self.rules
            .board()
            .geometry()
            .reading()
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

/// Point names of a bitboard of `board`, comma-separated, in internal order (not
/// sorted by name): the format [`Position::from_lists`] reads.
pub fn point_list(board: Board, bits: Bits) -> String {
    let geo = board.geometry();
    crate::rules::geometry::BitIter(bits).map(|p| geo.name(p)).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    const STD: Rules = Rules::STANDARD;

    #[test]
    fn parses_examples_from_rules() {
        let p = Position::parse(".WW....B.B....B........W b", STD).unwrap();
        let q = Position::from_lists(STD, "d7,g7,g1", "a4,d5,g4", Color::Black, 0, 0).unwrap();
        assert_eq!(p, q);
        assert_eq!(p.to_string(), ".WW....B.B....B........W b");
        assert_eq!(p.subspace(), Some(Subspace { s: 3, o: 3 }));
        let start = Position::parse("........................ w 9 9", STD).unwrap();
        assert_eq!(start.to_string(), "........................ w 9 9");
        assert_eq!(start.subspace(), None);
    }

    #[test]
    fn bitboard_positions_are_checked() {
        assert!(Position::new(STD, 0b111, 0b1000, 6, 6, Color::White).is_ok());
        assert_eq!(Position::new(STD, 0b11, 0b10, 0, 0, Color::White), Err(PositionError::Overlap));
        assert_eq!(Position::new(STD, 1 << 24, 0, 0, 0, Color::White), Err(PositionError::Overlap));
        // Each rule set's own limit: 9 in the standard game, 12 in Morabaraba.
        assert_eq!(Position::new(STD, 0b111, 0, 7, 0, Color::White), Err(PositionError::TooMany("White", 10, 9)));
        let morabaraba: Rules = "morabaraba".parse().unwrap();
        assert!(Position::new(morabaraba, 0b111, 0, 7, 0, Color::White).is_ok());
        assert!(matches!(Position::new(morabaraba, 0b111, 0, 10, 0, Color::White), Err(PositionError::TooMany("White", 13, 12))));
        let mut raw = Position::unchecked(STD, 0b11, 0b1000, 0, 0, Color::White);
        assert!(raw.validate().is_ok());
        raw.black = 0b10;
        assert!(raw.validate().is_err(), "a field changed by hand is checked again");
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            "",
            "x",
            "........................",
            "....................... w",
            "........................ x",
            "........................ w 9",
            "........................ w 13 9",
            ".......................X w",
            "WWWWWWWWWWWWW........... w",
            "........................ w 9 9 9",
            "WWW..................... w 10 0",
            "........................ w 10 9",
            "WWWWWWWWWW.............. w",
            "WWW..................... w 7 0",
            "................ w 4 4",
        ] {
            assert!(Position::parse(bad, STD).is_err(), "{bad:?}");
        }
        assert_eq!(Position::parse("........................ w 10 9", STD), Err(PositionError::TooMany("White", 10, 9)));
        assert_eq!(Position::parse("........................ w 300 9", STD), Err(PositionError::TooMany("White", 300, 9)));
        assert_eq!(Position::parse("........................ w x 9", STD), Err(PositionError::Hand("x".into())));
        assert!(Position::from_lists(STD, "d7,d7", "", Color::White, 0, 0).is_err());
        assert!(Position::from_lists(STD, "d7", "d7", Color::White, 0, 0).is_err());
        assert!(Position::from_lists(STD, "z9", "", Color::White, 0, 0).is_err());
    }

    /// A position's moves are its own rules' moves: the same stones under the standard
    /// rules and under Morabaraba's (diagonals) have different moves.
    #[test]
    fn moves_follow_the_position_rules() {
        let morabaraba: Rules = "morabaraba".parse().unwrap();
        let lists = ("a7,g1,d3,e3", "g7,a1,c5,e5");
        let a = Position::from_lists(STD, lists.0, lists.1, Color::White, 0, 0).unwrap();
        let b = Position::from_lists(morabaraba, lists.0, lists.1, Color::White, 0, 0).unwrap();
        let (ma, mb) = (a.legal_moves(), b.legal_moves());
        assert!(mb.len() > ma.len(), "a7 has a diagonal under Morabaraba: {} against {}", mb.len(), ma.len());
        let diag = b.parse_move("a7-b6").unwrap();
        assert!(b.play(&diag).is_ok() && a.play(&diag).is_err());
        assert_eq!(b.play(&diag).unwrap().rules(), morabaraba, "children keep the rules");
    }

    /// The 16-point board has its own notation: 16 characters in the order a5 c5 e5
    /// b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1, and the names a1..e5.
    #[test]
    fn the_sixteen_point_notation() {
        let six: Rules = "six".parse().unwrap();
        let p = Position::parse("WW..B..........B b 4 4", six).unwrap();
        assert_eq!(p.board(), Board::Six);
        assert_eq!(p.to_string(), "WW..B..........B b 4 4");
        assert_eq!(p, Position::from_lists(six, "a5,c5", "c4,e1", Color::Black, 4, 4).unwrap());
        assert_eq!(point_list(Board::Six, p.black), "e1,c4");
        assert!(matches!(Position::parse("WW..B..........B b 4 4", STD), Err(PositionError::WrongBoard(16, _, 24))));
        assert!(Position::from_lists(six, "g7", "", Color::White, 0, 0).is_err(), "no g7 on six");
        assert!(Position::parse("WWW............. w 4 0", six).is_err(), "7 stones");
        // A move names its points on the position's board; placing on e5 closes a5-c5-e5.
        let q = Position::parse("WW..B..........B w 4 4", six).unwrap();
        let names: Vec<String> = q.children().iter().map(|(m, _)| q.move_name(m)).collect();
        assert!(names.contains(&"e5xc4".to_string()) && names.contains(&"e5xe1".to_string()), "{names:?}");
        let mv = q.parse_move("e5xc4").unwrap();
        assert_eq!(q.play(&mv).unwrap().to_string(), "WWW............B b 3 4");
    }
}
