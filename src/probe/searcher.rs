//! The placement search as an object a caller starts on purpose: it owns its caches
//! (decoded movement tables, the transposition table) and their bounds.
//!
//! A [`Tablebase`] only reads tables and never searches, so a lookup costs at most a
//! few block reads. A placement position whose sector table is absent can still be
//! solved exactly by searching over the movement tables, but from the empty 9-9 board
//! that takes minutes and gigabytes: only a caller that means it builds a [`Searcher`].

use super::{ProbeError, Tablebase};
use crate::position::subspace::Subspace;
use crate::position::value::{MoveInfo, Value};
use crate::position::Position;
use crate::solve::placement::{MovementTables, Solution, Tt, Values};
use crate::solve::progress::Progress;
use crate::table::TableError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The bounds of a [`Searcher`]'s memory.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Bytes of the transposition table that the searches share. It is mapped lazily,
    /// so only the entries searches touch take memory.
    pub tt_bytes: usize,
    /// Bytes of decoded movement tables kept between searches (a search holds what it
    /// uses for as long as it runs, whatever this says).
    pub keep_bytes: usize,
}

impl Default for SearchOptions {
    /// A 1 GiB transposition table and 4 GiB of kept tables: enough for the 9-9 start.
    fn default() -> SearchOptions {
        SearchOptions { tt_bytes: 1 << 30, keep_bytes: 4 << 30 }
    }
}

/// Decoded movement tables (full values, or packed results when the flag is set)
/// kept between placement searches, within a budget.
struct Kept {
    tables: Mutex<HashMap<(Subspace, bool), Values>>,
    budget: usize,
}

impl Kept {
    /// The table under `key`, read by `read` if it is not kept. The read runs outside
    /// the lock, so a slow read never blocks other threads, and a thread that waits
    /// never runs work that could need the lock it holds.
    fn get(&self, key: (Subspace, bool), read: impl FnOnce() -> Result<memmap2::MmapMut, TableError>) -> Result<Values, TableError> {
        if let Some(v) = self.tables.lock().unwrap().get(&key) {
            return Ok(v.clone());
        }
        let v: Values = Arc::new(read()?);
        let mut map = self.tables.lock().unwrap();
        let v = map.entry(key).or_insert(v).clone();
        let len = |t: &Values| -> usize { AsRef::<[u8]>::as_ref(&**t).len() };
        let bytes = |m: &HashMap<_, Values>| m.values().map(len).sum::<usize>();
        while bytes(&map) > self.budget {
            // Drop the largest table no search is using (only the map holds it).
            let victim = map.iter().filter(|(_, t)| Arc::strong_count(t) == 1).max_by_key(|(_, t)| len(t)).map(|(k, _)| *k);
            match victim {
                Some(k) => map.remove(&k),
                None => break,
            };
        }
        Ok(v)
    }
}

/// Solves placement positions by search over a [`Tablebase`]'s movement tables.
/// `Send + Sync`: share it between threads.
///
/// ```rust
/// use morris::{SearchOptions, Searcher};
/// use morris::{Position, Tablebase, Value};
///
/// // Movement tables only (s + o <= 6): no placement sector table.
/// # let dir = tempfile::tempdir()?;
/// # let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 6, only: None, starts: vec![], rules: morris::Rules::STANDARD };
/// # morris::solve::generate::run(&opts, &morris::NoProgress)?;
/// let tb = Tablebase::open(dir.path())?;
/// let start = Position::parse("........................ w 3 3", morris::Rules::STANDARD)?;
/// assert!(tb.probe(&start).is_err(), "a lookup never searches");
/// let searcher = Searcher::new(&tb, SearchOptions { tt_bytes: 1 << 24, keep_bytes: 1 << 26 });
/// assert_eq!(searcher.solve(&start, &morris::NoProgress)?.value, Value::Win(23));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Searcher {
    tb: Tablebase,
    kept: Arc<Kept>,
    /// What the searches have learned, shared by all of them: the table and its
    /// generation. A search that met a load error has stored bounds computed from
    /// placeholder values, so the table is replaced by a fresh one and the generation
    /// bumped; a search that overlapped a replacement may have read those bounds, so it
    /// fails too rather than return what it found.
    tt: Mutex<(u64, Option<Arc<Tt>>)>,
    options: SearchOptions,
}

impl Searcher {
    /// A searcher over `tb`'s movement tables, within `options`' bounds.
    pub fn new(tb: &Tablebase, options: SearchOptions) -> Searcher {
        Searcher { tb: tb.clone(), kept: Arc::new(Kept { tables: Mutex::default(), budget: options.keep_bytes }), tt: Mutex::new((0, None)), options }
    }

    /// Solves the game from `pos` by search: its value and every move's. Loads the
    /// movement tables the search reaches, where they stay for later searches (within
    /// `keep_bytes`). Ignores placement sector tables, even where they exist; a
    /// movement position's solution is read from its tables.
    pub fn solve(&self, pos: &Position, progress: &dyn Progress) -> Result<Solution, ProbeError> {
        if self.tb.rules().lasker() {
            return Err(ProbeError::SearchRules(*self.tb.rules()));
        }
        self.tb.sector_of(pos)?;
        let tables = self.movement_tables(pos)?;
        let (generation, tt) = {
            let mut g = self.tt.lock().unwrap();
            // Mapped lazily: only the entries searches touch take memory.
            let tt = g.1.get_or_insert_with(|| Arc::new(Tt::new(self.options.tt_bytes))).clone();
            (g.0, tt)
        };
        let solution = crate::solve::placement::search::solve_with_tt(pos, &tables, &tt, progress);
        let mut g = self.tt.lock().unwrap();
        if let Some(e) = tables.take_error() {
            *g = (g.0 + 1, None);
            return Err(e.into());
        }
        if g.0 != generation {
            return Err(ProbeError::Discarded(*pos));
        }
        Ok(solution)
    }

    /// The value of `pos`: read from its table where there is one (as
    /// [`Tablebase::probe`]), otherwise solved by [`Searcher::solve`].
    pub fn value(&self, pos: &Position, progress: &dyn Progress) -> Result<Value, ProbeError> {
        match self.tb.probe(pos) {
            Err(ProbeError::Table(TableError::Missing { .. })) if !pos.is_movement() => Ok(self.solve(pos, progress)?.value),
            other => other,
        }
    }

    /// The line of best moves from `pos` to the end (as [`Tablebase::mainline`]), each
    /// step read from the tables or solved by search.
    pub fn mainline(&self, pos: &Position) -> Result<Vec<crate::probe::LineStep>, ProbeError> {
        let quiet = crate::solve::progress::NoProgress;
        crate::probe::line(pos, |p| self.value(p, &quiet), |p| Ok(self.evaluate(p, &quiet)?.1))
    }

    /// The value of `pos` and of every move, best first: read from the tables where
    /// they answer, otherwise solved by [`Searcher::solve`].
    pub fn evaluate(&self, pos: &Position, progress: &dyn Progress) -> Result<(Value, Vec<MoveInfo>), ProbeError> {
        let read = || -> Result<_, ProbeError> { Ok((self.tb.probe(pos)?, self.tb.probe_moves(pos)?)) };
        match read() {
            Err(ProbeError::Table(TableError::Missing { .. })) if !pos.is_movement() => {
                let s = self.solve(pos, progress)?;
                Ok((s.value, s.moves))
            }
            other => other,
        }
    }

    /// In-memory movement tables for a placement search from `pos`, loaded on first use.
    /// Fails at once if a table the game could reach is damaged, or missing (naming
    /// every missing one).
    fn movement_tables(&self, pos: &Position) -> Result<MovementTables, ProbeError> {
        let needed = MovementTables::needed(pos);
        let mut files = HashMap::new();
        let mut missing = vec![];
        for &sub in &needed {
            match self.tb.table(sub) {
                Ok(t) => {
                    files.insert(sub, t.clone());
                }
                Err(TableError::Missing { .. }) => missing.push(sub),
                Err(e) => return Err(e.into()),
            }
        }
        if !missing.is_empty() {
            return Err(ProbeError::MissingTables { subspaces: missing });
        }
        let (kept, wld_kept) = (self.kept.clone(), self.kept.clone());
        // Deep lists are read with each table's header: the few values beyond a byte.
        let deep = files.iter().filter(|(_, t)| !t.deep().is_empty()).map(|(&sub, t)| (sub, t.deep().clone())).collect();
        let files = Arc::new(files);
        let wld_files = files.clone();
        Ok(MovementTables::lazy(
            crate::rules::game::Game::of(*self.tb.rules()),
            move |sub| kept.get((sub, false), || files[&sub].read_all_mapped()),
            move |sub| wld_kept.get((sub, true), || wld_files[&sub].read_wld_mapped()),
        )
        .with_deep(deep))
    }
}
