#![warn(missing_docs)]
//! `morris`: a strong solver, table format and probe for Nine Men's Morris.
//!
//! Rules, conventions and notation are those of `docs/rules.md`: movement-phase subspaces
//! `s-o` (stones of the side to move, of the opponent), values for the side to move
//! with depth to the end of the game in plies.
//!
//! An engine needs three things from here: [`Position`] (the notation, legal moves,
//! playing a move), [`Move`] (moves in the notation `d1`, `d1xg7`, `a1-a4`,
//! `a1-a4xd7`) and [`Tablebase`], which reads the values of positions and of their
//! moves ([`Value`], [`Wdl`], [`MoveInfo`]) from a directory of tables written by
//! `morris solve` (or by [`generate()`]). A [`Tablebase`] only reads: where a placement
//! table is absent, a [`Searcher`] solves the position by search, on purpose.
//! [`verify()`] checks tables against their successors. Every table records the
//! [`Rules`] that made it, and a reader refuses tables of other rules.
//!
//! # A short tour
//!
//! ```rust
//! use morris::{Move, Position, Tablebase, Value, Wdl};
//!
//! // Tables of the game with three stones a side: the 3-3 movement subspace and the
//! // placement sectors of that start, solved in a fraction of a second. The full game
//! // is `starts: vec![(9, 9)]` with `max_stones: 18`, a much longer job.
//! # let dir = tempfile::tempdir()?;
//! let opts = morris::solve::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD };
//! morris::solve::generate::run(&opts, &morris::NoProgress)?;
//!
//! // Board in reading order (a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2
//! // f2 a1 d1 g1), side to move, and the hands (left out once both are empty).
//! let pos = Position::parse(".WW....B.B....B........W b", morris::Rules::STANDARD)?;
//! let moves: Vec<Move> = pos.legal_moves();
//! let fly: Move = pos.parse_move("a4-a7")?;
//! assert!(moves.contains(&fly), "with three stones Black flies anywhere");
//! let next = pos.play(&fly)?;
//! assert_eq!(next.to_string(), "BWW....B......B........W w");
//!
//! let tb = Tablebase::open(dir.path())?;
//! assert_eq!(tb.probe(&pos)?, Value::Loss(26), "Black, to move, loses in 26 plies");
//! assert_eq!(tb.probe(&next)?, Value::Win(19), "a4-a7 loses faster");
//! assert_eq!(tb.probe_wdl(&next)?, Wdl::Win);
//! let best = tb.best_move(&pos)?.expect("the game is not over");
//! assert_eq!((best.mv.to_string(), best.value), ("d5-a7".to_string(), Value::Loss(26)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The engine's layers, from the bottom up; each may use the layers above it in this
// list, never one below (see docs/design.md). With the `internals` feature (which the
// command line enables, and the tests and benches use) they are public but hidden from
// the documentation; without it they are private to the crate. The API is the block of
// re-exports below, and nothing else is promised to stay. Each is declared twice, not by a
// macro, so that rustfmt reaches the modules.

// run-time choice of the fast paths
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod cpu;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod cpu;

// rule sets, boards, mills, symmetries, move generation
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod rules;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod rules;

// positions, sectors, the index of each sector, values
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod position;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod position;

// the table files: format, reader, writer, compact sets
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod table;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod table;

// the solver, the placement phase, the draw classes, the pipeline
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod solve;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod solve;

// reading values of positions and moves
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod probe;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod probe;

// the forward verifier
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod verify;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod verify;

// games between players
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod arena;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod arena;

pub use position::sector::{CycleError, Sector, SectorParseError};
pub use position::subspace::{Subspace, SubspaceParseError, Unit};
pub use position::value::{MoveInfo, Value, Wdl};
pub use position::{Color, Position, PositionError};
pub use probe::ultra::{DrawClass, UltraValue};
pub use probe::{Grade, LineStep, ProbeError, SearchOptions, Searcher, Tablebase, CACHE_BLOCKS};
pub use rules::movegen::{Move, MoveParseError};
pub use rules::{Rules, RulesError};
pub use solve::generate::{run as generate, Options as GenerateOptions, Report, Reporter};
pub use solve::placement::Solution;
pub use solve::progress::{NoProgress, Progress};
pub use table::stats::Stats;
pub use table::{Checked, TableError, TableFile};
pub use verify::{verify, verify_sectors, Mismatch, Outcome};
