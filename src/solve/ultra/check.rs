//! Forward verification of draw classes: every drawn position's class and depth
//! against its moves one ply up (`docs/ultra.md`). A class that is the best of its
//! drawing moves, with depths that strictly fall along the favoured side's best line
//! to an exit, is the class of the definition, so this checks the class pass without
//! repeating it.

use super::classes::{Classes, NO_CLASS};
use super::values::SectorValues;
use crate::position::index::SubspaceIndex;
use crate::position::sector::Sector;
use crate::position::value::DRAW;
use crate::rules::game::Game;
use crate::solve::placement::for_each_ply_move;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

/// One wrong entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassMismatch {
    /// The sector.
    pub sector: Sector,
    /// The slot.
    pub slot: u64,
    /// Stored class and depth (0 for none).
    pub stored: (i16, u16),
    /// What one ply up gives.
    pub expected: (i16, u16),
}

/// Drawn positions checked, and the first mismatches (at most 20) with their count.
#[derive(Clone, Debug, Default)]
pub struct ClassOutcome {
    /// Drawn positions checked.
    pub checked: u64,
    /// Mismatches found.
    pub mismatches: u64,
    /// The first few.
    pub examples: Vec<ClassMismatch>,
}

/// A sector's strong values and classes.
pub struct Loaded<'a> {
    /// Strong value bytes.
    pub values: &'a [u8],
    /// Classes.
    pub classes: &'a Classes,
}

/// Visits every drawn slot of `x` (holes skipped) for which `pick(stored class,
/// rank)` holds, with its stored `(class, depth)` and the `(class, depth)` its moves
/// give one ply up; `get` gives the tables of `x` and of every sector its moves lead
/// into.
fn one_ply<'a>(
    game: &Game,
    x: Sector,
    values: &SectorValues,
    get: &dyn Fn(Sector) -> Option<Loaded<'a>>,
    pick: &(dyn Fn(i16, i32) -> bool + Sync),
    visit: &(dyn Fn(u64, (i16, u16), (i16, u16)) + Sync),
) {
    let board = game.rules().board();
    let index = x.index(board);
    let own = get(x).expect("the sector's own tables");
    let rank = values.get(x).unwrap_or(0);
    let stays_into = (x.cyclic(game) && x.unit(game).contains(&x.after_slide())).then(|| x.after_slide());
    let ply = crate::solve::placement::Ply { white_hand: x.sh, black_hand: x.oh, to_move: crate::position::Color::White };
    // Children by [placed][removed]; the in-unit child is [0][0] when the unit cycles.
    let table = |c: Option<Sector>| c.and_then(|c| Some((c.index(board), get(c)?)));
    let take_two = |k: u8| k == 1 || game.take_each();
    let slides = x.slides(game);
    let kids: [[Option<(SubspaceIndex, Loaded)>; 3]; 2] = [
        [table(Some(x.after_slide()).filter(|_| slides)), table(x.after_slide_removing(1).filter(|_| slides)), table(x.after_slide_removing(2).filter(|_| slides && take_two(2)))],
        [table(Some(x.after_move()).filter(|_| x.places())), table(x.after_removing(1).filter(|_| x.places())), table(x.after_removing(2).filter(|_| x.places() && take_two(2)))],
    ];
    (0..index.len() as usize).into_par_iter().with_min_len(1 << 12).for_each(|i| {
        let i = i as u64;
        let stored = (own.classes.class[i as usize], own.classes.depth[i as usize]);
        if own.values[i as usize] != DRAW || !pick(stored.0, rank) || index.is_hole(i) {
            return;
        }
        let (mover, opp) = index.unindex(i);
        // Best option for the mover relative to its rank, and the depth it keeps.
        let (mut best, mut fast, mut slow, mut any) = (i32::MIN, u16::MAX, 0u16, false);
        let mut options: Vec<(i32, u16)> = Vec::new();
        for_each_ply_move(game, ply, mover, opp, |mv, after, opp_after| {
            any = true;
            let (cm, co) = (opp_after, after);
            let removed = (x.o as u32 - cm.count_ones()) as usize;
            let placed = (mv.from == crate::rules::movegen::NONE) as usize;
            let Some((ci, t)) = &kids[placed][removed] else { return };
            let slot = ci.index(cm, co) as usize;
            if t.values[slot] != DRAW {
                return;
            }
            let c = t.classes.class[slot] as i32;
            let stays = placed == 0 && removed == 0 && stays_into.is_some();
            options.push((-c - rank, if stays { t.classes.depth[slot] } else { 0 }));
        });
        for &(o, _) in &options {
            best = best.max(o);
        }
        for &(_, d) in options.iter().filter(|o| o.0 == best) {
            fast = fast.min(d);
            slow = slow.max(d);
        }
        let expected = if !any {
            (rank as i16, 0)
        } else if best == i32::MIN {
            (NO_CLASS, 0)
        } else {
            let depth = match best.signum() {
                0 => 0,
                1 => fast + 1,
                _ => slow + 1,
            };
            ((rank + best) as i16, depth)
        };
        visit(i, stored, expected);
    });
}

/// Sets the depth of every favoured draw of `x` (class above its rank), which class
/// files leave out: 1 + the least depth among its best moves, read one ply up from the
/// unfavoured depths the files keep (`get` as for [`check_sector`]; the in-unit
/// children's favoured depths are never read). Returns the depths of `x` so filled.
pub fn fill_favoured<'a>(game: &Game, x: Sector, values: &SectorValues, get: &dyn Fn(Sector) -> Option<Loaded<'a>>) -> Vec<u16> {
    let own = get(x).expect("the sector's own tables");
    let depth: Vec<AtomicU16> = own.classes.depth.iter().map(|&d| AtomicU16::new(d)).collect();
    one_ply(game, x, values, get, &|c, rank| c != NO_CLASS && (c as i32) > rank, &|i, _, expected| depth[i as usize].store(expected.1, Relaxed));
    depth.into_iter().map(AtomicU16::into_inner).collect()
}

/// Checks the classes of `x` one ply up; `get` gives the tables of `x` and of every
/// sector its moves lead into, with favoured depths filled ([`fill_favoured`]).
pub fn check_sector<'a>(game: &Game, x: Sector, values: &SectorValues, get: &dyn Fn(Sector) -> Option<Loaded<'a>>) -> ClassOutcome {
    let checked = AtomicU64::new(0);
    let bad: std::sync::Mutex<(u64, Vec<ClassMismatch>)> = Default::default();
    one_ply(game, x, values, get, &|_, _| true, &|slot, stored, expected| {
        checked.fetch_add(1, Relaxed);
        if stored != expected {
            let mut b = bad.lock().unwrap();
            b.0 += 1;
            if b.1.len() < 20 {
                b.1.push(ClassMismatch { sector: x, slot, stored, expected });
            }
        }
    });
    let (mismatches, examples) = bad.into_inner().unwrap();
    ClassOutcome { checked: checked.into_inner(), mismatches, examples }
}

/// Checks the classes of every sector the directory's sector values rank (the
/// sectors of the starts that were classed) one ply up, from each sector's strong
/// table and class file.
pub fn verify_dir(dir: &std::path::Path, rules: &crate::Rules, progress: &dyn crate::solve::progress::Progress) -> Result<ClassOutcome, super::run::UltraError> {
    use crate::table::ClassFile;
    use crate::table::{table_path, TableFile};
    use std::collections::{BTreeSet, HashMap};
    let game = rules.game();
    let values = super::run::read_values(dir)?;
    let set: BTreeSet<Sector> = values.iter().map(|(x, _)| x).collect();
    let order: Vec<Sector> = super::run::units_of(game, &set)?.into_iter().flatten().collect();
    let mut mem: HashMap<Sector, (Vec<u8>, Classes)> = HashMap::new();
    let mut total = ClassOutcome::default();
    let mut filled = BTreeSet::new();
    for (pos, &x) in order.iter().enumerate() {
        progress.begin(&format!("classes of {x}"), 0);
        // The unit, and every sector its members' moves lead into.
        let unit: Vec<Sector> = x.unit(game).into_iter().filter(|c| set.contains(c)).collect();
        let need: BTreeSet<Sector> = unit.iter().flat_map(|&u| std::iter::once(u).chain(u.children(game))).filter(|c| set.contains(c)).collect();
        for &c in &need {
            if let std::collections::hash_map::Entry::Vacant(e) = mem.entry(c) {
                let strong = TableFile::open(&table_path(dir, c), c, rules)?;
                let classes = ClassFile::open(dir, &strong, values.fingerprint())?.read_all(&strong)?;
                e.insert((strong.read_all()?, classes));
            }
        }
        // Favoured depths of the unit, from the unfavoured ones the files keep: the
        // check then holds every unfavoured depth against them.
        for &u in &unit {
            if filled.insert(u) {
                let get = |c: Sector| mem.get(&c).map(|(v, k)| Loaded { values: v, classes: k });
                let depth = fill_favoured(game, u, &values, &get);
                mem.get_mut(&u).unwrap().1.depth = depth;
            }
        }
        let get = |c: Sector| mem.get(&c).map(|(v, k)| Loaded { values: v, classes: k });
        let out = check_sector(game, x, &values, &get);
        total.checked += out.checked;
        total.mismatches += out.mismatches;
        total.examples.extend(out.examples.into_iter().take(20 - total.examples.len().min(20)));
        let later: BTreeSet<Sector> = order[pos + 1..].iter().flat_map(|y| std::iter::once(*y).chain(y.children(game))).collect();
        mem.retain(|c, _| later.contains(c));
        filled.retain(|c| mem.contains_key(c));
    }
    Ok(total)
}
