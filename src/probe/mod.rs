//! The probe library: values of positions and of every move, read from table files.
//!
//! A `Tablebase` opens a directory; each sector's file is opened the first time it is
//! needed. A probe canonicalises and indexes the position, reads the one block holding
//! its slot (checked against the block's hashes) and decodes the byte. Recently used
//! blocks are kept in a small cache of bounded size (`cache`). Movement positions and
//! placement positions take the same path. A lookup never searches: a position whose
//! table is absent is an error, unless a compact set derives it through one ply over
//! its kept tables ([`crate::table::compact`]). Searching is
//! [`Searcher`](crate::probe::Searcher)'s, on purpose.

mod cache;
mod grade;
mod searcher;
pub(crate) use grade::sealed::NO_KEY;
pub use grade::Grade;
pub use searcher::{SearchOptions, Searcher};
pub mod ultra;

use crate::position::sector::Sector;
use crate::position::subspace::Subspace;
use crate::position::value::{sort_moves, MoveInfo, Value, Wdl};
use crate::position::{Color, Position, PositionError};
use crate::rules::movegen::NONE;
use crate::rules::Rules;
use crate::table::{table_path, Planes, TableError, TableFile};
use cache::BlockCache;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Why a probe failed. The messages say what went wrong; which command mends it is
/// for the front end to say.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// A table could not be read: missing, damaged, results only where depths are
    /// needed, of other rules, or of another format (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The position is not a position of the game (see [`Position::validate`]). The
    /// reason is in the message, and so not also the error's source: a printer of the
    /// source chain would say it twice.
    #[error("invalid position: {0}")]
    Invalid(PositionError),
    /// The side not to move has fewer than 3 stones: the game ended on the previous
    /// move, so no move leads here.
    #[error("the game is over: the side not to move has {0} stones on the board and in hand")]
    GameOver(u8),
    /// A placement search overlapped a search that failed to load a table; its result
    /// was discarded.
    #[error("the search of {0} overlapped a search that failed to load a table; its result was discarded")]
    Discarded(Position),
    /// The placement search needs a placement phase without cycles, which Lasker rules
    /// do not have: there, positions are answered from their sectors' tables.
    #[error("the placement search cannot play `{0}`: a side with stones in hand may also move under Lasker rules, so its placement phase has cycles; solve the placement sectors of these rules instead (`morris solve --rules {0} --start WK-BK`)")]
    SearchRules(Rules),
    /// The directory has no draw classes: no sector values.
    #[error("no draw classes in {}: {why}", dir.display())]
    NoClasses {
        /// The directory.
        dir: PathBuf,
        /// What is missing.
        why: String,
    },
    /// The directory's sector values are there but cannot be read or are not valid:
    /// its classes are refused, not silently dropped as if there were none.
    #[error("the sector values {} cannot be read: {why}", path.display())]
    BadSectorValues {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The position's sector has no draw classes: no play from the starts the
    /// directory's classes were made for reaches it, though the strong tables of those
    /// starts (a coarser sector graph) include it. Its strong value stands alone.
    #[error("no draw class for sector {0}: no play from the classed starts reaches it")]
    Unclassed(Sector),
    /// [`Tablebase::open`] was given a path that is not a directory.
    #[error("no table directory at {}", .0.display())]
    NoDirectory(PathBuf),
    /// A placement search needs movement tables that the directory lacks.
    #[error("missing movement tables {}", .subspaces.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "))]
    MissingTables {
        /// The missing subspaces.
        subspaces: Vec<Subspace>,
    },
}

impl From<PositionError> for ProbeError {
    fn from(e: PositionError) -> ProbeError {
        ProbeError::Invalid(e)
    }
}

/// Default number of decoded blocks kept (at most about 10 KB each).
pub const CACHE_BLOCKS: usize = 1024;

/// The bit that marks a block cache key as a block's WLD plane alone (tables have far
/// fewer than 2^31 blocks).
const WLD_ONLY: u32 = 1 << 31;

/// One step of a [`Tablebase::mainline`]: a move, the position it leads to, and that
/// position's value for its side to move (the other side's view of the move's value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineStep {
    /// The move.
    pub mv: crate::rules::movegen::Move,
    /// The position after it.
    pub position: Position,
    /// The value of `position` for its side to move.
    pub value: Value,
}

/// A directory of tables, opened lazily. `Send + Sync`: share it between threads.
///
/// Every value it returns is for the side to move of the position asked about, with the
/// depth to the end of the game in plies (see [`Value`]). The tables come from
/// `morris solve` or [`generate::run`](crate::solve::generate::run); a position needs its
/// sector's table (or, in a compact set, its children's). Cloning is cheap: clones
/// share the open files and the block cache.
///
/// # Examples
///
/// ```rust
/// use morris::{Position, Tablebase, Value, Wdl};
///
/// // `dir` holds the tables of the game with 3 stones a side (solved here on the fly;
/// // `morris solve --start 3-3` writes the same files).
/// # let dir = tempfile::tempdir()?;
/// # let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
/// # morris::solve::generate::run(&opts, &morris::NoProgress)?;
/// let tb = Tablebase::open(dir.path())?;
///
/// let start = Position::parse("........................ w 3 3", morris::Rules::STANDARD)?;
/// assert_eq!(tb.probe(&start)?, Value::Win(23), "the first player wins the 3-stone game");
/// assert_eq!(tb.probe_wdl(&start)?, Wdl::Win);
///
/// let best = tb.best_move(&start)?.expect("the game is not over");
/// assert_eq!(best.value, Value::Win(23));
/// assert_eq!(tb.probe(&best.child)?, Value::Loss(22), "now for Black, to move");
///
/// // One table serves every thread.
/// let pos = Position::parse(".WW....B.B....B........W b", morris::Rules::STANDARD)?;
/// std::thread::scope(|s| {
///     let handle = s.spawn(|| tb.probe(&pos).unwrap());
///     assert_eq!(handle.join().unwrap(), Value::Loss(26));
/// });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Tablebase(Arc<Inner>);

struct Inner {
    dir: PathBuf,
    rules: Rules,
    /// By `sector_slot`: every sector of the standard rules has a cell.
    files: Vec<OnceLock<Arc<TableFile>>>,
    cache: Mutex<BlockCache>,
    cache_blocks: usize,
    /// The draw classes, once asked for: the sector values, or why there are none.
    classes: OnceLock<Result<ultra::Classes, ultra::Unreadable>>,
}

fn sector_slot(x: Sector) -> usize {
    const N: usize = crate::position::sector::STONES as usize + 1;
    ((x.s as usize * N + x.o as usize) * N + x.sh as usize) * N + x.oh as usize
}

/// The sector of `pos`, from the side to move's point of view; `Ok(None)` when the side
/// to move has fewer than 3 stones left (it has lost). Fails on an invalid position and
/// on one where the opponent has fewer than 3 stones (no move could lead there).
pub fn sector_of(pos: &Position) -> Result<Option<Sector>, ProbeError> {
    pos.validate()?;
    let (m, o) = (pos.mover().count_ones() as u8, pos.opponent().count_ones() as u8);
    let (mh, oh) = if pos.to_move == Color::White { (pos.white_hand, pos.black_hand) } else { (pos.black_hand, pos.white_hand) };
    // The side that just moved still has 3 stones: the game ends as soon as one side
    // has fewer, so two such sides (`WW.......BB............. w 0 0`) never meet.
    if o + oh < 3 {
        return Err(ProbeError::GameOver(o + oh));
    }
    if m + mh < 3 {
        return Ok(None);
    }
    Sector::new(m, o, mh, oh).map(Some).ok_or(ProbeError::GameOver(o + oh))
}

/// Every legal move with the position it leads to, and whether it captures the
/// opponent down to two stones (a win at once, with no table to read).
fn children(pos: &Position) -> Vec<(crate::rules::movegen::Move, Position, bool)> {
    pos.children().into_iter().map(|(mv, child)| (mv, child, mv.capture != NONE && matches!(sector_of(&child), Ok(None)))).collect()
}

impl Tablebase {
    /// Opens the table directory `dir` of the standard rules with the default block
    /// cache ([`CACHE_BLOCKS`]). Fails only if `dir` is not a directory: each table is
    /// opened, and its header checked, by the first probe that needs it, so a missing
    /// or damaged table is an error of that probe.
    ///
    /// ```rust
    /// use morris::probe::{ProbeError, Tablebase};
    /// use morris::table::TableError;
    /// use morris::Position;
    ///
    /// # let dir = tempfile::tempdir()?;
    /// let tb = Tablebase::open(dir.path())?; // an empty directory opens
    /// let pos = Position::parse("WWWW.....B.B....B....... b", morris::Rules::STANDARD)?;
    /// match tb.probe(&pos) {
    ///     Err(ProbeError::Table(TableError::Missing { sector, .. })) => assert_eq!(sector.to_string(), "3-4"),
    ///     other => panic!("{other:?}"),
    /// }
    /// assert!(matches!(Tablebase::open("no/such/dir".as_ref()), Err(ProbeError::NoDirectory(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(dir: &Path) -> Result<Tablebase, ProbeError> {
        Self::with_cache(dir, CACHE_BLOCKS)
    }

    /// Opens with a block cache of `blocks` decoded blocks (0 disables it).
    pub fn with_cache(dir: &Path, blocks: usize) -> Result<Tablebase, ProbeError> {
        Self::with_rules(dir, Rules::STANDARD, blocks)
    }

    /// Opens the tables of `rules` in `dir`, with a block cache of `blocks` blocks: a
    /// table made under other rules is an error ([`TableError::WrongRules`]).
    pub fn with_rules(dir: &Path, rules: Rules, blocks: usize) -> Result<Tablebase, ProbeError> {
        if !dir.is_dir() {
            return Err(ProbeError::NoDirectory(dir.to_owned()));
        }
        Ok(Tablebase(Arc::new(Inner {
            dir: dir.to_owned(),
            rules,
            files: (0..(crate::position::sector::STONES as usize + 1).pow(4)).map(|_| OnceLock::new()).collect(),
            cache: Mutex::new(BlockCache::default()),
            cache_blocks: blocks,
            classes: OnceLock::new(),
        })))
    }

    /// The table directory.
    pub fn dir(&self) -> &Path {
        &self.0.dir
    }

    /// The rule set whose tables this reads.
    pub fn rules(&self) -> &Rules {
        &self.0.rules
    }

    /// The sector of `pos` ([`sector_of`]), once `pos` is known to be a position of
    /// these tables' rules: a position of other rules is refused, naming both, since
    /// its value under these rules would look right and be wrong.
    pub fn sector_of(&self, pos: &Position) -> Result<Option<Sector>, ProbeError> {
        if pos.rules() != self.0.rules {
            return Err(ProbeError::Invalid(PositionError::OtherRules(pos.rules().to_string(), self.0.rules.to_string())));
        }
        sector_of(pos)
    }

    /// Whether probes of `sector`'s positions read tables only: its table is in the
    /// directory, or, in a compact set (see [`compact`](crate::table::compact)), the tables of
    /// every sector its moves lead into are.
    pub fn readable(&self, sector: Sector) -> bool {
        let here = |x: Sector| table_path(self.dir(), x).exists();
        here(sector) || sector.children(self.rules().game()).into_iter().all(here)
    }

    /// The table of `sub`, opened (header and index checked) on first use and kept
    /// open.
    pub fn table(&self, sub: impl Into<Sector>) -> Result<&Arc<TableFile>, TableError> {
        let sub: Sector = sub.into();
        // Fields are public, so a sector may be out of range: an error, not a panic.
        let Some(cell) = self.0.files.get(sector_slot(sub)).filter(|_| sub.s.max(sub.o).max(sub.sh).max(sub.oh) <= self.rules().stones()) else {
            return Err(TableError::NoSuchSector(sub));
        };
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let t = Arc::new(TableFile::open(&table_path(self.dir(), sub), sub, self.rules())?);
        Ok(cell.get_or_init(|| t))
    }

    /// The stored byte of slot `i` of `sub` (decode it with [`TableFile::value_of`]), for
    /// tools that walk a table by index (see [`Sector::index`]). Slots that are holes of
    /// the index hold a don't-care byte. Fails on a results-only table.
    pub fn probe_slot(&self, sub: impl Into<Sector>, i: u64) -> Result<u8, TableError> {
        let sub: Sector = sub.into();
        let t = self.table(sub)?;
        let bs = t.header.block_size as u64;
        let k = (i / bs) as u32;
        self.block(t, sub, k, true)?.get((i % bs) as usize).ok_or_else(|| invalid_entry(t, k))
    }

    /// Block `k` of `sector`'s table `t`, from the block cache or read and kept there:
    /// with its depth plane if `depths`, else its WLD plane alone. A block read in full
    /// serves results too; a WLD plane alone is kept under a key of its own, since it
    /// must never answer a read that needs the depth.
    fn block(&self, t: &TableFile, sector: Sector, k: u32, depths: bool) -> Result<Arc<Planes>, TableError> {
        let (full, results) = ((sector, k), (sector, k | WLD_ONLY));
        let cached = {
            let mut cache = self.0.cache.lock().unwrap();
            cache.get(full).or_else(|| if depths { None } else { cache.get(results) })
        };
        if let Some(b) = cached {
            return Ok(b);
        }
        let b = Arc::new(if depths { t.read_planes(k as usize)? } else { t.read_wld_planes(k as usize)? });
        self.0.cache.lock().unwrap().put(if depths { full } else { results }, b.clone(), self.0.cache_blocks);
        Ok(b)
    }

    /// The value of a position for its side to move, read from its sector's table: one
    /// block of one file. Never searches: an absent table is [`TableError::Missing`].
    /// `V` is what is read: a [`Value`] needs the block's depth plane too, a [`Wdl`]
    /// only its WLD plane (about a quarter of the data), which results-only tables
    /// also have. [`Tablebase::probe`] and [`Tablebase::probe_wdl`] name the two.
    ///
    /// A table that a compact set left out (see [`compact`](crate::table::compact)) is read
    /// through one ply: the position's value is the best of its children's, each read
    /// from its own table. That costs one lookup per move instead of one in all; if a
    /// child's table is missing too, the error names the position's own table, and a
    /// damaged child table is an error, never a guess.
    ///
    /// ```rust
    /// use morris::{Position, Tablebase, Value, Wdl};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
    /// # morris::solve::generate::run(&opts, &morris::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let pos = Position::parse(".WW....B.B....B........W b", morris::Rules::STANDARD)?;
    /// assert_eq!(tb.probe_as::<Value>(&pos)?, Value::Loss(26));
    /// assert_eq!(tb.probe_as::<Wdl>(&pos)?, Wdl::Loss);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_as<V: Grade>(&self, pos: &Position) -> Result<V, ProbeError> {
        let Some(sector) = self.sector_of(pos)? else { return Ok(V::LOST) };
        // One choice of code path a probe: the index computation lands in the copy
        // with popcnt (see `cpu`).
        match crate::cpu::fast!(self.lookup::<V>(sector, pos)) {
            Err(missing @ TableError::Missing { .. }) => match self.derive::<V>(pos) {
                // A child's table missing too: report the position's own. Any other
                // error (a damaged child table) is reported as it is.
                Err(TableError::Missing { .. }) => Err(missing.into()),
                other => Ok(other?),
            },
            other => Ok(other?),
        }
    }

    /// The value of a position for the side to move, with the depth to the end of the
    /// game: [`Tablebase::probe_as`] of a [`Value`].
    ///
    /// ```rust
    /// use morris::{Position, Tablebase, Value};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
    /// # morris::solve::generate::run(&opts, &morris::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// // A movement position: Black, to move, has three stones to White's three.
    /// let pos = Position::parse(".WW....B.B....B........W b", morris::Rules::STANDARD)?;
    /// assert_eq!(tb.probe(&pos)?, Value::Loss(26));
    /// // A placement position, one stone in each hand: d6 closes d7-d6-d5 and takes
    /// // Black's third stone.
    /// let pos = Position::parse("BW.....W.......B........ w 1 1", morris::Rules::STANDARD)?;
    /// assert_eq!(tb.probe(&pos)?, Value::Win(1));
    /// // White, down to two stones, has lost. With Black to move the same board cannot
    /// // arise: the game ended when Black took White's third stone.
    /// let lost = Position::parse("WW.....B.B....B......... w", morris::Rules::STANDARD)?;
    /// assert_eq!(tb.probe(&lost)?, Value::Loss(0));
    /// let over = Position::parse("WW.....B.B....B......... b", morris::Rules::STANDARD)?;
    /// assert!(tb.probe(&over).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        self.probe_as(pos)
    }

    /// Win, draw or loss of a position without its depth: [`Tablebase::probe_as`] of a
    /// [`Wdl`], which reads only WLD planes, and so works on results-only tables too.
    ///
    /// ```rust
    /// use morris::{Position, Tablebase, Wdl};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
    /// # morris::solve::generate::run(&opts, &morris::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let pos = Position::parse(".WW....B.B....B........W b", morris::Rules::STANDARD)?;
    /// assert_eq!(tb.probe_wdl(&pos)?, Wdl::Loss);
    /// // Results of every move, for the side that plays it: all lose.
    /// let moves = tb.probe_moves_wdl(&pos)?;
    /// assert!(moves.iter().all(|m| m.value == Wdl::Loss));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.probe_as(pos)
    }

    /// [`Tablebase::probe_as`] of the movement position `(mover, opp)`: the side to
    /// move's stones and the opponent's, as bitboards (colour plays no part in the
    /// movement phase).
    pub fn probe_movement<V: Grade>(&self, mover: u32, opp: u32) -> Result<V, ProbeError> {
        self.probe_as(&Position::movement(*self.rules(), Color::White, mover, opp))
    }

    /// The position's entry in `sector`'s table. Without a block cache a result is
    /// read alone, never a whole block's planes.
    #[inline(always)]
    fn lookup<V: Grade>(&self, sector: Sector, pos: &Position) -> Result<V, TableError> {
        let i = sector.index(self.rules().board()).index(pos.mover(), pos.opponent());
        let t = self.table(sector)?;
        let bs = t.header.block_size as u64;
        let (k, off) = ((i / bs) as u32, (i % bs) as usize);
        let v = if self.0.cache_blocks == 0 { V::uncached(t, k as usize, off, i)? } else { V::in_block(t, &*self.block(t, sector, k, V::DEPTHS)?, off, i)? };
        v.ok_or_else(|| invalid_entry(t, k))
    }

    /// The value of a position whose table is left out: the best of its children's
    /// values one ply up, each child read from its own table, which must be present.
    /// Every child is read, a winning one found or not: a damaged table is an error
    /// whatever the order of the moves.
    fn derive<V: Grade>(&self, pos: &Position) -> Result<V, TableError> {
        let mut best: Option<V> = None;
        for (_, child, wins) in children(pos) {
            let v = match (wins, self.sector_of(&child)) {
                (true, _) => V::WIN_NOW,
                (false, Ok(Some(cs))) => self.lookup::<V>(cs, &child)?.parent(),
                (false, _) => unreachable!("a move without capture leaves both sides in the game"),
            };
            best = best.max(Some(v));
        }
        // No legal move: a side that moves is blocked and has lost.
        Ok(best.unwrap_or(V::LOST))
    }

    /// The best move (fastest win, longest loss, or a drawing move) with its value for
    /// the side that plays it, which is the position's value; `None` when the game is
    /// over. Among equally good moves the first in a fixed order is chosen, so the
    /// answer is deterministic.
    ///
    /// ```rust
    /// use morris::{Position, Tablebase, Value};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
    /// # morris::solve::generate::run(&opts, &morris::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let pos = Position::parse(".WW....B.B....B........W b", morris::Rules::STANDARD)?;
    /// let best = tb.best_move(&pos)?.expect("Black has moves");
    /// assert_eq!((best.mv.to_string(), best.value), ("d5-a7".to_string(), Value::Loss(26)));
    /// // Every move, best first:
    /// let moves = tb.probe_moves(&pos)?;
    /// assert_eq!(moves[0], best);
    /// assert_eq!(moves[1].value, Value::Loss(20));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Where the directory has draw classes (`morris solve --ultra`), the choice among
    /// drawing moves is the ultra-strong one ([`Tablebase::best_move_ultra`]): the draw
    /// that heads for the sector best for the side to move. [`Tablebase::best_move_strong`]
    /// treats all draws alike.
    pub fn best_move(&self, pos: &Position) -> Result<Option<MoveInfo>, ProbeError> {
        match self.best_move_ultra(pos) {
            Ok(m) => Ok(m.map(|m| MoveInfo { mv: m.mv, child: m.child, value: m.value.strong() })),
            Err(ProbeError::NoClasses { .. } | ProbeError::Unclassed(_)) => self.best_move_strong(pos),
            Err(e) => Err(e),
        }
    }

    /// The strong choice: the first of [`Tablebase::probe_moves_as`], every draw
    /// alike. Of a [`Wdl`], the first winning move, else the first drawing one: a
    /// results-only table can say which moves keep the result, not which is fastest.
    pub fn best_move_strong<V: Grade>(&self, pos: &Position) -> Result<Option<MoveInfo<V>>, ProbeError> {
        Ok(self.probe_moves_as(pos)?.into_iter().next())
    }

    /// The line of best moves to the end of the game: the winner wins as fast as it
    /// can and the loser resists as long as it can, so a win or a loss in `n` plies has
    /// exactly `n` steps. A draw has no end: its line is empty.
    ///
    /// ```rust
    /// use morris::{Position, Tablebase, Value};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
    /// # morris::solve::generate::run(&opts, &morris::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let start = Position::parse("........................ w 3 3", morris::Rules::STANDARD)?;
    /// let line = tb.mainline(&start)?;
    /// assert_eq!(line.len(), 23);
    /// assert_eq!((line[0].mv.to_string(), line[0].position.to_string()), ("d7".to_string(), ".W...................... b 2 3".to_string()));
    /// assert_eq!(line[0].value, Value::Loss(22), "for Black, to move after it");
    /// let last = line.last().unwrap();
    /// assert!(last.mv.to_string().contains('x'), "the game ends with a capture");
    /// assert_eq!(last.value, Value::Loss(0));
    /// assert!(last.position.legal_moves().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mainline(&self, pos: &Position) -> Result<Vec<LineStep>, ProbeError> {
        line(pos, |p| self.probe(p), |p| self.probe_moves(p))
    }

    /// Every legal move with the position it leads to and its value for the side that
    /// plays it, best first (see [`Tablebase::best_move`]); empty when the game is over.
    /// Each value is the [`Tablebase::probe_as`] of the move's position, one ply up.
    pub fn probe_moves_as<V: Grade>(&self, pos: &Position) -> Result<Vec<MoveInfo<V>>, ProbeError> {
        if self.sector_of(pos)?.is_none() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (mv, child, wins) in children(pos) {
            let value = if wins { V::WIN_NOW } else { self.probe_as::<V>(&child)?.parent() };
            out.push(MoveInfo { mv, child, value });
        }
        sort_moves(&mut out);
        Ok(out)
    }

    /// [`Tablebase::probe_moves_as`] of a [`Value`]: every move with its depth.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<MoveInfo>, ProbeError> {
        self.probe_moves_as(pos)
    }

    /// [`Tablebase::probe_moves_as`] of a [`Wdl`]: results only, from WLD planes, so it
    /// also works on tables whose depths were stripped. Wins first, then draws, then
    /// losses.
    pub fn probe_moves_wdl(&self, pos: &Position) -> Result<Vec<MoveInfo<Wdl>>, ProbeError> {
        self.probe_moves_as(pos)
    }
}

/// The error of a checked block without a valid entry where the index points.
fn invalid_entry(t: &TableFile, k: u32) -> TableError {
    TableError::Corrupt { path: t.path.clone(), detail: format!("block {k} has an invalid entry") }
}

/// The line of best moves from `pos` to the end, by `value` and `moves` (a table read or
/// a search: the same line).
pub(crate) fn line(
    pos: &Position,
    value: impl Fn(&Position) -> Result<Value, ProbeError>,
    moves: impl Fn(&Position) -> Result<Vec<MoveInfo>, ProbeError>,
) -> Result<Vec<LineStep>, ProbeError> {
    let mut line = Vec::new();
    let mut at = *pos;
    let Some(n) = value(&at)?.plies() else { return Ok(line) };
    for _ in 0..n {
        let Some(best) = moves(&at)?.into_iter().next() else { break };
        // A win in 1 may end the game: the position after it is lost, with no table.
        let child_value = match best.value {
            Value::Win(1) if best.child.mover().count_ones() + best.child.mover_hand() as u32 <= 2 => Value::Loss(0),
            _ => value(&best.child)?,
        };
        line.push(LineStep { mv: best.mv, position: best.child, value: child_value });
        at = best.child;
    }
    Ok(line)
}
