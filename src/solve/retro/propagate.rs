//! The engine of every propagation over a unit: level by level in order of depth,
//! from the work lists of a [`Frontier`], each listed position's distinct parents in
//! the unit (by unmove generation) are told that this child is decided.
//!
//! What a decided child does to its parents is the pass's: the values pass makes a
//! parent of a lost child a win and counts down a parent's undecided children (see
//! `values.rs`); the class pass does the same with the levels of its draw classes
//! (`ultra/classes.rs`). Every value a level sets is deeper than the level, so each
//! list is final when its level takes it, and the order of one level's updates
//! changes nothing.
//!
//! That order is chosen for the memory: a big table's parents lie anywhere in it, and
//! an update by an atomic read-modify-write is a locked instruction, which lets no
//! other cache miss overlap its own (it was the solve's hottest line). So a batch of
//! listed positions first has all its parents found (the arithmetic), recorded by
//! buckets of parent slots, and then each bucket's updates run on one thread, which
//! no other thread's touch: plain loads and stores, prefetched a few records ahead.

use super::distinct::distinct;
use super::frontier::Frontier;
use super::members::Member;
use crate::position::index::SetOrbits;
use crate::rules::game::Game;
use crate::rules::movegen::for_each_unmove_with;
use crate::solve::progress::Progress;
use rayon::prelude::*;

/// Listed slots per task while parents are found. A batch's records cost memory
/// beside the unit's tables: at 2^12 a solve of s + o <= 10 peaked about 12 MB (6 %)
/// above b8e2837, and Lasker 5-5 3 MB; at 2^11 both are back within the noise, as
/// fast; at 2^10 the 10-stone solve took 5 to 8 % longer (more joins a level).
const CHUNK: usize = 1 << 11;
/// Tasks a batch gives each thread: listed slots whose parents are gathered before any
/// is updated, enough to balance the threads and few enough that the records (up to 60
/// a slot of a flying side) take a few MB. On 10 and 11 stones, batches of 4,096 to
/// 2^20 slots measured alike: what counts there is that the updates run without a
/// lock. Big members are another matter (see [`batch_len`]).
const TASKS_PER_THREAD: usize = 2;
/// Members of at least this many slots take larger batches (see [`batch_len`]).
const BIG_MEMBER: u64 = 1 << 27;
/// A big member's batch: this power of two's fraction of its slots.
const BIG_BATCH_SHIFT: u32 = 8;

/// Listed slots a batch takes, for a parent member of `slots` slots. A batch's records
/// spread over all of the member's buckets: in a member far larger than the caches a
/// bucket then gets a few dozen updates a batch, each a miss. A batch of 1/256 of its
/// slots gives each bucket thousands, within a core's L2: a Lasker placement unit of
/// 163 M slots a member solved in 82 s instead of 99 s, for 3.5 % more peak memory (the
/// records, held twice). The 11-stone unit 6-5 (72 M a member) gained 10 % too, but
/// for 4.6 % more peak memory, which the solves measured against older builds must
/// not take: members below `BIG_MEMBER` keep the small batch.
fn batch_len(slots: u64) -> usize {
    let small = CHUNK * TASKS_PER_THREAD * rayon::current_num_threads();
    if slots < BIG_MEMBER {
        return small;
    }
    small.max(((slots >> BIG_BATCH_SHIFT) as usize).next_multiple_of(CHUNK))
}

/// More than the most unmoves a position has.
const MAX_PARENTS: usize = 256;
/// A bucket holds the updates of 2^BUCKET_BITS consecutive parent slots: a byte a
/// slot of each table an update touches stays within the 1 MiB of a core's L2.
const BUCKET_BITS: u32 = 17;
/// An update record: the parent's slot, and at [`TAG`] what the child tells it.
const TAG: u32 = 1 << 31;

/// What decided children do to their parents, for one kind of value.
pub(crate) trait Propagation: Sync {
    /// One level's updates from one member into the member its parents are in.
    type Edge<'a>: Edge
    where
        Self: 'a;
    /// The updates of the children of member `child` listed at `depth` into their
    /// parents in member `parent`: what the level fixes is worked out here, once.
    fn edge(&self, depth: u16, child: usize, parent: usize) -> Self::Edge<'_>;
}

/// One level's updates from one member's children into their parents.
pub(crate) trait Edge: Sync {
    /// Whether the child at `slot`, listed at this level, is still decided at it (a
    /// tentative win can have been bettered since it was listed).
    fn listed(&self, slot: u32) -> bool;
    /// What an update of a parent needs to know of the child at `slot`, read once for
    /// all its parents.
    #[inline(always)]
    fn tag(&self, _slot: u32) -> bool {
        false
    }
    /// Asks for what [`Edge::listed`] and [`Edge::tag`] read of the child at `slot`.
    #[inline(always)]
    fn prefetch_listed(&self, _slot: u32) {}
    /// Asks for the parent's tables at `slot` before [`Edge::update`] reads them.
    #[inline(always)]
    fn prefetch(&self, _slot: u32) {}
    /// Tells the parent at `slot` that a child, with `tag`, is decided, and adds
    /// `(depth, slot)` to `decided` if this decides the parent. No other thread updates
    /// this parent meanwhile, or reads what an update writes: an update may load and
    /// store where it would otherwise need an atomic read-modify-write.
    fn update(&self, tag: bool, slot: u32, decided: &mut Vec<(u16, u32)>);
}

/// Runs `pass` over the unit of `members` until no list of `frontier` holds a slot.
/// Reports each level to `progress` under the unit's `name`.
pub(crate) fn propagate<P: Propagation>(game: &Game, members: &[Member], frontier: &Frontier, pass: &P, progress: &dyn Progress, name: &str) {
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
        // Kept from batch to batch, so that the threads do not allocate them anew each
        // time (what the threads' allocator arenas keep is why `solve` limits them).
        let mut buffers = Buffers::default();
        for (j, list) in lists.iter().enumerate() {
            let child = &members[j];
            // Parents reach this member by a move without removal: they are the member
            // this one's own such moves lead to (the two mirror each other).
            let Some(parent_at) = child.target else { continue };
            let parent = &members[parent_at];
            debug_assert_eq!(parent.target, Some(j), "a unit's members mirror each other");
            assert!(parent.index.len() <= TAG as u64, "{}: more slots than an update record holds", parent.sector);
            let edge = pass.edge(d, j, parent_at);
            for batch in list.chunks(batch_len(parent.index.len())) {
                parents_of(game, child, parent, &edge, batch, &mut buffers.parts);
                bucketed(&mut buffers, parent.index.len());
                apply(&edge, &mut buffers, frontier, parent_at);
                progress.advance(batch.len() as u64);
            }
        }
    }
}

/// What a batch's stages hand each other, kept from batch to batch.
#[derive(Default)]
struct Buffers {
    /// The records each task of [`parents_of`] found.
    parts: Vec<Vec<u32>>,
    /// Every record, by bucket, and where each bucket starts (one more than the
    /// buckets: the last is the end).
    flat: Vec<u32>,
    starts: Vec<usize>,
    /// Each task's count, then its next place, in each bucket.
    at: Vec<Vec<usize>>,
    /// What each task of [`apply`] decides.
    decided: Vec<Vec<(u16, u32)>>,
}

/// The update records of the listed children `slots` of member `child` into `parts`,
/// one vector a task: each distinct parent's slot in member `parent`, tagged as the
/// edge tags the child.
fn parents_of<E: Edge>(game: &Game, child: &Member, parent: &Member, edge: &E, slots: &[u32], parts: &mut Vec<Vec<u32>>) {
    // The parent's side to move is this sector's opponent, with its hand.
    let parent_hand = child.sector.oh;
    let mover_orbits = SetOrbits::get(game.rules().board(), child.index.sub.s as usize);
    let tasks = slots.len().div_ceil(CHUNK);
    if parts.len() < tasks {
        parts.resize_with(tasks, Vec::new);
    }
    parts.iter_mut().skip(tasks).for_each(Vec::clear);
    slots.par_chunks(CHUNK).zip(parts.par_iter_mut()).for_each(|(slots, out)| {
        out.clear();
        crate::cpu::fast!({
            let mut preds = [0u64; MAX_PARENTS];
            for (k, &i) in slots.iter().enumerate() {
                if let Some(&next) = slots.get(k + AHEAD) {
                    edge.prefetch_listed(next);
                }
                if !edge.listed(i) {
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
                        preds[k] = parent.index.index_with(&prep, pm, po);
                        k += 1;
                    },
                );
                // Parents share this position's mover set; only its symmetries can merge them.
                let k = distinct(mover_orbits, mover, &mut preds[..k]);
                let tag = if edge.tag(i) { TAG } else { 0 };
                out.extend(preds[..k].iter().map(|&p| p as u32 | tag));
            }
        })
    });
}

/// The records of every task, into one vector ordered by bucket (a counting sort on
/// the bucket, each task scattering its own), and where each bucket starts in it.
fn bucketed(buf: &mut Buffers, slots: u64) {
    let buckets = (slots >> BUCKET_BITS) as usize + 1;
    let bucket = |r: u32| ((r & !TAG) >> BUCKET_BITS) as usize;
    let Buffers { parts, flat, starts, at, .. } = buf;
    if at.len() < parts.len() {
        at.resize_with(parts.len(), Vec::new);
    }
    parts.par_iter().zip(at.par_iter_mut()).for_each(|(part, c)| {
        c.clear();
        c.resize(buckets, 0);
        for &r in part {
            c[bucket(r)] += 1;
        }
    });
    // Each task's first place in each bucket, and each bucket's start.
    starts.clear();
    let mut total = 0usize;
    for b in 0..buckets {
        starts.push(total);
        for c in at.iter_mut().take(parts.len()) {
            let n = c[b];
            c[b] = total;
            total += n;
        }
    }
    starts.push(total);
    flat.clear();
    flat.reserve(total);
    let out = Shared(flat.spare_capacity_mut().as_mut_ptr() as *mut u32);
    parts.par_iter().zip(at.par_iter_mut()).for_each(|(part, at)| {
        let out = &out;
        for &r in part {
            let b = bucket(r);
            // SAFETY: the places of each task and bucket are disjoint ranges of `flat`'s
            // capacity, counted above, so each is written once, by this task alone.
            unsafe { out.0.add(at[b]).write(r) };
            at[b] += 1;
        }
    });
    // SAFETY: every place below `total` was written above.
    unsafe { flat.set_len(total) };
}

/// The start of `bucketed`'s output, which its tasks write at places of their own.
struct Shared(*mut u32);
// SAFETY: the tasks write disjoint places (see `bucketed`).
unsafe impl Sync for Shared {}

/// Buckets a task applies at most: fewer where a table has few, so that threads balance.
const BUCKETS_PER_TASK: usize = 64;
/// Records ahead of the one updated whose parent's tables are asked for.
const AHEAD: usize = 16;

/// Applies the records, a bucket on one thread, and lists what they decide.
fn apply<E: Edge>(edge: &E, buf: &mut Buffers, frontier: &Frontier, parent_at: usize) {
    let Buffers { flat, starts, decided, .. } = buf;
    let buckets = starts.len() - 1;
    let per = (buckets / (4 * rayon::current_num_threads())).clamp(1, BUCKETS_PER_TASK);
    let tasks = buckets.div_ceil(per);
    if decided.len() < tasks {
        decided.resize_with(tasks, Vec::new);
    }
    let (flat, starts) = (&*flat, &*starts);
    decided.par_iter_mut().take(tasks).enumerate().for_each(|(t, decided)| {
        crate::cpu::fast!({
            let (from, to) = (starts[t * per], starts[((t + 1) * per).min(buckets)]);
            let records = &flat[from..to];
            for (k, &r) in records.iter().enumerate() {
                if let Some(&next) = records.get(k + AHEAD) {
                    edge.prefetch(next & !TAG);
                }
                edge.update(r & TAG != 0, r & !TAG, decided);
            }
            frontier.flush(parent_at, decided);
        })
    });
}
