//! The forward verifier: every stored value must equal the minimax of its successors'
//! stored values. It shares nothing with the solver's backward pass: it reads the
//! written files through the table reader (checksums included) and generates moves
//! forward, so a bug in unmove generation, counting or depth bookkeeping shows up here.
//! Movement subspaces and placement sectors are checked alike (`check`): each
//! position's stored value must be the best of its children's, read from the files of
//! the sectors its moves lead into. What is compared is a [`Grade`]: values with their
//! depths, or results alone where a table holds no depths.

mod check;
pub mod journal;

use crate::position::sector::Sector;
use crate::position::subspace::Subspace;
use crate::position::value::Value;
use crate::probe::{Grade, Tablebase};
use crate::solve::progress::Progress;
use crate::table::TableError;
use std::collections::{BTreeSet, HashMap};

/// One disagreement between a stored value and its successors.
#[derive(Clone, Debug)]
pub struct Mismatch<V = Value> {
    /// The table.
    pub sector: Sector,
    /// The index slot of the position in the table.
    pub slot: u64,
    /// The position, White to move (colour is immaterial in the movement phase).
    pub position: String,
    /// The value in the table, for the side to move.
    pub stored: V,
    /// The value its successors' stored values give.
    pub expected: V,
}

/// What a verification found. An empty `mismatches` with `mismatch_count == 0` is a
/// pass.
#[derive(Debug)]
pub struct Outcome<V = Value> {
    /// Positions checked (index holes are skipped).
    pub checked: u64,
    /// The first disagreements found (at most 100 per table), for the report.
    pub mismatches: Vec<Mismatch<V>>,
    /// Every disagreement, counted.
    pub mismatch_count: u64,
}

impl<V> Default for Outcome<V> {
    fn default() -> Outcome<V> {
        Outcome { checked: 0, mismatches: Vec::new(), mismatch_count: 0 }
    }
}

impl<V> Outcome<V> {
    fn add(&mut self, other: Outcome<V>) {
        self.checked += other.checked;
        self.mismatch_count += other.mismatch_count;
        self.mismatches.extend(other.mismatches);
    }
}

/// The tables that checking `sector` reads under `game`'s rules: its own, and those of
/// the sectors its moves lead into (`take=each` adds the sectors two stones down).
pub fn needs(sector: Sector, game: &crate::rules::game::Game) -> Vec<Sector> {
    let mut v = vec![sector];
    for c in sector.children(game) {
        // A movement subspace of equal sides, or a Lasker sector of equal sides and
        // hands, is its own mirror.
        if !v.contains(&c) {
            v.push(c);
        }
    }
    v
}

/// Whether some table that checking `sectors` reads holds results only: then only
/// results can be checked (a [`Wdl`](crate::position::value::Wdl) check). Opens every
/// such table, so a missing or damaged header is an error here, before any check.
pub fn results_only(tb: &Tablebase, sectors: &[Sector]) -> Result<bool, TableError> {
    Ok(first_results_only(tb, sectors)?.is_some())
}

/// The first table, in sector order, that checking `sectors` reads and that holds
/// results only; every table is opened, and the first error returned.
fn first_results_only(tb: &Tablebase, sectors: &[Sector]) -> Result<Option<std::path::PathBuf>, TableError> {
    let game = tb.rules().game();
    let mut first = None;
    for s in sectors.iter().flat_map(|&s| needs(s, game)).collect::<BTreeSet<_>>() {
        let t = tb.table(s)?;
        if t.header.results_only && first.is_none() {
            first = Some(t.path.clone());
        }
    }
    Ok(first)
}

/// Verifies the given subspaces, whose tables (and those their moves lead to) must exist.
/// Each table is read whole and checked against its checksums on the way, so an error
/// is a table that is missing or damaged; a wrong value is a [`Mismatch`].
pub fn verify<V: Grade>(tb: &Tablebase, subs: &[Subspace], progress: &dyn Progress) -> Result<Outcome<V>, TableError> {
    let sectors: Vec<Sector> = subs.iter().map(|&s| s.into()).collect();
    verify_sectors(tb, &sectors, progress)
}

/// Verifies tables of any kind, movement subspaces first and then placement sectors,
/// each in the order given: every position against the best of its children's values,
/// read from the children's files (all of [`needs`] must exist). A [`Value`] check
/// needs every table in full; [`results_only`] says whether only a
/// [`Wdl`](crate::position::value::Wdl) check can run.
pub fn verify_sectors<V: Grade>(tb: &Tablebase, sectors: &[Sector], progress: &dyn Progress) -> Result<Outcome<V>, TableError> {
    verify_sectors_each(tb, sectors, progress, &mut |_, _| Ok(()))
}

/// Like [`verify_sectors`], and calls `done` with each table and its own outcome as soon
/// as it is checked: a long run records its progress there (see [`journal`]).
pub fn verify_sectors_each<V: Grade>(
    tb: &Tablebase,
    sectors: &[Sector],
    progress: &dyn Progress,
    done: &mut dyn FnMut(Sector, &Outcome<V>) -> Result<(), TableError>,
) -> Result<Outcome<V>, TableError> {
    // Every table is opened first: a missing one fails now, not after hours of checks.
    if let Some(path) = first_results_only(tb, sectors)?.filter(|_| V::DEPTHS) {
        return Err(TableError::ResultsOnly { path });
    }
    let game = tb.rules().game();
    let mut out = Outcome::default();
    // The tables of the last sector checked, kept while the next one needs them.
    let mut loaded: HashMap<Sector, V::Whole> = HashMap::new();
    for &sector in sectors.iter().filter(|s| s.is_movement()).chain(sectors.iter().filter(|s| !s.is_movement())) {
        let need = needs(sector, game);
        loaded.retain(|s, _| need.contains(s));
        for &s in &need {
            if let std::collections::hash_map::Entry::Vacant(e) = loaded.entry(s) {
                e.insert(V::whole(tb.table(s)?)?);
            }
        }
        let one = check::check::<V>(game, sector, &loaded, progress);
        done(sector, &one)?;
        out.add(one);
    }
    Ok(out)
}
