//! Independent, deliberately plain reference solver for the Morris family of
//! games (docs/rules.md): boards `nine`, `nine-diagonal` and `six`, and
//! every rule option. A test oracle for the fast engine.
//!
//! Written from the rules, the rule options and the published figures alone (now docs/rules.md),
//! and from the plain standard-game reference in `tests/reference/`. It
//! shares no code with the `morris` crate and does not depend on it: only
//! `std` and `rayon`.
//!
//! Files: `rules.rs` (rule sets, board geometry from coordinates),
//! `moves.rs` (terminal positions, children), `index.rs` (dense indexing of
//! a sector), `solve.rs` (value iteration, verification, forward
//! enumeration of a start), `orbits.rs` (Burnside and explicit orbit counts),
//! `ultra.rs` (sector values, draw classes and their depths: docs/ultra.md).
//!
//! # Positions and values
//! - A raw position is colour-free, from the side to move's point of view:
//!   `mover`/`opp` masks (bit i = `point_names()[i]`, the board-string
//!   reading order) and the stones in each hand. No symmetry reduction.
//! - A sector is `(s, o, sh, oh)`: stones on the board of the side to move
//!   and of the opponent, then their hands.
//! - `RefValue` is for the side to move, with depth in plies to the end of
//!   the game under optimal play: the winner ends it as soon as it can, the
//!   loser as late as it can. A ply is one placement or move with all its
//!   removals. Wins have odd depths and losses even ones.
//!
//! # Rules, including the readings chosen where the rules were silent
//! - The game is over before the side to move plays when:
//!   - it has fewer than 3 stones on the board plus in hand: `Loss(0)`;
//!   - the board is full: `Loss(0)` under `full-board=loss`, a draw under
//!     `full-board=draw`. A terminal draw is simply `Draw`; it never gets a
//!     depth, so its parents see it as any other draw. This is checked
//!     before the hands: a full board ends the game even if the side to
//!     move still had stones in hand (which cannot happen with the stone
//!     counts allowed, at most half of the points each).
//!   - it has no legal move (blocked): `Loss(0)`.
//! - Placing: a player with stones in hand may place one on any empty
//!   point. Without `lasker` it must place while it has stones in hand;
//!   with `lasker` too while it has none on the board. (So a player with
//!   stones in hand is never blocked on a board that is not full.)
//! - Moving: a player with no stones in hand, or under `lasker=yes` a player
//!   with stones both in hand and on the board, may move a stone instead:
//!   slide along an edge to an empty neighbour, or fly to any empty point if
//!   `flying=3` and it has exactly 3 stones on the board plus in hand (under
//!   Lasker that includes e.g. 2 on the board and 1 in hand).
//! - Mills: a placement or move that completes k mills through the point
//!   where the stone lands (k <= 2 on `nine`, <= 3 at the corners of
//!   `nine-diagonal`) makes 1 removal (`take=one`) or k (`take=each`).
//!   Removals are made one after the other; each one chooses among the stones
//!   that the `removal` rule allows in the situation left by the previous
//!   one (a first removal can break a mill and free its stones for the
//!   second). Orders of removal that end in the same stones are just two
//!   ways to the same child. (On these boards every neighbour of a point
//!   lies on a mill through it, so a slide never closes two mills: two or
//!   three removals happen only when placing, or flying with more than 3
//!   stones, which the rules do not allow.)
//! - `removal=standard`: a stone not in a mill, or any stone if all the
//!   opponent's board stones are in mills. `strict`: never one in a mill; if
//!   none is free the removal takes nothing. `lenient`: any stone. A removal
//!   against an opponent with no stone on the board takes nothing. A mill
//!   that takes nothing is still a legal move.
//! - As soon as a removal leaves the opponent with fewer than 3 stones
//!   (board plus hand) the game is over: any further removals of that ply
//!   are not made (the child is `Loss(0)` for the opponent either way).
//! - No repetition or move-count rule: a draw is a game that can go on for
//!   ever under best play.
//! - `stones` is the rule set's number of stones a side; `solve_start(rules,
//!   wk, bk)` takes the two hands explicitly (as in Gévay & Danner's tables
//!   of `wk`-`bk` starts) and does not look at `stones`. Each hand must be
//!   at least 3 and both must fit on the board.
//! - Positions are stored for every raw placement of the stones of a
//!   solved sector, whether or not a game can reach it (both sides with a
//!   mill, say); `solve_start`'s solution holds only the reachable ones.
//!
//! # Algorithm
//! Sectors are solved in pairs, a sector with its mirror `(o, s, oh, sh)`,
//! after every sector they lead into (a placement lowers the stones in hand,
//! a removal the stones on the board; a move without removal goes to the
//! mirror, so that is the only cycle, also under Lasker). Within a pair:
//! synchronous value iteration over the raw positions, with forward move
//! generation only (no unmoves, no symmetry). Round n decides exactly the
//! positions of depth n: `Win(n)` if some child is `Loss(n-1)`; `Loss(n)` if
//! every child is a win of depth < n (`Loss(0)` for terminal losses and
//! blocked positions); terminal draws are decided in round 0; what is
//! undecided at the fixed point is a draw. The only work saving is an exact
//! rule for which undecided positions need a new look in a round (see
//! `solve::Solver::solve_pair`): one of their children must have been decided
//! in the round before.
//!
//! `solve_start` first enumerates, forwards from the start, every position
//! reachable from it (`solve::reachable`), then solves only those
//! (`Solver::reaching`): the children of a reachable position are reachable.
//! `solve_movement` solves whole sectors (`Solver::new`). A `Solver::new`
//! can also solve a start with whole sectors, and then works out the reached
//! positions on first use of the solution; both must agree, and a self-test
//! checks that they do.
//!
//! Finished games (a side to move below 3 stones) are not stored as
//! positions: `get` returns `None` for them, as for any position outside the
//! solution. `terminal_value` and `children` give them.
//!
//! `Solver::verify` re-derives every solved value from its children's
//! values by the game equations (`Solver::expected`), independently of the
//! iteration; `orbits` counts orbits under the 16 symmetries two ways.
#![allow(dead_code)]

pub mod index;
pub mod moves;
pub mod orbits;
pub mod rules;
pub mod solve;
pub mod ultra;

#[allow(unused_imports)] // not every test binary that includes this module uses both
pub use moves::{children, Terminal};
#[allow(unused_imports)]
pub use rules::{Board, RefRules, Removal};
pub use solve::{Sector, Solver};

use index::{expand, masks_with, raw_index};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefValue {
    Win(u32),
    Draw,
    Loss(u32),
}

impl RefValue {
    pub fn depth(self) -> Option<u32> {
        match self {
            RefValue::Win(d) | RefValue::Loss(d) => Some(d),
            RefValue::Draw => None,
        }
    }
}

/// A raw position from the side to move's point of view: `mover`/`opp` are
/// bit masks over the board's reading order (bit i = `point_names()[i]`),
/// `mover_hand`/`opp_hand` the stones in hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawPos {
    pub mover: u32,
    pub opp: u32,
    pub mover_hand: u32,
    pub opp_hand: u32,
}

/// Value of a finished game, if the game is over before the side to move
/// plays (fewer than 3 stones, or a full board). Blocked positions are not
/// reported here: they are the positions without children.
pub fn terminal_value(rules: &RefRules, pos: &RawPos) -> Option<RefValue> {
    moves::terminal(rules, pos).map(|t| match t {
        Terminal::Loss => RefValue::Loss(0),
        Terminal::Draw => RefValue::Draw,
    })
}

/// Solves every position reachable from the start where the first player has
/// `wk` and the second `bk` stones in hand on an empty board (first player to
/// move), and returns the value of every reachable position.
pub fn solve_start(rules: &RefRules, wk: u32, bk: u32) -> RefSolution {
    Solver::reaching(rules, wk, bk).solve_start(wk, bk)
}

/// Solves every raw position of the movement sector s-o (both hands empty),
/// with whatever smaller sectors it leads into, and returns every raw
/// position of s-o with its value.
pub fn solve_movement(rules: &RefRules, s: u32, o: u32) -> RefSolution {
    Solver::new(rules).solve_movement(s, o)
}

/// Values of a set of raw positions: whole sectors (`solve_movement`), or
/// the positions of the sectors a start leads into that the start reaches
/// (`solve_start`). Which positions a start reaches is worked out by forward
/// enumeration on the first call of `get`, `iter` or `len` (`start_value`
/// does not need it).
pub struct RefSolution {
    rules: RefRules,
    n: u32,
    start: Option<RawPos>,
    /// (sector, values of every raw position of it by `raw_index`)
    sectors: Vec<(Sector, Arc<Vec<u16>>)>,
    by_sector: HashMap<Sector, usize>,
    /// For a start: its sector pairs in the order solved; the reached
    /// positions of each of `sectors` as a bit set, once worked out.
    pairs: Option<Vec<Vec<Sector>>>,
    reached: OnceLock<Vec<Vec<u64>>>,
    /// Were the sectors solved whole (`Solver::new`)? Else only the reached
    /// positions have values (`Solver::reaching`).
    whole: bool,
}

impl RefSolution {
    pub(crate) fn new(rules: RefRules, start: Option<RawPos>, sectors: Vec<(Sector, Arc<Vec<u16>>)>, pairs: Option<Vec<Vec<Sector>>>) -> RefSolution {
        let by_sector = sectors.iter().enumerate().map(|(i, s)| (s.0, i)).collect();
        RefSolution { rules, n: rules.points() as u32, start, sectors, by_sector, pairs, reached: OnceLock::new(), whole: true }
    }

    /// A start's solution whose reached positions are known already.
    pub(crate) fn with_reached(rules: RefRules, start: RawPos, sectors: Vec<(Sector, Arc<Vec<u16>>)>, reached: Vec<Vec<u64>>) -> RefSolution {
        let mut sol = RefSolution::new(rules, Some(start), sectors, Some(Vec::new()));
        sol.reached.set(reached).unwrap();
        sol.whole = false;
        sol
    }

    /// Is position `idx` of sector number `k` in the solution?
    fn included(&self, k: usize, idx: usize) -> bool {
        match (&self.pairs, self.start) {
            (Some(pairs), Some(start)) => {
                let reached = self.reached.get_or_init(|| {
                    let secs: Vec<Sector> = self.sectors.iter().map(|s| s.0).collect();
                    solve::reachable(&self.rules, &start, &secs, pairs)
                });
                reached[k][idx / 64] & (1 << (idx % 64)) != 0
            }
            _ => true,
        }
    }

    pub fn get(&self, p: &RawPos) -> Option<RefValue> {
        let full = (1u32 << self.n) - 1;
        if p.mover & p.opp != 0 || (p.mover | p.opp) & !full != 0 {
            return None;
        }
        let k = *self.by_sector.get(&solve::sector_of(p))?;
        let idx = raw_index(self.n, p.mover, p.opp);
        self.included(k, idx).then(|| solve::decode(self.sectors[k].1[idx]))
    }

    /// Value of any position of one of the solution's sectors, reached from
    /// the start or not (`get` gives only the reached ones). The sector
    /// values of docs/ultra.md count whole sectors. Only for a solution of
    /// whole sectors (`solve_movement`, `Solver::new(..).solve_start`):
    /// panics for one of `solve_start`, which leaves the other positions
    /// unsolved.
    pub fn sector_value(&self, p: &RawPos) -> Option<RefValue> {
        assert!(self.whole, "only the reached positions of this solution are solved");
        let full = (1u32 << self.n) - 1;
        if p.mover & p.opp != 0 || (p.mover | p.opp) & !full != 0 {
            return None;
        }
        let k = *self.by_sector.get(&solve::sector_of(p))?;
        Some(solve::decode(self.sectors[k].1[raw_index(self.n, p.mover, p.opp)]))
    }

    /// Were the sectors solved whole (see `sector_value`)?
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// The start position of `solve_start` (None for `solve_movement`).
    pub fn start(&self) -> Option<RawPos> {
        self.start
    }

    /// Value of the start position of `solve_start`.
    pub fn start_value(&self) -> Option<RefValue> {
        let start = self.start?;
        let k = self.by_sector[&solve::sector_of(&start)];
        Some(solve::decode(self.sectors[k].1[raw_index(self.n, 0, 0)]))
    }

    /// Every solved position with its value, sector by sector, each in index order.
    pub fn iter(&self) -> impl Iterator<Item = (RawPos, RefValue)> + '_ {
        let n = self.n;
        let full = (1u32 << n) - 1;
        self.sectors.iter().enumerate().flat_map(move |(k, (sec, values))| {
            let &(s, o, sh, oh) = sec;
            let movers = masks_with(n, s);
            let minors = masks_with(n - s, o);
            let nminor = minors.len();
            (0..values.len()).filter(move |&idx| self.included(k, idx)).map(move |idx| {
                let m = movers[idx / nminor];
                let pos = RawPos { mover: m, opp: expand(minors[idx % nminor], full & !m), mover_hand: sh, opp_hand: oh };
                (pos, solve::decode(values[idx]))
            })
        })
    }

    pub fn len(&self) -> usize {
        (0..self.sectors.len())
            .map(|k| {
                if self.pairs.is_none() {
                    return self.sectors[k].1.len();
                }
                self.included(k, 0); // worked out once
                self.reached.get().unwrap()[k].iter().map(|w| w.count_ones() as usize).sum()
            })
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sectors of the solution.
    pub fn sectors(&self) -> Vec<Sector> {
        self.sectors.iter().map(|s| s.0).collect()
    }

    /// (wins, draws, losses) over the solution's raw positions.
    pub fn counts(&self) -> (u64, u64, u64) {
        let (mut w, mut d, mut l) = (0, 0, 0);
        for (_, v) in self.iter() {
            match v {
                RefValue::Win(_) => w += 1,
                RefValue::Draw => d += 1,
                RefValue::Loss(_) => l += 1,
            }
        }
        (w, d, l)
    }
}
