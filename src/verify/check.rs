//! The check of one table: each position's stored value against the best of its
//! children's, for movement subspaces and placement sectors alike. Moves are generated
//! forward by the ply generator of the rules, and each child is found in the table of
//! its sector by its stone counts.

use super::{Mismatch, Outcome};
use crate::position::index::{CaptureIndex, Prepared, SubspaceIndex};
use crate::position::sector::Sector;
use crate::position::{Color, Position};
use crate::probe::Grade;
use crate::probe::NO_KEY;
use crate::rules::game::Game;
use crate::rules::geometry::{BitIter, Bits};
use crate::rules::movegen::NONE;
use crate::rules::ply::{for_each_ply_capture, for_each_ply_group, Ply};
use crate::solve::progress::Progress;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// Disagreements kept per table, for the report; all are counted.
const KEEP: usize = 100;

/// Slots a parallel task walks.
const CHUNK: u64 = 1 << 14;

/// Children gathered at most before they are valued (see [`Children`]): more than
/// nearly any position has (a flight of 3 stones has at most 54), so that a position
/// is valued in one go. The unit tests gather 4, so that positions are valued in
/// several batches there.
const GATHER: usize = if cfg!(test) { 4 } else { 128 };

/// A position's children that keep its opponent's stones (moves without removal) and
/// lead into one table, gathered and then valued in loops of their own. Their index
/// is prepared for the opponent's stones, which are the child's side to move's, when
/// those are the index's first set.
struct Plain<'a, V: Grade> {
    index: SubspaceIndex,
    values: &'a V::Whole,
    /// The preparation, and the opponent's stones it was made for: a walk keeps them
    /// for a whole orbit's run of slots when they are the walk's first set.
    prep: Option<Prepared>,
    prepared_for: Option<Bits>,
    /// The mover's stones after each move: the child's opponent's.
    after: [Bits; GATHER],
    len: usize,
    slots: [u64; GATHER],
}

impl<'a, V: Grade> Plain<'a, V> {
    fn new(index: SubspaceIndex, values: &'a V::Whole) -> Self {
        Plain { index, values, prep: None, prepared_for: None, after: [0; GATHER], len: 0, slots: [0; GATHER] }
    }

    /// Starts a position whose opponent has `opp` stones.
    #[inline(always)]
    fn start(&mut self, opp: Bits) {
        if self.prepared_for != Some(opp) {
            // The preparation must only be used for this index's slots.
            self.prep = self.index.prepare(opp, true);
            self.prepared_for = Some(opp);
        }
    }

    /// Stores the children of one group of moves, the mover's stones `base` with one
    /// of `dests` added; a full gather is valued into `best` at once.
    #[inline(always)]
    fn add(&mut self, base: Bits, dests: Bits, opp: Bits, best: &mut i32) {
        for to in BitIter(dests) {
            self.after[self.len % GATHER] = base | (1 << to);
            self.len += 1;
            if self.len == GATHER {
                self.value(opp, best);
            }
        }
    }

    /// Values the gathered children into `best`: every slot first, each entry
    /// prefetched as its slot is known, then every entry read.
    #[inline(always)]
    fn value(&mut self, opp: Bits, best: &mut i32) {
        let n = self.len;
        // Copies, so that the stores into `slots` do not make the loops read them
        // again from memory at each child.
        let (index, values) = (self.index, self.values);
        match self.prep {
            Some(p) => {
                for (slot, &after) in self.slots[..n].iter_mut().zip(&self.after[..n]) {
                    *slot = index.index_prepared(&p, after);
                    V::prefetch(values, *slot);
                }
            }
            None => {
                for (slot, &after) in self.slots[..n].iter_mut().zip(&self.after[..n]) {
                    *slot = index.index(opp, after);
                    V::prefetch(values, *slot);
                }
            }
        }
        let mut b = *best;
        for &slot in &self.slots[..n] {
            b = b.max(V::parent_key(values, slot));
        }
        *best = b;
        self.len = 0;
    }
}

/// One position's children, gathered by the move generator's callback and valued
/// after it. The callback only stores each child's stones; the index, the prefetch of
/// its entry and the read run after it as loops of their own. One callback that did
/// all three kept its state in memory, not in registers: 116 instructions a child in
/// a flying subspace (callgrind, `verify --only 3-5`), against 93 with the gather and
/// 81 with a stone's plain moves stored in a loop of their own (docs/measurements.md).
struct Children<'a, V: Grade> {
    /// The plain child (see `check`).
    plain: Plain<'a, V>,
    /// A Lasker placement sector's slides without removal, which lead into another
    /// table than its placements.
    cross: Option<Plain<'a, V>>,
    /// The opponent's stones, which the children of `plain` and `cross` keep.
    opp: Bits,
    /// The other children's indexes and values, by (placed, removed).
    kids: &'a [[Option<(SubspaceIndex, &'a V::Whole)>; 3]; 2],
    /// Each other child as (its mover's stones, its opponent's, whether a stone was placed).
    other: [(Bits, Bits, bool); GATHER],
    other_len: usize,
    /// The best key of the children valued so far.
    best: i32,
    /// Whether some move took the opponent below 3 stones.
    wins_now: bool,
    /// The opponent's stones on the board and in hand before the move.
    o_stones: u8,
    oh: u8,
}

impl<'a, V: Grade> Children<'a, V> {
    /// Starts the next position, whose opponent has `opp` stones.
    #[inline(always)]
    fn start(&mut self, opp: Bits) {
        self.opp = opp;
        self.plain.start(opp);
        if let Some(c) = &mut self.cross {
            c.start(opp);
        }
        self.best = NO_KEY;
        self.wins_now = false;
    }

    /// Stores the children without removal of one group of moves: the mover's stones
    /// `base` with one of `dests` added; `cross` for a Lasker placement sector's slides.
    #[inline(always)]
    fn add_plain(&mut self, base: Bits, dests: Bits, cross: bool) {
        if cross {
            self.cross.as_mut().expect("a Lasker placement sector's slides have a sector").add(base, dests, self.opp, &mut self.best);
        } else {
            self.plain.add(base, dests, self.opp, &mut self.best);
        }
    }

    /// Stores another child: `mover` its side to move's stones (our opponent's after
    /// the move), `opp` its opponent's, `placed` whether the move placed a stone.
    #[inline(always)]
    fn add_other(&mut self, mover: Bits, opp: Bits, placed: bool) {
        self.other[self.other_len % GATHER] = (mover, opp, placed);
        self.other_len += 1;
        if self.other_len == GATHER {
            self.value_other();
        }
    }

    /// Values the gathered other children: captures, and a Lasker placement sector's
    /// slides. A child whose side to move is left with fewer than 3 stones is a win
    /// now for the mover, and has no table.
    #[cold]
    #[inline(never)]
    fn value_other(&mut self) {
        let mut best = self.best;
        // One preparation per child index: it belongs to the index that made it.
        let mut capture = [CaptureIndex::default(); 6];
        for k in 0..self.other_len {
            let (mover, opp, placed) = self.other[k];
            let left = mover.count_ones() as u8;
            if left + self.oh < 3 {
                self.wins_now = true;
                continue;
            }
            let (placed, removed) = (placed as usize, (self.o_stones - left) as usize);
            let (index, values) = self.kids[placed][removed].as_ref().expect("every child is in a child sector");
            best = best.max(V::parent_key(values, capture[placed * 3 + removed].index(index, mover, opp)));
        }
        self.best = best;
        self.other_len = 0;
    }

    /// Values what is still gathered; then `best` and `wins_now` hold the position's.
    #[inline(always)]
    fn finish(&mut self) {
        if self.plain.len > 0 {
            self.plain.value(self.opp, &mut self.best);
        }
        if let Some(c) = self.cross.as_mut().filter(|c| c.len > 0) {
            c.value(self.opp, &mut self.best);
        }
        if self.other_len > 0 {
            self.value_other();
        }
    }
}

/// Checks every position of `sector` against its children's values; `loaded` holds
/// the whole tables of `sector` and of every sector its moves lead into.
pub(super) fn check<V: Grade>(game: &Game, sector: Sector, loaded: &HashMap<Sector, V::Whole>, progress: &dyn Progress) -> Outcome<V> {
    let board = game.rules().board();
    let idx = sector.index(board);
    let own = &loaded[&sector];
    let ply = Ply { white_hand: sector.sh, black_hand: sector.oh, to_move: Color::White };
    // Each child sector's index and values by whether the move placed a stone and how
    // many it removed, which its stone counts give: looked up once, not per child.
    let kids: [[Option<(SubspaceIndex, &V::Whole)>; 3]; 2] = std::array::from_fn(|placed| {
        std::array::from_fn(|removed| {
            let (placed, removed) = (placed as u8, removed as u8);
            let child = Sector { s: sector.o.checked_sub(removed)?, o: sector.s + placed, sh: sector.oh, oh: sector.sh.checked_sub(placed)? };
            sector.children(game).contains(&child).then(|| (child.index(board), &loaded[&child]))
        })
    });
    // Most moves lead to the plain child: a placement's, or in the movement phase a
    // slide's, without removal. It keeps the opponent's stones, which become its side
    // to move's, so its index is prepared once a position; a child with one fewer
    // cannot be prepared from them. Under Lasker rules a placement sector's slides
    // without removal lead to another child.
    let places = sector.places();
    let (plain, plain_values) = kids[places as usize][0].as_ref().map(|(x, v)| (x, *v)).expect("a move without removal leads to a sector of the game");
    let (oh, o_stones) = (sector.oh, sector.o);
    let (full_draw, full) = (game.full_board_draw(), game.full());
    let found = Mutex::new(Vec::new());
    let n = idx.len();
    progress.begin(&format!("verify {sector}"), n);
    let (checked, bad): (u64, u64) = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            crate::cpu::fast!({
                let (mut checked, mut bad) = (0u64, 0u64);
                let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                let mut kids_of = Children::<V> {
                    plain: Plain::new(*plain, plain_values),
                    cross: kids[0][0].as_ref().filter(|_| places).map(|(x, v)| Plain::new(*x, *v)),
                    opp: 0,
                    kids: &kids,
                    other: [(0, 0, false); GATHER],
                    other_len: 0,
                    best: NO_KEY,
                    wins_now: false,
                    o_stones,
                    oh,
                };
                for (i, m, o) in idx.walk(start, end) {
                    if idx.may_be_hole(i) && idx.is_hole_of(i, m, o) {
                        continue; // a don't-care entry
                    }
                    kids_of.start(o);
                    let gather = &mut kids_of;
                    // `move`: the closure holds its own copies of `m`, `o` and `places`.
                    for_each_ply_group(
                        game,
                        ply,
                        m,
                        o,
                        #[inline(always)]
                        move |from, plain, closing| {
                            let placed = from == NONE;
                            let base = if placed { m } else { m ^ (1 << from) };
                            // A Lasker placement sector's slides lead to another sector.
                            gather.add_plain(base, plain, placed != places);
                            for to in BitIter(closing) {
                                for_each_ply_capture(game, ply, from, to as u8, m, o, |mv, after, opp_after| gather.add_other(opp_after, after, mv.from == NONE));
                            }
                        },
                    );
                    kids_of.finish();
                    let (best, wins_now) = (kids_of.best, kids_of.wins_now);
                    // Every child valued gives a key above `NO_KEY`.
                    let blocked = best == NO_KEY && !wins_now;
                    let expected = if wins_now {
                        V::WIN_NOW
                    } else if blocked && full_draw && m | o == full {
                        V::DRAW
                    } else if blocked {
                        V::LOST
                    } else {
                        V::of_key(best)
                    };
                    let stored = V::at(own, i);
                    checked += 1;
                    if expected != stored {
                        bad += 1;
                        let mut f = found.lock().unwrap();
                        if f.len() < KEEP {
                            let position = Position::unchecked(game.rules(), m, o, sector.sh, sector.oh, Color::White);
                            f.push(Mismatch { sector, slot: i, position: position.to_string(), stored, expected });
                        }
                    }
                }
                progress.advance(end - start);
                (checked, bad)
            })
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    Outcome { checked, mismatches: found.into_inner().unwrap(), mismatch_count: bad }
}

#[cfg(test)]
mod tests {
    use super::GATHER;
    use crate::position::value::Value;
    use crate::probe::Tablebase;
    use crate::solve::generate::{run, Options};
    use crate::solve::progress::NoProgress;
    use crate::table::{table_path, write_table, TableFile};
    use crate::{Rules, Sector, Stats};

    /// With gathers of 4, most positions are valued in several batches, of plain
    /// children and of others (captures, Lasker's slides during placement, double
    /// removals) alike: every table of games that have all of them still verifies, and
    /// a wrong value planted in a flying subspace is found.
    #[test]
    fn positions_valued_in_batches_verify() {
        assert_eq!(GATHER, 4);
        for (rules, starts, max_stones) in [("lasker,take=each", vec![(3, 3)], 0), ("standard", vec![], 7)] {
            let rules: Rules = rules.parse().unwrap();
            let dir = tempfile::tempdir().unwrap();
            let reports = run(&Options { dir: dir.path().to_owned(), max_stones, only: None, starts, rules }, &NoProgress).unwrap();
            let sectors: Vec<Sector> = reports.iter().map(|r| r.sector).collect();
            let tb = Tablebase::with_rules(dir.path(), rules, crate::CACHE_BLOCKS).unwrap();
            let ok = crate::verify::verify_sectors::<Value>(&tb, &sectors, &NoProgress).unwrap();
            assert_eq!(ok.mismatch_count, 0, "{rules}: {:?}", ok.mismatches.first());
            assert_eq!(ok.checked, reports.iter().map(|r| r.stats.positions).sum::<u64>());
            if max_stones == 0 {
                continue;
            }
            let sector: Sector = "3-3".parse().unwrap();
            let file = TableFile::open(&table_path(dir.path(), sector), sector, &rules).unwrap();
            let mut values = file.read_all().unwrap();
            drop(file);
            let index = sector.index(rules.board());
            let slot = (0..values.len() as u64).find(|&i| values[i as usize] != 0 && !(index.may_be_hole(i) && index.is_hole(i))).unwrap();
            values[slot as usize] = 0;
            write_table(dir.path(), &rules, sector, &values, &Stats::of(&index, &values)).unwrap();
            let tb = Tablebase::with_rules(dir.path(), rules, crate::CACHE_BLOCKS).unwrap();
            let bad = crate::verify::verify_sectors::<Value>(&tb, &[sector], &NoProgress).unwrap();
            assert!(bad.mismatches.iter().any(|m| m.slot == slot), "{:?}", bad.mismatches);
        }
    }
}
