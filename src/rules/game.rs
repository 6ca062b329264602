//! A rule set made ready for the hot loops: the board's adjacency and mills as fixed
//! arrays, and every option as a plain field.
//!
//! [`Rules`] is what a user names and a table records; a [`Game`] is what move
//! generation reads, built once per rule set and shared (`Rules::game`). Its tables
//! are copies of its board's [`Geometry`](crate::rules::geometry::Geometry), which the
//! [`Board24`] constants are too, so one code path serves every rule set: the options
//! cost a well-predicted branch each, not a second copy of the loops.

use crate::rules::board24::{on_board, Board24};
use crate::rules::geometry::{BitIter, Bits, MAX_MILLS, MAX_POINTS};
use crate::rules::{Board, Flying, FullBoard, Removal, Rules, Take};
use std::sync::{Mutex, OnceLock};

/// One rule set's board and options, laid out for move generation.
///
/// Read-only: the tables must stay those of `rules`, which the cache of `Game::of`
/// keys them by.
#[derive(Debug)]
pub struct Game {
    rules: Rules,
    points: usize,
    full: Bits,
    adj: [Bits; MAX_POINTS],
    point_mills: [[Bits; 3]; MAX_POINTS],
    mills: [Bits; MAX_MILLS],
    flying: bool,
    removal: Removal,
    take_each: bool,
    full_board_draw: bool,
    /// Which [`Board24`] type move generation runs on (see `on_board!`).
    pub(in crate::rules) diagonals: bool,
    pub(in crate::rules) six: bool,
}

impl Game {
    fn build(rules: Rules) -> Game {
        let geo = rules.board.geometry();
        Game {
            rules,
            points: geo.points(),
            full: geo.mask(),
            adj: *geo.adj(),
            point_mills: *geo.point_mills(),
            mills: *geo.padded_mills(),
            flying: rules.flying == Flying::Three,
            removal: rules.removal,
            take_each: rules.take == Take::Each,
            full_board_draw: rules.full_board == FullBoard::Draw,
            diagonals: rules.board == Board::NineDiagonal,
            six: rules.board == Board::Six,
        }
    }

    /// The standard game's tables, built once.
    pub fn standard() -> &'static Game {
        static G: OnceLock<Game> = OnceLock::new();
        G.get_or_init(|| Game::build(Rules::STANDARD))
    }

    /// The tables of `rules`, built once per rule set and kept for the process.
    pub fn of(rules: Rules) -> &'static Game {
        if rules == Rules::STANDARD {
            return Game::standard();
        }
        static BUILT: Mutex<Vec<&'static Game>> = Mutex::new(Vec::new());
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = built.iter().find(|g| g.rules == rules) {
            return g;
        }
        let g: &'static Game = Box::leak(Box::new(Game::build(rules)));
        built.push(g);
        g
    }

    /// The rule set these tables were built from.
    #[inline]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Points of the board (24 or 16).
    #[inline]
    pub fn points(&self) -> usize {
        self.points
    }

    /// Every point: the bits a valid bitboard may use.
    #[inline]
    pub fn full(&self) -> Bits {
        self.full
    }

    /// Neighbours of each point (unused entries 0).
    #[inline]
    pub fn adj(&self) -> &[Bits; MAX_POINTS] {
        &self.adj
    }

    /// The mills through each point, at most 3 (a corner of `nine-diagonal`); unused
    /// entries are [`NO_MILL`](crate::rules::geometry::NO_MILL), which no set of points
    /// completes, so a fixed-length loop needs no count.
    #[inline]
    pub fn point_mills(&self) -> &[[Bits; 3]; MAX_POINTS] {
        &self.point_mills
    }

    /// Every mill, then [`NO_MILL`](crate::rules::geometry::NO_MILL) up to [`MAX_MILLS`]:
    /// a fixed length, which the compiler unrolls.
    #[inline]
    pub fn mills(&self) -> &[Bits; MAX_MILLS] {
        &self.mills
    }

    /// Which stone a mill removes.
    #[inline]
    pub fn removal(&self) -> Removal {
        self.removal
    }

    /// Whether a double mill removes two stones.
    #[inline]
    pub fn take_each(&self) -> bool {
        self.take_each
    }

    /// Whether a full board is a draw (else the side to move, blocked, loses).
    #[inline]
    pub fn full_board_draw(&self) -> bool {
        self.full_board_draw
    }

    /// Whether the board is the 24-point one (with or without diagonals), which the
    /// movement index covers.
    pub fn is_24(&self) -> bool {
        self.rules.board != Board::Six
    }

    /// How many mills the stones `own` (which include `p`) complete through `p`.
    #[inline(always)]
    pub fn mills_closed(&self, own: Bits, p: usize) -> u32 {
        on_board!(self, B => Self::mills_closed_on::<B>(own, p))
    }

    /// [`Game::mills_closed`] on the board `B`, which must be this one's.
    #[inline(always)]
    pub fn mills_closed_on<B: Board24>(own: Bits, p: usize) -> u32 {
        // Written out: an iterator over the slice costs twice the instructions here.
        let [a, b, c] = B::POINT_MILLS[p];
        let two = (own & a == a) as u32 + (own & b == b) as u32;
        if B::PER_POINT == 3 {
            two + (own & c == c) as u32
        } else {
            two
        }
    }

    /// Whether the stones `own` (which include `p`) complete a mill through `p`, on the
    /// board `B`: the hot loops' test, cheaper than counting.
    #[inline(always)]
    pub fn closes_mill_on<B: Board24>(own: Bits, p: usize) -> bool {
        let [a, b, c] = B::POINT_MILLS[p];
        own & a == a || own & b == b || (B::PER_POINT == 3 && own & c == c)
    }

    /// The points that would complete a mill of `own`: the third point of each mill
    /// that holds exactly two of its stones. A move onto a point outside this set
    /// closes no mill, whatever else it vacates, so one pass over the mills spares the
    /// test at each of the many destinations of a flight or a placement.
    #[inline(always)]
    pub fn mill_completions(&self, own: Bits) -> Bits {
        on_board!(self, B => Self::mill_completions_on::<B>(own))
    }

    /// [`Game::mill_completions`] on the board `B`, which must be this one's.
    #[inline(always)]
    pub fn mill_completions_on<B: Board24>(own: Bits) -> Bits {
        let mut out = 0;
        let mut i = 0;
        while i < B::COUNT {
            let m = B::MILLS[i];
            let k = own & m;
            // Two of the three: more than one bit, and not all of them.
            if k & k.wrapping_sub(1) != 0 && k != m {
                out |= m ^ k;
            }
            i += 1;
        }
        out
    }

    /// The stones of `own` that stand in at least one complete mill.
    #[inline]
    pub fn stones_in_mills(&self, own: Bits) -> Bits {
        on_board!(self, B => Self::stones_in_mills_on::<B>(own))
    }

    /// [`Game::stones_in_mills`] on the board `B`, which must be this one's.
    #[inline(always)]
    pub fn stones_in_mills_on<B: Board24>(own: Bits) -> Bits {
        let mut out = 0;
        for &m in &B::MILLS[..B::COUNT] {
            if own & m == m {
                out |= m;
            }
        }
        out
    }

    /// The opponent stones that one removal may take, under the removal rule; empty
    /// when it takes nothing (no stone on the board, or `strict` with every stone in a
    /// mill): such a mill is still a legal move.
    #[inline]
    pub fn removable(&self, opp: Bits) -> Bits {
        on_board!(self, B => self.removable_on::<B>(opp))
    }

    /// [`Game::removable`] on the board `B`, which must be this one's.
    #[inline(always)]
    pub fn removable_on<B: Board24>(&self, opp: Bits) -> Bits {
        match self.removal {
            Removal::Lenient => opp,
            Removal::Standard => {
                let free = opp & !Self::stones_in_mills_on::<B>(opp);
                if free == 0 {
                    opp
                } else {
                    free
                }
            }
            Removal::Strict => opp & !Self::stones_in_mills_on::<B>(opp),
        }
    }

    /// Whether a side with `stones` left (board plus hand) flies.
    #[inline(always)]
    pub fn flies(&self, stones: u32) -> bool {
        self.flying && stones == 3
    }

    /// Calls `f(opp_after)` for every way the removals of one ply can leave the
    /// opponent's stones `opp`, after a move that closed `mills` mills (at least one).
    /// `take=each` removes one stone per mill, one after the other, each chosen under
    /// the removal rule in the position the previous one left; removals stop once the
    /// opponent has fewer than 3 stones (`hand` counts its stones in hand), as the game
    /// is over. Two orders that take the same stones are one move, reported once: a
    /// move listed twice would be shown twice, and counted twice by any caller that
    /// counts moves.
    #[inline]
    pub fn for_each_removal(&self, opp: Bits, hand: u32, mills: u32, mut f: impl FnMut(Bits)) {
        let count = if self.take_each { mills } else { 1 };
        if count < 2 {
            self.remove(opp, hand, count, &mut f);
            return;
        }
        // Rare (a double mill): collect the outcomes and report each once.
        let mut left = Vec::new();
        self.remove(opp, hand, count, &mut |l| left.push(l));
        left.sort_unstable();
        left.dedup();
        left.into_iter().for_each(f);
    }

    /// `count` removals, one after the other, from the position `opp` left.
    fn remove(&self, opp: Bits, hand: u32, count: u32, f: &mut impl FnMut(Bits)) {
        let next = self.removable(opp);
        if next == 0 || count == 0 {
            f(opp);
            return;
        }
        for r in BitIter(next) {
            let left = opp ^ (1 << r);
            if count == 1 || left.count_ones() + hand < 3 {
                f(left);
            } else {
                self.remove(left, hand, count - 1, f);
            }
        }
    }
}

impl Rules {
    /// The move-generation tables of this rule set (built once per process).
    pub fn game(&self) -> &'static Game {
        Game::of(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::geometry::NO_MILL;

    /// The points where a placement closes a mill are exactly `mill_completions`, on
    /// every board, for many random sets (the movement generators rely on it).
    #[test]
    fn mill_completions_are_the_points_that_close_a_mill() {
        let mut x = 0x9e3779b97f4a7c15u64;
        for (name, rules) in Rules::named() {
            let g = rules.game();
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let own = (x as Bits) & (x >> 32) as Bits & g.full();
                let c = g.mill_completions(own);
                for p in 0..24 {
                    let closes = g.full() >> p & 1 == 1 && own >> p & 1 == 0 && g.mills_closed(own | 1 << p, p) > 0;
                    assert_eq!(c >> p & 1 == 1 && own >> p & 1 == 0, closes, "{name}: own {own:#x}, point {p}");
                }
            }
        }
    }

    /// `on_board!` picks the type whose constants are the game's own tables.
    #[test]
    fn each_game_runs_on_its_boards_constants() {
        for (name, rules) in Rules::named() {
            let g = rules.game();
            on_board!(g, B => {
                assert_eq!((B::ADJ, B::POINT_MILLS, B::MILLS), (g.adj, g.point_mills, g.mills), "{name}");
                assert_eq!(B::COUNT, rules.board.geometry().mills().len(), "{name}");
            });
        }
    }

    #[test]
    fn a_corner_of_the_diagonal_board_lies_on_three_mills() {
        let r: Rules = "morabaraba".parse().unwrap();
        let g = r.game();
        let counts: Vec<usize> = (0..24).map(|p| g.point_mills[p].iter().filter(|&&m| m != NO_MILL).count()).collect();
        assert_eq!(counts.iter().filter(|&&c| c == 3).count(), 12, "every corner");
        assert_eq!(counts.iter().filter(|&&c| c == 2).count(), 12, "every midpoint");
    }

    #[test]
    fn take_each_removes_one_stone_per_mill() {
        let r: Rules = "standard,take=each".parse().unwrap();
        let g = r.game();
        let opp = 0b1111 << 8;
        let mut outs = vec![];
        g.for_each_removal(opp, 0, 2, |o| outs.push(o));
        assert!(outs.iter().all(|o| o.count_ones() == 2), "two removed, or the game ends at two");
        let mut outs = vec![];
        g.for_each_removal(opp | 1 << 20, 0, 2, |o| outs.push(o));
        assert!(outs.iter().all(|o| o.count_ones() == 3));
        let mut one = vec![];
        g.for_each_removal(opp | 1 << 20, 0, 1, |o| one.push(o));
        assert!(one.iter().all(|o| o.count_ones() == 4));
    }

    #[test]
    fn strict_removal_can_take_nothing() {
        let r: Rules = "standard,removal=strict".parse().unwrap();
        let g = r.game();
        let mill = g.mills[0];
        assert_eq!(g.removable(mill), 0);
        let mut outs = vec![];
        g.for_each_removal(mill, 0, 1, |o| outs.push(o));
        assert_eq!(outs, vec![mill]);
        assert_eq!(Game::standard().removable(mill), mill);
    }
}
