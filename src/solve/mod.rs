//! Solving: retrograde analysis of the movement units and of Lasker's cyclic
//! placement units ([`solver`]), backward induction and search over the placement
//! phase ([`placement`]), the draw classes of the ultra-strong solution ([`ultra`]),
//! and the `solve` pipeline that runs them in order and writes the tables
//! ([`generate`]).

pub mod generate;
pub mod placement;
pub mod progress;
pub mod solver;
pub mod ultra;
