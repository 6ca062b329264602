//! The forward verifier: every stored value must equal the minimax of its successors'
//! stored values. It shares nothing with the solver's backward pass: it reads the
//! written files through the table reader (checksums included) and generates moves
//! forward, so a bug in unmove generation, counting or depth bookkeeping shows up here.
//! Placement sectors are checked the same way, across sectors: each position's stored
//! value must be the best of its children's, read from the children's sector files.

use crate::position::index::SubspaceIndex;
use crate::rules::movegen::for_each_move;
use crate::position::{Color, Position};
use crate::probe::Tablebase;
use crate::position::value::value_at;
use crate::solve::solver::Progress;
use crate::position::subspace::Subspace;
use crate::position::sector::Sector;
use crate::solve::placement::{for_each_ply_move, Ply};
use crate::rules::movegen::NONE;
use crate::table::TableError;
use crate::position::value::{Deep, Value};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// One disagreement between a stored value and its successors.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The table.
    pub sector: Sector,
    /// The index slot of the position in the table.
    pub slot: u64,
    /// The position, White to move (colour is immaterial in the movement phase).
    pub position: String,
    /// The value in the table, for the side to move.
    pub stored: Value,
    /// The value its successors' stored values give.
    pub expected: Value,
}

/// What a verification found. An empty `mismatches` with `mismatch_count == 0` is a
/// pass.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Only results were compared (win, draw or loss), not depths: some table read
    /// holds results only.
    pub results_only: bool,
    /// Positions checked (index holes are skipped).
    pub checked: u64,
    /// The first disagreements found (at most 100 per table), for the report.
    pub mismatches: Vec<Mismatch>,
    /// Every disagreement, counted.
    pub mismatch_count: u64,
}

const KEEP: usize = 100;

/// [`needs`] under `game`'s rules (`take=each` adds the sectors two stones down).
pub fn needs(sector: Sector, game: &crate::rules::game::Game) -> Vec<Sector> {
    match sector.subspace() {
        Some(sub) => {
            let mut v: Vec<Sector> = vec![sector, sub.mirror().into()];
            v.extend(sub.capture_targets(game).into_iter().map(Sector::from));
            v.dedup();
            v
        }
        None => {
            let mut v = vec![sector];
            v.extend(sector.children(game));
            v
        }
    }
}

/// A table's value bytes for the verifier. In results-only mode every table is read as
/// its results with stand-in depths (a win in 1, a loss in 0): the minimax of results
/// does not depend on depths, so the results of the expected values are exact, and
/// only results are compared.
fn load(tb: &Tablebase, s: Sector, results_only: bool) -> Result<(Vec<u8>, Deep), TableError> {
    let t = tb.table(s)?;
    if !results_only {
        return Ok((t.read_all()?, t.deep().clone()));
    }
    let wld = t.read_wld_mapped()?;
    let n = t.header.entries as usize;
    let values = (0..n).map(|i| match (wld[i / 4] >> (2 * (i % 4))) & 3 {
        0 => 0,
        1 => crate::position::value::enc_win(1),
        _ => crate::position::value::enc_loss(0),
    }).collect();
    Ok((values, Deep::default()))
}

/// Whether `expected` and `stored` disagree: in value, or only in result.
fn differ(expected: Value, stored: Value, results_only: bool) -> bool {
    if results_only {
        crate::position::value::Wdl::from(expected) != crate::position::value::Wdl::from(stored)
    } else {
        expected != stored
    }
}

/// Verifies the given subspaces, whose tables (and those their moves lead to) must exist.
/// Each table is read whole and checked against its checksums on the way, so an error
/// is a table that is missing or damaged; a wrong value is a [`Mismatch`].
pub fn verify(tb: &Tablebase, subs: &[Subspace], progress: &dyn Progress) -> Result<Outcome, TableError> {
    let sectors: Vec<Sector> = subs.iter().map(|&s| s.into()).collect();
    verify_sectors(tb, &sectors, progress)
}

fn verify_movement(tb: &Tablebase, subs: &[Subspace], results_only: bool, progress: &dyn Progress) -> Result<Outcome, TableError> {
    let mut out = Outcome { results_only, ..Outcome::default() };
    let mut loaded: HashMap<Subspace, (Vec<u8>, Deep)> = HashMap::new();
    let game = tb.rules().game();
    for &sub in subs {
        let mut need = vec![sub, sub.mirror()];
        let capture_subs = sub.capture_targets(game);
        need.extend(capture_subs.iter().copied());
        loaded.retain(|s, _| need.contains(s));
        for s in need {
            if let std::collections::hash_map::Entry::Vacant(e) = loaded.entry(s) {
                e.insert(load(tb, s.into(), results_only)?);
            }
        }
        let board = game.rules().board();
        let idx = SubspaceIndex::new(board, sub.s, sub.o);
        let mirror = (SubspaceIndex::new(board, sub.o, sub.s), &loaded[&sub.mirror()].0, &loaded[&sub.mirror()].1);
        // Children by stones removed: one, and two under `take=each`.
        let captures: Vec<Option<(SubspaceIndex, &Vec<u8>, &Deep)>> =
            (1..=2).map(|k| sub.after_removing(k).filter(|_| k == 1 || game.take_each()).map(|c| (SubspaceIndex::new(board, c.s, c.o), &loaded[&c].0, &loaded[&c].1))).collect();
        let (full_draw, full) = (game.full_board_draw(), game.full());
        let (values, deep) = (&loaded[&sub].0, &loaded[&sub].1);
        let found = Mutex::new(Vec::new());
        progress.begin(&format!("verify {sub}"), values.len() as u64);
        let (checked, bad): (u64, u64) = values
            .par_chunks(1 << 14)
            .enumerate()
            .map(|(c, chunk)| crate::cpu::fast!({
                let (mut checked, mut bad) = (0u64, 0u64);
                let start = (c << 14) as u64;
                // Child slots of one position: found first and prefetched, read after.
                let mut at: Vec<(u64, usize)> = Vec::with_capacity(64);
                for ((i, m, o), &byte) in idx.walk(start, start + chunk.len() as u64).zip(chunk) {
                    if idx.may_be_hole(i) && idx.is_hole(i) {
                        continue; // a don't-care entry
                    }
                    // Every non-capturing child has the same side to move, `o`.
                    let stored = value_at(byte, i, Some(deep));
                    let prep = mirror.0.prepare(o, true);
                    at.clear();
                    let mut wins_now = false;
                    for_each_move(game, m, o, #[inline(always)] |_, cm, co| {
                        let removed = sub.o as usize - cm.count_ones() as usize;
                        if cm.count_ones() < 3 {
                            wins_now = true;
                        } else if removed == 0 {
                            let ci = mirror.0.index_with(&prep, cm, co);
                            crate::solve::placement::prefetch(mirror.1.as_ptr().wrapping_add(ci as usize));
                            at.push((ci, 0));
                        } else {
                            let (cx, cv, _) = captures[removed - 1].expect("a capture leads to a solved subspace");
                            let ci = cx.index(cm, co);
                            crate::solve::placement::prefetch(cv.as_ptr().wrapping_add(ci as usize));
                            at.push((ci, removed));
                        }
                    });
                    let expected = if wins_now {
                        Value::Win(1)
                    } else if at.is_empty() && full_draw && m | o == full {
                        Value::Draw
                    } else {
                        let mut best: Option<Value> = None;
                        for &(ci, removed) in &at {
                            let (cv, cd) = if removed > 0 { captures[removed - 1].map(|c| (c.1, c.2)).expect("capture table") } else { (mirror.1, mirror.2) };
                            let v = value_at(cv[ci as usize], ci, Some(cd)).parent();
                            if best.is_none_or(|b| v.goodness() > b.goodness()) {
                                best = Some(v);
                            }
                        }
                        best.unwrap_or(Value::Loss(0))
                    };
                    checked += 1;
                    if differ(expected, stored, results_only) {
                        bad += 1;
                        let mut f = found.lock().unwrap();
                        if f.len() < KEEP {
                            f.push(Mismatch {
                                sector: sub.into(),
                                slot: i,
                                position: Position::movement(game.rules(), Color::White, m, o).to_string(),
                                stored,
                                expected,
                            });
                        }
                    }
                }
                progress.advance(chunk.len() as u64);
                (checked, bad)
            }))
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        out.checked += checked;
        out.mismatch_count += bad;
        out.mismatches.extend(found.into_inner().unwrap());
    }
    Ok(out)
}

/// Verifies tables of any kind: movement subspaces against their successors in the
/// subspaces their moves lead to, placement sectors by the best of their children's
/// values, read from the children's files (all of [`needs`] must exist). If any of
/// these tables holds results only, every table is compared by result only.
pub fn verify_sectors(tb: &Tablebase, sectors: &[Sector], progress: &dyn Progress) -> Result<Outcome, TableError> {
    let mut results_only = false;
    let game = tb.rules().game();
    for &s in sectors.iter().flat_map(|&s| needs(s, game)).collect::<std::collections::BTreeSet<_>>().iter() {
        results_only |= tb.table(s)?.header.results_only;
    }
    let subs: Vec<Subspace> = sectors.iter().filter_map(|s| s.subspace()).collect();
    let mut out = verify_movement(tb, &subs, results_only, progress)?;
    let mut loaded: HashMap<Sector, (Vec<u8>, Deep)> = HashMap::new();
    for &sector in sectors.iter().filter(|s| !s.is_movement()) {
        let mut need = sector.children(game);
        need.push(sector);
        loaded.retain(|s, _| need.contains(s));
        for &s in &need {
            if let std::collections::hash_map::Entry::Vacant(e) = loaded.entry(s) {
                e.insert(load(tb, s, results_only)?);
            }
        }
        let one = verify_placement(game, sector, &loaded, results_only, progress);
        out.checked += one.checked;
        out.mismatch_count += one.mismatch_count;
        out.mismatches.extend(one.mismatches);
    }
    Ok(out)
}

fn verify_placement(game: &crate::rules::game::Game, sector: Sector, loaded: &HashMap<Sector, (Vec<u8>, Deep)>, results_only: bool, progress: &dyn Progress) -> Outcome {
    let idx = sector.index(game.rules().board());
    let (values, deep) = (&loaded[&sector].0, &loaded[&sector].1);
    let ply = Ply { white_hand: sector.sh, black_hand: sector.oh, to_move: Color::White };
    // The child sectors' indexes and values, looked up once rather than per child.
    let children: Vec<(Sector, SubspaceIndex, &[u8], &Deep)> =
        sector.children(game).into_iter().map(|c| (c, c.index(game.rules().board()), loaded[&c].0.as_slice(), &loaded[&c].1)).collect();
    assert!(children.len() <= 6, "a plain child and two capture children, for a placement and (Lasker) a move");
    // Only the plain child keeps the opponent's stones as they are; a capture child
    // has one fewer, so its index cannot be prepared from them.
    let plain = children.iter().position(|c| c.0 == sector.after_move());
    let found = Mutex::new(Vec::new());
    progress.begin(&format!("verify {sector}"), values.len() as u64);
    let (checked, bad): (u64, u64) = values
        .par_chunks(1 << 14)
        .enumerate()
        .map(|(c, chunk)| crate::cpu::fast!({
            let (mut checked, mut bad) = (0u64, 0u64);
            let start = (c << 14) as u64;
            // Child slots of one position: found first and prefetched, read after.
            let mut at: Vec<(usize, u64)> = Vec::with_capacity(256);
            for ((i, m, o), &byte) in idx.walk(start, start + chunk.len() as u64).zip(chunk) {
                if idx.may_be_hole(i) && idx.is_hole(i) {
                    continue;
                }
                // A child that captures nothing keeps the opponent's stones, which
                // become the child's side to move: its index is prepared once. The
                // prepared index must only be used for that child's slots.
                let prep = plain.and_then(|k| children[k].1.prepare(o, true));
                at.clear();
                let mut wins_now = false;
                for_each_ply_move(game, ply, m, o, #[inline(always)] |mv, after, opp_after| {
                    // The child, from its own side to move's point of view, found by
                    // its stone counts rather than assumed from the sector graph.
                    let (cs, co) = (opp_after.count_ones() as u8, after.count_ones() as u8);
                    let sh_after = if mv.from == NONE { sector.sh.saturating_sub(1) } else { sector.sh };
                    if Sector::new(cs, co, sector.oh, sh_after).is_none() {
                        assert!(mv.capture != NONE, "a move without capture leaves both sides in the game");
                        wins_now = true;
                        return;
                    }
                    let k = children
                        .iter()
                        .position(|c| c.0.s == cs && c.0.o == co && c.0.oh == sh_after)
                        .expect("every child is in a child sector");
                    let ci = children[k].1.index_with(if Some(k) == plain { &prep } else { &None }, opp_after, after);
                    crate::solve::placement::prefetch(children[k].2.as_ptr().wrapping_add(ci as usize));
                    at.push((k, ci));
                });
                let expected = if wins_now {
                    Value::Win(1)
                } else {
                    let mut best: Option<Value> = None;
                    for &(k, ci) in &at {
                        let v = value_at(children[k].2[ci as usize], ci, Some(children[k].3)).parent();
                        if best.is_none_or(|b| v.goodness() > b.goodness()) {
                            best = Some(v);
                        }
                    }
                    best.unwrap_or(Value::Loss(0))
                };
                let stored = value_at(byte, i, Some(deep));
                checked += 1;
                if differ(expected, stored, results_only) {
                    bad += 1;
                    let mut f = found.lock().unwrap();
                    if f.len() < KEEP {
                        let position = Position::unchecked(game.rules(), m, o, sector.sh, sector.oh, Color::White);
                        f.push(Mismatch { sector, slot: i, position: position.to_string(), stored, expected });
                    }
                }
            }
            progress.advance(chunk.len() as u64);
            (checked, bad)
        }))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    Outcome { results_only, checked, mismatches: found.into_inner().unwrap(), mismatch_count: bad }
}
