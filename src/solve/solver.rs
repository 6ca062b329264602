//! Retrograde analysis of one unit (`s-o` with `o-s`, or `s-s`) with exact depths.
//!
//! 1. **Initialise.** Each position's captures lead to already-solved subspaces, so
//!    their values are known at once: a capture into a loss makes the position a
//!    (tentative) win, a capture into a draw rules out a loss, and the deepest capture
//!    into a win is remembered. The position's distinct non-capturing children (as
//!    slots) are counted.
//! 2. **Iterate by depth.** Level `d` takes every position whose value has depth `d`
//!    (kept in per-depth work lists, so no level scans the whole table); these are
//!    final, because every value set later is deeper. For each such child,
//!    its distinct parents (by unmove generation, as slots) are updated: a lost child
//!    makes a parent a win in `d + 1` unless it already wins faster; a won child counts
//!    down the parent's counter, and the last one makes it a loss in
//!    `max(d, deepest capture win) + 1`, the loser's longest resistance.
//! 3. Whatever is still open is a draw.
//!
//! Values deeper than a value byte holds (some rule sets go past 252 plies) take the
//! byte [`DEEP_WIN`] or [`DEEP_LOSS`] and keep their exact depth in a side map, and the
//! level lists grow as deep as the values go: [`solve_sectors_deep`].
//!
//! Counting distinct child slots forward and distinct parent slots backward keeps the
//! counters exact under symmetry: parent orbit P reaches child orbit C by some move if
//! and only if C's representative has an unmove into P's orbit.

use crate::position::index::{SetOrbits, SubspaceIndex};
use crate::position::sector::Sector;
use crate::position::subspace::{Subspace, Unit};
use crate::position::value::{enc_loss, enc_win, is_deep, value_at, Deep, Value, DEEP_LOSS, DEEP_WIN, DRAW};
use crate::rules::game::Game;
use crate::rules::movegen::for_each_unmove_with;
use crate::solve::placement::for_each_ply_move;
use crate::solve::placement::induction::SectorTables;
// Kept here too: the solver makes these, though the layers below it own them.
pub use crate::position::value::TooDeep;
pub use crate::table::stats::Stats;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

/// Marks a position that cannot lose because a capture leads to a draw.
const NEVER_LOSES: u8 = u8::MAX;
/// Marks a capture win too deep for the byte: its depth is in `Member::cap_deep`.
const CAP_DEEP: u8 = u8::MAX - 1;
const CHUNK: usize = 1 << 14;

/// Receives progress reports; the library stays free of any terminal code.
/// Called from many threads at once; both methods do nothing unless overridden.
pub trait Progress: Sync {
    /// A new stage named `label` starts, of `total` units of work (positions, as a rule).
    fn begin(&self, _label: &str, _total: u64) {}
    /// `n` more units of the current stage are done.
    fn advance(&self, _n: u64) {}
}

/// Progress that nobody watches: pass `&NoProgress` where a [`Progress`] or a
/// [`Reporter`](crate::solve::generate::Reporter) is asked for.
pub struct NoProgress;
impl Progress for NoProgress {}

/// Looks up the solved values of subspaces that captures lead into.
pub trait Solved: Sync {
    /// The value bytes of `sub`, one per slot of its index; may panic if `sub` was
    /// not solved.
    fn values(&self, sub: Subspace) -> &[u8];
    /// The exact depths of `sub`'s deep values ([`DEEP_WIN`], [`DEEP_LOSS`]); none by
    /// default.
    fn deep(&self, _sub: Subspace) -> Option<&Deep> {
        None
    }
}

impl Solved for std::collections::HashMap<Subspace, Vec<u8>> {
    fn values(&self, sub: Subspace) -> &[u8] {
        &self[&sub]
    }
}

struct Member {
    sector: Sector,
    index: SubspaceIndex,
    value: Vec<AtomicU8>,
    counter: Vec<AtomicU8>,
    cap_max: Vec<u8>,
    /// Exact depths of the deep values set so far, by slot (stale for a win later
    /// bettered to a byte of its own: only slots holding a deep byte are read).
    deep: Sharded,
    /// Exact depths of the capture wins marked [`CAP_DEEP`].
    cap_deep: Sharded,
    /// Position in the unit of the sector that moves without removal lead to (none
    /// where the side to move cannot move a stone, or its move leaves the unit).
    target: Option<usize>,
}

/// Adapts movement tables by subspace to the sector lookup of the unit solver.
struct BySubspace<'a>(&'a dyn Solved);

impl SectorTables for BySubspace<'_> {
    fn values(&self, sector: Sector) -> &[u8] {
        self.0.values(sector.subspace().expect("a movement unit depends on movement subspaces"))
    }
    fn deep(&self, sector: Sector) -> Option<&Deep> {
        self.0.deep(sector.subspace().expect("a movement unit depends on movement subspaces"))
    }
}

/// A map from slot to depth behind one lock per shard: deep values are rare, and the
/// threads of one level touch different slots.
struct Sharded(Vec<Mutex<HashMap<u32, u16>>>);

impl Sharded {
    const SHARDS: usize = 64;

    fn new() -> Sharded {
        Sharded((0..Self::SHARDS).map(|_| Mutex::new(HashMap::new())).collect())
    }

    fn shard(&self, slot: u32) -> std::sync::MutexGuard<'_, HashMap<u32, u16>> {
        self.0[slot as usize % Self::SHARDS].lock().unwrap()
    }

    fn get(&self, slot: u32) -> Option<u16> {
        self.shard(slot).get(&slot).copied()
    }

    fn set(&self, slot: u32, depth: u16) {
        self.shard(slot).insert(slot, depth);
    }

    /// The entries whose slot still holds a deep byte in `values`.
    fn into_deep(self, values: &[u8]) -> Deep {
        Deep::new(self.0.into_iter().flat_map(|m| m.into_inner().unwrap()).filter(|&(slot, _)| is_deep(values[slot as usize])).map(|(slot, d)| (slot as u64, d)).collect())
    }
}

/// The deepest win and loss a value byte of its own holds; deeper values take
/// [`DEEP_WIN`] or [`DEEP_LOSS`] and a [`Deep`] entry. Tests lower them to reach the
/// deep path on small subspaces.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The deepest win with a byte of its own (odd).
    pub max_win: u16,
    /// The deepest loss with a byte of its own (even).
    pub max_loss: u16,
}

impl Limits {
    /// The table encoding's: [`MAX_WIN`](crate::position::value::MAX_WIN) and
    /// [`MAX_LOSS`](crate::position::value::MAX_LOSS).
    pub const TABLE: Limits = Limits { max_win: crate::position::value::MAX_WIN, max_loss: crate::position::value::MAX_LOSS };

    #[inline(always)]
    fn is_deep(self, v: Value) -> bool {
        match v {
            Value::Win(d) => d > self.max_win,
            Value::Loss(d) => d > self.max_loss,
            Value::Draw => false,
        }
    }

    /// The byte of `v` (right parity assumed), and whether it is deep.
    #[inline(always)]
    fn byte(self, v: Value) -> (u8, bool) {
        match v {
            Value::Win(_) if self.is_deep(v) => (DEEP_WIN, true),
            Value::Loss(_) if self.is_deep(v) => (DEEP_LOSS, true),
            Value::Win(d) => (enc_win(d), false),
            Value::Loss(d) => (enc_loss(d), false),
            Value::Draw => (DRAW, false),
        }
    }
}

fn atomic_vec(n: usize) -> Vec<AtomicU8> {
    let v = vec![0u8; n];
    // SAFETY: AtomicU8 has the same size, alignment and bit validity as u8.
    let mut v = std::mem::ManuallyDrop::new(v);
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut AtomicU8, v.len(), v.capacity()) }
}

fn into_plain(v: Vec<AtomicU8>) -> Vec<u8> {
    let mut v = std::mem::ManuallyDrop::new(v);
    // SAFETY: as in `atomic_vec`; no other reference to the atomics remains.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr() as *mut u8, v.len(), v.capacity()) }
}

#[inline]
pub(crate) fn dedup_sorted(buf: &mut [u64]) -> usize {
    buf.sort_unstable();
    let mut n = 0;
    for k in 0..buf.len() {
        if k == 0 || buf[k] != buf[n - 1] {
            buf[n] = buf[k];
            n += 1;
        }
    }
    n
}

/// Slots whose value was set, grouped by depth: the work list of each level. The
/// lists grow with the deepest value, which some rule sets take past 255 plies.
struct Frontier {
    /// `lists[member][depth]`
    lists: Vec<Mutex<Vec<Vec<u32>>>>,
}

impl Frontier {
    fn new(members: usize) -> Frontier {
        Frontier { lists: (0..members).map(|_| Mutex::new(vec![Vec::new(); 257])).collect() }
    }

    /// Moves a thread's buffer of `(depth, slot)` into the shared lists.
    fn flush(&self, member: usize, buf: &mut Vec<(u16, u32)>) {
        if buf.is_empty() {
            return;
        }
        buf.sort_unstable_by_key(|&(d, _)| d);
        let mut lists = self.lists[member].lock().unwrap();
        for run in buf.chunk_by(|a, b| a.0 == b.0) {
            let d = run[0].0 as usize;
            if lists.len() <= d {
                lists.resize(d + 1, Vec::new());
            }
            lists[d].extend(run.iter().map(|&(_, slot)| slot));
        }
        buf.clear();
    }

    fn take(&self, member: usize, depth: u16) -> Vec<u32> {
        self.lists[member].lock().unwrap().get_mut(depth as usize).map(std::mem::take).unwrap_or_default()
    }

    /// Whether any list at `depth` or deeper holds a slot.
    fn any_from(&self, depth: u16) -> bool {
        self.lists.iter().any(|l| l.lock().unwrap().iter().skip(depth as usize).any(|v| !v.is_empty()))
    }
}

#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
}

/// Solves one unit under `game`'s rules (a 24-point board). `solved` must hold every
/// subspace in `unit.dependencies(game)`. Fails if a value is deeper than the
/// encoding holds.
pub fn solve_unit(game: &Game, unit: Unit, solved: &dyn Solved, progress: &dyn Progress) -> Result<Vec<(Subspace, Vec<u8>)>, TooDeep> {
    let sectors: Vec<Sector> = unit.members().into_iter().map(Sector::from).collect();
    Ok(solve_sectors(game, &sectors, &BySubspace(solved), progress)?.into_iter().map(|(sector, values)| (sector.subspace().expect("a movement unit"), values)).collect())
}

/// [`solve_unit`], with the values deeper than a byte holds kept exactly (see
/// [`solve_sectors_deep`]): for rule sets that go that deep.
pub fn solve_unit_deep(game: &Game, unit: Unit, solved: &dyn Solved, progress: &dyn Progress) -> Vec<(Subspace, Vec<u8>, Deep)> {
    let sectors: Vec<Sector> = unit.members().into_iter().map(Sector::from).collect();
    solve_sectors_deep(game, &sectors, &BySubspace(solved), progress, Limits::TABLE)
        .into_iter()
        .map(|(sector, values, deep)| (sector.subspace().expect("a movement unit"), values, deep))
        .collect()
}

/// Solves a unit of sectors joined by moves without removal: a movement unit, or
/// under Lasker rules a placement sector with its mirror (the side to move may move a
/// stone and keep its hand). `members` are one sector, or a sector and its
/// `after_slide` mirror; `solved` holds every sector their other moves lead into
/// (placements, removals, and a slide out of the unit). Returns each member's values,
/// in `members` order, or [`TooDeep`] if a value does not fit the byte encoding.
pub fn solve_sectors(game: &Game, members_in: &[Sector], solved: &dyn SectorTables, progress: &dyn Progress) -> Result<Vec<(Sector, Vec<u8>)>, TooDeep> {
    let solved = solve_sectors_deep(game, members_in, solved, progress, Limits::TABLE);
    // The member with the shallowest deep value: where the depth first ran out.
    let first_deep = solved.iter().filter_map(|(sector, _, deep)| deep.entries().iter().map(|e| e.1).min().map(|d| (d, *sector))).min_by_key(|e| e.0);
    if let Some((depth, sector)) = first_deep {
        return Err(TooDeep { sector, depth });
    }
    Ok(solved.into_iter().map(|(sector, values, _)| (sector, values)).collect())
}

/// [`solve_sectors`], with the values deeper than `limits` kept exactly: each member's
/// bytes mark them [`DEEP_WIN`] or [`DEEP_LOSS`], and its [`Deep`] list holds their
/// depths.
#[doc(hidden)]
pub fn solve_sectors_deep(game: &Game, members_in: &[Sector], solved: &dyn SectorTables, progress: &dyn Progress, limits: Limits) -> Vec<(Sector, Vec<u8>, Deep)> {
    let name = members_in.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" + ");
    let mut members: Vec<Member> = members_in
        .iter()
        .map(|&sector| {
            let index = sector.index(game.rules().board());
            let n = index.len() as usize;
            assert!(n < u32::MAX as usize, "slots fit in u32");
            let target = if sector.slides(game) { members_in.iter().position(|&t| t == sector.after_slide()) } else { None };
            Member { sector, index, value: atomic_vec(n), counter: atomic_vec(n), cap_max: vec![0; n], deep: Sharded::new(), cap_deep: Sharded::new(), target }
        })
        .collect();
    let frontier = Frontier::new(members.len());

    let total: u64 = members.iter().map(|m| m.index.len()).sum();
    progress.begin(&format!("{name}: initialise"), total);
    for j in 0..members.len() {
        let sector = members[j].sector;
        let target_index = members[j].target.map(|t| members[t].index);
        // Children outside the unit, by [placed][stones removed]: `None` where a removal
        // leaves the opponent below 3 stones (a win at once), or no such move exists.
        let table = |x: Option<Sector>| x.map(|c| (c.index(game.rules().board()), solved.values(c), solved.deep(c)));
        let take_two = |k: u8| k == 1 || game.take_each();
        let slides = sector.slides(game);
        let outside: [[Option<(SubspaceIndex, &[u8], Option<&Deep>)>; 3]; 2] = [
            [
                if slides && target_index.is_none() { table(Some(sector.after_slide())) } else { None },
                table(sector.after_slide_removing(1).filter(|_| slides)),
                table(sector.after_slide_removing(2).filter(|_| slides && take_two(2))),
            ],
            [
                table(Some(sector.after_move()).filter(|_| sector.places())),
                table(sector.after_removing(1).filter(|_| sector.places())),
                table(sector.after_removing(2).filter(|_| sector.places() && take_two(2))),
            ],
        ];
        let outside = &outside;
        let ply = crate::solve::placement::Ply { white_hand: sector.sh, black_hand: sector.oh, to_move: crate::position::Color::White };
        let (full_draw, full) = (game.full_board_draw(), game.full());
        let m = &mut members[j];
        let (index, value, counter, deep, cap_deep) = (&m.index, &m.value, &m.counter, &m.deep, &m.cap_deep);
        let frontier = &frontier;
        let opp_orbits = SetOrbits::get(game.rules().board(), sector.o as usize);
        m.cap_max.par_chunks_mut(CHUNK).enumerate().for_each(|(c, cap_chunk)| {
            crate::cpu::fast!({
                let mut kids = [0u64; 128];
                let mut decided: Vec<(u16, u32)> = Vec::new();
                let first = (c * CHUNK) as u64;
                for ((i, mover, opp), cap_slot) in index.walk(first, first + cap_chunk.len() as u64).zip(cap_chunk.iter_mut()) {
                    let i = i as usize;
                    if index.may_be_hole(i as u64) && index.index(mover, opp) != i as u64 {
                        continue;
                    }
                    // `n` counts the moves into this unit; `other` records any other move, so
                    // that the common move sets no flag of its own.
                    let (mut n, mut other) = (0usize, false);
                    // Non-capturing children keep our opponent's stones as their mover's.
                    let prep = target_index.as_ref().and_then(|t| t.prepare(opp, true));
                    let mut last_capturer = [0 as crate::rules::geometry::Bits; 3];
                    let mut cap_prep = [None, None, None];
                    let (mut best_loss, mut cap_win, mut cap_draw) = (u16::MAX, 0u16, false);
                    for_each_ply_move(
                        game,
                        ply,
                        mover,
                        opp,
                        #[inline(always)]
                        |mv, after, opp_after| {
                            let (cm, co) = (opp_after, after);
                            // A move names every stone it removes (two for a double mill under `take=each`).
                            let removed = (mv.capture != crate::rules::movegen::NONE) as usize + (mv.capture2 != crate::rules::movegen::NONE) as usize;
                            let placed = (mv.from == crate::rules::movegen::NONE) as usize;
                            if let (0, 0, Some(t)) = (removed, placed, target_index.as_ref()) {
                                kids[n] = t.index_with(&prep, cm, co);
                                n += 1;
                            } else if let Some((ci, child_values, child_deep)) = &outside[placed][removed] {
                                other = true;
                                // Captures after one move share the capturer's stones (the child's
                                // opponent set), so their canonicalisation is prepared once per move.
                                let ci_slot = if placed == 0 {
                                    if co != last_capturer[removed] {
                                        last_capturer[removed] = co;
                                        cap_prep[removed] = ci.prepare(co, false);
                                    }
                                    ci.index_with(&cap_prep[removed], cm, co)
                                } else {
                                    ci.index(cm, co)
                                };
                                match value_at(child_values[ci_slot as usize], ci_slot, *child_deep) {
                                    Value::Loss(d) => best_loss = best_loss.min(d),
                                    Value::Win(d) => cap_win = cap_win.max(d),
                                    Value::Draw => cap_draw = true,
                                }
                            } else {
                                debug_assert!(removed > 0, "a move without removal has a child sector");
                                other = true;
                                best_loss = 0; // the opponent is left with two stones
                            }
                        },
                    );
                    // Two non-capturing children can share a slot only through a symmetry
                    // that fixes the opponent's stones (common to all of them).
                    let distinct = if opp_orbits.is_symmetric(opp) { dedup_sorted(&mut kids[..n]) } else { n };
                    counter[i].store(distinct as u8, Relaxed);
                    *cap_slot = if cap_draw {
                        NEVER_LOSES
                    } else if limits.is_deep(Value::Win(cap_win)) {
                        cap_deep.set(i as u32, cap_win);
                        CAP_DEEP
                    } else {
                        cap_win as u8
                    };
                    let v = if n == 0 && !other {
                        // Blocked: a loss, unless the board is full and the rules call that a
                        // draw, which no later level changes (it has no child to decide it).
                        (!(full_draw && mover | opp == full)).then_some(Value::Loss(0))
                    } else if best_loss != u16::MAX {
                        Some(Value::Win(best_loss + 1))
                    } else if distinct == 0 && !cap_draw {
                        Some(Value::Loss(cap_win + 1))
                    } else {
                        None
                    };
                    if let Some(v) = v {
                        let (byte, is_deep) = limits.byte(v);
                        if is_deep {
                            deep.set(i as u32, v.plies().unwrap_or(0));
                        }
                        value[i].store(byte, Relaxed);
                        decided.push((v.plies().unwrap_or(0), i as u32));
                    }
                }
                frontier.flush(j, &mut decided);
                progress.advance(cap_chunk.len() as u64);
            })
        });
    }

    let mut next = 0u16;
    while frontier.any_from(next) {
        let d = next;
        next += 1;
        let lists: Vec<Vec<u32>> = (0..members.len()).map(|j| frontier.take(j, d)).collect();
        let count: usize = lists.iter().map(|l| l.len()).sum();
        if count == 0 {
            continue;
        }
        progress.begin(&format!("{name}: depth {d}"), count as u64);
        let level_value = if d % 2 == 1 { Value::Win(d) } else { Value::Loss(d) };
        let (target_byte, deep_level) = limits.byte(level_value);
        for (j, list) in lists.iter().enumerate() {
            let child = &members[j];
            // Parents reach this member by a move without removal: they are the member
            // this one's own such moves lead to (the two mirror each other).
            let Some(parent_at) = child.target else { continue };
            let parent = &members[parent_at];
            debug_assert_eq!(parent.target, Some(j), "a unit's members mirror each other");
            // The parent's side to move is this sector's opponent, with its hand.
            let parent_hand = child.sector.oh;
            let frontier = &frontier;
            let mover_orbits = SetOrbits::get(game.rules().board(), child.index.sub.s as usize);
            list.par_chunks(CHUNK / 4).for_each(|slots| {
                crate::cpu::fast!({
                    let mut preds = [0u64; 256];
                    let mut decided: Vec<(u16, u32)> = Vec::new();
                    for &i in slots {
                        // A tentative win can have been bettered since it was listed.
                        if child.value[i as usize].load(Relaxed) != target_byte || (deep_level && child.deep.get(i) != Some(d)) {
                            continue;
                        }
                        let (mover, opp) = child.index.unindex(i as u64);
                        let mut k = 0;
                        // Parents keep this position's mover as their opponent.
                        let prep = parent.index.prepare(mover, false);
                        for_each_unmove_with(
                            game,
                            mover,
                            opp,
                            parent_hand,
                            #[inline(always)]
                            |pm, po| {
                                let p = parent.index.index_with(&prep, pm, po);
                                prefetch(&parent.value[p as usize]);
                                prefetch(&parent.counter[p as usize]);
                                preds[k] = p;
                                k += 1;
                            },
                        );
                        // Parents share this position's mover set; only its symmetries can merge them.
                        let k = if mover_orbits.is_symmetric(mover) { dedup_sorted(&mut preds[..k]) } else { k };
                        if d.is_multiple_of(2) && limits.is_deep(Value::Win(d + 1)) {
                            // Every update of this level sets the same deep win, under the
                            // lock of the parent's shard, so the byte and its depth agree.
                            for &p in &preds[..k] {
                                let p = p as u32;
                                let slot = &parent.value[p as usize];
                                let mut depths = parent.deep.shard(p);
                                let cur = slot.load(Relaxed);
                                let better = cur == DRAW || (cur == DEEP_WIN && depths.get(&p).is_some_and(|&w| w > d + 1));
                                if better {
                                    slot.store(DEEP_WIN, Relaxed);
                                    depths.insert(p, d + 1);
                                    decided.push((d + 1, p));
                                }
                            }
                        } else if d.is_multiple_of(2) {
                            let win = enc_win(d + 1);
                            for &p in &preds[..k] {
                                let slot = &parent.value[p as usize];
                                let mut cur = slot.load(Relaxed);
                                while cur == DRAW || (cur < 128 && cur > win) {
                                    match slot.compare_exchange_weak(cur, win, Relaxed, Relaxed) {
                                        Ok(_) => {
                                            decided.push((d + 1, p as u32));
                                            break;
                                        }
                                        Err(now) => cur = now,
                                    }
                                }
                            }
                        } else {
                            for &p in &preds[..k] {
                                let p = p as usize;
                                if parent.counter[p].fetch_sub(1, Relaxed) == 1 {
                                    let cap = parent.cap_max[p];
                                    if cap != NEVER_LOSES && parent.value[p].load(Relaxed) == DRAW {
                                        let cap = if cap == CAP_DEEP { parent.cap_deep.get(p as u32).expect("a deep capture win has its depth") } else { cap as u16 };
                                        let depth = d.max(cap) + 1;
                                        let (byte, is_deep) = limits.byte(Value::Loss(depth));
                                        if is_deep {
                                            // Set before the byte: a reader of the byte finds it.
                                            parent.deep.set(p as u32, depth);
                                        }
                                        if parent.value[p].compare_exchange(DRAW, byte, Relaxed, Relaxed).is_ok() {
                                            decided.push((depth, p as u32));
                                        }
                                    }
                                }
                            }
                        }
                    }
                    frontier.flush(parent_at, &mut decided);
                    progress.advance(slots.len() as u64);
                })
            });
        }
    }

    members
        .drain(..)
        .map(|m| {
            let values = into_plain(m.value);
            let deep = m.deep.into_deep(&values);
            (m.sector, values, deep)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A child table of losses in 252 plies, the deepest loss a byte holds, makes the
    /// captures into it wins in 253: an error naming the unit, not a panic or a wrong
    /// byte. The same unit over the true 3-3 table solves.
    #[test]
    fn values_beyond_the_encoding_are_an_error() {
        let unit = Unit::all_in_order().into_iter().find(|u| u.members().contains(&Subspace::new(3, 4).unwrap())).unwrap();
        let sub33 = Subspace::new(3, 3).unwrap();
        let deep: HashMap<Subspace, Vec<u8>> =
            [(sub33, vec![enc_loss(crate::position::value::MAX_LOSS); SubspaceIndex::new(crate::rules::Board::Nine, sub33.s, sub33.o).len() as usize])].into();
        let err = solve_unit(Game::standard(), unit, &deep, &NoProgress).unwrap_err();
        assert_eq!(err.depth, 253);
        // Only 3-4's captures lead into 3-3 (4-3's leave two stones): the error names it,
        // whichever member comes first in the unit.
        assert_eq!(err.sector.subspace(), Some(Subspace::new(3, 4).unwrap()), "{err}");
        let reversed: Vec<Sector> = unit.members().into_iter().rev().map(Sector::from).collect();
        assert_eq!(reversed[1].subspace(), Some(Subspace::new(3, 4).unwrap()));
        let err = solve_sectors(Game::standard(), &reversed, &BySubspace(&deep), &NoProgress).unwrap_err();
        assert_eq!(err.sector, reversed[1], "{err}");
        assert!(err.to_string().contains("253 plies"), "{err}");
        let unit33 = Unit::all_in_order()[0];
        let real: HashMap<Subspace, Vec<u8>> = solve_unit(Game::standard(), unit33, &HashMap::new(), &NoProgress).unwrap().into_iter().collect();
        assert!(solve_unit(Game::standard(), unit, &real, &NoProgress).is_ok());
    }

    /// With the byte's limits lowered to a few plies, most values of the small
    /// subspaces are deep: each one decoded through its [`Deep`] list must equal the
    /// plain solve's byte, value and depth, for the units up to 8 stones, whose
    /// captures read deep children and deep capture wins.
    struct WithDeep(HashMap<Subspace, (Vec<u8>, Deep)>);

    impl Solved for WithDeep {
        fn values(&self, sub: Subspace) -> &[u8] {
            &self.0[&sub].0
        }
        fn deep(&self, sub: Subspace) -> Option<&Deep> {
            Some(&self.0[&sub].1)
        }
    }

    #[test]
    fn deep_values_equal_the_plain_solve() {
        for rules in ["standard", "morabaraba", "standard,flying=none"] {
            let game = rules.parse::<crate::Rules>().unwrap().game();
            let low = Limits { max_win: 5, max_loss: 6 };
            let mut plain: HashMap<Subspace, Vec<u8>> = HashMap::new();
            let mut deep = WithDeep(HashMap::new());
            let (mut deep_values, mut deepest) = (0, 0);
            for unit in Unit::all_in_order_up_to(game.rules().stones()).into_iter().filter(|u| u.total() <= 8) {
                let sectors: Vec<Sector> = unit.members().into_iter().map(Sector::from).collect();
                let a = solve_sectors(game, &sectors, &BySubspace(&plain), &NoProgress).unwrap();
                let b = solve_sectors_deep(game, &sectors, &BySubspace(&deep), &NoProgress, low);
                for ((sector, want), (_, bytes, list)) in a.into_iter().zip(b) {
                    let sub = sector.subspace().unwrap();
                    let index = sector.index(game.rules().board());
                    for (i, (&w, &b)) in want.iter().zip(&bytes).enumerate() {
                        if index.may_be_hole(i as u64) && index.is_hole(i as u64) {
                            continue;
                        }
                        assert_eq!(list.value(b, i as u64), Some(Value::decode(w)), "{rules} {sub} slot {i}");
                        assert_eq!(is_deep(b), low.is_deep(Value::decode(w)), "{rules} {sub} slot {i}");
                    }
                    deep_values += list.len();
                    deepest = deepest.max(list.entries().iter().map(|e| e.1).max().unwrap_or(0));
                    plain.insert(sub, want);
                    deep.0.insert(sub, (bytes, list));
                }
            }
            assert!(deep_values > 1000 && deepest > 20, "{rules}: {deep_values} deep values, deepest {deepest}");
        }
    }
}
