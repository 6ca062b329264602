//! Movement subspaces `s-o` and the order in which they can be solved.

use std::fmt;
use std::str::FromStr;

/// The fewest stones a side has in the movement phase: with two it has lost.
pub const MIN_STONES: u8 = 3;
/// The most stones a side has in any rule set of the family (Morabaraba's 12).
pub const MAX_STONES: u8 = 12;
/// The most stones a side has in the standard game.
pub const STANDARD_STONES: u8 = 9;

/// Movement-phase positions with `s` stones for the side to move and `o` for the opponent.
///
/// The text form is `S-O`, as in table file names (`4-3.mtb`). Every subspace is a
/// [`Sector`](crate::Sector) with empty hands (`Sector::from`).
///
/// ```rust
/// use morris::{Sector, Subspace};
///
/// let sub: Subspace = "4-3".parse()?;
/// assert_eq!(sub.mirror().to_string(), "3-4");
/// assert_eq!(sub.after_capture(), None, "a capture would leave the opponent two stones");
/// assert_eq!(sub.unit().to_string(), "3-4 + 4-3", "solved together");
/// assert_eq!(Sector::from(sub).to_string(), "4-3");
/// assert!("2-3".parse::<Subspace>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Subspace {
    /// Stones of the side to move, 3..=12.
    pub s: u8,
    /// Stones of the opponent, 3..=12.
    pub o: u8,
}

impl Subspace {
    /// The subspace `s-o`; `None` unless both counts are in 3..=12 (the most stones of
    /// any rule set: whether a rule set has the subspace is the rule set's to say).
    pub fn new(s: u8, o: u8) -> Option<Subspace> {
        let ok = |x: u8| (MIN_STONES..=MAX_STONES).contains(&x);
        (ok(s) && ok(o)).then_some(Subspace { s, o })
    }

    /// All 49 subspaces of the standard game.
    pub fn all() -> impl Iterator<Item = Subspace> {
        Subspace::all_up_to(STANDARD_STONES)
    }

    /// Every subspace of a game of `max` stones a side: `(max - 2)^2` of them.
    pub fn all_up_to(max: u8) -> impl Iterator<Item = Subspace> {
        (MIN_STONES..=max).flat_map(move |s| (MIN_STONES..=max).map(move |o| Subspace { s, o }))
    }

    /// Stones on the board, `s + o`: what `--max-stones` limits.
    pub fn total(&self) -> u8 {
        self.s + self.o
    }

    /// Where a move without capture goes (the opponent is then to move).
    pub fn mirror(&self) -> Subspace {
        Subspace { s: self.o, o: self.s }
    }

    /// Where a capture goes, or `None` when it leaves the opponent with 2 stones (a win).
    pub fn after_capture(&self) -> Option<Subspace> {
        self.after_removing(1)
    }

    /// Where a move that removes `k` stones goes, or `None` when it leaves the
    /// opponent with fewer than 3 (a win).
    pub fn after_removing(&self, k: u8) -> Option<Subspace> {
        Subspace::new(self.o.checked_sub(k)?, self.s)
    }

    /// The subspaces that the moves of this one can remove stones into under `game`'s
    /// rules: one fewer, and two fewer under `take=each`.
    pub fn capture_targets(&self, game: &crate::rules::game::Game) -> Vec<Subspace> {
        let most = if game.take_each() { 2 } else { 1 };
        (1..=most).filter_map(|k| self.after_removing(k)).collect()
    }

    /// The unit this subspace is solved in: `{s-o, o-s}`, smaller `s` first.
    pub fn unit(&self) -> Unit {
        Unit { a: Subspace { s: self.s.min(self.o), o: self.s.max(self.o) } }
    }
}

impl fmt::Display for Subspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.s, self.o)
    }
}

/// Why a subspace name is not `S-O` with `3 <= S, O <= 12`; each holds the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubspaceParseError {
    /// Not two numbers joined by `-`.
    #[error("invalid subspace '{0}': expected S-O with 3 <= S, O <= 12, e.g. 4-3")]
    Format(String),
    /// Numbers outside 3..=12.
    #[error("invalid subspace '{0}': each side has 3 to 12 stones in a subspace, e.g. 4-3")]
    OutOfRange(String),
}

impl FromStr for Subspace {
    type Err = SubspaceParseError;
    fn from_str(text: &str) -> Result<Subspace, SubspaceParseError> {
        let err = || SubspaceParseError::Format(text.to_string());
        let (s, o) = text.trim().split_once('-').ok_or_else(err)?;
        let s: u8 = s.parse().map_err(|_| err())?;
        let o: u8 = o.parse().map_err(|_| err())?;
        Subspace::new(s, o).ok_or_else(|| SubspaceParseError::OutOfRange(text.to_string()))
    }
}

/// A set of subspaces solved together because non-capture moves link them:
/// `s-o` with `o-s`, or `s-s` alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Unit {
    a: Subspace,
}

impl Unit {
    /// The subspaces of the unit: one for `s-s`, else `s-o` (smaller `s`) then `o-s`.
    pub fn members(&self) -> Vec<Subspace> {
        if self.a.s == self.a.o {
            vec![self.a]
        } else {
            vec![self.a, self.a.mirror()]
        }
    }

    /// [`Unit::members`] as sectors with empty hands: what the solver takes.
    pub fn sectors(&self) -> Vec<crate::position::sector::Sector> {
        self.members().into_iter().map(Into::into).collect()
    }

    /// Stones on the board, the same in every member.
    pub fn total(&self) -> u8 {
        self.a.total()
    }

    /// Subspaces (outside the unit) that captures from this unit lead into under
    /// `game`'s rules.
    pub fn dependencies(&self, game: &crate::rules::game::Game) -> Vec<Subspace> {
        let mut deps: Vec<Subspace> = self.members().iter().flat_map(|m| m.capture_targets(game)).collect();
        deps.sort();
        deps.dedup();
        deps
    }

    /// Every unit of the standard game, in an order where each unit's dependencies
    /// come first (captures lower the stone total).
    pub fn all_in_order() -> Vec<Unit> {
        Unit::all_in_order_up_to(STANDARD_STONES)
    }

    /// Every unit of a game of `max` stones a side, dependencies first.
    pub fn all_in_order_up_to(max: u8) -> Vec<Unit> {
        let mut units: Vec<Unit> = Subspace::all_up_to(max).map(|s| s.unit()).collect();
        units.sort_by_key(|u| (u.total(), u.a));
        units.dedup();
        units
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.members().iter().map(|m| m.to_string()).collect();
        write!(f, "{}", names.join(" + "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_cover_all_subspaces_in_dependency_order() {
        let units = Unit::all_in_order();
        let mut done = std::collections::HashSet::new();
        for u in &units {
            for d in u.dependencies(crate::rules::game::Game::standard()) {
                assert!(done.contains(&d), "{u} needs {d}");
            }
            for m in u.members() {
                assert!(done.insert(m));
            }
        }
        assert_eq!(done.len(), 49);
        assert_eq!(units.len(), 28);
    }

    #[test]
    fn parse_subspace() {
        assert_eq!("4-3".parse::<Subspace>().unwrap(), Subspace { s: 4, o: 3 });
        assert!("2-3".parse::<Subspace>().is_err());
        assert!("x".parse::<Subspace>().is_err());
    }
}
