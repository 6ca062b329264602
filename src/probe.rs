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

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("invalid position: {0}")]
    Position(String),
    #[error("no table directory at {0}; run `morris solve` first")]
    NoDirectory(PathBuf),
    #[error("missing movement tables {} in {}; generate them with `morris solve --db {} --max-stones {max}`", names.join(", "), dir.display(), dir.display())]
    MissingTables { names: Vec<String>, dir: PathBuf, max: u8 },
}

/// A result without depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wdl {
    Win,
    Draw,
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

/// Size of the transposition table that placement probes share.
pub const PLACEMENT_TT_BYTES: usize = 1 << 30;

/// A directory of tables, opened lazily. `Send + Sync`: share it between threads.
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
/// to move has fewer than 3 stones left (it has lost).
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

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The table of `sub`, opened (header and index checked) on first use.
    pub fn table(&self, sub: impl Into<Sector>) -> Result<&Arc<TableFile>, TableError> {
        let sub: Sector = sub.into();
        let cell = &self.files[sector_slot(sub)];
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let t = Arc::new(TableFile::open(&table_path(&self.dir, sub), sub)?);
        Ok(cell.get_or_init(|| t))
    }

    /// The stored byte of slot `i` of `sub`.
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
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        let Some(sector) = sector_of(pos)? else { return Ok(Wdl::Loss) };
        let i = sector.index().index(pos.mover(), pos.opponent());
        let t = self.table(sector)?;
        let bs = t.header.block_size as u64;
        Ok(match t.read_wld((i / bs) as usize, (i % bs) as usize)? {
            0 => Wdl::Draw,
            1 => Wdl::Win,
            _ => Wdl::Loss,
        })
    }

    /// `probe_wdl` of the movement position `(mover, opp)`.
    pub fn probe_wdl_movement(&self, mover: u32, opp: u32) -> Result<Wdl, ProbeError> {
        self.probe_wdl(&Position::movement(Color::White, mover, opp))
    }

    /// The value of a movement-phase position `(mover, opp)` for the side to move.
    pub fn probe_movement(&self, mover: u32, opp: u32) -> Result<Value, ProbeError> {
        self.probe_table(&Position::movement(Color::White, mover, opp))
    }

    /// The value of a position for the side to move, read from its sector's table.
    /// A placement position whose sector table is missing is solved by the placement
    /// search over the movement tables instead.
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        match self.probe_table(pos) {
            Err(ProbeError::Table(TableError::Missing { .. })) if !pos.is_movement() => {
                Ok(self.solve_placement(pos, &crate::solver::NoProgress)?.value)
            }
            other => other,
        }
    }

    /// The value of a position read from its sector's table, with no search: one block
    /// of one file. Fails with `TableError::Missing` when the table is absent.
    pub fn probe_table(&self, pos: &Position) -> Result<Value, ProbeError> {
        let Some(sector) = sector_of(pos)? else { return Ok(Value::Loss(0)) };
        let i = sector.index().index(pos.mover(), pos.opponent());
        Ok(Value::decode(self.probe_slot(sector, i)?))
    }

    /// The best move (fastest win, longest loss, or a drawing move) with its value for
    /// the side that plays it; `None` when the game is over.
    pub fn best_move(&self, pos: &Position) -> Result<Option<(Move, Value)>, ProbeError> {
        Ok(self.probe_moves(pos)?.into_iter().next().map(|(mv, _, v)| (mv, v)))
    }

    /// The line of best moves to the end of the game: the winner wins as fast as it
    /// can and the loser resists as long as it can, so a win or a loss in `n` plies has
    /// exactly `n` steps. Each step is the move, the position it leads to and that
    /// position's value for its side to move. A draw has no end: its line is empty.
    pub fn mainline(&self, pos: &Position) -> Result<Vec<(Move, Position, Value)>, ProbeError> {
        let mut line = Vec::new();
        let mut at = *pos;
        let Some(n) = self.probe(&at)?.plies() else { return Ok(line) };
        for _ in 0..n {
            let Some((mv, next, v)) = self.probe_moves(&at)?.into_iter().next() else { break };
            let child_value = match v {
                Value::Win(1) if sector_of(&next).is_err() => Value::Loss(0),
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
        pos.children().into_iter().map(|(mv, child)| (mv, child, mv.capture != NONE && sector_of(&child).is_err())).collect()
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
    /// on tables whose depths were stripped. Wins first, then draws, then losses.
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
    /// later searches.
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
    /// plays it, best first.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Position, Value)>, ProbeError> {
        Ok(self.evaluate(pos, &crate::solver::NoProgress)?.1)
    }
}
