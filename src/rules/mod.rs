//! Rule sets of the Morris family (`docs/rules.md`): a board and a value for every
//! option, parsed from `NAME[,OPTION=VALUE...]`, printed canonically and fingerprinted.
//!
//! A table made under one rule set gives answers under another that look right and
//! are wrong, so every table header records the rule set that made it (its canonical
//! string and fingerprint) and a reader refuses a table of other rules. The
//! fingerprint hashes every option's value, not the name: `lasker,lasker=no,stones=9`
//! is `standard` and has its fingerprint.

pub mod board;
pub mod board24;
mod builder;
pub mod color;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod ply;
pub mod symmetry;

pub use board::Board;
pub use builder::RulesBuilder;
pub use color::Color;

use std::fmt;
use std::str::FromStr;
use xxhash_rust::xxh3::xxh3_64;

/// Who may fly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flying {
    /// A player with exactly 3 stones left (board plus hand) moves to any empty point.
    Three,
    /// Nobody flies: three stones slide, and can be blocked.
    None,
}

/// Which stone a mill removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Removal {
    /// Not one in a mill, unless all of the opponent's stones are in mills.
    Standard,
    /// Never one in a mill: if all are in mills, the mill removes nothing.
    Strict,
    /// Any stone.
    Lenient,
}

/// How many stones a move that closes two mills at once removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Take {
    /// One.
    One,
    /// One per mill closed, one after the other within the ply.
    Each,
}

/// The value of a full board for the side to move, which has no move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FullBoard {
    /// It loses, as every blocked player does.
    Loss,
    /// The game is a draw.
    Draw,
}

/// A rule set: a board and a value for every option of `docs/rules.md`.
///
/// ```rust
/// use morris::rules::Rules;
///
/// let r: Rules = "standard,removal=strict".parse()?;
/// assert_eq!(r.to_string(), "standard,removal=strict");
/// let same: Rules = "lasker,lasker=no,stones=9".parse()?;
/// assert_eq!(same, Rules::STANDARD);
/// assert_eq!(same.to_string(), "standard");
/// assert!("standard,stones=13".parse::<Rules>().is_err());
/// # Ok::<(), morris::rules::RulesError>(())
/// ```
///
/// The fields are private because not every combination is a rule set (`stones` is
/// at most half the board's points, else no start exists): a `Rules` comes from a
/// named set, a parsed string or [`RulesBuilder::build`], which check it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    board: Board,
    stones: u8,
    flying: Flying,
    lasker: bool,
    removal: Removal,
    take: Take,
    full_board: FullBoard,
}

/// Why a rule string was refused. Each message lists what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// The name before the first comma is not a named rule set.
    #[error("unknown rule set `{0}`; the rule sets are {names}", names = NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "))]
    UnknownName(String),
    /// An option that does not exist.
    #[error("unknown rule option `{0}`; the options are stones, flying, lasker, removal, take, full-board")]
    UnknownOption(String),
    /// An option given without `=VALUE`.
    #[error("rule option `{0}` needs a value: OPTION=VALUE")]
    NoValue(String),
    /// A value the option does not take.
    #[error("rule option {option} cannot be `{value}`; it is one of {allowed}")]
    BadValue {
        /// The option.
        option: &'static str,
        /// The value given.
        value: String,
        /// The values allowed.
        allowed: String,
    },
}

const NAMES: [(&str, Rules); 6] = [
    ("standard", Rules::STANDARD),
    ("lasker", Rules { stones: 10, lasker: true, ..Rules::STANDARD }),
    ("morabaraba", Rules { board: Board::NineDiagonal, stones: 12, full_board: FullBoard::Draw, ..Rules::STANDARD }),
    ("twelve", Rules { board: Board::NineDiagonal, stones: 12, flying: Flying::None, full_board: FullBoard::Draw, ..Rules::STANDARD }),
    ("six", Rules { board: Board::Six, stones: 6, flying: Flying::None, ..Rules::STANDARD }),
    ("five", Rules { board: Board::Six, stones: 5, flying: Flying::None, ..Rules::STANDARD }),
];

impl Rules {
    /// Standard Nine Men's Morris (`docs/rules.md`).
    pub const STANDARD: Rules =
        Rules { board: Board::Nine, stones: 9, flying: Flying::Three, lasker: false, removal: Removal::Standard, take: Take::One, full_board: FullBoard::Loss };

    /// The board.
    pub const fn board(&self) -> Board {
        self.board
    }

    /// Stones each player has in hand at the start.
    pub const fn stones(&self) -> u8 {
        self.stones
    }

    /// Who may fly.
    pub const fn flying(&self) -> Flying {
        self.flying
    }

    /// Whether a player with stones in hand and on the board may move instead of place.
    pub const fn lasker(&self) -> bool {
        self.lasker
    }

    /// Which stone a mill removes.
    pub const fn removal(&self) -> Removal {
        self.removal
    }

    /// Stones a double mill removes.
    pub const fn take(&self) -> Take {
        self.take
    }

    /// The value of a full board.
    pub const fn full_board(&self) -> FullBoard {
        self.full_board
    }

    /// The named rule sets of `docs/rules.md`, in its order.
    pub fn named() -> impl Iterator<Item = (&'static str, Rules)> {
        NAMES.into_iter()
    }

    /// Every option's value, in a fixed order: what the fingerprint hashes.
    fn options(&self) -> [(&'static str, String); 6] {
        [
            ("stones", self.stones.to_string()),
            (
                "flying",
                match self.flying {
                    Flying::Three => "3",
                    Flying::None => "none",
                }
                .to_string(),
            ),
            ("lasker", if self.lasker { "yes" } else { "no" }.to_string()),
            (
                "removal",
                match self.removal {
                    Removal::Standard => "standard",
                    Removal::Strict => "strict",
                    Removal::Lenient => "lenient",
                }
                .to_string(),
            ),
            (
                "take",
                match self.take {
                    Take::One => "one",
                    Take::Each => "each",
                }
                .to_string(),
            ),
            (
                "full-board",
                match self.full_board {
                    FullBoard::Loss => "loss",
                    FullBoard::Draw => "draw",
                }
                .to_string(),
            ),
        ]
    }

    /// The board and every option spelled out, e.g.
    /// `board=nine,stones=9,flying=3,lasker=no,removal=standard,take=one,full-board=loss`.
    pub fn full(&self) -> String {
        let mut s = format!("board={}", self.board.name());
        for (k, v) in self.options() {
            s.push_str(&format!(",{k}={v}"));
        }
        s
    }

    /// A hash of every option's value ([`Rules::full`]); never 0, which marks files
    /// written before rule sets were recorded.
    pub fn fingerprint(&self) -> u64 {
        xxh3_64(format!("morris-rules-v1;{}", self.full()).as_bytes()).max(1)
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::STANDARD
    }
}

impl FromStr for Rules {
    type Err = RulesError;

    fn from_str(s: &str) -> Result<Rules, RulesError> {
        let mut parts = s.trim().split(',').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let named = NAMES.iter().find(|(n, _)| *n == name).map(|(_, r)| *r).ok_or_else(|| RulesError::UnknownName(name.to_string()))?;
        let mut rules = named.to_builder();
        for part in parts {
            let (k, v) = part.split_once('=').ok_or_else(|| RulesError::NoValue(part.to_string()))?;
            rules = rules.set(k.trim(), v.trim())?;
        }
        rules.build()
    }
}

/// The canonical string: the named set of the same board that differs in the fewest
/// options (the first in `docs/rules.md` order on a tie), then those options in a fixed
/// order. Parsing it gives the same rules back.
impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mine = self.options();
        let diff = |r: &Rules| -> Vec<(&'static str, String)> { r.options().iter().zip(&mine).filter(|(a, b)| a.1 != b.1).map(|(_, b)| b.clone()).collect() };
        let (name, diffs) = NAMES.iter().filter(|(_, r)| r.board == self.board).map(|(n, r)| (*n, diff(r))).min_by_key(|(_, d)| d.len()).expect("every board has a named rule set");
        f.write_str(name)?;
        for (k, v) in diffs {
            write!(f, ",{k}={v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_fingerprints_differ() {
        let mut seen = std::collections::HashSet::new();
        for (name, r) in Rules::named() {
            assert_eq!(r.to_string(), name);
            assert_eq!(name.parse::<Rules>().unwrap(), r);
            assert!(seen.insert(r.fingerprint()), "{name}");
        }
        for s in ["standard,removal=strict", "standard,take=each", "six,stones=8,full-board=draw", "morabaraba,flying=none,full-board=loss"] {
            let r: Rules = s.parse().unwrap();
            assert_eq!(r.to_string().parse::<Rules>().unwrap(), r, "{s}");
            assert!(seen.insert(r.fingerprint()), "{s}");
        }
        // The nearest named set: twelve differs from morabaraba in flying alone.
        assert_eq!("morabaraba,flying=none".parse::<Rules>().unwrap().to_string(), "twelve");
        assert_eq!("six,stones=5".parse::<Rules>().unwrap().to_string(), "five");
    }

    #[test]
    fn bad_strings_list_what_is_allowed() {
        let err = |s: &str| s.parse::<Rules>().unwrap_err().to_string();
        assert!(err("chess").contains("standard, lasker, morabaraba, twelve, six, five"));
        assert!(err("standard,speed=9").contains("stones, flying"));
        assert!(err("standard,flying").contains("OPTION=VALUE"));
        assert!(err("standard,flying=4").contains("3, none"));
        assert!(err("six,stones=9").contains("3..=8 on the six board"));
        assert!(err("standard,stones=2").contains("3..=12"));
    }
}
