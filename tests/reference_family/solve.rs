//! The solver: dense tables of raw positions per sector, solved pair by pair
//! (a sector with its mirror) in dependency order, by synchronous value
//! iteration with forward move generation.

use super::index::{binom, expand, masks_with, raw_index, sector_len};
use super::moves::{for_each_child, terminal, Terminal};
use super::rules::RefRules;
use super::{RawPos, RefSolution, RefValue};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `(s, o, sh, oh)`: stones on the board and in hand, side to move first.
pub type Sector = (u32, u32, u32, u32);

pub fn sector_of(p: &RawPos) -> Sector {
    (p.mover.count_ones(), p.opp.count_ones(), p.mover_hand, p.opp_hand)
}

pub fn mirror((s, o, sh, oh): Sector) -> Sector {
    (o, s, oh, sh)
}

/// Order in which sectors must be solved: every child of a sector that is not
/// in its pair (a placement, or a removal) has a smaller key: a placement
/// lowers the stones in hand, a removal the stones on the board while the
/// hands stay. A move without removal keeps the key and goes to the mirror.
fn key((s, o, sh, oh): Sector) -> (u32, u32) {
    (sh + oh, s + o)
}

// ---------------------------------------------------------------------------
// Value codes (2 bytes a position)
// ---------------------------------------------------------------------------

/// Not (yet) determined; a draw once the iteration is over.
pub const DRAW: u16 = 0;
pub const WIN: u16 = 0x8000;
pub const LOSS: u16 = 0x4000;
const DEPTH: u16 = 0x3fff;

pub fn decode(code: u16) -> RefValue {
    match code & !DEPTH {
        WIN => RefValue::Win((code & DEPTH) as u32),
        LOSS => RefValue::Loss((code & DEPTH) as u32),
        _ => {
            assert_eq!(code, DRAW, "bad value code");
            RefValue::Draw
        }
    }
}

/// Depth of a decided value.
fn depth(code: u16) -> Option<u16> {
    (code != DRAW).then_some(code & DEPTH)
}

// ---------------------------------------------------------------------------
// Solver
// ---------------------------------------------------------------------------

/// Sector numbers are at most 12 (12 stones a side at most).
const SLOT_BASE: usize = 13;

fn slot((s, o, sh, oh): Sector) -> usize {
    ((s as usize * SLOT_BASE + o as usize) * SLOT_BASE + sh as usize) * SLOT_BASE + oh as usize
}

/// Solves sectors (with everything they lead into) and keeps their tables,
/// so that several starts of one rule set share the work.
pub struct Solver {
    pub rules: RefRules,
    n: u32,
    /// Values of solved sectors, indexed by `raw_index`, by `slot(sector)`.
    tables: Vec<Option<Arc<Vec<u16>>>>,
    /// Solved sectors, in the order solved.
    pub solved: Vec<Sector>,
    /// Wall time of each pair solved (keyed by its first sector).
    pub timings: Vec<(Sector, Duration)>,
    pub verbose: bool,
}

/// What the evaluation of a position in one round found.
enum Found {
    Value(u16),
    /// A terminal draw: decided, and it stays a draw.
    TerminalDraw,
}

impl Solver {
    pub fn new(rules: &RefRules) -> Solver {
        Solver {
            rules: *rules,
            n: rules.points() as u32,
            tables: vec![None; SLOT_BASE.pow(4)],
            solved: Vec::new(),
            timings: Vec::new(),
            verbose: std::env::var_os("REF_VERBOSE").is_some(),
        }
    }

    pub fn is_solved(&self, sec: Sector) -> bool {
        self.tables[slot(sec)].is_some()
    }

    /// Final value of a position of a solved sector, or of a finished game
    /// (side to move below 3 stones).
    pub fn value(&self, pos: &RawPos) -> Option<RefValue> {
        if pos.mover.count_ones() + pos.mover_hand < 3 {
            return Some(RefValue::Loss(0));
        }
        let t = self.tables[slot(sector_of(pos))].as_ref()?;
        Some(decode(t[raw_index(self.n, pos.mover, pos.opp)]))
    }

    /// Sectors that the positions of `sec` can lead into (a superset: every
    /// sector a placement or move with 0, 1, .. removals could reach), less
    /// finished games (side to move below 3 stones).
    fn child_sectors(&self, (s, o, sh, oh): Sector) -> Vec<Sector> {
        let max_take = if self.rules.take_each {
            self.rules.geometry().mills_at.iter().map(|m| m.len() as u32).max().unwrap()
        } else {
            1
        };
        let mut out = Vec::new();
        for c in 0..=max_take.min(o) {
            if sh > 0 && s + o < self.n {
                out.push((o - c, s + 1, oh, sh - 1));
            }
            if s > 0 && (sh == 0 || self.rules.lasker) {
                out.push((o - c, s, oh, sh));
            }
        }
        out.retain(|&(cs, _, csh, _)| cs + csh >= 3);
        out
    }

    /// Solves `sec` and its mirror, after everything they lead into.
    pub fn solve_sector(&mut self, sec: Sector) {
        let (s, o, sh, oh) = sec;
        assert!(s + o <= self.n, "sector {sec:?} does not fit the board");
        assert!(s.max(o).max(sh).max(oh) < SLOT_BASE as u32, "sector {sec:?} too big");
        assert!(s + sh >= 3, "sector {sec:?}: the game is over");
        if self.is_solved(sec) {
            return;
        }
        let pair = [sec, mirror(sec)];
        for p in pair {
            for c in self.child_sectors(p) {
                if !pair.contains(&c) {
                    assert!(key(c) < key(p), "sector order broken: {p:?} -> {c:?}");
                    self.solve_sector(c);
                }
            }
        }
        let t0 = Instant::now();
        let subs: Vec<Sector> = if pair[0] == pair[1] { vec![sec] } else { pair.to_vec() };
        let values = self.solve_pair(&subs);
        let dt = t0.elapsed();
        if self.verbose {
            eprintln!("reference_family: solved {subs:?} in {:.2} s", dt.as_secs_f64());
        }
        self.timings.push((sec, dt));
        for (sub, v) in subs.into_iter().zip(values) {
            self.tables[slot(sub)] = Some(Arc::new(v));
            self.solved.push(sub);
        }
    }

    /// Current value code of a child: a finished game, a position of the
    /// pair being solved (`pair`, start-of-round values), or of a solved sector.
    #[inline]
    fn lookup(&self, pair: &[(Sector, &[u16])], c: &RawPos) -> u16 {
        if c.mover.count_ones() + c.mover_hand < 3 {
            return LOSS; // Loss(0)
        }
        let sec = sector_of(c);
        let idx = raw_index(self.n, c.mover, c.opp);
        for (psec, vals) in pair {
            if *psec == sec {
                return vals[idx];
            }
        }
        self.tables[slot(sec)].as_ref().expect("child sector solved first")[idx]
    }

    /// Evaluates one undetermined position in round `n`: only children of
    /// depth < n count as known.
    /// - `Win(n)` if some known child is a loss (of depth n-1: a shorter
    ///   one would have decided this position in an earlier round);
    /// - `Loss(n)` if every child is a known win (the deepest of depth n-1);
    ///   no children at all: blocked, `Loss(0)`;
    /// - terminal positions are decided in round 0.
    fn evaluate(&self, pos: &RawPos, n: u16, lookup: impl Fn(&RawPos) -> u16) -> Option<Found> {
        match terminal(&self.rules, pos) {
            Some(Terminal::Loss) => return Some(Found::Value(LOSS)),
            Some(Terminal::Draw) => return Some(Found::TerminalDraw),
            None => {}
        }
        let mut min_loss: Option<u16> = None;
        let mut max_win: Option<u16> = None;
        let mut all_known_wins = true;
        for_each_child(&self.rules, pos, |c| {
            let v = lookup(&c);
            match (v & !DEPTH, v & DEPTH) {
                (LOSS, d) if d < n => min_loss = Some(min_loss.map_or(d, |x| x.min(d))),
                (WIN, d) if d < n => max_win = Some(max_win.map_or(d, |x| x.max(d))),
                _ => all_known_wins = false,
            }
        });
        if let Some(d) = min_loss {
            assert_eq!(d + 1, n, "synchronous iteration invariant broken (win)");
            Some(Found::Value(WIN | n))
        } else if all_known_wins {
            let d = max_win.map_or(0, |d| d + 1);
            assert_eq!(d, n, "synchronous iteration invariant broken (loss)");
            Some(Found::Value(LOSS | n))
        } else {
            None
        }
    }

    /// Solves one pair (a sector and its mirror, or a sector that is its own
    /// mirror) given the solved sectors it leads into. Returns the values of
    /// each sector of `subs`, indexed by `raw_index` (mover major).
    ///
    /// Synchronous value iteration: round n computes, from the values at the
    /// start of the round, every position that gets depth n; all are written
    /// at the end of the round. What is still undetermined when no round can
    /// change anything any more is a draw.
    ///
    /// Work saving, exact: a position can only be decided in round n >= 1 if
    /// one of its children has depth exactly n-1 (see `evaluate`). Its
    /// children inside the pair are moves without removal, whose side to move
    /// is the position's opponent `p`: they lie in the block of the mirror
    /// sector whose mover is `p`. Its other children are final before the
    /// pair is solved. So a position is evaluated in round n only if that
    /// block got a value in round n-1 (`block_changed`), or some child outside
    /// the pair has depth n-1 (`events`, bit n; bit 63 stands for every round
    /// from 63 on). The state arrays `open` and `events` are kept in
    /// iteration order: opponent major, i.e. indexed by `raw_index(opp, mover)`.
    fn solve_pair(&self, subs: &[Sector]) -> Vec<Vec<u16>> {
        let n_pts = self.n;
        let full = self.rules.full();
        let partner: Vec<usize> = subs
            .iter()
            .map(|&a| subs.iter().position(|&b| b == mirror(a)).unwrap())
            .collect();
        let mut vals: Vec<Vec<u16>> = subs.iter().map(|&(s, o, _, _)| vec![DRAW; sector_len(n_pts, s, o)]).collect();
        let mut open: Vec<Vec<bool>> = subs.iter().map(|&(s, o, _, _)| vec![true; sector_len(n_pts, s, o)]).collect();
        // block_changed[k][colex(mover)]: a position of sector k with that
        // mover was decided in the previous round. All true before round 0.
        let mut block_changed: Vec<Vec<bool>> =
            subs.iter().map(|&(s, _, _, _)| vec![true; binom(n_pts, s) as usize]).collect();
        // iteration order: opponent masks, and movers squeezed onto the
        // points the opponent leaves free
        let opps: Vec<Vec<u32>> = subs.iter().map(|&(_, o, _, _)| masks_with(n_pts, o)).collect();
        let movers_c: Vec<Vec<u32>> = subs.iter().map(|&(s, o, _, _)| masks_with(n_pts - o, s)).collect();

        let event_bit = |r: u16| 1u64 << r.min(63);
        let pos_of = |k: usize, p: u32, c: u32| RawPos {
            mover: expand(c, full & !p),
            opp: p,
            mover_hand: subs[k].2,
            opp_hand: subs[k].3,
        };
        // events, and the last round at which an outside child appears
        let mut last_event: u16 = 0;
        let mut events: Vec<Vec<u64>> = Vec::new();
        for k in 0..subs.len() {
            let pair: Vec<(Sector, &[u16])> = subs.iter().zip(&vals).map(|(&s, v)| (s, &v[..])).collect();
            let mut ev = vec![0u64; vals[k].len()];
            let last = ev
                .par_chunks_mut(movers_c[k].len())
                .zip(&opps[k])
                .map(|(chunk, &p)| {
                    let mut last = 0u16;
                    for (slot, &c) in chunk.iter_mut().zip(&movers_c[k]) {
                        let pos = pos_of(k, p, c);
                        if terminal(&self.rules, &pos).is_some() {
                            continue;
                        }
                        for_each_child(&self.rules, &pos, |ch| {
                            if !subs.contains(&sector_of(&ch)) {
                                if let Some(d) = depth(self.lookup(&pair, &ch)) {
                                    *slot |= event_bit(d + 1);
                                    last = last.max(d + 1);
                                }
                            }
                        });
                    }
                    last
                })
                .max()
                .unwrap_or(0);
            last_event = last_event.max(last);
            events.push(ev);
        }

        let mut n: u16 = 0;
        loop {
            let pair: Vec<(Sector, &[u16])> = subs.iter().zip(&vals).map(|(&s, v)| (s, &v[..])).collect();
            let updates: Vec<Vec<(usize, usize, Found)>> = (0..subs.len())
                .map(|k| {
                    let nminor = movers_c[k].len();
                    let (open_k, events_k, changed) = (&open[k], &events[k], &block_changed[partner[k]]);
                    opps[k]
                        .par_iter()
                        .enumerate()
                        .flat_map_iter(|(rp, &p)| {
                            let dirty = changed[rp];
                            let mut out = Vec::new();
                            for (rc, &c) in movers_c[k].iter().enumerate() {
                                let it = rp * nminor + rc;
                                if !open_k[it] || !(dirty || events_k[it] & event_bit(n) != 0) {
                                    continue;
                                }
                                let pos = pos_of(k, p, c);
                                if let Some(f) = self.evaluate(&pos, n, |ch| self.lookup(&pair, ch)) {
                                    out.push((it, raw_index(n_pts, pos.mover, pos.opp), f));
                                }
                            }
                            out
                        })
                        .collect()
                })
                .collect();
            drop(pair);
            let decided: usize = updates.iter().map(|u| u.len()).sum();
            if self.verbose {
                eprintln!("  round {n}: decided {:?}", updates.iter().map(|u| u.len()).collect::<Vec<_>>());
            }
            for (k, ups) in updates.into_iter().enumerate() {
                let (s, o, _, _) = subs[k];
                let nminor_val = binom(n_pts - s, o) as usize;
                block_changed[k].iter_mut().for_each(|x| *x = false);
                for (it, idx, f) in ups {
                    open[k][it] = false;
                    if let Found::Value(v) = f {
                        debug_assert_eq!(vals[k][idx], DRAW);
                        vals[k][idx] = v;
                        block_changed[k][idx / nminor_val] = true;
                    }
                }
            }
            // After a round that decided nothing, values can only change
            // again when an outside child becomes visible.
            if decided == 0 && n >= last_event {
                break;
            }
            n += 1;
            assert!(n < DEPTH, "depth overflow");
        }
        vals
    }

    /// The value every position must have given its children's values
    /// (read back from the solved tables): the game equations.
    /// - terminal: `Loss(0)`, or a draw on a full board under `full-board=draw`;
    /// - `Win(d+1)`, d the shortest loss among the children;
    /// - else `Loss(d+1)` if every child is a win, d the longest (`Loss(0)`
    ///   without children: blocked);
    /// - else a draw.
    ///
    /// With finite depths these equations have one solution only (induction
    /// on depth), so a table that satisfies them is right given the move rules.
    pub fn expected(&self, pos: &RawPos) -> RefValue {
        match terminal(&self.rules, pos) {
            Some(Terminal::Loss) => return RefValue::Loss(0),
            Some(Terminal::Draw) => return RefValue::Draw,
            None => {}
        }
        let mut min_loss: Option<u32> = None;
        let mut max_win: Option<u32> = None;
        let mut all_wins = true;
        for_each_child(&self.rules, pos, |c| {
            match self.value(&c).expect("child solved") {
                RefValue::Loss(d) => min_loss = Some(min_loss.map_or(d, |x| x.min(d))),
                RefValue::Win(d) => max_win = Some(max_win.map_or(d, |x| x.max(d))),
                RefValue::Draw => all_wins = false,
            }
        });
        if let Some(d) = min_loss {
            RefValue::Win(d + 1)
        } else if all_wins {
            RefValue::Loss(max_win.map_or(0, |d| d + 1))
        } else {
            RefValue::Draw
        }
    }

    /// Re-derives every value of every solved sector from its children
    /// (`expected`). Panics at the first mismatch; returns the number of
    /// positions checked.
    pub fn verify(&self) -> usize {
        let full = self.rules.full();
        let mut checked = 0;
        for &sec in &self.solved {
            let (s, o, sh, oh) = sec;
            let movers = masks_with(self.n, s);
            let minors = masks_with(self.n - s, o);
            movers.par_iter().for_each(|&m| {
                for &c in &minors {
                    let pos = RawPos {
                        mover: m,
                        opp: expand(c, full & !m),
                        mover_hand: sh,
                        opp_hand: oh,
                    };
                    let got = self.value(&pos).unwrap();
                    let want = self.expected(&pos);
                    assert_eq!(
                        got,
                        want,
                        "sector {sec:?}: mover {:?} opponent {:?}",
                        self.rules.names_of(pos.mover),
                        self.rules.names_of(pos.opp)
                    );
                }
            });
            checked += movers.len() * minors.len();
        }
        checked
    }

    /// Every raw position of the movement sector s-o (solved with all it
    /// leads into).
    pub fn solve_movement(&mut self, s: u32, o: u32) -> RefSolution {
        assert!(s >= 3 && o >= 3, "movement sector {s}-{o}: a side below 3 stones has lost");
        let sec = (s, o, 0, 0);
        self.solve_sector(sec);
        RefSolution::new(self.n, None, vec![(sec, self.tables[slot(sec)].clone().unwrap(), None)])
    }

    /// Every position reachable from the start: an empty board, the first
    /// player to move with `wk` stones in hand, the second with `bk`.
    /// Finished games (a side to move below 3 stones) are not positions of
    /// the solution.
    pub fn solve_start(&mut self, wk: u32, bk: u32) -> RefSolution {
        assert!(wk >= 3 && bk >= 3, "each side needs at least 3 stones");
        assert!(wk + bk <= self.n, "{wk}+{bk} stones do not fit the board");
        let start_sec = (0, 0, wk, bk);
        self.solve_sector(start_sec);
        let start = RawPos {
            mover: 0,
            opp: 0,
            mover_hand: wk,
            opp_hand: bk,
        };

        // Forward enumeration, breadth first, one bit a position.
        use std::sync::atomic::{AtomicU64, Ordering};
        let marks: Vec<Option<Vec<AtomicU64>>> = (0..self.tables.len())
            .map(|i| {
                self.tables[i]
                    .as_ref()
                    .map(|t| (0..t.len().div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
            })
            .collect();
        let mark = |p: &RawPos| -> bool {
            let idx = raw_index(self.n, p.mover, p.opp);
            let bitset = marks[slot(sector_of(p))].as_ref().expect("reachable sector solved");
            let bit = 1u64 << (idx % 64);
            bitset[idx / 64].fetch_or(bit, Ordering::Relaxed) & bit == 0
        };
        mark(&start);
        let mut frontier = vec![start];
        while !frontier.is_empty() {
            frontier = frontier
                .par_iter()
                .flat_map_iter(|pos| {
                    let mut next = Vec::new();
                    if terminal(&self.rules, pos).is_none() {
                        for_each_child(&self.rules, pos, |c| {
                            if c.mover.count_ones() + c.mover_hand >= 3 && mark(&c) {
                                next.push(c);
                            }
                        });
                    }
                    next
                })
                .collect();
        }
        let mut sectors = Vec::new();
        for &sec in &self.solved {
            let bitset: Vec<u64> = marks[slot(sec)]
                .as_ref()
                .unwrap()
                .iter()
                .map(|a| a.load(Ordering::Relaxed))
                .collect();
            if bitset.iter().any(|&w| w != 0) {
                sectors.push((sec, self.tables[slot(sec)].clone().unwrap(), Some(bitset)));
            }
        }
        RefSolution::new(self.n, Some(start), sectors)
    }
}
