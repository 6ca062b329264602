//! A rule set changed option by option and checked once, at the end: an option can be
//! valid alone and not with the others (12 stones, then the 16-point board), so only
//! the whole is checked.

use crate::rules::{Board, Flying, FullBoard, Removal, Rules, RulesError, Take};

/// A rule set under construction, from [`Rules::to_builder`]; [`RulesBuilder::build`]
/// checks it.
///
/// ```rust
/// use morris::rules::{Board, Rules, Take};
///
/// let r = Rules::STANDARD.to_builder().take(Take::Each).build()?;
/// assert_eq!(r.to_string(), "standard,take=each");
/// assert_eq!(r, "standard,take=each".parse()?);
/// let err = Rules::STANDARD.to_builder().board(Board::Six).build().unwrap_err();
/// assert!(err.to_string().contains("3..=8 on the six board"), "9 stones on 16 points");
/// # Ok::<(), morris::rules::RulesError>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct RulesBuilder(Rules);

impl Rules {
    /// A builder that starts from these rules.
    pub const fn to_builder(self) -> RulesBuilder {
        RulesBuilder(self)
    }
}

impl RulesBuilder {
    /// Sets the board.
    pub const fn board(mut self, board: Board) -> RulesBuilder {
        self.0.board = board;
        self
    }

    /// Sets the stones each player has in hand at the start.
    pub const fn stones(mut self, stones: u8) -> RulesBuilder {
        self.0.stones = stones;
        self
    }

    /// Sets who may fly.
    pub const fn flying(mut self, flying: Flying) -> RulesBuilder {
        self.0.flying = flying;
        self
    }

    /// Sets whether a player with stones in hand and on the board may move instead.
    pub const fn lasker(mut self, lasker: bool) -> RulesBuilder {
        self.0.lasker = lasker;
        self
    }

    /// Sets which stone a mill removes.
    pub const fn removal(mut self, removal: Removal) -> RulesBuilder {
        self.0.removal = removal;
        self
    }

    /// Sets the stones a double mill removes.
    pub const fn take(mut self, take: Take) -> RulesBuilder {
        self.0.take = take;
        self
    }

    /// Sets the value of a full board.
    pub const fn full_board(mut self, full_board: FullBoard) -> RulesBuilder {
        self.0.full_board = full_board;
        self
    }

    /// The rule set, if its options go together: 3 to 12 stones a side, and at most
    /// half the board's points.
    pub fn build(self) -> Result<Rules, RulesError> {
        let r = self.0;
        if (3..=max_stones(r.board)).contains(&r.stones) {
            Ok(r)
        } else {
            Err(bad_stones(r.board, &r.stones.to_string()))
        }
    }

    /// Sets `option` from its text in a rule string (`docs/rules.md`).
    pub(super) fn set(self, option: &str, value: &str) -> Result<RulesBuilder, RulesError> {
        let bad = |option: &'static str, allowed: &str| RulesError::BadValue { option, value: value.to_string(), allowed: allowed.to_string() };
        Ok(match option {
            "stones" => self.stones(value.parse().map_err(|_| bad_stones(self.0.board, value))?),
            "flying" => self.flying(match value {
                "3" => Flying::Three,
                "none" => Flying::None,
                _ => return Err(bad("flying", "3, none")),
            }),
            "lasker" => self.lasker(match value {
                "yes" => true,
                "no" => false,
                _ => return Err(bad("lasker", "no, yes")),
            }),
            "removal" => self.removal(match value {
                "standard" => Removal::Standard,
                "strict" => Removal::Strict,
                "lenient" => Removal::Lenient,
                _ => return Err(bad("removal", "standard, strict, lenient")),
            }),
            "take" => self.take(match value {
                "one" => Take::One,
                "each" => Take::Each,
                _ => return Err(bad("take", "one, each")),
            }),
            "full-board" => self.full_board(match value {
                "loss" => FullBoard::Loss,
                "draw" => FullBoard::Draw,
                _ => return Err(bad("full-board", "loss, draw")),
            }),
            other => return Err(RulesError::UnknownOption(other.to_string())),
        })
    }
}

/// At most 12, the most of any rule set, and at most half the board's points.
fn max_stones(board: Board) -> u8 {
    12.min(board.points() / 2)
}

fn bad_stones(board: Board, value: &str) -> RulesError {
    RulesError::BadValue {
        option: "stones",
        value: value.to_string(),
        allowed: format!("3..={} on the {} board (at most half its {} points)", max_stones(board), board.name(), board.points()),
    }
}
