//! The placement phase: positions with stones still in hand, solved exactly on top of
//! the movement tables.
//!
//! Whether a side places or moves depends only on its stones in hand, and each side's
//! hand shrinks by one on each of its turns until it is empty, so the hands and the
//! side to move at ply `t` of a game from a given position are fixed in advance. The
//! placement phase is therefore a DAG without cycles, and its leaves are movement
//! positions whose exact values the tables hold.
//!
//! Two solvers share these definitions:
//! - [`search`]: alpha-beta with a transposition table over the 16 symmetries. It
//!   needs to visit only a proof tree, which is what makes the 9-9 empty board
//!   feasible (backward induction over every reachable placement position is billions
//!   of nodes). This is what the tool uses.
//! - [`layered`]: plain backward induction over every reachable position, ply by ply.
//!   It is kept as an independent check of the search on small starts.

pub mod induction;
pub mod layered;
pub mod search;
mod tt;

pub use tt::Tt;

use crate::position::index::SubspaceIndex;
use crate::position::subspace::Subspace;
use crate::position::value::{is_deep, Deep, MoveInfo, Value};
use crate::position::wld;
use crate::position::Position;
use crate::rules::game::Game;
use crate::rules::geometry::Bits;
use crate::rules::movegen::for_each_move;
use crate::table::TableError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub use search::solve;
// The move generation of a ply lives with the rules; the placement solvers use it.
pub use crate::rules::ply::children;
pub(crate) use crate::rules::ply::{for_each_ply_move, Ply};

/// A whole table's value bytes: a `Vec<u8>`, or memory mapped with huge pages.
pub type Values = Arc<dyn AsRef<[u8]> + Send + Sync>;
type Loader = dyn Fn(Subspace) -> Result<Values, TableError> + Send + Sync;

/// Values of movement positions, by subspace, held in memory. Tables are loaded on
/// first use, so a search touches only the subspaces its proof tree reaches.
pub struct MovementTables {
    /// The rules whose movement phase these tables hold: searches over them play by
    /// these rules, and index on this board.
    game: &'static Game,
    /// One value byte per slot, by stones of the side to move and of the other.
    tables: [[OnceLock<Values>; 13]; 13],
    /// Results only, packed as [`wld`] packs codes (a quarter
    /// of the memory, and much faster to load), for searches that settle results only.
    wld: [[OnceLock<Values>; 13]; 13],
    loader: Option<Box<Loader>>,
    wld_loader: Option<Box<Loader>>,
    error: Mutex<Option<TableError>>,
    /// Exact depths of the values deeper than a byte, by subspace: empty but for rule
    /// sets that go that deep (`removal=strict`).
    deep: HashMap<Subspace, Deep>,
}

impl MovementTables {
    fn empty(game: &'static Game) -> MovementTables {
        MovementTables {
            game,
            tables: std::array::from_fn(|_| std::array::from_fn(|_| OnceLock::new())),
            wld: std::array::from_fn(|_| std::array::from_fn(|_| OnceLock::new())),
            loader: None,
            wld_loader: None,
            error: Mutex::new(None),
            deep: HashMap::new(),
        }
    }

    /// These tables with the deep lists of their subspaces ([`TableFile::deep`]
    /// (crate::table::TableFile::deep)); every subspace whose table holds a deep byte
    /// must have its list.
    pub fn with_deep(mut self, deep: HashMap<Subspace, Deep>) -> MovementTables {
        self.deep = deep.into_iter().filter(|(_, d)| !d.is_empty()).collect();
        self
    }

    /// The deepest win and loss these tables can hold: the byte's limits, or deeper
    /// where a deep list says so. Searches bound their scores with them.
    pub fn deepest(&self) -> (u16, u16) {
        let deep = |odd: u16| self.deep.values().flat_map(|d| d.entries()).map(|e| e.1).filter(|d| d % 2 == odd).max().unwrap_or(0);
        (deep(1).max(crate::position::value::MAX_WIN), deep(0).max(crate::position::value::MAX_LOSS))
    }

    /// [`MovementTables::from_map`] for the tables of `game`'s rules.
    pub fn from_map(game: &'static Game, map: HashMap<Subspace, Vec<u8>>) -> MovementTables {
        let t = MovementTables::empty(game);
        for (sub, values) in map {
            let _ = t.wld[sub.s as usize][sub.o as usize].set(Arc::new(wld::pack(&values)));
            let _ = t.tables[sub.s as usize][sub.o as usize].set(Arc::new(values));
        }
        t
    }

    /// Tables read on first use: value bytes by `load`, packed results by `load_wld`.
    /// Both must check what they read (`TableFile::read_all_mapped` and
    /// `read_wld_mapped` do). A failure is kept and reported by
    /// [`MovementTables::take_error`].
    /// The tables are of `game`'s rules.
    pub fn lazy(
        game: &'static Game,
        load: impl Fn(Subspace) -> Result<Values, TableError> + Send + Sync + 'static,
        load_wld: impl Fn(Subspace) -> Result<Values, TableError> + Send + Sync + 'static,
    ) -> MovementTables {
        MovementTables { loader: Some(Box::new(load)), wld_loader: Some(Box::new(load_wld)), ..MovementTables::empty(game) }
    }

    /// The rules these tables were solved under.
    pub fn game(&self) -> &'static Game {
        self.game
    }

    /// The movement subspaces a game from `root` can reach once both hands are empty.
    pub fn needed(root: &Position) -> Vec<Subspace> {
        let w = (root.white.count_ones() + root.white_hand as u32) as u8;
        let b = (root.black.count_ones() + root.black_hand as u32) as u8;
        let mut out = vec![];
        for ws in 3..=w {
            for bs in 3..=b {
                out.push(Subspace { s: ws, o: bs });
                out.push(Subspace { s: bs, o: ws });
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The first error met while loading a table, if any. A search that met one has
    /// used placeholder values and its result must be discarded.
    pub fn take_error(&self) -> Option<TableError> {
        self.error.lock().unwrap().take()
    }

    /// The value for the side to move of the movement position `(mover, opp)`.
    #[inline]
    pub fn value(&self, mover: Bits, opp: Bits) -> Value {
        self.read_at(self.locate(mover, opp), mover, opp)
    }

    /// The value at a place `locate(mover, opp)` returned, deep values included.
    #[inline(always)]
    pub fn read_at(&self, at: Option<&u8>, mover: Bits, opp: Bits) -> Value {
        match at {
            Some(&b) if is_deep(b) => self.deep_value(b, mover, opp),
            at => Self::read(at),
        }
    }

    /// A deep byte's value, from its subspace's deep list. A byte without its depth
    /// (which a checked table cannot have) is kept as an error, like a table that
    /// failed to load, and reads as a draw.
    #[cold]
    fn deep_value(&self, b: u8, mover: Bits, opp: Bits) -> Value {
        let sub = Subspace::new(mover.count_ones() as u8, opp.count_ones() as u8).expect("movement position in range");
        let i = SubspaceIndex::new(self.game.rules().board(), sub.s, sub.o).index(mover, opp);
        self.deep.get(&sub).and_then(|d| d.value(b, i)).unwrap_or_else(|| {
            let e = TableError::DeepValues { path: format!("movement table {sub}").into(), reader: "these movement tables (no deep list given)" };
            self.error.lock().unwrap().get_or_insert(e);
            Value::Draw
        })
    }

    /// Where the value of `(mover, opp)` is stored, so that a caller can prefetch many
    /// before reading any. `None` when the side to move is down to two stones.
    #[inline(always)]
    pub fn locate(&self, mover: Bits, opp: Bits) -> Option<&u8> {
        if mover.count_ones() < 3 {
            return None;
        }
        let sub = Subspace::new(mover.count_ones() as u8, opp.count_ones() as u8).expect("movement position in range");
        let table = self.table(sub, false);
        // An empty table stands for one that failed to load (see `take_error`).
        table.get(SubspaceIndex::new(self.game.rules().board(), sub.s, sub.o).index(mover, opp) as usize).or(Some(&0))
    }

    /// Like `locate`, in the packed result tables: the byte and the code's shift.
    #[inline(always)]
    pub fn locate_wld(&self, mover: Bits, opp: Bits) -> Option<(&u8, u32)> {
        if mover.count_ones() < 3 {
            return None;
        }
        let sub = Subspace::new(mover.count_ones() as u8, opp.count_ones() as u8).expect("movement position in range");
        let table = self.table(sub, true);
        let i = SubspaceIndex::new(self.game.rules().board(), sub.s, sub.o).index(mover, opp) as usize;
        Some((table.get(i / wld::PER_BYTE).unwrap_or(&0), wld::shift(i)))
    }

    /// The result at a place `locate_wld` returned: 1 win, 0 draw, -1 loss.
    #[inline]
    pub fn read_wld(at: Option<(&u8, u32)>) -> i32 {
        match at.map_or(wld::LOSS, |(&b, shift)| wld::at_shift(b, shift)) {
            wld::DRAW => 0,
            wld::WIN => 1,
            _ => -1,
        }
    }

    /// The value at a place `locate` returned, for tables without deep values (see
    /// [`MovementTables::read_at`]).
    #[inline]
    pub fn read(at: Option<&u8>) -> Value {
        at.map_or(Value::Loss(0), |&b| Value::decode(b))
    }

    fn table(&self, sub: Subspace, wld: bool) -> &[u8] {
        let (slots, loader) = if wld { (&self.wld, &self.wld_loader) } else { (&self.tables, &self.loader) };
        let slot = &slots[sub.s as usize][sub.o as usize];
        if let Some(t) = slot.get() {
            return (**t).as_ref();
        }
        let load = loader.as_ref().unwrap_or_else(|| panic!("movement table {sub} was not provided"));
        // Load outside `get_or_init`: loading runs rayon work, and a rayon thread that
        // waits inside `get_or_init` may steal a search task that needs this very cell,
        // which would deadlock (rayon-rs/rayon#592). Two threads may load the same
        // table at once; one result is kept.
        let value = load(sub).unwrap_or_else(|e| {
            self.error.lock().unwrap().get_or_insert(e);
            Arc::new(Vec::new()) as Values
        });
        let loaded = slot.get_or_init(|| value);
        (**loaded).as_ref()
    }
}

/// The terminal value of a position before any move, if the game is already over.
pub(crate) fn terminal(ply: Ply, mover: Bits) -> Option<Value> {
    crate::rules::ply::has_lost(ply, mover).then_some(Value::Loss(0))
}

/// The plies from `root` up to and including the first movement ply.
pub(crate) fn schedule(root: &Position) -> Vec<Ply> {
    Ply { white_hand: root.white_hand, black_hand: root.black_hand, to_move: root.to_move }.schedule()
}

/// The result of solving the game from one root.
pub struct Solution {
    /// The root's value for its side to move.
    pub value: Value,
    /// Every legal move from the root with the position it leads to and its value for
    /// the side that plays it, best first.
    pub moves: Vec<crate::position::value::MoveInfo>,
    /// Placement positions (up to symmetry) the solver evaluated.
    pub nodes: u64,
}

/// A root that is already a movement position: its value and its moves' come straight
/// from the tables.
pub(crate) fn movement_root(root: &Position, tables: &MovementTables) -> Solution {
    let (m, o) = (root.mover(), root.opponent());
    let mut moves = Vec::new();
    if m.count_ones() >= 3 {
        for_each_move(tables.game, m, o, |mv, cm, co| {
            let child = Position::movement(root.rules(), root.to_move.other(), cm, co);
            moves.push(MoveInfo { mv, child, value: tables.value(cm, co).parent() })
        });
    }
    crate::position::value::sort_moves(&mut moves);
    Solution { value: tables.value(m, o), moves, nodes: 0 }
}
