#![warn(missing_docs)]
//! `morris`: a strong solver, table format and probe for Nine Men's Morris.
//!
//! Rules and conventions follow `RULES.md` of the project: movement-phase subspaces
//! `s-o` (stones of the side to move, of the opponent), values for the side to move
//! with depth to the end of the game in plies.
//!
//! An engine needs three things from here: [`Position`] (the notation, legal moves,
//! playing a move), [`movegen::Move`] (moves in the notation `d1`, `d1xg7`, `a1-a4`,
//! `a1-a4xd7`) and [`probe::Tablebase`], which reads the values of positions and of
//! their moves from a directory of tables written by `morris solve` (or by
//! [`generate::run`]). The other modules are the solver that writes the tables: board
//! geometry and symmetries, the index of a table, the retrograde solver of the movement
//! phase, the solvers of the placement phase, the table format and the verifier.
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
//! let opts = morris::generate::Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)] };
//! morris::generate::run(&opts, &morris::solver::NoProgress)?;
//!
//! // Board in reading order (a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2
//! // f2 a1 d1 g1), side to move, and the hands (left out once both are empty).
//! let pos: Position = ".WW....B.B....B........W b".parse()?;
//! let moves: Vec<Move> = pos.legal_moves();
//! let fly: Move = "a4-a7".parse()?;
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

pub mod combin;
pub mod compact;
pub mod cpu;
pub mod generate;
pub mod geometry;
pub mod index;
pub mod movegen;
pub mod placement;
pub mod position;
pub mod probe;
pub mod rules;
pub mod sector;
pub mod solver;
pub mod subspace;
pub mod table;
pub mod symmetry;
pub mod value;
pub mod verify;

pub use movegen::Move;
pub use placement::{SearchOptions, Searcher};
pub use position::{Color, Position, PositionError};
pub use probe::{LineStep, ProbeError, Tablebase};
pub use rules::{Rules, RulesError};
pub use sector::Sector;
pub use subspace::{Subspace, Unit};
pub use table::TableError;
pub use value::{MoveInfo, Value, Wdl};
