//! The solver: dense tables of raw positions per sector, solved pair by pair
//! (a sector with its mirror) in dependency order, by synchronous value
//! iteration with forward move generation.

use super::index::{binom, bits, expand, masks_with, raw_index, raw_index_so, sector_len, SameMover};
use super::moves::{for_each_child, terminal, Terminal};
use super::rules::RefRules;
use super::{RawPos, RefSolution, RefValue};
use rayon::prelude::*;
use std::collections::HashSet;
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
    /// The pairs solved together, in the order solved.
    pub solved_pairs: Vec<Vec<Sector>>,
    /// Wall time of each pair solved (keyed by its first sector).
    pub timings: Vec<(Sector, Duration)>,
    pub verbose: bool,
    /// For a solver made by `reaching`: its start, and by `slot(sector)` the
    /// positions reachable from it (a bit a position by `raw_index`). Only
    /// those are solved; the values of the others are left undefined.
    start: Option<RawPos>,
    reach: Option<Vec<Option<Vec<u64>>>>,
}

/// What a look at a position in one round found.
enum Found {
    Value(u16),
    /// A terminal draw: decided, and it stays a draw.
    TerminalDraw,
}

struct Scan {
    found: Option<Found>,
    /// A child in the pair that is still undecided (its index in its
    /// sector), or `NO_WITNESS`.
    witness: u32,
    /// Rounds in which a child outside the pair becomes visible: bit d+1
    /// for a child of depth d (see `event_bit`); losses and wins apart.
    events: Events,
    /// The last of those rounds.
    last_event: u16,
}

const NO_WITNESS: u32 = u32::MAX;

/// Rounds at which children outside the pair become visible, as masks of
/// `event_bit`: children that are losses (`loss`) and wins (`win`).
#[derive(Clone, Copy, Default)]
struct Events {
    loss: u64,
    win: u64,
}

/// Bit of an event mask for round `r` (rounds from 63 on share bit 63,
/// which then means "look in every round from 63 on").
fn event_bit(r: u16) -> u64 {
    1u64 << r.min(63)
}

impl Solver {
    pub fn new(rules: &RefRules) -> Solver {
        Solver {
            rules: *rules,
            n: rules.points() as u32,
            tables: vec![None; SLOT_BASE.pow(4)],
            solved: Vec::new(),
            solved_pairs: Vec::new(),
            timings: Vec::new(),
            verbose: std::env::var_os("REF_VERBOSE").is_some(),
            start: None,
            reach: None,
        }
    }

    /// A solver for one start (an empty board, the first player to move
    /// with `wk` stones in hand, the second with `bk`) that solves only the
    /// positions reachable from it: they are found first, by forward
    /// enumeration (`reachable`). The children of a reachable position are
    /// reachable, so these values are the same as those of a whole solve.
    pub fn reaching(rules: &RefRules, wk: u32, bk: u32) -> Solver {
        let mut sv = Solver::new(rules);
        assert!(wk >= 3 && bk >= 3, "each side needs at least 3 stones");
        assert!(wk + bk <= sv.n, "{wk}+{bk} stones do not fit the board");
        let start = RawPos { mover: 0, opp: 0, mover_hand: wk, opp_hand: bk };
        let pairs = sv.plan(sector_of(&start));
        let sectors: Vec<Sector> = pairs.iter().flatten().copied().collect();
        let bits = reachable(rules, &start, &sectors, &pairs);
        let mut reach = vec![None; SLOT_BASE.pow(4)];
        for (sec, b) in sectors.into_iter().zip(bits) {
            reach[slot(sec)] = Some(b);
        }
        sv.start = Some(start);
        sv.reach = Some(reach);
        sv
    }

    /// Is position `idx` of sector `sec` one this solver solves?
    fn wanted(&self, sec: Sector, idx: usize) -> bool {
        match &self.reach {
            None => true,
            Some(r) => r[slot(sec)].as_ref().is_some_and(|b| b[idx / 64] & (1 << (idx % 64)) != 0),
        }
    }

    /// The pairs that `sec` leads into, `sec`'s own last, children first:
    /// the order in which `solve_sector` solves them.
    pub fn plan(&self, sec: Sector) -> Vec<Vec<Sector>> {
        fn visit(sv: &Solver, sec: Sector, seen: &mut HashSet<Sector>, out: &mut Vec<Vec<Sector>>) {
            if !seen.insert(sec) {
                return;
            }
            seen.insert(mirror(sec));
            let pair = [sec, mirror(sec)];
            for p in pair {
                for c in sv.child_sectors(p) {
                    if !pair.contains(&c) {
                        visit(sv, c, seen, out);
                    }
                }
            }
            out.push(if pair[0] == pair[1] { vec![sec] } else { pair.to_vec() });
        }
        let mut out = Vec::new();
        visit(self, sec, &mut HashSet::new(), &mut out);
        out
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
        let sec = sector_of(pos);
        let t = self.tables[slot(sec)].as_ref()?;
        let idx = raw_index(self.n, pos.mover, pos.opp);
        self.wanted(sec, idx).then(|| decode(t[idx]))
    }

    /// Sectors that the positions of `sec` can lead into (a superset: every
    /// sector a placement or move with 0, 1, .. removals could reach), less
    /// finished games (side to move below 3 stones).
    pub fn child_sectors(&self, (s, o, sh, oh): Sector) -> Vec<Sector> {
        let max_take = if self.rules.take_each { self.rules.geometry().mills_at.iter().map(|m| m.len() as u32).max().unwrap() } else { 1 };
        let mut out = Vec::new();
        for c in 0..=max_take.min(o) {
            if sh > 0 && s + o < self.n {
                out.push((o - c, s + 1, oh, sh - 1));
            }
            // (on a full board nothing can move)
            if s > 0 && (sh == 0 || self.rules.lasker) && s + o < self.n {
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
        if let Some(r) = &self.reach {
            assert!(r[slot(sec)].is_some(), "sector {sec:?} is not reached from this solver's start");
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
        self.solved_pairs.push(subs.clone());
        for (sub, v) in subs.into_iter().zip(values) {
            self.tables[slot(sub)] = Some(Arc::new(v));
            self.solved.push(sub);
        }
    }

    /// Where a child lives and its current value code: a finished game
    /// (side to move below 3 stones: `Loss(0)`), a position of the pair being
    /// solved (`pair`: start-of-round values), or one of a solved sector.
    /// Returns (code, Some((which sector of the pair, index)) if the child
    /// is in the pair).
    /// `same` speeds up the index of children whose side to move is `same.mover`.
    #[inline]
    fn lookup(&self, pair: &[(Sector, &[u16])], c: &RawPos, same: &SameMover) -> (u16, Option<(usize, usize)>) {
        let s = if c.mover == same.mover { same.s } else { c.mover.count_ones() };
        if s + c.mover_hand < 3 {
            return (LOSS, None); // Loss(0)
        }
        let o = c.opp.count_ones();
        let sec = (s, o, c.mover_hand, c.opp_hand);
        let idx = if c.mover == same.mover { same.index(self.n, c.opp) } else { raw_index_so(self.n, s, o, c.mover, c.opp) };
        for (k, (psec, vals)) in pair.iter().enumerate() {
            if *psec == sec {
                return (vals[idx], Some((k, idx)));
            }
        }
        let table = self.tables[slot(sec)].as_ref().expect("child sector solved first");
        (table[idx], None)
    }

    /// Looks at an undecided position in round `n`, from the start-of-round
    /// values of its children; only children of depth < n count as known.
    /// - `Win(n)` if some known child is a loss (of depth n-1: a shorter
    ///   one would have decided this position in an earlier round);
    /// - `Loss(n)` if every child is a known win (the deepest of depth n-1);
    ///   no children at all: blocked, `Loss(0)`;
    /// - terminal positions are decided in round 0.
    ///
    /// Also returns, for the skip rule of `solve_pair`, a witness (a child in
    /// the pair that is still undecided) and the events of the children
    /// outside the pair.
    fn scan(&self, pos: &RawPos, n: u16, pair: &[(Sector, &[u16])], mirror_k: usize) -> Scan {
        let mut scan = Scan { found: None, witness: NO_WITNESS, events: Events::default(), last_event: 0 };
        match terminal(&self.rules, pos) {
            Some(Terminal::Loss) => scan.found = Some(Found::Value(LOSS)),
            Some(Terminal::Draw) => scan.found = Some(Found::TerminalDraw),
            None => {}
        }
        if scan.found.is_some() {
            return scan;
        }
        let mut min_loss: Option<u16> = None;
        let mut max_win: Option<u16> = None;
        let mut all_known_wins = true;
        let same = SameMover::new(pos.opp);
        for_each_child(&self.rules, pos, |c| {
            let (v, in_pair) = self.lookup(pair, &c, &same);
            match in_pair {
                Some((k, idx)) if v == DRAW && scan.witness == NO_WITNESS => {
                    // a move without removal: the mirror sector (see solve_pair)
                    assert_eq!(k, mirror_k, "a child of the pair outside the mirror sector");
                    scan.witness = idx as u32
                }
                None if v != DRAW => {
                    let r = (v & DEPTH) + 1;
                    if v & WIN != 0 {
                        scan.events.win |= event_bit(r);
                    } else {
                        scan.events.loss |= event_bit(r);
                    }
                    scan.last_event = scan.last_event.max(r);
                }
                _ => {}
            }
            match (v & !DEPTH, v & DEPTH) {
                (LOSS, d) if d < n => min_loss = Some(min_loss.map_or(d, |x| x.min(d))),
                (WIN, d) if d < n => max_win = Some(max_win.map_or(d, |x| x.max(d))),
                _ => all_known_wins = false,
            }
        });
        scan.found = if let Some(d) = min_loss {
            assert_eq!(d + 1, n, "synchronous iteration invariant broken (win)");
            Some(Found::Value(WIN | n))
        } else if all_known_wins {
            let d = max_win.map_or(0, |d| d + 1);
            assert_eq!(d, n, "synchronous iteration invariant broken (loss)");
            Some(Found::Value(LOSS | n))
        } else {
            None
        };
        scan
    }

    /// Solves one pair (a sector and its mirror, or a sector that is its own
    /// mirror) given the solved sectors it leads into. Returns the values of
    /// each sector of `subs`, indexed by `raw_index` (mover major).
    ///
    /// Synchronous value iteration: round n computes, from the values at the
    /// start of the round, every position that gets depth n; all are written
    /// at the end of the round. Round 0 looks at every position. What is
    /// still undecided when no round can change anything any more is a draw.
    ///
    /// Work saving, exact: a position can only be decided in round n >= 1 if
    /// one of its children has depth exactly n-1 (see `scan`):
    /// - a `Win(n)` needs a child `Loss(n-1)`;
    /// - a `Loss(n)` needs every child to be a win, the last of them `Win(n-1)`.
    ///
    /// A position's children inside the pair are moves without removal, whose
    /// side to move is the position's opponent `p`: they all lie in the block
    /// of the mirror sector whose mover is `p`. Its other children are final
    /// before the pair is solved. So an undecided position is looked at again
    /// in round n only if
    /// - (for a win) its block got a loss in round n-1 (`got_loss`), or a
    ///   child outside the pair is a loss of depth n-1 (`events.loss`, bit n;
    ///   bit 63 stands for every round from 63 on);
    /// - (for a loss) its witness, a child in the pair that was undecided
    ///   when the position was last looked at, has been decided since, and
    ///   its block got a win in round n-1 (`got_win`) or a child outside the
    ///   pair is a win of depth n-1 (`events.win`). While the witness is
    ///   undecided the position has a child that is not a win, so it cannot
    ///   be a loss. (A witness decided in an earlier round n' set its
    ///   block's flag in n', which led to a new look and a new witness in
    ///   round n'+1.) A position without a witness has no undecided child in
    ///   the pair: it is looked at again on a win of a child outside the pair.
    ///
    /// A chunk of positions with the same opponent whose block has no flag
    /// and none of whose positions has an event in round n is skipped whole.
    ///
    /// The per-position state (`open`, `witness`, `events`) is kept in
    /// iteration order, opponent major (indexed like `raw_index(opp, mover)`),
    /// and written in place; values are written at the end of each round.
    fn solve_pair(&self, subs: &[Sector]) -> Vec<Vec<u16>> {
        let n_pts = self.n;
        let full = self.rules.full();
        let partner: Vec<usize> = subs.iter().map(|&a| subs.iter().position(|&b| b == mirror(a)).unwrap()).collect();
        let lens: Vec<usize> = subs.iter().map(|&(s, o, _, _)| sector_len(n_pts, s, o)).collect();
        assert!(lens.iter().all(|&l| l < NO_WITNESS as usize), "sector too big for u32 witnesses");
        let mut vals: Vec<Vec<u16>> = lens.iter().map(|&l| vec![DRAW; l]).collect();
        let mut open: Vec<Vec<bool>> = lens.iter().map(|&l| vec![true; l]).collect();
        let mut witness: Vec<Vec<u32>> = lens.iter().map(|&l| vec![NO_WITNESS; l]).collect();
        let mut events: Vec<Vec<Events>> = lens.iter().map(|&l| vec![Events::default(); l]).collect();
        // got_loss/got_win[k][colex(mover)]: a position of sector k with that
        // mover got a loss/win in the previous round
        let mut got_loss: Vec<Vec<bool>> = subs.iter().map(|&(s, _, _, _)| vec![false; binom(n_pts, s) as usize]).collect();
        let mut got_win = got_loss.clone();
        // iteration order: opponent masks, and movers squeezed onto the
        // points the opponent leaves free
        let opps: Vec<Vec<u32>> = subs.iter().map(|&(_, o, _, _)| masks_with(n_pts, o)).collect();
        let movers_c: Vec<Vec<u32>> = subs.iter().map(|&(s, o, _, _)| masks_with(n_pts - o, s)).collect();
        let mut last_event: u16 = 0;
        // chunk_events[k][rank(p)]: the events of all positions of sector k
        // whose opponent is p, or-ed together (a chunk of them without flags
        // and events in a round is skipped whole)
        let mut chunk_events: Vec<Vec<u64>> = opps.iter().map(|o| vec![0u64; o.len()]).collect();

        let mut n: u16 = 0;
        loop {
            let pair: Vec<(Sector, &[u16])> = subs.iter().zip(&vals).map(|(&s, v)| (s, &v[..])).collect();
            let mut decided: Vec<Vec<(usize, u16)>> = Vec::new();
            let mut looked = Vec::new();
            for k in 0..subs.len() {
                let (_, _, sh, oh) = subs[k];
                let nminor = movers_c[k].len();
                let (loss_k, win_k, mirror_vals) = (&got_loss[partner[k]], &got_win[partner[k]], pair[partner[k]].1);
                let chunk_ev = &chunk_events[k];
                let results: Vec<(Vec<(usize, u16)>, u16, usize, u64)> = open[k]
                    .par_chunks_mut(nminor)
                    .zip(witness[k].par_chunks_mut(nminor))
                    .zip(events[k].par_chunks_mut(nminor))
                    .zip(&opps[k])
                    .enumerate()
                    .map(|(rp, (((open_c, witness_c), events_c), &p))| {
                        let mut out = Vec::new();
                        let mut last = 0u16;
                        let mut count = 0;
                        let mut chunk_or = 0u64;
                        if n > 0 && !loss_k[rp] && !win_k[rp] && chunk_ev[rp] & event_bit(n) == 0 {
                            return (out, last, count, chunk_or);
                        }
                        for (rc, &c) in movers_c[k].iter().enumerate() {
                            if !open_c[rc] {
                                continue;
                            }
                            let (w, ev) = (witness_c[rc], events_c[rc]);
                            let witness_decided = w != NO_WITNESS && mirror_vals[w as usize] != DRAW;
                            let look = n == 0
                                || loss_k[rp]
                                || ev.loss & event_bit(n) != 0
                                || (win_k[rp] && witness_decided)
                                || (ev.win & event_bit(n) != 0 && (w == NO_WITNESS || witness_decided));
                            if !look {
                                continue;
                            }
                            let pos = RawPos { mover: expand(c, full & !p), opp: p, mover_hand: sh, opp_hand: oh };
                            if n == 0 && !self.wanted(subs[k], raw_index(n_pts, pos.mover, p)) {
                                open_c[rc] = false;
                                continue;
                            }
                            count += 1;
                            let sc = self.scan(&pos, n, &pair, partner[k]);
                            witness_c[rc] = sc.witness;
                            if n == 0 {
                                events_c[rc] = sc.events;
                                last = last.max(sc.last_event);
                                chunk_or |= sc.events.loss | sc.events.win;
                            }
                            match sc.found {
                                None => {}
                                Some(Found::TerminalDraw) => open_c[rc] = false,
                                Some(Found::Value(v)) => {
                                    open_c[rc] = false;
                                    out.push((raw_index(n_pts, pos.mover, p), v));
                                }
                            }
                        }
                        (out, last, count, chunk_or)
                    })
                    .collect();
                let mut dk = Vec::new();
                let mut lk = 0;
                for (rp, (out, last, count, chunk_or)) in results.into_iter().enumerate() {
                    if n == 0 {
                        chunk_events[k][rp] = chunk_or;
                    }
                    dk.extend(out);
                    last_event = last_event.max(last);
                    lk += count;
                }
                decided.push(dk);
                looked.push(lk);
            }
            drop(pair);
            let total: usize = decided.iter().map(|d| d.len()).sum();
            if self.verbose {
                eprintln!("  round {n}: looked at {looked:?}, decided {:?}", decided.iter().map(|d| d.len()).collect::<Vec<_>>());
            }
            for (k, dk) in decided.into_iter().enumerate() {
                let (s, o, _, _) = subs[k];
                let nminor_val = binom(n_pts - s, o) as usize;
                got_loss[k].iter_mut().for_each(|x| *x = false);
                got_win[k].iter_mut().for_each(|x| *x = false);
                for (idx, v) in dk {
                    debug_assert_eq!(vals[k][idx], DRAW);
                    vals[k][idx] = v;
                    if v & WIN != 0 {
                        got_win[k][idx / nminor_val] = true;
                    } else {
                        got_loss[k][idx / nminor_val] = true;
                    }
                }
            }
            // After a round that decided nothing, values can only change
            // again when a child outside the pair becomes visible.
            if total == 0 && n >= last_event {
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
        let same = SameMover::new(pos.opp);
        for_each_child(&self.rules, pos, |c| match decode(self.lookup(&[], &c, &same).0) {
            RefValue::Loss(d) => min_loss = Some(min_loss.map_or(d, |x| x.min(d))),
            RefValue::Win(d) => max_win = Some(max_win.map_or(d, |x| x.max(d))),
            RefValue::Draw => all_wins = false,
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
                    let pos = RawPos { mover: m, opp: expand(c, full & !m), mover_hand: sh, opp_hand: oh };
                    if !self.wanted(sec, raw_index(self.n, pos.mover, pos.opp)) {
                        continue;
                    }
                    let got = self.value(&pos).unwrap();
                    let want = self.expected(&pos);
                    assert_eq!(got, want, "sector {sec:?}: mover {:?} opponent {:?}", self.rules.names_of(pos.mover), self.rules.names_of(pos.opp));
                }
            });
            checked += match &self.reach {
                None => movers.len() * minors.len(),
                Some(r) => r[slot(sec)].as_ref().unwrap().iter().map(|w| w.count_ones() as usize).sum(),
            };
        }
        checked
    }

    /// Every raw position of the movement sector s-o (solved with all it
    /// leads into).
    pub fn solve_movement(&mut self, s: u32, o: u32) -> RefSolution {
        assert!(s >= 3 && o >= 3, "movement sector {s}-{o}: a side below 3 stones has lost");
        assert!(self.reach.is_none(), "a solver made by `reaching` solves one start only");
        let sec = (s, o, 0, 0);
        self.solve_sector(sec);
        RefSolution::new(self.rules, None, vec![(sec, self.tables[slot(sec)].clone().unwrap())], None)
    }

    /// The solved pairs that positions of `sec` can lead into, `sec`'s own
    /// included, in the order solved (children first).
    pub fn closure(&self, sec: Sector) -> Vec<Vec<Sector>> {
        let mut want = HashSet::new();
        let mut stack = vec![sec];
        while let Some(x) = stack.pop() {
            if want.insert(x) {
                stack.push(mirror(x));
                stack.extend(self.child_sectors(x));
            }
        }
        self.solved_pairs.iter().filter(|p| want.contains(&p[0])).cloned().collect()
    }

    /// Every position reachable from the start: an empty board, the first
    /// player to move with `wk` stones in hand, the second with `bk`.
    /// Finished games (a side to move below 3 stones) are not positions of
    /// the solution. (Which positions are reached is worked out on first use
    /// of the solution: see `RefSolution`.)
    pub fn solve_start(&mut self, wk: u32, bk: u32) -> RefSolution {
        assert!(wk >= 3 && bk >= 3, "each side needs at least 3 stones");
        assert!(wk + bk <= self.n, "{wk}+{bk} stones do not fit the board");
        let start_sec = (0, 0, wk, bk);
        self.solve_sector(start_sec);
        let start = RawPos { mover: 0, opp: 0, mover_hand: wk, opp_hand: bk };
        if let Some(reach) = &self.reach {
            assert_eq!(self.start, Some(start), "this solver is for another start");
            let (sectors, bits) = self.solved.iter().map(|&sec| ((sec, self.tables[slot(sec)].clone().unwrap()), reach[slot(sec)].clone().unwrap())).unzip();
            return RefSolution::with_reached(self.rules, start, sectors, bits);
        }
        let pairs = self.closure(start_sec);
        let sectors = pairs.iter().flatten().map(|&sec| (sec, self.tables[slot(sec)].clone().unwrap())).collect();
        RefSolution::new(self.rules, Some(start), sectors, Some(pairs))
    }
}

/// Forward enumeration of the positions reachable from `start`, one bit a
/// position: `marks` (reached) and `expanded` (its children marked). The
/// sector pairs are taken parents first (the reverse of the order solved);
/// within a pair, passes over the reached but not yet expanded positions
/// until there are none. Returns the reached bits of each of `sectors`.
pub fn reachable(rules: &RefRules, start: &RawPos, sectors: &[Sector], pairs: &[Vec<Sector>]) -> Vec<Vec<u64>> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let t0 = Instant::now();
    let n = rules.points() as u32;
    let full = rules.full();
    let words = |sec: Sector| sector_len(n, sec.0, sec.1).div_ceil(64);
    let mut which = vec![usize::MAX; SLOT_BASE.pow(4)];
    for (i, &sec) in sectors.iter().enumerate() {
        which[slot(sec)] = i;
    }
    let marks: Vec<Vec<AtomicU64>> = sectors.iter().map(|&sec| (0..words(sec)).map(|_| AtomicU64::new(0)).collect()).collect();
    let mark = |p: &RawPos, same: &SameMover| {
        let idx = if p.mover == same.mover { same.index(n, p.opp) } else { raw_index(n, p.mover, p.opp) };
        let bitset = &marks[which[slot(sector_of(p))]];
        let bit = 1u64 << (idx % 64);
        // (a plain load first: most children have been reached already)
        if bitset[idx / 64].load(Ordering::Relaxed) & bit == 0 {
            bitset[idx / 64].fetch_or(bit, Ordering::Relaxed);
        }
    };
    mark(start, &SameMover::new(0));
    for pair in pairs.iter().rev() {
        let mut expanded: Vec<Vec<u64>> = pair.iter().map(|&sec| vec![0u64; words(sec)]).collect();
        loop {
            let mut new = 0usize;
            for (k, &(s, o, sh, oh)) in pair.iter().enumerate() {
                let movers = masks_with(n, s);
                let minors = masks_with(n - s, o);
                let reached = &marks[which[slot((s, o, sh, oh))]];
                new += expanded[k]
                    .par_iter_mut()
                    .enumerate()
                    .map(|(w, done)| {
                        let todo = reached[w].load(Ordering::Relaxed) & !*done;
                        *done |= todo;
                        for b in bits(todo as u32).chain(bits((todo >> 32) as u32).map(|b| b + 32)) {
                            let idx = w * 64 + b;
                            let m = movers[idx / minors.len()];
                            let pos = RawPos { mover: m, opp: expand(minors[idx % minors.len()], full & !m), mover_hand: sh, opp_hand: oh };
                            if terminal(rules, &pos).is_none() {
                                let same = SameMover::new(pos.opp);
                                for_each_child(rules, &pos, |c| {
                                    if c.mover.count_ones() + c.mover_hand >= 3 {
                                        mark(&c, &same);
                                    }
                                });
                            }
                        }
                        todo.count_ones() as usize
                    })
                    .sum::<usize>();
            }
            if new == 0 {
                break;
            }
        }
    }
    if std::env::var_os("REF_VERBOSE").is_some() {
        eprintln!("reference_family: forward enumeration in {:.2} s", t0.elapsed().as_secs_f64());
    }
    marks.into_iter().map(|m| m.into_iter().map(|a| a.into_inner()).collect()).collect()
}
