//! `morris`: a strong solver, table format and probe for Nine Men's Morris.
//!
//! Rules and conventions follow `RULES.md` of the project: movement-phase subspaces
//! `s-o` (stones of the side to move, of the opponent), values for the side to move
//! with depth to the end of the game in plies.

pub mod combin;
pub mod cpu;
pub mod generate;
pub mod geometry;
pub mod index;
pub mod movegen;
pub mod placement;
pub mod position;
pub mod probe;
pub mod sector;
pub mod solver;
pub mod subspace;
pub mod table;
pub mod symmetry;
pub mod value;
pub mod verify;

pub use position::{Color, Position};
pub use sector::Sector;
pub use subspace::{Subspace, Unit};
pub use value::Value;
