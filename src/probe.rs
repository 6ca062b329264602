//! The probe library: values of positions and of every move, read from table files.
//!
//! A `Tablebase` opens a directory; each sector's file is memory-mapped the first time
//! it is needed. A probe canonicalises and indexes the position, decompresses the one
//! block holding its slot (checked against the block's checksum) and decodes the byte.
//! Recently used blocks are kept in a small cache of bounded size. Movement positions
//! and placement positions take the same path; a placement position whose sector table
//! is absent is solved instead by the placement search over the movement tables.

use crate::placement::{self, MovementTables};
use crate::movegen::{Move, NONE};
use crate::sector::Sector;
use crate::position::{Color, Position};
use crate::subspace::Subspace;
use crate::table::{table_path, Planes, TableError, TableFile};
use crate::value::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Why a probe failed. The messages are meant for the user as they are, and name the
/// `morris solve` command that makes a missing table.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// A table could not be read: missing, damaged, results only where depths are
    /// needed, or of another format (see [`TableError`]).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The position is invalid (see [`Position::validate`]) or the game ended before it
    /// (the side not to move has fewer than 3 stones), or a placement search had to be
    /// discarded; the text says which.
    #[error("invalid position: {0}")]
    Position(String),
    /// [`Tablebase::open`] was given a path that is not a directory.
    #[error("no table directory at {0}; run `morris solve` first")]
    NoDirectory(PathBuf),
    /// A placement search needs movement tables that the directory lacks.
    #[error("missing movement tables {} in {}; generate them with `morris solve --db {} --max-stones {max}`", names.join(", "), dir.display(), dir.display())]
    MissingTables {
        /// The missing subspaces, `S-O`.
        names: Vec<String>,
        /// The table directory.
        dir: PathBuf,
        /// The `--max-stones` that solves every table the search needs.
        max: u8,
    },
}

/// A result without depth, for the side to move; what a results-only table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wdl {
    /// The side to move can force a win.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The opponent can force a win.
    Loss,
}

impl From<Value> for Wdl {
    fn from(v: Value) -> Wdl {
        match v {
            Value::Win(_) => Wdl::Win,
            Value::Draw => Wdl::Draw,
            Value::Loss(_) => Wdl::Loss,
        }
    }
}

/// Default number of decoded blocks kept (at most about 10 KB each).
pub const CACHE_BLOCKS: usize = 1024;

/// Size of the transposition table that placement probes share. It is mapped lazily,
/// so only the entries searches touch take memory.
pub const PLACEMENT_TT_BYTES: usize = 1 << 30;

/// A directory of tables, opened lazily. `Send + Sync`: share it between threads.
///
/// Every value it returns is for the side to move of the position asked about, with the
/// depth to the end of the game in plies (see [`Value`]). The tables come from
/// `morris solve` or [`generate::run`](crate::generate::run); a movement position needs
/// its subspace's table, a placement position its sector's table or, failing that, the
/// movement tables for a search (see [`Tablebase::probe`]).
///
/// # Examples
///
/// ```rust
/// use morris::probe::{Tablebase, Wdl};
/// use morris::{Position, Value};
///
/// // `dir` holds the tables of the game with 3 stones a side (solved here on the fly;
/// // `morris solve --start 3-3` writes the same files).
/// # let dir = tempfile::tempdir()?;
/// # let opts = morris::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)] };
/// # morris::generate::run(&opts, &morris::solver::NoProgress)?;
/// let tb = Tablebase::open(dir.path())?;
///
/// let start: Position = "........................ w 3 3".parse()?;
/// assert_eq!(tb.probe(&start)?, Value::Win(23), "the first player wins the 3-stone game");
/// assert_eq!(tb.probe_wdl(&start)?, Wdl::Win);
///
/// let (mv, value) = tb.best_move(&start)?.expect("the game is not over");
/// assert_eq!(value, Value::Win(23));
/// assert_eq!(tb.probe(&start.play(&mv)?)?, Value::Loss(22), "now for Black, to move");
///
/// // One table serves every thread.
/// let pos: Position = ".WW....B.B....B........W b".parse()?;
/// std::thread::scope(|s| {
///     let handle = s.spawn(|| tb.probe(&pos).unwrap());
///     assert_eq!(handle.join().unwrap(), Value::Loss(26));
/// });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Tablebase {
    dir: PathBuf,
    /// By `sector_slot`: every sector of the standard rules has a cell.
    files: Vec<OnceLock<Arc<TableFile>>>,
    cache: Mutex<BlockCache>,
    cache_blocks: usize,
    /// Whole tables decoded for placement searches, kept (within a budget) so that
    /// later searches start warm.
    kept: Arc<Kept>,
    /// What placement searches have learned, shared by all of them.
    /// The table and its generation. A search that met a load error has stored bounds
    /// computed from placeholder values, so the table is replaced by a fresh one and
    /// the generation bumped; a search that overlapped a replacement may have read
    /// those bounds, so it fails too rather than return what it found.
    tt: Mutex<(u64, Option<Arc<placement::Tt>>)>,
}

#[derive(Default)]
struct BlockCache {
    blocks: HashMap<(Sector, u32), (Arc<Planes>, u64)>,
    clock: u64,
}

impl BlockCache {
    fn get(&mut self, key: (Sector, u32)) -> Option<Arc<Planes>> {
        self.clock += 1;
        let now = self.clock;
        self.blocks.get_mut(&key).map(|(b, used)| {
            *used = now;
            b.clone()
        })
    }

    fn put(&mut self, key: (Sector, u32), block: Arc<Planes>, capacity: usize) {
        if capacity == 0 {
            return;
        }
        if self.blocks.len() >= capacity {
            // Evict the least recently used half: amortised O(1) per insertion.
            let mut ages: Vec<u64> = self.blocks.values().map(|(_, u)| *u).collect();
            ages.sort_unstable();
            let cut = ages[ages.len() / 2];
            self.blocks.retain(|_, (_, u)| *u > cut);
        }
        self.clock += 1;
        self.blocks.insert(key, (block, self.clock));
    }
}

/// Bytes of decoded movement tables a `Tablebase` keeps between placement searches.
/// A search holds what it uses for as long as it runs, whatever this says.
pub const KEPT_BYTES: usize = 4 << 30;

/// Decoded movement tables (full values, or packed results when the flag is set)
/// kept between placement searches, within `KEPT_BYTES`.
#[derive(Default)]
struct Kept(Mutex<HashMap<(Subspace, bool), placement::Values>>);

impl Kept {
    /// The table under `key`, read by `read` if it is not kept. The read runs outside
    /// the lock, so a slow read never blocks other threads, and a thread that waits
    /// never runs work that could need the lock it holds.
    fn get(&self, key: (Subspace, bool), read: impl FnOnce() -> Result<memmap2::MmapMut, TableError>) -> Result<placement::Values, TableError> {
        if let Some(v) = self.0.lock().unwrap().get(&key) {
            return Ok(v.clone());
        }
        let v: placement::Values = Arc::new(read()?);
        let mut map = self.0.lock().unwrap();
        let v = map.entry(key).or_insert(v).clone();
        let len = |t: &placement::Values| -> usize { AsRef::<[u8]>::as_ref(&**t).len() };
        let bytes = |m: &HashMap<_, placement::Values>| m.values().map(len).sum::<usize>();
        while bytes(&map) > KEPT_BYTES {
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

fn sector_slot(x: Sector) -> usize {
    ((x.s as usize * 10 + x.o as usize) * 10 + x.sh as usize) * 10 + x.oh as usize
}

/// The sector of `pos`, from the side to move's point of view; `Ok(None)` when the side
/// to move has fewer than 3 stones left (it has lost). Fails on an invalid position and
/// on one where the opponent has fewer than 3 stones (no move could lead there).
pub fn sector_of(pos: &Position) -> Result<Option<Sector>, ProbeError> {
    pos.validate().map_err(|e| ProbeError::Position(e.to_string()))?;
    let (m, o) = (pos.mover().count_ones() as u8, pos.opponent().count_ones() as u8);
    let (mh, oh) = if pos.to_move == Color::White { (pos.white_hand, pos.black_hand) } else { (pos.black_hand, pos.white_hand) };
    if m + mh < 3 {
        return Ok(None);
    }
    Sector::new(m, o, mh, oh).map(Some).ok_or_else(|| {
        ProbeError::Position(format!("the opponent has {} stones on the board and in hand; the game ended on the previous move", o + oh))
    })
}

impl Tablebase {
    /// Opens the table directory `dir` with the default block cache ([`CACHE_BLOCKS`]).
    /// Fails only if `dir` is not a directory: each table is opened, and its header
    /// checked, by the first probe that needs it, so a missing or damaged table is an
    /// error of that probe.
    ///
    /// ```rust
    /// use morris::probe::{ProbeError, Tablebase};
    /// use morris::table::TableError;
    /// use morris::Position;
    ///
    /// # let dir = tempfile::tempdir()?;
    /// let tb = Tablebase::open(dir.path())?; // an empty directory opens
    /// let pos: Position = "WWWW.....B.B....B....... b".parse()?;
    /// match tb.probe(&pos) {
    ///     Err(ProbeError::Table(TableError::Missing { hint, .. })) => {
    ///         assert_eq!(hint, "morris solve --max-stones 7")
    ///     }
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
        if !dir.is_dir() {
            return Err(ProbeError::NoDirectory(dir.to_owned()));
        }
        Ok(Tablebase {
            dir: dir.to_owned(),
            files: (0..10_000).map(|_| OnceLock::new()).collect(),
            cache: Mutex::new(BlockCache::default()),
            cache_blocks: blocks,
            kept: Arc::new(Kept::default()),
            tt: Mutex::new((0, None)),
        })
    }

    /// The table directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether probes of `sector`'s positions read tables only, with no search: its
    /// table is in the directory, or, in a compact set (see [`compact`](crate::compact)),
    /// the tables of every sector its moves lead into are.
    pub fn readable(&self, sector: Sector) -> bool {
        let here = |x: Sector| table_path(&self.dir, x).exists();
        here(sector) || sector.children().into_iter().all(here)
    }

    /// The table of `sub`, opened (header and index checked) on first use and kept
    /// open. Panics if a count of `sub` is above 9 (see [`Sector`]).
    pub fn table(&self, sub: impl Into<Sector>) -> Result<&Arc<TableFile>, TableError> {
        let sub: Sector = sub.into();
        // Fields are public, so a sector may be out of range: an error, not a panic.
        let Some(cell) = self.files.get(sector_slot(sub)).filter(|_| sub.s.max(sub.o).max(sub.sh).max(sub.oh) <= 9) else {
            return Err(TableError::NoSuchSector(sub));
        };
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let t = Arc::new(TableFile::open(&table_path(&self.dir, sub), sub, &crate::rules::Rules::STANDARD)?);
        Ok(cell.get_or_init(|| t))
    }

    /// The stored byte of slot `i` of `sub` (decode it with [`Value::decode`]), for
    /// tools that walk a table by index (see [`Sector::index`]). Slots that are holes of
    /// the index hold a don't-care byte. Fails on a results-only table.
    pub fn probe_slot(&self, sub: impl Into<Sector>, i: u64) -> Result<u8, TableError> {
        let sub: Sector = sub.into();
        let t = self.table(sub)?;
        let bs = t.header.block_size as u64;
        let key = (sub, (i / bs) as u32);
        let cached = self.cache.lock().unwrap().get(key);
        let block = match cached {
            Some(b) => b,
            None => {
                let b = Arc::new(t.read_planes(key.1 as usize)?);
                self.cache.lock().unwrap().put(key, b.clone(), self.cache_blocks);
                b
            }
        };
        block.get((i % bs) as usize).ok_or_else(|| TableError::Corrupt {
            path: t.path.clone(),
            detail: format!("block {} has an invalid entry", key.1),
        })
    }

    /// Win, draw or loss of a position without its depth, from its sector's table:
    /// reads only the block's WLD plane (about a quarter of the data of a full probe).
    /// Works on results-only tables too. Unlike [`Tablebase::probe`] it never
    /// searches: a missing table is an error.
    ///
    /// ```rust
    /// use morris::probe::{Tablebase, Wdl};
    /// use morris::Position;
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)] };
    /// # morris::generate::run(&opts, &morris::solver::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let pos: Position = ".WW....B.B....B........W b".parse()?;
    /// assert_eq!(tb.probe_wdl(&pos)?, Wdl::Loss);
    /// // Results of every move, for the side that plays it: all lose.
    /// let moves = tb.probe_moves_wdl(&pos)?;
    /// assert!(moves.iter().all(|(_, _, w)| *w == Wdl::Loss));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        let Some(sector) = sector_of(pos)? else { return Ok(Wdl::Loss) };
        match self.lookup_wdl(sector, pos) {
            // A compact set (see `compact`) leaves the table out: one ply gives it.
            Err(missing @ TableError::Missing { .. }) => match self.derive_wdl(pos) {
                // A child's table missing too: report the position's own.
                Err(TableError::Missing { .. }) => Err(missing.into()),
                other => Ok(other?),
            },
            other => Ok(other?),
        }
    }

    fn lookup_wdl(&self, sector: Sector, pos: &Position) -> Result<Wdl, TableError> {
        let i = sector.index().index(pos.mover(), pos.opponent());
        let t = self.table(sector)?;
        let bs = t.header.block_size as u64;
        Ok(match t.read_wld((i / bs) as usize, (i % bs) as usize)? {
            0 => Wdl::Draw,
            1 => Wdl::Win,
            _ => Wdl::Loss,
        })
    }

    /// The result of a position whose table is left out, from its children's tables,
    /// each of which must be present: a win if a move wins, a loss if every move loses.
    fn derive_wdl(&self, pos: &Position) -> Result<Wdl, TableError> {
        let mut best = Wdl::Loss;
        for (_, child, wins) in Self::children(pos) {
            let w = match (wins, sector_of(&child)) {
                (true, _) => Wdl::Loss,
                (false, Ok(Some(cs))) => self.lookup_wdl(cs, &child)?,
                (false, _) => unreachable!("a move without capture leaves both sides in the game"),
            };
            match w {
                Wdl::Loss => return Ok(Wdl::Win),
                Wdl::Draw => best = Wdl::Draw,
                Wdl::Win => {}
            }
        }
        Ok(best)
    }

    /// `probe_wdl` of the movement position `(mover, opp)`: the side to move's stones
    /// and the opponent's, as bitboards (colour plays no part in the movement phase).
    pub fn probe_wdl_movement(&self, mover: u32, opp: u32) -> Result<Wdl, ProbeError> {
        self.probe_wdl(&Position::movement(Color::White, mover, opp))
    }

    /// The value of a movement-phase position `(mover, opp)` for the side to move: the
    /// bitboards of its stones and of the opponent's. Never searches.
    pub fn probe_movement(&self, mover: u32, opp: u32) -> Result<Value, ProbeError> {
        self.probe_table(&Position::movement(Color::White, mover, opp))
    }

    /// The value of a position for the side to move, read from its sector's table.
    /// A placement position whose sector table is missing is solved by the placement
    /// search over the movement tables instead.
    ///
    /// The search is exact but can be costly: from the empty 9-9 board it needs every
    /// movement table and takes minutes and gigabytes; late in the placement phase it is
    /// quick.
    /// Its findings are kept in a table shared by later searches (see
    /// [`PLACEMENT_TT_BYTES`]). Use [`Tablebase::probe_table`] to read tables only.
    ///
    /// ```rust
    /// use morris::probe::Tablebase;
    /// use morris::{Position, Value};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)] };
    /// # morris::generate::run(&opts, &morris::solver::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// // A movement position: Black, to move, has three stones to White's three.
    /// let pos: Position = ".WW....B.B....B........W b".parse()?;
    /// assert_eq!(tb.probe(&pos)?, Value::Loss(26));
    /// // A placement position, one stone in each hand: d6 closes d7-d6-d5 and takes
    /// // Black's third stone.
    /// let pos: Position = "BW.....W.......B........ w 1 1".parse()?;
    /// assert_eq!(tb.probe(&pos)?, Value::Win(1));
    /// // White, down to two stones, has lost. With Black to move the same board cannot
    /// // arise: the game ended when Black took White's third stone.
    /// let lost: Position = "WW.....B.B....B......... w".parse()?;
    /// assert_eq!(tb.probe(&lost)?, Value::Loss(0));
    /// let over: Position = "WW.....B.B....B......... b".parse()?;
    /// assert!(tb.probe(&over).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        match self.probe_table(pos) {
            Err(ProbeError::Table(TableError::Missing { .. })) if !pos.is_movement() => {
                Ok(self.solve_placement(pos, &crate::solver::NoProgress)?.value)
            }
            other => other,
        }
    }

    /// The value of a position read from its sector's table, with no search: one block
    /// of one file. Fails with [`TableError::Missing`] when the table is absent.
    ///
    /// A table that a compact set left out (see [`compact`](crate::compact)) is read
    /// through one ply: the position's value is the best of its children's, each read
    /// from its own table. That costs one lookup per move instead of one in all; if a
    /// child's table is missing too, the error names the position's own table, and a
    /// damaged child table is an error, never a guess.
    pub fn probe_table(&self, pos: &Position) -> Result<Value, ProbeError> {
        let Some(sector) = sector_of(pos)? else { return Ok(Value::Loss(0)) };
        // One choice of code path a probe: the index computation lands in the copy
        // with popcnt (see `cpu`).
        match crate::cpu::fast!(self.lookup(sector, pos)) {
            Err(missing @ TableError::Missing { .. }) => match self.derive(pos) {
                // A child's table missing too: report the position's own. Any other
                // error (a damaged child table) is reported as it is.
                Err(TableError::Missing { .. }) => Err(missing.into()),
                other => Ok(other?),
            },
            other => Ok(other?),
        }
    }

    #[inline(always)]
    fn lookup(&self, sector: Sector, pos: &Position) -> Result<Value, TableError> {
        let i = sector.index().index(pos.mover(), pos.opponent());
        Ok(Value::decode(self.probe_slot(sector, i)?))
    }

    /// The value of a position whose table is left out: the best of its children's
    /// values one ply up, each child read from its own table, which must be present.
    fn derive(&self, pos: &Position) -> Result<Value, TableError> {
        let mut best: Option<Value> = None;
        for (_, child, wins) in Self::children(pos) {
            let v = match (wins, sector_of(&child)) {
                (true, _) => Value::Win(1),
                (false, Ok(Some(cs))) => self.lookup(cs, &child)?.parent(),
                (false, _) => unreachable!("a move without capture leaves both sides in the game"),
            };
            if best.is_none_or(|b| v.goodness() > b.goodness()) {
                best = Some(v);
            }
        }
        // No legal move: a side that moves is blocked and has lost.
        Ok(best.unwrap_or(Value::Loss(0)))
    }

    /// The best move (fastest win, longest loss, or a drawing move) with its value for
    /// the side that plays it, which is the position's value; `None` when the game is
    /// over. Among equally good moves the first in a fixed order is chosen, so the
    /// answer is deterministic. Searches as [`Tablebase::probe`] does.
    ///
    /// ```rust
    /// use morris::probe::Tablebase;
    /// use morris::{Position, Value};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)] };
    /// # morris::generate::run(&opts, &morris::solver::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let pos: Position = ".WW....B.B....B........W b".parse()?;
    /// let (mv, value) = tb.best_move(&pos)?.expect("Black has moves");
    /// assert_eq!((mv.to_string(), value), ("d5-a7".to_string(), Value::Loss(26)));
    /// // Every move, best first:
    /// let moves = tb.probe_moves(&pos)?;
    /// assert_eq!((moves[0].0, moves[0].2), (mv, value));
    /// assert_eq!(moves[1].2, Value::Loss(20));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, Value)>, ProbeError> {
        Ok(self.probe_moves(pos)?.into_iter().next().map(|(mv, _, v)| (mv, v)))
    }

    /// The line of best moves to the end of the game: the winner wins as fast as it
    /// can and the loser resists as long as it can, so a win or a loss in `n` plies has
    /// exactly `n` steps. Each step is the move, the position it leads to and that
    /// position's value for its side to move. A draw has no end: its line is empty.
    ///
    /// ```rust
    /// use morris::probe::Tablebase;
    /// use morris::{Position, Value};
    ///
    /// # let dir = tempfile::tempdir()?;
    /// # let opts = morris::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)] };
    /// # morris::generate::run(&opts, &morris::solver::NoProgress)?;
    /// let tb = Tablebase::open(dir.path())?;
    /// let start: Position = "........................ w 3 3".parse()?;
    /// let line = tb.mainline(&start)?;
    /// assert_eq!(line.len(), 23);
    /// let (first, after, value) = &line[0];
    /// assert_eq!((first.to_string(), after.to_string()), ("d7".to_string(), ".W...................... b 2 3".to_string()));
    /// assert_eq!(*value, Value::Loss(22), "for Black, to move after it");
    /// let (last, end, value) = line.last().unwrap();
    /// assert!(last.to_string().contains('x'), "the game ends with a capture");
    /// assert_eq!(*value, Value::Loss(0));
    /// assert!(end.legal_moves().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mainline(&self, pos: &Position) -> Result<Vec<(Move, Position, Value)>, ProbeError> {
        let mut line = Vec::new();
        let mut at = *pos;
        let Some(n) = self.probe(&at)?.plies() else { return Ok(line) };
        for _ in 0..n {
            let Some((mv, next, v)) = self.probe_moves(&at)?.into_iter().next() else { break };
            // A win in 1 may end the game: the position after it is lost, with no table.
            let child_value = match v {
                Value::Win(1) if matches!(sector_of(&next), Ok(None)) => Value::Loss(0),
                _ => self.probe(&next)?,
            };
            line.push((mv, next, child_value));
            at = next;
        }
        Ok(line)
    }

    /// Every legal move with the position it leads to, and whether it captures the
    /// opponent down to two stones (a win at once, with no table to read).
    fn children(pos: &Position) -> Vec<(Move, Position, bool)> {
        pos.children().into_iter().map(|(mv, child)| (mv, child, mv.capture != NONE && matches!(sector_of(&child), Ok(None)))).collect()
    }

    /// Every legal move with the position it leads to and its value for the side that
    /// plays it, best first, read from the tables only.
    pub fn probe_moves_table(&self, pos: &Position) -> Result<Vec<(Move, Position, Value)>, ProbeError> {
        if sector_of(pos)?.is_none() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (mv, child, wins) in Self::children(pos) {
            let v = if wins { Value::Win(1) } else { self.probe_table(&child)?.parent() };
            out.push((mv, child, v));
        }
        placement::sort_moves(&mut out);
        Ok(out)
    }

    /// Like `probe_moves_table`, results only: reads only WLD planes, so it also works
    /// on tables whose depths were stripped. Wins first, then draws, then losses. Never
    /// searches.
    pub fn probe_moves_wdl(&self, pos: &Position) -> Result<Vec<(Move, Position, Wdl)>, ProbeError> {
        if sector_of(pos)?.is_none() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (mv, child, wins) in Self::children(pos) {
            let w = if wins {
                Wdl::Win
            } else {
                match self.probe_wdl(&child)? {
                    Wdl::Win => Wdl::Loss,
                    Wdl::Draw => Wdl::Draw,
                    Wdl::Loss => Wdl::Win,
                }
            };
            out.push((mv, child, w));
        }
        out.sort_by_key(|(mv, _, w)| (*w as u8, mv.from, mv.to, mv.capture));
        Ok(out)
    }

    /// Solves the game from a placement-phase position: its value and every move's.
    /// Loads the movement tables the search reaches into memory, where they stay for
    /// later searches (within [`KEPT_BYTES`]). Ignores placement sector tables, even
    /// where they exist; a movement position's solution is read from its tables.
    pub fn solve_placement(&self, pos: &Position, progress: &dyn crate::solver::Progress) -> Result<placement::Solution, ProbeError> {
        pos.validate().map_err(|e| ProbeError::Position(e.to_string()))?;
        let tables = self.movement_tables(pos)?;
        let (generation, tt) = {
            let mut g = self.tt.lock().unwrap();
            // Mapped lazily: only the entries searches touch take memory.
            let tt = g.1.get_or_insert_with(|| Arc::new(placement::Tt::new(PLACEMENT_TT_BYTES))).clone();
            (g.0, tt)
        };
        let solution = placement::search::solve_in(pos, &tables, &tt, progress);
        let mut g = self.tt.lock().unwrap();
        if let Some(e) = tables.take_error() {
            *g = (g.0 + 1, None);
            return Err(e.into());
        }
        if g.0 != generation {
            return Err(ProbeError::Position(format!(
                "the search of {pos} overlapped a search that failed to load a table; its result was discarded"
            )));
        }
        Ok(solution)
    }

    /// In-memory movement tables for a placement search from `pos`, loaded on first use.
    /// Fails at once if a table the game could reach is damaged, or missing (naming
    /// every missing one and the command that makes them).
    pub fn movement_tables(&self, pos: &Position) -> Result<MovementTables, ProbeError> {
        let needed = MovementTables::needed(pos);
        let mut files = HashMap::new();
        let mut missing = vec![];
        for &sub in &needed {
            match self.table(sub) {
                Ok(t) => {
                    files.insert(sub, t.clone());
                }
                Err(TableError::Missing { .. }) => missing.push(sub.to_string()),
                Err(e) => return Err(e.into()),
            }
        }
        if !missing.is_empty() {
            let max = needed.iter().map(|s| s.total()).max().unwrap_or(6);
            return Err(ProbeError::MissingTables { names: missing, dir: self.dir.clone(), max });
        }
        let (kept, wld_kept) = (self.kept.clone(), self.kept.clone());
        let files = Arc::new(files);
        let wld_files = files.clone();
        Ok(MovementTables::lazy(
            move |sub| kept.get((sub, false), || files[&sub].read_all_mapped()),
            move |sub| wld_kept.get((sub, true), || wld_files[&sub].read_wld_mapped()),
        ))
    }

    /// The value of a position and of every legal move from it (best first), with the
    /// positions the moves lead to: from the tables, or by one placement search when a
    /// placement position's tables are missing.
    pub fn evaluate(&self, pos: &Position, progress: &dyn crate::solver::Progress) -> Result<(Value, Vec<(Move, Position, Value)>), ProbeError> {
        let read = || -> Result<_, ProbeError> { Ok((self.probe_table(pos)?, self.probe_moves_table(pos)?)) };
        match read() {
            Err(ProbeError::Table(TableError::Missing { .. })) if !pos.is_movement() => {
                let s = self.solve_placement(pos, progress)?;
                Ok((s.value, s.moves))
            }
            other => other,
        }
    }

    /// Every legal move with the position it leads to and its value for the side that
    /// plays it, best first (see [`Tablebase::best_move`]); empty when the game is over.
    /// Searches as [`Tablebase::probe`] does.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Position, Value)>, ProbeError> {
        Ok(self.evaluate(pos, &crate::solver::NoProgress)?.1)
    }
}
