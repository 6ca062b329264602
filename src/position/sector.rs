//! Sectors: a board subspace plus two hands, the unit every table is stored in.
//!
//! A sector `(s, o, sh, oh)` holds the positions where the side to move has `s` stones
//! on the board and `sh` in hand, the opponent `o` and `oh`. A movement subspace is the
//! sector with both hands empty, so movement tables and placement tables share one
//! file format, one index (the board's, `SubspaceIndex::new(board, s, o)`) and one probe
//! path. Names are `S-O` for movement subspaces and `S-O-SH-OH` otherwise.
//!
//! The sector graph lists which sectors a sector's moves lead into. Under the standard
//! rules the graph outside the movement phase has no cycles (every placement empties a
//! hand by one, and a side with an empty hand moves only while the other still places,
//! which it does on the next ply), so placement sectors are solved one by one in
//! [`Sector::solve_order`]. A rule variant that lets a player move instead of placing
//! (Lasker) adds edges between sectors of equal hands; `solve_order` then reports the
//! cycle rather than returning an order that would be wrong, and such sectors will be
//! solved together as units, as the movement subspaces `s-o` and `o-s` are.

use crate::position::index::SubspaceIndex;
use crate::position::subspace::Subspace;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::str::FromStr;

/// The most stones a side has in any rule set of the family (Morabaraba's 12); the
/// standard game's 9 is `Rules::STANDARD.stones()`.
pub const STONES: u8 = 12;

/// The positions with `s` stones on the board and `sh` in hand for the side to move,
/// `o` and `oh` for the opponent: one table file, named by the sector (`S-O` or
/// `S-O-SH-OH`, see the module documentation).
///
/// Build one with [`Sector::new`] or by parsing, which refuse sectors where the game is
/// already over. A sector built field by field is not checked, and one with a count
/// above 12 makes [`Tablebase::table`](crate::probe::Tablebase::table) panic.
///
/// # Examples
///
/// ```rust
/// use morris::Sector;
///
/// // White to place the first of 9 stones on the empty board; Black has 9 to place.
/// let start = Sector::start(9, 9).unwrap();
/// assert_eq!(start.to_string(), "0-0-9-9");
/// assert!(start.places());
/// // A placement leads to Black to move, with one stone on the board against it.
/// assert_eq!(start.after_move().to_string(), "0-1-9-8");
///
/// let late: Sector = "8-7-1-0".parse()?;
/// assert_eq!(late.after_move().to_string(), "7-9", "the last placement starts the movement phase");
/// assert_eq!(late.after_capture().map(|c| c.to_string()), Some("6-9".to_string()));
/// assert!(late.after_move().is_movement());
///
/// assert_eq!(Sector::reachable(start, morris::Rules::STANDARD.game()).len(), 498, "the sectors of the standard game");
/// assert!("2-3".parse::<Sector>().is_err(), "a side with two stones has lost");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sector {
    /// Stones on the board of the side to move.
    pub s: u8,
    /// Stones on the board of the opponent.
    pub o: u8,
    /// Stones in hand of the side to move.
    pub sh: u8,
    /// Stones in hand of the opponent.
    pub oh: u8,
}

impl From<Subspace> for Sector {
    fn from(sub: Subspace) -> Sector {
        Sector { s: sub.s, o: sub.o, sh: 0, oh: 0 }
    }
}

impl Sector {
    /// A sector in which the game is not over: each side has at most 12 stones and at
    /// least 3 on the board and in hand; a movement sector needs 3 on the board each.
    pub fn new(s: u8, o: u8, sh: u8, oh: u8) -> Option<Sector> {
        let sec = Sector { s, o, sh, oh };
        let side_ok = |board: u8, hand: u8| board.checked_add(hand).is_some_and(|t| (3..=STONES).contains(&t));
        (side_ok(s, sh) && side_ok(o, oh) && (!sec.is_movement() || (s >= 3 && o >= 3))).then_some(sec)
    }

    /// Whether both hands are empty: a movement subspace, solved by retrograde analysis.
    pub fn is_movement(&self) -> bool {
        self.sh == 0 && self.oh == 0
    }

    /// The movement subspace, for a sector with both hands empty.
    pub fn subspace(&self) -> Option<Subspace> {
        if self.is_movement() {
            Subspace::new(self.s, self.o)
        } else {
            None
        }
    }

    /// The symmetry-reduced index of the sector's boards on `board`.
    pub fn index(&self, board: crate::rules::Board) -> SubspaceIndex {
        SubspaceIndex::new(board, self.s, self.o)
    }

    /// Whether the side to move places a stone (it has one in hand) rather than moves.
    pub fn places(&self) -> bool {
        self.sh > 0
    }

    /// Where a move without capture leads, seen from the next side to move. The result
    /// is not checked: a blocked side's sector still has an `after_move`.
    pub fn after_move(&self) -> Sector {
        if self.places() {
            Sector { s: self.o, o: self.s + 1, sh: self.oh, oh: self.sh - 1 }
        } else {
            Sector { s: self.o, o: self.s, sh: self.oh, oh: 0 }
        }
    }

    /// Where a capture leads: `None` when the opponent has no stone on the board or
    /// when the capture leaves it with 2 stones in all, which wins at once.
    pub fn after_capture(&self) -> Option<Sector> {
        self.after_removing(1)
    }

    /// Where a move that removes `k` stones leads: `None` when the opponent has fewer
    /// than `k` stones on the board or is left with fewer than 3 in all (a win).
    pub fn after_removing(&self, k: u8) -> Option<Sector> {
        let next = self.after_move();
        if self.o < k || k == 0 {
            return None;
        }
        Sector::new(next.s - k, next.o, next.sh, next.oh)
    }

    /// Whether the side to move may move a stone on the board: it has one, and no
    /// stone in hand, or the rules are Lasker's.
    pub fn slides(&self, game: &crate::rules::game::Game) -> bool {
        self.s > 0 && (self.sh == 0 || game.rules().lasker())
    }

    /// Where moving a stone without removal leads: the mirror sector, both hands kept.
    pub fn after_slide(&self) -> Sector {
        Sector { s: self.o, o: self.s, sh: self.oh, oh: self.sh }
    }

    /// Where moving a stone that removes `k` leads (`None` when it wins at once).
    pub fn after_slide_removing(&self, k: u8) -> Option<Sector> {
        if self.o < k || k == 0 {
            return None;
        }
        Sector::new(self.o - k, self.s, self.oh, self.sh)
    }

    /// The sectors solved together with this one: it and its mirror when moves
    /// without removal lead from each to the other (a cycle: movement sectors, and
    /// Lasker sectors where both sides have stones on the board), else itself alone.
    pub fn unit(&self, game: &crate::rules::game::Game) -> Vec<Sector> {
        let mirror = self.after_slide();
        if self.slides(game) && mirror.slides(game) && mirror != *self {
            let mut v = vec![*self, mirror];
            v.sort();
            v
        } else {
            vec![*self]
        }
    }

    /// Whether the unit of this sector has a cycle, so that the retrograde solver
    /// solves it (a sector whose moves all leave it is solved by induction).
    pub fn cyclic(&self, game: &crate::rules::game::Game) -> bool {
        self.slides(game) && self.after_slide().slides(game)
    }

    /// The sectors this one's moves lead into under `game`'s rules: under `take=each`
    /// a double mill removes two stones, a second capture edge.
    pub fn children(&self, game: &crate::rules::game::Game) -> Vec<Sector> {
        let mut out = vec![];
        let plain = self.after_move();
        if Sector::new(plain.s, plain.o, plain.sh, plain.oh).is_some() {
            out.push(plain);
        }
        out.extend(self.after_capture());
        if game.take_each() {
            out.extend(self.after_removing(2));
        }
        // Lasker: with stones in hand and on the board, a stone may also move.
        if self.places() && self.slides(game) {
            out.extend(Sector::new(self.o, self.s, self.oh, self.sh));
            out.extend(self.after_slide_removing(1));
            if game.take_each() {
                out.extend(self.after_slide_removing(2));
            }
            out.sort();
            out.dedup();
        }
        out
    }

    /// The placement sectors of `set` in units (see [`Sector::unit`]), each unit
    /// after every unit its moves lead into. Under rules without Lasker every unit is
    /// one sector, in the order of [`Sector::solve_order`].
    pub fn solve_units(set: &BTreeSet<Sector>, game: &crate::rules::game::Game) -> Result<Vec<Vec<Sector>>, CycleError> {
        if !game.rules().lasker() {
            return Ok(Sector::solve_order(set, game)?.into_iter().map(|x| vec![x]).collect());
        }
        Sector::children_first(set, game, |x| x.unit(game))
    }

    /// The placement sectors of `set` grouped by `unit_of` (whose first member names
    /// the unit), each unit after the units its members' moves lead into: a
    /// depth-first post-order with an explicit stack. Fails, naming a unit on it, if
    /// the units' graph has a cycle.
    fn children_first(set: &BTreeSet<Sector>, game: &crate::rules::game::Game, unit_of: impl Fn(Sector) -> Vec<Sector>) -> Result<Vec<Vec<Sector>>, CycleError> {
        let head = |x: Sector| unit_of(x)[0];
        // Colour 1 = on the stack, 2 = done.
        let mut state: HashMap<Sector, u8> = HashMap::new();
        let mut order = vec![];
        for &root in set.iter().filter(|s| !s.is_movement()) {
            if state.contains_key(&head(root)) {
                continue;
            }
            let mut stack = vec![(head(root), 0usize)];
            state.insert(head(root), 1);
            while let Some((node, next)) = stack.pop() {
                let members = unit_of(node);
                let mut kids: Vec<Sector> =
                    members.iter().flat_map(|m| m.children(game)).filter(|c| !c.is_movement() && set.contains(c) && !members.contains(c)).map(head).collect();
                kids.dedup();
                if next < kids.len() {
                    stack.push((node, next + 1));
                    let c = kids[next];
                    match state.get(&c) {
                        None => {
                            state.insert(c, 1);
                            stack.push((c, 0));
                        }
                        Some(1) => return Err(CycleError(c)),
                        Some(_) => {}
                    }
                } else {
                    state.insert(node, 2);
                    order.push(members);
                }
            }
        }
        Ok(order)
    }

    /// The empty board of a game where White places `wk` and Black `bk` stones, White to
    /// move; `start(9, 9)` is the standard game. `None` unless both are in 3..=12.
    pub fn start(wk: u8, bk: u8) -> Option<Sector> {
        Sector::new(0, 0, wk, bk)
    }

    /// Every sector reachable from `root` under `game`'s rules, `root` included.
    pub fn reachable(root: Sector, game: &crate::rules::game::Game) -> BTreeSet<Sector> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![root];
        while let Some(x) = stack.pop() {
            if seen.insert(x) && !x.is_movement() {
                stack.extend(x.children(game));
            }
        }
        seen
    }

    /// [`Sector::solve_order`] under `game`'s rules.
    pub fn solve_order(set: &BTreeSet<Sector>, game: &crate::rules::game::Game) -> Result<Vec<Sector>, CycleError> {
        let order: Vec<Sector> = Sector::children_first(set, game, |x| vec![x])?.into_iter().flatten().collect();
        // Group by hands, then board, so consecutive sectors share child tables; this
        // is still children-first because every edge lowers the hands or, from a
        // moving side to a placing one, keeps them and is ordered by `sh == 0` last.
        let key = |x: &Sector| (x.sh + x.oh, x.sh == 0, x.s + x.o, x.s, x.o, x.sh);
        let mut sorted = order.clone();
        sorted.sort_by_key(key);
        let pos: HashMap<Sector, usize> = sorted.iter().enumerate().map(|(i, &x)| (x, i)).collect();
        if sorted.iter().all(|x| x.children(game).iter().all(|c| pos.get(c).is_none_or(|&j| j < pos[x]))) {
            Ok(sorted)
        } else {
            Ok(order)
        }
    }

    /// File stem and display name: `S-O` or `S-O-SH-OH`.
    pub fn name(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Sector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_movement() {
            write!(f, "{}-{}", self.s, self.o)
        } else {
            write!(f, "{}-{}-{}-{}", self.s, self.o, self.sh, self.oh)
        }
    }
}

/// Why a sector name is not `S-O` or `S-O-SH-OH` of a sector of the game; each holds the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SectorParseError {
    /// Not two or four numbers joined by `-`.
    #[error("invalid sector '{0}': expected S-O (a movement subspace, 3 <= S, O <= 12) or S-O-SH-OH (stones on the board and in hand of the side to move and of the opponent, at most 12 and at least 3 a side)")]
    Format(String),
    /// Numbers that name no sector (too many stones, or too few to play).
    #[error("invalid sector '{0}': no sector has these stones; expected S-O (3 <= S, O <= 12) or S-O-SH-OH (at most 12 and at least 3 a side, board and hand)")]
    NoSuchSector(String),
}

/// The sector graph restricted to a set of sectors has a cycle: no order solves each
/// sector after the sectors it leads into.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the sector graph has a cycle through {0}")]
pub struct CycleError(pub Sector);

impl FromStr for Sector {
    type Err = SectorParseError;
    fn from_str(text: &str) -> Result<Sector, SectorParseError> {
        let format = || SectorParseError::Format(text.to_string());
        let parts: Vec<u8> = text.trim().split('-').map(|p| p.parse::<u8>().map_err(|_| format())).collect::<Result<_, _>>()?;
        match parts[..] {
            [s, o] => Sector::new(s, o, 0, 0),
            [s, o, sh, oh] => Sector::new(s, o, sh, oh),
            _ => return Err(format()),
        }
        .ok_or_else(|| SectorParseError::NoSuchSector(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse errors say why: a shape that is no name, or numbers that name nothing.
    #[test]
    fn parse_errors_say_why() {
        use crate::position::subspace::{Subspace, SubspaceParseError};
        use crate::rules::movegen::{Move, MoveParseError};
        assert_eq!("3-x".parse::<Sector>(), Err(SectorParseError::Format("3-x".into())));
        assert_eq!("3-3-1".parse::<Sector>(), Err(SectorParseError::Format("3-3-1".into())));
        assert_eq!("13-3".parse::<Sector>(), Err(SectorParseError::NoSuchSector("13-3".into())));
        assert_eq!("4".parse::<Subspace>(), Err(SubspaceParseError::Format("4".into())));
        assert_eq!("2-3".parse::<Subspace>(), Err(SubspaceParseError::OutOfRange("2-3".into())));
        assert_eq!("z9".parse::<Move>(), Err(MoveParseError::UnknownPoint("z9".into(), "z9".into())));
        assert_eq!("d1xa7xa7".parse::<Move>(), Err(MoveParseError::Malformed("d1xa7xa7".into())));
        assert!("z9".parse::<Move>().unwrap_err().to_string().contains("'z9' is not a point"));
    }

    #[test]
    fn standard_game_has_the_published_sector_count() {
        let all = Sector::reachable(Sector::start(9, 9).unwrap(), crate::rules::game::Game::standard());
        let placement = all.iter().filter(|s| !s.is_movement()).count();
        let movement = all.iter().filter(|s| s.is_movement()).count();
        // Gévay & Danner: 498 sectors for the standard game, 49 of them movement ones.
        assert_eq!((placement, movement), (449, 49));
        let order = Sector::solve_order(&all, crate::rules::game::Game::standard()).unwrap();
        assert_eq!(order.len(), 449);
        let pos: HashMap<Sector, usize> = order.iter().enumerate().map(|(i, &x)| (x, i)).collect();
        for x in &order {
            for c in x.children(crate::rules::game::Game::standard()) {
                if !c.is_movement() {
                    assert!(pos[&c] < pos[x], "{c} after {x}");
                }
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for text in ["3-3", "9-9", "0-0-9-9", "8-8-1-1", "3-6-0-3", "12-12", "9-9-1-0"] {
            assert_eq!(text.parse::<Sector>().unwrap().to_string(), text);
        }
        for bad in ["2-3", "0-0-9", "0-0-2-2", "12-12-1-0", "13-3", "x", "3-3-0-0-0", "1-1"] {
            assert!(bad.parse::<Sector>().is_err(), "{bad}");
        }
    }
}
