//! The probe library: values of positions and of every move, read from table files.
//!
//! A `Tablebase` opens a directory; each subspace's file is memory-mapped the first time
//! it is needed. A probe canonicalises and indexes the position, decompresses the one
//! block holding its slot (checked against the block's checksum) and decodes the byte.
//! Recently used blocks are kept in a small cache.

use crate::index::SubspaceIndex;
use crate::placement::{self, MovementTables};
use crate::movegen::{for_each_move, Move};
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
    files: [OnceLock<Arc<TableFile>>; 49],
    cache: Mutex<BlockCache>,
    cache_blocks: usize,
    /// Whole tables decoded for placement searches, kept so that later searches start warm.
    memory: Arc<Vec<OnceLock<placement::Values>>>,
    wld_memory: Arc<Vec<OnceLock<placement::Values>>>,
    /// What placement searches have learned, shared by all of them.
    tt: OnceLock<placement::Tt>,
}

#[derive(Default)]
struct BlockCache {
    blocks: HashMap<(Subspace, u32), (Arc<Planes>, u64)>,
    clock: u64,
}

impl BlockCache {
    fn get(&mut self, key: (Subspace, u32)) -> Option<Arc<Planes>> {
        self.clock += 1;
        let now = self.clock;
        self.blocks.get_mut(&key).map(|(b, used)| {
            *used = now;
            b.clone()
        })
    }

    fn put(&mut self, key: (Subspace, u32), block: Arc<Planes>, capacity: usize) {
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

/// The table in `cell`, read by `read` the first time.
fn kept(cell: &OnceLock<placement::Values>, read: impl FnOnce() -> Result<memmap2::MmapMut, TableError>) -> Result<placement::Values, TableError> {
    if let Some(v) = cell.get() {
        return Ok(v.clone());
    }
    let v: placement::Values = Arc::new(read()?);
    Ok(cell.get_or_init(|| v).clone())
}

fn slot(sub: Subspace) -> usize {
    (sub.s as usize - 3) * 7 + (sub.o as usize - 3)
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
            files: [const { OnceLock::new() }; 49],
            cache: Mutex::new(BlockCache::default()),
            cache_blocks: blocks,
            memory: Arc::new((0..49).map(|_| OnceLock::new()).collect()),
            wld_memory: Arc::new((0..49).map(|_| OnceLock::new()).collect()),
            tt: OnceLock::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The table of `sub`, opened (header and index checked) on first use.
    pub fn table(&self, sub: Subspace) -> Result<&Arc<TableFile>, TableError> {
        let cell = &self.files[slot(sub)];
        if let Some(t) = cell.get() {
            return Ok(t);
        }
        let t = Arc::new(TableFile::open(&table_path(&self.dir, sub), sub)?);
        Ok(cell.get_or_init(|| t))
    }

    /// The stored byte of slot `i` of `sub`.
    pub fn probe_slot(&self, sub: Subspace, i: u64) -> Result<u8, TableError> {
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

    /// Win, draw or loss of a movement-phase position without its depth: reads only the
    /// block's WLD plane (about a quarter of the data of a full probe).
    pub fn probe_wdl_movement(&self, mover: u32, opp: u32) -> Result<Wdl, ProbeError> {
        let (s, o) = (mover.count_ones(), opp.count_ones());
        if s < 3 {
            return Ok(Wdl::Loss);
        }
        let sub = Subspace::new(s as u8, o as u8)
            .ok_or_else(|| ProbeError::Position(format!("the opponent has {o} stones; the game ended on the previous move")))?;
        let i = SubspaceIndex::new(sub).index(mover, opp);
        let t = self.table(sub)?;
        let bs = t.header.block_size as u64;
        Ok(match t.read_wld((i / bs) as usize, (i % bs) as usize)? {
            0 => Wdl::Draw,
            1 => Wdl::Win,
            _ => Wdl::Loss,
        })
    }

    /// The value of a movement-phase position `(mover, opp)` for the side to move.
    pub fn probe_movement(&self, mover: u32, opp: u32) -> Result<Value, ProbeError> {
        let (s, o) = (mover.count_ones(), opp.count_ones());
        if s < 3 {
            return Ok(Value::Loss(0));
        }
        let sub = Subspace::new(s as u8, o as u8)
            .ok_or_else(|| ProbeError::Position(format!("the opponent has {o} stones; the game ended on the previous move")))?;
        let idx = SubspaceIndex::new(sub);
        Ok(Value::decode(self.probe_slot(sub, idx.index(mover, opp))?))
    }

    /// The value of a position for the side to move. Placement-phase positions (stones
    /// in hand) are solved exactly by `placement::solve` over the movement tables.
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        if !pos.is_movement() {
            return Ok(self.solve_placement(pos, &crate::solver::NoProgress)?.value);
        }
        self.probe_movement(pos.mover(), pos.opponent())
    }

    /// Solves the game from a placement-phase position: its value and every move's.
    /// Loads the movement tables the search reaches into memory, where they stay for
    /// later searches.
    pub fn solve_placement(&self, pos: &Position, progress: &dyn crate::solver::Progress) -> Result<placement::Solution, ProbeError> {
        let tables = self.movement_tables(pos)?;
        // Mapped lazily: only the entries searches touch take memory.
        let tt = self.tt.get_or_init(|| placement::Tt::new(PLACEMENT_TT_BYTES));
        let solution = placement::search::solve_in(pos, &tables, tt, progress);
        match tables.take_error() {
            Some(e) => Err(e.into()),
            None => Ok(solution),
        }
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
        let (memory, wld_memory) = (self.memory.clone(), self.wld_memory.clone());
        let files = Arc::new(files);
        let wld_files = files.clone();
        Ok(MovementTables::lazy(
            move |sub| kept(&memory[slot(sub)], || files[&sub].read_all_mapped()),
            move |sub| kept(&wld_memory[slot(sub)], || wld_files[&sub].read_wld_mapped()),
        ))
    }

    /// The value of a position and of every legal move from it (best first), with the
    /// positions the moves lead to: one search for a placement-phase position.
    pub fn evaluate(&self, pos: &Position, progress: &dyn crate::solver::Progress) -> Result<(Value, Vec<(Move, Position, Value)>), ProbeError> {
        if !pos.is_movement() {
            let s = self.solve_placement(pos, progress)?;
            return Ok((s.value, s.moves));
        }
        Ok((self.probe(pos)?, self.probe_moves(pos)?))
    }

    /// Every legal move with the position it leads to and its value for the side that
    /// plays it, best first.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<(Move, Position, Value)>, ProbeError> {
        if !pos.is_movement() {
            return Ok(self.solve_placement(pos, &crate::solver::NoProgress)?.moves);
        }
        let (mover, opp) = (pos.mover(), pos.opponent());
        if mover.count_ones() < 3 || opp.count_ones() < 3 {
            return Ok(Vec::new());
        }
        let mut children = Vec::new();
        for_each_move(mover, opp, |mv, cm, co| children.push((mv, cm, co)));
        let next: Color = pos.to_move.other();
        let mut out = Vec::with_capacity(children.len());
        for (mv, cm, co) in children {
            let v = self.probe_movement(cm, co)?.parent();
            out.push((mv, Position::movement(next, cm, co), v));
        }
        out.sort_by_key(|(mv, _, v)| (-v.goodness(), mv.from, mv.to, mv.capture));
        Ok(out)
    }
}
